"""Evidence: attachments (content-addressed blobs), artifacts, attestations and custom
attestation types. Frozen copies of the models, independent of `models.py`."""

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-ins for tables of 0001, only referenced here.
    class Organization(Base):
        pass

    class Flow(Base):
        pass

    class Trail(Base):
        pass

    class Blob(Base):
        """Attachment content, addressed by its SHA-256 and stored once however often attached."""

        sha256 = peewee.CharField(primary_key=True)
        size = peewee.IntegerField()
        content = peewee.BlobField()
        created_at = peewee.DoubleField()


    class Artifact(Base):
        """A build output of a trail, identified by the SHA-256 of its content."""

        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
        trail = peewee.ForeignKeyField(Trail, on_delete="CASCADE")
        fingerprint = peewee.CharField()
        name = peewee.TextField()
        template_reference_name = peewee.CharField(null=True)
        git_commit = peewee.CharField(null=True)
        git_commit_info = JSONField(null=True)
        repo_info = JSONField(null=True)
        build_url = peewee.TextField(null=True)
        commit_url = peewee.TextField(null=True)
        repo_url = peewee.TextField(null=True)
        external_urls = JSONField(default=dict)
        annotations = JSONField(default=dict)
        commits = JSONField(default=list)
        created_by = peewee.CharField(default="")
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("trail", "fingerprint"), True),
                (("organization", "fingerprint"), False),
                (("organization", "git_commit"), False),
                (("flow", "created_at"), False),
            )


    class Attestation(Base):
        """One piece of evidence reported to a trail, optionally about one of its artifacts.
        An override is a new row that re-judges an earlier one; both are kept."""

        uid = peewee.CharField(unique=True)
        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
        trail = peewee.ForeignKeyField(Trail, on_delete="CASCADE")
        artifact = peewee.ForeignKeyField(Artifact, null=True, on_delete="SET NULL")
        name = peewee.CharField()
        type = peewee.CharField()
        target_artifact = peewee.CharField(null=True)
        artifact_fingerprint = peewee.CharField(null=True)
        is_compliant = peewee.BooleanField()
        data = JSONField(default=dict)
        summary = JSONField(default=dict)
        attachment = peewee.ForeignKeyField(Blob, null=True, on_delete="SET NULL")
        attachment_name = peewee.TextField(null=True)
        overrides = peewee.CharField(null=True)  # uid of the attestation this one re-judges
        created_by = peewee.CharField(default="")
        created_at = peewee.DoubleField()

        class Meta:
            indexes = (
                (("trail", "name"), False),
                (("organization", "created_at"), False),
                (("flow", "created_at"), False),
            )


    class AttestationType(Base):
        """A custom attestation type: a JSON Schema for its data and jq rules judging it."""

        organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
        name = peewee.CharField()
        archived = peewee.BooleanField(default=False)
        created_by = peewee.CharField(default="")
        created_at = peewee.DoubleField()
        last_modified_at = peewee.DoubleField()

        class Meta:
            indexes = ((("organization", "name"), True),)


    class AttestationTypeVersion(Base):
        type = peewee.ForeignKeyField(AttestationType, on_delete="CASCADE")
        version = peewee.IntegerField()
        description = peewee.TextField(default="")
        comment = peewee.TextField(default="")
        type_schema = JSONField(null=True)
        evaluator = JSONField(null=True)
        summary = JSONField(null=True)
        created_by = peewee.CharField(default="")
        timestamp = peewee.DoubleField()

        class Meta:
            indexes = ((("type", "version"), True),)

    db.create_tables([Blob, Artifact, Attestation, AttestationType, AttestationTypeVersion])
