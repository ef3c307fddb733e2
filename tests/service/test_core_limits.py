"""Limits the core holds whatever the door: API keys of at least 20 characters at bootstrap,
and upload and field sizes for gRPC callers as for the REST shim."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import grpc
import pytest
import requests
from google.protobuf import struct_pb2

from evidence_grpc.api.v2 import (
    attestation_service_pb2,
    attestation_service_pb2_grpc,
    attestation_type_service_pb2,
    attestation_type_service_pb2_grpc,
    common_pb2,
)
from evidence_grpc.config import Settings
from evidence_grpc.domain.identity import organizations
from evidence_grpc.domain.kernel.errors import InvalidArgument
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import ApiKey, User
from tests.conftest import ALICE_KEY, BOB_KEY, BOOTSTRAP, ROOT, RunningServer, bearer

# ---- API keys ------------------------------------------------------------------------------

def test_the_suites_keys_are_long_enough():
    assert len(ALICE_KEY) >= organizations.MIN_KEY_LENGTH
    assert len(BOB_KEY) >= organizations.MIN_KEY_LENGTH


@pytest.mark.parametrize("key", ["short-key", "x" * 19, {"key": "nineteen-characters"}])
def test_bootstrap_refuses_a_key_shorter_than_20_characters(db, key):
    spec = {"users": [{"name": "erin", "organizations": ["acme"], "api_keys": [key]}]}
    with storage.database.connection_context():
        with pytest.raises(InvalidArgument) as refused:
            organizations.bootstrap(spec)
        assert "at least 20 characters" in refused.value.message
        assert refused.value.errors == {"users[0].api_keys[0]": "is 9 characters long"
                                        if key == "short-key" else "is 19 characters long"}
        assert not User.select().where(User.name == "erin").exists()
        assert ApiKey.select().count() == sum(len(u["api_keys"]) for u in BOOTSTRAP["users"])


def test_bootstrap_takes_a_key_of_20_characters(db):
    spec = {"users": [{"name": "erin", "organizations": ["acme"], "api_keys": ["k" * 20]}]}
    with storage.database.connection_context():
        assert organizations.bootstrap(spec)["api_keys"] == 1


def test_the_bootstrap_command_says_why_it_refuses_a_short_key(tmp_path: pathlib.Path):
    spec = dict(BOOTSTRAP, users=[{"name": "erin", "organizations": ["acme"],
                                   "api_keys": [{"key": "SECRET"}]}])
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(spec))
    result = subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "bootstrap", str(boot),
                             "--database-url", f"sqlite:///{tmp_path / 'e.db'}"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "at least 20 characters" in result.stderr


def test_the_example_bootstrap_file_is_accepted(db):
    example = ROOT / "examples" / "bootstrap.json"
    with storage.database.connection_context():
        organizations.bootstrap(json.loads(example.read_text()))


# ---- sizes over gRPC -----------------------------------------------------------------------

MIB = 1024 * 1024
AUTH = [("authorization", f"Bearer {ALICE_KEY}")]


def _data(**fields: object) -> struct_pb2.Struct:
    data = struct_pb2.Struct()
    data.update(fields)
    return data


def _attestation(size: int) -> attestation_service_pb2.CreateAttestationRequest:
    return attestation_service_pb2.CreateAttestationRequest(
        org="acme", flow_name="payments", trail_name="t1", kind="generic",
        data_json=_data(attestation_name="big", is_compliant=True, user_data={}),
        attachment_file=common_pb2.UploadedFile(filename="big.bin", content=b"x" * size))


def _refused(call, request) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as refused:
        call(request, metadata=AUTH, timeout=60)
    return refused.value


def test_grpc_callers_get_the_shims_size_limits(server: RunningServer):
    """Files as the shim limits them (one declaration: the field's max_upload_bytes), and the
    whole message by the server's receive limit."""
    base = server.http_url + "/api/v2"
    assert requests.put(f"{base}/flows/acme", headers=bearer(), timeout=10, json={
        "name": "payments", "description": "", "visibility": "private",
        "template": []}).status_code in (200, 201)
    assert requests.put(f"{base}/trails/acme/payments", headers=bearer(), timeout=10,
                        files={"data_json": (None, json.dumps({"name": "t1"}))}).status_code == 201
    with grpc.insecure_channel(server.grpc_target) as channel:
        attestations = attestation_service_pb2_grpc.AttestationServiceStub(channel)
        types = attestation_type_service_pb2_grpc.AttestationTypeServiceStub(channel)

        too_big = _refused(attestations.CreateAttestation, _attestation(10 * MIB + 1))
        assert too_big.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert too_big.details() == "File 'attachment_file' is larger than 10485760 bytes"

        schema = common_pb2.UploadedFile(filename="s.json", content=b" " * (MIB + 1))
        too_big = _refused(types.CreateAttestationType,
                           attestation_type_service_pb2.CreateAttestationTypeRequest(
                               org="acme", data_json=_data(name="t"), type_schema=schema))
        assert too_big.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert too_big.details() == "File 'type_schema' is larger than 1048576 bytes"

        at_limit = attestations.CreateAttestation(_attestation(10 * MIB), metadata=AUTH,
                                                  timeout=60)
        assert at_limit.attestation_id

        beyond = _refused(attestations.CreateAttestation,
                          _attestation(Settings().max_message_bytes))
        assert beyond.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
