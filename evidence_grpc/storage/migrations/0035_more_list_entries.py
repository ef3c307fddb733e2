"""More paged lists kept by position (issue 48; 0033 made list_entry): an environment's events,
an organization's trails, a flow's and an organization's artifacts. Numbered here for the rows
made before it, in each list's order (the order its pages answered them: events by snapshot
index, then id; trails and artifacts by id), and their sizes counted. Frozen copy of the kinds'
codes and names (domain.kernel.list_sizes)."""

# (code, the kind's name in list_size, the rows, the owner's column, the item, the list's order)
NUMBERED = ((6, "events of environment", "environment_event", "environment_id", "id",
             "snapshot_index, id"),
            (7, "trails of organization", "trail JOIN flow ON flow.id = trail.flow_id",
             "flow.organization_id", "trail.id", "trail.id"),
            (8, "artifacts of flow", "artifact", "flow_id", "id", "id"),
            (9, "artifacts of organization", "artifact", "organization_id", "id", "id"))


def up(migrator, db):
    for code, kind, rows, owner, item, order in NUMBERED:
        db.execute_sql(f"DELETE FROM list_size WHERE kind = {db.param}", (kind,))
        db.execute_sql(f"DELETE FROM list_entry WHERE list_kind = {code}")
        db.execute_sql(f"INSERT INTO list_size (kind, owner, size) SELECT {db.param}, {owner}, "
                       f"COUNT(*) FROM {rows} GROUP BY {owner}", (kind,))
        db.execute_sql(
            f"INSERT INTO list_entry (list_kind, owner, position, item) SELECT {code}, {owner}, "
            f"ROW_NUMBER() OVER (PARTITION BY {owner} ORDER BY {order}), {item} FROM {rows}")
