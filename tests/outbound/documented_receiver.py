"""A webhook receiver written from the hosted docs alone (integrations/kosli_actions.md,
"Custom Webhook Notifications"), not from our code: it parses a notification into the fields
the docs' example shows, with their types there, and refuses anything else.

What the docs show: `version` "1.0"; `timestamp` Unix seconds as a string; `org`,
`environment`, `event_type` (upper-case, e.g. ARTIFACT_STARTED), `description` strings;
`snapshot {index (digits as a string), status, html_url, api_url}`; `artifact {name,
fingerprint (64 hex digits), provenance {flow, status, commit, commit_url, html_url, api_url,
build_url}}`. The docs list six environment events (an artifact started, exited, scaled, added
to the allow-list; compliant to non-compliant and back) and show one of them. What this
receiver adds to the page, as docs/api.md states it: every key is always present, null where the
event has no such fact (no snapshot, artifact or provenance; no commit or build URL)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

DOCUMENTED_KEYS = {"version", "timestamp", "org", "environment", "event_type", "description",
                   "snapshot", "artifact"}
SNAPSHOT_KEYS = {"index", "status", "html_url", "api_url"}
ARTIFACT_KEYS = {"name", "fingerprint", "provenance"}
PROVENANCE_KEYS = {"flow", "status", "commit", "commit_url", "html_url", "api_url", "build_url"}
# Facts every event of a kind the docs list carries: environment, snapshot, artifact.
ENVIRONMENT_EVENTS = {
    "ARTIFACT_STARTED": (True, True), "ARTIFACT_EXITED": (True, True),
    "ARTIFACT_SCALED": (True, True), "ARTIFACT_ALLOWED": (False, True),
    "ENVIRONMENT_NON_COMPLIANT": (True, False), "ENVIRONMENT_COMPLIANT": (True, False)}


class NotDocumented(AssertionError):
    """A notification a receiver written from the docs cannot read."""


@dataclass(frozen=True)
class Snapshot:
    index: int
    status: str
    html_url: str
    api_url: str


@dataclass(frozen=True)
class Provenance:
    flow: str
    status: str
    commit: str | None
    commit_url: str | None
    html_url: str
    api_url: str
    build_url: str | None


@dataclass(frozen=True)
class Artifact:
    name: str
    fingerprint: str
    provenance: Provenance | None


@dataclass(frozen=True)
class Notification:
    version: str
    timestamp: int
    org: str
    environment: str | None
    event_type: str
    description: str
    snapshot: Snapshot | None
    artifact: Artifact | None
    extra: dict[str, Any]  # what the docs do not show (a flow action's `flow`, `trail`...)


def _text(where: str, value: Any, *, nullable: bool = False) -> str | None:
    if value is None and nullable:
        return None
    if not isinstance(value, str) or not value:
        raise NotDocumented(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _url(where: str, value: Any, *, nullable: bool = False) -> str | None:
    text = _text(where, value, nullable=nullable)
    if text is not None and (urlsplit(text).scheme not in ("http", "https")
                             or not urlsplit(text).netloc):
        raise NotDocumented(f"{where}: expected an absolute URL, got {text!r}")
    return text


def _object(where: str, value: Any, keys: set[str]) -> dict[str, Any]:
    if not isinstance(value, dict) or set(value) != keys:
        raise NotDocumented(f"{where}: expected an object of {sorted(keys)}, got {value!r}")
    return value


def _digits(where: str, value: Any) -> int:
    if not isinstance(value, str) or not value.isdigit():
        raise NotDocumented(f"{where}: expected digits in a string, got {value!r}")
    return int(value)


def _snapshot(value: Any) -> Snapshot:
    shot = _object("snapshot", value, SNAPSHOT_KEYS)
    return Snapshot(_digits("snapshot.index", shot["index"]),
                    str(_text("snapshot.status", shot["status"])),
                    str(_url("snapshot.html_url", shot["html_url"])),
                    str(_url("snapshot.api_url", shot["api_url"])))


def _provenance(value: Any) -> Provenance:
    made = _object("artifact.provenance", value, PROVENANCE_KEYS)
    return Provenance(
        str(_text("provenance.flow", made["flow"])), str(_text("provenance.status", made["status"])),
        _text("provenance.commit", made["commit"], nullable=True),
        _url("provenance.commit_url", made["commit_url"], nullable=True),
        str(_url("provenance.html_url", made["html_url"])),
        str(_url("provenance.api_url", made["api_url"])),
        _url("provenance.build_url", made["build_url"], nullable=True))


def _artifact(value: Any) -> Artifact:
    artifact = _object("artifact", value, ARTIFACT_KEYS)
    fingerprint = str(_text("artifact.fingerprint", artifact["fingerprint"]))
    if not re.fullmatch(r"[0-9a-f]{64}", fingerprint):
        raise NotDocumented(f"artifact.fingerprint: expected a SHA-256, got {fingerprint!r}")
    provenance = artifact["provenance"]
    return Artifact(str(_text("artifact.name", artifact["name"])), fingerprint,
                    None if provenance is None else _provenance(provenance))


def parse(body: Any) -> Notification:
    """The notification in `body` (a webhook's JSON), or NotDocumented saying what is wrong."""
    if not isinstance(body, dict) or not DOCUMENTED_KEYS <= set(body):
        raise NotDocumented(f"expected an object with {sorted(DOCUMENTED_KEYS)}, got {body!r}")
    if body["version"] != "1.0":
        raise NotDocumented(f"version: expected '1.0', got {body['version']!r}")
    event_type = str(_text("event_type", body["event_type"]))
    if not re.fullmatch(r"[A-Z]+(_[A-Z]+)+", event_type):
        raise NotDocumented(f"event_type: expected like ARTIFACT_STARTED, got {event_type!r}")
    notification = Notification(
        version=body["version"], timestamp=_digits("timestamp", body["timestamp"]),
        org=str(_text("org", body["org"])),
        environment=_text("environment", body["environment"], nullable=True),
        event_type=event_type, description=str(_text("description", body["description"])),
        snapshot=None if body["snapshot"] is None else _snapshot(body["snapshot"]),
        artifact=None if body["artifact"] is None else _artifact(body["artifact"]),
        extra={k: v for k, v in body.items() if k not in DOCUMENTED_KEYS})
    if event_type in ENVIRONMENT_EVENTS:
        needs_snapshot, needs_artifact = ENVIRONMENT_EVENTS[event_type]
        if notification.environment is None:
            raise NotDocumented(f"{event_type}: no environment")
        if needs_snapshot and notification.snapshot is None:
            raise NotDocumented(f"{event_type}: no snapshot")
        if needs_artifact and notification.artifact is None:
            raise NotDocumented(f"{event_type}: no artifact")
    return notification
