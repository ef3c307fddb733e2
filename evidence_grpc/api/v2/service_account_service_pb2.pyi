from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ServiceAccount(_message.Message):
    __slots__ = ("name", "description", "privilege", "created_at", "created_by", "display_name", "creating_user_id", "for_webhook")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PRIVILEGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATING_USER_ID_FIELD_NUMBER: _ClassVar[int]
    FOR_WEBHOOK_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    privilege: str
    created_at: float
    created_by: str
    display_name: str
    creating_user_id: str
    for_webhook: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., privilege: _Optional[str] = ..., created_at: _Optional[float] = ..., created_by: _Optional[str] = ..., display_name: _Optional[str] = ..., creating_user_id: _Optional[str] = ..., for_webhook: _Optional[bool] = ...) -> None: ...

class CreateServiceAccountRequest(_message.Message):
    __slots__ = ("org", "name", "description", "privilege")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PRIVILEGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    description: str
    privilege: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., privilege: _Optional[str] = ...) -> None: ...

class ListServiceAccountsRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ListServiceAccountsResponse(_message.Message):
    __slots__ = ("service_accounts",)
    SERVICE_ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    service_accounts: _containers.RepeatedCompositeFieldContainer[ServiceAccount]
    def __init__(self, service_accounts: _Optional[_Iterable[_Union[ServiceAccount, _Mapping]]] = ...) -> None: ...

class GetServiceAccountRequest(_message.Message):
    __slots__ = ("org", "name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class UpdateServiceAccountRequest(_message.Message):
    __slots__ = ("org", "name", "description", "privilege")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PRIVILEGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    description: _struct_pb2.Value
    privilege: _struct_pb2.Value
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., privilege: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class DeleteServiceAccountRequest(_message.Message):
    __slots__ = ("org", "name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ServiceAccountMessage(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class ApiKey(_message.Message):
    __slots__ = ("id", "description", "created_at", "expires_at", "last_used_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    description: str
    created_at: float
    expires_at: int
    last_used_at: float
    def __init__(self, id: _Optional[str] = ..., description: _Optional[str] = ..., created_at: _Optional[float] = ..., expires_at: _Optional[int] = ..., last_used_at: _Optional[float] = ...) -> None: ...

class ApiKeySecret(_message.Message):
    __slots__ = ("id", "key", "description", "created_at", "expires_at", "grace_period_expires_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    key: str
    description: str
    created_at: float
    expires_at: int
    grace_period_expires_at: float
    def __init__(self, id: _Optional[str] = ..., key: _Optional[str] = ..., description: _Optional[str] = ..., created_at: _Optional[float] = ..., expires_at: _Optional[int] = ..., grace_period_expires_at: _Optional[float] = ...) -> None: ...

class CreateApiKeyRequest(_message.Message):
    __slots__ = ("org", "name", "description", "expires_at")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    description: str
    expires_at: int
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., expires_at: _Optional[int] = ...) -> None: ...

class ListApiKeysRequest(_message.Message):
    __slots__ = ("org", "name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class ListApiKeysResponse(_message.Message):
    __slots__ = ("api_keys",)
    API_KEYS_FIELD_NUMBER: _ClassVar[int]
    api_keys: _containers.RepeatedCompositeFieldContainer[ApiKey]
    def __init__(self, api_keys: _Optional[_Iterable[_Union[ApiKey, _Mapping]]] = ...) -> None: ...

class GetApiKeyRequest(_message.Message):
    __slots__ = ("org", "name", "key_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    key_id: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., key_id: _Optional[str] = ...) -> None: ...

class RevokeApiKeyRequest(_message.Message):
    __slots__ = ("org", "name", "key_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    key_id: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., key_id: _Optional[str] = ...) -> None: ...

class RotateApiKeyRequest(_message.Message):
    __slots__ = ("org", "name", "key_id", "grace_period_hours", "expires_at")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_HOURS_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    key_id: str
    grace_period_hours: int
    expires_at: int
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., key_id: _Optional[str] = ..., grace_period_hours: _Optional[int] = ..., expires_at: _Optional[int] = ...) -> None: ...

class ListMembershipAuditLogRequest(_message.Message):
    __slots__ = ("org", "page", "per_page", "search", "event_type", "from_timestamp", "to_timestamp", "sort_dir")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    FROM_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    SORT_DIR_FIELD_NUMBER: _ClassVar[int]
    org: str
    page: int
    per_page: int
    search: str
    event_type: str
    from_timestamp: float
    to_timestamp: float
    sort_dir: str
    def __init__(self, org: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., search: _Optional[str] = ..., event_type: _Optional[str] = ..., from_timestamp: _Optional[float] = ..., to_timestamp: _Optional[float] = ..., sort_dir: _Optional[str] = ...) -> None: ...

class MembershipAuditEvent(_message.Message):
    __slots__ = ("event_type", "timestamp", "actor", "subject", "role", "source", "details", "actor_type")
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    ACTOR_TYPE_FIELD_NUMBER: _ClassVar[int]
    event_type: str
    timestamp: float
    actor: str
    subject: str
    role: str
    source: str
    details: _struct_pb2.Struct
    actor_type: str
    def __init__(self, event_type: _Optional[str] = ..., timestamp: _Optional[float] = ..., actor: _Optional[str] = ..., subject: _Optional[str] = ..., role: _Optional[str] = ..., source: _Optional[str] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., actor_type: _Optional[str] = ...) -> None: ...

class MembershipAuditLog(_message.Message):
    __slots__ = ("events", "page", "per_page", "total_count")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[MembershipAuditEvent]
    page: int
    per_page: int
    total_count: int
    def __init__(self, events: _Optional[_Iterable[_Union[MembershipAuditEvent, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...
