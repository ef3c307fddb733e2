"""Every organization's log gets its genesis (issue 45): a `log_begun` entry appended now, which
commits to the records of the logged kinds that have no entry (written before the log began, in
2026-11-28b, or never logged): per kind, their count, highest id, and the SHA-256 of their rows'
stored columns in id order (for each row, the JSON array of its id and the columns named, and a
newline; booleans as 0 and 1), naming the table and columns it digested. From here on
`verify-log` names every record of those kinds with no entry that the genesis did not count, and
a genesis whose counted rows are no longer what it committed to (one inserted among them, changed
or deleted). The columns are the rows' own that never change once written (an attestation's
artifact is not: one made before its artifact is bound to it later, which the binding's entry
says). Frozen: SQL and copies of what the log's append does (migrations.frozen), no domain or
storage imports."""

import time

import rfc8785

from evidence_grpc.storage.migrations.frozen import append_to_log, rows_before_the_log

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


def up(migrator, db):
    for org, name in list(db.execute_sql("SELECT id, name FROM organization ORDER BY id")):
        leaf = {"kind": "log_begun", "org": name, "created_at": time.time(),
                "records": {kind: rows_before_the_log(db, org, kind, *KINDS[kind])
                            for kind in sorted(KINDS)}}
        append_to_log(db, org, "log_begun", rfc8785.dumps(leaf))
