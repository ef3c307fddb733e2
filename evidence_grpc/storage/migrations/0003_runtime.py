"""Runtime: environments, their snapshots and events, deployments, allowlists and repos.
Frozen copies of the models, independent of `models.py`."""

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

    class Environment(Base):
        """Where artifacts run. `latest_index` is the number of its newest snapshot (0: none yet)."""

        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        name = peewee.CharField()
        type = peewee.CharField()
        description = peewee.TextField(default="")
        include_scaling = peewee.BooleanField(default=False)
        require_provenance = peewee.BooleanField(default=False)
        tags = JSONField(default=dict)
        policies = JSONField(default=list)
        included_environments = JSONField(default=list)  # names of physical envs (logical type)
        archived = peewee.BooleanField(default=False)
        latest_index = peewee.IntegerField(default=0)
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()
        last_reported_at = peewee.DoubleField(null=True)
        last_changed_at = peewee.DoubleField(null=True)

        class Meta:
            indexes = ((("organization", "name"), True),)


    class Snapshot(Base):
        """One state of an environment: the artifacts running from `created_at` until the next."""

        environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
        index = peewee.IntegerField()
        type = peewee.CharField()
        # [{name, fingerprint, instance_count, creationTimestamp: [...], pods, context: [...]}]
        artifacts = JSONField(default=list)
        created_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("environment", "index"), True),
                (("environment", "created_at"), False),
            )


    class EnvironmentEvent(Base):
        """An artifact started, exited or scaled in a snapshot."""

        environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
        snapshot_index = peewee.IntegerField()
        type = peewee.CharField()  # started | exited | scaled
        artifact_name = peewee.TextField()
        fingerprint = peewee.CharField()
        was = peewee.IntegerField()
        now = peewee.IntegerField()
        reported_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("environment", "snapshot_index"), False),
                (("fingerprint",), False),
            )


    class Deployment(Base):
        """An artifact starting to run in a (non-logical) environment."""

        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
        snapshot_index = peewee.IntegerField()
        artifact_name = peewee.TextField()
        fingerprint = peewee.CharField()
        deployed_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("organization", "deployed_at"), False),
                (("organization", "fingerprint"), False),
            )


    class AllowlistEntry(Base):
        """An artifact allowed to run in an environment without provenance."""

        environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
        fingerprint = peewee.CharField()
        artifact_name = peewee.TextField()
        description = peewee.TextField(default="")
        user_name = peewee.CharField(default="")
        created_at = peewee.DoubleField()

        class Meta:
            indexes = ((("environment", "fingerprint"), True),)


    class Repo(Base):
        """A source repository, learned from the repo_info reported with trails and artifacts."""

        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        repo_id = peewee.CharField()
        name = peewee.CharField()
        url = peewee.TextField(default="")
        provider = peewee.CharField(null=True)
        description = peewee.TextField(null=True)
        namespace_path = JSONField(default=list)
        tags = JSONField(default=dict)
        created_at = peewee.DoubleField()
        last_seen_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("organization", "repo_id"), True),
                (("organization", "name"), False),
            )

    db.create_tables([Environment, Snapshot, EnvironmentEvent, Deployment, AllowlistEntry, Repo])
