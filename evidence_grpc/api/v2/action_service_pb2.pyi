from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Action(_message.Message):
    __slots__ = ("name", "type", "number", "targets", "triggers", "created_by", "is_created_from_slack_app", "is_failing", "last_success_timestamp", "last_failure_timestamp", "created_at", "last_modified_at", "flows", "environments")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    TRIGGERS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    IS_CREATED_FROM_SLACK_APP_FIELD_NUMBER: _ClassVar[int]
    IS_FAILING_FIELD_NUMBER: _ClassVar[int]
    LAST_SUCCESS_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    LAST_FAILURE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    FLOWS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    number: int
    targets: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    triggers: _containers.RepeatedScalarFieldContainer[str]
    created_by: str
    is_created_from_slack_app: bool
    is_failing: bool
    last_success_timestamp: float
    last_failure_timestamp: float
    created_at: float
    last_modified_at: float
    flows: _containers.RepeatedScalarFieldContainer[str]
    environments: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., number: _Optional[int] = ..., targets: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., triggers: _Optional[_Iterable[str]] = ..., created_by: _Optional[str] = ..., is_created_from_slack_app: _Optional[bool] = ..., is_failing: _Optional[bool] = ..., last_success_timestamp: _Optional[float] = ..., last_failure_timestamp: _Optional[float] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., flows: _Optional[_Iterable[str]] = ..., environments: _Optional[_Iterable[str]] = ...) -> None: ...

class ActionInput(_message.Message):
    __slots__ = ("name", "targets", "type", "environments", "flows", "triggers")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    FLOWS_FIELD_NUMBER: _ClassVar[int]
    TRIGGERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    targets: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    type: str
    environments: _containers.RepeatedScalarFieldContainer[str]
    flows: _containers.RepeatedScalarFieldContainer[str]
    triggers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., targets: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., type: _Optional[str] = ..., environments: _Optional[_Iterable[str]] = ..., flows: _Optional[_Iterable[str]] = ..., triggers: _Optional[_Iterable[str]] = ...) -> None: ...

class PutEnvironmentActionRequest(_message.Message):
    __slots__ = ("org", "action")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    action: ActionInput
    def __init__(self, org: _Optional[str] = ..., action: _Optional[_Union[ActionInput, _Mapping]] = ...) -> None: ...

class PutFlowActionRequest(_message.Message):
    __slots__ = ("org", "action")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    action: ActionInput
    def __init__(self, org: _Optional[str] = ..., action: _Optional[_Union[ActionInput, _Mapping]] = ...) -> None: ...

class PutEnvironmentNotificationRequest(_message.Message):
    __slots__ = ("org", "notification")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    org: str
    notification: ActionInput
    def __init__(self, org: _Optional[str] = ..., notification: _Optional[_Union[ActionInput, _Mapping]] = ...) -> None: ...

class PutActionResponse(_message.Message):
    __slots__ = ("action", "created")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    action: Action
    created: bool
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class ListActionsRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ListEnvironmentNotificationsRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ListActionsResponse(_message.Message):
    __slots__ = ("actions",)
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class GetActionRequest(_message.Message):
    __slots__ = ("org", "action_number")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ACTION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    org: str
    action_number: int
    def __init__(self, org: _Optional[str] = ..., action_number: _Optional[int] = ...) -> None: ...

class DeleteActionRequest(_message.Message):
    __slots__ = ("org", "action_number")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ACTION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    org: str
    action_number: int
    def __init__(self, org: _Optional[str] = ..., action_number: _Optional[int] = ...) -> None: ...

class GetEnvironmentNotificationRequest(_message.Message):
    __slots__ = ("org", "notification_number")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    org: str
    notification_number: int
    def __init__(self, org: _Optional[str] = ..., notification_number: _Optional[int] = ...) -> None: ...

class DeleteEnvironmentNotificationRequest(_message.Message):
    __slots__ = ("org", "notification_number")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    org: str
    notification_number: int
    def __init__(self, org: _Optional[str] = ..., notification_number: _Optional[int] = ...) -> None: ...

class UpdateEnvironmentNotificationRequest(_message.Message):
    __slots__ = ("org", "notification_number", "notification")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_FIELD_NUMBER: _ClassVar[int]
    org: str
    notification_number: int
    notification: ActionInput
    def __init__(self, org: _Optional[str] = ..., notification_number: _Optional[int] = ..., notification: _Optional[_Union[ActionInput, _Mapping]] = ...) -> None: ...

class ActionMessage(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...
