"""The environment audit log: who changed what in an environment, recorded when it happens.
Artifact changes of snapshots made before it are copied in from `environment_event` (their
reporter is not known: the actor stays empty). Frozen copy of the model."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0003, only referenced here.
    class Environment(Base):
        pass

    class EnvironmentAuditEvent(Base):
        environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
        timestamp = peewee.DoubleField()
        event_type = peewee.CharField()
        actor = peewee.CharField(default="")
        artifact_name = peewee.TextField(null=True)
        fingerprint = peewee.CharField(null=True)
        snapshot_index = peewee.IntegerField(null=True)
        details = JSONField(default=dict)

        class Meta:
            indexes = ((("environment", "timestamp"), False),)

    db.create_tables([EnvironmentAuditEvent])
    db.execute_sql(
        "INSERT INTO environment_audit_event (environment_id, timestamp, event_type, actor, "
        "artifact_name, fingerprint, snapshot_index, details) "
        "SELECT environment_id, reported_at, 'artifact_' || type, '', artifact_name, fingerprint, "
        "snapshot_index, '{\"was\": ' || was || ', \"now\": ' || now || '}' "
        "FROM environment_event ORDER BY id")
