"""Every route of the transcoder, sent hostile but ordinary requests: a foreign organization's
key, no key, non-finite / huge / Unicode-digit numbers in each path and query value, control
characters in names. Each answer is a 4xx with the contract's error body (or, where the value
is a legitimate string, a success with strict JSON) - never a 500.

The routes come from the descriptors, so a new route is covered without touching this file."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from google.protobuf import descriptor

from evidence_grpc.services import service_descriptors
from rest_shim.transcoder import Route, routes_of
from tests.conftest import BOB_KEY, bearer

FD = descriptor.FieldDescriptor
JSON = "application/json; charset=utf-8"
# Reads first, renames and archives last: a write may rename or archive the seeded things,
# and the reads should meet them as seeded.
ROUTES = sorted(routes_of(service_descriptors()), key=lambda route: (
    route.http_method != "GET", route.rule.endswith(("/rename", "/archive"))))
FINGERPRINT = "a" * 64

# Path values naming things the fixture creates (a 404 is as good an answer as any, but
# existing things let the values reach the domain code that parses them).
PLAUSIBLE = {"org": "acme", "flow_name": "f1", "trail_name": "t1", "env_name": "e1",
             "snapshot_expression": "1", "type": "server", "kind": "generic",
             "resource_type": "flow", "resource_id": "f1", "fingerprint": FINGERPRINT,
             "search_value": FINGERPRINT, "commit_sha": "b" * 40, "approval_number": "1",
             "identifier": "c1", "version_number": "1", "action_number": "1",
             "notification_number": "1", "key_id": "k1", "name": "sa1"}
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


def _fail_constant(name: str) -> Any:
    raise ValueError(f"{name} in a response body")


def _check(response: Any, label: str, *, refused: bool, failures: list[str]) -> None:
    """Record what is wrong with an answer: a 5xx, a body that is not strict JSON, an error
    without its message, or a success where the value had to be refused."""
    text = response.get_data(as_text=True)
    problem = None
    if response.status_code >= 500:
        problem = "server error"
    elif refused and response.status_code < 400:
        problem = "accepted"
    elif response.mimetype == "application/json":
        try:
            body = json.loads(text, parse_constant=_fail_constant)
        except ValueError as exc:
            problem = f"not strict JSON ({exc})"
        else:
            if response.status_code >= 400 and not (
                    isinstance(body, dict) and isinstance(body.get("message"), str)):
                problem = "error without message"
    elif response.status_code >= 400:
        problem = "error not JSON"
    if problem:
        failures.append(f"{label} -> {response.status_code} {problem}: {text[:200]!r}")


def _path(route: Route, values: dict[str, str]) -> str:
    path = route.rule
    for name in route.path_fields:
        value = quote(values.get(name, PLAUSIBLE.get(name, "x")), safe="")
        path = path.replace(f"<path:{name}>", value).replace(f"<{name}>", value)
    return path


def _send(client: Any, route: Route, path_values: dict[str, str] | None = None,
          query: dict[str, str] | None = None, body: dict[str, Any] | None = None,
          headers: dict[str, str] | None = None) -> tuple[Any, str]:
    url = _path(route, path_values or {})
    if query:
        url += "?" + urlencode(query)
    data = json.dumps(body) if body is not None else ("null" if route.body else None)
    response = client.open(url, method=route.http_method, data=data, content_type=JSON,
                           headers=bearer() if headers is None else headers)
    return response, f"{route.http_method} {url} {data or ''}"


Placement = Callable[[Any], dict[str, Any]]  # a value -> the _send arguments that carry it
_NOT_SCALAR_BODY = {"google.protobuf.Struct", "google.protobuf.Value", "evidence.v2.UploadedFile"}


def _scalars(message: descriptor.Descriptor) -> list[descriptor.FieldDescriptor]:
    return [f for f in message.fields if f.type not in (FD.TYPE_MESSAGE, FD.TYPE_BYTES)]


def _placements(route: Route) -> Iterator[tuple[descriptor.FieldDescriptor, Placement]]:
    """Each scalar field a request can set, and where it goes: the path, the query string, the
    JSON body, or a message one level down in the body (data_json and the like)."""
    def at(kind: str, *names: str) -> Placement:
        def place(value: Any) -> dict[str, Any]:
            for name in reversed(names):
                value = {name: value}
            return {kind: value}
        return place

    request = route.request_class.DESCRIPTOR
    if route.body and route.body != "*":  # the JSON body is that field's message
        body_type = request.fields_by_name[route.body].message_type
        if body_type.full_name not in _NOT_SCALAR_BODY:
            yield from ((f, at("body", f.name)) for f in _scalars(body_type))
    for field in request.fields:
        if field.name in route.path_fields:
            yield field, at("path_values", field.name)
        elif field.type not in (FD.TYPE_MESSAGE, FD.TYPE_BYTES):
            if not route.body:
                yield field, at("query", field.name)
            elif route.body == "*":
                yield field, at("body", field.name)
        elif route.body == "*" and field.message_type.full_name not in _NOT_SCALAR_BODY and \
                not field.message_type.GetOptions().map_entry:
            yield from ((f, at("body", field.name, f.name)) for f in _scalars(field.message_type))


def _is_number(field: descriptor.FieldDescriptor) -> bool:
    return field.cpp_type in NUMBER_TYPES


@pytest.fixture
def seeded(client: Any) -> Any:
    """Flow f1 with trail t1, server environment e1 with one snapshot, and control c1."""
    def put(path: str, body: dict[str, Any]) -> None:
        response = client.put(path, data=json.dumps(body), content_type=JSON, headers=bearer())
        assert response.status_code < 300, response.get_data(as_text=True)

    put("/api/v2/flows/acme", {"name": "f1", "description": ""})
    assert client.put("/api/v2/trails/acme/f1", data={"data_json": json.dumps({"name": "t1"})},
                      content_type="multipart/form-data", headers=bearer()).status_code == 201
    put("/api/v2/environments/acme", {"name": "e1", "type": "server", "description": ""})
    put("/api/v2/environments/acme/e1/report/server", {"artifacts": [
        {"digests": {"app": FINGERPRINT}, "creationTimestamp": 1700000000}]})
    assert client.post("/api/v2/controls/acme", data=json.dumps({"identifier": "c1", "name": "C"}),
                       content_type=JSON, headers=bearer()).status_code == 201
    return client


def test_every_route_refuses_a_foreign_key_and_a_missing_key(seeded: Any) -> None:
    failures: list[str] = []
    for route in ROUTES:
        if route.options.anonymous:
            continue
        if "org" in route.path_fields:
            response, label = _send(seeded, route, headers=bearer(BOB_KEY))
            _check(response, label, refused=True, failures=failures)
            if response.status_code != 403:
                failures.append(f"{label} with a foreign key -> {response.status_code}")
        response, label = _send(seeded, route, headers={})
        _check(response, label, refused=True, failures=failures)
        if response.status_code != 401:
            failures.append(f"{label} without a key -> {response.status_code}")
    assert not failures, "\n".join(failures)


def test_every_route_refuses_hostile_numbers(seeded: Any) -> None:
    """Numeric fields must refuse every hostile number (400); string fields may take the text
    as a string but must never fail on it, also where the domain parses it as a number."""
    failures: list[str] = []
    for route in ROUTES:
        for field, place in _placements(route):
            values = HOSTILE_NUMBERS + ([] if _is_number(field) else HOSTILE_EMBEDDED)
            for value in values:
                where = place(value)
                if "body" in where and _is_number(field) and value.isascii() and value.isdigit():
                    where = place(10**30)  # a JSON number, where JSON has them
                response, label = _send(seeded, route, **where)
                _check(response, label, refused=_is_number(field), failures=failures)
                if _is_number(field) and field.name not in str(response.get_json()):
                    failures.append(f"{label}: the error does not name {field.name}")
    assert not failures, "\n".join(failures)


def test_every_route_refuses_control_characters_in_names(seeded: Any) -> None:
    """Control characters in a path value (a name) are never found or stored; in query and
    body strings they may match nothing, but never fail."""
    failures: list[str] = []
    for route in ROUTES:
        for field, place in _placements(route):
            if field.type != FD.TYPE_STRING:
                continue
            for value in CONTROL:
                response, label = _send(seeded, route, **place(value))
                _check(response, label, refused=field.name in route.path_fields,
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
