"""Fenced leases of the outbox: each claim of a notification writes a token of its own with
the lease's end (`claimed_until`). The worker that claimed it sends it only while its token is
still the row's, with time left on the lease, and records the outcome only where it still is
(UPDATE ... WHERE lease_token = ...): a worker whose lease ran out and was taken over neither
sends nor records. Rows have none until they are next claimed. Frozen: no domain or storage
imports."""

import peewee


def up(migrator, db):
    migrator.migrate(
        migrator.add_column("outbox_message", "lease_token", peewee.CharField(null=True)),
    )
