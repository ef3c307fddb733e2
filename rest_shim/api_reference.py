"""The API reference page (/api/v2/docs): the OpenAPI document rendered as one plain HTML page
on the server, no script, every text escaped."""

from __future__ import annotations

import functools
import json
from html import escape
from typing import Any

_STYLE = """
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d2330}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #ccd;padding-top:1rem}
nav a{margin-right:.8rem}.op{border:1px solid #dde;border-radius:6px;margin:.8rem 0;padding:.4rem .8rem}
.verb{display:inline-block;min-width:4.2rem;font-weight:700;text-transform:uppercase}
.get{color:#1565c0}.post{color:#2e7d32}.put{color:#ef6c00}.patch{color:#6a1b9a}.delete{color:#c62828}
code,pre{font-family:ui-monospace,monospace;font-size:.85rem}pre{background:#f5f6fa;padding:.5rem;overflow:auto}
table{border-collapse:collapse;margin:.3rem 0}
td,th{border:1px solid #dde;padding:.15rem .5rem;text-align:left}
.meta{color:#555;font-size:.85rem}
"""


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f'<a href="#schema-{escape(name)}">{escape(name.removeprefix("evidence.v2."))}</a>'
    if "oneOf" in schema:
        return " | ".join(_type_of(s) for s in schema["oneOf"])
    if "allOf" in schema:
        return " & ".join(_type_of(s) for s in schema["allOf"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of {_type_of(schema['additionalProperties'])}"
    if isinstance(kind, list):
        return " | ".join(escape(str(k)) for k in kind)
    if "enum" in schema:
        return "one of " + ", ".join(f"<code>{escape(str(v))}</code>" for v in schema["enum"])
    return escape(str(kind)) if kind else "any JSON"


def _operation(path: str, verb: str, operation: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p['in'])}</td>"
        f"<td>{_type_of(p['schema'])}</td><td>{escape(p.get('description', ''))}</td></tr>"
        for p in operation.get("parameters", []))
    parts = [f'<div class="op" id="{escape(operation["operationId"])}">'
             f'<div><span class="verb {verb}">{verb}</span> <code>{escape(path)}</code></div>'
             f"<p>{escape(operation.get('summary', ''))}</p>"
             f'<p class="meta">gRPC <code>{escape(operation.get("x-grpc-method", ""))}</code>'
             f" · {escape(operation.get('x-privilege', 'no key').removeprefix('PRIVILEGE_').lower())}"
             "</p>"]
    if rows:
        parts.append("<table><tr><th>parameter</th><th>in</th><th>type</th><th></th></tr>"
                     f"{rows}</table>")
    body = operation.get("requestBody")
    if body:
        for media, content in body["content"].items():
            parts.append(f"<p>Body ({escape(media)}): {_type_of(content['schema'])}</p>")
            if "properties" in content["schema"]:
                parts.append(_properties(content["schema"]))
    for code, answer in operation["responses"].items():
        for media, content in answer.get("content", {}).items():
            parts.append(f'<p class="meta">{escape(code)} {escape(media)}: '
                         f"{_type_of(content['schema'])}</p>")
    parts.append("</div>")
    return "".join(parts)


def _properties(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = "".join(
        f"<tr><td><code>{escape(name)}</code>{'' if name in required else '?'}</td>"
        f"<td>{_type_of(value)}</td><td>{escape(value.get('description', ''))}</td></tr>"
        for name, value in schema.get("properties", {}).items())
    return f"<table><tr><th>key</th><th>type</th><th></th></tr>{rows}</table>" if rows else ""


@functools.cache
def render_reference(document_text: str) -> str:
    """The page of a document (cached per document: it is generated at build time)."""
    document = json.loads(document_text)
    info = document["info"]
    by_tag: dict[str, list[str]] = {}
    for path, verbs in document["paths"].items():
        for verb, operation in verbs.items():
            by_tag.setdefault(operation["tags"][0], []).append(_operation(path, verb, operation))
    tags = {t["name"]: t.get("description", "") for t in document.get("tags", [])}
    sections = "".join(
        f'<h2 id="tag-{escape(tag)}">{escape(tag)}</h2><p>{escape(tags.get(tag, ""))}</p>'
        + "".join(ops) for tag, ops in by_tag.items())
    schemas = "".join(
        f'<h3 id="schema-{escape(name)}">{escape(name.removeprefix("evidence.v2."))}</h3>'
        f"<p>{escape(schema.get('description', ''))}</p>{_properties(schema)}"
        for name, schema in document["components"]["schemas"].items())
    nav = "".join(f'<a href="#tag-{escape(t)}">{escape(t)}</a>' for t in by_tag)
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(info['title'])}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{escape(info['title'])}</h1><p class=\"meta\">version {escape(info['version'])}"
            ' · <a href="/api/v2/openapi.json">openapi.json</a> (OpenAPI '
            f"{escape(document['openapi'])})</p><p>{escape(info.get('description', ''))}</p>"
            f"<nav>{nav}</nav>{sections}<h2 id=\"schemas\">Schemas</h2>{schemas}</body></html>")
