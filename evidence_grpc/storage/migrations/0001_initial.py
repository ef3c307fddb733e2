"""Initial schema: organizations, users, personal API keys, flows, trails and trail events.

The models here are a frozen copy of the schema at this migration, on purpose independent
of `models.py`, so that replaying history on a new database always builds the same tables.
"""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Organization(Base):
        name = peewee.CharField(unique=True)
        kind = peewee.CharField(default="shared")
        features = JSONField(default=list)
        experimental_features_enabled = peewee.BooleanField(default=False)
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

    class User(Base):
        name = peewee.CharField(unique=True)
        default_org = peewee.CharField(null=True)
        created_at = peewee.DoubleField()

    class Membership(Base):
        user = peewee.ForeignKeyField(User, on_delete="CASCADE")
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")

        class Meta:
            indexes = ((("user", "organization"), True),)

    class ApiKey(Base):
        key_hash = peewee.CharField(unique=True)
        user = peewee.ForeignKeyField(User, on_delete="CASCADE")
        description = peewee.TextField(default="")
        created_at = peewee.DoubleField()
        expires_at = peewee.DoubleField(null=True)
        last_used_at = peewee.DoubleField(null=True)
        revoked = peewee.BooleanField(default=False)

    class Flow(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        name = peewee.CharField()
        description = peewee.TextField(default="")
        visibility = peewee.CharField(default="private")
        template_yaml = peewee.TextField(null=True)
        legacy_template = JSONField(null=True)
        repo_url = peewee.TextField(null=True)
        tags = JSONField(default=dict)
        archived = peewee.BooleanField(default=False)
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()
        last_deployment_at = peewee.DoubleField(null=True)

        class Meta:
            indexes = ((("organization", "name"), True),)

    class FlowAlias(Base):
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        name = peewee.CharField()
        flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")

        class Meta:
            indexes = ((("organization", "name"), True),)

    class Trail(Base):
        flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
        name = peewee.CharField()
        description = peewee.TextField(null=True)
        git_commit_info = JSONField(null=True)
        repo_info = JSONField(null=True)
        origin_url = peewee.TextField(null=True)
        external_urls = JSONField(default=dict)
        user_data = JSONField(null=True)
        template_yaml = peewee.TextField(null=True)
        created_by = peewee.CharField(default="")
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

        class Meta:
            indexes = ((("flow", "name"), True), (("flow", "created_at"), False))

    class TrailEvent(Base):
        trail = peewee.ForeignKeyField(Trail, on_delete="CASCADE", index=True)
        timestamp = peewee.DoubleField()
        type = peewee.CharField()
        payload = JSONField(default=dict)

    db.create_tables([Organization, User, Membership, ApiKey, Flow, FlowAlias, Trail, TrailEvent])
