"""What the trail page shows, made ready in Python: a trail may hold hundreds of attestations and
events, so each row reaches the template as a few finished texts (times formatted, data
pretty-printed, links built) rather than as messages the template would walk field by field."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any
from urllib.parse import quote, urlsplit

import orjson
from flask import current_app
from markupsafe import Markup

from evidence_grpc.convert import plain_data
from evidence_grpc.memo import small_lru

from ..codec import message_to_json


def when(value: Any) -> str:
    """Seconds since the epoch (a number, or text as artifacts carry it) as UTC; '' for none."""
    try:
        stamp = float(value)
        return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(stamp)) if stamp else ""
    except (TypeError, ValueError, OverflowError, OSError):
        return ""


def pretty(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:  # integers past 64 bits
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


def segment(value: Any) -> str:
    """A name as one path segment of a link."""
    return quote(str(value), safe="")


@dataclasses.dataclass(frozen=True, slots=True)
class Shown:
    """One attestation as its row on the page: the inside of its <details>, rendered."""

    attestation_id: str
    html: Markup


class _Seen:
    """An attestation as a cache key: its bytes (it never changes once reported, but names in
    it may, so all of it is the key) and where its attachment is downloaded."""

    __slots__ = ("message", "org", "base", "key")

    def __init__(self, message: Any, org: str, base: str) -> None:
        self.message, self.org, self.base = message, org, base
        self.key = (base, message.SerializeToString(deterministic=True))

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Seen) and self.key == other.key


def shown(a: Any, org: str, attachment_base: str) -> Shown:
    """An Attestation message as its row. Rows are kept for the attestations seen last: a trail
    page is looked at again and again, and its attestations' rows are most of its cost."""
    return _row(_Seen(a, org, attachment_base))


@small_lru(items=2048, most_bytes=4096, size=lambda seen: len(seen.key[1]))
def _row(seen: _Seen) -> Shown:
    """Its fields, and as JSON blocks the results of its kind, its summary and its user data."""
    a = seen.message
    kind = a.WhichOneof("kind")
    blocks = []
    if a.summary.fields:
        blocks.append(("Summary", pretty(plain_data(a.summary, "summary"))))
    if kind:
        data = message_to_json(getattr(a, kind))
        if data:
            blocks.append(("Data", pretty(data)))
    if a.HasField("user_data"):
        user_data = plain_data(a.user_data, "user_data")
        if user_data:
            blocks.append(("User data", pretty(user_data)))
    annotations = [(humanized(key), value, is_link(value)) for key, value in sorted(a.annotations.items())]
    attachment = None
    if a.HasField("evidence"):
        attachment = (f"{seen.base}/{segment(a.attestation_id)}/attachment",
                      a.evidence.filename, a.evidence.size, a.evidence.sha256[:12])
    html = current_app.jinja_env.get_template("attestation.html").module.row(  # type: ignore[attr-defined]
        name=a.attestation_name, type=a.attestation_type,
        about=a.target_artifact if a.HasField("target_artifact") else "",
        compliant=a.is_compliant, when=when(a.created_at), by=a.created_by,
        description=a.description if a.HasField("description") else "",
        attachment=attachment, annotations=annotations, blocks=blocks,
        entry=(a.log_index, f"/{segment(seen.org)}/log/entries/{a.log_index}")
        if a.HasField("log_index") else None,
        override=f"Overrides an earlier verdict: {a.override.reason} (by {a.override.by})"
        if a.HasField("override") else "")
    return Shown(a.attestation_id, Markup(html))


def humanized(key: str) -> str:
    """An annotation's key as the hosted pages show it: `report_url` -> "Report url"."""
    return key[:1].upper() + key[1:].replace("_", " ")


def is_link(value: str) -> bool:
    """Whether an annotation's value is shown as a link: an http(s) URL with a host."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and value == value.strip()


def compliance_rows(status: Any) -> list[tuple[str, str, str, str]]:
    """(attestation, type, status, why) for each line of a trail's compliance status."""
    rows = []
    for s in status.attestations_statuses:
        rows.append((s.attestation_name, s.attestation_type, s.status, _why(
            s, "required by the template, not reported", unexpected=s.unexpected)))
    for name, artifact in status.artifacts_statuses.items():
        for s in artifact.attestations_statuses:
            rows.append((f"{name}.{s.attestation_name}", s.attestation_type, s.status,
                         _why(s, f"required of artifact {name}, not reported")))
        if artifact.status == "MISSING":
            rows.append((name, "artifact", "MISSING", "required by the template, not reported"))
    return rows


def _why(s: Any, missing: str, *, unexpected: bool = False) -> str:
    if s.status == "MISSING":
        return missing
    if s.HasField("is_compliant") and not s.is_compliant:
        return "reported non-compliant"
    return "not in the template" if unexpected else ""


def timeline(events: Any) -> list[tuple[str, str, str, str]]:
    """(when, what happened, git commit, compliance) of each event, newest first: the columns and
    the words of the events table `kosli get trail` prints."""
    return [(when(e.timestamp), event_text(e), _commit_of(e), _compliance_of(e))
            for e in reversed(events)]


def event_text(event: Any) -> str:
    """One line for a trail event, worded as `kosli get trail` words it ("trail started")."""
    kind = event.WhichOneof("detail")
    if event.type == "trail_reported":
        return "trail started"
    if event.type == "trail_updated":
        return "trail updated"
    if kind == "artifact":
        a = event.artifact
        return f"artifact '{a.artifact_name}' created for template name '{a.template_reference_name}'"
    if kind == "attestation":
        a = event.attestation
        if a.HasField("target_artifact"):
            return (f"'{a.attestation_type}' attestation reported for "
                    f"{a.target_artifact}.{a.template_reference_name}")
        return f"'{a.attestation_type}' attestation reported for {a.template_reference_name} on the trail"
    if kind == "running":
        r = event.running
        verb = "stopped" if event.type == "artifact_stopped_running" else "started"
        return f"artifact '{r.template_reference_name}' {verb} running in '{r.environment_name}'"
    if kind == "approval":
        a = event.approval
        if a.state == "PENDING":
            return f"approval #{a.approval_number} requested"
        return f"approval #{a.approval_number} created by '{a.reviewer}'"
    return event.type


def _commit_of(event: Any) -> str:
    """The short commit the event was reported with, if any."""
    kind = event.WhichOneof("detail")
    if kind not in ("trail", "artifact", "attestation"):
        return ""
    return getattr(event, kind).git_commit_info.sha1[:7]


def _compliance_of(event: Any) -> str:
    """An attestation's verdict as the CLI's COMPLIANCE column shows it; '' for other events."""
    attestation = event.attestation if event.WhichOneof("detail") == "attestation" else None
    if attestation is None or not attestation.HasField("is_compliant"):
        return ""
    return "compliant" if attestation.is_compliant else "non-compliant"
