"""What a notification says. A WEBHOOK target receives the JSON document of the hosted docs
(integrations/kosli_actions.md): `version`, `timestamp` (Unix seconds, a string), `org`,
`environment`, `event_type`, `description`, `snapshot {index (a string), status, html_url,
api_url}` and `artifact {name, fingerprint, provenance {flow, status, commit, commit_url,
html_url, api_url, build_url}}`. Every one of those keys is in every notification, null when
the event has none (a trail's start has no environment, snapshot nor artifact; an artifact
never reported to a flow has no provenance; a report without a commit or an http(s) commit or
build URL has null ones). Flow actions' events add what they are about: `flow`, `trail`, `attestation`,
`approval`. SLACK targets get the same facts as a message (`slack_message`), EMAIL targets the
headline as subject and the document as body.

A notification is written whole into the outbox when its event happens and sent as written."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ...storage.db import now
from ...storage.models import Organization
from ..kernel.artifact_links import artifact_api_url, artifact_html_url
from ..kernel.urls import parsed_url

VERSION = "1.0"
# The action's trigger (our API, kept) -> the event type a notification names. The docs name
# ARTIFACT_STARTED; the others follow it.
EVENT_TYPES = {
    "ON_STARTED_ARTIFACT": "ARTIFACT_STARTED", "ON_EXITED_ARTIFACT": "ARTIFACT_EXITED",
    "ON_SCALED_ARTIFACT": "ARTIFACT_SCALED", "ON_ALLOWED_ARTIFACT": "ARTIFACT_ALLOWED",
    "ON_NON_COMPLIANT_ENV": "ENVIRONMENT_NON_COMPLIANT",
    "ON_COMPLIANT_ENV": "ENVIRONMENT_COMPLIANT",
    "ON_STARTED_TRAIL": "TRAIL_STARTED", "ON_ATTESTED_PROVENANCE": "ARTIFACT_REPORTED",
    "ON_ATTESTATION": "ATTESTATION_REPORTED", "ON_APPROVAL": "APPROVAL_REPORTED",
    "ON_RELEASE": "ARTIFACT_RELEASED"}


@dataclasses.dataclass(frozen=True)
class Reported:
    """Where an artifact was built: a report of it to a flow."""

    uid: str  # the report's id (Artifact.uid)
    flow: str
    state: str  # its compliance in the report's trail: COMPLIANT, NON-COMPLIANT, INCOMPLETE
    commit: str | None
    commit_url: str | None
    build_url: str | None


# (org, fingerprints, flow id or None) -> the first report of each fingerprint (in that flow).
# Reports are evidence, a context above this one: it registers the lookup at start-up.
Provenances = Callable[[Organization, list[str], int | None], dict[str, Reported]]
_provenances: Provenances | None = None
_html_base = ""


def register_provenance(lookup: Provenances) -> None:
    global _provenances
    _provenances = lookup


def configure_links(html_base: str) -> None:
    """The base of the `html_url` and `api_url` links notifications carry (the public URL)."""
    global _html_base
    _html_base = html_base.rstrip("/")


def status(compliant: bool | None) -> str:
    return {True: "compliant", False: "non-compliant", None: "unknown"}[compliant]


def instances(was: int, count: int) -> str:
    """A change of running instances, as the docs word it: `1 instance started running (from
    0 to 1)`."""
    moved = abs(count - was)
    return (f"{moved} instance{'' if moved == 1 else 's'} "
            f"{'started' if count > was else 'stopped'} running (from {was} to {count})")


def snapshot(org: Organization, env_name: str, index: int, compliant: bool | None
             ) -> dict[str, Any]:
    return {"index": str(index), "status": status(compliant),
            "html_url": f"{_html_base}/{org.name}/environments/{env_name}/snapshots/{index}",
            "api_url": f"{_html_base}/api/v2/snapshots/{org.name}/{env_name}/{index}"}


def artifacts(org: Organization, named: Mapping[str, str], flow_id: int | None = None
              ) -> dict[str, dict[str, Any]]:
    """The `artifact` of each fingerprint in `named` (fingerprint -> the name it has here),
    its provenance its first report (to the flow of `flow_id`, when given)."""
    assert _provenances is not None, "registered when the domain is imported"
    reports = _provenances(org, list(named), flow_id) if named else {}
    return {fingerprint: {"name": name, "fingerprint": fingerprint,
                          "provenance": _provenance(org, fingerprint, reports.get(fingerprint))}
            for fingerprint, name in named.items()}


def artifact(org: Organization, name: str, fingerprint: str, flow_id: int | None = None
             ) -> dict[str, Any]:
    """The `artifact` of one fingerprint (as `artifacts`)."""
    return artifacts(org, {fingerprint: name}, flow_id)[fingerprint]


def _provenance(org: Organization, fingerprint: str, report: Reported | None
                ) -> dict[str, Any] | None:
    if report is None:
        return None
    return {"flow": report.flow, "status": report.state.lower(), "commit": report.commit,
            "commit_url": _link_or_none(report.commit_url),
            "html_url": artifact_html_url(_html_base, org.name, report.flow, fingerprint,
                                          report.uid),
            "api_url": artifact_api_url(_html_base, org.name, report.flow, fingerprint),
            "build_url": _link_or_none(report.build_url)}


def _link_or_none(url: str | None) -> str | None:
    """A reported URL, or None for one that is not an http(s) URL with a host (kept before the
    door refused such URLs, or of another scheme): a receiver follows what it is given."""
    parts = parsed_url(url) if url else None
    return url if parts is not None and parts.scheme in ("http", "https") and parts.hostname \
        else None


def document(org: Organization, trigger: str, description: str, *,
             environment: str | None = None, snapshot: dict[str, Any] | None = None,
             artifact: dict[str, Any] | None = None, **about: Any) -> dict[str, Any]:
    """The notification of `trigger`; `about`: what a flow action's event adds."""
    return {"version": VERSION, "timestamp": str(int(now())), "org": org.name,
            "environment": environment, "event_type": EVENT_TYPES[trigger],
            "description": description, "snapshot": snapshot, "artifact": artifact, **about}


# ---- as text -------------------------------------------------------------------------------

def _flat(document: Mapping[str, Any]) -> bool:
    """Whether a notification was queued by a release before this shape (before 2026-11-28:
    `payload_version`, `ON_...` event types, its facts at the top level)."""
    return document.get("version") != VERSION


def headline(document: Mapping[str, Any]) -> str:
    """One line: the organization, event, place and description (an email's subject)."""
    if _flat(document):
        return f"[{document.get('org')}] {document.get('event_type')}"
    place = document["environment"] or document.get("flow")
    return (f"[{document['org']}] {document['event_type']}{f' in {place}' if place else ''}: "
            f"{document['description']}")


def _escaped(text: object) -> str:
    """Text as Slack's mrkdwn shows it as is."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _link(url: str | None, label: object) -> str:
    return f"<{_escaped(url)}|{_escaped(label)}>" if url else _escaped(label)


def slack_message(document: Mapping[str, Any]) -> dict[str, str]:
    """An incoming-webhook message with the facts of the document: its headline, snapshot,
    artifact and provenance (with their html_url links), and what a flow's event adds. A
    document queued in the flat shape lists its fields as stored."""
    lines = [_escaped(headline(document))]
    if _flat(document):
        lines += [f"{_escaped(key)}: {_escaped(value)}" for key, value in document.items()]
        return {"text": "\n".join(lines)}
    if shot := document["snapshot"]:
        lines.append(f"Snapshot {_link(shot['html_url'], '#' + shot['index'])}: "
                     f"{shot['status']}")
    if artifact := document["artifact"]:
        lines.append(f"Artifact {_escaped(artifact['name'])}, fingerprint "
                     f"{artifact['fingerprint']}")
        made = artifact["provenance"]
        if made is None:
            lines.append("Provenance: none (never reported to a flow)")
        else:
            lines.append(
                f"Built in flow {_link(made['html_url'], made['flow'])} ({made['status']}), "
                f"commit {_link(made['commit_url'], made['commit'] or 'unknown')}, "
                f"build {_link(made['build_url'], made['build_url'] or 'unknown')}")
    for key in ("flow", "trail", "attestation", "approval"):
        value = document.get(key)
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        if value is not None:
            lines.append(f"{key.capitalize()}: {_escaped(value)}")
    return {"text": "\n".join(lines)}
