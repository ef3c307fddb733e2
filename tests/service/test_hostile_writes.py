"""Every accepted value stays readable (issue 30): hostile values are written through every
write route of the transcoder — each string field, and each free-form field (Struct, maps) —
and then every read of the organization, REST and web page, must answer without a 5xx. A write
may refuse a value (a 4xx) or take it; what it takes must never break a later read.

The routes come from the descriptors and the pages from the app's URL map, so a new route or
page is covered without touching this file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from google.protobuf import descriptor

from tests.conftest import bearer
from tests.helpers import (
    FD,
    PLAUSIBLE,
    ROUTES,
    Placement,
    check_answer,
    placements_of,
    seeded,  # noqa: F401 - the fixture, used by name
    send_to_route,
    sign_in,
)

# Text the reads parse or render: broken URLs (urllib.parse refuses them when splitting, or
# when reading host or port), links that are no http(s), markup, a template, a regex bomb,
# right-to-left override, a long value.
HOSTILE_TEXT = ["http://[::1", "http://[::1/", "http://h:99999/x", "javascript:alert(1)",
                "<script>alert(1)</script>{{7*7}}", "(a+)+$\u202e", "x" * 20_000]
# Free-form values: nulls, numbers no integer field can carry, empty and dotted keys, nesting.
HOSTILE_DATA: list[Any] = [
    None, 1e19, -1e30, 1.7e308, ["http://[::1", None, {"": None}],
    {"a.b": None, "": [1, "x"], "n": 1e19, "u": "http://[::1"},
    json.loads("[" * 60 + "]" * 60)]
# Valid writes of the evidence a pipeline sends, each leaf of which is made hostile in turn (a
# free-form field's values are checked against the contract's schemas, which the descriptors
# do not know).
REPO = {"id": "r1", "name": "acme/r", "url": "https://git.example/r", "provider": "github"}
COMMIT = {"sha1": "b" * 40, "message": "m", "author": "a <a@x>", "branch": "main",
          "timestamp": 1700000000, "url": "https://git.example/c"}
LINKS = {"docs": {"href": "https://docs.example/d", "display": "Docs"}}
EVIDENCE: list[tuple[str, str, dict[str, Any]]] = [
    ("PUT", "/api/v2/flows/acme", {"name": "f2", "description": "d", "visibility": "private",
                                   "repo_url": "https://git.example/r", "tags": {"k": "v"}}),
    ("PUT", "/api/v2/trails/acme/f1", {"data_json": {
        "name": "t2", "description": "d", "origin_url": "https://ci.example/1",
        "repo_info": REPO, "git_commit_info": COMMIT, "external_urls": LINKS,
        "user_data": {"k": "v"}}}),
    ("POST", "/api/v2/artifacts/acme/f1", {
        "fingerprint": "c" * 64, "filename": "app", "trail_name": "t1", "git_commit": "b" * 40,
        "build_url": "https://ci.example/1", "commit_url": "https://git.example/c",
        "repo_url": "https://git.example/r", "git_commit_info": COMMIT, "annotations": {"k": "v"},
        "external_urls": LINKS, "repo_info": REPO}),
    ("POST", "/api/v2/attestations/acme/f1/trail/t1/generic", {"data_json": {
        "attestation_name": "g", "is_compliant": True, "annotations": {"k": "v"},
        "user_data": {"k": "v"}, "origin_url": "https://ci.example/1",
        "git_commit_info": COMMIT, "external_urls": LINKS, "repo_info": REPO}}),
    ("PUT", "/api/v2/environments/acme/e1/report/server", {"artifacts": [
        {"digests": {"app": "d" * 64}, "creationTimestamp": 1700000000}]}),
    ("PUT", "/api/v2/environments/acme", {"name": "e2", "type": "K8S", "description": "d",
                                          "tags": {"k": "v"}}),
    ("PUT", "/api/v2/allowlists/acme/e1", {"artifact_fingerprint": "d" * 64,
                                           "artifact_name": "x", "description": "d"}),
]
FREE_FORM = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}


def _free_form(route: Any) -> Iterator[tuple[descriptor.FieldDescriptor, Placement]]:
    """Each free-form field (Struct, Value, a map) a request's JSON body carries, and where."""
    request = route.request_class.DESCRIPTOR
    if not route.body:
        return
    if route.body == "*":
        fields = request.fields
    else:
        body = request.fields_by_name[route.body].message_type
        if body.full_name in FREE_FORM:
            yield request.fields_by_name[route.body], lambda value: {"body": value}
            return
        fields = body.fields
    for field in fields:
        if field.type == FD.TYPE_MESSAGE and (field.message_type.full_name in FREE_FORM
                                              or field.message_type.GetOptions().map_entry):
            yield field, (lambda name: lambda value: {"body": {name: value}})(field.name)


def _leaves(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, value) of a JSON document, containers included."""
    if path:
        yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, (*path, i))


def _with(document: Any, path: tuple, value: Any) -> Any:
    """`document` with the value at `path` replaced, built anew."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(document, list):
        return [_with(item, rest, value) if i == head else item for i, item in enumerate(document)]
    return {**document, head: _with(document[head], rest, value)}


def _pages(client: Any) -> list[str]:
    """Every page of the web app (GET rules outside /api), with the seeded things' names."""
    values = {**PLAUSIBLE, "flow": "f1", "trail": "t1", "env": "e1", "index": "1",
              "repo": "acme/r", "attestation_id": "x"}
    pages = []
    for rule in client.application.url_map.iter_rules():
        if "GET" not in rule.methods or rule.rule.startswith(("/api/", "/static")) or \
                rule.endpoint.startswith("_"):
            continue
        path = rule.rule
        for name in rule.arguments:
            path = path.replace(f"<int:{name}>", values.get(name, "1")).replace(
                f"<path:{name}>", values.get(name, "x")).replace(f"<{name}>", values.get(name, "x"))
        pages.append(path)
    return sorted(pages)


def _reads(client: Any) -> list[str]:
    """What every read of the organization answers, where it is a 5xx."""
    failures: list[str] = []
    for route in ROUTES:
        if route.http_method == "GET":
            response, label = send_to_route(client, route)
            if response.mimetype == "application/json":  # (audit packages are archives)
                check_answer(response, label, refused=False, failures=failures)
            elif response.status_code >= 500:
                failures.append(f"{label} -> {response.status_code}")
    sign_in(client)
    for page in _pages(client):
        response = client.get(page)
        if response.status_code >= 500:
            failures.append(f"page {page} -> {response.status_code}")
    return failures


def test_no_value_a_write_takes_breaks_a_read(seeded: Any) -> None:  # noqa: F811
    write_failures: list[str] = []
    writes = [r for r in ROUTES if r.http_method != "GET"]
    for route in writes:
        placements = [(f, place, HOSTILE_TEXT) for f, place in placements_of(route)
                      if f.type == FD.TYPE_STRING and f.name not in route.path_fields]
        placements += [(f, place, HOSTILE_DATA) for f, place in _free_form(route)]
        for _, place, values in placements:
            for value in values:
                response, label = send_to_route(seeded, route, **place(value))
                check_answer(response, label[:300], refused=False, failures=write_failures)
    for method, path, body in EVIDENCE:
        for where, value in _leaves(body):
            hostile = (HOSTILE_TEXT if isinstance(value, str) else []) + HOSTILE_DATA
            for bad in hostile:
                response = seeded.open(path, method=method, data=json.dumps(_with(body, where, bad)),
                                       content_type="application/json", headers=bearer())
                check_answer(response, f"{method} {path} {where}={str(bad)[:40]!r}", refused=False,
                       failures=write_failures)
    assert not write_failures, "\n".join(write_failures)
    failures = _reads(seeded)
    assert not failures, "\n".join(failures)
