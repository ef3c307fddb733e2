"""The controls pages' reading of the query string and their derived texts.

What a visitor types (a search, a tag, a page number) reaches the gRPC requests only in a form
they accept: control characters dropped, lengths and counts capped, numbers clamped to the
range an int32 holds, anything unknown read as the default. A hostile link thus shows a page,
never an error, and says what it shortened."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlencode

from flask import request

from evidence_grpc.domain.kernel.names import CONTROL_CHARACTERS
from evidence_grpc.domain.kernel.pages import page_asked

MAX_TEXT = 200  # characters of a search kept
MAX_TAGS = 10  # tag filters kept
PER_PAGE = 50  # rows on a page of a controls page (the API allows 100)


@dataclasses.dataclass
class Asked:
    """The query string as the page reads it, and what was cut from it (said on the page)."""

    notes: list[str] = dataclasses.field(default_factory=list)

    def text(self, name: str) -> str:
        raw = request.args.get(name, "")
        cleaned = CONTROL_CHARACTERS.sub("", raw).strip()
        if cleaned != raw.strip():
            self.notes.append(f"Control characters were removed from the {name}.")
        if len(cleaned) > MAX_TEXT:
            cleaned = cleaned[:MAX_TEXT].rstrip()
            self.notes.append(f"The {name} was shortened to {MAX_TEXT} characters.")
        return cleaned

    def texts(self, name: str) -> list[str]:
        """Each value of a repeated parameter, cleaned; empty ones and repeats dropped."""
        kept: list[str] = []
        for raw in request.args.getlist(name):
            cleaned = CONTROL_CHARACTERS.sub("", raw).strip()[:MAX_TEXT]
            if cleaned and cleaned not in kept:
                kept.append(cleaned)
        if len(kept) > MAX_TAGS:
            self.notes.append(f"Only the first {MAX_TAGS} {name} filters were applied.")
        return kept[:MAX_TAGS]

    def choice(self, name: str, choices: Sequence[str]) -> str:
        """The parameter when it is one of `choices`, else the first (the default)."""
        value = request.args.get(name, "")
        return value if value in choices else choices[0]

    def page(self) -> int:
        return page_asked(request.args.get("page"))


def page_url(page: int) -> str:
    """This page's URL with its query string kept, at another page of its list."""
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "page"]
    if page > 1:
        args.append(("page", str(page)))
    return request.path + (f"?{urlencode(args)}" if args else "")


def changes(version: Any, previous: Any | None) -> list[str]:
    """What a control version changed from the one before it, in words."""
    if previous is None or version.event == "Created":
        return ["First version"]
    if version.event == "Archived":
        return ["Left the catalog for the Archived view"]
    if version.event == "Unarchived":
        return ["Back in the catalog"]
    said = []
    if version.name != previous.name:
        said.append(f"Name: {previous.name} → {version.name}")
    if version.description != previous.description:
        said.append("Description changed")
    before, after = dict(previous.links), dict(version.links)
    said += [f"Link added: {name}" for name in sorted(after.keys() - before.keys())]
    said += [f"Link removed: {name}" for name in sorted(before.keys() - after.keys())]
    said += [f"Link changed: {name}" for name in sorted(after.keys() & before.keys())
             if after[name] != before[name]]
    return said or [version.event]
