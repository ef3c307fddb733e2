"""Typed domain errors. Each carries the gRPC status code it maps to; one interceptor turns
them into a status, and the REST shim turns that status into an HTTP error body."""

from __future__ import annotations

import grpc


class DomainError(Exception):
    code = grpc.StatusCode.INTERNAL
    reason = "INTERNAL"

    def __init__(self, message: str, errors: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors or None


class InvalidArgument(DomainError):
    code = grpc.StatusCode.INVALID_ARGUMENT
    reason = "INVALID_ARGUMENT"


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
    """What a caller without the privilege a call needs is answered, `errors` saying which."""
    return PermissionDenied("You don't have permission to access this resource", errors)


def authentication_required() -> Unauthenticated:
    """What a call without (usable) credentials is answered, wherever it is refused."""
    return Unauthenticated("Authentication required: send 'Authorization: Bearer <API key>'")


def validation_error(field: str, problem: str) -> InvalidArgument:
    """The contract's validation failure: a fixed message plus the offending field."""
    return InvalidArgument("Input payload validation failed", {field: problem})


# The hosted service's words for things that are not there (the CLI prints them as they are).

def flow_not_found(org_name: str, name: str) -> NotFound:
    return NotFound(f"Flow named '{name}' does not exist for organization '{org_name}'")


def environment_not_found(org_name: str, name: str) -> NotFound:
    return NotFound(f"Environment named '{name}' does not exist for organization '{org_name}'")


def trail_not_found(org_name: str, flow_name: str, name: str) -> NotFound:
    return NotFound(f"Trail with name '{name}' does not exist for Organization '{org_name}' "
                    f"and Flow '{flow_name}'")


def attestation_type_not_found(org_name: str, name: str) -> NotFound:
    return NotFound(f"Custom attestation type '{name}' does not exist for org '{org_name}'")


def artifact_not_in_trail(org_name: str, flow_name: str, trail_name: str,
                          fingerprint: str) -> NotFound:
    return NotFound(f"Artifact with fingerprint {fingerprint} does not exist in trail "
                    f"\"{trail_name}\" of flow \"{flow_name}\" belonging to organization "
                    f"\"{org_name}\"")
