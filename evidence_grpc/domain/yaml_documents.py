"""YAML documents checked against a JSON Schema (flow templates, environment policies)."""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

import jsonschema
import yaml

from .errors import InvalidArgument, NotFound

SCHEMA_DIR = pathlib.Path(__file__).parent
# The published schemas, by (kind, version) as GET /api/v2/schemas/{kind}/{version} names them.
PUBLISHED = {
    ("environment-policy", "v1"): "environment-policy-v1.json",
    ("flow-template", "v1"): "flow-template-v1.json",
}


@functools.cache
def schema_text(file_name: str) -> str:
    """The JSON Schema kept beside this module as `file_name`."""
    return (SCHEMA_DIR / file_name).read_text()


def published_schema(kind: str, version: str) -> str:
    """The JSON text of a published schema."""
    file_name = PUBLISHED.get((kind, version))
    if file_name is None:
        raise NotFound(f"Schema '{kind}/{version}' not found")
    return schema_text(file_name)


@functools.cache
def validator(file_name: str) -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(json.loads(schema_text(file_name)))


def load_mapping(text: str, field: str, subject: str) -> dict[str, Any]:
    """The YAML mapping of `text` (an empty document is an empty mapping); anything else is
    refused as an error of `field`."""
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidArgument(f"Invalid {subject}: not valid YAML",
                              {field: str(exc).replace("\n", " ")}) from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise InvalidArgument(f"Invalid {subject}: expected a YAML mapping",
                              {field: "expected a mapping at the top level"})
    return document


def schema_violations(file_name: str, document: dict[str, Any], field: str) -> dict[str, str]:
    """{dotted path of the offending value (`field` for the document itself): problem}, in
    path order, one problem per path."""
    violations: dict[str, str] = {}
    for error in sorted(validator(file_name).iter_errors(document),
                        key=lambda e: list(e.absolute_path)):
        violations.setdefault(".".join(str(p) for p in error.absolute_path) or field, error.message)
    return violations
