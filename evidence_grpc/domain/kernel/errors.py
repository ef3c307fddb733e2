"""Typed domain errors. Each carries the gRPC status code it maps to, a stable reason (the
`google.rpc.ErrorInfo` reason: `FLOW_NOT_FOUND`, `PRIVILEGE_REQUIRED`, ...) and metadata naming
what it is about; one interceptor turns them into a status, and the REST shim turns that
status into an HTTP error body. docs/grpc.md lists the reasons."""

from __future__ import annotations

from typing import Literal

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


# The hosted service's words for what is not there, one table for every kind: the resource a
# kind is about (its reason is `<RESOURCE>_NOT_FOUND`) and the wording, filled with the names
# it was looked for by (which also become the error's metadata). The CLI prints the wording as
# it is, so each kind is worded once, here, and raised with `missing`.
MissingKind = Literal["flow", "environment", "trail", "attestation_type",
                      "attestation_type_version", "artifact_in_trail", "artifact_in_flow",
                      "artifact_in_org", "artifact_of_commit", "attestation_in_trail", "policy",
                      "policies", "control", "control_version", "decision", "repo", "schema",
                      "evidence_file", "deployment"]
NOT_FOUND_WORDINGS: dict[str, tuple[str, str]] = {
    "flow": ("flow", "Flow named '{flow}' does not exist for organization '{organization}'"),
    "environment": ("environment", "Environment named '{environment}' does not exist for "
                    "organization '{organization}'"),
    "trail": ("trail", "Trail with name '{trail}' does not exist for Organization "
              "'{organization}' and Flow '{flow}'"),
    "attestation_type": ("attestation_type", "Custom attestation type '{attestation_type}' "
                         "does not exist for org '{organization}'"),
    "attestation_type_version": ("attestation_type_version", "version {version} does not exist "
                                 "for custom attestation type '{attestation_type}'"),
    "artifact_in_trail": ("artifact", "Artifact with fingerprint {fingerprint} does not exist "
                          "in trail \"{trail}\" of flow \"{flow}\" belonging to organization "
                          "\"{organization}\""),
    "artifact_in_flow": ("artifact", "Artifact with fingerprint '{fingerprint}' does not exist "
                         "in flow '{flow}' belonging to organization '{organization}'"),
    "artifact_in_org": ("artifact", "Artifact with fingerprint '{fingerprint}' does not exist "
                        "in organization '{organization}'"),
    "artifact_of_commit": ("artifact", "No artifacts for commit '{commit}' in flow '{flow}' "
                           "belonging to organization '{organization}'"),
    "attestation_in_trail": ("attestation", "Attestation '{attestation}' not found in trail "
                             "'{trail}'"),
    "policy": ("policy", "Policy '{policy}' does not exist in organization '{organization}'"),
    "policies": ("policy", "Policies {policies} do not exist in organization "
                 "'{organization}'"),
    "control": ("control", "Control '{control}' does not exist in organization "
                "'{organization}'"),
    "control_version": ("control_version", "Version {version} of control '{control}' does not "
                        "exist"),
    "decision": ("decision", "Decision '{decision}' of control '{control}' does not exist"),
    "repo": ("repo", "Repo '{repo}' not found"),
    "schema": ("schema", "Schema '{kind}/{version}' not found"),
    "evidence_file": ("evidence_file", "No evidence file for attestation '{attestation_id}'"),
    "deployment": ("deployment", "No deployment of artifact '{fingerprint}' to environment "
                   "'{environment}'"),
}


def missing(kind: MissingKind, /, **names: object) -> NotFound:
    """The NotFound for a `kind` of thing (see NOT_FOUND_WORDINGS) looked for by `names`."""
    what, wording = NOT_FOUND_WORDINGS[kind]
    return not_found(what, wording.format(**names), **names)
