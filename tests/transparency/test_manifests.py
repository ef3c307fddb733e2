"""What the log binds of a trail (issue 45, items 1 and 3): each write of a trail ends with its
manifest (its entries' count and digest, its verdict, its template); an audit package carries
the latest one, and verify-package names an omitted or an extra entry, a verdict changed or
judged otherwise from the package, and every field a leaf digests changed in the package."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable

import pytest

from evidence_grpc.domain.evidence.manifests import artifact_entries, artifact_reports, trail_entries
from evidence_grpc.domain.transparency import log, notes
from evidence_grpc.domain.views.audit_packages import check_package
from evidence_grpc.storage.models import Artifact, LogEntry, Organization, Trail
from tests import independent_verifier as independent
from tests.helpers import (
    BACKEND_FP,
    COMMIT,
    FRONTEND_FP,
    H,
    attest,
    begin_trail,
    create_flow,
    packed,
    report_artifact,
    unpacked,
)

pytestmark = pytest.mark.parametrize("engine", ["sqlite"])  # the log's engines: test_log.py

TRANSPARENCY = "/api/v2/transparency/acme"
PACKAGE = "/api/v2/trails/acme/payments/release-1/audit_package"
TEMPLATE = """\
version: 1
trail:
  attestations:
    - name: unit-tests
      type: junit
  artifacts:
    - name: backend
"""
GIT = {"sha1": COMMIT, "message": "m", "author": "a", "branch": "main", "timestamp": 1}
Files = dict[str, bytes]


def _manifests() -> list[dict]:
    return [json.loads(e.leaf) for e in LogEntry.select().where(LogEntry.kind == "trail_manifest")
            .order_by(LogEntry.number)]


def _trail_evidence(client) -> None:
    """unit-tests passes, review (about nothing the template names) fails: NON-COMPLIANT; a
    note about the backend made before it was reported, bound to it later; two artifacts."""
    create_flow(client, template=TEMPLATE)
    begin_trail(client, user_data={"team": "payments"}, git_commit_info=GIT)
    assert attest(client, "generic", {"attestation_name": "note", "is_compliant": True,
                                      "target_artifacts": ["backend"], "git_commit_info": GIT}
                  ).status_code == 201
    assert report_artifact(client).status_code == 201
    assert attest(client, "junit", {
        "attestation_name": "unit-tests", "user_data": {"suite": "api"},
        "junit_results": [{"name": "api", "failures": 0, "errors": 0, "skipped": 0, "total": 3,
                           "duration": 1.5}]}).status_code == 201
    assert attest(client, "generic", {"attestation_name": "review", "is_compliant": False,
                                      "description": "not yet", "user_data": {"by": "bob"},
                                      "git_commit_info": GIT},
                  attachment=("review.txt", b"needs work")).status_code == 201
    # reported last, its fingerprint sorts first: the report lists artifacts as reported
    assert report_artifact(client, FRONTEND_FP, "frontend.tgz", template_name="frontend"
                           ).status_code == 201


def _doctored(content: bytes, change: Callable[[Files], None]) -> bytes:
    """The package changed by `change`, its manifest and SHA256SUMS made again to match (what
    someone who doctored it would do)."""
    files = unpacked(content)
    change(files)
    listed = [{"path": path, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
              for path, data in files.items() if path not in ("manifest.json", "SHA256SUMS")]
    files["manifest.json"] = json.dumps({**json.loads(files["manifest.json"]), "files": listed}).encode()
    files["SHA256SUMS"] = "".join(f"{e['sha256']}  {e['path']}\n" for e in listed).encode()
    return packed(files)


def _edit_json(files: Files, path: str, edit: Callable[[dict], None]) -> None:
    document = json.loads(files[path])
    edit(document)
    files[path] = json.dumps(document, indent=2, sort_keys=True).encode()


def _path(files: Files, folder: str, name: str) -> str:
    return next(p for p in files if p.startswith(folder) and p.endswith(f"-{name}.json"))


@pytest.fixture
def package(client) -> tuple[bytes, notes.Verifier]:
    _trail_evidence(client)
    key = client.get(f"{TRANSPARENCY}/public-key", headers=H).get_data(as_text=True)
    return client.get(PACKAGE, headers=H).data, notes.parse_verifier_key(key.strip())


def test_each_write_of_a_trail_ends_with_its_manifest(client):
    _trail_evidence(client)
    trail = Trail.get(Trail.name == "release-1")
    manifests = _manifests()
    # begun, note, artifact reported (+ note bound), unit-tests, review, another artifact: one
    # manifest a write
    assert [m["count"] for m in manifests] == [1, 2, 4, 5, 6, 7]
    assert [m["status"] for m in manifests] == [
        "INCOMPLETE", "INCOMPLETE", "INCOMPLETE", "COMPLIANT", "NON-COMPLIANT", "NON-COMPLIANT"]
    numbers = [e.number for e in LogEntry.select().where(LogEntry.kind == "trail_manifest")
               .order_by(LogEntry.number)]
    assert [m["previous"] for m in manifests] == [None, *numbers[:-1]]
    every = trail_entries(trail.id)
    assert len(every) == 7 and not set(every) & set(numbers)
    assert manifests[-1]["entries_sha256"] == log.entries_digest(every)
    assert manifests[-1]["template_sha256"] == log.digest({
        "flow_template_id": trail.flow_template_id, "template_yaml": TEMPLATE,
        "legacy_template": None, "artifacts_judged_alone": False})
    assert {m["trail"] for m in manifests} == {"release-1"}
    assert independent.entries_digest(every) == manifests[-1]["entries_sha256"]  # by the spec
    assert log.verify_log(Organization.get(Organization.name == "acme")) == []


def test_the_honest_package_holds_with_its_manifest(package):
    content, verifier = package
    check = check_package(content, verifier)
    assert (check.problems, check.notes) == ([], [])
    files = unpacked(content)
    carried = json.loads(files["transparency/entries.json"])
    manifest = carried["manifest"]
    assert manifest["entries"] == sorted({e["index"] for e in carried["entries"]})
    # the manifest, proved with nothing of ours
    _, size, root = independent.open_checkpoint(files["transparency/checkpoint"].decode(),
                                                files["transparency/public-key"].decode())
    leaf = base64.b64decode(manifest["leaf"])
    assert independent.inclusion_root(manifest["index"], size, independent.leaf_hash(leaf), [
        base64.b64decode(h) for h in manifest["inclusion_proof"]]) == root
    logged = json.loads(leaf)
    assert (logged["count"], logged["entries_sha256"], logged["status"]) == (
        len(manifest["entries"]), independent.entries_digest(manifest["entries"]), "NON-COMPLIANT")
    assert logged["template_sha256"] == hashlib.sha256(json.dumps(
        json.loads(files["template.json"]), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def test_an_omitted_attestation_its_entry_and_event_fail(package):
    """The non-compliant attestation, its entry and its event removed, the trail marked
    COMPLIANT, the sums made again: the manifest lists the entry, and logs NON-COMPLIANT."""
    content, verifier = package
    files = unpacked(content)
    review = _path(files, "attestations/", "review")
    stem = review[len("attestations/"):-len(".json")]
    number = next(e["index"] for e in json.loads(files["transparency/entries.json"])["entries"]
                  if e["path"] == review)

    def omit(files: Files) -> None:
        for path in [p for p in files if stem in p]:
            del files[path]
        _edit_json(files, "transparency/entries.json", lambda d: d.update(
            entries=[e for e in d["entries"] if e["path"] != review]))

        def compliant(trail: dict) -> None:
            trail["events"] = [e for e in trail["events"] if e.get("template_reference_name") != "review"]
            trail.update(compliance_state="COMPLIANT", is_compliant=True)
            trail["compliance_status"].update(status="COMPLIANT", is_compliant=True)
        _edit_json(files, "trail.json", compliant)

    problems = check_package(_doctored(content, omit), verifier).problems
    manifest = json.loads(files["transparency/entries.json"])["manifest"]["index"]
    assert f"entry {number}: listed in the trail's manifest (entry {manifest}), the package lacks it" \
        in problems
    assert "trail.json: its verdict is not NON-COMPLIANT, the one the trail's manifest " \
        f"(entry {manifest}) logs" in problems
    assert "the trail judged again from the package's files is COMPLIANT, not NON-COMPLIANT as " \
        f"the trail's manifest (entry {manifest}) logs" in problems


def test_an_unlisted_entry_fails(client, package):
    content, verifier = package
    begin_trail(client, trail="release-2")  # an entry of another trail
    other = LogEntry.get((LogEntry.kind == "trail_event") & (LogEntry.leaf.contains("release-2")))
    content = client.get(PACKAGE, headers=H).data  # proved against the checkpoint holding it
    files = unpacked(content)
    proof = client.get(f"{TRANSPARENCY}/proofs/inclusion?index={other.number}&tree_size="
                       f"{json.loads(files['transparency/entries.json'])['tree_size']}", headers=H).json

    def extra(files: Files) -> None:
        _edit_json(files, "transparency/entries.json", lambda d: d["entries"].append({
            "path": "trail.json", "index": other.number,
            "leaf": base64.b64encode(other.leaf.encode()).decode(),
            "inclusion_proof": proof["hashes"]}))
    problems = check_package(_doctored(content, extra), verifier).problems
    manifest = json.loads(files["transparency/entries.json"])["manifest"]["index"]
    assert f"entry {other.number}: in the package, not listed in the trail's manifest " \
        f"(entry {manifest})" in problems


# A change someone might make to a package, and the line verify-package names it by.
DOCTORED: list[tuple[Callable[[Files], None], str]] = [
    (lambda f: _edit_json(f, "trail.json", lambda t: t.update(compliance_state="COMPLIANT")),
     "trail.json: its verdict is not NON-COMPLIANT"),
    (lambda f: _edit_json(f, _path(f, "attestations/", "unit-tests"),
                          lambda a: a["summary"].update(failures=0, total=99)),
     "-unit-tests.json: differs from its data and summary as logged (summary)"),
    (lambda f: _edit_json(f, _path(f, "records/", "unit-tests"),
                          lambda r: r["summary"].update(total=99)),
     "-unit-tests.json: its summary is not the one its log entry digests (summary_sha256)"),
    (lambda f: _edit_json(f, _path(f, "attestations/", "review"),
                          lambda a: a.update(user_data={"by": "alice"}, description="fine")),
     "-review.json: differs from its data and summary as logged (description, user_data)"),
    (lambda f: _edit_json(f, _path(f, "records/", "review"),
                          lambda r: r["data"].update(user_data={"by": "alice"})),
     "-review.json: its data is not the one its log entry digests (data_sha256)"),
    (lambda f: _edit_json(f, _path(f, "attestations/", "review"),
                          lambda a: a["git_commit_info"].update(sha1="0" * 40)),
     "-review.json: differs from its data and summary as logged (git_commit_info)"),
    (lambda f: _edit_json(f, "trail.json", lambda t: t.update(user_data={"team": "x"})),
     "trail.json: its user_data is not the one its latest event reporting it says"),
    (lambda f: _edit_json(f, "trail.json", lambda t: t["git_commit_info"].update(sha1="0" * 40)),
     "trail.json: its git_commit_info is not the one its latest event reporting it says"),
    (lambda f: _edit_json(f, "template.json", lambda t: t.update(
        template_yaml="version: 1\n")),
     "template.json: not the template the trail's manifest"),
    (lambda f: _edit_json(f, f"artifacts/{BACKEND_FP}.json", lambda a: a.update(
        template_reference_name="frontend")),
     f"artifacts/{BACKEND_FP}.json: differs from its logged report (template_reference_name)"),
    (lambda f: f.update({"report.pdf": f["report.pdf"] + b"%forged\n"}),
     "report.pdf: not the report the package's trail, attestations and artifacts make"),
    (lambda f: f.update({"extra/readme.txt": b"trust me"}),
     "extra/readme.txt: not a file an audit package holds"),
    (lambda f: f.pop(_path(f, "records/", "review")),
     "-review.json: missing (the data and summary of attestations/"),
    (lambda f: f.pop(next(p for p in f if p.startswith("attachments/"))),
     "-review/: missing (its log entry names an attachment)"),
]


def test_each_doctored_file_is_named(package):
    """One package, each change made to it alone (the sums made again)."""
    content, verifier = package
    missed = []
    for change, expected in DOCTORED:
        problems = check_package(_doctored(content, change), verifier).problems
        if not any(expected in problem for problem in problems):
            missed.append((expected, problems))
    assert missed == []


def test_a_verdict_judged_otherwise_from_the_package_fails(package):
    """The review's verdict flipped in its file: its leaf says otherwise, and the package's
    files judge the trail COMPLIANT where its manifest logs NON-COMPLIANT."""
    content, verifier = package
    problems = check_package(_doctored(content, lambda f: _edit_json(
        f, _path(f, "attestations/", "review"), lambda a: a.update(is_compliant=True))),
        verifier).problems
    assert any(p.startswith("the trail judged again from the package's files is COMPLIANT")
               for p in problems), problems


def test_a_package_without_a_manifest_is_noted_not_failed(package):
    """A trail not written since the log began keeping manifests has none: what it proves is
    said, omission is not checked (a note, exit 0)."""
    content, verifier = package
    check = check_package(_doctored(content, lambda f: _edit_json(
        f, "transparency/entries.json", lambda d: d.pop("manifest"))), verifier)
    assert check.problems == [] and check.notes[0].startswith("no manifest: omission not checked")


# ---- an artifact's manifest -----------------------------------------------------------------------

ARTIFACT_PACKAGE = f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/audit_package"


def _artifact_manifests(fingerprint: str = BACKEND_FP) -> list[dict]:
    return [leaf for leaf in (json.loads(e.leaf) for e in LogEntry.select().where(
        LogEntry.kind == "artifact_manifest").order_by(LogEntry.number))
        if leaf["fingerprint"] == fingerprint]


def _artifact_evidence(client) -> None:
    """The trail's evidence, then a failing scan of the backend: NON-COMPLIANT."""
    _trail_evidence(client)
    assert attest(client, "generic", {"attestation_name": "scan", "is_compliant": False,
                                      "artifact_fingerprint": BACKEND_FP}).status_code == 201


@pytest.fixture
def artifact_package(client) -> tuple[bytes, notes.Verifier]:
    _artifact_evidence(client)
    key = client.get(f"{TRANSPARENCY}/public-key", headers=H).get_data(as_text=True)
    return client.get(ARTIFACT_PACKAGE, headers=H).data, notes.parse_verifier_key(key.strip())


def test_each_write_about_an_artifact_or_changing_its_verdict_ends_with_its_manifest(client):
    """Reported (the note made for its name before, bound to it: listed where bound), its
    verdict changed by the trail's unit-tests (no entry of its own: a manifest all the same),
    left as it was by the review and the other artifact (none), its scan."""
    _artifact_evidence(client)
    artifact = Artifact.get(Artifact.fingerprint == BACKEND_FP)
    manifests = _artifact_manifests()
    assert [(m["count"], m["status"], m["trail_status"]) for m in manifests] == [
        (3, "INCOMPLETE", "INCOMPLETE"), (3, "COMPLIANT", "COMPLIANT"),
        (4, "NON-COMPLIANT", "COMPLIANT")]
    every = artifact_entries(artifact)
    kinds = {e.number: e.kind for e in LogEntry.select().where(LogEntry.number.in_(every))}
    assert [kinds[n] for n in every] == ["artifact", "attestation", "attestation_bound",
                                         "attestation"]
    assert every[1] < every[0]  # the note, made before the artifact: listed where bound
    assert manifests[-1]["entries_sha256"] == independent.entries_digest(every)
    assert (manifests[-1]["uid"], manifests[0]["previous"]) == (artifact.uid, None)
    assert len(_artifact_manifests(FRONTEND_FP)) == 1
    assert log.verify_log(Organization.get(Organization.name == "acme")) == []


def test_the_honest_artifact_package_holds_with_its_manifest(artifact_package):
    content, verifier = artifact_package
    check = check_package(content, verifier)
    assert (check.problems, check.notes) == ([], [])
    files = unpacked(content)
    carried = json.loads(files["transparency/entries.json"])
    assert set(carried["manifest"]["entries"]) == {e["index"] for e in carried["entries"]}
    logged = json.loads(base64.b64decode(carried["manifest"]["leaf"]))
    assert (logged["kind"], logged["status"]) == ("artifact_manifest", "NON-COMPLIANT")
    assert json.loads(files["artifact.json"])["state"] == "NON-COMPLIANT"


def test_an_omitted_attestation_of_an_artifact_and_its_verdict_flipped_fail(artifact_package):
    content, verifier = artifact_package
    files = unpacked(content)
    scan = _path(files, "attestations/", "scan")
    number = next(e["index"] for e in json.loads(files["transparency/entries.json"])["entries"]
                  if e["path"] == scan)
    manifest = json.loads(files["transparency/entries.json"])["manifest"]["index"]
    where = f"the artifact's manifest (entry {manifest})"

    def omit(files: Files) -> None:
        for path in [p for p in files if scan[len("attestations/"):-len(".json")] in p]:
            del files[path]
        _edit_json(files, "transparency/entries.json", lambda d: d.update(
            entries=[e for e in d["entries"] if e["path"] != scan]))
        _edit_json(files, "artifact.json", lambda a: a.update(state="COMPLIANT"))

    problems = check_package(_doctored(content, omit), verifier).problems
    assert f"entry {number}: listed in {where}, the package lacks it" in problems
    assert f"artifact.json: its state is not NON-COMPLIANT, the one {where} logs of its " \
        "fingerprint" in problems
    assert "the artifact judged again from the package's files is COMPLIANT, not " \
        f"NON-COMPLIANT as {where} logs" in problems
    flipped = check_package(_doctored(content, lambda f: _edit_json(
        f, scan, lambda a: a.update(is_compliant=True))), verifier).problems
    assert "the artifact judged again from the package's files is COMPLIANT, not " \
        f"NON-COMPLIANT as {where} logs" in flipped


def test_an_entry_unlisted_in_the_artifacts_manifest_fails(client, artifact_package):
    content, verifier = artifact_package
    files = unpacked(content)
    carried = json.loads(files["transparency/entries.json"])
    other = LogEntry.get((LogEntry.kind == "artifact") & (LogEntry.leaf.contains(FRONTEND_FP)))
    proof = client.get(f"{TRANSPARENCY}/proofs/inclusion?index={other.number}&tree_size="
                       f"{carried['tree_size']}", headers=H).json

    def extra(files: Files) -> None:
        _edit_json(files, "transparency/entries.json", lambda d: d["entries"].append({
            "path": "artifact.json", "index": other.number,
            "leaf": base64.b64encode(other.leaf.encode()).decode(),
            "inclusion_proof": proof["hashes"]}))
    problems = check_package(_doctored(content, extra), verifier).problems
    assert f"entry {other.number}: in the package, not listed in the artifact's manifest " \
        f"(entry {carried['manifest']['index']})" in problems
    assert "artifact.json: differs from its latest report's log entry (id, fingerprint, " \
        "filename, template_reference_name)" in problems


def test_an_artifact_package_without_a_manifest_is_noted(artifact_package):
    content, verifier = artifact_package
    check = check_package(_doctored(content, lambda f: _edit_json(
        f, "transparency/entries.json", lambda d: d.pop("manifest"))), verifier)
    assert check.problems == [] and check.notes == [
        "no manifest: omission not checked (the artifact has no manifest in the log: not "
        "written since the log began keeping artifact manifests); its verdict is not judged again"]


def test_an_artifact_built_again_under_its_name_lists_what_its_verdict_reads(client):
    """A second backend in the trail: the trail's attestations for the name (the failing scan
    of the first backend among them) judge it too, and its package carries them and holds."""
    _artifact_evidence(client)
    rebuilt = "c" * 64
    assert report_artifact(client, rebuilt, "backend-2.tgz").status_code == 201
    first = Artifact.get(Artifact.fingerprint == BACKEND_FP)
    again = Artifact.get(Artifact.fingerprint == rebuilt)
    scan = LogEntry.get((LogEntry.kind == "attestation") & LogEntry.leaf.contains('"name":"scan"'))
    binding = LogEntry.get(LogEntry.kind == "attestation_bound")
    # the first's scan, and the note with its binding to the first (both for its name), not
    # the first's reports
    assert {scan.number, binding.number} <= set(artifact_entries(again))
    assert not set(artifact_reports(first)) & set(artifact_entries(again))
    [manifest] = _artifact_manifests(rebuilt)
    assert manifest["status"] == "NON-COMPLIANT"
    key = client.get(f"{TRANSPARENCY}/public-key", headers=H).get_data(as_text=True)
    content = client.get(f"/api/v2/artifacts/acme/payments/{rebuilt}/audit_package", headers=H).data
    check = check_package(content, notes.parse_verifier_key(key.strip()))
    assert (check.problems, check.notes) == ([], [])
    assert any(p.endswith("-scan.json") for p in unpacked(content))
    assert log.verify_log(Organization.get(Organization.name == "acme")) == []
