"""Attestations keep the commit of their git_commit_info in a column, so a search by commits
filters in SQL (it scanned the newest 10,000 rows' JSON in Python). Existing rows are filled
in here from their data. A frozen copy of the model."""

import json

import peewee


def commit_of(text):
    """data.git_commit_info.sha1 of an attestation's stored data, when it is a string."""
    info = json.loads(text or "{}").get("git_commit_info")
    sha1 = info.get("sha1") if isinstance(info, dict) else None
    return sha1 if isinstance(sha1, str) else None


def up(migrator, db):
    class Attestation(peewee.Model):
        data = peewee.TextField()
        git_commit = peewee.CharField(null=True)

        class Meta:
            database = db
            legacy_table_names = False

    migrator.migrate(
        migrator.add_column("attestation", "git_commit", peewee.CharField(null=True)),
        migrator.add_index("attestation", ("organization_id", "git_commit")),
    )
    rows = (Attestation.select(Attestation.id, Attestation.data)
            .where(Attestation.data.contains('"git_commit_info"')).tuples())
    commits = [(row_id, sha1) for row_id, text in rows.iterator()
               if (sha1 := commit_of(text)) is not None]
    for row_id, sha1 in commits:
        Attestation.update(git_commit=sha1).where(Attestation.id == row_id).execute()
