"""Names of things that appear as URL path segments."""

import os
import re

from .errors import validation_error

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~\-]*$")
MAX_NAME_LENGTH = 256


def check_name(field: str, value: str) -> str:
    """Refuse names that cannot round-trip as a single path segment."""
    if not value:
        raise validation_error(field, "Field cannot be empty")
    if len(value) > MAX_NAME_LENGTH:
        raise validation_error(field, f"Must be at most {MAX_NAME_LENGTH} characters")
    if not NAME_PATTERN.match(value):
        raise validation_error(
            field,
            f"'{value}' must start with a letter or digit and contain only letters, digits, "
            "'.', '-', '_' and '~'",
        )
    return value


def safe_filename(field: str, name: str) -> str:
    """The base name of an uploaded file: a client-chosen path never reaches storage."""
    base = os.path.basename(name.replace("\\", "/")).strip()
    if base in ("", ".", ".."):
        raise validation_error(field, "The file needs a name")
    return base
