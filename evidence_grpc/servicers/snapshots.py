"""SnapshotService."""

from __future__ import annotations

import grpc

from ..api.v2 import snapshot_service_pb2 as pb
from ..api.v2 import snapshot_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..convert import optional, to_message
from ..domain.identity.callers import current_caller
from ..domain.runtime import snapshots


class SnapshotServicer(pb_grpc.SnapshotServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def ListSnapshots(self, request: pb.ListSnapshotsRequest, context: grpc.ServicerContext
                      ) -> pb.ListSnapshotsResponse:
        items = snapshots.list_snapshots(
            current_caller().org, request.env_name,
            optional(request, "page"),
            optional(request, "per_page"),
            interval=request.interval or None, reverse=request.reverse)
        return pb.ListSnapshotsResponse(snapshots=[to_message(i, pb.SnapshotListItem)
                                                   for i in items])

    def GetSnapshot(self, request: pb.GetSnapshotRequest, context: grpc.ServicerContext
                    ) -> pb.Snapshot:
        view = snapshots.get_snapshot(current_caller().org, request.env_name,
                                      request.snapshot_expression, self.html_base)
        return to_message(view, pb.Snapshot)

    def DiffSnapshots(self, request: pb.DiffSnapshotsRequest, context: grpc.ServicerContext
                      ) -> pb.SnapshotDiff:
        diff = snapshots.diff_snapshots(current_caller().org, request.snappish1,
                                        request.snappish2, self.html_base)
        return to_message(diff, pb.SnapshotDiff)
