"""ArtifactService, SearchService and TagService."""

from __future__ import annotations

import grpc
from google.api import httpbody_pb2

from ..api.v2 import artifact_service_pb2 as pb
from ..api.v2 import artifact_service_pb2_grpc as pb_grpc
from ..api.v2 import tag_service_pb2 as tag_pb
from ..api.v2 import tag_service_pb2_grpc as tag_pb_grpc
from ..config import Settings
from ..convert import optional, page_of_request, plain_data, to_message
from ..domain.evidence import artifacts
from ..domain.governance import tags
from ..domain.identity.callers import current_caller
from ..domain.views import artifact_views, audit_packages
from ..storage.db import owns_transaction
from .transparency import log_signer, log_witnesses


class ArtifactServicer(pb_grpc.ArtifactServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.html_base = settings.html_base

    @owns_transaction
    def ReportArtifact(self, request: pb.ReportArtifactRequest, context: grpc.ServicerContext
                       ) -> pb.ReportArtifactResponse:
        caller = current_caller()
        artifact = artifacts.report_artifact(caller.org, caller.user, request.flow_name,
                                             plain_data(request.artifact, "artifact"))
        return pb.ReportArtifactResponse(
            message=f"artifact '{artifact.name}' was reported with fingerprint {artifact.fingerprint}",
            fingerprint=artifact.fingerprint)

    def GetArtifactByFingerprint(self, request: pb.GetArtifactByFingerprintRequest,
                                 context: grpc.ServicerContext) -> pb.Artifact:
        org = current_caller().org
        artifact = artifacts.find_by_fingerprint(
            org, request.flow_name, request.fingerprint,
            optional(request, "trail"), optional(request, "artifact_id"))
        view = artifact_views.artifact_views(org, [artifact], self.html_base)[0]
        return to_message(view, pb.Artifact)

    def GetArtifactAuditPackage(self, request: pb.GetArtifactAuditPackageRequest,
                                context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        package = audit_packages.artifact_package(current_caller().org, request.flow_name,
                                                  request.fingerprint, self.html_base,
                                                  log_signer(self.settings),
                                                  log_witnesses(self.settings))
        return httpbody_pb2.HttpBody(content_type="application/gzip", data=package)

    def GetArtifactsByCommit(self, request: pb.GetArtifactsByCommitRequest,
                             context: grpc.ServicerContext) -> pb.ArtifactList:
        org = current_caller().org
        rows = artifacts.find_by_commit(org, request.flow_name, request.commit_sha,
                                        optional(request, "trail"))
        return pb.ArtifactList(data=[to_message(v, pb.Artifact)
                                     for v in artifact_views.artifact_views(org, rows, self.html_base)])

    def GetLatestArtifactCommit(self, request: pb.GetLatestArtifactCommitRequest,
                                context: grpc.ServicerContext
                                ) -> pb.GetLatestArtifactCommitResponse:
        commit = artifacts.latest_commit(current_caller().org, request.flow_name,
                                         optional(request, "branch"))
        return pb.GetLatestArtifactCommitResponse(latest_commit=commit)

    def ListArtifacts(self, request: pb.ListArtifactsRequest, context: grpc.ServicerContext
                      ) -> pb.ArtifactList:
        return self._listed(request, optional(request, "flow_name"),
                            optional(request, "repo_name"))

    def ListFlowArtifacts(self, request: pb.ListFlowArtifactsRequest,
                          context: grpc.ServicerContext) -> pb.ArtifactList:
        return self._listed(request, request.flow_name, None, optional(request, "trail_name"))

    def _listed(self, request: pb.ListArtifactsRequest | pb.ListFlowArtifactsRequest,
                flow_name: str | None, repo_name: str | None, trail_name: str | None = None
                ) -> pb.ArtifactList:
        org = current_caller().org
        page = page_of_request(request, default_size=15)
        rows = artifacts.list_artifacts(org, page, flow_name=flow_name, repo_name=repo_name,
                                        trail_name=trail_name)
        views = artifact_views.artifact_views(org, rows, self.html_base)
        for view in views:
            view["git_commit"] = view["git_commit"] or "unknown"  # the CLI prints its first 7
        return pb.ArtifactList(data=[to_message(v, pb.Artifact) for v in views])


class SearchServicer(pb_grpc.SearchServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def Search(self, request: pb.SearchRequest, context: grpc.ServicerContext
               ) -> pb.SearchResult:
        result = artifact_views.search(current_caller().org, request.search_value, self.html_base)
        return to_message(result, pb.SearchResult)


class TagServicer(tag_pb_grpc.TagServiceServicer):
    def UpdateTags(self, request: tag_pb.UpdateTagsRequest, context: grpc.ServicerContext
                   ) -> tag_pb.UpdateTagsResponse:
        tags.update_tags(current_caller().org, request.resource_type, request.resource_id,
                         dict(request.set_tags), list(request.remove_tags))
        return tag_pb.UpdateTagsResponse(
            message=f"tags of {request.resource_type} '{request.resource_id}' were updated")
