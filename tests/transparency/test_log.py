"""The transparency log of an organization (domain.transparency.log, TransparencyService) on both
engines: every evidence write appends its leaf, numbered without gaps; the signed checkpoint,
the entries and the proofs verify with tests/independent_verifier.py (which imports nothing of
the service); tampering with the stored records or the log is named by verify-log."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import tarfile

import grpc
import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from google.protobuf import json_format
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from pymerkle import InmemoryTree
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

from evidence_grpc.api.v2 import artifact_service_pb2 as artifact_pb
from evidence_grpc.api.v2 import artifact_service_pb2_grpc as artifact_pb_grpc
from evidence_grpc.api.v2 import transparency_service_pb2 as pb
from evidence_grpc.api.v2 import transparency_service_pb2_grpc as pb_grpc
from evidence_grpc.domain.evidence import trails
from evidence_grpc.domain.transparency import log, notes
from evidence_grpc.domain.views.audit_packages import verify_package
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    Approval,
    Artifact,
    Attestation,
    BlobChunk,
    LogEntry,
    LogHead,
    Organization,
    Snapshot,
    Trail,
    User,
)
from tests import independent_verifier as independent
from tests.conftest import ROLE_KEYS, bearer, grpc_channel
from tests.helpers import (
    BACKEND_FP,
    COMMIT,
    FRONTEND_FP,
    H,
    attest,
    begin_trail,
    create_env,
    create_flow,
    details_of,
    packed,
    report_artifact,
    report_fingerprints,
    unpacked,
)

BASE = "/api/v2/transparency/acme"


def write_evidence(client) -> None:
    create_flow(client)
    begin_trail(client)
    assert report_artifact(client).status_code == 201
    assert attest(client, "generic", {"attestation_name": "review", "is_compliant": True},
                  attachment=("review.txt", b"looks good")).status_code == 201
    assert attest(client, "generic", {"attestation_name": "scan", "is_compliant": False,
                                      "artifact_fingerprint": BACKEND_FP}).status_code == 201
    create_env(client)
    report_fingerprints(client, "prod", BACKEND_FP)


def checkpoint(client, key: str) -> tuple[str, int, bytes]:
    answer = client.get(f"{BASE}/checkpoint", headers=H)
    assert answer.status_code == 200 and answer.content_type.startswith("text/plain")
    return independent.open_checkpoint(answer.get_data(as_text=True), key)


def entries(client, size: int) -> list[dict]:
    found = []
    for index in range(size):
        answer = client.get(f"{BASE}/entries/{index}", headers=H)
        assert answer.status_code == 200, answer.json
        found.append(answer.json)
    return found


def test_every_write_is_an_entry_the_signed_checkpoint_proves(client):
    key = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True)
    assert checkpoint(client, key)[1:] == (0, hashlib.sha256(b"").digest())
    write_evidence(client)
    origin, size, root = checkpoint(client, key)
    # the origin: the key's name and the organization (the key file is shared by the tests of a
    # process, and named by the public host of whichever test made it first)
    assert origin == f"{key.partition('+')[0]}/acme"
    found = entries(client, size)
    genesis, *logged = [json.loads(base64.b64decode(e["leaf"])) for e in found]
    # the log begins with its first record: its genesis counts no record from before
    assert genesis["kind"] == "log_begun" and genesis["org"] == "acme"
    assert set(genesis["records"]) == {
        "allowlist_entry", "approval", "artifact", "attestation", "attestation_bound",
        "attestation_type", "attestation_type_version", "control", "control_version",
        "environment", "flow", "policy", "policy_version", "repo", "snapshot", "trail",
        "trail_event"}
    assert all(claim == {"count": 0, "last_id": 0} for claim in genesis["records"].values())
    # each write of the trail ends with its manifest (test_each_write_of_a_trail_ends_with_...),
    # each write about the artifact with the artifact's after it (the review, about the trail,
    # leaves the artifact's verdict as it was: no manifest of it)
    assert [leaf["kind"] for leaf in logged] == [
        "flow", "trail", "trail_event", "trail_manifest", "artifact", "trail_event",
        "trail_manifest", "artifact_manifest", "attestation", "trail_manifest", "attestation",
        "trail_manifest", "artifact_manifest", "environment", "snapshot"]
    leaves = [leaf for leaf in logged if not leaf["kind"].endswith("_manifest")]
    assert [leaves[n].get("type") for n in (2, 4)] == ["trail_reported", "artifact_creation_reported"]
    review, scan = leaves[5], leaves[6]
    assert (review["name"], review["compliant"], scan["name"], scan["compliant"]) == (
        "review", True, "scan", False)
    assert review["attachment_sha256"] == hashlib.sha256(b"looks good").hexdigest()
    assert review["attachment_name"] == "review.txt" and review["v"] == 2
    assert scan["artifact_fingerprint"] == BACKEND_FP and leaves[8]["index"] == 1
    assert leaves[3]["fingerprint"] == BACKEND_FP and leaves[0]["name"] == "payments"
    assert all(leaf["org"] == "acme" for leaf in logged)
    for index, entry in enumerate(found):
        leaf = base64.b64decode(entry["leaf"])
        assert entry["index"] == index
        assert entry["leaf_hash"] == independent.leaf_hash(leaf).hex()
        # canonical JSON: sorted keys, no spaces
        assert leaf == json.dumps(json.loads(leaf), sort_keys=True, separators=(",", ":")).encode()
        proof = client.get(f"{BASE}/proofs/inclusion?index={index}&tree_size={size}", headers=H)
        hashes = [base64.b64decode(h) for h in proof.json["hashes"]]
        assert independent.inclusion_root(index, size, independent.leaf_hash(leaf), hashes) == root
        # a changed leaf does not lead to the root
        assert independent.inclusion_root(index, size, independent.leaf_hash(leaf + b" "),
                                          hashes) != root


def test_the_log_only_grows_and_proves_it(client):
    key = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True)
    write_evidence(client)
    _, first, first_root = checkpoint(client, key)
    assert attest(client, "generic", {"attestation_name": "late", "is_compliant": True}
                  ).status_code == 201
    report_fingerprints(client, "prod")
    _, second, second_root = checkpoint(client, key)
    assert second == first + 3  # the attestation, its trail's manifest, the snapshot
    for earlier in range(1, second + 1):
        answer = client.get(f"{BASE}/proofs/consistency?first={earlier}&second={second}", headers=H)
        hashes = [base64.b64decode(h) for h in answer.json["hashes"]]
        at = client.get(f"{BASE}/proofs/consistency?first={earlier}&second={earlier}", headers=H)
        assert at.json == {"hashes": []} or earlier == second
        if earlier == first:
            assert independent.consistent(first, second, first_root, second_root, hashes)
            assert not independent.consistent(first, second, second_root, second_root, hashes)


@pytest.mark.parametrize("path,field", [
    ("/entries/99", None), ("/proofs/inclusion?index=0&tree_size=99", "tree_size"),
    ("/proofs/inclusion?index=5&tree_size=2", "index"),
    ("/proofs/consistency?first=0&second=2", "first"),
    ("/proofs/consistency?first=3&second=2", "first"),
    ("/proofs/consistency?first=1&second=99", "second"),
    ("/proofs/inclusion?index=x&tree_size=2", "index"),
])
def test_what_the_log_does_not_hold_is_a_clear_4xx(client, path, field):
    write_evidence(client)
    answer = client.get(BASE + path, headers=H)
    if field is None:
        assert answer.status_code == 404 and "Log entry 99" in answer.json["message"]
    else:
        assert answer.status_code == 400 and field in answer.json["errors"], answer.json


def test_a_reader_verifies_and_another_organization_may_not(client):
    write_evidence(client)
    assert client.get(f"{BASE}/checkpoint", headers=bearer(ROLE_KEYS["reader"])).status_code == 200
    assert client.get(f"{BASE}/checkpoint").status_code == 401


def test_the_grpc_door_answers_typed_messages(db):
    storage.init_database(db)
    with grpc_channel(db) as channel:
        stub = pb_grpc.TransparencyServiceStub(channel)
        metadata = [("authorization", f"Bearer {ROLE_KEYS['reader']}")]
        key = stub.GetLogPublicKey(pb.GetLogPublicKeyRequest(org="acme"), metadata=metadata)
        assert key.content_type.startswith("text/plain") and b"+" in key.data
        with pytest.raises(grpc.RpcError) as missing:
            stub.GetLogEntry(pb.GetLogEntryRequest(org="acme", index=0), metadata=metadata)
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND
        with pytest.raises(grpc.RpcError) as bad:
            stub.GetLogInclusionProof(pb.GetLogInclusionProofRequest(org="acme", index=0,
                                                                     tree_size=1),
                                      metadata=metadata)
        assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "tree_size" in details_of(bad.value)[1]


def _verify_log(db: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "verify-log",
                           "--database-url", db, *args], capture_output=True, text=True,
                          timeout=120)


def test_verify_log_passes_then_names_each_tampering(client, db):
    write_evidence(client)
    acme = Organization.get(Organization.name == "acme")
    assert log.verify_log(acme) == []
    done = _verify_log(db, "--org", "acme")
    assert done.returncode == 0 and "acme: ok (16 entries" in done.stdout, done.stdout + done.stderr
    entry_of = {e.kind + str(e.record_id): e.number for e in LogEntry.select()}
    scan = Attestation.get(Attestation.name == "scan")
    # a verdict flipped in SQL
    Attestation.update(is_compliant=True).where(Attestation.id == scan.id).execute()
    flipped = entry_of[f"attestation{scan.id}"]
    assert log.verify_log(acme) == [
        f"entry {flipped}: attestation {scan.id} differs from its leaf (compliant)"]
    done = _verify_log(db)
    assert done.returncode == 1 and f"acme: entry {flipped}: attestation" in done.stdout
    Attestation.update(is_compliant=False).where(Attestation.id == scan.id).execute()
    # a record removed
    snapshot = Snapshot.get()
    Snapshot.delete().where(Snapshot.id == snapshot.id).execute()
    assert log.verify_log(acme) == [
        f"entry {entry_of[f'snapshot{snapshot.id}']}: snapshot {snapshot.id} no longer exists"]


def test_verify_log_names_a_record_with_no_entry_and_a_log_deleted_beside_records(client, db):
    """A compliant attestation inserted in SQL, newer than the real one (what the trail would
    then show), has no entry: named, where it is, one line; an attestation bound to an artifact
    reported after it, with no entry of the binding either; an approval. The log deleted (entries
    and head) beside the records: named, not `ok (0 entries)`."""
    write_evidence(client)
    acme = Organization.get(Organization.name == "acme")
    scan = Attestation.get(Attestation.name == "scan")
    artifact = Artifact.get(Artifact.fingerprint == BACKEND_FP)
    columns = {f.name: getattr(scan, f.name) for f in Attestation._meta.sorted_fields
               if f.name != "id"}
    forged = Attestation.insert({**columns, "uid": "forged", "is_compliant": True,
                                 "created_at": scan.created_at + 1}).execute()
    early = Attestation.insert({**columns, "uid": "early", "name": "early",
                                "created_at": artifact.created_at - 1}).execute()
    approval = Approval.insert(organization=acme, flow=scan.flow_id, number=1,
                               fingerprint=BACKEND_FP, artifact_name="backend", state="APPROVED",
                               created_at=1.0, last_modified_at=1.0).execute()
    named = [f"attestation {forged} (scan in trail release-1) has no log entry",
             f"attestation {early} (early in trail release-1) has no log entry",
             f"attestation_bound {early} (early in trail release-1) has no log entry",
             f"approval {approval} (#1 of flow payments) has no log entry"]
    # ... and the forged attestation changes what the latest manifests of the trail and of the
    # artifact say of them
    judged = []
    for kind in ("trail_manifest", "artifact_manifest"):
        manifest = LogEntry.select().where(LogEntry.kind == kind).order_by(
            LogEntry.number.desc()).first()
        judged.append(f"entry {manifest.number}: {kind} {manifest.record_id} differs from its "
                      "leaf (status)")
    assert sorted(log.verify_log(acme)) == sorted([*named, *judged])
    done = _verify_log(db)
    assert done.returncode == 1 and all(f"acme: {line}\n" in done.stdout for line in named), \
        done.stdout + done.stderr
    assert f"acme: FAILED ({log.size_of(acme)} entries" in done.stdout
    for made in (forged, early):
        Attestation.delete().where(Attestation.id == made).execute()
    Approval.delete().where(Approval.id == approval).execute()
    assert log.verify_log(acme) == []
    LogEntry.delete().execute()
    LogHead.delete().execute()
    gone = ("records but no log: artifact 1, attestation 2, environment 1, flow 1, snapshot 1, "
            "trail 1, trail_event 2 rows, and no log_begun entry (the log is empty, deleted or "
            "never began)")
    assert log.verify_log(acme) == [gone]
    done = _verify_log(db)
    assert done.returncode == 1 and f"acme: {gone}\nacme: FAILED (0 entries" in done.stdout, \
        done.stdout + done.stderr


def test_a_kind_is_begun_once(db):
    """A second genesis naming a kind a first one covers is a finding (a later release's genesis
    is for kinds covered from then on only)."""
    acme = Organization.get(Organization.name == "acme")
    first = json.dumps({"kind": "log_begun", "records": {"attestation": {"count": 0, "last_id": 0}}})
    again = json.dumps({"kind": "log_begun", "records": {"attestation": {"count": 0, "last_id": 0},
                                                         "snapshot": {"count": 0, "last_id": 0}}})
    begun = [(0, first.encode()), (7, again.encode())]
    assert log.check_coverage(acme.id, begun, {}) == [
        "entry 7: a genesis of attestation rows after entry 0's"]


class _Undone(Exception):
    pass


def test_an_entry_goes_with_the_savepoint_it_was_made_in(client):
    """A write nested in a transaction (retry_on_conflict inside an outer one) is a savepoint:
    rolled back, its log entries go with its rows; released, they stay, committed with the
    outer transaction; the outer one rolled back takes them all."""
    create_flow(client)
    acme, alice = Organization.get(Organization.name == "acme"), User.get(User.name == "alice")
    with storage.write_transaction():
        with pytest.raises(_Undone), storage.write_transaction():
            trails.begin_trail(acme, "payments", {"name": "undone"}, alice)
            raise _Undone
        trails.begin_trail(acme, "payments", {"name": "kept"}, alice)
    with pytest.raises(_Undone), storage.write_transaction():
        trails.begin_trail(acme, "payments", {"name": "gone"}, alice)
        raise _Undone
    assert [t.name for t in Trail.select()] == ["kept"]
    logged = [(e.kind, json.loads(e.leaf)) for e in LogEntry.select().order_by(LogEntry.number)]
    assert [(kind, leaf.get("trail") or leaf.get("name")) for kind, leaf in logged] == [
        ("log_begun", None), ("flow", "payments"), ("trail", "kept"), ("trail_event", "kept"),
        ("trail_manifest", "kept")]
    assert log.size_of(acme) == 5 and log.verify_log(acme) == []


def test_verify_log_names_a_changed_reordered_or_truncated_log(client):
    write_evidence(client)
    acme = Organization.get(Organization.name == "acme")
    first = LogEntry.get(LogEntry.number == 1)
    LogEntry.update(leaf=first.leaf.replace('"acme"', '"acmE"')).where(
        LogEntry.id == first.id).execute()
    assert "entry 1: its leaf does not hash to its stored leaf hash" in log.verify_log(acme)
    LogEntry.update(leaf=first.leaf).where(LogEntry.id == first.id).execute()
    # two entries swapped
    second = LogEntry.get(LogEntry.number == 2)
    LogEntry.update(number=-1).where(LogEntry.id == first.id).execute()
    LogEntry.update(number=1).where(LogEntry.id == second.id).execute()
    LogEntry.update(number=2).where(LogEntry.id == first.id).execute()
    swapped = log.verify_log(acme)  # each row keeps the hashes its own append made
    assert "entry 1: stored hash (level 1, index 0) is missing" in swapped
    assert "entry 2: keeps more hashes than its append makes" in swapped
    LogEntry.update(number=-1).where(LogEntry.id == first.id).execute()
    LogEntry.update(number=2).where(LogEntry.id == second.id).execute()
    LogEntry.update(number=1).where(LogEntry.id == first.id).execute()
    assert log.verify_log(acme) == []
    # a subtree's hash changed, then cut short (entry 3 keeps levels 0, 1 and 2)
    third = LogEntry.get(LogEntry.number == 3)
    kept = bytes(third.hashes)
    assert len(kept) == 3 * 32
    LogEntry.update(hashes=kept[:32] + bytes(32) + kept[64:]).where(LogEntry.id == third.id).execute()
    assert log.verify_log(acme) == [
        "entry 3: stored hash (level 1, index 1) is not the one the leaves make"]
    LogEntry.update(hashes=kept[:64]).where(LogEntry.id == third.id).execute()
    assert log.verify_log(acme) == ["entry 3: stored hash (level 2, index 0) is missing"]
    LogEntry.update(hashes=kept).where(LogEntry.id == third.id).execute()
    # the last entry cut off: its record has no entry
    last = LogEntry.get(LogEntry.number == 15)
    LogEntry.delete().where(LogEntry.number == 15).execute()
    assert log.verify_log(acme) == [
        "the log's head says 16 entries, 15 are stored in order",
        f"snapshot {last.record_id} (#1 of environment prod) has no log entry"]
    assert LogHead.get().size == 16


def test_verify_log_since_a_saved_checkpoint(client, db, tmp_path):
    write_evidence(client)
    saved = tmp_path / "checkpoint"
    saved.write_text(client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True))
    key = tmp_path / "key.pub"
    key.write_text(client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True))
    assert attest(client, "generic", {"attestation_name": "late", "is_compliant": True}
                  ).status_code == 201
    done = _verify_log(db, "--since", str(saved), "--public-key", str(key))
    assert done.returncode == 0, done.stdout + done.stderr
    saved.write_text(saved.read_text().replace("\n16\n", "\n15\n"))
    done = _verify_log(db, "--since", str(saved), "--public-key", str(key))
    assert done.returncode == 1 and "does not verify" in done.stdout


def test_an_attestation_exported_as_in_toto_verifies_as_dsse_with_the_log_key(client):
    write_evidence(client)
    vkey = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True).strip()
    name, key_id, encoded = vkey.split("+", 2)
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(encoded)[1:])
    key = SSlibKey.from_crypto(public, keyid=key_id)
    path = "/api/v2/attestations/acme/payments/trail/release-1/{}/in-toto"
    for attestation, subject in (("scan", {"sha256": BACKEND_FP}), ("review", None)):
        answer = client.get(path.format(attestation), headers=H)
        assert answer.status_code == 200, answer.json
        envelope = Envelope.from_dict(answer.json)
        assert envelope.payload_type == "application/vnd.in-toto+json"
        assert list(envelope.verify([key], 1)) == [key_id]
        payload = json.loads(envelope.payload)
        statement = Statement.copy_from_pb(json_format.ParseDict(payload, statement_pb2.Statement()))
        statement.validate()  # in-toto's own bindings
        assert payload["_type"] == "https://in-toto.io/Statement/v1"
        predicate = payload["predicate"]
        assert predicate["attestation"]["attestation_name"] == attestation
        entry = client.get(f"{BASE}/entries/{predicate['transparency_log']['index']}", headers=H).json
        assert entry["leaf_hash"] == predicate["transparency_log"]["leaf_hash"]
        assert json.loads(base64.b64decode(entry["leaf"]))["name"] == attestation
        if subject:
            assert payload["subject"] == [{"name": "backend.tgz", "digest": subject}]
        else:
            assert payload["subject"][0]["name"] == "acme/payments/release-1"
        tampered = dict(answer.json, payload=base64.b64encode(
            envelope.payload.replace(b'"is_compliant":', b'"is_compliant" :')).decode())
        with pytest.raises(VerificationError):
            Envelope.from_dict(tampered).verify([key], 1)
    assert client.get(path.format("nope"), headers=H).status_code == 404


def _repacked(content: bytes, change: dict[str, bytes], *, resum: bool) -> bytes:
    """The package with files changed; with `resum`, its manifest and SHA256SUMS made to match
    (what someone who changed the evidence would do)."""
    files = unpacked(content)
    files.update(change)
    if resum:
        manifest = json.loads(files["manifest.json"])
        for entry in manifest["files"]:
            entry["sha256"] = hashlib.sha256(files[entry["path"]]).hexdigest()
        files["manifest.json"] = json.dumps(manifest).encode()
    return packed(files)


def _verify_package(path, key) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "verify-package", str(path),
                           "--public-key", str(key)], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "PYTHONPATH": os.getcwd()})


def test_an_audit_package_verifies_offline_and_a_changed_verdict_fails(client, tmp_path):
    write_evidence(client)
    key = tmp_path / "log.pub"
    key.write_text(client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True))
    package = client.get("/api/v2/trails/acme/payments/release-1/audit_package", headers=H).data
    kept = tmp_path / "package.tar.gz"
    kept.write_bytes(package)
    done = _verify_package(kept, key)  # a process with no database and no server
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr
    with tarfile.open(fileobj=io.BytesIO(package), mode="r:gz") as tar:
        names = tar.getnames()
        entries = json.loads(tar.extractfile("transparency/entries.json").read())
        scan_path = next(n for n in names if n.startswith("attestations/") and "scan" in n)
        scan = tar.extractfile(scan_path).read()
        review_path = next(n for n in names if n.startswith("attachments/"))
    assert {e["path"] for e in entries["entries"]} == {
        "trail.json", scan_path, *(n for n in names if n.startswith("attestations/"))}
    # one attestation's verdict changed, the sums made to match: its log entry says otherwise
    flipped = scan.replace(b'"is_compliant": false', b'"is_compliant": true')
    assert flipped != scan
    kept.write_bytes(_repacked(package, {scan_path: flipped}, resum=True))
    done = _verify_package(kept, key)
    assert done.returncode == 1
    assert f"{scan_path}: differs from its log entry (is_compliant)" in done.stdout
    # the rest in this process, as the command checks them
    verifier = notes.parse_verifier_key(key.read_text().strip())
    swapped = _repacked(package, {review_path: b"looks bad"}, resum=True)  # an attachment swapped
    assert f"{review_path}: not the attachment its log entry names" in verify_package(swapped, verifier)
    one_byte = _repacked(package, {"report.pdf": b"%PDF-x"}, resum=False)  # the sums left alone
    assert "report.pdf: not as the manifest lists it" in verify_package(one_byte, verifier)
    other = notes.generate_signer("evidence.test").verifier  # another key
    assert "does not verify" in verify_package(package, other)[0]
    assert verify_package(b"not a package", verifier)[0].startswith("not an audit package")


def test_an_artifact_package_carries_its_attestations_entries(client):
    write_evidence(client)
    vkey = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True)
    package = client.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/audit_package", headers=H).data
    assert verify_package(package, notes.parse_verifier_key(vkey.strip())) == []


def test_attestation_and_snapshot_answers_name_their_log_entry(client):
    write_evidence(client)
    scan = client.get("/api/v2/attestations/acme/payments/trail/release-1/scan", headers=H).json[0]
    leaf = json.loads(base64.b64decode(client.get(f"{BASE}/entries/{scan['log_index']}",
                                                  headers=H).json["leaf"]))
    assert (leaf["kind"], leaf["id"], leaf["compliant"]) == ("attestation", scan["attestation_id"], False)
    snapshot = client.get("/api/v2/snapshots/acme/prod/1", headers=H).json
    leaf = json.loads(base64.b64decode(client.get(f"{BASE}/entries/{snapshot['log_index']}",
                                                  headers=H).json["leaf"]))
    assert (leaf["kind"], leaf["index"]) == ("snapshot", 1)


def _artifact_entry(client) -> tuple[int, dict]:
    """The artifact answer's log_index (get and list agree) and the leaf of that entry."""
    artifact = client.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}", headers=H).json
    listed = client.get("/api/v2/artifacts/acme/payments", headers=H).json
    assert [a["log_index"] for a in listed if a["fingerprint"] == BACKEND_FP] == [artifact["log_index"]]
    leaf = json.loads(base64.b64decode(client.get(f"{BASE}/entries/{artifact['log_index']}",
                                                  headers=H).json["leaf"]))
    return artifact["log_index"], leaf


def test_an_artifact_answer_names_the_entry_of_its_latest_report(client, db):
    write_evidence(client)
    first, leaf = _artifact_entry(client)
    assert (leaf["kind"], leaf["fingerprint"]) == ("artifact", BACKEND_FP)  # its own entry
    assert report_artifact(client).status_code == 201  # reported again: a new entry
    again, leaf = _artifact_entry(client)
    assert again > first and leaf["kind"] == "artifact"
    with grpc_channel(db) as channel:  # the same on the gRPC door
        found = artifact_pb_grpc.ArtifactServiceStub(channel).GetArtifactByFingerprint(
            artifact_pb.GetArtifactByFingerprintRequest(org="acme", flow_name="payments",
                                                        fingerprint=BACKEND_FP),
            metadata=[("authorization", f"Bearer {ROLE_KEYS['reader']}")])
        assert found.HasField("log_index") and found.log_index == again
    # reported before its log covered artifacts (an upgraded log: migration 0030's genesis after
    # its entries): the entry of its trail's event of that report, as answered then
    genesis = LogEntry.get((LogEntry.kind == log.BEGUN) & (LogEntry.number == 0))
    leaf = json.loads(genesis.leaf)
    del leaf["records"]["artifact"]
    LogEntry.update(leaf=json.dumps(leaf)).where(LogEntry.id == genesis.id).execute()
    log.append(genesis.organization_id, log.BEGUN, 0, {"kind": log.BEGUN, "records": {
        "artifact": {"count": 2, "last_id": 2, "rows": "all"}}})
    before, leaf = _artifact_entry(client)
    assert (leaf["kind"], leaf["type"], leaf["trail"]) == (
        "trail_event", "artifact_creation_reported", "release-1")
    assert before > again  # the same report's event, logged after the artifact
    # reported before the log began: no entry, and no log_index
    LogEntry.delete().where(LogEntry.number == before).execute()
    answer = client.get(f"/api/v2/artifacts/acme/payments/fingerprint/{BACKEND_FP}", headers=H).json
    assert "log_index" not in answer


def test_roots_and_inclusion_proofs_are_those_of_pymerkle(client):
    """pymerkle, an RFC 9162 implementation nobody here wrote, builds the tree of the entries'
    leaves: its root is the checkpoint's, its inclusion paths are the server's proofs."""
    write_evidence(client)
    assert attest(client, "generic", {"attestation_name": "late", "is_compliant": True}
                  ).status_code == 201
    key = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True)
    _, size, root = checkpoint(client, key)
    tree = InmemoryTree(algorithm="sha256")
    for entry in entries(client, size):
        tree.append_entry(base64.b64decode(entry["leaf"]))
    assert tree.get_root(size) == root
    for size_then in range(1, size + 1):
        for index in range(size_then):
            answer = client.get(f"{BASE}/proofs/inclusion?index={index}&tree_size={size_then}",
                                headers=H).json
            theirs = tree.prove_inclusion(index + 1, size_then).serialize()["path"][1:]
            assert [base64.b64decode(h).hex() for h in answer["hashes"]] == theirs


def test_an_approval_is_logged_and_verify_log_names_a_changed_one(client):
    write_evidence(client)
    answer = client.post("/api/v2/approvals/acme/payments", headers=H, content_type="application/json",
                         data=json.dumps({"artifact_fingerprint": BACKEND_FP, "environment": "prod",
                                          "description": "ship it", "approvals": [
                                              {"state": "APPROVED", "approved_by": "alice",
                                               "comment": "ok"}]}))
    assert answer.status_code in (200, 201), answer.json
    acme = Organization.get(Organization.name == "acme")
    entry = LogEntry.get(LogEntry.kind == "approval")
    leaf = json.loads(entry.leaf)
    assert (leaf["fingerprint"], leaf["state"], leaf["number"]) == (BACKEND_FP, "APPROVED", 1)
    assert log.verify_log(acme) == []
    Approval.update(state="REJECTED").where(Approval.id == entry.record_id).execute()
    assert log.verify_log(acme) == [
        f"entry {entry.number}: approval {entry.record_id} differs from its leaf (state)"]


def test_an_attestation_bound_to_its_artifact_later_passes_its_audit(client, db):
    """`kosli attest --name backend.unit-tests --commit` before `kosli attest artifact`: the
    attestation's entry says it as made, the binding is an entry of its own; the untouched
    log and packages verify, and the bound fingerprint changed in SQL is named."""
    create_flow(client)
    begin_trail(client)
    commit = {"sha1": COMMIT, "message": "m", "author": "a", "branch": "main", "timestamp": 1}
    assert attest(client, "generic", {"attestation_name": "unit-tests", "is_compliant": True,
                                      "target_artifacts": ["backend"], "git_commit_info": commit}
                  ).status_code == 201
    assert report_artifact(client).status_code == 201  # backend, built from COMMIT
    acme = Organization.get(Organization.name == "acme")
    made, bound = (LogEntry.get(LogEntry.kind == kind) for kind in ("attestation", "attestation_bound"))
    unit_tests = Attestation.get(Attestation.name == "unit-tests")
    assert json.loads(made.leaf)["artifact_fingerprint"] is None and made.number < bound.number
    assert json.loads(bound.leaf) == {
        "kind": "attestation_bound", "org": "acme", "id": unit_tests.uid,
        "flow_id": unit_tests.flow_id, "trail_id": unit_tests.trail_id,
        "artifact_id": Artifact.get().uid, "artifact_fingerprint": BACKEND_FP}
    assert bound.record_id == unit_tests.id and log.verify_log(acme) == []
    key = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True)
    verifier = notes.parse_verifier_key(key.strip())
    trail_package = client.get("/api/v2/trails/acme/payments/release-1/audit_package", headers=H).data
    assert verify_package(trail_package, verifier) == []
    assert verify_package(client.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP}/audit_package",
                                     headers=H).data, verifier) == []
    # the package proves the binding's entry: checked with nothing of ours
    with tarfile.open(fileobj=io.BytesIO(trail_package), mode="r:gz") as tar:
        carried = json.loads(tar.extractfile("transparency/entries.json").read())
        _, size, root = independent.open_checkpoint(
            tar.extractfile("transparency/checkpoint").read().decode(), key)
    binding = next(e for e in carried["entries"] if e["index"] == bound.number)
    assert base64.b64decode(binding["leaf"]) == bound.leaf.encode()
    assert independent.inclusion_root(bound.number, size, independent.leaf_hash(bound.leaf.encode()),
                                      [base64.b64decode(h) for h in binding["inclusion_proof"]]) == root
    # the bound fingerprint changed in SQL: the binding's entry says otherwise
    Attestation.update(artifact_fingerprint=FRONTEND_FP).where(Attestation.id == unit_tests.id).execute()
    assert log.verify_log(acme) == [f"entry {bound.number}: attestation_bound {unit_tests.id} "
                                    "differs from its leaf (artifact_fingerprint)"]
    changed = client.get("/api/v2/trails/acme/payments/release-1/audit_package", headers=H).data
    assert [p for p in verify_package(changed, verifier) if "unit-tests" in p] == [
        "attestations/0001-unit-tests.json: differs from its log entry (artifact_fingerprint)"]


def test_verify_log_names_an_attachment_chunk_changed_in_sql(client):
    write_evidence(client)
    acme = Organization.get(Organization.name == "acme")
    review = Attestation.get(Attestation.name == "review")
    BlobChunk.update(data=b"looks bad!").where(BlobChunk.blob == review.attachment_id).execute()
    number = LogEntry.get((LogEntry.kind == "attestation") & (LogEntry.record_id == review.id)).number
    assert log.verify_log(acme) == [
        f"entry {number}: attestation {review.id} differs from its leaf (attachment_sha256)"]


def test_the_fast_canonical_json_is_rfc8785_byte_for_byte():
    """log.canonical writes flat leaves with Python's JSON: the same bytes as the rfc8785
    package for every kind of value a leaf may hold, and the package's own for the rest."""
    rng = random.Random(33)
    texts = ["", "plain", "quote\" back\\slash", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "é日本🚀",
             "\u2028\u2029", "</script>", "\ud800"]
    numbers = [0, 1, -1, 2**53 - 1, -(2**53 - 1), 2**53, 10**30, 0.5, 1764320000.123456,
               1764320000.0, 1e-7, 1.5e-5, 1e-4, 123456789012345.6, 1e16, 1e21, 1e22, -0.0,
               0.1 + 0.2, 5e-324]
    values = [*texts, *numbers, True, False, None]
    for _ in range(3000):
        leaf = {rng.choice(["kind", "org", "id", "a", "b", "Z", "created_at"]) + str(rng.randint(0, 3)):
                rng.choice(values) for _ in range(rng.randint(0, 8))}
        try:
            expected = rfc8785.dumps(leaf)
        except (rfc8785.CanonicalizationError, ValueError, UnicodeEncodeError):
            with pytest.raises((rfc8785.CanonicalizationError, ValueError, UnicodeEncodeError)):
                log.canonical(leaf)
            continue
        assert log.canonical(leaf) == expected, leaf


def test_tiles_hold_the_hashes_of_what_the_tree_holds(client, db):
    """C2SP tlog-tiles: the level-0 tile of 5 entries, 5 hashes wide, is their leaf hashes as
    the independent verifier computes them; a wider or full tile does not exist yet; the
    entry bundle of that tile holds the entries' leaves."""
    write_evidence(client)
    key = client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True)
    _, size, _ = checkpoint(client, key)
    leaves = [base64.b64decode(e["leaf"]) for e in entries(client, size)]
    answer = client.get(f"{BASE}/tile/0/000.p/{size}", headers=H)
    assert answer.status_code == 200 and answer.content_type == "application/octet-stream"
    assert answer.data == b"".join(independent.leaf_hash(leaf) for leaf in leaves)
    assert client.get(f"{BASE}/tile/0/000.p/2", headers=H).data == answer.data[:64]
    for missing in (f"0/000.p/{size + 1}", "0/000", "1/000.p/1", "0/001.p/1"):
        assert client.get(f"{BASE}/tile/{missing}", headers=H).status_code == 404, missing
    for bad in ("0/0", "0/000.p/0", "0/000.p/256", "64/000", "0/x000/000", "entries/0",
                "entries/000.p/0", "entries/x000/000", "entries"):
        refused = client.get(f"{BASE}/tile/{bad}", headers=H)
        assert refused.status_code == 400 and "tile" in refused.json["errors"], bad
    # the entry bundle: the same leaves, each after its length (big-endian, 16 bits)
    bundle = client.get(f"{BASE}/tile/entries/000.p/{size}", headers=H)
    assert bundle.status_code == 200 and bundle.content_type == "application/octet-stream"
    found, at = [], 0
    while at < len(bundle.data):
        length = int.from_bytes(bundle.data[at:at + 2], "big")
        found.append(bundle.data[at + 2:at + 2 + length])
        at += 2 + length
    assert found == leaves
    assert client.get(f"{BASE}/tile/entries/000.p/1", headers=H).data == \
        len(leaves[0]).to_bytes(2, "big") + leaves[0]
    for missing in (f"entries/000.p/{size + 1}", "entries/000", "entries/001.p/1"):
        assert client.get(f"{BASE}/tile/{missing}", headers=H).status_code == 404, missing
    with grpc_channel(db) as channel:  # the gRPC door
        answer = pb_grpc.TransparencyServiceStub(channel).GetLogTile(
            pb.GetLogTileRequest(org="acme", tile=f"entries/000.p/{size}"),
            metadata=[("authorization", f"Bearer {ROLE_KEYS['reader']}")])
        assert answer.data == bundle.data
