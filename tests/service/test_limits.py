"""Every size has a limit (issue 47, item 5): each string, list, map and free-form document of
every write request, enumerated from the descriptors, is refused one past its limit (the table
in domain/kernel/limits.py) through both doors, REST (400) and gRPC (INVALID_ARGUMENT with a
BadRequest), naming the field, and is not refused for its size at the limit. docs/limits.md
is the table rendered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import grpc
import pytest
from google.protobuf import descriptor, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from evidence_grpc.domain.kernel import limits
from evidence_grpc.interceptors.database import is_write
from evidence_grpc.services import method_path, service_descriptors
from rest_shim.transcoder import Route, routes_of
from tests.conftest import ALICE_KEY, ROOT, bearer, grpc_channel
from tests.helpers import PLAUSIBLE

FD = descriptor.FieldDescriptor
# Refused before the servicer: nothing reaches storage, so one engine tells.
SQLITE = pytest.mark.parametrize("engine", ["sqlite"], indirect=True)
DOCUMENTS = {"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"}
WRITES = [m for s in service_descriptors() for m in s.methods if is_write(method_path(m))]
ROUTE_OF = {route.method.full_name: route for route in reversed(routes_of(service_descriptors()))}


@dataclass(frozen=True)
class Case:
    """One field of one write request set one past its limit (`over`) or at it."""
    method: descriptor.MethodDescriptor
    path: str  # in the table's terms: dotted, a map's values as `.value`
    shown: str  # the field an error names
    limit: limits.Limit
    kind: str  # "string", "items", "key", "document", "depth", "document-key"

    def __str__(self) -> str:
        return f"{self.method.name}:{self.shown}:{self.kind}"

    def request(self, over: bool) -> Message:
        size = self.limit.most + over
        message = _message_class(self.method)()
        target, names = message, self.path.split(".")
        for name in names[:-1]:
            if name == "value":  # into the entry "k" of the map just reached
                target = target["k"]
                continue
            field = target.DESCRIPTOR.fields_by_name[name]
            if field.message_type is not None and field.message_type.GetOptions().map_entry:
                target = getattr(target, name)
            elif field.is_repeated:
                target = getattr(target, name).add()
            else:
                target = getattr(target, name)
        last = names[-1]
        if self.kind == "document-key":
            keys = last.split("/")
            _fill(target, keys, "x" * size)
        elif last == "value":
            target["k"] = "x" * size
        else:
            field = target.DESCRIPTOR.fields_by_name[last]
            value = getattr(target, last)
            if self.kind == "items" and field.message_type is not None and \
                    field.message_type.GetOptions().map_entry:
                for index in range(size):
                    _set_entry(value, f"k{index}")
            elif self.kind == "items" and field.message_type is not None:
                for _ in range(size):
                    value.add()
            elif self.kind == "items":
                value.extend(["x"] * size)
            elif self.kind == "key":
                _set_entry(value, "k" * size)
            elif self.kind in ("document", "depth"):
                document = value.add() if field.is_repeated else value
                _document(document, size, self.kind)
            elif field.is_repeated:
                value.append("x" * size)
            else:
                setattr(target, last, "x" * size)
        return message


def _message_class(method: descriptor.MethodDescriptor) -> type[Message]:
    return message_factory.GetMessageClass(method.input_type)


def _set_entry(mapping: Any, key: str) -> None:
    if hasattr(mapping, "get_or_create"):
        mapping.get_or_create(key)
    else:
        mapping[key] = "v"


def _fill(struct: Any, keys: list[str], text: str) -> None:
    for key in keys[:-1]:
        struct = struct.get_or_create_struct(key)
    struct[keys[-1]] = text


def _document(document: Message, size: int, kind: str) -> None:
    """A document of `size` characters of keys and strings, or nested `size` levels deep."""
    in_list = document.DESCRIPTOR.full_name == "google.protobuf.ListValue"
    if kind == "document":
        value: Any = {"k": "x" * (size - 1)}
    else:
        value = {}
        for _ in range(size - 1 - in_list):
            value = {"k": value}
    json_format.ParseDict([value] if in_list else value, document)


def _cases_of(method: descriptor.MethodDescriptor, message: descriptor.Descriptor,
              path: str, shown: str) -> Iterator[Case]:
    root = method.input_type.name
    for field in message.fields:
        where, named = path + field.name, shown + field.name
        entry = field.message_type is not None and field.message_type.GetOptions().map_entry
        if field.is_repeated:
            yield Case(method, where, named, limits.items_limit(root, where), "items")
        if entry:
            yield Case(method, where, named, limits.string_limit(root, where + ".key"), "key")
            value = field.message_type.fields_by_name["value"]
            if value.type == FD.TYPE_STRING:
                yield Case(method, where + ".value", f"{named}.k",
                           limits.string_limit(root, where + ".value"), "string")
            elif value.message_type is not None:
                yield from _cases_of(method, value.message_type, where + ".value.", f"{named}.k.")
            continue
        item = f"{named}[0]" if field.is_repeated else named
        if field.type == FD.TYPE_STRING:
            yield Case(method, where, item, limits.string_limit(root, where), "string")
        elif field.message_type is not None and field.message_type.full_name in DOCUMENTS:
            yield Case(method, where, item, limits.document_limit(root, where), "document")
            yield Case(method, where, item, limits.DEPTH, "depth")
        elif field.message_type is not None:
            yield from _cases_of(method, field.message_type, where + ".", item + ".")


# The keys the contract defines in evidence documents (limits.DOCUMENT_KEYS), those the issue
# names first: an attestation's name, an artifact's file name, a commit message.
DOCUMENT_KEY_CASES = [
    ("CreateAttestation", "data_json", "attestation_name"),
    ("CreateAttestation", "data_json", "git_commit_info/message"),
    ("OverrideAttestation", "data_json", "attestation_name"),
    ("ReportArtifact", "artifact", "filename"),
    ("ReportArtifact", "artifact", "build_url"),
    ("CreateAttestationType", "data_json", "name"),
]
_BY_NAME = {method.name: method for method in WRITES}


def _document_key_case(method: str, document: str, keys: str) -> Case:
    write = _BY_NAME[method]
    limit = limits.key_limit(write.input_type.name, document, tuple(keys.split("/")))
    assert limit is not None
    return Case(write, f"{document}.{keys}", f"{document}.{keys.replace('/', '.')}", limit,
                "document-key")


# `org` is resolved by authentication first: an organization no caller belongs to is refused
# before any value is looked at (and organizations are made by bootstrap, never by a write).
CASES = [case for method in WRITES for case in _cases_of(method, method.input_type, "", "")
         if case.path != "org"] + [_document_key_case(*keys) for keys in DOCUMENT_KEY_CASES]


def test_every_write_has_its_fields_enumerated():
    assert len(WRITES) >= 40
    named = {(case.method.name, case.shown) for case in CASES}
    for expected in [("UpsertEnvironment", "name"), ("UpdateTags", "set_tags.k"),
                     ("UpdateTags", "set_tags"), ("UpsertFlow", "description"),
                     ("CreateAttestation", "data_json.attestation_name"),
                     ("ReportArtifact", "artifact.filename"), ("BeginTrail", "data_json.user_data"),
                     ("CreateApproval", "approvals[0].comment")]:
        assert expected in named


# ---- gRPC ----------------------------------------------------------------------------------

AUTH = (("authorization", f"Bearer {ALICE_KEY}"),)


def _call(channel: grpc.Channel, case: Case, over: bool) -> grpc.RpcError | None:
    call = channel.unary_unary(method_path(case.method),
                               request_serializer=lambda m: m.SerializeToString(),
                               response_deserializer=lambda b: b)
    try:
        call(case.request(over), metadata=AUTH, timeout=60)
    except grpc.RpcError as error:
        return error
    return None


def _violations(error: grpc.RpcError) -> dict[str, str]:
    status = rpc_status.from_call(error)
    found: dict[str, str] = {}
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            found.update({v.field: v.description for v in bad.field_violations})
    return found


SIZE_WORDS = ("at most", "deeper than")


@SQLITE
def test_grpc_refuses_one_past_every_limit_and_takes_the_limit(db):
    failures = []
    with grpc_channel(db) as channel:
        for case in CASES:
            error = _call(channel, case, over=True)
            violations = _violations(error) if error is not None else {}
            if error is None or error.code() != grpc.StatusCode.INVALID_ARGUMENT or \
                    not any(w in violations.get(case.shown, "") for w in SIZE_WORDS):
                failures.append(f"{case} over: {error and error.code()} {violations}")
            error = _call(channel, case, over=False)
            if error is not None and (error.code() in (grpc.StatusCode.INTERNAL,
                                                       grpc.StatusCode.UNKNOWN) or
                                      any(w in text for text in _violations(error).values()
                                          for w in SIZE_WORDS)):
                failures.append(f"{case} at the limit: {error.code()} {error.details()}")
    assert not failures, "\n".join(failures)


# ---- REST ----------------------------------------------------------------------------------

def _rest(client: Any, route: Route, message: Message) -> Any:
    data = json_format.MessageToDict(message, preserving_proto_field_name=True)
    path = route.rule
    for name in route.path_fields:
        value = quote(str(data.pop(name, PLAUSIBLE.get(name, "x"))), safe="")
        path = path.replace(f"<path:{name}>", value).replace(f"<{name}>", value)
    if route.body and route.body != "*":
        data = data.get(route.body, {})
    if not route.body:
        return client.open(path + "?" + "&".join(f"{k}={quote(str(v))}" for k, v in data.items()),
                           method=route.http_method, headers=bearer())
    return client.open(path, method=route.http_method, data=json.dumps(data),
                       content_type="application/json", headers=bearer())


@SQLITE
def test_rest_refuses_one_past_every_limit(client):
    failures = []
    for case in CASES:
        route = ROUTE_OF[case.method.full_name]
        response = _rest(client, route, case.request(over=True))
        body = response.get_json(silent=True) or {}
        errors = body.get("errors") or {}
        # (the shim measures a document's depth while decoding it, naming the key it decodes)
        said = str(errors) if case.kind == "depth" else str(errors.get(case.shown, ""))
        if response.status_code != 400 or not any(w in said for w in SIZE_WORDS):
            failures.append(f"{case}: {response.status_code} {str(body)[:300]}")
    assert not failures, "\n".join(failures)


@SQLITE
def test_a_form_field_beyond_the_form_limit_names_the_limit(client):
    """A multipart field (data_json) larger than the form field limit: 413 saying the limit."""
    big = json.dumps({"name": "t", "user_data": {"k": "x" * (1024 * 1024)}})
    response = client.put("/api/v2/trails/acme/f1", data={"data_json": big},
                          content_type="multipart/form-data", headers=bearer())
    assert response.status_code == 413
    assert response.get_json()["message"] == ("A form field is larger than 1048576 bytes (or "
                                              "the form has more than 1000 parts)")


@SQLITE
def test_tags_do_not_accumulate_past_the_resource_limit(client, db):
    """Fifty tags a call, but at most RESOURCE_TAGS on one resource over all calls, REST and
    gRPC alike; a resource that is full may still change and remove its tags."""
    from evidence_grpc.api.v2 import tag_service_pb2

    assert client.put("/api/v2/flows/acme", json={"name": "f1", "description": ""},
                      headers=bearer()).status_code == 201
    most = limits.RESOURCE_TAGS.most

    def tag(keys: range, **extra: Any) -> Any:
        return client.patch("/api/v2/tags/acme/flow/f1", headers=bearer(),
                            json={"set_tags": {f"k{i}": "v" for i in keys}, **extra})

    for start in range(0, most, limits.TAGS.most):
        assert tag(range(start, start + limits.TAGS.most)).status_code == 200
    refused = tag(range(most, most + 1))
    assert refused.status_code == 400
    assert f"at most {most} tags" in refused.get_json()["errors"]["set_tags"]
    with grpc_channel(db) as channel:
        call = channel.unary_unary("/evidence.v2.TagService/UpdateTags",
                                   request_serializer=lambda m: m.SerializeToString(),
                                   response_deserializer=lambda b: b)
        try:
            call(tag_service_pb2.UpdateTagsRequest(org="acme", resource_type="flow",
                                                   resource_id="f1", set_tags={"new": "v"}),
                 metadata=AUTH, timeout=60)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert f"at most {most} tags" in _violations(error)["set_tags"]
        else:
            raise AssertionError("a tag past the resource limit was taken over gRPC")
    assert tag(range(1), remove_tags=["k1"]).status_code == 200  # a full resource still changes
    assert tag(range(most, most + 1), remove_tags=["k2"]).status_code == 200


# ---- the documentation -----------------------------------------------------------------------

LIMITS_DOC = ROOT / "docs" / "limits.md"
BEGIN, END = "<!-- limits table: begin -->", "<!-- limits table: end -->"


def rendered_table() -> str:
    """docs/limits.md's table, from limits.py."""
    table = [(name, value) for name, value in vars(limits).items()
             if isinstance(value, limits.Limit)]
    named = {id(limit): name for name, limit in table}
    rows = ["| Limit | At most | Why |", "|---|---|---|"]
    rows += [f"| `{name}` | {limit.most:,} {limit.unit} | {limit.why} |" for name, limit in table]
    rows += ["", "| Field name | Limit |", "|---|---|"]
    rows += [f"| `{field}` | `{named[id(limit)]}` |" for field, limit in limits.BY_NAME.items()]
    rows.append(f"| `*{limits.URL_SUFFIX}` | `URL` |")
    rows += ["", "| Field (request message and path) | Limit |", "|---|---|"]
    rows += [f"| `{field}` | `{named[id(limit)]}` |" for field, limit in limits.BY_PATH.items()]
    rows += ["", "Documents whose keys are held to the limits of their names (top level and "
             f"in {', '.join(f'`{o}`' for o in sorted(limits.DOCUMENT_OBJECTS))}): "
             + ", ".join(f"`{d}`" for d in sorted(limits.DOCUMENT_KEYS)) + "."]
    return "\n".join(rows)


def test_the_documented_table_is_the_table():
    text = LIMITS_DOC.read_text()
    documented = text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip()
    assert documented == rendered_table(), (
        f"docs/limits.md is out of date; its table should read:\n{rendered_table()}")


def test_the_readme_links_the_limits():
    assert "docs/limits.md" in (ROOT / "README.md").read_text()

