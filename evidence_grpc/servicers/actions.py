"""ActionService: environment and flow actions, and environment notifications (the environment
actions under their other path)."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import json_format

from ..api.v2 import action_service_pb2 as pb
from ..api.v2 import action_service_pb2_grpc as pb_grpc
from ..api.v2 import options_pb2
from ..convert import to_message
from ..domain.identity.callers import current_caller
from ..domain.outbound import actions
from ..storage.models import Action


def _data(request: Any) -> dict[str, Any]:
    return json_format.MessageToDict(request, preserving_proto_field_name=True)


# The RPCs that change actions; the privilege they declare (`(privilege)` option) is the one
# that sees webhook URLs in full.
_WRITES = ("PutEnvironmentAction", "PutFlowAction", "DeleteAction", "PutEnvironmentNotification",
           "UpdateEnvironmentNotification", "DeleteEnvironmentNotification")


def _manage_privilege() -> int:
    methods = pb.DESCRIPTOR.services_by_name["ActionService"].methods_by_name
    return max(methods[name].GetOptions().Extensions[options_pb2.privilege]
               or options_pb2.PRIVILEGE_ADMIN for name in _WRITES)


MANAGE_PRIVILEGE = _manage_privilege()


def _actions(rows: list[Action]) -> list[pb.Action]:
    reveal = current_caller().privilege >= MANAGE_PRIVILEGE
    return [to_message(view, pb.Action) for view in actions.action_views(rows, reveal=reveal)]


def _action(action: Action) -> pb.Action:
    return _actions([action])[0]


def _put(data: pb.ActionInput, kind: str) -> pb.PutActionResponse:
    caller = current_caller()
    action, created = actions.put_action(caller.org, caller.user.name, kind, _data(data))
    return pb.PutActionResponse(action=_action(action), created=created)


class ActionServicer(pb_grpc.ActionServiceServicer):
    def PutEnvironmentAction(self, request: pb.PutEnvironmentActionRequest,
                             context: grpc.ServicerContext) -> pb.PutActionResponse:
        return _put(request.action, "env")

    def PutFlowAction(self, request: pb.PutFlowActionRequest, context: grpc.ServicerContext
                      ) -> pb.PutActionResponse:
        return _put(request.action, "flow")

    def ListActions(self, request: pb.ListActionsRequest, context: grpc.ServicerContext
                    ) -> pb.ListActionsResponse:
        return pb.ListActionsResponse(
            actions=_actions(actions.list_actions(current_caller().org)))

    def GetAction(self, request: pb.GetActionRequest, context: grpc.ServicerContext
                  ) -> pb.Action:
        return _action(actions.find_action(current_caller().org, request.action_number))

    def DeleteAction(self, request: pb.DeleteActionRequest, context: grpc.ServicerContext
                     ) -> pb.ActionMessage:
        action = actions.delete_action(current_caller().org, request.action_number)
        return pb.ActionMessage(message=f"Action '{action.name}' was deleted")

    def PutEnvironmentNotification(self, request: pb.PutEnvironmentNotificationRequest,
                                   context: grpc.ServicerContext) -> pb.PutActionResponse:
        return _put(request.notification, "env")

    def ListEnvironmentNotifications(self, request: pb.ListEnvironmentNotificationsRequest,
                                     context: grpc.ServicerContext) -> pb.ListActionsResponse:
        return pb.ListActionsResponse(
            actions=_actions(actions.list_actions(current_caller().org, "env")))

    def GetEnvironmentNotification(self, request: pb.GetEnvironmentNotificationRequest,
                                   context: grpc.ServicerContext) -> pb.Action:
        return _action(actions.find_action(current_caller().org, request.notification_number,
                                           kind="env"))

    def UpdateEnvironmentNotification(self, request: pb.UpdateEnvironmentNotificationRequest,
                                      context: grpc.ServicerContext) -> pb.ActionMessage:
        action = actions.update_action(current_caller().org, request.notification_number, "env",
                                       _data(request.notification))
        return pb.ActionMessage(message=f"Notification '{action.name}' was updated")

    def DeleteEnvironmentNotification(self, request: pb.DeleteEnvironmentNotificationRequest,
                                      context: grpc.ServicerContext) -> pb.ActionMessage:
        action = actions.delete_action(current_caller().org, request.notification_number, "env")
        return pb.ActionMessage(message=f"Notification '{action.name}' was deleted")
