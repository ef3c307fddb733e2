"""Writes are atomic and serialized: one transaction per write RPC (a failed request changes
nothing), row locks wherever a stored value is read then written (concurrent tags, joins,
updates and renames lose nothing), and "newest" decided by one sequence, not the clock."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from evidence_grpc import services  # noqa: F401  (loads the evidence.v2 descriptors)
from evidence_grpc.domain import artifacts as artifact_domain
from evidence_grpc.domain.errors import InvalidArgument
from evidence_grpc.interceptors.database import is_write
from tests.conftest import bearer

H = bearer()
COMMIT = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
FINGERPRINT = hashlib.sha256(b"build 1").hexdigest()


def create_flow(client, name: str = "payments") -> None:
    answer = client.put("/api/v2/flows/acme", headers=H,
                        json={"name": name, "description": "", "visibility": "private",
                              "template": []})
    assert answer.status_code in (200, 201), answer.json


# ---- one transaction per write RPC ---------------------------------------------------------

def test_write_methods_are_read_from_the_http_rules():
    assert is_write("/evidence.v2.ArtifactService/ReportArtifact")
    assert is_write("/evidence.v2.TrailService/BeginTrail")
    assert not is_write("/evidence.v2.TrailService/GetTrail")
    assert not is_write("/evidence.v2.FlowService/ListFlows")


def test_a_failed_artifact_report_leaves_no_trail(client, monkeypatch: pytest.MonkeyPatch):
    """The legacy report (no trail name) begins a trail named after the commit; when the
    report then fails, the trail is gone with it."""
    create_flow(client)

    def fail(*_: Any) -> None:
        raise InvalidArgument("refused after the trail was begun")

    monkeypatch.setattr(artifact_domain, "link_artifact", fail)
    answer = client.post("/api/v2/artifacts/acme/payments", headers=H, json={
        "fingerprint": FINGERPRINT, "filename": "app.tgz", "git_commit": COMMIT,
        "build_url": "https://ci.example/1", "commit_url": "https://git.example/c",
        "repo_url": "https://git.example"})
    assert answer.status_code == 400, answer.json
    assert answer.json["message"] == "refused after the trail was begun"
    assert client.get("/api/v2/trails/acme/payments", headers=H).json == []
    assert client.get("/api/v2/artifacts/acme?flow_name=payments", headers=H).json == []
