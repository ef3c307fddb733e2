"""Ids in the hosted service's shape: every id its answers show (artifacts, flow templates,
organizations, trails) is a random UUID (version 4) cut to 8-4-4-4-8 hex digits
(`c5d209a3-9139-4f5b-a553-c6351091`). Random, so an id tells nobody how many things of its
kind an organization has, nor which came first."""

from __future__ import annotations

import uuid


def hosted_id() -> str:
    """A new id: a random UUID (version 4) without its last four hex digits."""
    return str(uuid.uuid4())[:-4]
