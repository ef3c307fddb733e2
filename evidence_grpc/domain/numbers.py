"""Numbers from callers: doubles in request messages, and whole numbers the domain reads from
text (snapshot expressions, intervals, relative times, ids). `str.isdigit`, `int()` and `\\d`
also take other scripts' digits ('²', '١', '１'); here only ASCII digits count, and every value
stays within what an integer column holds, so no query can overflow."""

from __future__ import annotations

import math
import re

from .errors import validation_error

COLUMN_MAX = 2**31 - 1  # peewee IntegerField and AutoField: INTEGER (32 bits) on PostgreSQL
# Every number of the API is a count, an index, a page or a timestamp: a double beyond the
# int64 range is a mistake (and 1e300 seconds is no time any clock or datetime can hold).
DOUBLE_LIMIT = 2.0**63
_DIGITS = re.compile(r"[0-9]+")


def as_whole_number(text: str, maximum: int = COLUMN_MAX) -> int | None:
    """ASCII digits as an int of at most `maximum`, else None."""
    if not _DIGITS.fullmatch(text):
        return None
    digits = text.lstrip("0") or "0"  # int() refuses more than 4,300 digits
    if len(digits) > len(str(maximum)) or int(digits) > maximum:
        return None
    return int(digits)


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


def timestamp_text(stamp: float | None) -> str | None:
    """A time in seconds as the published artifact and repo answers carry it: the number as
    text ("1795510373.59"), which the CLI reads back as a number."""
    return None if stamp is None else repr(float(stamp))
