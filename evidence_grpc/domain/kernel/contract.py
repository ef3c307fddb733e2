"""Validation of request payloads against the contract's published JSON Schemas.

`contract-schemas.json` holds the body schema of each operation, extracted from the operations
catalog by `scripts/extract_contract_schemas.py`."""

from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Callable
from typing import Any

import fastjsonschema
import jsonschema

from .errors import InvalidArgument
from .names import schema_error_message, whole_string_patterns
from .numbers import TIMESTAMP_MARK, bounded_integers, bounded_timestamps

SCHEMAS_PATH = pathlib.Path(__file__).with_name("contract-schemas.json")

_GIT_COMMIT = {"type": ["object", "null"], "required": ["sha1"],
               "properties": {"timestamp": {"type": ["number", "null"]}}}
_FINDINGS = {"anyOf": [{"type": "array", "items": {
    "type": "object", "required": ["id", "message"],
    "properties": {"id": {"type": "string"}, "message": {"type": "string"},
                   "locations": {"type": "array"},
                   "priority_score": {"type": ["number", "null"]}}}}, {"type": "null"}]}

# An attestation's annotations are a map of string to string (its message's, and what the CLI's
# `--annotate key=value` sends); the catalog types only the values of keys its pattern matches.
ANNOTATIONS: dict[str, Any] = {"type": ["object", "null"], "additionalProperties": {"type": "string"}}

# The scanner attestation of SPEC.md ("Scan attestation data"), which the catalog lacks.
SCANNER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["attestation_name", "scanner_results"],
    "properties": {
        "attestation_name": {"type": "string", "pattern": "^[a-zA-Z0-9\\-_,]+$"},
        "scanner_results": {
            "type": "object",
            "required": ["tool", "results", "schema_version"],
            "properties": {
                "tool": {"type": "object", "required": ["name", "version"],
                         "properties": {"name": {"type": "string"},
                                        "version": {"type": "string"}}},
                "schema_version": {"const": 1},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "required": ["low_count", "medium_count", "high_count"],
                    "properties": {"low_count": {"type": "integer", "minimum": 0},
                                   "medium_count": {"type": "integer", "minimum": 0},
                                   "high_count": {"type": "integer", "minimum": 0},
                                   "low": _FINDINGS, "medium": _FINDINGS, "high": _FINDINGS}}},
            },
        },
        "origin_url": {"type": ["string", "null"]},
        "description": {"type": ["string", "null"]},
        "artifact_fingerprint": {"type": ["string", "null"], "pattern": "^[a-f0-9]{64}$"},
        "target_artifacts": {"type": ["array", "null"],
                             "items": {"type": "string", "pattern": "^[a-zA-Z0-9\\-_,]+$"}},
        "git_commit_info": _GIT_COMMIT,
        "repo_info": {"type": ["object", "null"]},
        "external_urls": {"type": ["object", "null"]},
        "annotations": ANNOTATIONS,
        "user_data": {"type": ["object", "array", "null"]},
    },
}


@functools.cache
def _schemas() -> dict[str, Any]:
    schemas = json.loads(SCHEMAS_PATH.read_text())
    schemas["scanner"] = SCANNER_SCHEMA
    for op, schema in schemas.items():  # (an artifact's annotations are free-form)
        if op != "create_artifact" and "annotations" in schema["properties"]:
            schema["properties"]["annotations"] = ANNOTATIONS
    # The CLI sends custom and system attestation data as a JSON object; the catalog
    # declares a JSON-encoded string. Both are accepted.
    for op in ("post_custom_attestation", "post_system_attestation"):
        schemas[op]["properties"]["attestation_data"] = {"type": ["object", "array", "string"]}
    # `attest sbom` reports a system attestation the catalog's enum does not list yet.
    schemas["post_system_attestation"]["properties"]["type_name"] = {"enum": ["decision", "sbom"]}
    # `create attestation-type --summary` sends summary rules the catalog does not list.
    schemas["post_custom_attestation_type"]["properties"]["summary"] = {
        "type": ["array", "null"],
        "items": {"type": "object", "required": ["name", "expression"],
                  "properties": {"name": {"type": "string"}, "expression": {"type": "string"}}}}
    return whole_string_patterns(schemas)


class SchemaCheck:
    """The JSON Schemas of a set (by key) as request checks: the contract's 400 with one entry
    per offending field (dotted path, `root` for the payload itself). A check compiled by
    fastjsonschema passes the valid payloads, about twenty times faster than jsonschema; what
    it refuses, jsonschema, the authority, reads again and says everything that is wrong (or
    lets pass: the compiled check also asserts `format`s, which jsonschema does not). The
    schemas use draft-07 keywords only, which fastjsonschema compiles to plain Python."""

    def __init__(self, schemas: Callable[[], dict[str, Any]], root: str) -> None:
        self._schemas = schemas
        self._root = root
        self._fast: dict[str, Callable[[Any], Any]] = {}
        self._full: dict[str, jsonschema.protocols.Validator] = {}

    def keys(self) -> list[str]:
        return list(self._schemas())

    def fast(self, key: str) -> Callable[[Any], Any]:
        """The compiled check of `key`, which raises fastjsonschema.JsonSchemaException. It
        never fills in `default` values."""
        check = self._fast.get(key)
        if check is None:
            check = self._fast[key] = fastjsonschema.compile(self._schema(key),
                                                             use_default=False)
        return check

    def full(self, key: str) -> jsonschema.protocols.Validator:
        validator = self._full.get(key)
        if validator is None:
            validator = self._full[key] = jsonschema.Draft202012Validator(self._schema(key))
        return validator

    def _schema(self, key: str) -> dict[str, Any]:
        """The schema of `key` as checked: its times and integers bounded
        (numbers.bounded_timestamps, numbers.bounded_integers)."""
        return bounded_integers(bounded_timestamps(self._schemas()[key]))

    def validate(self, key: str, payload: Any) -> None:
        try:
            self.fast(key)(payload)
            return
        except fastjsonschema.JsonSchemaException:
            pass
        errors = sorted((_time_refused(e) for e in self.full(key).iter_errors(payload)),
                        key=lambda e: list(e.absolute_path))
        if errors:
            raise InvalidArgument("Input payload validation failed", {
                (".".join(str(p) for p in e.absolute_path) or self._root): schema_error_message(e)
                for e in errors[:10]})


def _time_refused(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """A time out of range where it lies (an optional object's `anyOf` refuses the whole
    object): the error naming the time itself, else the error as it is."""
    found = jsonschema.exceptions.best_match([error])
    return found if found is not None and isinstance(found.schema, dict) and found.schema.get(
        TIMESTAMP_MARK) else error


CHECKS = SchemaCheck(_schemas, "data_json")


def validate(operation: str, payload: Any) -> None:
    """Raise the contract's 400 with one entry per offending field."""
    CHECKS.validate(operation, payload)
