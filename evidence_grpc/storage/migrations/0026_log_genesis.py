"""Every organization's log gets its genesis (issue 45): a `log_begun` entry appended now, which
commits to the records of the logged kinds that have no entry (written before the log began, in
2026-11-28b, or never logged): per kind, their count, highest id, and the SHA-256 of their rows'
stored columns in id order (for each row, the JSON array of its id and the columns named, and a
newline; booleans as 0 and 1), naming the table and columns it digested. From here on
`verify-log` names every record of those kinds with no entry that the genesis did not count, and
a genesis whose counted rows are no longer what it committed to (one inserted among them, changed
or deleted). The columns are the rows' own that never change once written (an attestation's
artifact is not: one made before its artifact is bound to it later, which the binding's entry
says). Frozen: SQL and copies of what the log's append does, no domain or storage imports."""

import hashlib
import json
import time

import rfc8785

PAGE = 5_000  # rows a read

# kind: (the rows of an organization ({p}: its id) that must each have an entry, their table as
# `t`; the columns digested). As the domain's log.register(..., rows=...) selects them.
KINDS = {
    "attestation": (
        "FROM attestation t WHERE t.organization_id = {p}",
        ["uid", "organization_id", "flow_id", "trail_id", "name", "type", "target_artifact",
         "is_compliant", "data", "summary", "attachment_id", "attachment_name", "overrides",
         "git_commit", "created_by", "created_at"]),
    "attestation_bound": (
        "FROM attestation t JOIN artifact a ON a.id = t.artifact_id "
        "WHERE t.organization_id = {p} AND a.created_at > t.created_at",
        ["artifact_id", "artifact_fingerprint"]),
    "trail_event": (
        "FROM trail_event t JOIN trail r ON r.id = t.trail_id JOIN flow f ON f.id = r.flow_id "
        "WHERE f.organization_id = {p} AND t.type IN "
        "('trail_reported', 'trail_updated', 'artifact_creation_reported')",
        ["trail_id", "timestamp", "type", "payload"]),
    "snapshot": (
        "FROM snapshot t JOIN environment v ON v.id = t.environment_id "
        "WHERE v.organization_id = {p}",
        ["environment_id", "index", "type", "artifacts", "created_at", "verdicts", "compliant",
         "applied_policies"]),
    "approval": (
        "FROM approval t WHERE t.organization_id = {p}",
        ["organization_id", "flow_id", "number", "fingerprint", "artifact_name", "environment",
         "environment_id", "description", "commits", "oldest_commit", "reviews", "state",
         "user_data", "created_by", "created_at"]),
}


def _row_line(values):
    plain = [int(v) if isinstance(v, bool) else bytes(v).hex() if isinstance(v, bytes | memoryview)
             else v for v in values]
    return json.dumps(plain, separators=(",", ":")).encode() + b"\n"


def _before_the_log(db, org, kind):
    """What the genesis says of the organization's `kind` rows that have no entry."""
    where, columns = KINDS[kind]
    p = db.param
    selected = ", ".join(f't."{c}"' for c in ["id", *columns])
    sql = (f"SELECT {selected} {where.format(p=p)} AND t.id > {p} AND NOT EXISTS (SELECT 1 FROM "
           f"log_entry e WHERE e.organization_id = {p} AND e.kind = {p} AND e.record_id = t.id) "
           f"ORDER BY t.id LIMIT {PAGE}")
    count, last_id, digest = 0, 0, hashlib.sha256()
    while True:
        rows = list(db.execute_sql(sql, (org, last_id, org, kind)))
        for row in rows:
            digest.update(_row_line(row))
        count += len(rows)
        if rows:
            last_id = rows[-1][0]
        if len(rows) < PAGE:
            break
    table = where.split()[1]
    return {"count": count, "last_id": last_id, "sha256": digest.hexdigest(), "table": table,
            "columns": columns}


def _leaf_hash(leaf):
    return hashlib.sha256(b"\x00" + leaf).digest()


def _node_hash(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def _append(db, org, kind, leaf):
    """log.append's writes: entry `size` with the hashes it completes, the head moved on."""
    p = db.param
    head = list(db.execute_sql(f"SELECT id, size, frontier FROM log_head WHERE organization_id "
                               f"= {p}", (org,)))
    if not head:
        db.execute_sql(f"INSERT INTO log_head (organization_id, size, frontier) VALUES ({p}, 0, "
                       f"'[]')", (org,))
        head = list(db.execute_sql(f"SELECT id, size, frontier FROM log_head WHERE "
                                   f"organization_id = {p}", (org,)))
    head_id, size, text = head[0]
    frontier = [bytes.fromhex(h) for h in json.loads(text)]
    made = [_leaf_hash(leaf)]
    number = size
    while number & 1:
        made.append(_node_hash(frontier.pop(), made[-1]))
        number >>= 1
    frontier.append(made[-1])
    db.execute_sql(f"INSERT INTO log_entry (organization_id, number, kind, record_id, leaf, hashes) "
                   f"VALUES ({p}, {p}, {p}, 0, {p}, {p})",
                   (org, size, kind, leaf.decode(), b"".join(made)))
    db.execute_sql(f"UPDATE log_head SET size = {p}, frontier = {p} WHERE id = {p}",
                   (size + 1, json.dumps([h.hex() for h in frontier], separators=(",", ":")),
                    head_id))


def up(migrator, db):
    for org, name in list(db.execute_sql("SELECT id, name FROM organization ORDER BY id")):
        leaf = {"kind": "log_begun", "org": name, "created_at": time.time(),
                "records": {kind: _before_the_log(db, org, kind) for kind in sorted(KINDS)}}
        _append(db, org, "log_begun", rfc8785.dumps(leaf))
