"""Issue 31, privileges per field: a snapshotter may create the environment it reports and
re-send it unchanged, but changing one that exists (its description, provenance rule,
members, archive state) needs a member, and changing its policies an admin, as the RPCs that
change each on its own require. Declared in the proto (`update_privilege`,
`change_privilege`), enforced by the domain under its lock, on both doors; a refused call
changes nothing."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import struct_pb2

from evidence_grpc.api.v2 import environment_service_pb2 as pb
from evidence_grpc.api.v2 import environment_service_pb2_grpc as pb_grpc
from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.services import service_descriptors
from evidence_grpc.storage.models import Environment
from tests.conftest import ROLE_KEYS, bearer, govern, grpc_channel
from tests.helpers import details_of

H = bearer()
ENVS = "/api/v2/environments/acme"
ORDER = ["reader", "snapshotter", "member", "admin"]
BASE = {"name": "prod", "type": "server", "description": "the real one",
        "require_provenance": True}
LOGICAL = {"name": "all", "type": "logical", "description": "", "included_environments": ["prod"]}
# One change per field of UpsertEnvironmentRequest that can change an existing environment,
# with the least privilege it needs; `archived` is the un-archiving a re-send does.
CHANGES: dict[str, tuple[dict[str, Any], str]] = {
    "description": ({**BASE, "description": "re-described"}, "member"),
    "require_provenance": ({**BASE, "require_provenance": False}, "member"),
    "include_scaling": ({**BASE, "include_scaling": False}, "member"),
    "included_environments": ({**LOGICAL, "included_environments": ["prod", "stage"]},
                              "member"),
    "policies": ({**BASE, "policies": ["other-rules"]}, "admin"),
    "archived": ({**BASE, "name": "old"}, "member"),
}
# Fields of the request that name the environment rather than change it.
IDENTIFYING = {"org", "name", "type"}


def _world(client) -> None:
    for body in (BASE, {**BASE, "name": "stage"}, {**BASE, "name": "old"}, LOGICAL):
        assert client.put(ENVS, headers=H, json=body).status_code == 201
    govern(client, "prod")
    govern(client, policy="other-rules")
    assert client.put(f"{ENVS}/old/archive", headers=H, json=None).status_code == 200
    assert client.patch(f"{ENVS}/prod", headers=H, json={"include_scaling": True}).status_code == 200


def _state(client) -> list[dict[str, Any]]:
    """What the environments are, as stored."""
    keep = ("name", "description", "require_provenance", "include_scaling",
            "included_environments", "policies", "archived")
    return [{k: getattr(env, k) for k in keep}
            for env in Environment.select().order_by(Environment.name)]


def test_the_change_rules_are_declared_where_they_apply():
    """Every `change_privilege` is on a field of a request whose RPC changes what exists, and
    asks more than that RPC's privilege to change it; every field of the environment upsert
    is probed above, so a new field is decided on, not forgotten."""
    declared = []
    for service in service_descriptors():
        for method in service.methods:
            least = method.GetOptions().Extensions[options_pb2.privilege]
            update = method.GetOptions().Extensions[options_pb2.update_privilege] or least
            assert update >= least, method.full_name
            for field in method.input_type.fields:
                needed = field.GetOptions().Extensions[options_pb2.change_privilege]
                if needed:
                    assert needed > update, field.full_name
                    declared.append(field.full_name)
    assert sorted(declared) == ["evidence.v2.UpdateEnvironmentRequest.policies",
                                "evidence.v2.UpsertEnvironmentRequest.policies"]
    fields = {f.name for f in pb.UpsertEnvironmentRequest.DESCRIPTOR.fields}
    assert fields - IDENTIFYING == set(CHANGES) - {"archived"}


@pytest.mark.parametrize("role", ORDER[1:])
def test_a_re_send_that_changes_nothing_needs_only_the_upserts_privilege(client, role):
    _world(client)
    before = _state(client)
    for body in (BASE, {**BASE, "policies": ["house-rules"]}, LOGICAL):
        answer = client.put(ENVS, headers=bearer(ROLE_KEYS[role]), json=body)
        assert answer.status_code == 200, answer.get_json()
    assert client.put(ENVS, headers=bearer(ROLE_KEYS[role]), json={
        "name": f"made-by-{role}", "type": "server", "description": "new",
        "require_provenance": False}).status_code == 201
    assert [e for e in _state(client) if not e["name"].startswith("made-by")] == before


@pytest.mark.parametrize("role", ORDER[1:])
@pytest.mark.parametrize("field", list(CHANGES))
def test_each_change_of_an_existing_environment_needs_its_privilege(client, role, field):
    _world(client)
    body, least = CHANGES[field]
    before = _state(client)
    answer = client.put(ENVS, headers=bearer(ROLE_KEYS[role]), json=body)
    if ORDER.index(role) >= ORDER.index(least):
        assert answer.status_code == 200, answer.get_json()
        assert _state(client) != before
        return
    assert answer.status_code == 403, answer.get_json()
    refused = answer.get_json()
    assert refused["message"] == "You don't have permission to access this resource"
    assert refused["errors"][field] == f"changing it needs {least} privilege"
    assert refused["errors"]["privilege"] == (
        f"needs {least} privilege to change {field} of the existing environment "
        f"'{body['name']}', the key has {role}")
    assert _state(client) == before


def test_every_change_a_snapshotter_tries_at_once_is_named(client):
    _world(client)
    answer = client.put(ENVS, headers=bearer(ROLE_KEYS["snapshotter"]), json={
        **BASE, "name": "old", "description": "x", "require_provenance": False,
        "policies": ["house-rules"]})
    assert answer.status_code == 403
    errors = answer.get_json()["errors"]
    assert errors == {"description": "changing it needs member privilege",
                      "require_provenance": "changing it needs member privilege",
                      "policies": "changing it needs admin privilege",
                      "archived": "changing it needs member privilege",
                      "privilege": "needs admin privilege to change description, "
                                   "require_provenance, policies, archived of the existing "
                                   "environment 'old', the key has snapshotter"}


def test_patching_policies_needs_an_admin_as_attaching_them_does(client):
    _world(client)
    patched = f"{ENVS}/prod"
    member = bearer(ROLE_KEYS["member"])
    assert client.patch(patched, headers=member, json={"description": "ok"}).status_code == 200
    assert client.patch(patched, headers=member,
                        json={"policies": ["house-rules"]}).status_code == 200  # unchanged
    refused = client.patch(patched, headers=member, json={"policies": []})
    assert refused.status_code == 403
    assert refused.get_json()["errors"]["policies"] == "changing it needs admin privilege"
    assert client.post(f"{ENVS}/prod/policies", headers=member,
                       json={"policy_names": []}).status_code == 403
    assert [e["policies"] for e in _state(client) if e["name"] == "prod"] == [["house-rules"]]
    assert client.patch(patched, headers=H, json={"policies": []}).status_code == 200


def test_grpc_callers_meet_the_same_rules_with_field_violations(client, db: str):
    _world(client)
    before = _state(client)
    snapshotter = (("authorization", f"Bearer {ROLE_KEYS['snapshotter']}"),)
    member = (("authorization", f"Bearer {ROLE_KEYS['member']}"),)
    with grpc_channel(db) as channel:
        stub = pb_grpc.EnvironmentServiceStub(channel)
        same = pb.UpsertEnvironmentRequest(org="acme", name="prod", type="server",
                                           description="the real one", require_provenance=True)
        assert not stub.UpsertEnvironment(same, metadata=snapshotter, timeout=10).created
        with pytest.raises(grpc.RpcError) as refused:
            stub.UpsertEnvironment(pb.UpsertEnvironmentRequest(
                org="acme", name="old", type="server", description="the real one"),
                metadata=snapshotter, timeout=10)
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
        info, violations = details_of(refused.value)
        assert info.reason == "PRIVILEGE_REQUIRED" and violations == {}  # well formed: no BadRequest
        violations = dict(info.metadata)  # which fields, which privilege
        assert violations["archived"] == "changing it needs member privilege"
        assert set(violations) == {"archived", "privilege"}  # an unset optional: no change
        with pytest.raises(grpc.RpcError) as refused:
            stub.UpdateEnvironment(pb.UpdateEnvironmentRequest(
                org="acme", env_name="prod", policies=struct_pb2.ListValue()),
                metadata=member, timeout=10)
        assert refused.value.code() is grpc.StatusCode.PERMISSION_DENIED
        assert details_of(refused.value)[0].metadata["policies"] == "changing it needs admin privilege"
        assert _state(client) == before
        stub.UpsertEnvironment(pb.UpsertEnvironmentRequest(
            org="acme", name="old", type="server", description="back",
            require_provenance=True), metadata=member, timeout=10)
    assert [e for e in _state(client) if e["name"] == "old"][0]["archived"] is False
