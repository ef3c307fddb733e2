"""Helpers for driving the real kosli CLI in end-to-end tests."""

from __future__ import annotations

import subprocess
import uuid


def unique(prefix: str) -> str:
    """A name no other test uses on the shared server."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def failure(result: subprocess.CompletedProcess) -> str:
    """The CLI's error text, checked to be a clean server message."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    text = result.stdout + result.stderr
    for junk in ("<nil>", "%!", "panic", "giving up after", "invalid character",
                 "unexpected end of JSON"):
        assert junk not in text, text
    return result.stderr
