"""Numbers from callers: doubles in request messages, and whole numbers the domain reads from
text (snapshot expressions, intervals, relative times, ids). `str.isdigit`, `int()` and `\\d`
also take other scripts' digits ('²', '١', '１'); here only ASCII digits count, and every value
stays within what an integer column holds, so no query can overflow."""

from __future__ import annotations

import math
import re
from typing import Any, overload

from .errors import validation_error

COLUMN_MAX = 2**31 - 1  # peewee IntegerField and AutoField: INTEGER (32 bits) on PostgreSQL
# Every number of the API is a count, an index, a page or a timestamp: a double beyond the
# int64 range is a mistake (and 1e300 seconds is no time any clock or datetime can hold).
DOUBLE_LIMIT = 2.0**63
# Free-form data (a report, an attestation's data) holds numbers as doubles, exact for whole
# numbers up to 2^53, and the REST shim refuses larger integer literals. A schema's "integer"
# also takes a whole double such as 1e19, which no int64 field (creationTimestamp, a test count)
# can render: schema checks bound their integers by this too (`bounded_integers`).
INTEGER_LIMIT = 2**53 - 1
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
# A time a caller sends is seconds since 1970-01-01 UTC up to the end of the year 9999: the
# times the CLI prints (a Go time.Time formatted with a four-digit year), and Python's datetime.
MAX_TIMESTAMP = 253402300799  # 9999-12-31T23:59:59Z
TIMESTAMP_RANGE = (f"must be a time in the years 1970 to 9999: seconds since 1970-01-01 UTC "
                   f"from 0 to {MAX_TIMESTAMP}")
TIMESTAMP_MARK = "x-timestamp"  # marks the bounded branch of a schema (`bounded_timestamps`)
_DIGITS = re.compile(r"[0-9]+")


def as_whole_number(text: str, maximum: int = COLUMN_MAX) -> int | None:
    """ASCII digits as an int of at most `maximum`, else None."""
    if not _DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"  # int() refuses more than 4,300 digits
    if len(digits) > len(str(maximum)) or int(digits) > maximum:
        return None
    return int(digits)


def clamped_whole_number(text: str, minimum: int, maximum: int, default: int) -> int:
    """ASCII digits as an int clamped into [minimum, maximum]; `default` for any other text (a
    sign, a fraction, other scripts' digits, nothing)."""
    if not _DIGITS.fullmatch(text):
        return default
    number = as_whole_number(text, maximum)
    return maximum if number is None else max(number, minimum)


def whole_number(field: str, text: str, maximum: int = COLUMN_MAX) -> int:
    """ASCII digits as an int of at most `maximum`; a validation error naming `field` else."""
    number = as_whole_number(text, maximum)
    if number is None:
        raise validation_error(field, f"'{text}' must be a whole number (ASCII digits) of at "
                                      f"most {maximum}")
    return number


def check_double(field: str, value: float) -> float:
    """A finite double within ±2^63."""
    if not math.isfinite(value) or abs(value) > DOUBLE_LIMIT:
        raise validation_error(field, f"{value} is out of range: numbers must be finite and "
                                      f"within ±2^63")
    return value


def check_timestamp(field: str, value: float) -> float:
    """A time within the years 1970 to 9999 (MAX_TIMESTAMP); a validation error naming `field`
    else."""
    if not 0 <= value <= MAX_TIMESTAMP:
        raise validation_error(field, f"{value} is out of range: {TIMESTAMP_RANGE}")
    return value


def is_timestamp_name(name: str) -> bool:
    """Whether a field or property of that name is a time: `timestamp`, `creationTimestamp`,
    `*_timestamp`, `*_ts`."""
    lowered = name.lower()
    return lowered.endswith("timestamp") or lowered.endswith("_ts")


def bounded_timestamps(schema: Any) -> Any:
    """A JSON Schema whose properties named as times (`is_timestamp_name`) take numbers within
    0..MAX_TIMESTAMP only (each numeric branch bounded and marked TIMESTAMP_MARK), built anew."""
    if isinstance(schema, list):
        return [bounded_timestamps(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    bounded = {key: bounded_timestamps(value) for key, value in schema.items()}
    properties = bounded.get("properties")
    if isinstance(properties, dict):
        bounded["properties"] = {name: _bounded_time(value) if is_timestamp_name(name) else value
                                 for name, value in properties.items()}
    return bounded


def _bounded_time(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    if "anyOf" in schema:
        return {**schema, "anyOf": [_bounded_time(branch) for branch in schema["anyOf"]]}
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "number" not in kinds and "integer" not in kinds:
        return schema
    return {**schema, "minimum": 0, "maximum": MAX_TIMESTAMP, TIMESTAMP_MARK: True}


@overload
def timestamp_text(stamp: float) -> str: ...
@overload
def timestamp_text(stamp: None) -> None: ...
def timestamp_text(stamp: float | None) -> str | None:
    """A time in seconds as the published artifact and repo answers carry it: the number as
    text ("1795510373.59"), which the CLI reads back as a number."""
    return None if stamp is None else repr(float(stamp))


def bounded_integers(schema: Any) -> Any:
    """A JSON Schema whose integers lie within ±INTEGER_LIMIT (where it sets no bound of its
    own), built anew: the schema given is left as it is."""
    if isinstance(schema, list):
        return [bounded_integers(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    bounded = {key: bounded_integers(value) for key, value in schema.items()}
    kind = schema.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        bounded.setdefault("minimum", -INTEGER_LIMIT)
        bounded.setdefault("maximum", INTEGER_LIMIT)
    return bounded


def as_int64(number: float) -> int:
    """A whole number stored before the door bounded it, as an int64 field can carry it: the
    nearest int64 (a read shows what it can rather than fail)."""
    return min(max(int(number), INT64_MIN), INT64_MAX)
