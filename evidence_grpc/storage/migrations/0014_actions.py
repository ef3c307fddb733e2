"""Actions (outbound notification rules) and the durable outbox of their notifications. Frozen
copy of the models, independent of `models.py`."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    collate = '"C"' if isinstance(db, peewee.PostgresqlDatabase) else None

    # Stand-in for the table of 0001, only referenced here.
    class Organization(Base):
        pass

    class Action(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        number = peewee.IntegerField()
        name = peewee.CharField(collation=collate)
        type = peewee.CharField()
        targets = JSONField(default=list)
        scopes = JSONField(default=list)
        triggers = JSONField(default=list)
        created_by = peewee.CharField()
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()
        last_success_at = peewee.DoubleField(null=True)
        last_failure_at = peewee.DoubleField(null=True)

        class Meta:
            indexes = ((("organization", "number"), True), (("organization", "name"), True))

    class OutboxMessage(Base):
        action = peewee.ForeignKeyField(Action, on_delete="CASCADE")
        target_index = peewee.IntegerField()
        trigger = peewee.CharField()
        payload = JSONField()
        created_at = peewee.DoubleField()
        attempts = peewee.IntegerField(default=0)
        next_attempt_at = peewee.DoubleField()
        claimed_until = peewee.DoubleField(default=0)
        delivered_at = peewee.DoubleField(null=True)
        abandoned_at = peewee.DoubleField(null=True)
        last_error = peewee.TextField(null=True)

        class Meta:
            indexes = ((("delivered_at", "abandoned_at", "next_attempt_at"), False),)

    db.create_tables([Action, OutboxMessage])
