"""ApprovalService (deprecated approvals)."""

from __future__ import annotations

import grpc

from ..api.v2 import approval_service_pb2 as pb
from ..api.v2 import approval_service_pb2_grpc as pb_grpc
from ..convert import optional, plain_data, to_message
from ..domain.governance import approvals
from ..domain.identity.callers import current_caller
from ..storage.models import Approval


def _listed(rows: list[Approval]) -> pb.ListApprovalsResponse:
    return pb.ListApprovalsResponse(approvals=[
        to_message(approvals.approval_view(a), pb.ApprovalListItem) for a in rows])


class ApprovalServicer(pb_grpc.ApprovalServiceServicer):
    def CreateApproval(self, request: pb.CreateApprovalRequest, context: grpc.ServicerContext
                       ) -> pb.CreateApprovalResponse:
        caller = current_caller()
        approval = approvals.create_approval(
            caller.org, caller.user, request.flow_name,
            fingerprint=request.artifact_fingerprint,
            description=optional(request, "description"),
            environment=optional(request, "environment"),
            commits=list(request.src_commit_list),
            oldest_commit=optional(request, "oldest_commit"),
            reviews=[approvals.Review(r.state, r.comment, r.approved_by, r.approval_url)
                     for r in request.approvals],
            user_data=plain_data(request.user_data, "user_data")
            if request.HasField("user_data") else None)
        return pb.CreateApprovalResponse(
            message=f"Approval #{approval.number} created for artifact '{approval.fingerprint}'",
            release_number=approval.number)

    def ListApprovals(self, request: pb.ListApprovalsRequest, context: grpc.ServicerContext
                      ) -> pb.ListApprovalsResponse:
        return _listed(approvals.list_approvals(current_caller().org, request.flow_name,
                                                optional(request, "page"),
                                                optional(request, "per_page")))

    def GetApproval(self, request: pb.GetApprovalRequest, context: grpc.ServicerContext
                    ) -> pb.Approval:
        approval = approvals.get_approval(current_caller().org, request.flow_name,
                                          request.approval_number)
        return to_message(approvals.approval_detail_view(approval), pb.Approval)

    def GetRunningArtifactCommit(self, request: pb.GetRunningArtifactCommitRequest,
                                 context: grpc.ServicerContext
                                 ) -> pb.GetRunningArtifactCommitResponse:
        commit = approvals.running_artifact_commit(current_caller().org, request.flow_name,
                                                   request.env_name)
        return pb.GetRunningArtifactCommitResponse(commit_sha=commit)

    def ListArtifactApprovals(self, request: pb.ListArtifactApprovalsRequest,
                              context: grpc.ServicerContext) -> pb.ListApprovalsResponse:
        return _listed(approvals.artifact_approvals(current_caller().org, request.flow_name,
                                                    request.fingerprint))
