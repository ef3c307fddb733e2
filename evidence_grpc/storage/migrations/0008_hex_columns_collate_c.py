"""Artifact fingerprints and commits compare byte by byte on PostgreSQL (COLLATE "C"), whatever
the database's collation: prefix lookups are ranges (`prefix` <= value < next prefix), which a
linguistic collation breaks (under ICU's en-US `abcd:` sorts before `abcd9`). Their indexes are
rebuilt in the new collation, so the ranges stay index scans. SQLite already compares bytes."""

import peewee


def up(migrator, db):
    if isinstance(db, peewee.PostgresqlDatabase):
        db.execute_sql('ALTER TABLE artifact ALTER COLUMN fingerprint TYPE varchar(255) COLLATE "C", '
                       'ALTER COLUMN git_commit TYPE varchar(255) COLLATE "C"')
