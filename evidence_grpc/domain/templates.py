"""Flow templates: YAML documents saying which attestations a trail and its artifacts need."""

from __future__ import annotations

import copy
import functools
from typing import Any

from .errors import InvalidArgument
from .yaml_documents import load_mapping, schema_violations

SCHEMA_FILE = "flow-template-v1.json"
EMPTY_TEMPLATE_YAML = "version: 1\n"


def parse_template(text: str) -> dict[str, Any]:
    """Validate template YAML and return it normalised to {version, trail{attestations, artifacts}}."""
    return copy.deepcopy(_parse_template(text))


@functools.lru_cache(maxsize=256)
def _parse_template(text: str) -> dict[str, Any]:
    document = load_mapping(text, "template_file", "flow template")
    violations = schema_violations(SCHEMA_FILE, document, "template_file")
    if violations:
        where, problem = next(iter(violations.items()))
        raise InvalidArgument("Invalid flow template", {where: problem})
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
