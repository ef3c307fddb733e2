"""YAML documents checked against a JSON Schema (flow templates, environment policies).

Both are written by users, so a document is refused before anything is built from it when its
text passes MAX_DOCUMENT_BYTES or its aliases would expand past MAX_DOCUMENT_NODES: a few hundred
bytes of nested aliases otherwise expand to millions of nodes that validation would walk."""

from __future__ import annotations

import functools
import json
import pathlib
from collections.abc import Callable
from typing import Any

import jsonschema
import yaml

from .errors import InvalidArgument, missing
from .names import whole_string_patterns

SCHEMA_DIR = pathlib.Path(__file__).parent
# The published schemas, by (kind, version) as GET /api/v2/schemas/{kind}/{version} names them.
PUBLISHED = {
    ("environment-policy", "v1"): "environment-policy-v1.json",
    ("flow-template", "v1"): "flow-template-v1.json",
}
# Templates and policies are short lists of rules: these bounds are far above any real one.
MAX_DOCUMENT_BYTES = 1024 * 1024
MAX_DOCUMENT_NODES = 100_000


@functools.cache
def schema_text(file_name: str) -> str:
    """The JSON Schema kept beside this module as `file_name`."""
    return (SCHEMA_DIR / file_name).read_text()


def published_schema(kind: str, version: str) -> str:
    """The JSON text of a published schema."""
    file_name = PUBLISHED.get((kind, version))
    if file_name is None:
        raise missing("schema", kind=kind, version=version)
    return schema_text(file_name)


@functools.cache
def validator(file_name: str) -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(whole_string_patterns(json.loads(schema_text(file_name))))


def _expanded_size(node: yaml.Node, refused: Callable[[str], InvalidArgument]) -> int:
    """How many nodes the document has once every alias is expanded, counting up to just past
    MAX_DOCUMENT_NODES. An alias is the same node object reached twice, so sizes are memoized
    per node and the walk costs the composed graph, not its expansion."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(current: yaml.Node) -> int:
        key = id(current)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            raise refused("recursive YAML alias")
        in_progress.add(key)
        total = 1
        if isinstance(current, yaml.SequenceNode):
            children = current.value
        elif isinstance(current, yaml.MappingNode):
            children = [part for pair in current.value for part in pair]
        else:
            children = []
        for child in children:
            total = min(total + size(child), MAX_DOCUMENT_NODES + 1)
        in_progress.discard(key)
        sizes[key] = total
        return total

    return size(node)


def _bounded_load(text: str, refused: Callable[[str], InvalidArgument],
                  loader_class: type[yaml.SafeLoader] | type[yaml.CSafeLoader] = yaml.SafeLoader
                  ) -> Any:
    """yaml.safe_load that refuses, before building anything, a document over the byte bound or
    whose aliases expand past the node bound."""
    if len(text.encode()) > MAX_DOCUMENT_BYTES:
        raise refused(f"larger than {MAX_DOCUMENT_BYTES} bytes")
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, refused) > MAX_DOCUMENT_NODES:
            raise refused(f"more than {MAX_DOCUMENT_NODES} nodes once YAML aliases are expanded")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load_mapping(text: str, field: str, subject: str) -> dict[str, Any]:
    """The YAML mapping of `text` (an empty document is an empty mapping); anything else is
    refused as an error of `field`, as is a document past the size bounds."""
    def refused(problem: str) -> InvalidArgument:
        return InvalidArgument(f"Invalid {subject}", {field: problem})

    try:
        document = _bounded_load(text, refused)
    except yaml.YAMLError as exc:
        raise InvalidArgument(f"Invalid {subject}: not valid YAML",
                              {field: str(exc).replace("\n", " ")}) from None
    except RecursionError:
        raise refused("nested too deeply") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise InvalidArgument(f"Invalid {subject}: expected a YAML mapping",
                              {field: "expected a mapping at the top level"})
    return document


# libyaml's parser (PyYAML's C extension, with the same Python resolver and constructor):
# 20-50 times faster on the largest documents; None where PyYAML was built without it.
_C_LOADER: type[yaml.CSafeLoader] | None = getattr(yaml, "CSafeLoader", None)


def load_stored_mapping(text: str, field: str, subject: str) -> dict[str, Any]:
    """`load_mapping` of a document that was accepted (by `load_mapping`) when it was stored,
    read by libyaml where it can: reading a stored policy's 1 MiB takes 10-30 ms instead of
    a second or more. A text libyaml refuses (the two parsers differ only on malformed input)
    is read by PyYAML as it was when stored."""
    if _C_LOADER is not None:
        try:
            document = _bounded_load(text, lambda problem: InvalidArgument(problem), _C_LOADER)
        except (yaml.YAMLError, InvalidArgument, RecursionError):
            pass
        else:
            if isinstance(document, dict):
                return document
    return load_mapping(text, field, subject)


def schema_violations(file_name: str, document: dict[str, Any], field: str) -> dict[str, str]:
    """{dotted path of the offending value (`field` for the document itself): problem}, in
    path order, one problem per path."""
    violations: dict[str, str] = {}
    for error in sorted(validator(file_name).iter_errors(document),
                        key=lambda e: list(e.absolute_path)):
        violations.setdefault(".".join(str(p) for p in error.absolute_path) or field, error.message)
    return violations


def schema_failures(file_name: str, document: dict[str, Any]) -> list[tuple[list[str], str]]:
    """Every way `document` fails the schema, as (path, problem), the deepest first: a failed
    union once for each of its branches, as a model validator counts them (but for the `null`
    branch of an optional value, which it does not list)."""
    failures: list[tuple[list[str], str]] = []

    def leaves(error: jsonschema.ValidationError) -> None:
        if not error.context:
            failures.append(([str(p) for p in error.absolute_path], error.message))
        for branch in error.context or []:
            if (branch.validator, branch.validator_value) != ("type", "null"):
                leaves(branch)

    for error in validator(file_name).iter_errors(document):
        leaves(error)
    return sorted(failures, key=lambda failure: -len(failure[0]))  # stable: each path's in order
