"""Evaluating environment policies against artifacts.

A policy (the latest version of its YAML) holds three kinds of rules: provenance (the artifact
was reported to a flow), trail-compliance (it is compliant in its trail) and required
attestations (by name and type, a decision for a control, optionally compliant). Each rule is
resolved once per report of the artifact (flow and trail): `rule_not_applicable` when its `if`
is false or one of its exceptions holds, else satisfied or the reason it is not. A rule is
ignored when no report makes it applicable; a policy is COMPLIANT when every rule it does not
ignore is satisfied. The decisions have the hosted shape (`policy_decisions`, and
`applied_policies` with each policy's `policy_dump`).

A decision counts wherever it was recorded (tutorials/working_with_controls: "no restrictions
on which flow or trail a decision can be recorded on"): a `for_control` rule is decided by the
artifact's decisions for the control, those recorded for its fingerprint on any trail of any
flow and the trail-scoped ones of the trails it was reported to, the most recent one deciding
("the most recent one is used when evaluating compliance").

Everything about the artifacts is read in a few set-based queries for all of them: provenance
(artifacts.provenance_of) and, when a policy requires attestations, the attestations of their
trails, and when one names a control, their decisions; parsed policies are cached by their
YAML text (a version never changes), in a cache bounded by the bytes of the texts it keeps.

What judging costs is bounded where policies are written and attached (policies.py: rules per
policy, policies per environment) and where a snapshot is judged (`judged_resolutions`: each
rule of each policy, for each report of each artifact)."""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from peewee import Tuple, fn

from ...api.v2 import views
from ...memo import bytes_lru
from ...storage.db import in_chunks
from ...storage.models import Artifact, Attestation, Organization, Policy, PolicyVersion
from ..evidence.artifacts import provenance_of
from ..evidence.compliance import COMPLIANT
from ..kernel.errors import InvalidArgument
from ..kernel.yaml_documents import load_mapping
from .policy_expressions import Expression, ExpressionError, parse

PROVENANCE, TRAIL_COMPLIANCE, ATTESTATION = "provenance", "trail-compliance", "attestation"
SATISFIED, NOT_APPLICABLE = "rule_satisfied", "rule_not_applicable"
NO_PROVENANCE = "no_provenance"
MISSING_ATTESTATION = "missing_attestation"
NON_COMPLIANT_ATTESTATION = "non_compliant_attestation"
NON_COMPLIANT_IN_TRAIL = "non_compliant_in_trail"
NON_COMPLIANT = "NON-COMPLIANT"
_PASSING = (SATISFIED, NOT_APPLICABLE)
# Compiled policies kept per process, counted as their YAML's bytes (the compiled rules are
# proportional to it): a few of the largest storable texts (1 MiB), thousands of usual ones.
COMPILED_POLICY_BYTES = 8 * 1024 * 1024

# What judging may cost. Hosted policies have a handful of rules and environments a few
# policies; these leave room for an order of magnitude more while keeping a snapshot's judging
# well under a second and its answer (every rule's decision for every artifact) a few MB.
MAX_ATTESTATION_RULES = 100  # per policy, besides its provenance and trail-compliance rules
MAX_EXCEPTIONS = 20  # per provenance or trail-compliance rule
MAX_ENVIRONMENT_POLICIES = 20  # attached to one environment
# Per snapshot: each rule of each attached policy, for each report of each running artifact
# (one for an artifact without provenance), e.g. 1,000 artifacts under 3 policies of 6 rules
# or 240 under one at MAX_ATTESTATION_RULES; its answer renders a decision for each.
MAX_JUDGED_RESOLUTIONS = 25_000


# ---- policies --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Rule:
    kind: str  # provenance | trail-compliance | attestation
    definition: dict[str, Any]  # as rule_evaluations show it
    required: bool = True
    exceptions: tuple[Expression, ...] = ()
    condition: Expression | None = None
    name: str = "*"
    type: str = "*"
    must_be_compliant: bool = True
    for_control: str | None = None

    @functools.cached_property
    def reads_artifact(self) -> bool:
        """Whether any of its expressions reads artifact.* (else only the flow matters)."""
        return any(e.reads_artifact for e in (*self.exceptions, self.condition) if e)

    @functools.cached_property
    def shown(self) -> views.PolicyRule:
        """The rule as rule_evaluations show it."""
        return {"type": self.kind, "definition": self.definition}


@dataclasses.dataclass(frozen=True)
class LoadedPolicy:
    id: str
    name: str
    version: int
    rules: tuple[Rule, ...]
    dump: dict[str, Any]  # the hosted `policy_dump`

    @functools.cached_property
    def artifact_rules(self) -> tuple[int, ...]:
        """Indexes of the rules whose expressions read artifact.*."""
        return tuple(i for i, rule in enumerate(self.rules) if rule.reads_artifact)


def _text_of(condition: Any) -> str | None:
    """The expression of an `if` written as `${{ ... }}` text or as {text: ...}."""
    if isinstance(condition, dict):
        condition = condition.get("text")
    return condition if isinstance(condition, str) else None


def normalize_conditions(document: dict[str, Any]) -> dict[str, str]:
    """Rewrite every `if` of the document to the schema's {text} form (YAML writes it as
    `${{ ... }}` text) and parse it; {dotted path: problem} for each malformed one."""
    problems: dict[str, str] = {}
    artifacts = document.get("artifacts")
    if not isinstance(artifacts, dict):
        return problems
    holders: list[tuple[str, Any]] = []
    for key in (PROVENANCE, TRAIL_COMPLIANCE):
        rule = artifacts.get(key)
        if isinstance(rule, dict) and isinstance(rule.get("exceptions"), list):
            holders += [(f"artifacts.{key}.exceptions.{i}", e)
                        for i, e in enumerate(rule["exceptions"])]
    if isinstance(artifacts.get("attestations"), list):
        holders += [(f"artifacts.attestations.{i}", a)
                    for i, a in enumerate(artifacts["attestations"])]
    for path, holder in holders:
        if not isinstance(holder, dict) or holder.get("if") is None:
            continue
        text = _text_of(holder["if"])
        if text is None:
            continue  # the schema names what is wrong with it
        try:
            holder["if"] = {"text": parse(text).text}
        except ExpressionError as exc:
            problems[f"{path}.if"] = f"Invalid expression: {exc}"
    return problems


def rule_problems(document: dict[str, Any]) -> dict[str, str]:
    """What the schema cannot say about rules (their number included): {dotted path:
    problem}."""
    problems = {}
    artifacts = document.get("artifacts") or {}
    attestations = artifacts.get("attestations") or []
    if len(attestations) > MAX_ATTESTATION_RULES:
        problems["artifacts.attestations"] = (
            f"A policy has at most {MAX_ATTESTATION_RULES} attestation rules; this one has "
            f"{len(attestations)}")
    for key in (PROVENANCE, TRAIL_COMPLIANCE):
        exceptions = (artifacts.get(key) or {}).get("exceptions") or []
        if len(exceptions) > MAX_EXCEPTIONS:
            problems[f"artifacts.{key}.exceptions"] = (
                f"A rule has at most {MAX_EXCEPTIONS} exceptions; this one has {len(exceptions)}")
    if problems:  # judging each of thousands of rules would only repeat the count
        return problems
    for i, rule in enumerate(attestations):
        if rule.get("name", "*") == "*" and rule.get("type") == "*":
            problems[f"artifacts.attestations.{i}"] = "name and type must not both be '*'"
        kind = rule.get("type")
        if isinstance(kind, str) and kind.startswith("custom:") and not kind[7:].strip():
            problems[f"artifacts.attestations.{i}.type"] = (
                "'custom:' must name a custom attestation type after the colon, "
                "as in 'custom:coverage'")
        if rule.get("for_control") is not None and rule.get("type") != "decision":
            problems[f"artifacts.attestations.{i}.for_control"] = \
                "for_control is only valid when type is 'decision'"
    return problems


def _boolean_rule(kind: str, raw: dict[str, Any] | None) -> tuple[Rule, dict[str, Any]]:
    raw = raw or {}
    texts = [e["if"]["text"] for e in raw.get("exceptions") or [] if e.get("if")]
    required = bool(raw.get("required", False))
    rule = Rule(kind, {"required": required, "exceptions": [{"if": {"text": t}} for t in texts]},
                required=required, exceptions=tuple(parse(t) for t in texts))
    dump = {"required": required, "exceptions": [{"if_condition": {"text": t}} for t in texts]}
    return rule, dump


def _attestation_rule(raw: dict[str, Any]) -> tuple[Rule, dict[str, Any]]:
    text = (raw.get("if") or {}).get("text")
    fields: dict[str, Any] = {"name": raw.get("name", "*"), "type": raw["type"],
                              "must_be_compliant": bool(raw.get("must_be_compliant", True))}
    if raw.get("for_control") is not None:
        fields["for_control"] = raw["for_control"]
    condition = {"text": text} if text else {}
    rule = Rule(ATTESTATION, {**({"if": condition} if text else {}), **fields},
                condition=parse(text) if text else None, **fields)
    return rule, {**({"if_condition": condition} if text else {}), **fields}


@bytes_lru(max_bytes=COMPILED_POLICY_BYTES, size=lambda policy_yaml: len(policy_yaml.encode()))
def compile_policy(policy_yaml: str) -> tuple[tuple[Rule, ...], dict[str, Any]]:
    """(rules, policy_dump) of a stored (already validated) policy document."""
    document = load_mapping(policy_yaml, "policy_file", "policy")
    problems = normalize_conditions(document)
    if problems:  # stored before expressions were checked
        raise InvalidArgument("Invalid policy", problems)
    artifacts = document.get("artifacts") or {}
    provenance, provenance_dump = _boolean_rule(PROVENANCE, artifacts.get(PROVENANCE))
    trail, trail_dump = _boolean_rule(TRAIL_COMPLIANCE, artifacts.get(TRAIL_COMPLIANCE))
    attestations = [_attestation_rule(a) for a in artifacts.get("attestations") or []]
    rules = (provenance, trail, *(r for r, _ in attestations))
    dump = {"schema_version": "1", "artifacts": {
        "provenance": provenance_dump, "trail_compliance": trail_dump,
        "attestations": [d for _, d in attestations]}}
    return rules, dump


def latest_policies(org: Organization, names: Iterable[str]) -> list[LoadedPolicy]:
    """The latest version of each named policy of the organization, in the order named; names
    that are not policies are left out. Two queries however many policies."""
    names = list(dict.fromkeys(names))
    if not names:
        return []
    by_name = {p.name: p for chunk in in_chunks(names) for p in Policy.select().where(
        (Policy.organization == org) & Policy.name.in_(chunk))}
    latest: dict[int, PolicyVersion] = {}
    for chunk in in_chunks([p.id for p in by_name.values()]):
        newest = (PolicyVersion.select(PolicyVersion.policy, fn.MAX(PolicyVersion.version))
                  .where(PolicyVersion.policy.in_(chunk)).group_by(PolicyVersion.policy))
        for version in PolicyVersion.select().where(  # the newest only, not every YAML
                Tuple(PolicyVersion.policy, PolicyVersion.version).in_(newest)):
            latest[version.policy_id] = version
    loaded = []
    for name in names:
        policy = by_name.get(name)
        if policy is None or policy.id not in latest:
            continue
        rules, dump = compile_policy(latest[policy.id].policy_yaml)
        loaded.append(LoadedPolicy(str(policy.id), name, latest[policy.id].version, rules, dump))
    return loaded


def policies_applied(applied: list[dict[str, Any]]) -> list[LoadedPolicy]:
    """The policy versions a snapshot was judged by (its `applied_policies`, in order), loaded
    again to render its decisions: versions never change. One query."""
    wanted = {(int(p["id"]), p["version"]) for p in applied}
    if not wanted:
        return []
    rows = {(v.policy_id, v.version): v for v in PolicyVersion.select().where(
        PolicyVersion.policy.in_(sorted({policy for policy, _ in wanted})))
        if (v.policy_id, v.version) in wanted}
    loaded = []
    for p in applied:
        version = rows[(int(p["id"]), p["version"])]
        rules, dump = compile_policy(version.policy_yaml)
        loaded.append(LoadedPolicy(str(p["id"]), p["name"], p["version"], rules, dump))
    return loaded


# ---- facts about artifacts ---------------------------------------------------------------------

def trail_attestations(trail_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """The attestations of trails, oldest first: {name, type, is_compliant, control, target,
    fingerprint}."""
    by_trail: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for chunk in in_chunks(sorted(set(trail_ids))):
        for trail_id, name, type_, compliant, target, fingerprint, summary in (
                Attestation.select(Attestation.trail, Attestation.name, Attestation.type,
                                   Attestation.is_compliant, Attestation.target_artifact,
                                   Attestation.artifact_fingerprint, Attestation.summary)
                .where(Attestation.trail.in_(chunk)).order_by(Attestation.id).tuples()):
            control = summary.get("control") if isinstance(summary, dict) else None
            by_trail[trail_id].append({"name": name, "type": type_,
                                       "is_compliant": bool(compliant), "control": control,
                                       "target": target, "fingerprint": fingerprint})
    return by_trail


def _about(report: dict[str, Any], fingerprint: str,
           attestations: list[dict[str, Any]]) -> dict[tuple[str | None, str], dict[str, Any]]:
    """What an attestation rule counts for one report of an artifact: the attestations of its
    trail, the newest of each name on each subject (the trail, or an artifact by its template
    name or fingerprint). That is those on the trail, those about the artifact, and those about
    the trail's other artifacts: a trail records one build, and the hosted labs count the
    `application.unit-tests` of the JAR for the image built from it in that trail ("missing ...
    attestation in trail", as the CLI says). A decision is the exception: it decides for the
    artifact it names only."""
    template_name = report.get("template_reference_name")
    newest = {}
    for a in attestations:
        elsewhere = a["target"] is not None and a["fingerprint"] != fingerprint and not (
            template_name and a["target"] == template_name)
        if not (elsewhere and a["type"] == "decision"):
            newest[(a["target"], a["name"])] = a
    return newest


def _decision(id_: int, name: str, compliant: bool, summary: Any) -> tuple[int, dict[str, Any]]:
    control = summary.get("control") if isinstance(summary, dict) else None
    return id_, {"name": name, "is_compliant": bool(compliant), "control": control}


def decisions_about(org: Organization, provenance: dict[str, list[dict[str, Any]]]
                    ) -> dict[str, list[dict[str, Any]]]:
    """The decisions about each reported artifact, oldest first ({name, is_compliant,
    control}): those recorded for its fingerprint on any trail of any flow (they name one of
    its reports: attestations._target, or artifacts._bind_pending for one recorded about a
    template name before the artifact was reported) and the trail-scoped ones of the trails
    of its `provenance`. Two indexed queries (per IN chunk)."""
    found: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for fingerprints in in_chunks(sorted(provenance)):
        for id_, name, compliant, summary, fingerprint in (
                Attestation.select(Attestation.id, Attestation.name, Attestation.is_compliant,
                                   Attestation.summary, Artifact.fingerprint)
                .join(Artifact, on=Attestation.artifact == Artifact.id)
                .where((Artifact.organization == org) & Artifact.fingerprint.in_(fingerprints)
                       & (Attestation.type == "decision")).tuples()):
            key, decision = _decision(id_, name, compliant, summary)
            found[fingerprint][key] = decision
    by_trail: dict[int, list[str]] = defaultdict(list)
    for fingerprint, reports in provenance.items():
        for r in reports:
            by_trail[r["_trail_id"]].append(fingerprint)
    for trails in in_chunks(sorted(by_trail)):
        for id_, name, compliant, summary, trail_id in (
                Attestation.select(Attestation.id, Attestation.name, Attestation.is_compliant,
                                   Attestation.summary, Attestation.trail)
                .where(Attestation.trail.in_(trails) & (Attestation.type == "decision")
                       & Attestation.target_artifact.is_null()).tuples()):
            key, decision = _decision(id_, name, compliant, summary)
            for fingerprint in by_trail[trail_id]:
                found[fingerprint][key] = decision
    return {f: [d for _, d in sorted(by_id.items())] for f, by_id in found.items()}


# ---- decisions ---------------------------------------------------------------------------------

def _context(fingerprint: str, name: str | None, report: dict[str, Any] | None
             ) -> dict[str, Any]:
    artifact = {"name": name, "fingerprint": fingerprint}
    if report is None:
        return {"flow": None, "artifact": artifact}
    return {"flow": {"name": report["flow_name"], "tags": report.get("_flow_tags") or {}},
            "artifact": {**artifact, "name": name or report.get("_artifact_name")}}


Memo = dict[tuple[Any, ...], Any]


class _Case:
    """One report of an artifact (or none: no provenance) as its rules see it.

    A rule's outcome depends only on the flow, the trail compliance state and the attestations
    (`key`), and on the artifact when its expressions read artifact.*, so outcomes are kept in a
    memo shared by a batch: artifacts built alike are judged once."""

    def __init__(self, fingerprint: str, name: str | None, report: dict[str, Any] | None,
                 attestations: dict[tuple[str | None, str], dict[str, Any]], memo: Memo,
                 decisions: Sequence[dict[str, Any]] = ()) -> None:
        self.report = report
        self.context = _context(fingerprint, name, report)
        self.attestations = attestations
        self.decisions = decisions  # the artifact's, wherever recorded (decisions_about)
        self.memo = memo
        self.flow_key = report["flow_name"] if report else ""
        self.key = (self.flow_key, report["compliance_state"] if report else None,
                    tuple(sorted((a["name"], a["type"], a["is_compliant"], a["control"])
                                 for a in attestations.values())),
                    tuple((d["name"], d["is_compliant"], d["control"]) for d in decisions))
        self.values: dict[str, bool] = {}  # expressions reading artifact.*, by text

    def holds(self, expression: Expression) -> bool:
        """Its value here: once per flow (rules of several policies often share a condition),
        or once per case when it reads artifact.*."""
        if expression.reads_artifact:
            found = self.values.get(expression.text)
            if found is None:
                found = self.values[expression.text] = expression.holds(self.context)
            return found
        key = (expression.text, self.flow_key)
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = expression.holds(self.context)
        return found

    def outcomes(self, policy: LoadedPolicy) -> tuple[Sequence[str | None], bool]:
        """(the outcome of each rule of the policy, whether one of them fails). Rules that do
        not read the artifact are resolved once per batch for cases alike."""
        key = (id(policy), self.key)
        found = self.memo.get(key)
        if found is None:
            shared = tuple(None if rule.reads_artifact else self.resolve(rule)
                           for rule in policy.rules)
            found = self.memo[key] = (shared, any(o not in _PASSING for o in shared
                                                  if o is not None))
        shared, failed = found
        if not policy.artifact_rules:
            return shared, failed
        filled = list(shared)
        for i in policy.artifact_rules:
            filled[i] = outcome = self.resolve(policy.rules[i])
            failed = failed or outcome not in _PASSING
        return filled, failed

    def resolve(self, rule: Rule) -> str:
        report = self.report
        if rule.kind == ATTESTATION:
            if rule.condition is not None and not self.holds(rule.condition):
                return NOT_APPLICABLE
            if report is None:
                return MISSING_ATTESTATION
            if rule.for_control is not None:
                return self.decided(rule)
            found = [a for a in self.attestations.values()
                     if rule.name in ("*", a["name"]) and rule.type in ("*", a["type"])]
            if not found:
                return MISSING_ATTESTATION
            if rule.must_be_compliant and not all(a["is_compliant"] for a in found):
                return NON_COMPLIANT_ATTESTATION
            return SATISFIED
        if not rule.required or any(self.holds(e) for e in rule.exceptions):
            return NOT_APPLICABLE
        if report is None:
            return NO_PROVENANCE
        if rule.kind == TRAIL_COMPLIANCE and report["compliance_state"] != COMPLIANT:
            return NON_COMPLIANT_IN_TRAIL
        return SATISFIED

    def decided(self, rule: Rule) -> str:
        """A `for_control` rule's outcome: its control's most recent decision about the
        artifact (of the rule's name, unless '*') decides, wherever it was recorded."""
        latest = next((d for d in reversed(self.decisions) if d["control"] == rule.for_control
                       and rule.name in ("*", d["name"])), None)
        if latest is None:
            return MISSING_ATTESTATION
        if rule.must_be_compliant and not latest["is_compliant"]:
            return NON_COMPLIANT_ATTESTATION
        return SATISFIED



def _context_for(rule: Rule, report: dict[str, Any] | None) -> views.RuleResolutionContext:
    """Where a rule was resolved: the report (flow and trail) it was resolved for."""
    where: views.RuleResolutionContext = {
        "flow_name": report["flow_name"] if report else None,
        "trail_name": report["trail_name"] if report else None,
        "artifact_status": report["compliance_state"]
        if report and rule.kind == TRAIL_COMPLIANCE else None}
    if rule.for_control:
        where["for_control"] = rule.for_control
    return where


# One letter per outcome: what a snapshot keeps of each rule's resolutions (`Outcomes.codes`),
# from which the hosted `policy_decisions` are rendered when read (`render_decisions`).
_CODE = {SATISFIED: "S", NOT_APPLICABLE: "N", NO_PROVENANCE: "P", MISSING_ATTESTATION: "M",
         NON_COMPLIANT_ATTESTATION: "C", NON_COMPLIANT_IN_TRAIL: "T"}
_OUTCOME = {code: outcome for outcome, code in _CODE.items()}
_PASSING_CODES = {_CODE[SATISFIED], _CODE[NOT_APPLICABLE], ","}


def _outcomes_of(resolved: str | tuple[str, ...]) -> list[str] | tuple[str, ...]:
    return [_OUTCOME[c] for c in resolved] if isinstance(resolved, str) else resolved


def kept_outcomes(policies: list[LoadedPolicy], decided: str | list[list[str]]
                  ) -> list[list[str]]:
    """outcomes[p][r] (a letter per report) from what a snapshot kept: `Outcomes.codes`, or
    the per-policy lists of letters that snapshots kept before 2026-11-25."""
    if not isinstance(decided, str):
        return decided
    return [list(text) if len(text) == len(policy.rules) else text.split(",")
            for policy, text in zip(policies, decided.split("|"), strict=True)]


def render_reasons(policies: list[LoadedPolicy], outcomes: list[list[Any]],
                   reports: list[dict[str, Any] | None]) -> list[views.IncomplianceReason]:
    """An artifact's reasons_for_incompliance, from the same inputs as `render_decisions`."""
    reasons: list[views.IncomplianceReason] = []
    for policy, per_policy in zip(policies, outcomes, strict=True):
        for rule, resolved in zip(policy.rules, per_policy, strict=True):
            for outcome, report in zip(_outcomes_of(resolved), reports, strict=True):
                if outcome in _PASSING:
                    continue
                trail = (f" in trail '{report['trail_name']}' of flow "
                         f"'{report['flow_name']}'") if report else ""
                reasons.append({"type": outcome, "message": f"Policy '{policy.name}': "
                                f"{_failure_text(rule, outcome)}{trail}"})
    return reasons


def render_decisions(policies: list[LoadedPolicy], outcomes: list[list[Any]],
                     reports: list[dict[str, Any] | None]) -> list[views.PolicyEvaluation]:
    """The hosted `policy_decisions` of one artifact: outcomes[p][r] are the outcomes of rule r
    of policy p for each of the artifact's reports (a string of `_CODE` letters, or a tuple of
    outcomes), `reports` its reports in the same order ([None]: no provenance)."""
    decisions: list[views.PolicyEvaluation] = []
    for policy, per_policy in zip(policies, outcomes, strict=True):
        evaluations: list[views.RuleEvaluation] = []
        compliant = True
        for rule, resolved in zip(policy.rules, per_policy, strict=True):
            resolved = _outcomes_of(resolved)
            applicable = [o for o in resolved if o != NOT_APPLICABLE]
            satisfied = all(o == SATISFIED for o in applicable) if applicable else None
            compliant = compliant and satisfied is not False
            evaluations.append({
                "rule": rule.shown, "satisfied": satisfied, "ignored": not applicable,
                "resolutions": [{"type": o, "context": _context_for(rule, report)}
                                for o, report in zip(resolved, reports, strict=True)]})
        decisions.append({"policy_name": policy.name, "policy_version": policy.version,
                          "status": COMPLIANT if compliant else NON_COMPLIANT,
                          "rule_evaluations": evaluations})
    return decisions


def _failure_text(rule: Rule, outcome: str) -> str:
    """What a failed resolution means, in the words `kosli assert artifact` prints (which
    adds "in trail")."""
    if outcome == NO_PROVENANCE:
        return "artifact has no provenance"
    if outcome == NON_COMPLIANT_IN_TRAIL:
        return "artifact is not compliant"
    if outcome == MISSING_ATTESTATION:
        if rule.for_control:
            return f"artifact is missing required {rule.type} for control '{rule.for_control}'"
        return f"artifact is missing required '{rule.name}' (type: {rule.type}) attestation"
    if rule.for_control:
        return f"decision for control '{rule.for_control}' is non-compliant"
    return f"attestation '{rule.name}' is non-compliant"


class Outcomes:
    """The outcomes of every rule of every policy for an artifact's cases, shared by the
    artifacts of a batch that the policies see alike."""

    def __init__(self, policies: list[LoadedPolicy], cases: list[_Case]) -> None:
        # vectors[p][c][r]: policy p, case c, rule r
        self.vectors: list[list[Any]] = []
        failing = set()
        for policy in policies:
            per_case = [case.outcomes(policy) for case in cases]
            self.vectors.append([vector for vector, _ in per_case])
            if any(failed for _, failed in per_case):
                failing.add(policy.name)
        self.failing = frozenset(failing)  # names of the policies failed

    @functools.cached_property
    def by_rule(self) -> list[list[tuple[str, ...]]]:
        """outcomes[p][r][c]: policy p, rule r, case c."""
        return [list(zip(*vectors, strict=True)) for vectors in self.vectors]

    @functools.cached_property
    def codes(self) -> str:
        """What a snapshot keeps to render `policy_decisions` later (`kept_outcomes` reads it):
        per policy ("|" between them) one letter per rule, or with several reports, the
        letters of each rule's reports with "," between rules."""
        if all(len(per_case) == 1 for per_case in self.vectors):  # the common case: one report
            return "|".join("".join(_CODE[o] for o in vectors[0]) for vectors in self.vectors)
        return "|".join(",".join("".join(_CODE[o] for o in outcomes) for outcomes in per_policy)
                        for per_policy in self.by_rule)


class ArtifactVerdict:
    """The policies' verdict on one artifact: `compliant` at once; `policy_decisions` (the
    hosted shape) and `reasons` (for reasons_for_incompliance) built when first read, as only
    views that show them need them."""

    def __init__(self, policies: list[LoadedPolicy], cases: list[_Case],
                 outcomes: Outcomes) -> None:
        self._policies = policies
        self._reports = [case.report for case in cases]
        self.outcomes = outcomes
        self.failing = outcomes.failing
        self.compliant = not self.failing

    @functools.cached_property
    def policy_decisions(self) -> list[views.PolicyEvaluation]:
        return render_decisions(self._policies, self.outcomes.by_rule, self._reports)

    @functools.cached_property
    def reasons(self) -> list[views.IncomplianceReason]:
        return render_reasons(self._policies, self.outcomes.by_rule, self._reports)


class Batch:
    """One judging of many artifacts by the same policies. Artifacts whose cases have the same
    key and the same values of the expressions that read artifact.* share their `Outcomes`:
    each such group is resolved once, however many artifacts it holds."""

    def __init__(self, policies: list[LoadedPolicy]) -> None:
        self.policies = policies
        self.memo: Memo = {}
        self.reading_artifact = tuple({
            e.text: e for policy in policies for rule in policy.rules
            for e in (*rule.exceptions, rule.condition) if e and e.reads_artifact}.values())
        self.alike: dict[tuple[Any, ...], Outcomes] = {}

    def decide(self, fingerprint: str, name: str | None, reports: list[dict[str, Any]],
               attestations: dict[int, list[dict[str, Any]]],
               decisions: Sequence[dict[str, Any]] = ()) -> ArtifactVerdict:
        """The verdict of every policy on one artifact, given its reports (provenance), the
        attestations of their trails (by trail id) and its decisions (decisions_about)."""
        cases = [_Case(fingerprint, name, r,
                       _about(r, fingerprint, attestations.get(r["_trail_id"], [])), self.memo,
                       decisions)
                 for r in reports] or [_Case(fingerprint, name, None, {}, self.memo)]
        alike = tuple((case.key, tuple(case.holds(e) for e in self.reading_artifact))
                      for case in cases)
        outcomes = self.alike.get(alike)
        if outcomes is None:
            outcomes = self.alike[alike] = Outcomes(self.policies, cases)
        return ArtifactVerdict(self.policies, cases, outcomes)


def decide(policies: list[LoadedPolicy], fingerprint: str, name: str | None,
           reports: list[dict[str, Any]], attestations: dict[int, list[dict[str, Any]]],
           decisions: Sequence[dict[str, Any]] = ()) -> ArtifactVerdict:
    """The verdict of every policy on one artifact (a batch of one)."""
    return Batch(policies).decide(fingerprint, name, reports, attestations, decisions)


def needs_attestations(policies: Iterable[LoadedPolicy]) -> bool:
    """Whether a rule reads the attestations of the artifacts' trails (a `for_control` rule
    reads their decisions instead)."""
    return any(rule.kind == ATTESTATION and rule.for_control is None
               for p in policies for rule in p.rules)


def needs_decisions(policies: Iterable[LoadedPolicy]) -> bool:
    return any(rule.for_control is not None for p in policies for rule in p.rules)


def attestations_for(provenance: dict[str, list[dict[str, Any]]],
                     policies: list[LoadedPolicy]) -> dict[int, list[dict[str, Any]]]:
    """The attestations of the reported trails, read only when a policy requires some."""
    if not needs_attestations(policies):
        return {}
    return trail_attestations(r["_trail_id"] for reports in provenance.values() for r in reports)


def judged_resolutions(policies: list[LoadedPolicy], provenance: dict[str, list[Any]],
                       fingerprints: Iterable[str]) -> int:
    """How many rule resolutions judging `fingerprints` by `policies` takes: every rule, for
    each report of each artifact (one for an artifact without provenance). Judging time, the
    outcome codes a snapshot keeps and its answer's policy decisions grow with it."""
    rules = sum(len(p.rules) for p in policies)
    return rules * sum(max(1, len(provenance.get(f, ()))) for f in fingerprints)


def evaluate(org: Organization, fingerprints: Iterable[str], policies: list[LoadedPolicy], *,
             provenance: dict[str, list[dict[str, Any]]] | None = None,
             names: dict[str, str] | None = None) -> dict[str, ArtifactVerdict]:
    """{fingerprint: verdict of `policies`} for many artifacts at once, in a few set-based
    queries. `provenance` (as artifacts.provenance_of builds it) is read when not given; `names`
    are the names the artifacts run under (else their reported names)."""
    wanted = sorted({f for f in fingerprints if f})
    if provenance is None:
        provenance = provenance_of(org, wanted, "")
    attestations = attestations_for(provenance, policies)
    decisions = decisions_about(org, provenance) if needs_decisions(policies) else {}
    names, batch = names or {}, Batch(policies)
    return {f: batch.decide(f, names.get(f), provenance.get(f, []), attestations,
                            decisions.get(f, ())) for f in wanted}


def applied_policies(policies: list[LoadedPolicy]) -> list[dict[str, Any]]:
    """The snapshot's `applied_policies` as it keeps them; their failing_artifacts are found
    from its verdicts when read (`fails`)."""
    return [{"id": p.id, "name": p.name, "version": p.version, "policy_dump": p.dump}
            for p in policies]


def fails(decided: str | list[list[str]]) -> list[bool]:
    """Per applied policy, whether an artifact's kept outcome codes fail it."""
    per_policy = decided.split("|") if isinstance(decided, str) else map("".join, decided)
    return [bool(set(codes) - _PASSING_CODES) for codes in per_policy]
