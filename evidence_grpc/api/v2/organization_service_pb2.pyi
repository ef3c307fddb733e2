from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Organization(_message.Message):
    __slots__ = ("name", "kind", "experimental_features_enabled", "created_at", "last_modified_at", "features")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_FEATURES_ENABLED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: str
    experimental_features_enabled: bool
    created_at: float
    last_modified_at: float
    features: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., experimental_features_enabled: _Optional[bool] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., features: _Optional[_Iterable[str]] = ...) -> None: ...

class GetOrganizationRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class UpdateExperimentalFeaturesRequest(_message.Message):
    __slots__ = ("org", "experimental_features_enabled")
    ORG_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENTAL_FEATURES_ENABLED_FIELD_NUMBER: _ClassVar[int]
    org: str
    experimental_features_enabled: bool
    def __init__(self, org: _Optional[str] = ..., experimental_features_enabled: _Optional[bool] = ...) -> None: ...

class UpdateExperimentalFeaturesResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class GetDefaultOrganizationRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetDefaultOrganizationResponse(_message.Message):
    __slots__ = ("default_org_name",)
    DEFAULT_ORG_NAME_FIELD_NUMBER: _ClassVar[int]
    default_org_name: str
    def __init__(self, default_org_name: _Optional[str] = ...) -> None: ...

class SetDefaultOrganizationRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class SetDefaultOrganizationResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class WebSession(_message.Message):
    __slots__ = ("id", "actor", "actor_type", "created_at", "last_seen_at", "expires_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    ACTOR_TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    actor: str
    actor_type: str
    created_at: float
    last_seen_at: float
    expires_at: float
    def __init__(self, id: _Optional[str] = ..., actor: _Optional[str] = ..., actor_type: _Optional[str] = ..., created_at: _Optional[float] = ..., last_seen_at: _Optional[float] = ..., expires_at: _Optional[float] = ...) -> None: ...

class ListWebSessionsRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ListWebSessionsResponse(_message.Message):
    __slots__ = ("sessions",)
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[WebSession]
    def __init__(self, sessions: _Optional[_Iterable[_Union[WebSession, _Mapping]]] = ...) -> None: ...

class EndWebSessionRequest(_message.Message):
    __slots__ = ("org", "id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    id: str
    def __init__(self, org: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class EndWebSessionResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class EndWebSessionsRequest(_message.Message):
    __slots__ = ("org", "actor")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    org: str
    actor: str
    def __init__(self, org: _Optional[str] = ..., actor: _Optional[str] = ...) -> None: ...

class EndWebSessionsResponse(_message.Message):
    __slots__ = ("ended",)
    ENDED_FIELD_NUMBER: _ClassVar[int]
    ended: int
    def __init__(self, ended: _Optional[int] = ...) -> None: ...
