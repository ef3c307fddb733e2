"""Identities with least privilege: a role per membership (existing members are admins),
service accounts with their hashed API keys, and the membership audit log. Frozen copy of
the models, independent of `models.py`."""

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

    class ServiceAccount(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        name = peewee.CharField(max_length=64, collation=collate)
        description = peewee.TextField(null=True)
        privilege = peewee.CharField()
        created_by = peewee.CharField()
        created_at = peewee.DoubleField()

        class Meta:
            indexes = ((("organization", "name"), True),)

    class ServiceAccountKey(Base):
        service_account = peewee.ForeignKeyField(ServiceAccount, on_delete="CASCADE")
        key_id = peewee.CharField(unique=True)
        key_hash = peewee.CharField(unique=True)
        description = peewee.TextField()
        created_at = peewee.DoubleField()
        expires_at = peewee.BigIntegerField(default=0)
        last_used_at = peewee.DoubleField(null=True)
        revoked = peewee.BooleanField(default=False)
        rotated = peewee.BooleanField(default=False)

    class MembershipAuditEvent(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        event_type = peewee.CharField()
        timestamp = peewee.DoubleField()
        actor = peewee.CharField()
        subject = peewee.CharField()
        role = peewee.CharField(default="")
        source = peewee.CharField(default="api")
        details = JSONField(default=dict)

        class Meta:
            indexes = ((("organization", "timestamp"), False),)

    migrator.migrate(migrator.add_column("membership", "role",
                                         peewee.CharField(default="admin")))
    db.create_tables([ServiceAccount, ServiceAccountKey, MembershipAuditEvent])
