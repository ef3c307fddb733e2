"""Custom attestation types: a JSON Schema for the attestation data plus jq rules. Every change
is a new version; attestations are validated and judged by the newest one."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from ...api.v2 import views
from ...storage.db import locked, now, retry_on_conflict, write_transaction
from ...storage.models import AttestationType, AttestationTypeVersion, Organization, User
from ..kernel import contract, sandbox
from ..kernel.errors import (
    InvalidArgument,
    missing,
    validation_error,
)
from ..kernel.names import check_name
from . import rules
from .leaves import log_attestation_type


def _check_schema(text: str | None) -> dict[str, Any] | bool | None:
    """The type's JSON Schema: an object or boolean, of a draft jsonschema knows (its `$schema`,
    else 2020-12), referring to nothing outside itself (validation never fetches)."""
    if text is None:
        return None
    try:
        return _schema_of(text)
    except RecursionError:
        raise validation_error("type_schema", "Nested too deeply") from None


def _schema_of(text: str) -> dict[str, Any] | bool:
    try:
        schema = json.loads(text)
    except ValueError as exc:
        raise validation_error("type_schema", f"Not valid JSON: {exc}") from None
    if not isinstance(schema, dict | bool):
        raise validation_error("type_schema", "A JSON Schema must be an object or a boolean")
    draft = rules.validator_class(schema)
    if draft is None:
        declared = schema.get("$schema") if isinstance(schema, dict) else None
        raise validation_error("type_schema", f"Unsupported $schema '{declared}'")
    try:
        draft.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise validation_error("type_schema", f"Not a valid JSON Schema: {exc.message}") from None
    remote = rules.non_local_refs(schema)
    if remote:
        raise validation_error("type_schema", "Only references within the schema ('#...') are "
                               f"allowed; $ref '{remote[0]}' points outside it")
    return schema


def _compile(rule: str, field: str) -> None:
    try:
        rules.compiled(rule)
    except ValueError as exc:
        raise validation_error(field, f"Invalid jq expression '{rule}': {exc}") from None


def create_type(org: Organization, user: User, data: dict[str, Any], schema_text: str | None
                ) -> tuple[AttestationType, bool]:
    """Create the type, or add a version to it (bringing it back from the archive)."""
    contract.validate("post_custom_attestation_type", data)
    name = check_name("name", data["name"])
    schema = _check_schema(schema_text)
    evaluator = data.get("evaluator") or {"content_type": "default"}
    for rule in evaluator.get("rules", []):
        _compile(rule, "evaluator.rules")
    for item in data.get("summary") or []:
        _compile(item["expression"], "summary")

    def write() -> tuple[AttestationType, bool]:
        with write_transaction():
            stamp = now()
            type_, created = AttestationType.get_or_create(
                organization=org, name=name,
                defaults={"created_by": user.name, "created_at": stamp, "last_modified_at": stamp})
            type_ = locked(type_)  # one new version at a time
            latest = (AttestationTypeVersion.select().where(AttestationTypeVersion.type == type_)
                      .order_by(AttestationTypeVersion.version.desc()).first())
            version = AttestationTypeVersion.create(
                type=type_, version=(latest.version + 1) if latest else 1,
                description=data.get("description") or "", comment=data.get("comment") or "",
                type_schema=schema, evaluator=evaluator, summary=data.get("summary"),
                created_by=user.name, timestamp=stamp)
            type_.archived = False
            type_.last_modified_at = stamp
            type_.save()
            log_attestation_type(org, type_, version)
            return type_, created

    return retry_on_conflict(write)


def find_type(org: Organization, name: str) -> AttestationType:
    type_ = AttestationType.get_or_none((AttestationType.organization == org)
                                        & (AttestationType.name == name))
    if type_ is None:
        raise missing("attestation_type", organization=org.name, attestation_type=name)
    return type_


def _versions(type_: AttestationType) -> list[AttestationTypeVersion]:
    """Newest first, as the hosted service answers (the Terraform provider reads the first as
    the latest; the CLI counts them)."""
    return list(AttestationTypeVersion.select().where(AttestationTypeVersion.type == type_)
                .order_by(AttestationTypeVersion.version.desc()))


def type_view(type_: AttestationType, org_name: str, version: int | None = None
              ) -> views.AttestationType:
    """The type as the hosted service shows it: an empty description or comment is left out,
    and one version (`NAME@vN`) comes without the type's own history fields."""
    versions = _versions(type_)
    if version is not None:
        versions = [v for v in versions if v.version == version]
        if not versions:
            raise missing("attestation_type_version", attestation_type=type_.name,
                          version=version)
    view: views.AttestationType = {"name": type_.name}
    description = versions[0].description if versions else ""
    if description:
        view["description"] = description
    view.update({"org": org_name, "archived": type_.archived})
    if version is None:
        view.update({"created_by": type_.created_by, "created_at": type_.created_at,
                     "last_modified_at": type_.last_modified_at})
    view["versions"] = [_version_view(v) for v in versions]
    return view


def _version_view(version: AttestationTypeVersion) -> views.AttestationTypeVersion:
    view: views.AttestationTypeVersion = {"version": version.version}
    if version.comment:
        view["comment"] = version.comment
    view.update({"timestamp": version.timestamp, "created_by": version.created_by,
                 "type_schema": version.type_schema, "evaluator": version.evaluator,
                 "summary": version.summary})
    return view


def list_types(org: Organization) -> list[AttestationType]:
    return list(AttestationType.select().where((AttestationType.organization == org)
                                               & (AttestationType.archived == False))  # noqa: E712
                .order_by(AttestationType.name))


def archive_type(org: Organization, name: str) -> AttestationType:
    with write_transaction():
        type_ = locked(find_type(org, name))
        type_.archived = True
        type_.last_modified_at = now()
        type_.save()
        log_attestation_type(org, type_)
        return type_


def judge(org: Organization, name: str, attestation_data: Any) -> tuple[bool, dict[str, Any]]:
    """Validate data against the newest version of the type and run its jq rules:
    (compliant, summary). Data failing the schema is refused, not judged."""
    type_ = find_type(org, name)
    if type_.archived:
        raise InvalidArgument(f"Custom attestation type '{name}' is archived",
                              reason="ATTESTATION_TYPE_ARCHIVED", metadata={"attestation_type": name})
    if isinstance(attestation_data, str):
        try:
            attestation_data = json.loads(attestation_data)
        except ValueError as exc:
            raise validation_error("attestation_data", f"Not valid JSON: {exc}") from None
    latest = _versions(type_)[0]
    # The type's schema and jq rules are the user's code: they run in the sandbox.
    errors, failed, values = sandbox.run(
        rules.evaluate, latest.type_schema, (latest.evaluator or {}).get("rules", []),
        latest.summary or [], attestation_data,
        first_step=("attestation_data", f"Custom attestation type '{name}'"),
        organization=org.name)
    if errors:
        raise InvalidArgument("Attestation data does not match the type's schema", errors,
                              reason="SCHEMA_MISMATCH")
    return not failed, {"type_version": latest.version, "failed_rules": failed, **values}
