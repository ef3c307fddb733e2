"""ControlService: the Controls (beta) catalog, its versions, decisions and coverage."""

from __future__ import annotations

from typing import Any

import grpc

from ..api.v2 import control_service_pb2 as pb
from ..api.v2 import control_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..convert import optional, plain_data, to_message
from ..domain.governance import controls
from ..domain.identity.callers import current_caller
from ..storage.models import Control, Organization


def _links(request: Any) -> Any:
    """The links a request carried, or None when it carried none."""
    return plain_data(request.links, "links") if request.HasField("links") else None


def _controls(org: Organization, rows: list[Control]) -> list[pb.Control]:
    return [to_message(view, pb.Control) for view in controls.control_views(org, rows)]


class ControlServicer(pb_grpc.ControlServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def CreateControl(self, request: pb.CreateControlRequest, context: grpc.ServicerContext
                      ) -> pb.Control:
        caller = current_caller()
        control = controls.create_control(
            caller.org, caller.user.name, request.identifier, request.name,
            optional(request, "description"), _links(request))
        return _controls(caller.org, [control])[0]

    def ListControls(self, request: pb.ListControlsRequest, context: grpc.ServicerContext
                     ) -> pb.ListControlsResponse:
        org = current_caller().org
        rows, pagination = controls.list_controls(
            org, optional(request, "page"), optional(request, "per_page"),
            sort_direction=optional(request, "sort_direction"),
            search=optional(request, "search"), tags=list(request.tag),
            archived=bool(optional(request, "archived")))
        return pb.ListControlsResponse(controls=_controls(org, rows), **pagination)

    def ListControlTagChoices(self, request: pb.ListControlTagChoicesRequest,
                              context: grpc.ServicerContext) -> pb.ControlTagChoices:
        return to_message({"tags": controls.tag_choices(current_caller().org)},
                          pb.ControlTagChoices)

    def GetControl(self, request: pb.GetControlRequest, context: grpc.ServicerContext
                   ) -> pb.Control:
        org = current_caller().org
        return _controls(org, [controls.find_control(org, request.identifier)])[0]

    def UpdateControl(self, request: pb.UpdateControlRequest, context: grpc.ServicerContext
                      ) -> pb.Control:
        caller = current_caller()
        control = controls.update_control(
            caller.org, caller.user.name, request.identifier, name=optional(request, "name"),
            description=optional(request, "description"), links=_links(request))
        return _controls(caller.org, [control])[0]

    def ArchiveControl(self, request: pb.ArchiveControlRequest, context: grpc.ServicerContext
                       ) -> pb.Control:
        caller = current_caller()
        control = controls.set_archived(caller.org, caller.user.name, request.identifier, True)
        return _controls(caller.org, [control])[0]

    def UnarchiveControl(self, request: pb.UnarchiveControlRequest,
                         context: grpc.ServicerContext) -> pb.Control:
        caller = current_caller()
        control = controls.set_archived(caller.org, caller.user.name, request.identifier, False)
        return _controls(caller.org, [control])[0]

    def ListControlVersions(self, request: pb.ListControlVersionsRequest,
                            context: grpc.ServicerContext) -> pb.ListControlVersionsResponse:
        rows, pagination = controls.list_versions(
            current_caller().org, request.identifier, optional(request, "page"),
            optional(request, "per_page"), optional(request, "sort_direction"))
        return pb.ListControlVersionsResponse(
            versions=[to_message(controls.version_view(v), pb.ControlVersion) for v in rows],
            **pagination)

    def GetControlVersion(self, request: pb.GetControlVersionRequest,
                          context: grpc.ServicerContext) -> pb.ControlVersion:
        version = controls.get_version(current_caller().org, request.identifier,
                                       request.version_number)
        return to_message(controls.version_view(version), pb.ControlVersion)

    def _decisions(self, org: Organization, identifier: str, rows: list[Any]
                   ) -> list[pb.ControlDecision]:
        return [to_message(view, pb.ControlDecision)
                for view in controls.decision_views(org, identifier, rows, self.html_base)]

    def ListControlDecisions(self, request: pb.ListControlDecisionsRequest,
                             context: grpc.ServicerContext) -> pb.ListControlDecisionsResponse:
        org = current_caller().org
        rows, pagination = controls.list_decisions(
            org, request.identifier, optional(request, "page"), optional(request, "per_page"),
            is_compliant=optional(request, "is_compliant"),
            from_timestamp=optional(request, "from_timestamp"),
            to_timestamp=optional(request, "to_timestamp"), flows=list(request.flow_id),
            sort_direction=optional(request, "sort_direction"))
        return pb.ListControlDecisionsResponse(
            decisions=self._decisions(org, request.identifier, rows), **pagination)

    def GetControlDecision(self, request: pb.GetControlDecisionRequest,
                           context: grpc.ServicerContext) -> pb.ControlDecision:
        org = current_caller().org
        found = controls.get_decision(org, request.identifier, request.decision_id)
        return self._decisions(org, request.identifier, [found])[0]

    def GetControlCoverage(self, request: pb.GetControlCoverageRequest,
                           context: grpc.ServicerContext) -> pb.ControlCoverage:
        report = controls.coverage(
            current_caller().org, request.identifier, optional(request, "page"),
            optional(request, "per_page"), search=optional(request, "search"),
            covered=optional(request, "covered"))
        return to_message(report, pb.ControlCoverage)
