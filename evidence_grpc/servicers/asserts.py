"""AssertService."""

from __future__ import annotations

import grpc

from .._pb.evidence.v2 import assert_service_pb2 as pb
from .._pb.evidence.v2 import assert_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..convert import optional, to_message
from ..domain import asserts
from ..domain.organizations import current_caller


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
        return to_message(answer, pb.AssertArtifactResponse)
