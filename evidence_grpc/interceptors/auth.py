"""Authentication and organization access for every evidence.v2 call.

The key comes from `authorization` metadata (Bearer or Basic); a request message with an `org`
field is refused unless the key may act in that organization, and any request unless the
caller's privilege there is at least the method's `(privilege)` option (a method that declares
none needs admin); what changing an existing resource needs, where an RPC declares more for it
(`update_privilege`, a field's `change_privilege`), is handed to the domain
(domain.change_privileges), which alone knows what a call would change. Methods marked
`(http_options).anonymous` skip this; those marked `(public_flow_read)` answer a call without
credentials for the organization's public flows.

The web pages' sessions (domain.web_sessions) go through here too: a page's call carries
`authorization: Session <id>`, authenticated as the key the session was opened with, in the
organization it was opened for; the sign-in check opens one (`x-evidence-session-open` on a
call its key passed: the server makes the id and answers it in the trailing metadata
`x-evidence-session-id`) and sign-out ends one (`x-evidence-session-end` on a call
authenticated by that session: the call does nothing else).

A call with `x-evidence-check-caller` (CHECK_METADATA) is checked and not served: its refusal,
or an empty answer when the caller may make it. The shim sends one with the path's values
before it refuses a request's content, so that a caller without credentials or with a foreign
key hears 401/403 first, never what its request should have been. A call without credentials
a public flow's read may answer is served, as it only reads: whether it sees that flow is the
read's to say."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import grpc
from google.protobuf import descriptor, message_factory

from ..domain.identity import callers, change_privileges, organizations, service_accounts, web_sessions
from ..domain.kernel.errors import Unauthenticated, permission_denied
from .base import Behavior, UnaryInterceptor, method_descriptor

CHECK_METADATA = "x-evidence-check-caller"


@functools.cache
def _declared(method: str) -> tuple[bool, bool, int]:
    """(anonymous, public_flow_read, least privilege: admin when none is declared) of a method,
    from its options."""
    from ..api.v2 import options_pb2

    options = method_descriptor(method).GetOptions()
    return (options.Extensions[options_pb2.http_options].anonymous,
            options.Extensions[options_pb2.public_flow_read],
            options.Extensions[options_pb2.privilege] or options_pb2.PRIVILEGE_ADMIN)


@functools.cache
def _change_rules(method: str) -> change_privileges.ChangeRules | None:
    """What changing an existing resource through the method needs, from its
    `update_privilege` option and its request fields' `change_privilege`; None when it
    declares neither (its `privilege` suffices for all it does)."""
    from ..api.v2 import options_pb2

    found = method_descriptor(method)
    fields = {f.name: f.GetOptions().Extensions[options_pb2.change_privilege]
              for f in found.input_type.fields}
    fields = {name: needed for name, needed in fields.items() if needed}
    update = found.GetOptions().Extensions[options_pb2.update_privilege]
    if not update and not fields:
        return None
    return change_privileges.ChangeRules(update or _declared(method)[2], fields)


def _empty_answer(method: str) -> Any:
    return message_factory.GetMessageClass(method_descriptor(method).output_type)()


def _metadata(context: grpc.ServicerContext) -> dict[str, str]:
    """The call's metadata, read once: the first value of each key."""
    found: dict[str, str] = {}
    for key, value in context.invocation_metadata() or ():
        found.setdefault(key, value)
    return found


class AuthInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        metadata = _metadata(context)
        caller = _admitted(request, context, method, metadata)
        if caller is None:
            return behavior(request, context)
        if CHECK_METADATA in metadata and not caller.anonymous:
            return _empty_answer(method)
        with _Acting(caller, method):
            answer = behavior(request, context)
        header = metadata.get("authorization")
        org = _org_of(request)
        if web_sessions.OPEN_METADATA in metadata and org and header \
                and web_sessions.session_id_of(header) is None:
            opened = web_sessions.open_session(callers.hash_key(
                organizations.key_from_authorization(header)), org)
            context.set_trailing_metadata((*(context.trailing_metadata() or ()),
                                           (web_sessions.ID_METADATA, opened)))
        return answer

    def around_stream(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
                      method: str) -> Iterator[Any]:
        """The caller is admitted before the first answer and acts until the last; a checked
        call (CHECK_METADATA) answers nothing."""
        metadata = _metadata(context)
        caller = _admitted(request, context, method, metadata)
        if caller is None:
            yield from behavior(request, context)
        elif caller.anonymous or CHECK_METADATA not in metadata:
            with _Acting(caller, method):
                yield from behavior(request, context)


def _org_of(request: Any) -> str | None:
    return request.org if _names_org(request.DESCRIPTOR) else None


@functools.cache
def _names_org(message: descriptor.Descriptor) -> bool:
    """Whether a request of that type names an organization (looked up once per type)."""
    return "org" in message.fields_by_name


def _admitted(request: Any, context: grpc.ServicerContext, method: str,
              metadata: dict[str, str]) -> callers.Caller | None:
    """The caller of the call, refused (raised) unless it may make it; None for a method that
    needs no credentials."""
    header = metadata.get("authorization")
    if web_sessions.END_METADATA in metadata:
        _sign_out(header)
    anonymous, public_flow_read, required = _declared(method)
    if anonymous:
        return None
    org = _org_of(request)
    if header is None and org and public_flow_read:
        caller = callers.anonymous_caller(org)
    else:
        # The in-process calls of one HTTP request (a web page's) share the authentication
        # of their key; a revoked key is refused from the next request on. Network calls
        # have no such memo: each is authenticated.
        kept = getattr(context, "authenticated", None)
        remembered = kept.get((header, org)) if kept is not None else None
        if remembered is not None:
            caller = remembered
        else:
            caller = organizations.authenticate(header, org)
            if kept is not None:
                kept[(header, org)] = caller
    if caller.privilege < required:
        raise permission_denied({"privilege": (
            f"needs {service_accounts.privilege_name(required)} privilege in organization "
            f"'{caller.org.name if caller.organization else org}', the key has "
            f"{service_accounts.privilege_name(caller.privilege)}")})
    return caller


class _Acting:
    """The caller current, and what changing a resource through the method needs declared. A
    class, not a generator's context manager, which every call would pay several times over."""

    __slots__ = ("caller", "method", "tokens")

    def __init__(self, caller: callers.Caller, method: str) -> None:
        self.caller, self.method = caller, method

    def __enter__(self) -> None:
        self.tokens = (callers.set_current_caller(self.caller),
                       change_privileges.declare(_change_rules(self.method)))

    def __exit__(self, *exc_info: object) -> None:
        caller, rules = self.tokens
        change_privileges.reset(rules)
        callers.reset_current_caller(caller)


def _sign_out(header: str | None) -> None:
    """End the session the call is authenticated by (and nothing else): an unknown, ended or
    refused session, or another credential, ends nothing."""
    session_id = web_sessions.session_id_of(header)
    if session_id is None:
        raise Unauthenticated("Signing out needs the session (authorization: Session <id>)",
                              reason="SESSION_INVALID")
    organizations.authenticate(header, None)
    web_sessions.end_session(session_id)
    raise Unauthenticated("Signed out", reason="SESSION_ENDED")
