"""TrailService."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
from google.api import httpbody_pb2

from ..api.v2 import common_pb2
from ..api.v2 import trail_service_pb2 as pb
from ..api.v2 import trail_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..convert import (
    Encoded,
    optional,
    page_of_request,
    present_fields,
    text_of,
    to_message,
    with_items,
)
from ..domain.evidence import trails
from ..domain.identity.callers import current_caller
from ..domain.views import audit_packages
from ..memo import BytesLru, Share, bytes_lru
from ..storage.db import owns_transaction, read_snapshot
from ..storage.models import Organization, Trail
from . import lists
from .transparency import log_signer, log_witnesses


class TrailServicer(pb_grpc.TrailServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.html_base = settings.html_base

    @owns_transaction
    def BeginTrail(self, request: pb.BeginTrailRequest, context: grpc.ServicerContext
                   ) -> pb.BeginTrailResponse:
        caller = current_caller()
        trail, created = trails.begin_trail(
            caller.org, request.flow_name, present_fields(request.data_json), caller.user,
            template_yaml=text_of(request.template_file, "template_file"))
        verb = "begun" if created else "updated"
        return pb.BeginTrailResponse(message=f"trail '{trail.name}' was {verb}", created=created)

    @owns_transaction
    def GetTrail(self, request: pb.GetTrailRequest, context: grpc.ServicerContext) -> Encoded:
        """A kept answer costs the one statement that finds the trail with its marks, and no
        transaction: the answer is a pure function of what that statement read (`_key`), and
        is found by its row before any trail is made of it. Otherwise the trail is found
        again, with its events and evidence, in one snapshot."""
        org = current_caller().org
        row = trails.marked_trail_row(org, request.flow_name, request.trail_name)
        # `_key` of the trail made of the row: its flow is made of the same row
        answer = None if row is None else _kept((row, row), org.name, self.html_base)
        if answer is None:
            with read_snapshot():
                trail = trails.find_trail(org, request.flow_name, request.trail_name,
                                          marked=True)
                answer = _answers([trail], org.name, self.html_base)[0]
        return Encoded(pb.Trail, answer)

    def GetTrailAuditPackage(self, request: pb.GetTrailAuditPackageRequest,
                             context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        package = audit_packages.trail_package(current_caller().org, request.flow_name,
                                               request.trail_name, self.html_base,
                                               log_signer(self.settings),
                                               log_witnesses(self.settings))
        return httpbody_pb2.HttpBody(content_type="application/gzip", data=package)

    def GetTrailAuditPdf(self, request: pb.GetTrailAuditPdfRequest,
                         context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        report = audit_packages.trail_pdf(current_caller().org, request.flow_name,
                                          request.trail_name, self.html_base)
        return httpbody_pb2.HttpBody(content_type="application/pdf", data=report)

    def ListFlowTrails(self, request: pb.ListFlowTrailsRequest, context: grpc.ServicerContext
                       ) -> Encoded:
        org = current_caller().org
        page = page_of_request(request, whole_when_unpaged=True)
        if not page.requested:
            return _listed(pb.ListTrailsResponse(), lists.whole(
                self._chunks(org, request.flow_name), f"Flow '{request.flow_name}'", "trails",
                "StreamFlowTrails"))
        rows, pagination = trails.list_flow_trails(org, request.flow_name, page)
        head = pb.ListTrailsResponse(pagination=common_pb2.Pagination(**pagination))
        return _listed(head, _answers(rows, org.name, self.html_base))

    def StreamFlowTrails(self, request: pb.StreamFlowTrailsRequest,
                         context: grpc.ServicerContext) -> Iterator[Encoded]:
        """The unpaged list of ListFlowTrails in chunks of STREAM_CHUNK trails: a chunk is
        read, made and sent before the next is read (the transaction interceptor holds one
        snapshot for them all)."""
        for answers in self._chunks(current_caller().org, request.flow_name):
            yield Encoded(pb.StreamFlowTrailsResponse, b"", "data", answers)

    def _chunks(self, org: Organization, flow_name: str) -> Iterator[list[bytes]]:
        """The answers of every trail of the flow, STREAM_CHUNK trails at a time, kept within
        one share."""
        share = Share(_KEPT_TRAILS)
        for batch in trails.flow_trails_in_batches(org, flow_name, lists.STREAM_CHUNK):
            yield _answers(batch, org.name, self.html_base, share)

    def ListTrails(self, request: pb.ListTrailsRequest, context: grpc.ServicerContext
                   ) -> Encoded:
        org = current_caller().org
        page = page_of_request(request)
        rows, pagination = trails.list_trails(
            org, page, flow_name=optional(request, "flow"),
            flow_tags=list(request.flow_tag), fingerprint=optional(request, "fingerprint"))
        head = pb.ListTrailsResponse(pagination=common_pb2.Pagination(**pagination))
        return _listed(head, _answers(rows, org.name, self.html_base))


def _listed(head: pb.ListTrailsResponse, answers: list[bytes]) -> Encoded:
    return Encoded(pb.ListTrailsResponse, head.SerializeToString(), "data", answers)


# The TrailEvent member holding the fields of each event type.
_EVENT_KINDS = {
    "trail_reported": "trail", "trail_updated": "trail",
    "artifact_creation_reported": "artifact",
    "trail_attestation_reported": "attestation", "artifact_attestation_reported": "attestation",
    "artifact_started_running": "running", "artifact_stopped_running": "running",
    "artifact_approval_reported": "approval",
}


# What each process keeps of trails' answers (see `_answers`), and of their events, counted as
# the text they are made of (kept as the key) and their encoding (about as big).
EVENT_BYTES = 4 * 1024 * 1024
TRAIL_BYTES = 24 * 1024 * 1024
_KEPT_TRAILS = BytesLru(TRAIL_BYTES)


@bytes_lru(max_bytes=EVENT_BYTES, size=lambda event: 2 * len(event.payload_json or "") + 256)
def _encoded(event: trails.Event) -> bytes:
    """A recorded event as its TrailEvent message, encoded: made of its row alone, so the
    events read last are kept (see `with_items`)."""
    fields = event.view()
    timestamp, type_ = fields.pop("timestamp"), fields.pop("type")
    return to_message({"timestamp": timestamp, "type": type_, _EVENT_KINDS[type_]: fields},
                      pb.TrailEvent).SerializeToString()


def _key(trail: Trail) -> tuple | None:
    """What a trail's answer is made of, as read with its marks (`trails.TrailMarks`): its row,
    which ends with its marks, and its flow's (`Prepared.models` keeps them). Compliance is a
    pure function of them, so a change is another key, never a stale answer. None for a trail
    read otherwise."""
    rows = (getattr(trail, "__row__", None), getattr(trail.flow, "__row__", None))
    return None if None in rows or getattr(trail, "marks", None) is None else rows


def _size(key: tuple, encoded: bytes) -> int:
    """What a kept answer holds: its encoding, and its key's rows, each value a Python object
    (ROW_VALUE_BYTES, and a text's characters too) in the rows' tuples."""
    values = [value for row in key for value in row]
    texts = sum(len(value) for value in values if isinstance(value, str))
    return texts + ROW_VALUE_BYTES * len(values) + len(encoded) + 512


ROW_VALUE_BYTES = 56  # a float, an int or an empty text; measured with tracemalloc


def _kept(key: tuple | None, org_name: str, html_base: str) -> bytes | None:
    """The kept answer of a trail of that `_key`, if any."""
    return None if key is None else _KEPT_TRAILS.get((key, org_name, html_base))


def _answers(rows: list[Trail], org_name: str, html_base: str, share: Share | None = None
             ) -> list[bytes]:
    """The trails' answers, encoded: those kept by their key as it reads now, the others made,
    their events and evidence read in one query each (and kept within the answers' `share`, a
    new one unless given, when they are what their marks name)."""
    keys = [_key(t) for t in rows]
    found = [_kept(key, org_name, html_base) for key in keys]
    missing = [t for t, answer in zip(rows, found, strict=True) if answer is None]
    events = trails.events_of(missing)
    evidence = trails.evidence_rows_of(missing)
    share = share or Share(_KEPT_TRAILS)
    answers = []
    for trail, key, answer in zip(rows, keys, found, strict=True):
        if answer is None:
            made, rows_of = events[trail.id], evidence[trail.id]
            view = trails.trail_view(trail, org_name, html_base, rows_of.evidence())
            answer = with_items(to_message(view, pb.Trail), "events",
                                [_encoded(e) for e in made]).SerializeToString()
            if key is not None and trails.names(trail.marks, made, rows_of):
                share.put((key, org_name, html_base), answer, _size(key, answer))
        answers.append(answer)
    return answers
