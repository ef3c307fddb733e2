"""Names of things that appear as URL path segments, and the file names of uploads.

Every check matches the whole string: Python's `$` (and `re.match`) also accept a final
newline, so `e1` and `e1\\n` would both pass and both exist."""

from __future__ import annotations

import os
import re
from typing import Any

from .errors import validation_error

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~\-]*")
NAME_RULE = "must start with a letter or digit and contain only letters, digits, '.', '-', '_' " \
            "and '~'"
MAX_NAME_LENGTH = 256
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # Unicode category Cc


def check_name(field: str, value: str, pattern: re.Pattern[str] = NAME_PATTERN,
               rule: str = NAME_RULE) -> str:
    """Refuse names that cannot round-trip as a single path segment: `pattern` must match the
    whole name."""
    if not value:
        raise validation_error(field, "Field cannot be empty")
    if len(value) > MAX_NAME_LENGTH:
        raise validation_error(field, f"Must be at most {MAX_NAME_LENGTH} characters")
    if not pattern.fullmatch(value):
        raise validation_error(field, f"{value!r} {rule}")
    return value


def safe_filename(field: str, name: str) -> str:
    """The base name of an uploaded file: a client-chosen path never reaches storage, and a
    control character (CR, LF, NUL...) never reaches a download's Content-Disposition."""
    if CONTROL_CHARACTERS.search(name):
        raise validation_error(field, "File names must not contain control characters")
    base = os.path.basename(name.replace("\\", "/")).strip()
    if base in ("", ".", ".."):
        raise validation_error(field, "The file needs a name")
    return base


def whole_string_patterns(schema: Any) -> Any:
    """A JSON Schema whose `pattern`s end the way ECMA-262 (the patterns' dialect) ends them:
    there `$` matches only at the end of the input, in Python also before a final newline,
    so a trailing `$` becomes `\\Z`."""
    if isinstance(schema, list):
        return [whole_string_patterns(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str) and value.endswith("$") and \
                not value.endswith("\\$"):
            value = value[:-1] + r"\Z"
        out[key] = whole_string_patterns(value)
    return out
