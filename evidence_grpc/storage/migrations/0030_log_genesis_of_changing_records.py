"""Each organization's log gets a second genesis (issue 45): a `log_begun` entry appended now for
the kinds logged from 2026-12-02 on (flows, trails, artifacts, environments and their allowlists,
policies and controls and their versions), whose rows from before have no entry, and those
logged from this release on (repositories, custom attestation types and their versions). From here on
`verify-log` names each of their rows with no entry that this genesis did not count.

A kind whose rows change in place (an entry at each change) is committed to by *all* its rows up
to its highest id now, logged or not (`"rows": "all"`), with the columns of them that never change:
a row from before changed later gets an entry, checked against its row from then on, and stays
counted here. Versions of a policy, control or attestation type are never changed: those with no entry are
committed to with all their columns, as migration 0026 did its kinds. Frozen: SQL
(migrations.frozen), no domain or storage imports."""

import time

import rfc8785

from evidence_grpc.storage.migrations.frozen import append_to_log, rows_before_the_log

# kind: (the rows of an organization ({p}: its id) that must each have an entry, their table as
# `t`; the columns digested; whether every row is (one that changes in place) or those with no
# entry). As the domain's log.register(..., rows=...) selects them.
KINDS = {
    "flow": ("FROM flow t WHERE t.organization_id = {p}", ["organization_id", "created_at"], True),
    "trail": ("FROM trail t JOIN flow f ON f.id = t.flow_id WHERE f.organization_id = {p}",
              ["flow_id", "name", "created_at"], True),
    "artifact": ("FROM artifact t WHERE t.organization_id = {p}",
                 ["uid", "organization_id", "flow_id", "trail_id", "fingerprint", "created_at"], True),
    "environment": ("FROM environment t WHERE t.organization_id = {p}",
                    ["organization_id", "created_at"], True),
    "allowlist_entry": (
        "FROM allowlist_entry t JOIN environment v ON v.id = t.environment_id "
        "WHERE v.organization_id = {p}", ["environment_id", "fingerprint"], True),
    "policy": ("FROM policy t WHERE t.organization_id = {p}",
               ["organization_id", "created_by", "created_at"], True),
    "policy_version": (
        "FROM policy_version t JOIN policy o ON o.id = t.policy_id WHERE o.organization_id = {p}",
        ["policy_id", "version", "policy_yaml", "comment", "created_by", "created_at"], False),
    "control": ("FROM control t WHERE t.organization_id = {p}",
                ["organization_id", "identifier", "created_by", "created_at"], True),
    "control_version": (
        "FROM control_version t JOIN control o ON o.id = t.control_id WHERE o.organization_id = {p}",
        ["control_id", "version", "event", "name", "description", "links", "archived", "created_by",
         "created_at"], False),
    "repo": ("FROM repo t WHERE t.organization_id = {p}",
             ["organization_id", "repo_id", "created_at"], True),
    "attestation_type": ("FROM attestation_type t WHERE t.organization_id = {p}",
                         ["organization_id", "name", "created_by", "created_at"], True),
    "attestation_type_version": (
        "FROM attestation_type_version t JOIN attestation_type o ON o.id = t.type_id "
        "WHERE o.organization_id = {p}",
        ["type_id", "version", "description", "comment", "type_schema", "evaluator", "summary",
         "created_by", "timestamp"], False),
}


def up(migrator, db):
    for org, name in list(db.execute_sql("SELECT id, name FROM organization ORDER BY id")):
        leaf = {"kind": "log_begun", "org": name, "created_at": time.time(),
                "records": {kind: rows_before_the_log(db, org, kind, *KINDS[kind])
                            for kind in sorted(KINDS)}}
        append_to_log(db, org, "log_begun", rfc8785.dumps(leaf))
