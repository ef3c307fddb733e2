"""SnapshotService."""

from __future__ import annotations

import secrets
from typing import Any

import grpc

from ..api.v2 import assert_service_pb2 as apb
from ..api.v2 import snapshot_service_pb2 as pb
from ..api.v2 import snapshot_service_pb2_grpc as pb_grpc
from ..api.v2 import views
from ..config import Settings
from ..convert import Deferred, keyed_answer, optional, to_message
from ..domain.identity.callers import current_caller
from ..domain.runtime import snapshots
from ..memo import BytesLru

# The part of snapshot answers that never changes (`SnapshotRead.kept_view`), encoded, per
# process: a governed snapshot of 500 artifacts (50,000 rule evaluations) is ~10 MB encoded and
# takes seconds to build, and tens of milliseconds to parse again.
KEPT_SNAPSHOT_BYTES = 32 * 1024 * 1024


class SnapshotServicer(pb_grpc.SnapshotServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base
        self.kept = BytesLru(KEPT_SNAPSHOT_BYTES)
        # In the keys of its answers: a servicer of another database (a shim outliving its
        # server, tests) never shares one.
        self.instance = secrets.token_hex(8)

    def ListSnapshots(self, request: pb.ListSnapshotsRequest, context: grpc.ServicerContext
                      ) -> pb.ListSnapshotsResponse:
        items = snapshots.list_snapshots(
            current_caller().org, request.env_name,
            optional(request, "page"),
            optional(request, "per_page"),
            interval=request.interval or None, reverse=request.reverse)
        return pb.ListSnapshotsResponse(snapshots=[to_message(i, pb.SnapshotListItem)
                                                   for i in items])

    def GetSnapshot(self, request: pb.GetSnapshotRequest, context: grpc.ServicerContext
                    ) -> Deferred:
        read = snapshots.find_for_read(current_caller().org, request.env_name,
                                       request.snapshot_expression, self.html_base)
        kept = self.kept.get(read.kept_key)
        if kept is None:
            kept = _kept_message(read.kept_view()).SerializeToString()
            self.kept.put(read.kept_key, kept, len(kept))
        fresh = read.fresh()
        keyed_answer(context, "Snapshot", self.instance, read.kept_key, fresh.is_latest,
                     fresh.next_snapshot_timestamp, fresh.deployment_diffs)
        # Made when read: the shim keeps the JSON of the key, so a read again renders nothing.
        return Deferred(pb.Snapshot, lambda: _answer(kept, fresh))

    def DiffSnapshots(self, request: pb.DiffSnapshotsRequest, context: grpc.ServicerContext
                      ) -> pb.SnapshotDiff:
        diff = snapshots.diff_snapshots(current_caller().org, request.snappish1,
                                        request.snappish2, self.html_base)
        return to_message(diff, pb.SnapshotDiff)


def _answer(kept: bytes, fresh: snapshots.SnapshotFresh) -> pb.Snapshot:
    """The snapshot's answer: its kept part (encoded) with what is worked out on every read."""
    answer = pb.Snapshot.FromString(kept)
    answer.is_latest = fresh.is_latest
    if fresh.next_snapshot_timestamp is not None:
        answer.next_snapshot_timestamp = fresh.next_snapshot_timestamp
    if any(own is not None or any(of_flows) for own, of_flows in fresh.deployment_diffs):
        for artifact, (own, of_flows) in zip(answer.artifacts, fresh.deployment_diffs,
                                             strict=True):
            if own is not None:
                artifact.deployment_diff.CopyFrom(to_message(own, pb.DeploymentDiff))
            for flow, diff in zip(artifact.flows, of_flows, strict=True):
                if diff is not None:
                    flow.deployment_diff.CopyFrom(to_message(diff, pb.DeploymentDiff))
    return answer


def _kept_message(view: views.Snapshot) -> pb.Snapshot:
    """`to_message(view, pb.Snapshot)`, the artifacts' policy decisions built from one message
    per distinct rule and resolution: every artifact repeats each rule of the policies that
    judged it (50,000 rule evaluations for 500 artifacts under 5 policies of 20 rules)."""
    decisions = [artifact.pop("policy_decisions") for artifact in view["artifacts"]]
    message = to_message(view, pb.Snapshot)
    rules: dict[int, apb.PolicyRule] = {}  # by the view's rule (one object per policy rule)
    resolutions: dict[tuple[str, tuple[tuple[str, Any], ...] | None], apb.RuleResolution] = {}

    def rule(shown: views.PolicyRule | None) -> apb.PolicyRule | None:
        if shown is None:
            return None
        found = rules.get(id(shown))
        if found is None:
            found = rules[id(shown)] = to_message(shown, apb.PolicyRule)
        return found

    def resolution(resolved: views.RuleResolution) -> apb.RuleResolution:
        context = resolved["context"]
        key = (resolved["type"], None if context is None else tuple(context.items()))
        found = resolutions.get(key)
        if found is None:
            found = resolutions[key] = to_message(resolved, apb.RuleResolution)
        return found

    for artifact, evaluations in zip(message.artifacts, decisions, strict=True):
        try:
            built = [apb.PolicyEvaluation(
                policy_name=policy["policy_name"], policy_version=policy["policy_version"],
                status=policy["status"], rule_evaluations=[apb.RuleEvaluation(
                    rule=rule(e["rule"]), satisfied=e["satisfied"], ignored=e["ignored"],
                    resolutions=[resolution(r) for r in e["resolutions"]])
                    for e in policy["rule_evaluations"]]) for policy in evaluations]
        except (KeyError, TypeError, ValueError, AttributeError):
            # Decisions kept rendered by a snapshot of 2026-11-23 in a shape of their time:
            # converted as any view is, which fills in what they lack.
            built = list(to_message({"policy_decisions": evaluations},
                                    pb.SnapshotArtifact).policy_decisions)
        artifact.policy_decisions.extend(built)
    return message
