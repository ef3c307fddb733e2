"""RepoService: repos, deployments and deployment statistics."""

from __future__ import annotations

import grpc

from .._pb.evidence.v2 import repo_service_pb2 as pb
from .._pb.evidence.v2 import repo_service_pb2_grpc as pb_grpc
from ..convert import optional, to_message
from ..domain import deployments
from ..domain.organizations import current_caller


class RepoServicer(pb_grpc.RepoServiceServicer):
    def ListRepos(self, request: pb.ListReposRequest, context: grpc.ServicerContext
                  ) -> pb.ListReposResponse:
        rows, pagination = deployments.list_repos(
            current_caller().org, optional(request, "page"), optional(request, "per_page"),
            name=optional(request, "name"), search=optional(request, "search"),
            provider=optional(request, "provider"), repo_id=optional(request, "repo_id"),
            tags=list(request.tag), sort_direction=optional(request, "sort_direction"))
        return pb.ListReposResponse(repos=[to_message(deployments.repo_view(r), pb.Repo)
                                           for r in rows], **pagination)

    def GetRepo(self, request: pb.GetRepoRequest, context: grpc.ServicerContext) -> pb.Repo:
        repo = deployments.find_repo(current_caller().org, name=request.repo_name,
                                     repo_id=optional(request, "id"),
                                     provider=optional(request, "provider"))
        return to_message(deployments.repo_view(repo), pb.Repo)

    def GetDeploymentStatistics(self, request: pb.GetDeploymentStatisticsRequest,
                                context: grpc.ServicerContext) -> pb.DeploymentStatistics:
        stats = deployments.deployment_statistics(
            current_caller().org, request.repo, list(request.env),
            optional(request, "start_ts"), optional(request, "end_ts"))
        return to_message(stats, pb.DeploymentStatistics)

    def ListDeployments(self, request: pb.ListDeploymentsRequest, context: grpc.ServicerContext
                        ) -> pb.ListDeploymentsResponse:
        rows, pagination = deployments.list_deployments(
            current_caller().org, optional(request, "page"), optional(request, "per_page"),
            repo_name=optional(request, "repo_name"), env_name=optional(request, "env_name"),
            start_ts=optional(request, "start_ts"), end_ts=optional(request, "end_ts"))
        return pb.ListDeploymentsResponse(
            deployments=[to_message(d, pb.Deployment) for d in rows], **pagination)
