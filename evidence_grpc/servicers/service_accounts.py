"""ServiceAccountService: service accounts, their API keys and the membership audit log."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import json_format

from ..api.v2 import service_account_service_pb2 as pb
from ..api.v2 import service_account_service_pb2_grpc as pb_grpc
from ..convert import optional, to_message
from ..domain.identity import service_accounts
from ..domain.identity.callers import current_caller


def _present(request: Any, field: str) -> Any:
    """A google.protobuf.Value field: UNCHANGED when absent, else its value (None for null)."""
    if not request.HasField(field):
        return service_accounts.UNCHANGED
    return json_format.MessageToDict(getattr(request, field))


def _account(account: Any) -> pb.ServiceAccount:
    return to_message(service_accounts.account_view(account), pb.ServiceAccount)


class ServiceAccountServicer(pb_grpc.ServiceAccountServiceServicer):
    def CreateServiceAccount(self, request: pb.CreateServiceAccountRequest,
                             context: grpc.ServicerContext) -> pb.ServiceAccount:
        caller = current_caller()
        return _account(service_accounts.create_account(
            caller.org, caller.user.name, request.name, optional(request, "description"),
            optional(request, "privilege")))

    def ListServiceAccounts(self, request: pb.ListServiceAccountsRequest,
                            context: grpc.ServicerContext) -> pb.ListServiceAccountsResponse:
        accounts = service_accounts.list_accounts(current_caller().org)
        return pb.ListServiceAccountsResponse(service_accounts=[_account(a) for a in accounts])

    def GetServiceAccount(self, request: pb.GetServiceAccountRequest,
                          context: grpc.ServicerContext) -> pb.ServiceAccount:
        return _account(service_accounts.find_account(current_caller().org, request.name))

    def UpdateServiceAccount(self, request: pb.UpdateServiceAccountRequest,
                             context: grpc.ServicerContext) -> pb.ServiceAccount:
        caller = current_caller()
        return _account(service_accounts.update_account(
            caller.org, caller.user.name, request.name, description=_present(request, "description"),
            privilege=_present(request, "privilege")))

    def DeleteServiceAccount(self, request: pb.DeleteServiceAccountRequest,
                             context: grpc.ServicerContext) -> pb.ServiceAccountMessage:
        caller = current_caller()
        service_accounts.delete_account(caller.org, caller.user.name, request.name)
        return pb.ServiceAccountMessage(message="OK")

    def CreateApiKey(self, request: pb.CreateApiKeyRequest, context: grpc.ServicerContext
                     ) -> pb.ApiKeySecret:
        caller = current_caller()
        return to_message(service_accounts.create_key(
            caller.org, caller.user.name, request.name, request.description,
            optional(request, "expires_at")), pb.ApiKeySecret)

    def ListApiKeys(self, request: pb.ListApiKeysRequest, context: grpc.ServicerContext
                    ) -> pb.ListApiKeysResponse:
        keys = service_accounts.list_keys(current_caller().org, request.name)
        return pb.ListApiKeysResponse(
            api_keys=[to_message(service_accounts.key_view(k), pb.ApiKey) for k in keys])

    def GetApiKey(self, request: pb.GetApiKeyRequest, context: grpc.ServicerContext) -> pb.ApiKey:
        _, key = service_accounts.find_key(current_caller().org, request.name, request.key_id)
        return to_message(service_accounts.key_view(key), pb.ApiKey)

    def RevokeApiKey(self, request: pb.RevokeApiKeyRequest, context: grpc.ServicerContext
                     ) -> pb.ServiceAccountMessage:
        caller = current_caller()
        service_accounts.revoke_key(caller.org, caller.user.name, request.name, request.key_id)
        return pb.ServiceAccountMessage(message="revoked")

    def RotateApiKey(self, request: pb.RotateApiKeyRequest, context: grpc.ServicerContext
                     ) -> pb.ApiKeySecret:
        caller = current_caller()
        return to_message(service_accounts.rotate_key(
            caller.org, caller.user.name, request.name, request.key_id,
            optional(request, "grace_period_hours"), optional(request, "expires_at")),
            pb.ApiKeySecret)

    def ListMembershipAuditLog(self, request: pb.ListMembershipAuditLogRequest,
                               context: grpc.ServicerContext) -> pb.MembershipAuditLog:
        rows, pagination = service_accounts.audit_log(
            current_caller().org, optional(request, "page"), optional(request, "per_page"),
            search=optional(request, "search"), event_type=optional(request, "event_type"),
            from_timestamp=optional(request, "from_timestamp"),
            to_timestamp=optional(request, "to_timestamp"), sort_dir=optional(request, "sort_dir"))
        return pb.MembershipAuditLog(
            events=[to_message(service_accounts.audit_view(e), pb.MembershipAuditEvent)
                    for e in rows], **pagination)
