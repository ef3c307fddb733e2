"""Names of things that appear as URL path segments, and the file names of uploads.

Every check matches the whole string: Python's `$` (and `re.match`) also accept a final
newline, so `e1` and `e1\\n` would both pass and both exist."""

from __future__ import annotations

import functools
import os
import re
import unicodedata
from typing import Any

import jsonschema

from . import limits
from .errors import validation_error
from .numbers import TIMESTAMP_MARK, TIMESTAMP_RANGE

# The hosted service's rule for names, written as it quotes it in its errors (ECMA-262).
NAME_PATTERN = r"^[a-zA-Z0-9][a-zA-Z0-9\.\-_~]*$"
MAX_NAME_LENGTH = limits.NAME.most
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # Unicode category Cc
# A schema pattern's end of input, as written and as Python says it (see whole_string_patterns).
ECMA_END, PYTHON_END = "$", r"\Z"


def folded(name: str) -> str:
    """A name as people read it: case and Unicode compatibility forms folded (NFKC, case fold,
    NFKC again), so `Mike`, `MIKE` and `ｍｉｋｅ` all read as `mike`."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def reads_as(name: str, names: Any) -> str | None:
    """The first of `names` that reads as `name` (see `folded`), or None."""
    wanted = folded(name)
    return next((other for other in names if folded(other) == wanted), None)


def pattern_mismatch(pattern: str, value: Any) -> str:
    """What the hosted service says of a value its pattern refuses (pydantic's wording), with
    the pattern as written in the schema."""
    if pattern.endswith(PYTHON_END):
        pattern = pattern[:-len(PYTHON_END)] + ECMA_END
    return f"String should match pattern '{pattern}' [input: {value}]"


def schema_error_message(error: jsonschema.ValidationError) -> str:
    """One JSON Schema violation in words; a refused pattern (also the pattern of the one
    string branch of an `anyOf`, as an optional name has) as the hosted service says it."""
    refused = error if error.validator == "pattern" else next(
        (e for e in error.context or () if e.validator == "pattern"), None)
    if refused is not None:
        return pattern_mismatch(str(refused.validator_value), refused.instance)
    out_of_range = next((e for e in [error, *(error.context or ())]
                         if e.validator in ("minimum", "maximum")
                         and isinstance(e.schema, dict) and e.schema.get(TIMESTAMP_MARK)), None)
    if out_of_range is not None:
        return f"{out_of_range.instance} is out of range: {TIMESTAMP_RANGE}"
    return error.message


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(whole_string_patterns({"pattern": pattern})["pattern"])


def check_name(field: str, value: str, pattern: str = NAME_PATTERN) -> str:
    """Refuse names that cannot round-trip as a single path segment: `pattern` (ECMA-262, as a
    schema writes it) must match the whole name."""
    if not value:
        raise validation_error(field, "Field cannot be empty")
    if len(value) > MAX_NAME_LENGTH:
        raise validation_error(field, f"Must be at most {MAX_NAME_LENGTH} characters")
    if not _compiled(pattern).search(value):
        raise validation_error(field, pattern_mismatch(pattern, value))
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
            value = value[:-len(ECMA_END)] + PYTHON_END
        out[key] = whole_string_patterns(value)
    return out
