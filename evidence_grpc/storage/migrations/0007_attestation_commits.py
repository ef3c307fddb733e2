"""Attestations keep the commit of their git_commit_info in a column, so a search by commits
filters in SQL (it scanned the newest 10,000 rows' JSON in Python). Existing rows are filled
in here from their data, by one UPDATE with the engine's JSON functions."""

import peewee

FILL = {
    "sqlite": "UPDATE attestation SET git_commit = json_extract(data, '$.git_commit_info.sha1') "
              "WHERE json_type(data, '$.git_commit_info.sha1') = 'text'",
    "postgresql": "UPDATE attestation SET git_commit = data::jsonb #>> '{git_commit_info,sha1}' "
                  "WHERE jsonb_typeof(data::jsonb #> '{git_commit_info,sha1}') = 'string'",
}


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("attestation", "git_commit", peewee.CharField(null=True)),
        migrator.add_index("attestation", ("organization_id", "git_commit")),
    )
    engine = "postgresql" if isinstance(db, peewee.PostgresqlDatabase) else "sqlite"
    db.execute_sql(FILL[engine])
