from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

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
