"""EnvironmentService."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
from google.api import httpbody_pb2

from ..api.v2 import environment_service_pb2 as pb
from ..api.v2 import environment_service_pb2_grpc as pb_grpc
from ..config import Settings
from ..convert import optional, plain_data, present_fields, to_message
from ..domain.identity.callers import current_caller
from ..domain.runtime import env_audit, environment_changes, environments, snapshots
from ..storage.db import owns_transaction
from ..storage.models import Environment, Organization
from . import lists


def _environments(org: Organization, rows: list[Environment]) -> list[pb.Environment]:
    views = environments.environment_views(rows, org.name, snapshots.environment_states(rows))
    return [to_message(view, pb.Environment) for view in views]


def _filters(request: pb.ListEnvironmentsRequest | pb.StreamEnvironmentsRequest
             ) -> dict[str, Any]:
    return {"name": optional(request, "name"), "types": list(request.type),
            "tags": list(request.tag), "sort": optional(request, "sort"),
            "sort_direction": optional(request, "sort_direction")}


def _chunks(org: Organization,
            request: pb.ListEnvironmentsRequest | pb.StreamEnvironmentsRequest
            ) -> Iterator[list[pb.Environment]]:
    """Every environment the request lists, STREAM_CHUNK at a time."""
    for batch in environments.environments_in_batches(org, lists.STREAM_CHUNK,
                                                      **_filters(request)):
        yield _environments(org, batch)


class EnvironmentServicer(pb_grpc.EnvironmentServiceServicer):
    def __init__(self, settings: Settings) -> None:
        self.html_base = settings.html_base

    def UpsertEnvironment(self, request: pb.UpsertEnvironmentRequest, context: grpc.ServicerContext
                          ) -> pb.UpsertEnvironmentResponse:
        org = current_caller().org
        data = present_fields(request)
        data.pop("org", None)
        for field in ("name", "type", "description"):
            data.setdefault(field, "")
        env, created = environment_changes.upsert_environment(org, data)
        verb = "created" if created else "updated"
        return pb.UpsertEnvironmentResponse(message=f"environment '{env.name}' was {verb}",
                                            created=created)

    def GetEnvironment(self, request: pb.GetEnvironmentRequest, context: grpc.ServicerContext
                       ) -> pb.Environment:
        org = current_caller().org
        return _environments(org, [environments.find_environment(org, request.env_name)])[0]

    def ListEnvironments(self, request: pb.ListEnvironmentsRequest, context: grpc.ServicerContext
                         ) -> pb.ListEnvironmentsResponse:
        org = current_caller().org
        if not (request.HasField("page") or request.HasField("per_page")):
            every: list[pb.Environment] = lists.whole(
                _chunks(org, request), f"Organization '{org.name}'", "environments",
                "StreamEnvironments")
            return pb.ListEnvironmentsResponse(environments=every)
        rows, pagination = environments.list_environments(
            org, optional(request, "page"), optional(request, "per_page"), **_filters(request))
        return pb.ListEnvironmentsResponse(
            environments=_environments(org, rows), page=pagination["page"],
            per_page=pagination["per_page"], total_pages=pagination["total_pages"],
            total_count=pagination["total_count"])

    def StreamEnvironments(self, request: pb.StreamEnvironmentsRequest,
                           context: grpc.ServicerContext
                           ) -> Iterator[pb.StreamEnvironmentsResponse]:
        """The unpaged list of ListEnvironments in chunks of STREAM_CHUNK environments, each
        read, made and sent before the next is read, from one snapshot."""
        for chunk in _chunks(current_caller().org, request):
            yield pb.StreamEnvironmentsResponse(environments=chunk)

    def UpdateEnvironment(self, request: pb.UpdateEnvironmentRequest, context: grpc.ServicerContext
                          ) -> pb.Environment:
        org = current_caller().org
        data = present_fields(request)
        for field in ("org", "env_name"):
            data.pop(field, None)
        for field in ("included_environments", "policies"):
            if request.HasField(field):
                data[field] = plain_data(getattr(request, field), field)
        env = environment_changes.update_environment(org, request.env_name, data)
        return _environments(org, [env])[0]

    def ArchiveEnvironment(self, request: pb.ArchiveEnvironmentRequest,
                           context: grpc.ServicerContext) -> pb.EnvironmentMessage:
        env = environment_changes.archive_environment(current_caller().org, request.env_name)
        return pb.EnvironmentMessage(message=f"environment '{env.name}' was archived")

    def RenameEnvironment(self, request: pb.RenameEnvironmentRequest,
                          context: grpc.ServicerContext) -> pb.EnvironmentMessage:
        env = environment_changes.rename_environment(current_caller().org, request.env_name,
                                              request.new_name)
        return pb.EnvironmentMessage(
            message=f"environment '{request.env_name}' was renamed to '{env.name}'")

    def JoinEnvironment(self, request: pb.JoinEnvironmentRequest, context: grpc.ServicerContext
                        ) -> pb.EnvironmentMessage:
        env = environment_changes.join_environment(current_caller().org, request.env_name,
                                            request.physical_env_name)
        return pb.EnvironmentMessage(message=f"environment '{request.physical_env_name}' "
                                             f"joined logical environment '{env.name}'")

    @owns_transaction  # judges before its write transaction
    def ReportEnvironment(self, request: pb.ReportEnvironmentRequest,
                          context: grpc.ServicerContext) -> pb.EnvironmentMessage:
        report = plain_data(request.report, "report")
        snapshot = snapshots.report_environment(current_caller().org, request.env_name,
                                                request.type, report)
        return pb.EnvironmentMessage(message=snapshots.report_message(request.env_name, snapshot))

    def ListEnvironmentEvents(self, request: pb.ListEnvironmentEventsRequest,
                              context: grpc.ServicerContext) -> pb.ListEnvironmentEventsResponse:
        org = current_caller().org
        start_ts = optional(request, "start_ts")
        end_ts = optional(request, "end_ts")
        events = snapshots.list_events(
            org, request.env_name, page=optional(request, "page"),
            per_page=optional(request, "per_page"), reverse=bool(optional(request, "reverse")),
            interval=optional(request, "interval") or None, start=optional(request, "start") or None,
            end=optional(request, "end") or None,
            start_ts=start_ts if start_ts is not None else optional(request, "from"),
            end_ts=end_ts if end_ts is not None else optional(request, "to"),
            repo_names=list(request.repo_name), html_base=self.html_base)
        return pb.ListEnvironmentEventsResponse(
            events=[to_message(e, pb.EnvironmentEvent) for e in events])

    def AllowArtifact(self, request: pb.AllowArtifactRequest, context: grpc.ServicerContext
                      ) -> pb.AllowArtifactResponse:
        caller = current_caller()
        data = {k: v for k, v in present_fields(request).items() if k not in ("org", "env_name")}
        for field in ("artifact_name", "artifact_fingerprint", "description"):
            data.setdefault(field, "")
        entry = environments.allow_artifact(caller.org, request.env_name, data, caller.user)
        kept = to_message(environments.allowlist_view(entry, request.env_name), pb.AllowlistEntry)
        return pb.AllowArtifactResponse(
            allowed=pb.AllowedArtifact(artifact_name=kept.artifact_name,
                                       artifact_fingerprint=kept.fingerprint,
                                       description=kept.description),
            entry=kept)

    def ListAllowlist(self, request: pb.ListAllowlistRequest, context: grpc.ServicerContext
                      ) -> pb.ListAllowlistResponse:
        entries = environments.list_allowlist(current_caller().org)
        return pb.ListAllowlistResponse(entries=[to_message(e, pb.AllowlistEntry) for e in entries])

    def GetEnvironmentAuditLog(self, request: pb.GetEnvironmentAuditLogRequest,
                               context: grpc.ServicerContext) -> httpbody_pb2.HttpBody:
        org = current_caller().org
        text = env_audit.audit_log_csv(
            org, environments.find_environment(org, request.env_name),
            from_timestamp=optional(request, "from_timestamp"),
            to_timestamp=optional(request, "to_timestamp"), event_types=list(request.event_types),
            flow_names=list(request.flow_names), repo_names=list(request.repo_names))
        return httpbody_pb2.HttpBody(content_type="text/csv; charset=utf-8", data=text.encode())
