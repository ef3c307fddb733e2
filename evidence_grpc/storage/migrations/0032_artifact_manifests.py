"""What an artifact's latest manifest in the transparency log says, kept as the artifact is
written (issue 45): the manifest's entry number, the count and digest of the artifact's entries
it lists, and the digest of its verdict then (its state, what its trail's part of it is and the
template judging it), so that the manifest of each write touching the artifact is made from one
row, and a write of its trail logs one only when the artifact's verdict changed. Empty here: an
artifact's row is made from its rows at its first change after this migration. Frozen copy of
the model."""

import peewee


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    # Stand-in for the table of 0002, only referenced here.
    class Artifact(Base):
        pass

    class ArtifactManifest(Base):
        artifact = peewee.ForeignKeyField(Artifact, primary_key=True, on_delete="CASCADE")
        manifest = peewee.BigIntegerField()
        count = peewee.BigIntegerField()
        entries_sha256 = peewee.CharField()
        verdict_sha256 = peewee.CharField()

    db.create_tables([ArtifactManifest])
