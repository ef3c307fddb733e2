"""RepoService, DeploymentService and BuildService: repos, the deployments of their
artifacts, and builds."""

from __future__ import annotations

from typing import Any

import grpc

from ..api.v2 import build_service_pb2 as build_pb
from ..api.v2 import build_service_pb2_grpc as build_grpc
from ..api.v2 import deployment_service_pb2 as deploy_pb
from ..api.v2 import deployment_service_pb2_grpc as deploy_grpc
from ..api.v2 import repo_service_pb2 as pb
from ..api.v2 import repo_service_pb2_grpc as pb_grpc
from ..api.v2 import views
from ..config import Settings
from ..convert import optional, to_message
from ..domain.evidence import repos
from ..domain.identity.callers import current_caller
from ..domain.runtime import builds, deployments, live


def _deployments(result: tuple[list[views.Deployment], dict[str, int]]) -> deploy_pb.ListDeploymentsResponse:
    rows, pagination = result
    return deploy_pb.ListDeploymentsResponse(
        deployments=[to_message(d, deploy_pb.Deployment) for d in rows], **pagination)


class RepoServicer(pb_grpc.RepoServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def ListRepos(self, request: pb.ListReposRequest, context: grpc.ServicerContext
                  ) -> pb.ListReposResponse:
        rows, pagination = repos.list_repos(
            current_caller().org, optional(request, "page"), optional(request, "per_page"),
            name=optional(request, "name"), search=optional(request, "search"),
            provider=optional(request, "provider"), repo_id=optional(request, "repo_id"),
            vcs=optional(request, "vcs_instance"), namespace=optional(request, "namespace"),
            tags=list(request.tag), sort_direction=optional(request, "sort_direction"))
        return pb.ListReposResponse(repos=[to_message(repos.repo_view(r), pb.Repo) for r in rows],
                                    **pagination)

    def GetRepo(self, request: pb.GetRepoRequest, context: grpc.ServicerContext) -> pb.Repo:
        repo = repos.find_repo(current_caller().org, name=request.repo_name,
                               repo_id=optional(request, "id"),
                               provider=optional(request, "provider"))
        return to_message(repos.repo_view(repo), pb.Repo)

    def ListRepoTagChoices(self, request: pb.ListRepoTagChoicesRequest,
                           context: grpc.ServicerContext) -> pb.RepoTagChoices:
        return to_message({"tags": repos.tag_choices(current_caller().org)}, pb.RepoTagChoices)

    def ListRepoFilterOptions(self, request: pb.ListRepoFilterOptionsRequest,
                              context: grpc.ServicerContext) -> pb.RepoFilterOptions:
        options = repos.filter_options(
            current_caller().org, provider=optional(request, "provider"),
            vcs=optional(request, "vcs_instance"), namespace=optional(request, "namespace"),
            tags=list(request.tag))
        return to_message(options, pb.RepoFilterOptions)

    def GetRepoLiveArtifacts(self, request: pb.GetRepoLiveArtifactsRequest, context: grpc.ServicerContext
                             ) -> pb.RepoLiveArtifacts:
        view = live.repo_live_artifacts(current_caller().org, request.repo_name,
                                        provider=optional(request, "provider"),
                                        repo_id=optional(request, "id"), html_base=self.html_base)
        return to_message(view, pb.RepoLiveArtifacts)

    def GetDeploymentStatistics(self, request: pb.GetDeploymentStatisticsRequest,
                                context: grpc.ServicerContext) -> pb.DeploymentStatistics:
        stats = deployments.deployment_statistics(
            current_caller().org, request.repo, list(request.env),
            optional(request, "start_ts"), optional(request, "end_ts"))
        # Series of up to 100,000 points are packed doubles, filled from the rows' lists.
        return pb.DeploymentStatistics(start_ts=stats.start_ts, end_ts=stats.end_ts, environments=[
            pb.EnvironmentDeploymentStatistics(env_name=env.env_name,
                                               deployment_frequency=env.deployed_at,
                                               lead_times=env.lead_times)
            for env in stats.environments])

    def ListRepoDeployments(self, request: pb.ListRepoDeploymentsRequest,
                            context: grpc.ServicerContext) -> deploy_pb.ListDeploymentsResponse:
        return _deployments(deployments.list_repo_deployments(
            current_caller().org, request.repo, optional(request, "page"),
            optional(request, "per_page"), envs=list(request.env),
            start_ts=optional(request, "start_ts"), end_ts=optional(request, "end_ts")))


class DeploymentServicer(deploy_grpc.DeploymentServiceServicer):
    def ListDeployments(self, request: deploy_pb.ListDeploymentsRequest,
                        context: grpc.ServicerContext) -> deploy_pb.ListDeploymentsResponse:
        return _deployments(deployments.list_deployments(
            current_caller().org, optional(request, "page"), optional(request, "per_page"),
            repo_name=optional(request, "repo_name"), env_name=optional(request, "env_name"),
            start_ts=optional(request, "start_ts"), end_ts=optional(request, "end_ts")))

    def GetDeployment(self, request: deploy_pb.GetDeploymentRequest,
                      context: grpc.ServicerContext) -> deploy_pb.Deployment:
        view = deployments.get_deployment(current_caller().org, request.env_name,
                                          request.fingerprint)
        return to_message(view, deploy_pb.Deployment)

    def ListEnvironmentDeployments(self, request: deploy_pb.ListEnvironmentDeploymentsRequest,
                                   context: grpc.ServicerContext
                                   ) -> deploy_pb.ListDeploymentsResponse:
        return _deployments(deployments.list_environment_deployments(
            current_caller().org, request.env_name, optional(request, "page"),
            optional(request, "page_size"), start=optional(request, "from"),
            end=optional(request, "to")))

    def GetDeploymentFrequency(self, request: deploy_pb.GetDeploymentFrequencyRequest,
                               context: grpc.ServicerContext) -> deploy_pb.DeploymentFrequency:
        view = deployments.deployment_frequency(current_caller().org, request.env_name,
                                                optional(request, "flow_id"))
        return to_message(view, deploy_pb.DeploymentFrequency)


class BuildServicer(build_grpc.BuildServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def _filters(self, request: build_pb.ListBuildsRequest | build_pb.GetBuildStatisticsRequest
                 ) -> dict[str, Any]:
        return {name: optional(request, name)
                for name in ("repo_id", "repo_name", "repo_inner_id", "start_ts", "end_ts")}

    def ListBuilds(self, request: build_pb.ListBuildsRequest, context: grpc.ServicerContext
                   ) -> build_pb.ListBuildsResponse:
        rows, pagination = builds.list_builds(
            current_caller().org, optional(request, "page"), optional(request, "per_page"),
            html_base=self.html_base, **self._filters(request))
        return build_pb.ListBuildsResponse(builds=[to_message(b, build_pb.Build) for b in rows],
                                           **pagination)

    def GetBuildStatistics(self, request: build_pb.GetBuildStatisticsRequest,
                           context: grpc.ServicerContext) -> build_pb.BuildStatistics:
        stats = builds.build_statistics(current_caller().org, **self._filters(request))
        return to_message(stats, build_pb.BuildStatistics)
