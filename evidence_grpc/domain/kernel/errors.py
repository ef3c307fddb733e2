"""Typed domain errors. Each carries the gRPC status code it maps to, a stable reason (the
`google.rpc.ErrorInfo` reason: `FLOW_NOT_FOUND`, `PRIVILEGE_REQUIRED`, ...) and metadata naming
what it is about; one interceptor turns them into a status, and the REST shim turns that
status into an HTTP error body. docs/grpc.md lists the reasons."""

from __future__ import annotations

import grpc


class DomainError(Exception):
    code = grpc.StatusCode.INTERNAL
    reason = "INTERNAL"

    def __init__(self, message: str, errors: dict[str, str] | None = None, *,
                 reason: str | None = None, metadata: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors or None
        if reason is not None:
            self.reason = reason
        self.metadata = metadata or {}


class InvalidArgument(DomainError):
    """Bad input: INVALID_FIELD when it names the fields (a BadRequest lists them), else
    INVALID_REQUEST, unless a more specific reason is given."""

    code = grpc.StatusCode.INVALID_ARGUMENT

    def __init__(self, message: str, errors: dict[str, str] | None = None, *,
                 reason: str | None = None, metadata: dict[str, str] | None = None) -> None:
        super().__init__(message, errors, metadata=metadata,
                         reason=reason or ("INVALID_FIELD" if errors else "INVALID_REQUEST"))


class NotFound(DomainError):
    code = grpc.StatusCode.NOT_FOUND
    reason = "NOT_FOUND"


class AlreadyExists(DomainError):
    code = grpc.StatusCode.ALREADY_EXISTS
    reason = "ALREADY_EXISTS"


class FailedPrecondition(DomainError):
    code = grpc.StatusCode.FAILED_PRECONDITION
    reason = "FAILED_PRECONDITION"


class Unauthenticated(DomainError):
    code = grpc.StatusCode.UNAUTHENTICATED
    reason = "UNAUTHENTICATED"


class PermissionDenied(DomainError):
    code = grpc.StatusCode.PERMISSION_DENIED
    reason = "PERMISSION_DENIED"


class ResourceExhausted(DomainError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    reason = "RESOURCE_EXHAUSTED"


def permission_denied(errors: dict[str, str]) -> PermissionDenied:
    """What a caller without the privilege a call needs is answered: PRIVILEGE_REQUIRED, its
    metadata (not field violations: the request is well formed) saying which privilege and,
    for fields only some may change, which fields."""
    return PermissionDenied("You don't have permission to access this resource",
                            reason="PRIVILEGE_REQUIRED", metadata=errors)


def authentication_required() -> Unauthenticated:
    """What a call without (usable) credentials is answered, wherever it is refused."""
    return Unauthenticated("Authentication required: send 'Authorization: Bearer <API key>'",
                           reason="AUTHENTICATION_REQUIRED")


def validation_error(field: str, problem: str) -> InvalidArgument:
    """The contract's validation failure: a fixed message plus the offending field."""
    return InvalidArgument("Input payload validation failed", {field: problem})


def not_found(what: str, message: str, /, **names: object) -> NotFound:
    """A `what` (flow, trail, ...) that is not there: reason `<WHAT>_NOT_FOUND`, the names it
    was looked for by as metadata."""
    return NotFound(message, reason=f"{what.upper()}_NOT_FOUND",
                    metadata={key: str(value) for key, value in names.items()})


def already_exists(what: str, message: str, errors: dict[str, str] | None = None, /,
                   **names: object) -> AlreadyExists:
    """A `what` whose name is taken: reason `<WHAT>_ALREADY_EXISTS`, the names as metadata."""
    return AlreadyExists(message, errors, reason=f"{what.upper()}_ALREADY_EXISTS",
                         metadata={key: str(value) for key, value in names.items()})


# The hosted service's words for things that are not there (the CLI prints them as they are).

def flow_not_found(org_name: str, name: str) -> NotFound:
    return not_found("flow", f"Flow named '{name}' does not exist for organization '{org_name}'",
                     organization=org_name, flow=name)


def environment_not_found(org_name: str, name: str) -> NotFound:
    return not_found("environment", f"Environment named '{name}' does not exist for "
                     f"organization '{org_name}'", organization=org_name, environment=name)


def trail_not_found(org_name: str, flow_name: str, name: str) -> NotFound:
    return not_found("trail", f"Trail with name '{name}' does not exist for Organization "
                     f"'{org_name}' and Flow '{flow_name}'", organization=org_name,
                     flow=flow_name, trail=name)


def attestation_type_not_found(org_name: str, name: str) -> NotFound:
    return not_found("attestation_type", f"Custom attestation type '{name}' does not exist for "
                     f"org '{org_name}'", organization=org_name, attestation_type=name)


def artifact_not_in_trail(org_name: str, flow_name: str, trail_name: str,
                          fingerprint: str) -> NotFound:
    return not_found("artifact", f"Artifact with fingerprint {fingerprint} does not exist in "
                     f"trail \"{trail_name}\" of flow \"{flow_name}\" belonging to "
                     f"organization \"{org_name}\"", organization=org_name, flow=flow_name,
                     trail=trail_name, fingerprint=fingerprint)
