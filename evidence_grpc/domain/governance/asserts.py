"""`kosli assert artifact`: is an artifact compliant, and with what.

Three scopes: "flow" (its compliance in every trail it was reported to), "environment" (the
policies attached to an environment) and "policy" (named policies, in the order given). Every
scope lists the flows and trails the artifact was reported to (optionally only one flow's) with
their compliance, which the CLI prints."""

from __future__ import annotations

from typing import Any

from ...api.v2 import views
from ...storage.models import Organization
from ..evidence.artifacts import FINGERPRINT_LENGTH, check_prefix, provenance_of
from ..evidence.compliance import COMPLIANT
from ..evidence.flows import find_flow
from ..kernel.errors import missing, validation_error
from ..runtime.environments import find_environment
from ..runtime.policy_eval import (
    NOT_APPLICABLE,
    SATISFIED,
    LoadedPolicy,
    evaluate,
    latest_policies,
)


def _policies(org: Organization, environment_name: str | None, policy_names: list[str]
              ) -> tuple[str, list[LoadedPolicy]]:
    """(scope, the policies to assert against)."""
    if environment_name and policy_names:
        raise validation_error("policy_name", "Name an environment or policies, not both")
    if environment_name:
        env = find_environment(org, environment_name)
        return "environment", latest_policies(org, env.policies or [])
    if policy_names:
        loaded = latest_policies(org, policy_names)
        absent = [n for n in policy_names if n not in {p.name for p in loaded}]
        if absent:
            raise missing("policy", organization=org.name, policy=absent[0])
        return "policy", loaded
    return "flow", []


def _artifact_result(report: dict[str, Any], fingerprint: str) -> views.ArtifactStatus:
    """The artifact's own compliance in the trail of a report: its entry in the trail's
    artifacts_statuses (whose state counts what the template requires of the trail too), or,
    when the template does not name it, the trail's state for it."""
    compliance: views.ComplianceStatus = report["_compliance"]
    entry = compliance["artifacts_statuses"].get(report["template_reference_name"] or "")
    if entry:
        return entry
    return {"artifact_fingerprint": fingerprint, "status": report["compliance_state"],
            "is_compliant": report["compliance_state"] == COMPLIANT, "attestations_statuses": [],
            "evaluated_at": compliance["evaluated_at"], "unexpected": True}


def _flow(report: dict[str, Any], artifact: views.ArtifactStatus) -> views.AssertedFlow:
    """A report's flow and trail with the artifact's compliance there: its state (the one
    `compliance_state` and `compliant` are derived from) and the attestations that make it,
    the trail's own and the artifact's, beside the trail's other artifacts."""
    compliance: views.ComplianceStatus = report["_compliance"]
    return {"flow": report["flow_name"], "trail": report["trail_name"], "compliance_status": {
        **compliance, "status": artifact["status"], "is_compliant": artifact["is_compliant"],
        "attestations_statuses": [*compliance["attestations_statuses"],
                                  *artifact["attestations_statuses"]]}}


def _listed_once(evaluation: views.RuleEvaluation) -> views.RuleEvaluation:
    """A `for_control` rule is decided by the artifact's decisions wherever they were recorded,
    so every report it applies to fails it alike: the CLI prints a line per failed resolution,
    and the failure is listed once, at the first report failing it (where the artifact was
    built, when the rule applies there)."""
    definition = (evaluation.get("rule") or {}).get("definition") or {}
    if not definition.get("for_control"):
        return evaluation
    failed: set[str] = set()
    kept: list[views.RuleResolution] = []
    for resolution in evaluation.get("resolutions", ()):
        if resolution["type"] in (SATISFIED, NOT_APPLICABLE):
            kept.append(resolution)
        elif resolution["type"] not in failed:
            failed.add(resolution["type"])
            kept.append(resolution)
    return {**evaluation, "resolutions": kept}


def assert_artifact(org: Organization, fingerprint: str, html_base: str, *,
                    flow_name: str | None = None, environment_name: str | None = None,
                    policy_names: list[str] | None = None) -> views.AssertArtifactResponse:
    """The assert answer for one artifact (NotFound when it was never reported, to the flow
    when one is named)."""
    fingerprint = check_prefix("fingerprint", fingerprint, FINGERPRINT_LENGTH,
                               minimum=FINGERPRINT_LENGTH)
    policy_names = list(dict.fromkeys(policy_names or []))
    scope, policies = _policies(org, environment_name, policy_names)
    flow = find_flow(org, flow_name) if flow_name else None
    reports = [r for r in provenance_of(org, [fingerprint], html_base).get(fingerprint, [])
               if flow is None or r["flow_name"] == flow.name]
    if not reports:
        raise (missing("artifact_in_flow", organization=org.name, flow=flow.name,
                             fingerprint=fingerprint) if flow
               else missing("artifact_in_org", organization=org.name, fingerprint=fingerprint))
    results = [_artifact_result(r, fingerprint) for r in reports]
    flows = [_flow(r, result) for r, result in zip(reports, results, strict=True)]
    # The published answer names one report, where the artifact was built: the first, whose
    # page `html_url` links (as the hosted service's does: the CLI's own test of an artifact
    # reported to two flows sees the first flow's page), with its flow, trail and compliance.
    answer: views.AssertArtifactResponse = {
        "scope": scope, "fingerprint": fingerprint, "flow": flows[0]["flow"],
        "trail": flows[0]["trail"], "compliance_status": results[0], "flows": flows,
        "html_url": reports[0]["html_url"], "policy_evaluations": []}
    if scope == "flow":
        answer["compliant"] = all(r["is_compliant"] for r in results)
        return answer
    verdict = evaluate(org, [fingerprint], policies, provenance={fingerprint: reports})[fingerprint]
    answer["compliant"] = verdict.compliant
    answer["policy_evaluations"] = [  # the hosted shape, as the servicer reads it
        {"policy_name": d["policy_name"], "policy_version": d["policy_version"],
         "status": d["status"], "rule_evaluations": [_listed_once(e)
                                                     for e in d["rule_evaluations"]]}
        for d in verdict.policy_decisions]
    if scope == "environment":
        answer["environment"] = environment_name
    return answer
