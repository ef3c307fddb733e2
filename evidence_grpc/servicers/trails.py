"""TrailService."""

from __future__ import annotations

import grpc
from google.api import httpbody_pb2

from ..api.v2 import common_pb2
from ..api.v2 import trail_service_pb2 as pb
from ..api.v2 import trail_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..convert import optional, page_of_request, present_fields, text_of, to_message, with_items
from ..domain.evidence import trails
from ..domain.identity.callers import current_caller
from ..domain.views import audit_packages
from ..memo import small_lru
from ..storage.db import owns_transaction
from ..storage.models import Trail
from .transparency import log_signer


class TrailServicer(pb_grpc.TrailServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.html_base = settings.html_base

    def _trails(self, rows: list[Trail], org_name: str) -> list[pb.Trail]:
        events = trails.events_of(rows)
        evidence = trails.evidence_rows_of(rows)
        return [_trail(_Read(t, tuple(events[t.id]), evidence[t.id]), org_name, self.html_base)
                for t in rows]

    @owns_transaction
    def BeginTrail(self, request: pb.BeginTrailRequest, context: grpc.ServicerContext
                   ) -> pb.BeginTrailResponse:
        caller = current_caller()
        trail, created = trails.begin_trail(
            caller.org, request.flow_name, present_fields(request.data_json), caller.user,
            template_yaml=text_of(request.template_file, "template_file"))
        verb = "begun" if created else "updated"
        return pb.BeginTrailResponse(message=f"trail '{trail.name}' was {verb}", created=created)

    def GetTrail(self, request: pb.GetTrailRequest, context: grpc.ServicerContext) -> pb.Trail:
        org = current_caller().org
        trail = trails.find_trail(org, request.flow_name, request.trail_name)
        return self._trails([trail], org.name)[0]

    def GetTrailAuditPackage(self, request: pb.GetTrailAuditPackageRequest,
                             context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        package = audit_packages.trail_package(current_caller().org, request.flow_name,
                                               request.trail_name, self.html_base, log_signer(self.settings))
        return httpbody_pb2.HttpBody(content_type="application/gzip", data=package)

    def GetTrailAuditPdf(self, request: pb.GetTrailAuditPdfRequest,
                         context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        report = audit_packages.trail_pdf(current_caller().org, request.flow_name,
                                          request.trail_name, self.html_base)
        return httpbody_pb2.HttpBody(content_type="application/pdf", data=report)

    def ListFlowTrails(self, request: pb.ListFlowTrailsRequest, context: grpc.ServicerContext
                       ) -> pb.ListTrailsResponse:
        org = current_caller().org
        page = page_of_request(request, whole_when_unpaged=True)
        rows, pagination = trails.list_flow_trails(org, request.flow_name, page)
        response = pb.ListTrailsResponse(data=self._trails(rows, org.name))
        if page.requested:
            response.pagination.CopyFrom(common_pb2.Pagination(**pagination))
        return response

    def ListTrails(self, request: pb.ListTrailsRequest, context: grpc.ServicerContext
                   ) -> pb.ListTrailsResponse:
        org = current_caller().org
        page = page_of_request(request)
        rows, pagination = trails.list_trails(
            org, page, flow_name=optional(request, "flow"),
            flow_tags=list(request.flow_tag))
        return pb.ListTrailsResponse(data=self._trails(rows, org.name),
                                     pagination=common_pb2.Pagination(**pagination))


# The TrailEvent member holding the fields of each event type.
_EVENT_KINDS = {
    "trail_reported": "trail", "trail_updated": "trail",
    "artifact_creation_reported": "artifact",
    "trail_attestation_reported": "attestation", "artifact_attestation_reported": "attestation",
    "artifact_started_running": "running", "artifact_stopped_running": "running",
    "artifact_approval_reported": "approval",
}


@small_lru(items=4096, most_bytes=4096, size=lambda event: len(event.payload_json or ""))
def _encoded(event: trails.Event) -> bytes:
    """A recorded event as its TrailEvent message, encoded: made of its row alone, so the
    events read last are kept (see `with_items`)."""
    fields = event.view()
    timestamp, type_ = fields.pop("timestamp"), fields.pop("type")
    return to_message({"timestamp": timestamp, "type": type_, _EVENT_KINDS[type_]: fields},
                      pb.TrailEvent).SerializeToString()


class _Read:
    """What a trail's answer is made of: its row, its flow's, its events and evidence. Hashed
    and compared by the rows as read (`Prepared.models` keeps them), which make the answer
    (compliance is a pure function of them). A trail read otherwise has no key."""

    __slots__ = ("trail", "events", "evidence", "key")

    def __init__(self, trail: Trail, events: tuple[trails.Event, ...],
                 evidence: trails.EvidenceRows) -> None:
        self.trail, self.events, self.evidence = trail, events, evidence
        rows = (getattr(trail, "__row__", None), getattr(trail.flow, "__row__", None))
        self.key = (rows, events, evidence) if None not in rows else None

    def size(self) -> int:
        """Characters of the text its key holds."""
        assert self.key is not None, "a read without a key is never kept"
        rows, events, evidence = self.key
        texts = (value for row in (*rows, *events, *evidence.attestations, *evidence.artifacts)
                 for value in row or () if isinstance(value, str))
        return sum(len(text) for text in texts)

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Read) and self.key is not None and self.key == other.key


def _trail(read: _Read, org_name: str, html_base: str) -> pb.Trail:
    """A trail's answer: kept when its rows are known (the trails read last), else made."""
    if read.key is None:
        return _made(read, org_name, html_base)
    return pb.Trail.FromString(_encoded_trail(read, org_name, html_base))


def _made(read: _Read, org_name: str, html_base: str) -> pb.Trail:
    view = trails.trail_view(read.trail, org_name, html_base, read.evidence.evidence())
    return with_items(to_message(view, pb.Trail), "events", [_encoded(e) for e in read.events])


@small_lru(items=512, most_bytes=16384, size=lambda read, *_: read.size())
def _encoded_trail(read: _Read, org_name: str, html_base: str) -> bytes:
    """A trail's answer, encoded; at most 16,384 characters of rows make a kept one."""
    return _made(read, org_name, html_base).SerializeToString()
