"""Flow templates: YAML documents saying which attestations a trail and its artifacts need."""

from __future__ import annotations

import copy
import functools
import json
import pathlib
from typing import Any

import jsonschema
import yaml

from .errors import InvalidArgument
from .names import whole_string_patterns

SCHEMA_PATH = pathlib.Path(__file__).with_name("flow-template-v1.json")
EMPTY_TEMPLATE_YAML = "version: 1\n"


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    schema = whole_string_patterns(json.loads(SCHEMA_PATH.read_text()))
    return jsonschema.Draft202012Validator(schema)


def parse_template(text: str) -> dict[str, Any]:
    """Validate template YAML and return it normalised to {version, trail{attestations, artifacts}}."""
    return copy.deepcopy(_parse_template(text))


@functools.lru_cache(maxsize=256)
def _parse_template(text: str) -> dict[str, Any]:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidArgument("Invalid flow template: not valid YAML",
                              {"template_file": str(exc).replace("\n", " ")}) from None
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise InvalidArgument("Invalid flow template: expected a YAML mapping",
                              {"template_file": "expected a mapping at the top level"})
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = ".".join(str(p) for p in first.absolute_path) or "template_file"
        raise InvalidArgument("Invalid flow template", {where: first.message})
    trail = document.get("trail") or {}
    return {
        "version": document.get("version", 1),
        "trail": {
            "attestations": [dict(a) for a in trail.get("attestations", [])],
            "artifacts": [
                {"name": a["name"], "attestations": [dict(x) for x in a.get("attestations", [])]}
                for a in trail.get("artifacts", [])
            ],
        },
    }


def template_view(text: str | None) -> dict[str, Any]:
    """The template object of a trail answer (parsed requirements plus the raw YAML)."""
    content = text if text is not None else EMPTY_TEMPLATE_YAML
    parsed = parse_template(content)
    parsed["content"] = content
    return parsed
