"""How many items a paged list holds, kept as items are added (issue 48): a page of a flow's
trails, a flow's or a trail's attestations or an organization's audit log tells its total from
one row instead of counting the list on every page. Filled here from the rows made before it.
Frozen copy of the model. On PostgreSQL, the indexes a page's ids are picked on, newest first,
by their owner's column (SQLite's index of that column holds the ids already, in order)."""

import peewee

# What each kind counts: (kind, table, the owner's column)
COUNTED = (("trails of flow", "trail", "flow_id"),
           ("attestations of flow", "attestation", "flow_id"),
           ("attestations of trail", "attestation", "trail_id"),
           ("audit events of organization", "membership_audit_event", "organization_id"))


def up(migrator, db):
    class ListSize(peewee.Model):
        kind = peewee.CharField()
        owner = peewee.BigIntegerField()
        size = peewee.BigIntegerField()

        class Meta:
            database = db
            legacy_table_names = False
            primary_key = peewee.CompositeKey("kind", "owner")

    db.create_tables([ListSize])
    for kind, table, owner in COUNTED:
        db.execute_sql(f"INSERT INTO list_size (kind, owner, size) SELECT %s, {owner}, COUNT(*) "
                       f"FROM {table} GROUP BY {owner}".replace("%s", db.param), (kind,))
    if not isinstance(db, peewee.SqliteDatabase):
        for table, owner in (("trail", "flow_id"), ("attestation", "flow_id"),
                             ("attestation", "trail_id"), ("artifact", "flow_id"),
                             ("artifact", "trail_id")):
            db.execute_sql(f"CREATE INDEX IF NOT EXISTS {table}_{owner}_id ON {table} ({owner}, id)")
        db.execute_sql("CREATE INDEX IF NOT EXISTS membership_audit_event_organization_id_"
                       "timestamp_id ON membership_audit_event (organization_id, timestamp, id)")
