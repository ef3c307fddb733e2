"""Columns that are compared as ranges or sorted compare byte by byte on PostgreSQL (COLLATE
"C"), whatever the database's collation, as they do on SQLite:
- artifact fingerprints and commits: prefix lookups are ranges (`prefix` <= value < next
  prefix), which a linguistic collation breaks (under ICU's en-US `abcd:` sorts before `abcd9`);
- the names lists are sorted by (flows, environments, attestation types, repos): both engines,
  and clients sorting names themselves, agree on the order and on where a page ends.
Their indexes are rebuilt in the new collation, so ranges and sorts stay index scans."""

import peewee

COLUMNS = {"artifact": ("fingerprint", "git_commit"), "flow": ("name",),
           "environment": ("name",), "attestation_type": ("name",), "repo": ("name",)}


def up(migrator, db):
    if isinstance(db, peewee.PostgresqlDatabase):
        for table, columns in COLUMNS.items():
            db.execute_sql(f"ALTER TABLE {table} " + ", ".join(
                f'ALTER COLUMN {column} TYPE varchar(255) COLLATE "C"' for column in columns))
