"""Audit packages of evidence the real kosli CLI recorded, fetched over gRPC and REST from a
real server (answers larger than the 4 MiB gRPC default pass through the shim's channel)."""

from __future__ import annotations

import io
import json
import os
import pathlib
import tarfile

import grpc
import pytest
import requests

from evidence_grpc.api.v2 import trail_service_pb2 as pb
from evidence_grpc.api.v2 import trail_service_pb2_grpc as pb_grpc
from tests.conftest import ALICE_KEY, RunningServer, bearer

pytestmark = pytest.mark.e2e


def test_the_package_of_a_trail_the_cli_recorded(server: RunningServer, tmp_path: pathlib.Path):
    server.kosli("create", "flow", "shop", "--use-empty-template")
    server.kosli("begin", "trail", "r1", "--flow", "shop")
    big = tmp_path / "scan.bin"
    big.write_bytes(os.urandom(6 * 1024 * 1024))  # incompressible: the package passes 4 MiB
    server.kosli("attest", "generic", "--name", "scan", "--flow", "shop", "--trail", "r1",
                 "--compliant", "--attachments", str(big))
    with grpc.insecure_channel(server.grpc_target,
                               options=[("grpc.max_receive_message_length", 64 << 20)]) as ch:
        body = pb_grpc.TrailServiceStub(ch).GetTrailAuditPackage(
            pb.GetTrailAuditPackageRequest(org="acme", flow_name="shop", trail_name="r1"),
            metadata=(("authorization", f"Bearer {ALICE_KEY}"),))
    assert body.content_type == "application/gzip"
    with tarfile.open(fileobj=io.BytesIO(body.data), mode="r:gz") as tar:
        names = tar.getnames()
        manifest = json.loads(tar.extractfile("manifest.json").read())
    assert "trail.json" in names and "report.pdf" in names
    assert any(p.startswith("attachments/0001-scan/") for p in names)
    assert len(manifest["files"]) == len(names) - 2
    rest, again = (requests.get(f"{server.http_url}/api/v2/trails/acme/shop/r1/audit_package",
                                headers=bearer(), timeout=30) for _ in range(2))
    assert rest.status_code == 200 and rest.content == again.content  # byte for byte
    pdf = requests.get(f"{server.http_url}/api/v2/trails/acme/shop/r1/audit_pdf",
                       headers=bearer(), timeout=30)
    assert pdf.headers["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF-")
