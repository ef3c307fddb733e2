"""Compliance of a trail against its template.

A requirement is met by an attestation of the same name (and, unless the template says `*`,
the same type); the trail is COMPLIANT when every requirement is met by a compliant
attestation, NON-COMPLIANT when any attestation is non-compliant, INCOMPLETE otherwise.
"""

from __future__ import annotations

from typing import Any

COMPLIANT = "COMPLIANT"
NON_COMPLIANT = "NON-COMPLIANT"
INCOMPLETE = "INCOMPLETE"


def _requirement_status(requirement: dict[str, str]) -> dict[str, Any]:
    return {
        "attestation_name": requirement["name"],
        "attestation_type": requirement["type"],
        "attestation_id": None,
        "overridden_attestation_id": None,
        "status": "MISSING",
        "is_compliant": False,
        "unexpected": False,
    }


def _overall(statuses: list[dict[str, Any]]) -> str:
    if any(s["status"] != "MISSING" and s["is_compliant"] is False for s in statuses):
        return NON_COMPLIANT
    if any(s["status"] == "MISSING" for s in statuses):
        return INCOMPLETE
    return COMPLIANT


def evaluate_trail(template: dict[str, Any], evaluated_at: float) -> dict[str, Any]:
    """The compliance_status object of a trail that has the given template."""
    trail_statuses = [_requirement_status(r) for r in template["trail"]["attestations"]]
    artifacts: dict[str, Any] = {}
    for artifact in template["trail"]["artifacts"]:
        statuses = [_requirement_status(r) for r in artifact["attestations"]]
        artifacts[artifact["name"]] = {
            "artifact_fingerprint": None,
            "artifact_id": None,
            "status": "MISSING",
            "is_compliant": False,
            "attestations_statuses": statuses,
            "unexpected": False,
            "evaluated_at": evaluated_at,
            "flow_template_id": None,
        }
    everything = trail_statuses + [
        {"status": a["status"], "is_compliant": a["is_compliant"]} for a in artifacts.values()]
    state = _overall(everything)
    return {
        "status": state,
        "is_compliant": state == COMPLIANT,
        "attestations_statuses": trail_statuses,
        "artifacts_statuses": artifacts,
        "evaluated_at": evaluated_at,
        "flow_template_id": None,
    }
