"""`convert.to_message`: views filled into messages by a plan per type give exactly the message
protobuf's JSON mapping gives, and values the plan cannot take as they are still convert."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import json_format

from evidence_grpc.api.v2 import environment_service_pb2, trail_service_pb2
from evidence_grpc.convert import Encoded, serialize, to_message

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


def _trail(name: str, events: int) -> trail_service_pb2.Trail:
    return trail_service_pb2.Trail(name=name, description=f"about {name}", events=[
        trail_service_pb2.TrailEvent(type="trail_updated", timestamp=float(n)) for n in range(events)])


@pytest.mark.parametrize("paged", [False, True])
def test_an_encoded_list_is_sent_and_rendered_as_its_parsed_message_would_be(paged):
    """A list answer handed over in wire form (its items' kept encodings) is, on the wire, the
    message with those items, and its REST JSON is that message's: the bare list unpaged, the
    whole answer with its pagination when paged."""
    from evidence_grpc.api.v2 import common_pb2
    from rest_shim.transcoder import render, routes_of

    items = [_trail(f"t{n}", n) for n in range(4)]
    head = trail_service_pb2.ListTrailsResponse()
    if paged:
        head.pagination.CopyFrom(common_pb2.Pagination(total=4, page=1, per_page=10, page_count=1))
    encoded = Encoded(trail_service_pb2.ListTrailsResponse, head.SerializeToString(), "data",
                      [item.SerializeToString() for item in items])
    expected = trail_service_pb2.ListTrailsResponse(data=items, pagination=head.pagination
                                                    if paged else None)
    assert trail_service_pb2.ListTrailsResponse.FromString(serialize(encoded)) == expected
    assert encoded.message() == expected
    assert serialize(expected) == expected.SerializeToString()

    service = trail_service_pb2.DESCRIPTOR.services_by_name["TrailService"]
    route = next(r for r in routes_of([service]) if r.method.name == "ListFlowTrails")
    assert render(route, encoded).get_data() == render(route, expected).get_data()
    body = json.loads(render(route, encoded).get_data())
    assert (body["data"] if paged else body)[3]["name"] == "t3"


def test_an_encoded_answer_renders_as_its_message():
    from rest_shim.transcoder import render, routes_of

    trail = _trail("solo", 3)
    service = trail_service_pb2.DESCRIPTOR.services_by_name["TrailService"]
    route = next(r for r in routes_of([service]) if r.method.name == "GetTrail")
    encoded = Encoded(trail_service_pb2.Trail, trail.SerializeToString())
    assert serialize(encoded) == trail.SerializeToString()
    assert render(route, encoded).get_data() == render(route, trail).get_data()
    assert json.loads(render(route, encoded).get_data())["name"] == "solo"
