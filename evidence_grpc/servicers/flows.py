"""FlowService."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc

from ..api.v2 import common_pb2
from ..api.v2 import flow_service_pb2 as pb
from ..api.v2 import flow_service_pb2_grpc as pb_grpc
from ..convert import optional, page_of_request, text_of, to_message
from ..domain.evidence import flows
from ..domain.evidence.templates import EMPTY_TEMPLATE_YAML
from ..domain.identity.callers import current_caller
from ..storage.models import Flow, Organization
from . import lists


def _flow(flow: Flow, org_name: str) -> pb.Flow:
    return to_message(flows.flow_view(flow, org_name), pb.Flow)


def _search(request: pb.ListFlowsRequest | pb.StreamFlowsRequest) -> dict[str, Any]:
    return {"search": request.search_by_name or None,
            "case_sensitive": request.case_sensitive if request.HasField("case_sensitive")
            else True}


def _chunks(org: Organization, request: pb.ListFlowsRequest | pb.StreamFlowsRequest
            ) -> Iterator[list[pb.Flow]]:
    """Every flow the request lists, STREAM_CHUNK at a time."""
    for batch in flows.flows_in_batches(org, lists.STREAM_CHUNK, **_search(request)):
        yield [_flow(f, org.name) for f in batch]


class FlowServicer(pb_grpc.FlowServiceServicer):
    def UpsertFlow(self, request: pb.UpsertFlowRequest, context: grpc.ServicerContext
                   ) -> pb.UpsertFlowResponse:
        org = current_caller().org
        flow, created = flows.upsert_flow(
            org, request.name, request.description,
            visibility=optional(request, "visibility"),
            legacy_template=list(request.template),
            repo_url=optional(request, "repo_url"))
        return pb.UpsertFlowResponse(flow=_flow(flow, org.name), created=created)

    def UpsertFlowWithTemplate(self, request: pb.UpsertFlowWithTemplateRequest,
                               context: grpc.ServicerContext) -> pb.UpsertFlowWithTemplateResponse:
        org = current_caller().org
        data = request.data_json
        template = text_of(request.template_file, "template_file")
        flow, created = flows.upsert_flow(
            org, data.name, data.description,
            visibility=data.visibility if data.HasField("visibility") else None,
            template_yaml=template if template is not None else EMPTY_TEMPLATE_YAML)
        return pb.UpsertFlowWithTemplateResponse(flow=_flow(flow, org.name), created=created)

    def GetFlow(self, request: pb.GetFlowRequest, context: grpc.ServicerContext) -> pb.Flow:
        org = current_caller().org
        return _flow(flows.find_flow(org, request.flow_name), org.name)

    def ListFlows(self, request: pb.ListFlowsRequest, context: grpc.ServicerContext
                  ) -> pb.ListFlowsResponse:
        org = current_caller().org
        page = page_of_request(request, whole_when_unpaged=True)
        if not page.requested:
            every: list[pb.Flow] = lists.whole(
                _chunks(org, request), f"Organization '{org.name}'", "flows", "StreamFlows")
            return pb.ListFlowsResponse(data=every)
        rows, pagination = flows.list_flows(org, page, **_search(request))
        return pb.ListFlowsResponse(data=[_flow(f, org.name) for f in rows],
                                    pagination=common_pb2.Pagination(**pagination))

    def StreamFlows(self, request: pb.StreamFlowsRequest, context: grpc.ServicerContext
                    ) -> Iterator[pb.StreamFlowsResponse]:
        """The unpaged list of ListFlows in chunks of STREAM_CHUNK flows, each read, made and
        sent before the next is read, from one snapshot."""
        for chunk in _chunks(current_caller().org, request):
            yield pb.StreamFlowsResponse(data=chunk)

    def ArchiveFlow(self, request: pb.ArchiveFlowRequest, context: grpc.ServicerContext
                    ) -> pb.ArchiveFlowResponse:
        flow = flows.archive_flow(current_caller().org, request.flow_name)
        renamed = "" if flow.name == request.flow_name else f" as '{flow.name}'"
        return pb.ArchiveFlowResponse(message=f"flow '{request.flow_name}' was archived{renamed}")

    def RenameFlow(self, request: pb.RenameFlowRequest, context: grpc.ServicerContext
                   ) -> pb.RenameFlowResponse:
        flow = flows.rename_flow(current_caller().org, request.flow_name, request.new_name)
        return pb.RenameFlowResponse(message=f"flow '{request.flow_name}' was renamed to '{flow.name}'")
