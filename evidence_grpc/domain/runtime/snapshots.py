"""Environment reports and the snapshots made from them.

A report says what runs now. It makes a new numbered snapshot only when the set of running
artifacts (name and fingerprint) differs from the latest snapshot; each new snapshot records
which artifacts started and exited (events), and every start in a physical environment is a
deployment. Reports of one environment are serialized: the environment row is locked
(PostgreSQL) or the write transaction is exclusive (SQLite), and the unique (environment, index)
key with a retry backs that up.

Compliance is judged once, when a snapshot is made, and kept with it (`Snapshot.verdicts`):
later evidence, template edits or policy changes show in the next snapshot, never in an old one
(a report of what already runs makes no snapshot and judges nothing). An environment's attached
policies decide (policy_eval): an artifact is compliant when it is allowlisted in the
environment or complies with every attached policy, and a snapshot is compliant when all its
artifacts are. An environment without policies has no requirements: its snapshots are of Unknown compliance
(`compliance_state` UNKNOWN; the hosted `compliant` a bool, false, as `kosli assert snapshot`
reads it), while each artifact keeps its own compliance: allowlisted, or reported and compliant
in every trail it was reported to (what `kosli get artifact` shows)."""

from __future__ import annotations

import calendar
import dataclasses
import functools
import re
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ...api.v2 import views
from ...storage.db import (
    Prepared,
    database,
    locked,
    now,
    read_snapshot,
    retry_on_conflict,
    write_transaction,
)
from ...storage.models import (
    AllowlistEntry,
    Environment,
    EnvironmentEvent,
    Organization,
    Snapshot,
)
from ..evidence.artifacts import provenance_of, report_names
from ..evidence.compliance import COMPLIANT
from ..evidence.repos import built_from
from ..evidence.trail_events import record_running
from ..kernel import list_sizes
from ..kernel.errors import FailedPrecondition, not_found, validation_error
from ..kernel.numbers import as_int64, whole_number
from ..kernel.pages import page_of
from ..outbound import actions
from ..transparency import log
from . import env_audit, leaves
from .deployment_diffs import ArtifactDiffs, deployment_diffs
from .deployments import lead_time, record
from .environments import (
    LOGICAL,
    find_environment,
    has_schema,
    latest_snapshots,
    member_names,
    validate,
)
from .policy_eval import (
    MAX_JUDGED_RESOLUTIONS,
    ArtifactVerdict,
    LoadedPolicy,
    applied_policies,
    evaluate,
    fails,
    judged_resolutions,
    kept_outcomes,
    latest_policies,
    policies_applied,
    render_decisions,
    render_reasons,
)

NO_NEW_SNAPSHOT = "Report processed, no new snapshot was created"
# An artifact's reasons_for_incompliance shown in a snapshot, then one saying how many more.
MAX_SHOWN_REASONS = 20
MORE_REASONS = "more_reasons"
MAX_EVENTS_PER_PAGE = 100
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400,
          "month": 30 * 86400, "year": 365 * 86400}
# Digits are ASCII ([0-9], not \d) and patterns match whole strings (fullmatch); the numbers
# they capture go through numbers.whole_number, which keeps them within an integer column.
_RELATIVE = re.compile(r"([0-9]+)\.(second|minute|hour|day|week|month|year)s?\.ago")
_SHORT_RELATIVE = re.compile(r"([0-9]+)\s*(second|minute|hour|day|week|month|year)s?",
                             re.I | re.ASCII)
_EXPRESSION = re.compile(r"#?([0-9]+)|-([0-9]+)|~([0-9]+)|@\{([^}]*)\}|(?i:now)")


# ---- reports -------------------------------------------------------------------------------

def _entries(env_type: str, artifacts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Running artifacts of a report, one entry per (name, fingerprint), instances counted."""
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for item in artifacts:
        context = {k: v for k, v in item.items() if k not in ("digests", "creationTimestamp")}
        for name, fingerprint in sorted(item["digests"].items()):
            entry = by_key.setdefault((name, fingerprint), {
                "name": name, "fingerprint": fingerprint, "instance_count": 0,
                "creationTimestamp": [], "pods": [] if env_type == "K8S" else None,
                "context": []})
            entry["instance_count"] += 1
            entry["creationTimestamp"].append(int(item["creationTimestamp"]))
            if env_type == "K8S":
                entry["pods"].append(item.get("podName"))
            if context:
                entry["context"].append(context)
    return [by_key[k] for k in sorted(by_key)]


def _running(entries: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    return {(e["name"], e["fingerprint"]): e["instance_count"] for e in entries}


def report_environment(org: Organization, env_name: str, env_type: str,
                       report: dict[str, Any]) -> Snapshot | None:
    """Record a report; the new snapshot, or None when what runs did not change. Judged before
    the write transaction (`judged_write`)."""
    if not has_schema(f"report:{env_type}"):
        raise validation_error("type", f"'{env_type}' is not a report type")
    validate(f"report:{env_type}", report)
    entries = _entries(env_type, report["artifacts"])

    def previous_running(env: Environment) -> dict[tuple[str, str], int] | None:
        """What ran in the latest snapshot (None before the first); its verdicts (hundreds of
        KB with policies) are not read."""
        previous = (Snapshot.select(Snapshot.artifacts)
                    .where((Snapshot.environment == env)
                           & (Snapshot.index == env.latest_index)).get_or_none()
                    if env.latest_index else None)
        return _running(previous.artifacts) if previous else None

    def unchanged(env: Environment, before: dict[tuple[str, str], int] | None) -> bool:
        after = _running(entries)
        return before is not None and set(before) == set(after) and (
            not env.include_scaling or before == after)

    def prepare(env: Environment) -> dict[str, Any] | None:
        _check_reportable(env, env_type)
        if unchanged(env, previous_running(env)):
            return None
        return judged_fields(org, env, entries, env.policies or [], "artifacts")

    def write(env: Environment, judged: dict[str, Any] | None) -> Snapshot | None:
        _check_reportable(env, env_type)
        stamp = now()
        env.last_reported_at = stamp
        before = previous_running(env)
        if unchanged(env, before):
            env.save()
            return None
        assert judged is not None  # the environment is as `prepare` found it
        snapshot = _new_snapshot(org, env, env_type, entries, stamp, judged)
        _record_changes(org, env, snapshot, before or {}, _running(entries), stamp)
        env.last_changed_at = stamp
        env.save()
        return snapshot

    return judged_write(org, env_name, prepare, write)


def _check_reportable(env: Environment, env_type: str) -> None:
    if env.archived:
        raise FailedPrecondition(f"Environment '{env.name}' is archived",
                                 reason="ENVIRONMENT_ARCHIVED", metadata={"environment": env.name})
    if env.type == LOGICAL:
        raise FailedPrecondition(f"Environment '{env.name}' is logical: report to "
                                 "its physical environments", reason="ENVIRONMENT_LOGICAL",
                                 metadata={"environment": env.name})
    if env.type != env_type:
        raise FailedPrecondition(f"Environment '{env.name}' is of type '{env.type}', "
                                 f"not '{env_type}'", reason="ENVIRONMENT_TYPE_MISMATCH",
                                 metadata={"environment": env.name})


Judged = TypeVar("Judged")
Written = TypeVar("Written")
# Tries at judging outside the write transaction before judging inside it, which a writer
# that keeps changing the environment in between cannot make fail.
_JUDGING_TRIES = 3


def _basis(env: Environment) -> tuple[Any, ...]:
    """What a judgement made for an environment depends on in the environment itself."""
    return (env.latest_index, list(env.policies or []), env.include_scaling, env.archived,
            env.type)


def judged_write(org: Organization, env_name: str,
                 prepare: Callable[[Environment], Judged],
                 write: Callable[[Environment, Judged], Written]) -> Written:
    """`write(env, prepare(env))` in one write transaction with the environment locked, where
    `prepare` judges: it runs before the transaction, in a read snapshot (every read it makes
    sees one state of the evidence, which the judgement and the flows a snapshot keeps share),
    so that the writer's lock (on SQLite every organization's) is held for the writes alone.
    The judgement is written when the environment is still as it was judged for (its latest
    snapshot, policies and report settings); else it is judged again, inside the transaction
    at the last try. Outside a transaction of the caller's; inside one, everything runs in it."""
    if database.in_transaction():
        env = locked(find_environment(org, env_name))
        return write(env, prepare(env))
    stale = object()
    for attempt in range(_JUDGING_TRIES):
        with read_snapshot():
            env = find_environment(org, env_name)
            basis, prepared = _basis(env), prepare(env)

        def once(basis: tuple[Any, ...] = basis, prepared: Judged = prepared,
                 last: bool = attempt == _JUDGING_TRIES - 1) -> Written | object:
            with write_transaction():
                env = locked(find_environment(org, env_name))
                if _basis(env) == basis:
                    return write(env, prepared)
                return write(env, prepare(env)) if last else stale

        written = retry_on_conflict(once)
        if written is not stale:
            return written  # type: ignore[return-value]
    raise AssertionError("unreachable: the last try judges in the transaction")


def _new_snapshot(org: Organization, env: Environment, env_type: str,
                  entries: list[dict[str, Any]], stamp: float, judged: dict[str, Any]
                  ) -> Snapshot:
    """The environment's next snapshot of `entries` with the Snapshot fields `judged_fields`
    made for them, in the caller's write transaction with `env` locked (the caller saves
    `env`)."""
    before = (Snapshot.select(Snapshot.compliant)
              .where((Snapshot.environment == env) & (Snapshot.index == env.latest_index))
              .scalar() if env.latest_index else None)
    snapshot = Snapshot.create(environment=env, index=env.latest_index + 1, type=env_type,
                               artifacts=entries, created_at=stamp, **judged)
    env.latest_index = snapshot.index
    leaves.log_snapshot(org, snapshot)
    actions.compliance_changed(org, env, snapshot.index, before, snapshot.compliant)
    return snapshot


def judged_fields(org: Organization, env: Environment, entries: list[dict[str, Any]],
                  policy_names: list[str], field: str) -> dict[str, Any]:
    """The Snapshot fields of the verdict on `entries` (running artifacts) in `env` under the
    policies `policy_names`; InvalidArgument on `field` when judging them would take more than
    MAX_JUDGED_RESOLUTIONS."""
    judgement = judge(org, env, {e["fingerprint"] for e in entries},
                      names={e["fingerprint"]: e["name"] for e in entries},
                      policy_names=policy_names, field=field)
    return _verdicts(bool(policy_names), judgement, entries)


def latest_running(env: Environment) -> Snapshot | None:
    """The type and running artifacts of the environment's latest snapshot (None before the
    first)."""
    if not env.latest_index:
        return None
    return (Snapshot.select(Snapshot.type, Snapshot.artifacts)
            .where((Snapshot.environment == env) & (Snapshot.index == env.latest_index)).get())


def rejudge_latest(org: Organization, env: Environment, judged: dict[str, Any] | None = None,
                   field: str = "policies") -> Snapshot | None:
    """When the policies of an environment change, what it runs is judged again as a new
    snapshot of the same artifacts (the hosted docs: attaching or detaching a policy creates
    a snapshot with the updated compliance); earlier snapshots keep theirs. In the caller's
    write transaction with `env` locked; None before the first snapshot. `judged`: the fields
    `judged_fields` made for the latest snapshot's artifacts under `env.policies` before the
    transaction (else they are judged here)."""
    latest = latest_running(env)
    if latest is None:
        return None
    if judged is None:
        judged = judged_fields(org, env, latest.artifacts, env.policies or [], field)
    return _new_snapshot(org, env, latest.type, latest.artifacts, now(), judged)


def _record_changes(org: Organization, env: Environment, snapshot: Snapshot,
                    before: dict[tuple[str, str], int], after: dict[tuple[str, str], int],
                    stamp: float) -> None:
    index = snapshot.index
    events: list[dict[str, Any]] = []
    for key in sorted(set(before) | set(after)):
        was, count = before.get(key, 0), after.get(key, 0)
        if was == count:
            continue
        kind = "started" if was == 0 else "exited" if count == 0 else "scaled"
        events.append({"environment": env, "snapshot_index": index, "type": kind,
                       "artifact_name": key[0], "fingerprint": key[1], "was": was, "now": count,
                       "reported_at": stamp})
    if events:
        for (event_id,) in EnvironmentEvent.insert_many(events).returning(
                EnvironmentEvent.id).tuples().execute():
            list_sizes.added(event_id, (list_sizes.EVENTS_OF_ENVIRONMENT, env.id))
    record(org, env, index, [(e["artifact_name"], e["fingerprint"]) for e in events
                             if e["type"] == "started"], stamp)
    record_running(org, env, index, events, stamp)
    actions.environment_changed(org, env, snapshot, events)
    env_audit.record_changes(env, index, events)


def report_message(env_name: str, snapshot: Snapshot | None) -> str:
    if snapshot is None:
        return NO_NEW_SNAPSHOT
    return f"Snapshot #{snapshot.index} of environment '{env_name}' was created"


# ---- provenance and compliance -------------------------------------------------------------
# Judged when a snapshot is made (report_environment), by `judge`, and kept in the snapshot;
# reads render what was kept (`verdicts_of`) and never judge again.

@dataclasses.dataclass
class Judgement:
    provenance: dict[str, list[dict[str, Any]]]  # fingerprint -> its reports, oldest first
    allowed: set[str]
    # Set when the environment has policies attached: they decide compliance.
    verdicts: dict[str, ArtifactVerdict] | None = None
    # The policy versions that judged it (`policy_eval.applied_policies`).
    applied_policies: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    def compliant(self, fingerprint: str) -> bool:
        """Allowlisted, or compliant with every attached policy; without policies, reported and
        compliant in every trail it was reported to."""
        if fingerprint in self.allowed:
            return True
        if self.verdicts is not None:
            verdict = self.verdicts.get(fingerprint)
            return verdict is not None and verdict.compliant
        reports = self.provenance.get(fingerprint)
        if not reports:
            return False
        return all(r["compliance_state"] == COMPLIANT for r in reports)

    def reasons(self, fingerprint: str) -> list[views.IncomplianceReason]:
        if self.compliant(fingerprint):
            return []
        if self.verdicts is not None:
            verdict = self.verdicts.get(fingerprint)
            return verdict.reasons if verdict else []
        reports = self.provenance.get(fingerprint)
        if not reports:
            return [{"type": "no_provenance", "message": "Artifact has no provenance"}]
        return [{"type": "non_compliant_trail",
                 "message": f"Artifact is {r['compliance_state']} in trail '{r['trail_name']}' "
                            f"of flow '{r['flow_name']}'"}
                for r in reports if r["compliance_state"] != COMPLIANT]

    def decided(self, fingerprint: str) -> str:
        """What a snapshot keeps to render an artifact's `policy_decisions` when read: the
        outcome codes of every rule of every applied policy ("" without policies)."""
        verdict = (self.verdicts or {}).get(fingerprint)
        return verdict.outcomes.codes if verdict else ""


# Every snapshot read judges its artifacts: compiled once (see storage.db.Prepared).
_ALLOWED = Prepared(lambda env, fingerprints: AllowlistEntry.select(AllowlistEntry.fingerprint).where(
    (AllowlistEntry.environment == env) & AllowlistEntry.fingerprint.in_(fingerprints)),
    env=int, fingerprints=list[str])


def judge(org: Organization, env: Environment, fingerprints: set[str], html_base: str = "",
          names: dict[str, str] | None = None, *, policy_names: list[str] | None = None,
          field: str = "artifacts") -> Judgement:
    """Provenance, trail compliance and allowlisting of the given fingerprints, decided by the
    environment's attached policies (or `policy_names`) when there are any. `names`: the name
    each fingerprint runs under (policy expressions read it as artifact.name; else its
    reported name). InvalidArgument on `field` when the policies would take more than
    MAX_JUDGED_RESOLUTIONS to judge them."""
    wanted = sorted(f for f in fingerprints if f)
    allowed = {row[0] for row in _ALLOWED.rows(env=env.id, fingerprints=wanted)} \
        if wanted else set()
    judgement = Judgement(provenance_of(org, wanted, html_base), allowed)
    policies = latest_policies(org, env.policies or [] if policy_names is None
                               else policy_names)
    if not policies:
        return judgement
    resolutions = judged_resolutions(policies, judgement.provenance, wanted)
    if resolutions > MAX_JUDGED_RESOLUTIONS:
        rules = sum(len(p.rules) for p in policies)
        raise validation_error(field, (
            f"Judging these {len(wanted)} artifacts by the {rules} rules of environment "
            f"'{env.name}'s policies takes {resolutions} rule resolutions (each rule, for each "
            f"report of each artifact); at most {MAX_JUDGED_RESOLUTIONS} per snapshot: attach "
            "fewer or smaller policies, or split the environment"))
    verdicts = evaluate(org, wanted, policies, provenance=judgement.provenance,
                        names=names or {})
    return dataclasses.replace(judgement, verdicts=verdicts,
                               applied_policies=applied_policies(policies))


def _verdict(judgement: Judgement, fingerprint: str) -> dict[str, Any]:
    """What a snapshot keeps of one running artifact's judgement (provenance URLs relative to
    the html base, which reads prepend)."""
    kept = {"compliant": judgement.compliant(fingerprint),
            "decided": judgement.decided(fingerprint),
            "flows": [{k: v for k, v in report.items() if not k.startswith("_")}
                      for report in judgement.provenance.get(fingerprint, [])]}
    if judgement.verdicts is None:  # policies' reasons are rendered from `decided` when read
        kept["reasons_for_incompliance"] = judgement.reasons(fingerprint)
    return kept


def _verdicts(governed: bool, judgement: Judgement, entries: list[dict[str, Any]]
              ) -> dict[str, Any]:
    """The Snapshot fields of a verdict on `entries` (running artifacts). Without policies
    (not `governed`) the environment has no requirements: the snapshot is Unknown (None), and
    each artifact keeps its own compliance (`Judgement.compliant`), as `kosli get artifact`
    shows it. (Snapshots made before 2026-11-29 kept None for each artifact: read as kept.)"""
    verdicts = [{"name": entry["name"], "fingerprint": entry["fingerprint"],
                 **_verdict(judgement, entry["fingerprint"])} for entry in entries]
    return {"verdicts": verdicts,
            "compliant": all(v["compliant"] for v in verdicts) if governed else None,
            "applied_policies": judgement.applied_policies}


# A snapshot keeps the flows of its artifacts' reports by the names they had; answers show each
# by the name it has now (DESIGN.md 12: names are labels; the hosted docs' old snapshots show a
# flow archived since as NAME-archived-at-...). A kept flow is found by its report: the report
# at its position among the fingerprint's reports (`report_names`) when it is of the same trail,
# else the one report of the fingerprint in that trail; else it is shown as kept.
# (fingerprint, position among its kept flows, trail) -> the current name of a kept flow that
# has another name now: empty unless a flow was renamed, so reads relabel nothing then.
Renamed = dict[tuple[str, int, str], str]


def renamed_flows(org: Organization, snapshots: Iterable[Snapshot | None]) -> Renamed:
    """The flows these snapshots kept that have another name now (one query)."""
    kept = [(v["fingerprint"], v["flows"]) for s in snapshots if s is not None
            for v in s.verdicts if v["flows"]]
    reports = report_names(org, [fingerprint for fingerprint, _ in kept])
    return {(fingerprint, i, f["trail_name"]): name for fingerprint, flows in kept
            for i, f in enumerate(flows)
            if (name := _flow_now(reports.get(fingerprint, []), i, f)) != f["flow_name"]}


def _flow_now(reports: list[tuple[str, str]], position: int, flow: dict[str, Any]) -> str:
    """The current name of the flow a snapshot kept at `position` among a fingerprint's
    reports (trail name, current flow name), in report order."""
    trail = flow["trail_name"]
    if position < len(reports) and reports[position][0] == trail:
        return reports[position][1]
    in_trail = [name for report_trail, name in reports if report_trail == trail]
    return in_trail[0] if len(in_trail) == 1 else flow["flow_name"]


def _shown_flow(flow: dict[str, Any], name: str | None, html_base: str) -> dict[str, Any]:
    """A kept flow as shown: its URLs (kept relative) absolute and, when it has another
    `name` now, by that name."""
    page, html = flow["flow_html_url"], flow["html_url"]
    if name is None:
        return {**flow, "html_url": html_base + html, "flow_html_url": html_base + page}
    kept = flow["flow_name"]
    if page.endswith(f"/flows/{kept}"):
        renamed = page[:len(page) - len(kept)] + name
        if html.startswith(page + "/"):
            html = renamed + html[len(page):]
        page = renamed
    return {**flow, "flow_name": name, "html_url": html_base + html,
            "flow_html_url": html_base + page}


def verdicts_of(snapshot: Snapshot | None, html_base: str, renamed: Renamed
                ) -> dict[tuple[str, str], dict[str, Any]]:
    """A snapshot's kept verdicts by (name, fingerprint), their flows by current name
    (`renamed` from `renamed_flows`) and provenance URLs made absolute; their
    `policy_decisions` are rendered by `policy_decisions_of` when a view shows them."""
    if snapshot is None:
        return {}
    applied = _AppliedPolicies(snapshot)
    found = {}
    for verdict in snapshot.verdicts:
        fingerprint = verdict["fingerprint"]
        flows = [_shown_flow(f, renamed.get((fingerprint, i, f["trail_name"])) if renamed
                             else None, html_base) for i, f in enumerate(verdict["flows"])]
        found[(verdict["name"], fingerprint)] = {**verdict, "flows": flows, "_applied": applied}
    return found


class _AppliedPolicies:
    """The policy versions a snapshot was judged by, loaded when first needed."""

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    @functools.cached_property
    def policies(self) -> list[LoadedPolicy]:
        return policies_applied(self._snapshot.applied_policies or [])


def reasons_of(verdict: dict[str, Any]) -> list[views.IncomplianceReason]:
    """An artifact's reasons_for_incompliance: kept as they are without policies, rendered
    from the outcome codes when policies judged it (none when it is compliant, allowlisted
    included)."""
    if "reasons_for_incompliance" in verdict:
        return verdict["reasons_for_incompliance"]
    if verdict["compliant"] is not False:
        return []
    policies = verdict["_applied"].policies
    reasons = render_reasons(policies, kept_outcomes(policies, verdict["decided"]),
                             verdict["flows"] or [None])
    if len(reasons) <= MAX_SHOWN_REASONS:
        return reasons
    # Every failed rule is in policy_decisions already: the reasons are a summary, which
    # beyond a few only repeats them (a quarter of the answer at the limits).
    rest = len(reasons) - MAX_SHOWN_REASONS
    return [*reasons[:MAX_SHOWN_REASONS], {
        "type": MORE_REASONS,
        "message": f"{rest} more reasons: see policy_decisions for every failed rule"}]


def policy_decisions_of(verdict: dict[str, Any]) -> list[views.PolicyEvaluation]:
    """An artifact's hosted `policy_decisions`, rendered from the outcome codes its snapshot
    kept (snapshots judged before the codes were kept carry the rendered decisions)."""
    if "policy_decisions" in verdict:
        return verdict["policy_decisions"]
    codes = verdict.get("decided") or []
    if not codes:
        return []
    policies = verdict["_applied"].policies
    return render_decisions(policies, kept_outcomes(policies, codes), verdict["flows"] or [None])


def environment_states(envs: list[Environment]) -> dict[int, bool | None]:
    """The compliance kept with each environment's latest snapshot (None: Unknown, or no
    snapshot yet)."""
    return {env_id: snapshot.compliant for env_id, snapshot in latest_snapshots(envs).items()}


# ---- snapshot expressions ------------------------------------------------------------------

def _ago(amount: re.Match, field: str) -> float:
    """The time `amount` (a _RELATIVE or _SHORT_RELATIVE match) before now."""
    return time.time() - whole_number(field, amount.group(1)) * _UNITS[amount.group(2).lower()]


def _point_in_time(text: str, field: str) -> float:
    text = text.strip()
    if text.lower() == "now":
        return time.time()
    relative = _RELATIVE.fullmatch(text)
    if relative:
        return _ago(relative, field)
    for layout in ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d"):
        try:
            return float(calendar.timegm(time.strptime(text, layout)))
        except ValueError:
            continue
    raise validation_error(field, f"'{text}' is not a time: use YYYY-MM-DDTHH:MM:SS, "
                                  "N.hours|days|weeks|months.ago or now")


def resolve_index(env: Environment, expression: str, field: str = "snapshot_expression") -> int:
    """The snapshot index an expression names (may be out of range: the caller checks)."""
    match = _EXPRESSION.fullmatch(expression.strip())
    if not match:
        raise validation_error(field, f"'{expression}' is not a snapshot expression: use N, #N, "
                                      "-N, ~N, @{YYYY-MM-DDTHH:MM:SS}, @{N.days.ago} or @{now}")
    absolute, from_end, back, when = match.groups()
    if absolute is not None:
        return whole_number(field, absolute)
    if from_end is not None:
        back_from_end = whole_number(field, from_end)
        if back_from_end == 0:
            raise validation_error(field, f"'{expression.strip()}' names no snapshot: -1 is the "
                                          "latest, -2 the one before it")
        return env.latest_index - back_from_end + 1
    if back is not None:
        return env.latest_index - whole_number(field, back)
    if when is None:  # NOW
        return env.latest_index
    return _index_at(env, _point_in_time(when, field))


def _index_at(env: Environment, at: float) -> int:
    """The index of the snapshot in effect at `at` (0 before the first)."""
    # Ordered by created_at first so the (environment, created_at) index answers it with one
    # probe; ordering by index alone walks every snapshot up to `at`.
    found = (Snapshot.select(Snapshot.index)
             .where((Snapshot.environment == env) & (Snapshot.created_at <= at))
             .order_by(Snapshot.created_at.desc(), Snapshot.index.desc()).first())
    return found.index if found else 0


_SNAPSHOTS_AROUND = Prepared(lambda env, low, high: Snapshot.select().where(
    (Snapshot.environment == env) & Snapshot.index.between(low, high)), env=int, low=int, high=int)


def _snapshots_around(env: Environment, expression: str, reach: int, written: str | None = None
                      ) -> tuple[int, dict[int, Snapshot]]:
    """The index an expression names, and that snapshot and those up to `reach` indexes either
    side of it by index, read in one prepared query; NotFound when the named one is missing
    (naming the snapshot as `written`, by default `<env>#<expression>`)."""
    index = resolve_index(env, expression)
    found = {s.index: s for s in _SNAPSHOTS_AROUND.models(
        Snapshot, env=env.id, low=index - reach, high=index + reach)} if index >= 1 else {}
    if index not in found:
        if env.type == LOGICAL:
            members = ", ".join(member_names(env)) or "none yet"
            raise not_found("snapshot", f"Environment '{env.name}' is logical and has no snapshots of its "
                           f"own: ask the environments it includes ({members})")
        # The hosted wording, which `kosli assert snapshot`, `get snapshot` and `diff
        # snapshots` print as is.
        written = written or f"{env.name}#{expression.strip().removeprefix('#')}"
        raise not_found("snapshot", f"Org: '{env.organization.name}'. Snapshot '{written}' resolves to "
                       f"'{env.name}#{max(index, 0)}'. len(snapshots) == {env.latest_index}. "
                       "Indexes are 1-based")
    return index, found


def find_snapshot(env: Environment, expression: str, written: str | None = None) -> Snapshot:
    index, found = _snapshots_around(env, expression, 0, written)
    return found[index]


def _interval(env: Environment, interval: str | None) -> tuple[int, int]:
    """The indexes of `A..B`; a single expression (`NOW`, `~2`, `5`) is the one snapshot it
    names."""
    if not interval:
        return 1, max(env.latest_index, 1)
    first, sep, last = interval.partition("..")
    if not sep:
        index = resolve_index(env, interval, "interval")
        return index, index
    return (resolve_index(env, first or "1", "interval"),
            resolve_index(env, last or "NOW", "interval"))


# ---- reads ---------------------------------------------------------------------------------

_SNAPSHOT_ITEMS = Prepared(lambda env, low, high: Snapshot.select(
    Snapshot.index, Snapshot.created_at, Snapshot.compliant).where(
    (Snapshot.environment == env) & Snapshot.index.between(low, high)),
    env=int, low=int, high=int)


def list_snapshots(org: Organization, env_name: str, page: int | None, per_page: int | None,
                   interval: str | None = None, reverse: bool = False
                   ) -> list[views.SnapshotListItem]:
    """A page of the environment's snapshots in `interval`, newest first (oldest first with
    `reverse`). Indexes run 1..latest_index without a gap: `_new_snapshot` numbers each the
    latest + 1 with the environment locked (the unique (environment, index) key backs it up),
    and nothing deletes a snapshot. So a page is the range of indexes it holds, read in one
    statement with the snapshot after its last (when the last one shown ended), at the same
    cost at any depth. (A row deleted around the domain, which verify-log names, leaves its
    page one item short; every other snapshot stays on its page.)"""
    env = find_environment(org, env_name)
    paging = page_of(page, per_page, default_size=15)
    low, high = _interval(env, interval)
    indexes = paging.numbered(max(low, 1), min(high, env.latest_index), ascending=reverse)
    if not indexes:
        return []
    found = {s.index: s for s in _SNAPSHOT_ITEMS.models(
        Snapshot, env=env.id, low=min(indexes), high=max(indexes) + 1)}
    stamp = now()
    items: list[views.SnapshotListItem] = []
    for s in (found[i] for i in indexes if i in found):
        following = found.get(s.index + 1)
        until = following.created_at if following else 0
        items.append({"index": s.index, "from": s.created_at, "to": until,
                      "duration": (until or stamp) - s.created_at,
                      "compliant": bool(s.compliant),
                      "compliance_state": compliance_state(s.compliant)})
    return items


def get_snapshot(org: Organization, env_name: str, expression: str, html_base: str
                 ) -> views.Snapshot:
    return find_for_read(org, env_name, expression, html_base).view()


def find_for_read(org: Organization, env_name: str, expression: str, html_base: str
                  ) -> SnapshotRead:
    """The snapshot an expression names, with its neighbours, for an answer."""
    env = find_environment(org, env_name)
    index, near = _snapshots_around(env, expression, 1)
    return SnapshotRead(org, env, near[index], near.get(index - 1), near.get(index + 1),
                        html_base)


def _by_artifact(snapshot: Snapshot | None) -> dict[tuple[str, str], dict[str, Any]]:
    """A snapshot's entries by (name, fingerprint): one build may run under several names."""
    return {(e["name"], e["fingerprint"]): e for e in (snapshot.artifacts if snapshot else [])}


@dataclasses.dataclass(frozen=True)
class SnapshotRead:
    """A snapshot to answer. Its answer is in two parts: what never changes (`kept_view`, a
    pure function of `kept_key`: the snapshot and the one before it are never written again,
    nor are the policy versions that judged it), and what is worked out on every read
    (`fresh`): whether it is the latest, when the next one began, and its artifacts'
    deployment diffs (the previous versions' compliance and trails live on)."""

    org: Organization
    env: Environment
    snapshot: Snapshot
    previous: Snapshot | None
    following: Snapshot | None
    html_base: str

    @functools.cached_property
    def _renamed(self) -> Renamed:
        return renamed_flows(self.org, (self.previous, self.snapshot))

    @functools.cached_property
    def kept_key(self) -> tuple[Any, ...]:
        """What `kept_view` depends on: the snapshot, and the names and base of its URLs (the
        flows it kept by another name among them)."""
        return (self.snapshot.id, self.org.name, self.env.name, self.html_base,
                tuple(sorted(self._renamed.items())))

    def _artifacts(self) -> list[tuple[dict[str, Any], int, int, dict[str, Any]]]:
        """(entry, instances before, instances now, verdict) of each artifact of the answer,
        in its order: those running and those that stopped since the previous snapshot."""
        before, current = _by_artifact(self.previous), _by_artifact(self.snapshot)
        # An exited artifact shows the verdict of the snapshot it last ran in.
        verdicts = {**verdicts_of(self.previous, self.html_base, self._renamed),
                    **verdicts_of(self.snapshot, self.html_base, self._renamed)}
        return [(current.get(key) or before[key],
                 before[key]["instance_count"] if key in before else 0,
                 current[key]["instance_count"] if key in current else 0, verdicts[key])
                for key in sorted(set(current) | set(before))]

    def kept_view(self) -> views.Snapshot:
        """The answer without its fresh part: not the latest, no next snapshot, no deployment
        diffs (`fresh` has them)."""
        snapshot, org, env = self.snapshot, self.org, self.env
        artifacts: list[views.SnapshotArtifact] = []
        counts = {"true": 0, "false": 0, "null": 0}
        for entry, was, count, verdict in self._artifacts():
            artifacts.append(_artifact_view(entry, was, count, verdict))
            if count:
                counts[{True: "true", False: "false", None: "null"}[verdict["compliant"]]] += 1
        return {
            "index": snapshot.index,
            "is_latest": False,
            "next_snapshot_timestamp": None,
            "artifact_compliance_count": counts,
            "timestamp": snapshot.created_at,
            "type": snapshot.type,
            "compliant": bool(snapshot.compliant),
            "compliance_state": compliance_state(snapshot.compliant),
            "html_url": f"{self.html_base}/{org.name}/environments/{env.name}/snapshots/"
                        f"{snapshot.index}",
            "artifacts": artifacts,
            "applied_policies": applied_policies_of(snapshot),
            "log_index": log.log_indexes(leaves.SNAPSHOT, [snapshot.id]).get(snapshot.id),
        }

    def fresh(self) -> SnapshotFresh:
        """What can change after the snapshot was made, as it is now."""
        reports = []
        running: set[str] = set()  # the fingerprints running now
        for entry, _, count, verdict in self._artifacts():
            reports.append((entry["fingerprint"], verdict["flows"]))
            if count:
                running.add(entry["fingerprint"])
        return SnapshotFresh(
            is_latest=self.snapshot.index == self.env.latest_index,
            next_snapshot_timestamp=self.following.created_at if self.following else None,
            deployment_diffs=deployment_diffs(self.org, self.env, self.snapshot.index, reports,
                                              running))

    def view(self) -> views.Snapshot:
        """The whole answer."""
        view = self.kept_view()
        fresh = self.fresh()
        view["is_latest"] = fresh.is_latest
        view["next_snapshot_timestamp"] = fresh.next_snapshot_timestamp
        for artifact, (own, of_flows) in zip(view["artifacts"], fresh.deployment_diffs,
                                             strict=True):
            artifact["deployment_diff"] = own
            for flow, diff in zip(artifact["flows"], of_flows, strict=True):
                flow["deployment_diff"] = diff
        return view


@dataclasses.dataclass(frozen=True)
class SnapshotFresh:
    """The part of a snapshot's answer worked out on every read (`SnapshotRead.fresh`)."""

    is_latest: bool
    next_snapshot_timestamp: float | None
    # Per artifact of the answer, in its order: its deployment_diff and each of its flows'.
    deployment_diffs: list[ArtifactDiffs]


def applied_policies_of(snapshot: Snapshot) -> list[views.AppliedPolicy]:
    """The hosted `applied_policies`: each policy that judged the snapshot with the running
    artifacts it fails (kept with the policies by snapshots made before 2026-11-25)."""
    applied = snapshot.applied_policies or []
    if all("failing_artifacts" in policy for policy in applied):
        return applied
    failing: list[set[str]] = [set() for _ in applied]
    for verdict in snapshot.verdicts:
        for found, failed in zip(failing, fails(verdict.get("decided") or ""), strict=False):
            if failed:
                found.add(verdict["fingerprint"])
    return [{**policy, "failing_artifacts": sorted(found)}
            for policy, found in zip(applied, failing, strict=True)]


def compliance_state(compliant: bool | None) -> str:
    """A snapshot's compliance as a word: None is Unknown (no policies, no requirements)."""
    return {True: "COMPLIANT", False: "NON-COMPLIANT", None: "UNKNOWN"}[compliant]


def _annotation(was: int, count: int, compliant: bool | None) -> str:
    if was == 0:
        return "started-compliant" if compliant else "started-non-compliant"
    if count == 0:
        return "exited"
    if was != count:
        return "scaled"
    return "unchanged"


def _pods(entry: dict[str, Any]) -> dict[str, dict[str, Any]] | None:
    """K8S: pod name -> {namespace, creationTimestamp, owners}, the map `kosli get snapshot`
    reads; rebuilt from each instance's report context (null for other types)."""
    if entry["pods"] is None:
        return None
    return {context["podName"]: {"namespace": context.get("namespace"), "creationTimestamp": stamp,
                                 "owners": context.get("owners") or []}
            for context, stamp in zip(entry.get("context") or [], entry["creationTimestamp"],
                                      strict=False)}


def _artifact_view(entry: dict[str, Any], was: int, count: int, verdict: dict[str, Any]
                   ) -> views.SnapshotArtifact:
    flows, compliant = verdict["flows"], verdict["compliant"]
    first = flows[0] if flows else None
    commit_ts = first.get("commit_timestamp") if first else None
    started = min(entry["creationTimestamp"]) if entry["creationTimestamp"] else None
    return {
        "name": entry["name"],
        "fingerprint": entry["fingerprint"],
        "compliant": compliant,
        "deployments": [],
        "policy_decisions": policy_decisions_of(verdict),
        "reasons_for_incompliance": reasons_of(verdict),
        "creationTimestamp": [as_int64(stamp) for stamp in entry["creationTimestamp"]],
        "pods": _pods(entry),
        "instance_count": count,
        "context": entry.get("context") or [],
        "annotation": {"type": _annotation(was, count, compliant), "was": was, "now": count},
        "flow_name": first["flow_name"] if first else "",
        "git_commit": first["git_commit"] if first else "",
        "commit_url": first["commit_url"] if first else "",
        "html_url": first["html_url"] if first else "",
        "flow_html_url": first["flow_html_url"] if first else "",
        "commit_lead_time": lead_time(started, commit_ts),
        "flows": [{**{k: v for k, v in f.items() if k != "commit_timestamp" and k[0] != "_"},
                   "artifact_compliance_in_flow": f.get("compliance_state") == COMPLIANT,
                   "commit_lead_time": lead_time(started, f.get("commit_timestamp"))}
                  for f in flows],
    }


# ---- diff ----------------------------------------------------------------------------------

def _snappish(org: Organization, text: str) -> tuple[Environment, Snapshot, str]:
    """The snapshot a snappish (`ENV`, `ENV#N`, `ENV~N`, `ENV@{...}`) names; an environment
    without snapshots has none to diff (NotFound, as the hosted service answers)."""
    cut = min((i for i in (text.find(c) for c in "#~@") if i >= 0), default=len(text))
    env = find_environment(org, text[:cut])
    snapshot = find_snapshot(env, text[cut:] or "-1", written=text)
    return env, snapshot, f"{env.name}#{snapshot.index}"


def diff_snapshots(org: Organization, snappish1: str, snappish2: str, html_base: str
                   ) -> views.SnapshotDiff:
    for field, value in (("snappish1", snappish1), ("snappish2", snappish2)):
        if not value:
            raise validation_error(field, "Field cannot be empty")
    _, snap1, id1 = _snappish(org, snappish1)
    _, snap2, id2 = _snappish(org, snappish2)
    side1, side2 = _by_fingerprint(snap1), _by_fingerprint(snap2)
    keys = side1.keys() | side2.keys()
    renamed = renamed_flows(org, (snap1, snap2))
    verdicts = {**verdicts_of(snap2, html_base, renamed), **verdicts_of(snap1, html_base, renamed)}
    found: dict[str, list[views.DiffArtifact]] = {
        "snappish1": [], "snappish2": [], "changed": [], "not_changed": []}
    for key in sorted(keys):
        one, two = side1.get(key), side2.get(key)
        shown = one if one is not None else side2[key]
        view = _diff_artifact(shown, one, two, verdicts[(shown["name"], key)]["flows"])
        if one and two:
            target = "not_changed" if one["instance_count"] == two["instance_count"] else "changed"
        else:
            target = "snappish1" if one else "snappish2"
        found[target].append(view)
    return {"snappish1": {"snapshot_id": id1, "artifacts": found["snappish1"]},
            "snappish2": {"snapshot_id": id2, "artifacts": found["snappish2"]},
            "changed": {"snapshot_id": None, "artifacts": found["changed"]},
            "not_changed": {"snapshot_id": None, "artifacts": found["not_changed"]}}


def _by_fingerprint(snapshot: Snapshot) -> dict[str, dict[str, Any]]:
    """A snapshot's running artifacts as a diff tells them apart: by fingerprint (the hosted
    docs: Kosli identifies an artifact by its fingerprint, never by its name or tag, which
    change), so a build that runs under another name is not changed. A build running under
    several names in one snapshot is one artifact, its instances together, shown by the last
    of its names in name order (the one the release of 2026-11-23 showed)."""
    found: dict[str, dict[str, Any]] = {}
    for entry in snapshot.artifacts:  # in (name, fingerprint) order
        was = found.get(entry["fingerprint"])
        found[entry["fingerprint"]] = entry if was is None else {
            **entry, "instance_count": was["instance_count"] + entry["instance_count"],
            "creationTimestamp": was["creationTimestamp"] + entry["creationTimestamp"],
            "pods": None if entry["pods"] is None else (was["pods"] or []) + entry["pods"]}
    return found


def _diff_artifact(entry: dict[str, Any], one: dict[str, Any] | None, two: dict[str, Any] | None,
                   flows: list[dict[str, Any]]) -> views.DiffArtifact:
    first = flows[0] if flows else None
    stamps = entry["creationTimestamp"] or [0]
    return {
        "name": entry["name"],
        "fingerprint": entry["fingerprint"],
        "flow": first["flow_name"] if first else None,
        "commit_url": first["commit_url"] if first else None,
        "most_recent_timestamp": as_int64(max(stamps)),
        "instance_count": entry["instance_count"],
        "s1_instance_count": one["instance_count"] if one else 0,
        "s2_instance_count": two["instance_count"] if two else 0,
        "pods": entry["pods"] or [],
    }


# ---- events --------------------------------------------------------------------------------

def _bound(env: Environment, text: str, field: str) -> int:
    short = _SHORT_RELATIVE.fullmatch(text.strip())
    if short:
        return _index_at(env, _ago(short, field))
    return resolve_index(env, text, field)


def list_events(org: Organization, env_name: str, *, page: int | None = None,
                per_page: int | None = None, reverse: bool = False, interval: str | None = None,
                start: str | None = None, end: str | None = None, start_ts: float | None = None,
                end_ts: float | None = None, repo_names: list[str] | None = None,
                html_base: str = "") -> list[views.EnvironmentEvent]:
    """Events of the environment, newest first (oldest first with reverse): by snapshot, and in
    a snapshot in the order written, which is the order they were added to the environment's
    list (`_record_changes`: a snapshot's events are written together, the environment locked),
    so an unnarrowed page is a range of positions in it (list_sizes), the same cost at any
    depth."""
    env = find_environment(org, env_name)
    paging = page_of(page, per_page, default_size=15)
    if start_ts is not None and end_ts is not None and start_ts > end_ts:
        raise validation_error("start_ts", "Must not be after end_ts")
    if not (interval or start or end or start_ts is not None or end_ts is not None
            or repo_names):
        ids, _ = list_sizes.items_of_page(list_sizes.EVENTS_OF_ENVIRONMENT, env.id, paging,
                                          ascending=reverse)
        return _event_views(org, env, list_sizes.in_page_order(
            ids, lambda ids: _EVENTS_BY_ID.models(EnvironmentEvent, ids=ids)), html_base)
    query = EnvironmentEvent.select().where(EnvironmentEvent.environment == env)
    if interval:
        low, high = _interval(env, interval)
        query = query.where(EnvironmentEvent.snapshot_index.between(low, high))
    if start:
        query = query.where(EnvironmentEvent.snapshot_index >= _bound(env, start, "start"))
    if end:
        query = query.where(EnvironmentEvent.snapshot_index <= _bound(env, end, "end"))
    if start_ts is not None:
        query = query.where(EnvironmentEvent.reported_at >= start_ts)
    if end_ts is not None:
        query = query.where(EnvironmentEvent.reported_at <= end_ts)
    if repo_names:
        query = query.where(EnvironmentEvent.fingerprint.in_(built_from(org, repo_names)))
    if reverse:
        order = (EnvironmentEvent.snapshot_index.asc(), EnvironmentEvent.id.asc())
    else:
        order = (EnvironmentEvent.snapshot_index.desc(), EnvironmentEvent.id.desc())
    return _event_views(org, env, list(query.order_by(*order).paginate(paging.number,
                                                                       paging.size)), html_base)


_EVENTS_BY_ID = Prepared(lambda ids: EnvironmentEvent.select().where(
    EnvironmentEvent.id.in_(ids)), ids=list[int])


def _event_views(org: Organization, env: Environment, rows: list[EnvironmentEvent],
                 html_base: str) -> list[views.EnvironmentEvent]:
    """The events as listed, with the verdicts of the snapshots they show."""
    wanted = {e.snapshot_index for e in rows} | {_judged_in(e) for e in rows}
    snapshots = {s.index: s for s in Snapshot.select(
        Snapshot.index, Snapshot.compliant, Snapshot.verdicts).where(
        (Snapshot.environment == env) & (Snapshot.index.in_(wanted)))}
    renamed = renamed_flows(org, snapshots.values())
    verdicts = {i: verdicts_of(s, html_base, renamed) for i, s in snapshots.items()}
    return [_event_view(env, e, verdicts.get(_judged_in(e), {}),
                        snapshots.get(e.snapshot_index)) for e in rows]


def _judged_in(event: EnvironmentEvent) -> int:
    """The snapshot whose verdict an event shows: an exit, the one the artifact last ran in."""
    return event.snapshot_index - 1 if event.type == "exited" else event.snapshot_index


def _describe(event: EnvironmentEvent) -> str:
    if event.type == "started":
        noun = "instance" if event.now == 1 else "instances"
        return f"{event.now} {noun} started running (from {event.was} to {event.now})."
    if event.type == "exited":
        noun = "instance" if event.was == 1 else "instances"
        return f"{event.was} {noun} stopped running (from {event.was} to 0)."
    return f"Scaled from {event.was} to {event.now} instances."


def _event_view(env: Environment, event: EnvironmentEvent,
                verdicts: dict[tuple[str, str], dict[str, Any]], snapshot: Snapshot | None
                ) -> views.EnvironmentEvent:
    verdict = verdicts.get((event.artifact_name, event.fingerprint))
    flows = verdict["flows"] if verdict else []
    return {
        "environment_name": env.name,
        "snapshot_index": event.snapshot_index,
        "artifact_name": event.artifact_name,
        "sha256": event.fingerprint,
        "description": _describe(event),
        "reported_at": event.reported_at,
        "pipeline": flows[0]["flow_name"] if flows else "",
        "deployments": [],
        "flows": [{"flow_name": f["flow_name"], "deployments": []} for f in flows],
        "artifact_compliance": verdict["compliant"] if verdict else None,
        "snapshot_compliance": snapshot.compliant if snapshot else None,
        "type": event.type,
        "code_diff": None,
    }
