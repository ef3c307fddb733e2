"""Compliance of a trail against its template (pure functions, no storage).

A requirement `{name, type}` is met by the newest attestation of that name at the same level
(trail, or the artifact with that template name) whose type matches, unless the template says
`*`. An attestation nobody required is listed as `unexpected`. A trail or artifact is
NON-COMPLIANT when any of its attestations is non-compliant, INCOMPLETE when something required
is missing, COMPLIANT otherwise. What the template requires of the trail counts for each of its
artifacts too (the hosted docs: an artifact is compliant "if and only if all the template
attestations have been made against it and are themselves compliant: `jira-ticket` on its
Trail, ..."); an attestation on the trail that the template does not name counts for the trail
only. An override is simply the newest attestation of that name.
"Newest" is report order (the attestation id), as every read orders them; wall-clock times can
disagree between processes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ...api.v2 import views

COMPLIANT = "COMPLIANT"
NON_COMPLIANT = "NON-COMPLIANT"
INCOMPLETE = "INCOMPLETE"
MISSING = "MISSING"
COMPLETE = "COMPLETE"


def _type_matches(required: str, actual: str) -> bool:
    return required in ("*", actual)


def _status_entry(name: str, type_: str, attestation: dict[str, Any] | None,
                  unexpected: bool) -> views.AttestationStatus:
    return {
        "attestation_name": name,
        "attestation_type": attestation["type"] if attestation else type_,
        "attestation_id": attestation["id"] if attestation else None,
        "overridden_attestation_id": attestation.get("overrides") if attestation else None,
        "status": COMPLETE if attestation else MISSING,
        "is_compliant": bool(attestation and attestation["is_compliant"]),
        "unexpected": unexpected,
    }


def _newest_by_name(attestations: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    newest: dict[str, dict[str, Any]] = {}
    for attestation in sorted(attestations, key=lambda a: a["seq"]):
        newest[attestation["name"]] = attestation
    return newest


def _statuses(requirements: list[dict[str, str]], attestations: list[dict[str, Any]]
              ) -> list[views.AttestationStatus]:
    newest = _newest_by_name(attestations)
    entries: list[views.AttestationStatus] = []
    for requirement in requirements:
        found = newest.pop(requirement["name"], None)
        if found is not None and not _type_matches(requirement["type"], found["type"]):
            found = None
        entries.append(_status_entry(requirement["name"], requirement["type"], found, False))
    entries.extend(_status_entry(name, a["type"], a, True) for name, a in newest.items())
    return entries


def _overall(entries: Sequence[Mapping[str, Any]]) -> str:
    if any(e["status"] != MISSING and not e["is_compliant"] for e in entries):
        return NON_COMPLIANT
    if any(e["status"] == MISSING for e in entries):
        return INCOMPLETE
    return COMPLIANT


def evaluate_trail(template: Mapping[str, Any], evaluated_at: float,
                   attestations: list[dict[str, Any]] | None = None,
                   artifacts: list[dict[str, Any]] | None = None,
                   flow_template_id: str | None = None, artifacts_judged_alone: bool = False
                   ) -> views.ComplianceStatus:
    """The compliance_status object of a trail judged by `template` (the kept template of id
    `flow_template_id`, templates.version). What the template requires of the trail counts for
    each artifact too, but with `artifacts_judged_alone`: a trail begun before migration 0025
    keeps the rule that judged its artifacts by their own requirements.

    attestations: {id, name, type, is_compliant, seq (report order: the newest has the highest),
    target (template name of the artifact it is about, or None), overrides}; artifacts: {id,
    fingerprint, template_reference_name}."""
    attestations = attestations or []
    artifacts = artifacts or []
    trail_level = [a for a in attestations if a["target"] is None]
    trail_entries = _statuses(template["trail"]["attestations"], trail_level)
    required_of_trail = [e for e in trail_entries
                         if not e["unexpected"] and not artifacts_judged_alone]

    artifact_entries: dict[str, views.ArtifactStatus] = {}
    required = {a["name"]: a["attestations"] for a in template["trail"]["artifacts"]}
    reported = {a["template_reference_name"]: a for a in artifacts if a["template_reference_name"]}
    for name in [*required, *(n for n in reported if n not in required)]:
        artifact = reported.get(name)
        about_it = [a for a in attestations if a["target"] == name]
        entries = _statuses(required.get(name, []), about_it)
        state = _overall([*required_of_trail, *entries]) if artifact else MISSING
        artifact_entries[name] = {
            "artifact_fingerprint": artifact["fingerprint"] if artifact else None,
            "artifact_id": artifact["id"] if artifact else None,
            "status": state,
            "is_compliant": state == COMPLIANT,
            "attestations_statuses": entries,
            "unexpected": name not in required,
            "evaluated_at": evaluated_at,
            "flow_template_id": flow_template_id,
        }

    # An artifact missing evidence (MISSING or INCOMPLETE) leaves the trail incomplete; only a
    # NON-COMPLIANT artifact makes it non-compliant.
    everything = trail_entries + [
        {"status": MISSING if a["status"] in (MISSING, INCOMPLETE) else COMPLETE,
         "is_compliant": a["status"] == COMPLIANT} for a in artifact_entries.values()]
    state = _overall(everything)
    return {
        "status": state,
        "is_compliant": state == COMPLIANT,
        "attestations_statuses": trail_entries,
        "artifacts_statuses": artifact_entries,
        "evaluated_at": evaluated_at,
        "flow_template_id": flow_template_id,
    }


def artifact_state(compliance: views.ComplianceStatus, template_reference_name: str | None) -> str:
    """The compliance state of one reported artifact of an evaluated trail."""
    entry = compliance["artifacts_statuses"].get(template_reference_name or "")
    status = entry["status"] if entry else compliance["status"]
    assert status is not None, "evaluate_trail gives every entry a status"
    return status


def trail_part(compliance: views.ComplianceStatus, artifacts_judged_alone: bool) -> str:
    """What an evaluated trail requires of itself that counts for each of its artifacts, as
    one status (COMPLIANT when nothing does): with an artifact's own entries it makes the
    artifact's state (`with_trail_part`)."""
    if artifacts_judged_alone:
        return COMPLIANT
    return _overall([e for e in compliance["attestations_statuses"] if not e["unexpected"]])


def with_trail_part(part: str, entries: Sequence[Mapping[str, Any]]) -> str:
    """An artifact's state from its trail's part (`trail_part`) and its own attestations'
    statuses (its artifacts_statuses entry's), as evaluate_trail makes it."""
    stands_for = {COMPLIANT: [], INCOMPLETE: [{"status": MISSING, "is_compliant": False}],
                  NON_COMPLIANT: [{"status": COMPLETE, "is_compliant": False}]}
    if part not in stands_for:
        raise ValueError(f"{part!r} is not a verdict")
    return _overall([*stands_for[part], *entries])
