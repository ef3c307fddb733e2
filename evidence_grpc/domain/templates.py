"""Flow templates: YAML documents saying which attestations a trail and its artifacts need."""

from __future__ import annotations

import collections
import copy
import functools
import json
import pathlib
import threading
from typing import Any

import jsonschema
import yaml

from .errors import InvalidArgument
from .names import whole_string_patterns

SCHEMA_PATH = pathlib.Path(__file__).with_name("flow-template-v1.json")
EMPTY_TEMPLATE_YAML = "version: 1\n"
# A template is a short list of names: these bounds are far above any real one, and far below
# what an alias bomb (a few hundred bytes expanding to millions of nodes) would cost to walk.
MAX_TEMPLATE_BYTES = 1024 * 1024
MAX_TEMPLATE_NODES = 100_000
CACHE_BYTES = 16 * 1024 * 1024


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    schema = whole_string_patterns(json.loads(SCHEMA_PATH.read_text()))
    return jsonschema.Draft202012Validator(schema)


class ParsedTemplates:
    """Parsed templates by their text, least recently used first out, bounded by the UTF-8
    bytes of the texts kept (a parsed template is proportional to its text)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: collections.OrderedDict[str, tuple[dict[str, Any], int]] = \
            collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> dict[str, Any] | None:
        with self._lock:
            entry = self._entries.get(text)
            if entry is None:
                return None
            self._entries.move_to_end(text)
            return entry[0]

    def put(self, text: str, parsed: dict[str, Any]) -> None:
        size = len(text.encode())
        with self._lock:
            if text in self._entries:
                return
            self._entries[text] = (parsed, size)
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, evicted) = self._entries.popitem(last=False)
                self.bytes -= evicted


_CACHE = ParsedTemplates(CACHE_BYTES)


def cached_bytes() -> int:
    """Bytes of template text the parse cache holds."""
    return _CACHE.bytes


def parse_template(text: str) -> dict[str, Any]:
    """Validate template YAML and return it normalised to {version, trail{attestations, artifacts}}."""
    parsed = _CACHE.get(text)
    if parsed is None:
        parsed = _parse_template(text)
        _CACHE.put(text, parsed)
    return copy.deepcopy(parsed)


def _refused(problem: str) -> InvalidArgument:
    return InvalidArgument("Invalid flow template", {"template_file": problem})


def _expanded_size(node: yaml.Node) -> int:
    """How many nodes the document has once every alias is expanded, counting up to just past
    MAX_TEMPLATE_NODES. An alias is the same node object reached twice, so sizes are memoized
    per node and the walk costs the composed graph, not its expansion."""
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(current: yaml.Node) -> int:
        key = id(current)
        if key in sizes:
            return sizes[key]
        if key in in_progress:
            raise _refused("recursive YAML alias")
        in_progress.add(key)
        total = 1
        if isinstance(current, yaml.SequenceNode):
            children = current.value
        elif isinstance(current, yaml.MappingNode):
            children = [part for pair in current.value for part in pair]
        else:
            children = []
        for child in children:
            total = min(total + size(child), MAX_TEMPLATE_NODES + 1)
        in_progress.discard(key)
        sizes[key] = total
        return total

    return size(node)


def _load(text: str) -> Any:
    """yaml.safe_load that refuses, before building anything, a document over the byte bound or
    whose aliases expand past the node bound."""
    if len(text.encode()) > MAX_TEMPLATE_BYTES:
        raise _refused(f"larger than {MAX_TEMPLATE_BYTES} bytes")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node) > MAX_TEMPLATE_NODES:
            raise _refused(f"more than {MAX_TEMPLATE_NODES} nodes once YAML aliases are expanded")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _parse_template(text: str) -> dict[str, Any]:
    try:
        document = _load(text)
    except yaml.YAMLError as exc:
        raise InvalidArgument("Invalid flow template: not valid YAML",
                              {"template_file": str(exc).replace("\n", " ")}) from None
    except RecursionError:
        raise _refused("nested too deeply") from None
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
