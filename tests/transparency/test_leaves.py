"""What the transparency log's leaves bind (issue 45, items 1 and 4): each kind's declared
shape decides every column of its table; what changes in place is an entry per change and
verify-log compares the row with the record's latest entry; a column changed in SQL is named;
a leaf fits an entry bundle whatever the texts given."""

from __future__ import annotations

import json
import pathlib
import shutil
import string

import peewee
import pytest

from evidence_grpc import domain
from evidence_grpc.domain.evidence import attestation_types, flows, repos, trails
from evidence_grpc.domain.governance import controls, policies, tags
from evidence_grpc.domain.kernel import limits
from evidence_grpc.domain.runtime import environments
from evidence_grpc.domain.transparency import log, notes
from evidence_grpc.domain.views.audit_packages import verify_package
from evidence_grpc.storage import db as storage
from evidence_grpc.storage import models
from evidence_grpc.storage.models import (
    AllowlistEntry,
    Artifact,
    Attestation,
    AttestationType,
    AttestationTypeVersion,
    Control,
    ControlVersion,
    Environment,
    Flow,
    FlowTemplate,
    LogEntry,
    Organization,
    Policy,
    PolicyVersion,
    Repo,
    Trail,
    User,
)
from tests.conftest import _close_shared_database
from tests.helpers import (
    BACKEND_FP,
    FRONTEND_FP,
    SCHEMA,
    H,
    attest,
    begin_trail,
    create_env,
    create_flow,
    create_type,
    put_policy,
    report_artifact,
    report_fingerprints,
)

# Every model whose rows the log binds (a leaf of its own, or a part of one).
LOGGED = {models.Attestation, models.Artifact, models.Flow, models.FlowTemplate, models.Trail,
          models.TrailEvent, models.Snapshot, models.Approval, models.Policy,
          models.PolicyVersion, models.Control, models.ControlVersion, models.Environment,
          models.AllowlistEntry, models.LogKeyRotation, models.Repo, models.AttestationType,
          models.AttestationTypeVersion}
FLOW_TEMPLATE = "trail:\n  attestations:\n    - name: review\n      type: generic\n"
POLICY = SCHEMA + "artifacts:\n  provenance:\n    required: true\n"


def test_every_column_of_every_logged_table_is_bound_or_derived_with_a_reason():
    assert domain  # the builders' shapes are declared when the domain is imported
    assert {shape.model for shape in log.SHAPES.values()} == LOGGED
    for kind, shape in log.SHAPES.items():
        columns = set(shape.model._meta.fields)
        assert set(shape.columns) <= columns, kind
        if shape.others is None:
            assert set(shape.columns) == columns, f"{kind}: undecided {columns - set(shape.columns)}"
        for column, how in shape.columns.items():
            if isinstance(how, log.Derived):
                assert how.reason, (kind, column)
            elif isinstance(shape.model._meta.fields[column], models.JSONField):
                assert how.digested, f"{kind}.{column}: JSON data is held as a digest"
        keys = [how.key for how in shape.columns.values() if isinstance(how, log.Bound)]
        assert len(keys) == len(set(keys)) and "kind" not in keys and "v" not in keys, kind
    # every kind an entry can be of has a shape (flow_template: a part of flows' and trails')
    # (a manifest, log.Subject, is made of the entries of its subject, not of a row)
    assert set(log._REBUILDERS) == (set(log.SHAPES) - {"flow_template"}) | set(log._SUBJECTS)


def _worst_row(shape: log.Shape, length: int) -> peewee.Model:
    """A row of the shape's table whose texts are `length` characters of the widest JSON (a
    control character is six bytes, \\u0001), numbers as long as they come."""
    values = {}
    for name, column in shape.model._meta.fields.items():
        if isinstance(column, peewee.ForeignKeyField | peewee.IntegerField | peewee.AutoField):
            values[name] = 2**53 - 1
        elif isinstance(column, peewee.DoubleField):
            values[name] = 1234567890.1234567
        elif isinstance(column, peewee.BooleanField):
            values[name] = True
        elif isinstance(column, models.JSONField):
            values[name] = {"x": "\x01" * 100_000}
        else:
            values[name] = "\x01" * length
    row = shape.model()
    row.__data__.update(values)
    return row


def test_a_leaf_fits_an_entry_bundle_whatever_its_texts():
    """Texts past TEXT_LIMIT are held as digests; a version-1 shape holds its texts whole, each
    bounded at the door (names: MAX_NAME_LENGTH)."""
    from evidence_grpc.domain.kernel.names import MAX_NAME_LENGTH
    for kind, shape in log.SHAPES.items():
        length = MAX_NAME_LENGTH if shape.whole_text else 1_000_000
        given = {key: "\x01" * length for key in shape.extra}
        leaf = log.canonical(shape.leaf(_worst_row(shape, length), **given))
        assert len(leaf) <= log.MAX_LEAF_BYTES, (kind, len(leaf))
    assert log.text("a" * log.TEXT_LIMIT) == "a" * log.TEXT_LIMIT
    assert log.text("\ud800" * 200).startswith("sha256:")  # a lone surrogate too


def test_the_longest_attestation_name_makes_an_entry_its_bundle_serves(client, db):
    """The longest name the door takes (kernel.limits.NAME; a 70 kB one made an entry no
    bundle could carry before there was a limit): held as its digest, past log.TEXT_LIMIT."""
    create_flow(client)
    begin_trail(client)
    name = "".join(string.ascii_letters[i % 52] for i in range(limits.NAME.most))
    assert attest(client, "generic", {"attestation_name": name, "is_compliant": True}
                  ).status_code == 201
    size = log.size_of(Organization.get(Organization.name == "acme"))
    bundle = client.get(f"/api/v2/transparency/acme/tile/entries/000.p/{size}", headers=H)
    assert bundle.status_code == 200, bundle.json
    leaf = json.loads(LogEntry.get(LogEntry.kind == "attestation").leaf)
    assert leaf["name"] == log.text(name) and leaf["name"].startswith("sha256:")
    assert log.verify_log(Organization.get(Organization.name == "acme")) == []
    # an audit package's attestation file says the name whole; its leaf, the digest of it
    key = client.get("/api/v2/transparency/acme/public-key", headers=H).get_data(as_text=True)
    package = client.get("/api/v2/trails/acme/payments/release-1/audit_package", headers=H)
    assert package.status_code == 200
    assert verify_package(package.data, notes.parse_verifier_key(key.strip())) == []


def _honest_history(client) -> Organization:
    """A flow, its template changed; a trail begun, then updated; an artifact reported twice,
    an attestation bound to it later; a policy in two versions attached to an environment; a
    control edited; a flow, an environment, a control and a repo tagged; an artifact allowed; a
    custom attestation type in two versions, archived."""
    create_flow(client)
    begin_trail(client)
    assert attest(client, "generic", {"attestation_name": "unit-tests", "is_compliant": True,
                                      "target_artifacts": ["backend"]}).status_code == 201
    assert report_artifact(client).status_code == 201
    assert report_artifact(client, filename="backend-2.tgz").status_code == 201  # written over
    assert attest(client, "generic", {"attestation_name": "scan", "is_compliant": False,
                                      "artifact_fingerprint": BACKEND_FP},
                  attachment=("scan.txt", b"clean")).status_code == 201
    acme = Organization.get(Organization.name == "acme")
    flows.upsert_flow(acme, "payments", "", template_yaml=FLOW_TEMPLATE)
    trails.begin_trail(acme, "payments", {"name": "release-1", "description": "updated"},
                       User.get(User.name == "alice"))
    create_env(client)
    assert put_policy(client, POLICY.encode()).status_code in (200, 201)
    assert put_policy(client, (POLICY + "# v2\n").encode()).status_code in (200, 201)
    policies.attach_policies(acme, "prod", ["prod-policy"])
    report_fingerprints(client, "prod", BACKEND_FP)
    controls.create_control(acme, "alice", "SEC-1", "Code review", description="d")
    controls.update_control(acme, "alice", "SEC-1", description="reviewed by two")
    assert attest(client, "system", {"attestation_name": "review", "type_name": "decision",
                                     "control": "SEC-1", "attestation_data": {
                                         "is_compliant": True}}).status_code == 201
    repo = {"id": "42", "name": "acme/payments", "url": "https://github.com/acme/payments"}
    for description in ("payments", "the payments service"):  # learned, then changed
        repos.remember(acme, {**repo, "description": description}, 1_700_000_000.0)
    for resource_type, name in (("flow", "payments"), ("env", "prod"), ("control", "SEC-1"),
                                ("repo", "acme/payments")):
        tags.update_tags(acme, resource_type, name, {"risk": "high"}, [])
    for description in ("Line coverage", "Branch coverage"):
        assert create_type(client, description=description).status_code == 201
    attestation_types.archive_type(acme, "coverage")
    environments.allow_artifact(acme, "prod", {
        "artifact_fingerprint": FRONTEND_FP, "artifact_name": "frontend",
        "description": "vendor"}, User.get(User.name == "alice"))
    return acme


def test_the_honest_history_of_records_changed_in_place_verifies(client, monkeypatch):
    acme = _honest_history(client)
    kinds = [e.kind for e in LogEntry.select(LogEntry.kind)]
    for kind, at_least in {"flow": 3, "trail": 2, "artifact": 2, "attestation_bound": 1,
                           "policy": 2, "policy_version": 2, "environment": 3, "control": 3,
                           "control_version": 2, "allowlist_entry": 1, "repo": 2,
                           "attestation_type": 3, "attestation_type_version": 2}.items():
        assert kinds.count(kind) >= at_least, kind
    assert log.verify_log(acme) == []
    monkeypatch.setattr(log, "_CHECKED_AT_ONCE", 1)  # each entry a round of its own
    check = log.check_log(acme)
    assert check.problems == [] and check.rederived["flow"] == 1 and check.rederived["artifact"] == 1


def _entry(kind: str, record_id: int) -> int:
    return LogEntry.select(peewee.fn.MAX(LogEntry.number)).where(
        (LogEntry.kind == kind) & (LogEntry.record_id == record_id)).scalar()


def test_a_bound_column_changed_in_sql_is_named_at_the_records_latest_entry(client, monkeypatch):
    acme = _honest_history(client)
    monkeypatch.setattr(log, "_CHECKED_AT_ONCE", 1)
    scan = Attestation.get(Attestation.name == "scan")
    decision = Attestation.get(Attestation.type == "decision")
    artifact, flow, trail = Artifact.get(), Flow.get(), Trail.get()
    env, allowed = Environment.get(), AllowlistEntry.get()
    policy, control = Policy.get(), Control.get()
    repo, custom = Repo.get(), AttestationType.get()
    custom_version = AttestationTypeVersion.get(AttestationTypeVersion.version == 1)
    version = PolicyVersion.select().order_by(PolicyVersion.version).first()
    edited = ControlVersion.get(ControlVersion.version == 2)
    judging = FlowTemplate.get(FlowTemplate.id == trail.flow_template_id)
    current = FlowTemplate.get(FlowTemplate.id == flow.template)
    assert judging.id != current.id  # the flow's template changed after the trail was begun
    cases = [
        (Attestation, scan.id, {"git_commit": "f" * 40}, "attestation", "git_commit"),
        (Attestation, scan.id, {"attachment_name": "other.txt"}, "attestation", "attachment_name"),
        # derived from the summary, not held: a decision moved to another control's list, and
        # an attestation that is no decision given one
        (Attestation, decision.id, {"control": "SEC-2"}, "attestation", "control"),
        (Attestation, scan.id, {"control": "SEC-1"}, "attestation", "control"),
        (Artifact, artifact.id, {"build_url": "https://evil.example"}, "artifact", "build_url"),
        (Artifact, artifact.id, {"fingerprint": FRONTEND_FP}, "artifact", "fingerprint"),
        (FlowTemplate, current.id, {"template_yaml": "trail: {}\n"}, "flow", "template_sha256"),
        (Flow, flow.id, {"visibility": "public"}, "flow", "visibility"),
        (Flow, flow.id, {"tags": {"risk": "low"}}, "flow", "tags_sha256"),
        (Flow, flow.id, {"template_yaml": "trail: {}\n"}, "flow", "template_yaml_sha256"),
        (FlowTemplate, judging.id, {"template_yaml": "trail: {}\n"}, "trail",
         "flow_template_sha256"),
        (Trail, trail.id, {"description": "other"}, "trail", "description"),
        (Trail, trail.id, {"external_urls": {"ci": "x"}}, "trail", "external_urls_sha256"),
        (Policy, policy.id, {"description": "other"}, "policy", "description"),
        (PolicyVersion, version.id, {"policy_yaml": SCHEMA}, "policy_version", "policy_yaml_sha256"),
        (Control, control.id, {"name": "other"}, "control", "name"),
        (ControlVersion, edited.id, {"description": "other"}, "control_version", "description"),
        (Environment, env.id, {"policies": []}, "environment", "policies_sha256"),
        (AllowlistEntry, allowed.id, {"description": "other"}, "allowlist_entry", "description"),
        (Repo, repo.id, {"url": "https://evil.example"}, "repo", "url"),
        (Repo, repo.id, {"tags": {}}, "repo", "tags_sha256"),
        (AttestationType, custom.id, {"archived": False}, "attestation_type", "archived"),
        (AttestationTypeVersion, custom_version.id, {"evaluator": {"content_type": "jq"}},
         "attestation_type_version", "evaluator_sha256"),
    ]
    records = {"flow": flow.id, "trail": trail.id}
    differing: dict[tuple[str, int], set[str]] = {}
    for model, row_id, change, kind, key in cases:
        model.update(**change).where(model.id == row_id).execute()
        differing.setdefault((kind, records.get(kind, row_id)), set()).add(key)
        if (kind, key) == ("artifact", "fingerprint"):  # its manifest names it too
            differing[("artifact_manifest", row_id)] = {"fingerprint"}
        assert set(log.verify_log(acme)) == {
            f"entry {_entry(kind, record_id)}: {kind} {record_id} differs from its leaf "
            f"({', '.join(sorted(keys))})" for (kind, record_id), keys in differing.items()}, key


FIXTURES = pathlib.Path(__file__).parents[1] / "upgrade" / "fixtures"


@pytest.mark.parametrize("release", ["2026-11-28c", "2026-12-02"])
def test_the_version_1_leaves_of_an_earlier_release_still_verify(release, tmp_path):
    """Leaves without "v" are re-derived in the shape they were written in."""
    shutil.copy(FIXTURES / release / "sqlite.db", tmp_path / "evidence.db")
    storage.init_database(f"sqlite:///{tmp_path / 'evidence.db'}")
    storage.migrate()
    try:
        acme = Organization.get(Organization.name == "acme")
        check = log.check_log(acme)
        assert check.problems == [] and check.rederived["attestation"] > 0
        assert all(b'"v":' not in e.leaf.encode() for e in LogEntry.select(LogEntry.leaf))
    finally:
        _close_shared_database()


DOCS = pathlib.Path(__file__).parents[2] / "docs" / "api.md"
BEGIN, END = "<!-- leaves: begin (python -m tests.transparency.test_leaves) -->", "<!-- leaves: end -->"


def rendered_shapes() -> str:
    """What each kind's leaf binds, as docs/api.md says it: rendered from the declarations."""
    lines = []
    for kind, shape in sorted(log.SHAPES.items()):
        table = shape.model._meta.table_name
        version = f"v{shape.version}" if shape.version != 1 else "no `v`"
        if shape.changes:
            version += "; an entry at each change"
        texts = "texts whole" if shape.whole_text else f"texts past {log.TEXT_LIMIT} characters as digests"
        bound = [f"`{how.key}` ← {column}" + (" (digest)" if how.digested else "")
                 for column, how in shape.columns.items() if isinstance(how, log.Bound)]
        extra = [f"`{key}` ({what})" for key, what in shape.extra.items()]
        derived = [f"{column} ({how.reason})" for column, how in shape.columns.items()
                   if isinstance(how, log.Derived)]
        if shape.others is not None:
            derived.append(f"the other columns ({shape.others.reason})")
        lines.append(f"- `{kind}` (rows of `{table}`; {version}; {texts}): " + "; ".join(
            part for part in (", ".join(bound), "also " + ", ".join(extra) if extra else "",
                              "not held: " + ", ".join(derived) if derived else "") if part) + ".")
    return "\n".join(lines)


def test_the_docs_say_what_each_leaf_binds_as_declared():
    text = DOCS.read_text()
    assert text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip() == rendered_shapes(), \
        "docs/api.md is behind the leaves' shapes: python -m tests.transparency.test_leaves"


if __name__ == "__main__":  # rewrite the docs' list from the declarations
    current = DOCS.read_text()
    DOCS.write_text(current[:current.index(BEGIN) + len(BEGIN)] + "\n" + rendered_shapes() + "\n"
                    + current[current.index(END):])
