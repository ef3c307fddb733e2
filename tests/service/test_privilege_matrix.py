"""Every evidence.v2 RPC x every kind of caller x both doors (REST through the shim, network
gRPC), generated from the protobuf descriptors: a new RPC is covered without touching this file.

What it proves, per RPC and what it declares (`(privilege)`, `(http_options).anonymous`,
`(public_flow_read)`):
- a member of acme below the declared privilege is refused with exactly 403 /
  PERMISSION_DENIED, "You don't have permission to access this resource" and the `privilege`
  detail naming the role needed and the role the key has;
- a member at or above it is never refused (401/403) and the call never fails (no 5xx,
  INTERNAL, UNKNOWN): 400, 404, 409 and the like are fine, the requests are near empty;
- the same for a service account's key of each privilege (its privilege comes from the
  account, not a membership: another path through authentication);
- a web-page session opened with an admin's key acts as a reader: refused as a reader key is,
  naming reader, and never refused where a reader is not; one opened with that key for another
  organization of its user (acme-shared) is a foreign caller in acme;
- a call without credentials is exactly 401 / UNAUTHENTICATED "Authentication required", on a
  `(public_flow_read)` RPC too when the flow addressed is private; on a public flow, such an
  RPC answers it (and every other RPC naming that flow still answers 401);
- a key of another organization (a member's, a service account's) is exactly 403 /
  PERMISSION_DENIED "You do not have access to organization 'acme'" (no details; over REST,
  as the hosted service words it, "Access denied to <the request's path>") on every RPC
  whose request names an organization, public flows included; an RPC that names none answers
  such a key as acting in its own organization (never refused);
- an anonymous RPC answers every caller.

The expectations are read from the descriptors here, not through the auth interceptor's
reading of them, so an RPC whose enforcement drifts from what it declares fails. (What
`update_privilege` / `change_privilege` add for changing what exists is
tests/identity/test_change_privileges.py's: the requests here change nothing, so they are never refused
for it.)

One database per door and engine, seeded with a little (`seeded`, `callers`). The calls run in
a fixed order - reads, then writes, then what renames, archives, deletes or ends sessions -
callers in increasing privilege within an RPC (a privileged caller's write comes after the
refusals it could disturb), each RPC with a web session of its own (an admin's call may end
sessions); every failure is collected and asserted once at the end."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import grpc
import pytest
from flask.testing import FlaskClient
from google.protobuf import descriptor, message_factory, text_format
from google.protobuf.message import Message

from evidence_grpc.api.v2 import options_pb2
from evidence_grpc.domain.identity import web_sessions
from evidence_grpc.domain.identity.callers import hash_key
from evidence_grpc.services import method_path, service_descriptors
from evidence_grpc.storage import db as storage
from rest_shim.errors import HTTP_STATUS
from rest_shim.transcoder import Route, routes_of
from tests.conftest import ALICE_KEY, BOB_KEY, ROLE_KEYS, bearer, grpc_channel
from tests.helpers import PLAUSIBLE, details_of

FD = descriptor.FieldDescriptor
JSON = "application/json"
UPLOADED_FILE = "evidence.v2.UploadedFile"
ROLES = ("reader", "snapshotter", "member", "admin")  # options_pb2.Privilege 1..4
DENIED = "You don't have permission to access this resource"
FOREIGN = "You do not have access to organization 'acme'"
UNAUTHENTICATED = "Authentication required: send 'Authorization: Bearer <API key>'"
FAILED_CODES = ("INTERNAL", "UNKNOWN", "DATA_LOSS")
FINGERPRINT = "a" * 64
PUBLIC_FLOW = "pub"
# Method names whose calls may rename, archive, revoke, delete or end what later calls address.
DESTRUCTIVE = ("Rename", "Archive", "Unarchive", "Delete", "Revoke", "Rotate", "Detach", "End")

NO_KEY, FOREIGN_KEY, SESSION = "no key", "foreign key", "admin's web session"
FOREIGN_ACCOUNT = "foreign service account"
FOREIGN_SESSION = "admin's web session of acme-shared"
FOREIGN_CALLERS = (FOREIGN_KEY, FOREIGN_ACCOUNT, FOREIGN_SESSION)
SESSION_ORGS = {SESSION: "acme", FOREIGN_SESSION: "acme-shared"}  # where each was opened
# A caller: (label, authorization, privilege in acme: 0 for none).
Caller = tuple[str, str | None, int]


@dataclass(frozen=True)
class Rpc:
    method: descriptor.MethodDescriptor
    route: Route | None
    anonymous: bool
    public_flow_read: bool
    privilege: int  # as declared; 0 when it declares none (see the structural test)

    @property
    def names_org(self) -> bool:
        return "org" in self.method.input_type.fields_by_name

    @property
    def needed(self) -> int:
        """The least privilege to demand: admin where none is declared (auth.py's rule)."""
        return self.privilege or options_pb2.PRIVILEGE_ADMIN

    @property
    def path_values(self) -> dict[str, str]:
        """PLAUSIBLE's text of each path field of the route; else `1` for a number (a path
        value that does not parse is a 400 before any check of the caller), `x` for a string.
        Without a route, the organization alone."""
        if self.route is None:
            return {"org": "acme"} if self.names_org else {}
        fields = self.method.input_type.fields_by_name
        return {name: PLAUSIBLE.get(name, "x" if fields[name].type == FD.TYPE_STRING else "1")
                for name in sorted(self.route.path_fields)}


@dataclass(frozen=True)
class Case:
    """One caller of one RPC, and the path values its call carries."""
    caller: str
    authorization: str | None
    level: int
    path_values: dict[str, str]

    @property
    def label(self) -> str:
        public = " on a public flow" if self.path_values.get("flow_name") == PUBLIC_FLOW else ""
        return self.caller + public


@dataclass(frozen=True)
class Answer:
    """One call's outcome at either door: the HTTP status (the shim's table for a gRPC code),
    the gRPC code's name (empty over REST), the message and the field details."""
    status: int
    code: str
    message: str
    errors: dict[str, str]


def _order(rpc: Rpc) -> tuple[bool, bool, str]:
    write = rpc.route.http_method != "GET" if rpc.route else not rpc.method.name.startswith(
        ("Get", "List", "Stream"))
    return write, rpc.method.name.startswith(DESTRUCTIVE), rpc.method.full_name


def _rpcs() -> list[Rpc]:
    routes = {route.method.full_name: route for route in routes_of(service_descriptors())}
    # A server-streaming twin's REST door is its list's route, asked for no page.
    routes.update({route.stream.full_name: route for route in routes.values() if route.stream})
    rpcs = []
    for service in service_descriptors():
        for method in service.methods:
            options = method.GetOptions()
            rpcs.append(Rpc(method, routes.get(method.full_name),
                            options.Extensions[options_pb2.http_options].anonymous,
                            options.Extensions[options_pb2.public_flow_read],
                            options.Extensions[options_pb2.privilege]))
    return sorted(rpcs, key=_order)


RPCS = _rpcs()


def _cases(rpc: Rpc, callers: list[Caller]) -> list[Case]:
    """Every caller of the RPC, with web sessions of its own opened with admin's key (in acme
    and in acme-shared); where the path names a flow, the callers from outside acme (no key,
    foreign keys and session) address the public flow too, before the others call."""
    with storage.database.connection_context():
        opened = {caller: f"Session {web_sessions.open_session(hash_key(ALICE_KEY), org)}"
                  for caller, org in SESSION_ORGS.items()}
    values = rpc.path_values
    cases = [Case(caller, opened.get(caller, authorization), level, values)
             for caller, authorization, level in callers]
    if "flow_name" in values:
        public = {**values, "flow_name": PUBLIC_FLOW}
        outside = [Case(c.caller, c.authorization, 0, public) for c in cases
                   if c.caller in (NO_KEY, *FOREIGN_CALLERS)]
        cases[len(outside):len(outside)] = outside
    return cases


def _problem(rpc: Rpc, case: Case, answer: Answer, foreign: str = FOREIGN) -> str | None:
    """What is wrong with the answer to this case, or None (`foreign`: the refusal of a key of
    another organization, as the door words it)."""
    if answer.status >= 500 or answer.code in FAILED_CODES:
        return "failed"
    refused = answer.status in (401, 403)
    if rpc.anonymous:
        return "refused an anonymous RPC" if refused else None
    if case.caller == NO_KEY:
        if rpc.public_flow_read and case.path_values.get("flow_name") == PUBLIC_FLOW:
            return "refused a read of a public flow" if refused else None
        ok = (answer.status, answer.message) == (401, UNAUTHENTICATED)
        return None if ok else "expected 401 Authentication required"
    if case.caller in FOREIGN_CALLERS:
        if not rpc.names_org:  # nothing of acme's is addressed: the key acts as its own
            return "refused a call that names no organization" if refused else None
        ok = (answer.status, answer.message, answer.errors) == (403, foreign, {})
        return None if ok else f"expected 403 {foreign!r}"
    if case.level < rpc.needed:
        detail = {"privilege": f"needs {ROLES[rpc.needed - 1]} privilege in organization "
                               f"'acme', the key has {ROLES[case.level - 1]}"}
        if (answer.status, answer.message, answer.errors) != (403, DENIED, detail):
            return f"expected 403 {DENIED!r} {detail}"
        return None
    return "refused a caller with the privilege declared" if refused else None


# ---- REST ----------------------------------------------------------------------------------

def _url(route: Route, values: dict[str, str]) -> str:
    path = route.rule
    for name, value in values.items():
        quoted = quote(value, safe="")
        path = path.replace(f"<path:{name}>", quoted).replace(f"<{name}>", quoted)
    return path


def _multipart(route: Route) -> dict[str, Any] | None:
    """A multipart form for a route whose request takes uploaded files (the kosli CLI sends
    them so): a one-byte file in each file field, `{}` in each JSON one; None for others."""
    fields = [f for f in route.request_class.DESCRIPTOR.fields
              if f.type == FD.TYPE_MESSAGE and f.name not in route.path_fields]
    if not route.body or not any(f.message_type.full_name == UPLOADED_FILE for f in fields):
        return None
    return {f.name: (io.BytesIO(b"x"), "x.txt") if f.message_type.full_name == UPLOADED_FILE
            else "{}" for f in fields}


def _bodies(route: Route) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, open() arguments) of each body a route is sent: none without a body, else `{}`
    as JSON, and a fresh multipart form too where the route takes files."""
    if not route.body:
        yield "", {}
        return
    yield " {}", {"data": "{}", "content_type": JSON}
    form = _multipart(route)
    if form is not None:
        yield f" multipart {sorted(form)}", {"data": form, "content_type": "multipart/form-data"}


def _rest_answer(response: Any) -> Answer:
    body = response.get_json(silent=True)
    body = body if isinstance(body, dict) else {}
    message, errors = body.get("message"), body.get("errors")
    return Answer(response.status_code, "", message if isinstance(message, str) else "",
                  errors if isinstance(errors, dict) else {})


# ---- gRPC ----------------------------------------------------------------------------------

def _grpc_request(rpc: Rpc, values: dict[str, str]) -> Message:
    """The request message with the path values a REST call carries, typed."""
    request = message_factory.GetMessageClass(rpc.method.input_type)()
    for name, text in values.items():
        field = rpc.method.input_type.fields_by_name[name]
        setattr(request, name, text if field.type == FD.TYPE_STRING else int(text))
    return request


def _grpc_answer(error: grpc.RpcError) -> Answer:
    """Every refusal carries its rich status (details_of checks it). A privilege refusal says
    which privilege and fields in its ErrorInfo's metadata, with no field violations (the
    request is well formed); REST answers them as its `errors`."""
    code = error.code()
    info, errors = details_of(error)
    if info is not None and info.reason == "PRIVILEGE_REQUIRED":
        assert errors == {}, errors
        errors = dict(info.metadata)
    message = error.details() or ""
    return Answer(HTTP_STATUS.get(code, 500), code.name, message, errors)


@pytest.fixture
def seeded(client: FlaskClient) -> FlaskClient:
    """Flow f1 (private) and flow pub (public), each with trail t1; server environment e1 with
    one snapshot; control c1."""
    def send(method: str, path: str, body: dict[str, Any]) -> None:
        response = client.open(path, method=method, data=json.dumps(body), content_type=JSON,
                               headers=bearer())
        assert response.status_code < 300, response.get_data(as_text=True)

    for flow, visibility in (("f1", "private"), (PUBLIC_FLOW, "public")):
        send("PUT", "/api/v2/flows/acme", {"name": flow, "description": "",
                                           "visibility": visibility})
        trail = client.put(f"/api/v2/trails/acme/{flow}", content_type="multipart/form-data",
                           data={"data_json": json.dumps({"name": "t1"})}, headers=bearer())
        assert trail.status_code == 201, trail.get_data(as_text=True)
    send("PUT", "/api/v2/environments/acme", {"name": "e1", "type": "server", "description": ""})
    send("PUT", "/api/v2/environments/acme/e1/report/server", {"artifacts": [
        {"digests": {"app": FINGERPRINT}, "creationTimestamp": 1700000000}]})
    send("POST", "/api/v2/controls/acme", {"identifier": "c1", "name": "C"})
    return client


@pytest.fixture
def callers(seeded: FlaskClient) -> list[Caller]:
    """Every caller in increasing privilege (within an RPC, the callers that may write call
    last): none, foreign keys, members of each role with a service account of that privilege
    beside each, admin's web session beside the reader (its authorization opened per RPC)."""
    def account_key(org: str, name: str, privilege: str, key: str) -> str:
        base = f"/api/v2/service-accounts/{org}"
        made = seeded.post(base, headers=bearer(key), json={"name": name, "privilege": privilege})
        assert made.status_code == 201, made.get_data(as_text=True)
        minted = seeded.post(f"{base}/{name}/api-keys", headers=bearer(key),
                             json={"description": "privilege matrix"})
        assert minted.status_code == 201, minted.get_data(as_text=True)
        return f"Bearer {minted.get_json()['key']}"

    found: list[Caller] = [
        (NO_KEY, None, 0), (FOREIGN_KEY, f"Bearer {BOB_KEY}", 0),
        (FOREIGN_ACCOUNT, account_key("other", "matrix-foreign", "admin", BOB_KEY), 0),
        (FOREIGN_SESSION, None, 0)]
    for level, role in enumerate(ROLES, start=1):
        found.append((role, f"Bearer {ROLE_KEYS[role]}", level))
        found.append((f"{role} service account",
                      account_key("acme", f"matrix-{role}", role, ALICE_KEY), level))
        if role == "reader":
            found.append((SESSION, None, level))
    return found


# ---- the tests -----------------------------------------------------------------------------

def test_every_rpc_declares_a_privilege_or_is_anonymous() -> None:
    """options.proto: every RPC that is not anonymous declares its privilege (the interceptor
    would quietly demand admin of one that forgot), and each has the REST route the REST door
    sends it through; the matrix meets every privilege, anonymous and public-flow RPCs."""
    undeclared = [rpc.method.full_name for rpc in RPCS
                  if not rpc.anonymous and rpc.privilege not in range(1, len(ROLES) + 1)]
    assert not undeclared
    assert not [rpc.method.full_name for rpc in RPCS if rpc.route is None]
    assert {rpc.privilege for rpc in RPCS if not rpc.anonymous} == set(range(1, len(ROLES) + 1))
    assert any(rpc.anonymous for rpc in RPCS)
    assert all("flow_name" in rpc.path_values for rpc in RPCS if rpc.public_flow_read)


def test_the_privilege_matrix_over_rest(seeded: FlaskClient, callers: list[Caller]) -> None:
    failures: list[str] = []
    calls = 0
    for rpc in RPCS:
        if rpc.route is None:  # the structural test fails for it
            continue
        for case in _cases(rpc, callers):
            url = _url(rpc.route, case.path_values)
            headers = {} if case.authorization is None else {"Authorization": case.authorization}
            for body_label, body in _bodies(rpc.route):
                response = seeded.open(url, method=rpc.route.http_method, headers=headers,
                                       **body)
                calls += 1
                problem = _problem(rpc, case, _rest_answer(response),
                                   foreign=f"Access denied to {unquote(url)}")
                if problem:
                    failures.append(
                        f"{rpc.method.name} {rpc.route.http_method} {url}{body_label} as "
                        f"{case.label}: {problem}; got {response.status_code} "
                        f"{response.get_data()[:300].decode(errors='replace')!r}")
    assert calls >= len(RPCS) * len(callers)
    assert not failures, f"{len(failures)} of {calls} calls:\n" + "\n".join(failures)


def test_the_privilege_matrix_over_grpc(callers: list[Caller], db: str) -> None:
    failures: list[str] = []
    calls = 0
    with grpc_channel(db) as channel:
        for rpc in RPCS:
            call = (channel.unary_stream if rpc.method.server_streaming else channel.unary_unary)(
                method_path(rpc.method),
                request_serializer=message_factory.GetMessageClass(
                    rpc.method.input_type).SerializeToString,
                response_deserializer=message_factory.GetMessageClass(
                    rpc.method.output_type).FromString)
            for case in _cases(rpc, callers):
                request = _grpc_request(rpc, case.path_values)
                metadata = () if case.authorization is None else (
                    ("authorization", case.authorization),)
                try:
                    answer_of = call(request, metadata=metadata, timeout=30)
                    if rpc.method.server_streaming:
                        list(answer_of)
                    answer = Answer(200, "OK", "", {})
                except grpc.RpcError as error:
                    answer = _grpc_answer(error)
                calls += 1
                problem = _problem(rpc, case, answer)
                if problem:
                    failures.append(
                        f"{method_path(rpc.method)} "
                        f"{{{text_format.MessageToString(request, as_one_line=True)}}} as "
                        f"{case.label}: {problem}; got {answer}")
    assert calls >= len(RPCS) * len(callers)
    assert not failures, f"{len(failures)} of {calls} calls:\n" + "\n".join(failures)
