"""The transparency log's subtree hashes move into its entries (issue 33): each entry keeps, in
`hashes`, the hashes of the complete subtrees its append made, level 0 (its leaf's hash) first,
32 bytes each; the hash of subtree (level, index) is entry ((index + 1) << level) - 1's, at
position `level`. An append then writes one row instead of one per hash (and no longer the
index of organization_id alone, which (organization_id, number) covers). The hashes are the
same bytes as before, moved from log_hash (dropped), so every checkpoint, proof and tile
answers as it did. An entry whose hashes log_hash lacked keeps those it had up to the first
missing one (verify-log names it). Frozen: no domain or storage imports."""

import peewee

PAGE = 5_000  # entries a round
IN_LIST = 500  # hashes a read


def _closed_by(number):
    """(level, node) of the subtrees entry `number` completes, level 0 first; node is
    level << 56 | index, as log_hash keyed them."""
    closed = [(0, number)]
    while number & 1:
        number >>= 1
        closed.append((len(closed), len(closed) << 56 | number))
    return closed


def up(migrator, db):
    migrator.migrate(migrator.add_column("log_entry", "hashes", peewee.BlobField(null=True)))
    p = db.param  # the engine's placeholder
    organizations = [row[0] for row in db.execute_sql(
        "SELECT DISTINCT organization_id FROM log_entry")]
    for org in organizations:
        after = -1
        while True:
            numbers = [row[0] for row in db.execute_sql(
                f"SELECT number FROM log_entry WHERE organization_id = {p} AND number > {p} "
                f"ORDER BY number LIMIT {PAGE}", (org, after))]
            if not numbers:
                break
            wanted = {number: _closed_by(number) for number in numbers}
            nodes = sorted({node for closed in wanted.values() for _, node in closed})
            stored = {}
            for start in range(0, len(nodes), IN_LIST):
                chunk = nodes[start:start + IN_LIST]
                stored.update((node, bytes(value)) for node, value in db.execute_sql(
                    f"SELECT node, hash FROM log_hash WHERE organization_id = {p} AND node IN "
                    f"({', '.join([p] * len(chunk))})", (org, *chunk)))
            updates = []
            for number, closed in wanted.items():
                kept = []
                for _, node in closed:
                    if node not in stored:
                        break
                    kept.append(stored[node])
                updates.append((b"".join(kept), org, number))
            cursor = db.cursor()
            cursor.executemany(f"UPDATE log_entry SET hashes = {p} WHERE organization_id = {p} "
                               f"AND number = {p}", updates)
            after = numbers[-1]
    db.execute_sql("DROP TABLE log_hash")
    # The organization's entries are found by (organization_id, number): its own index of
    # organization_id alone only made every append write one more page.
    db.execute_sql("DROP INDEX log_entry_organization_id")
