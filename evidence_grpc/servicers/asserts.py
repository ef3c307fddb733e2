"""AssertService."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import struct_pb2

from ..api.v2 import assert_service_pb2 as pb
from ..api.v2 import assert_service_pb2_grpc as pb_grpc
from ..api.v2 import trail_service_pb2
from ..config import Settings
from ..convert import optional, to_message
from ..domain.governance import asserts
from ..domain.identity.callers import current_caller


def _rules(evaluations: Sequence[Mapping[str, Any]]) -> list[pb.RuleEvaluation]:
    """Rule evaluations built directly: one answer holds policies x rules x reports of them,
    which a generic dict-to-message walk makes the bulk of the call. Rules are shared objects
    (see policy_eval.Rule.shown), so each definition is converted once."""
    definitions: dict[int, pb.PolicyRule] = {}
    built = []
    for evaluation in evaluations:
        shown = evaluation["rule"]
        rule = definitions.get(id(shown))
        if rule is None:
            definition = struct_pb2.Struct()
            definition.update(shown["definition"])
            rule = definitions[id(shown)] = pb.PolicyRule(type=shown["type"],
                                                          definition=definition)
        built.append(pb.RuleEvaluation(
            rule=rule, satisfied=evaluation["satisfied"], ignored=evaluation["ignored"],
            resolutions=[pb.RuleResolution(type=r["type"], context=pb.RuleResolutionContext(
                **{k: v for k, v in r["context"].items() if v is not None}))
                for r in evaluation["resolutions"]]))
    return built


class AssertServicer(pb_grpc.AssertServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def AssertArtifact(self, request: pb.AssertArtifactRequest, context: grpc.ServicerContext
                       ) -> pb.AssertArtifactResponse:
        answer = asserts.assert_artifact(
            current_caller().org, request.fingerprint, self.html_base,
            flow_name=optional(request, "flow_name"),
            environment_name=optional(request, "environment_name"),
            policy_names=list(request.policy_name))
        status = answer["compliance_status"]
        assert status is not None, "an assert answers the artifact's own compliance"
        return pb.AssertArtifactResponse(
            compliant=answer["compliant"], scope=answer["scope"],
            fingerprint=answer["fingerprint"], flow=answer["flow"], trail=answer["trail"],
            compliance_status=to_message(status, trail_service_pb2.ArtifactStatus),
            environment=answer.get("environment"), html_url=answer["html_url"],
            policy_evaluations=[pb.PolicyEvaluation(
                policy_name=e["policy_name"], policy_version=e["policy_version"],
                status=e["status"], rule_evaluations=_rules(e["rule_evaluations"]))
                for e in answer["policy_evaluations"]],
            flows=[to_message(f, pb.AssertedFlow) for f in answer["flows"]])
