"""Environment policies, their versions and events. Frozen copies of the models,
independent of `models.py`. Attachments to environments stay in `environment.policies`."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for a table of 0001, only referenced here.
    class Organization(Base):
        pass

    class Policy(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        name = peewee.CharField()
        description = peewee.TextField(default="")
        created_by = peewee.CharField()
        archived = peewee.BooleanField(default=False)
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

        class Meta:
            indexes = ((("organization", "name"), True),)

    class PolicyVersion(Base):
        policy = peewee.ForeignKeyField(Policy, on_delete="CASCADE")
        version = peewee.IntegerField()
        policy_yaml = peewee.TextField()
        comment = peewee.TextField(default="")
        created_by = peewee.CharField()
        created_at = peewee.DoubleField()

        class Meta:
            indexes = ((("policy", "version"), True),)

    class PolicyEvent(Base):
        policy = peewee.ForeignKeyField(Policy, on_delete="CASCADE")
        type = peewee.CharField()
        user_name = peewee.CharField()
        data = JSONField(default=dict)
        created_at = peewee.DoubleField()

        class Meta:
            indexes = ((("policy", "created_at"), False),)

    db.create_tables([Policy, PolicyVersion, PolicyEvent])
