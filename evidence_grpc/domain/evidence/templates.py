"""Flow templates: YAML documents saying which attestations a trail and its artifacts need.

Templates are kept as versions (FlowTemplate), appended, never changed: each template a flow
has had, and each one a trail was given of its own. A trail is judged by the version it was
begun with (`Trail.flow_template`), so a flow's new template judges the trails begun after it,
never one already begun (history is immutable); a trail given a template of its own keeps
that. Answers name a trail's version `flow_template_id`."""

from __future__ import annotations

import copy
import re
from typing import Any, Literal, NamedTuple

import yaml

from ...api.v2 import views
from ...memo import BytesLru, bytes_lru
from ...storage.db import Prepared
from ...storage.models import Flow, FlowTemplate
from ..kernel.errors import InvalidArgument, validation_error
from ..kernel.ids import hosted_id
from ..kernel.yaml_documents import (
    MAX_DOCUMENT_BYTES,
    load_mapping,
    schema_failures,
    schema_violations,
)

SCHEMA_FILE = "flow-template-v1.json"
EMPTY_TEMPLATE_YAML = "version: 1\n"
MAX_TEMPLATE_BYTES = MAX_DOCUMENT_BYTES
CACHE_BYTES = 16 * 1024 * 1024
# What may come before a template's first key: blank lines, comments (the docs' templates open
# with a `# yaml-language-server:` line), directives and the document start marker.
_PREAMBLE_LINE = re.compile(r"\s*(?:#.*|%.*|---\s*(?:#.*)?)?")


# Parsed templates by their text, counted as the text's UTF-8 bytes (a parsed template is
# proportional to its text).
_CACHE = BytesLru(CACHE_BYTES)


def cached_bytes() -> int:
    """Bytes of template text the parse cache holds."""
    return _CACHE.bytes


def parse_template(text: str) -> dict[str, Any]:
    """Validate template YAML and return it normalised to {version, trail{attestations, artifacts}}."""
    return copy.deepcopy(_parsed(text))


def check_template(text: str, door: Literal["flow", "trail"]) -> None:
    """Refuse a template as the hosted service words it at each door when it fails its schema:
    a flow's template is a field of the flow's payload ("Input payload validation failed", the
    field and its problem); a trail's is read as its Template model, which lists every failure
    ("2 validation errors for Template", then each path and problem). Text that is no YAML
    mapping is refused as `parse_template` refuses it."""
    try:
        parse_template(text)
    except SchemaRefused as refused:
        where, problem = refused.failures[0]
        if door == "flow":
            raise validation_error("template_file",
                                   f"{'.'.join(where) or 'template'}: {problem}") from None
        count = len(refused.failures)
        listed = "\n".join(f"{' -> '.join(path) or '__root__'}\n  {problem}"
                           for path, problem in refused.failures)
        raise InvalidArgument(f"{count} validation error{'' if count == 1 else 's'} for "
                              f"Template\n{listed}", {"template_file": problem}) from None


class SchemaRefused(InvalidArgument):
    """A template that is YAML but fails the schema, with every way it fails."""

    def __init__(self, violations: dict[str, str], failures: list[tuple[list[str], str]]) -> None:
        super().__init__("Invalid flow template", violations)
        self.failures = failures


def _parsed(text: str) -> dict[str, Any]:
    """The parse cache's own copy: read, never changed."""
    parsed = _CACHE.get(text)
    if parsed is None:
        parsed = _parse_template(text)
        _CACHE.put(text, parsed, len(text.encode()))
    return parsed


def _parse_template(text: str) -> dict[str, Any]:
    document = load_mapping(text, "template_file", "flow template")
    violations = schema_violations(SCHEMA_FILE, document, "template_file")
    if violations:
        where, problem = next(iter(violations.items()))
        raise SchemaRefused({where: problem}, schema_failures(SCHEMA_FILE, document))
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


def template_view(text: str | None) -> views.Template:
    """The template object of a trail answer (parsed requirements plus the raw YAML)."""
    content = text if text is not None else EMPTY_TEMPLATE_YAML
    parsed = _parsed(content)  # read by answers, never changed
    return {"version": parsed["version"], "trail": parsed["trail"], "content": content}


@bytes_lru(max_bytes=CACHE_BYTES // 4, size=lambda text: 2 * len(text) + 64)
def served_template(text: str) -> str:
    """A flow's template as its answers give it: `kosli get flow` renders a template as YAML
    only when it starts with `version: ` (anything else is printed on one line), so the text
    is answered from its `version:` line on when only a preamble (comments, blank lines) comes
    before it, and otherwise as it parses, written out as YAML (without its comments). The
    stored text stays as the user gave it; a trail's `template.content` answers it whole."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines)
                  if not _PREAMBLE_LINE.fullmatch(line.rstrip("\r\n"))), len(lines))
    body = "".join(lines[start:])
    if body.startswith("version: "):
        return body
    return yaml.safe_dump(_parsed(text), sort_keys=False, allow_unicode=True)


def legacy_template_view(names: list[str], artifact_keys: list[str]) -> views.Template:
    """A legacy flow's template list (`["artifact", "unit-test", ...]`) as the template object
    of its trails: every listed evidence but `artifact` is required of each artifact of the
    trail (by its template name, or its fingerprint when reported without one), of any type."""
    parsed = _legacy_parsed(tuple(names), tuple(artifact_keys))
    return {"version": parsed["version"], "trail": parsed["trail"],
            "content": _legacy_yaml(tuple(names), tuple(artifact_keys))}


def _legacy_parsed(names: tuple[str, ...], artifact_keys: tuple[str, ...]) -> dict[str, Any]:
    required = [{"name": name, "type": "*"} for name in names if name != "artifact"]
    return {"version": 1, "trail": {"attestations": [], "artifacts": [
        {"name": key, "attestations": [dict(r) for r in required]} for key in artifact_keys]}}


@bytes_lru(max_bytes=CACHE_BYTES // 4,
           size=lambda names, keys: sum(len(n) + 16 for n in names) * (len(keys) + 1)
           + sum(len(k) + 16 for k in keys))
def _legacy_yaml(names: tuple[str, ...], artifact_keys: tuple[str, ...]) -> str:
    """The YAML of a legacy template; emitting it costs more than the rest of a get trail."""
    return yaml.safe_dump(_legacy_parsed(names, artifact_keys), sort_keys=False)


class Version(NamedTuple):
    """A kept template: its text, or a legacy flow's list (neither: the empty template)."""

    template_yaml: str | None
    legacy_template: list[str] | None


def new_version(flow: Flow, template_yaml: str | None, legacy_template: list[str] | None,
                stamp: float, *, for_trail: bool = False, uid: str | None = None) -> str:
    """Keep a template of the flow (or of one of its trails), with id `uid` or a new one: the
    version's id. Call inside the write transaction that points at it."""
    made = FlowTemplate.create(id=uid or hosted_id(), flow=flow, template_yaml=template_yaml,
                               legacy_template=legacy_template, for_trail=for_trail,
                               created_at=stamp).id
    _keep(made, Version(template_yaml, legacy_template))  # (if rolled back, never asked for)
    return made


_VERSION = Prepared(lambda uid: FlowTemplate.select(
    FlowTemplate.template_yaml, FlowTemplate.legacy_template).where(FlowTemplate.id == uid),
    uid=str)
# Versions by id: never changed, and their ids random (never reused), so a process keeps them:
# a trail's answer reads its version once per process.
_VERSIONS = BytesLru(CACHE_BYTES // 4)


def _keep(uid: str, kept: Version) -> None:
    size = 64 + len(uid) + len(kept.template_yaml or "") + sum(
        len(name) + 8 for name in kept.legacy_template or [])
    _VERSIONS.put(uid, kept, size)


def version(uid: str) -> Version:
    """The kept template of that id."""
    found = _VERSIONS.get(uid)
    if found is None:
        [(text, legacy)] = _VERSION.rows(uid=uid)
        found = Version(text, FlowTemplate.legacy_template.python_value(legacy))
        _keep(uid, found)
    return found
