"""Every route of the transcoder, sent hostile but ordinary requests: a foreign organization's
key, no key, non-finite / huge / Unicode-digit numbers in each path and query value, control
characters in names. Each answer is a 4xx with the contract's error body (or, where the value
is a legitimate string, a success with strict JSON) - never a 500.

The routes come from the descriptors, so a new route is covered without touching this file."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor

from evidence_grpc.api.v2 import flow_service_pb2 as flow_pb
from evidence_grpc.api.v2 import flow_service_pb2_grpc as flow_grpc
from tests.conftest import BOB_KEY, bearer, grpc_channel
from tests.helpers import FD, JSON, ROUTES, check_answer, placements_of, send_to_route
from tests.helpers import seeded as seeded  # noqa: F401 - fixture

NUMBER_TYPES = {FD.CPPTYPE_INT32, FD.CPPTYPE_INT64, FD.CPPTYPE_UINT32, FD.CPPTYPE_UINT64,
                FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT}
# Numbers no field may take: non-finite, beyond int64, and digits int() and isdigit() accept
# beyond ASCII (superscript two, Arabic-Indic, fullwidth).
HOSTILE_NUMBERS = ["NaN", "nan", "Infinity", "-inf", str(10**30), "99999999999999999999",
                   "-99999999999999999999", "\u00b2", "\u0661\u0662", "\uff11\uff12"]
# The same inside the strings the domain parses as numbers (snapshot expressions, intervals,
# flow ids, relative times).
HOSTILE_EMBEDDED = ["#99999999999999999999", "~99999999999999999999", "1..99999999999999999999",
                    "99999999999999999999..1", "@{99999999999999999999.days.ago}",
                    "99999999999999999999 days", "#\u00b2", "1..\u0661"]
CONTROL = ["e1\n", "e1\r\n", "x\x00y", "x\ty", "x\x7f", "x\x85"]


def _is_number(field: descriptor.FieldDescriptor) -> bool:
    return field.cpp_type in NUMBER_TYPES


def test_every_route_refuses_a_foreign_key_and_a_missing_key(seeded: Any) -> None:
    failures: list[str] = []
    for route in ROUTES:
        if route.options.anonymous:
            continue
        if "org" in route.path_fields:
            response, label = send_to_route(seeded, route, headers=bearer(BOB_KEY))
            check_answer(response, label, refused=True, failures=failures)
            if response.status_code != 403:
                failures.append(f"{label} with a foreign key -> {response.status_code}")
        response, label = send_to_route(seeded, route, headers={})
        check_answer(response, label, refused=True, failures=failures)
        if response.status_code != 401:
            failures.append(f"{label} without a key -> {response.status_code}")
    assert not failures, "\n".join(failures)


def test_every_route_refuses_hostile_numbers(seeded: Any) -> None:
    """Numeric fields must refuse every hostile number (400); string fields may take the text
    as a string but must never fail on it, also where the domain parses it as a number."""
    failures: list[str] = []
    for route in ROUTES:
        for field, place in placements_of(route):
            values = HOSTILE_NUMBERS + ([] if _is_number(field) else HOSTILE_EMBEDDED)
            for value in values:
                where = place(value)
                if "body" in where and _is_number(field) and value.isascii() and value.isdigit():
                    where = place(10**30)  # a JSON number, where JSON has them
                response, label = send_to_route(seeded, route, **where)
                check_answer(response, label, refused=_is_number(field), failures=failures)
                if _is_number(field) and field.name not in str(response.get_json()):
                    failures.append(f"{label}: the error does not name {field.name}")
    assert not failures, "\n".join(failures)


def test_every_route_refuses_control_characters_in_names(seeded: Any) -> None:
    """Control characters in a path value (a name) are never found or stored; in query and
    body strings they may match nothing, but never fail."""
    failures: list[str] = []
    for route in ROUTES:
        for field, place in placements_of(route):
            if field.type != FD.TYPE_STRING:
                continue
            for value in CONTROL:
                response, label = send_to_route(seeded, route, **place(value))
                check_answer(response, label, refused=field.name in route.path_fields,
                       failures=failures)
    assert not failures, "\n".join(failures)


def test_nul_in_body_text_is_refused(seeded: Any) -> None:
    """PostgreSQL stores NUL neither in text nor in jsonb: typed strings (request interceptor)
    and free-form keys and values (convert.plain_data) with NUL are a 400 naming the field."""
    artifact = {"digests": {"app": "b" * 64}, "creationTimestamp": 1}
    cases = [
        ("PUT", "/api/v2/environments/acme/e1/report/server",
         {"artifacts": [{**artifact, "digests": {"app\x00": "b" * 64}}]}, "report"),
        ("PUT", "/api/v2/environments/acme/e1/report/server",
         {"artifacts": [{**artifact, "podName": "p\x00"}]}, "report"),
        ("POST", "/api/v2/artifacts/acme/f1",
         {"fingerprint": "c" * 64, "filename": "a\x00b", "trail_name": "t1"}, "artifact"),
        ("PATCH", "/api/v2/environments/acme/e1", {"description": "x\x00y"}, "description"),
        ("PUT", "/api/v2/allowlists/acme/e1", {"artifact_fingerprint": "d" * 64,
                                               "artifact_name": "x", "description": "\x00"},
         "description"),
    ]
    for method, path, body, field in cases:
        response = seeded.open(path, method=method, data=json.dumps(body), content_type=JSON,
                               headers=bearer())
        assert response.status_code == 400, (path, response.get_data(as_text=True))
        assert field in response.get_json()["errors"], (path, response.get_json())


def test_callers_are_refused_before_their_requests_content(seeded: Any, db: str) -> None:
    """A caller without a key, or with a foreign one, hears 401 / 403 before anything about
    its request's content (issue 47, item 4): every route, each of its query and body fields
    sent a value no field takes. Over gRPC, too: a foreign key's request with a value the
    server refuses is refused for the key."""
    failures: list[str] = []
    tried = 0
    for route in ROUTES:
        if route.options.anonymous:
            continue
        for field, place in placements_of(route):
            if field.name in route.path_fields:
                continue
            callers = [({}, 401)] + ([(bearer(BOB_KEY), 403)] if "org" in route.path_fields
                                     else [])
            for headers, status in callers:
                response, label = send_to_route(seeded, route, headers=headers,
                                                **place({"not": "a scalar"}))
                tried += 1
                if response.status_code != status:
                    failures.append(f"{label} as {headers or 'nobody'} -> "
                                    f"{response.status_code} {response.get_data()[:200]!r}")
    assert tried > 300 and not failures, f"{len(failures)} of {tried}:\n" + "\n".join(failures)
    with grpc_channel(db) as channel:
        stub = flow_grpc.FlowServiceStub(channel)
        for metadata, code in (((), grpc.StatusCode.UNAUTHENTICATED),
                               ((("authorization", f"Bearer {BOB_KEY}"),),
                                grpc.StatusCode.PERMISSION_DENIED)):
            with pytest.raises(grpc.RpcError) as refused:
                stub.UpsertFlow(flow_pb.UpsertFlowRequest(org="acme", name="x\x00y",
                                                          visibility="nonsense"),
                                metadata=metadata, timeout=10)
            assert refused.value.code() is code
