"""Custom attestation types' rules: the JSON Schema draft a type's schema declares, and the
evaluation of attestation data against its schema, jq rules and summary expressions.

`evaluate` runs inside a sandbox worker (see sandbox.py), so this module imports only what the
evaluation needs."""

from __future__ import annotations

import functools
from typing import Any

import jq
import jsonschema
import referencing
import referencing.exceptions

from ..kernel.sandbox import step

DEFAULT_DRAFT = jsonschema.Draft202012Validator
REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# No retrieval: a reference the schema itself does not hold is an error, never a fetch.
_OFFLINE = referencing.Registry()


def validator_class(schema: dict[str, Any] | bool) -> type[jsonschema.protocols.Validator] | None:
    """The validator of the draft `schema` declares in `$schema` (2020-12 when it declares
    none), or None when it declares one jsonschema does not know."""
    declared = isinstance(schema, dict) and "$schema" in schema
    found = jsonschema.validators.validator_for(schema, default=None)
    if found is None and declared:
        return None
    return found or DEFAULT_DRAFT


def non_local_refs(schema: Any) -> list[str]:
    """Every reference in `schema` that points outside the document (anything but `#...`)."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in REF_KEYWORDS and isinstance(value, str) and not value.startswith("#"):
                found.append(value)
            else:
                found += non_local_refs(value)
    elif isinstance(schema, list):
        for item in schema:
            found += non_local_refs(item)
    return found


@functools.lru_cache(maxsize=256)
def compiled(rule: str) -> Any:
    return jq.compile(rule)


def _first(rule: str, data: Any) -> Any:
    try:
        return compiled(rule).input_value(data).first()
    except (ValueError, StopIteration):
        return None


def evaluate(schema: dict[str, Any] | bool | None, rules: list[str],
             summary: list[dict[str, str]], data: Any
             ) -> tuple[dict[str, str], list[str], dict[str, Any]]:
    """(schema errors by field, failed rules, summary values). Rules and summary are not run
    when the data fails the schema."""
    if schema is not None:
        step("type_schema", "The type's type_schema")
        validator = (validator_class(schema) or DEFAULT_DRAFT)(schema, registry=_OFFLINE)
        try:
            errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        except referencing.exceptions.Unresolvable as exc:
            return {"type_schema": f"Unresolvable reference: {exc}"}, [], {}
        except RecursionError:
            return {"type_schema": "Nested too deeply to evaluate"}, [], {}
        if errors:
            return {("attestation_data." + ".".join(str(p) for p in e.absolute_path)).rstrip("."):
                    e.message for e in errors[:10]}, [], {}
    failed = []
    for rule in rules:
        step("evaluator.rules", f"jq rule '{rule}'")
        if not _first(rule, data):
            failed.append(rule)
    values = {}
    for item in summary:
        step("summary", f"summary expression '{item['expression']}'")
        values[item["name"]] = _first(item["expression"], data)
    return {}, failed, values
