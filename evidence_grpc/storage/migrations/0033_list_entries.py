"""Each item's position in the paged lists it belongs to (issue 48), given as it is added, so
that a page is a range of positions (an index seek) at any depth instead of an OFFSET walked
through every item before it. Numbered here for the rows made before it, in each list's order
(the order its pages answered them: a page asked before and after this migration holds the same
items), and the lists' sizes counted again with them. Frozen copy of the model and of the
kinds' codes (domain.kernel.list_sizes)."""

import peewee

# (code, the kind's name in list_size, the table, the owner's column, the list's order)
NUMBERED = ((1, "trails of flow", "trail", "flow_id", "id"),
            (2, "attestations of flow", "attestation", "flow_id", "id"),
            (3, "attestations of trail", "attestation", "trail_id", "id"),
            (4, "audit events of organization", "membership_audit_event", "organization_id",
             "timestamp, id"))


def up(migrator, db):
    class ListEntry(peewee.Model):
        list_kind = peewee.SmallIntegerField()
        owner = peewee.BigIntegerField()
        position = peewee.BigIntegerField()
        item = peewee.BigIntegerField()

        class Meta:
            database = db
            legacy_table_names = False
            primary_key = peewee.CompositeKey("list_kind", "owner", "position")
            without_rowid = isinstance(db, peewee.SqliteDatabase)

    db.create_tables([ListEntry])
    for code, kind, table, owner, order in NUMBERED:
        # the sizes counted again with the positions, so that the last position is the size
        db.execute_sql(f"DELETE FROM list_size WHERE kind = {db.param}", (kind,))
        db.execute_sql(f"INSERT INTO list_size (kind, owner, size) SELECT {db.param}, {owner}, "
                       f"COUNT(*) FROM {table} WHERE {owner} IS NOT NULL GROUP BY {owner}", (kind,))
        db.execute_sql(
            f"INSERT INTO list_entry (list_kind, owner, position, item) SELECT {code}, {owner}, "
            f"ROW_NUMBER() OVER (PARTITION BY {owner} ORDER BY {order}), id FROM {table} "
            f"WHERE {owner} IS NOT NULL")
