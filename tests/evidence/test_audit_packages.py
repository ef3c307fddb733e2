"""Trail and artifact audit packages and the trail PDF through the REST shim (both engines):
what the package holds, that its manifest's sums check out, that downloads are repeatable,
that hostile names stay inside the package, and the refusals."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import zlib
from typing import Any

import pytest

from evidence_grpc.domain.kernel.errors import FailedPrecondition
from evidence_grpc.domain.views import audit_packages
from tests.conftest import BOB_KEY, ROLE_KEYS, bearer
from tests.helpers import BACKEND_FP, H, attest, begin_trail, create_flow, report_artifact

PACKAGE = "/api/v2/trails/acme/payments/release-1/audit_package"


@pytest.fixture
def recorded(client):
    """Trail release-1 of flow payments with an artifact, three attestations (one about the
    artifact, two with attachments, one named to escape the package)."""
    create_flow(client)
    begin_trail(client)
    assert report_artifact(client).status_code == 201
    for data, attachment in (
            ({"attestation_name": "coverage", "is_compliant": True},
             ("reports/coverage.html", b"<html>93%</html>")),
            ({"attestation_name": "evil", "is_compliant": False},
             ("../../../evil.sh", b"#!/bin/sh\nrm -rf /\n")),
            ({"attestation_name": "backend-review", "is_compliant": True,
              "artifact_fingerprint": BACKEND_FP}, None)):
        answer = attest(client, "generic", data, attachment=attachment)
        assert answer.status_code == 201, answer.get_json()
    return client


def unpack(content: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(content), mode="r:gz") as tar:
        members = tar.getmembers()
        assert all(m.isfile() and not m.name.startswith(("/", "..")) and ".." not in m.name.split("/")
                   for m in members)
        return {m.name: tar.extractfile(m).read() for m in members}


def test_a_trail_package_holds_its_evidence_with_checkable_sums(recorded):
    answer = recorded.get(PACKAGE, headers=H)
    assert answer.status_code == 200 and answer.content_type == "application/gzip"
    files = unpack(answer.data)
    manifest = json.loads(files["manifest.json"])
    assert manifest["format"] == "evidence-audit-package/1"
    assert (manifest["org"], manifest["flow"], manifest["trail"]) == ("acme", "payments",
                                                                     "release-1")
    listed = {entry["path"]: entry for entry in manifest["files"]}
    assert set(listed) == set(files) - {"manifest.json", "SHA256SUMS"}
    for path, entry in listed.items():
        assert hashlib.sha256(files[path]).hexdigest() == entry["sha256"]
        assert len(files[path]) == entry["size"]
    assert files["SHA256SUMS"].decode().splitlines() == [
        f"{e['sha256']}  {e['path']}" for e in manifest["files"]]

    trail = json.loads(files["trail.json"])
    assert trail["name"] == "release-1"
    attested = [json.loads(files[p]) for p in sorted(files) if p.startswith("attestations/")]
    assert [a["attestation_name"] for a in attested][:1] == ["coverage"]
    coverage_files = [p for p in files if p.startswith("attachments/0001-coverage/")]
    assert [files[p] for p in coverage_files] == [b"<html>93%</html>"]
    assert files[f"artifacts/{BACKEND_FP}.json"] and files["report.pdf"].startswith(b"%PDF-")
    assert answer.data == recorded.get(PACKAGE, headers=H).data  # repeatable


def pdf_text(content: bytes) -> str:
    """The text the PDF's pages draw: the literal strings of its (deflated) content streams."""
    streams = re.findall(rb"stream\r?\n(.*?)\r?\nendstream", content, flags=re.S)
    drawn = b"".join(zlib.decompress(s) if s.startswith(b"x") else s for s in streams)
    return " ".join(m.decode("latin-1") for m in re.findall(rb"\((.*?)\) ?Tj", drawn))


def test_the_pdf_report_of_a_trail(recorded):
    answer = recorded.get("/api/v2/trails/acme/payments/release-1/audit_pdf", headers=H)
    assert answer.status_code == 200 and answer.content_type == "application/pdf"
    assert answer.data.startswith(b"%PDF-") and answer.data.rstrip().endswith(b"%%EOF")
    text = pdf_text(answer.data)
    # the artifact by its file name and its state in the trail (it read keys no view has)
    assert f"backend.tgz  {BACKEND_FP}  INCOMPLETE" in text, text


def test_names_beyond_latin1_and_control_characters_still_make_a_pdf(client):
    create_flow(client)
    begin_trail(client, trail="release-2", description="日本語 ✓ \u202e reversed")
    attest(client, "generic", {"attestation_name": "テスト", "is_compliant": True,
                               "description": "emoji 🚀"}, trail="release-2")
    for suffix in ("audit_pdf", "audit_package"):
        assert client.get(f"/api/v2/trails/acme/payments/release-2/{suffix}",
                          headers=H).status_code == 200


def test_an_artifact_package_holds_the_artifact_and_what_was_attested_about_it(recorded):
    answer = recorded.get(f"/api/v2/artifacts/acme/payments/{BACKEND_FP[:12]}/audit_package",
                          headers=H)
    assert answer.status_code == 200, answer.get_json()
    files = unpack(answer.data)
    assert json.loads(files["artifact.json"])["fingerprint"] == BACKEND_FP
    names = [json.loads(files[p])["attestation_name"] for p in sorted(files)
             if p.startswith("attestations/")]
    assert names == ["backend-review"]
    assert json.loads(files["manifest.json"])["fingerprint"] == BACKEND_FP


@pytest.mark.parametrize("path", [
    "/api/v2/trails/acme/payments/nope/audit_package", "/api/v2/trails/acme/nope/x/audit_pdf",
    f"/api/v2/artifacts/acme/payments/{'c' * 64}/audit_package",
    "/api/v2/artifacts/acme/nope/abcdef/audit_package"])
def test_unknown_trails_flows_and_artifacts_are_not_found(recorded, path):
    answer = recorded.get(path, headers=H)
    assert answer.status_code == 404 and answer.get_json()["message"]


def test_another_organizations_key_gets_nothing_and_a_reader_may_download(recorded):
    assert recorded.get(PACKAGE, headers=bearer(BOB_KEY)).status_code == 403
    assert recorded.get(PACKAGE, headers=bearer(ROLE_KEYS["reader"])).status_code == 200


def test_a_package_beyond_the_limit_is_refused(recorded, monkeypatch):
    monkeypatch.setattr(audit_packages, "MAX_PACKAGE_BYTES", 64)
    answer = recorded.get(PACKAGE, headers=H)
    assert answer.status_code == 400 and "larger than" in answer.get_json()["message"]
    with pytest.raises(FailedPrecondition):
        audit_packages._Package(0).add("x", b"y" * 65)


def test_a_trail_with_hundreds_of_attestations(client):
    create_flow(client)
    begin_trail(client, trail="big")
    for n in range(300):
        data: dict[str, Any] = {"attestation_name": f"check-{n}", "is_compliant": n % 7 != 0}
        attachment = (f"log-{n}.txt", f"run {n}\n".encode() * 50) if n % 3 == 0 else None
        assert attest(client, "generic", data, trail="big",
                      attachment=attachment).status_code == 201
    files = unpack(client.get("/api/v2/trails/acme/payments/big/audit_package", headers=H).data)
    assert sum(p.startswith("attestations/") for p in files) == 300
    assert sum(p.startswith("attachments/") for p in files) == 100
