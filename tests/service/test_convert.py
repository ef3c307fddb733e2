"""`convert.to_message`: views filled into messages by a plan per type give exactly the message
protobuf's JSON mapping gives, and values the plan cannot take as they are still convert."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from evidence_grpc.api.v2 import environment_service_pb2, trail_service_pb2
from evidence_grpc.convert import to_message

TRAIL = {
    "name": "t1", "description": "", "unknown_key": {"dropped": True},
    "git_commit_info": {"sha1": "a" * 40, "message": "m", "author": "A <a@x>", "branch": "main",
                        "timestamp": 1700000000.5, "url": None, "parents": ["b" * 40]},
    "origin_url": None, "user_data": None, "repo_ids": ["42"], "last_modified_at": 1.5,
    "created_at": 1, "compliance_state": "COMPLIANT", "is_compliant": True,
    "compliance_status": {"status": "COMPLIANT", "is_compliant": None, "attestations_statuses": [
        {"attestation_name": "unit", "attestation_type": "junit", "status": "COMPLETE",
         "is_compliant": True, "unexpected": False}],
        "artifacts_statuses": {"backend": {"artifact_fingerprint": "f" * 64, "status": "MISSING",
                                           "attestations_statuses": []}}},
    "template": {"version": 1, "trail": {"attestations": [], "artifacts": [
        {"name": "backend", "attestations": [{"name": "unit", "type": "*"}]}]},
        "content": "version: 1\n"},
    "events": [{"type": "trail_reported", "timestamp": 2.5, "git_commit_info": None,
                "nested": {"list": [1, "two", None, {"three": 3.0}]}}],
    "created_by": "alice", "flow": {"name": "f", "tags": {"team": "a"}},
    "external_urls": {"ci": {"href": "https://ci", "fingerprint": None}}, "html_url": "http://h",
}


@pytest.mark.parametrize("view, message_class", [
    (TRAIL, trail_service_pb2.Trail),
    ({**TRAIL, "user_data": {"free": ["form", 1, True, None]}}, trail_service_pb2.Trail),
    ({**TRAIL, "user_data": "text"}, trail_service_pb2.Trail),
    ({"name": "prod", "type": "K8S", "tags": {"a": "b"}, "last_reported_at": None,
      "state": False, "policies": ["p1", "p2"]}, environment_service_pb2.Environment),
])
def test_same_message_as_the_json_mapping(view: dict[str, Any], message_class: type) -> None:
    expected = json_format.ParseDict(view, message_class(), ignore_unknown_fields=True)
    built = to_message(view, message_class)
    assert built == expected
    assert built.SerializeToString(deterministic=True) == \
        expected.SerializeToString(deterministic=True)


def test_values_the_plan_cannot_take_go_through_the_json_mapping() -> None:
    # text in number fields: the JSON mapping converts it, as it always did
    built = to_message({"name": "t", "created_at": "12.5", "is_compliant": True},
                       trail_service_pb2.Trail)
    assert (built.created_at, built.is_compliant) == (12.5, True)
    with pytest.raises(json_format.ParseError):
        to_message({"name": "t", "created_at": "soon"}, trail_service_pb2.Trail)


def test_a_null_value_field_is_set_to_null_not_left_unset() -> None:
    built = to_message({"name": "t", "user_data": None}, trail_service_pb2.Trail)
    assert built.HasField("user_data")
    assert built.user_data.WhichOneof("kind") == "null_value"
