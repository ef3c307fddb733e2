"""What migrations share, frozen: copies of the column types they create, so that a migration
behaves as it did when it shipped whatever later releases change in storage.models or the
domain (no migration imports either; `lint-imports` checks it)."""

from __future__ import annotations

import json
from typing import Any

import peewee


class JSONField(peewee.TextField):
    """JSON stored as text, identical on SQLite and PostgreSQL (storage.models.JSONField as of
    migration 0022: compact separators on write; Python's parser on read, which reads
    everything orjson does and integers past 64 bits)."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)
