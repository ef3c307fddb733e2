"""OrganizationService (with an admin's view of the web-page sessions) and ReadinessService."""

from __future__ import annotations

import grpc
from google.api import httpbody_pb2

from ..api.v2 import organization_service_pb2 as pb
from ..api.v2 import organization_service_pb2_grpc as pb_grpc
from ..api.v2 import readiness_service_pb2 as ready_pb
from ..api.v2 import readiness_service_pb2_grpc as ready_pb_grpc
from ..convert import optional, to_message
from ..domain.identity import organizations, web_sessions
from ..domain.identity.callers import current_caller
from ..storage.db import database, owns_transaction


class OrganizationServicer(pb_grpc.OrganizationServiceServicer):
    def GetOrganization(self, request: pb.GetOrganizationRequest, context: grpc.ServicerContext
                        ) -> pb.Organization:
        return to_message(organizations.organization_view(current_caller().org), pb.Organization)

    def UpdateExperimentalFeatures(self, request: pb.UpdateExperimentalFeaturesRequest,
                                   context: grpc.ServicerContext
                                   ) -> pb.UpdateExperimentalFeaturesResponse:
        organizations.set_experimental_features(current_caller().org,
                                                request.experimental_features_enabled)
        return pb.UpdateExperimentalFeaturesResponse(message="experimental features updated")

    def GetDefaultOrganization(self, request: pb.GetDefaultOrganizationRequest,
                               context: grpc.ServicerContext) -> pb.GetDefaultOrganizationResponse:
        return pb.GetDefaultOrganizationResponse(
            default_org_name=organizations.default_organization(current_caller().user))

    def SetDefaultOrganization(self, request: pb.SetDefaultOrganizationRequest,
                               context: grpc.ServicerContext) -> pb.SetDefaultOrganizationResponse:
        caller = current_caller()
        organizations.set_default_organization(caller.user, caller.org)
        return pb.SetDefaultOrganizationResponse(message=f"default organization is '{caller.org.name}'")

    def ListWebSessions(self, request: pb.ListWebSessionsRequest, context: grpc.ServicerContext
                        ) -> pb.ListWebSessionsResponse:
        return pb.ListWebSessionsResponse(
            sessions=[to_message(s, pb.WebSession)
                      for s in web_sessions.list_live(current_caller().org)])

    def EndWebSession(self, request: pb.EndWebSessionRequest, context: grpc.ServicerContext
                      ) -> pb.EndWebSessionResponse:
        caller = current_caller()
        web_sessions.end_one(caller.org, caller.user.name, request.id)
        return pb.EndWebSessionResponse(message="ended")

    def EndWebSessions(self, request: pb.EndWebSessionsRequest, context: grpc.ServicerContext
                       ) -> pb.EndWebSessionsResponse:
        caller = current_caller()
        return pb.EndWebSessionsResponse(ended=web_sessions.end_all(
            caller.org, caller.user.name, optional(request, "actor")))


class ReadinessServicer(ready_pb_grpc.ReadinessServiceServicer):
    @owns_transaction
    def GetReadiness(self, request: ready_pb.GetReadinessRequest, context: grpc.ServicerContext
                     ) -> httpbody_pb2.HttpBody:
        """Whether the database answers: one statement, outside any transaction (a read
        snapshot around it was two statements more, BEGIN and COMMIT)."""
        database.execute_sql("SELECT 1")
        return httpbody_pb2.HttpBody(content_type="text/plain; charset=utf-8", data=b"OK")
