"""Filtering by tags: flows, environments, repos and controls carry a `{key: value}` object of
tags, and lists filter on `key` or `key:value`."""

from __future__ import annotations

from typing import Any


def has_tag(tags: dict[str, Any], wanted: str) -> bool:
    """Whether the tags have the key (`key`) or the key and value (`key:value`)."""
    key, sep, value = wanted.partition(":")
    if key not in tags:
        return False
    return not sep or str(tags[key]) == value
