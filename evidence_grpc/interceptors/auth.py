"""Authentication and organization access for every evidence.v2 call.

The key comes from `authorization` metadata (Bearer or Basic); a request message with an `org`
field is refused unless the key may act in that organization, and any request unless the
caller's privilege there is at least the method's `(privilege)` option (a method that declares
none needs admin). Methods marked `(http_options).anonymous` skip this; those marked
`(public_flow_read)` answer a call without credentials for the organization's public flows.

The web pages' sessions (domain.web_sessions) go through here too: a page's call carries
`authorization: Session <id>`, authenticated as the key the session was opened with; the
sign-in check opens one (`x-evidence-session-open: <id>` on a call its key passed) and
sign-out ends one (`x-evidence-session-end: <id>`: the call does nothing else)."""

from __future__ import annotations

import functools
from typing import Any

import grpc

from ..domain import organizations, service_accounts, web_sessions
from ..domain.errors import PermissionDenied, Unauthenticated
from .base import Behavior, UnaryInterceptor, method_descriptor


@functools.cache
def _declared(method: str) -> tuple[bool, bool, int]:
    """(anonymous, public_flow_read, least privilege: admin when none is declared) of a method,
    from its options."""
    from ..api.v2 import options_pb2

    options = method_descriptor(method).GetOptions()
    return (options.Extensions[options_pb2.http_options].anonymous,
            options.Extensions[options_pb2.public_flow_read],
            options.Extensions[options_pb2.privilege] or options_pb2.PRIVILEGE_ADMIN)


def _metadata(context: grpc.ServicerContext, name: str) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == name:
            return value
    return None


def _authorization(context: grpc.ServicerContext) -> str | None:
    return _metadata(context, "authorization")


class AuthInterceptor(UnaryInterceptor):
    def around(self, behavior: Behavior, request: Any, context: grpc.ServicerContext,
               method: str) -> Any:
        ended = _metadata(context, web_sessions.END_METADATA)
        if ended:
            web_sessions.end_session(ended)
            raise Unauthenticated("Signed out")
        anonymous, public_flow_read, required = _declared(method)
        if anonymous:
            return behavior(request, context)
        org = getattr(request, "org", None) if "org" in request.DESCRIPTOR.fields_by_name else None
        header = _authorization(context)
        if header is None and org and public_flow_read:
            caller = organizations.anonymous_caller(org)
        else:
            # The in-process calls of one HTTP request (a web page's) share the authentication
            # of their key; a revoked key is refused from the next request on. Network calls
            # have no such memo: each is authenticated.
            kept = getattr(context, "authenticated", None)
            caller = kept.get((header, org)) if kept is not None else None
            if caller is None:
                caller = organizations.authenticate(header, org)
                if kept is not None:
                    kept[(header, org)] = caller
        if caller.privilege < required:
            needed = service_accounts.PRIVILEGES[required - 1]
            raise PermissionDenied(
                "You don't have permission to access this resource",
                {"privilege": f"needs {needed} privilege in organization "
                              f"'{caller.org.name if caller.organization else org}', the key has "
                              f"{service_accounts.PRIVILEGES[caller.privilege - 1]}"})
        token = organizations.set_current_caller(caller)
        try:
            answer = behavior(request, context)
        finally:
            organizations.reset_current_caller(token)
        opened = _metadata(context, web_sessions.OPEN_METADATA)
        if opened and org and header and web_sessions.session_id_of(header) is None:
            web_sessions.open_session(opened, organizations.hash_key(
                organizations.key_from_authorization(header)), org)
        return answer
