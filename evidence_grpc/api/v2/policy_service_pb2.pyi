from . import common_pb2 as _common_pb2
from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.api import httpbody_pb2 as _httpbody_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PolicyVersion(_message.Message):
    __slots__ = ("version", "comment", "timestamp", "created_by", "policy_yaml")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    POLICY_YAML_FIELD_NUMBER: _ClassVar[int]
    version: int
    comment: str
    timestamp: float
    created_by: str
    policy_yaml: str
    def __init__(self, version: _Optional[int] = ..., comment: _Optional[str] = ..., timestamp: _Optional[float] = ..., created_by: _Optional[str] = ..., policy_yaml: _Optional[str] = ...) -> None: ...

class PolicyEvent(_message.Message):
    __slots__ = ("type", "timestamp", "user", "data", "user_type")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    USER_TYPE_FIELD_NUMBER: _ClassVar[int]
    type: str
    timestamp: float
    user: str
    data: _struct_pb2.Struct
    user_type: str
    def __init__(self, type: _Optional[str] = ..., timestamp: _Optional[float] = ..., user: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., user_type: _Optional[str] = ...) -> None: ...

class Policy(_message.Message):
    __slots__ = ("name", "description", "created_by", "created_at", "last_modified_at", "archived", "versions", "events", "consuming_envs")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CONSUMING_ENVS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    created_by: str
    created_at: float
    last_modified_at: float
    archived: bool
    versions: _containers.RepeatedCompositeFieldContainer[PolicyVersion]
    events: _containers.RepeatedCompositeFieldContainer[PolicyEvent]
    consuming_envs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., created_by: _Optional[str] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., archived: _Optional[bool] = ..., versions: _Optional[_Iterable[_Union[PolicyVersion, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[PolicyEvent, _Mapping]]] = ..., consuming_envs: _Optional[_Iterable[str]] = ...) -> None: ...

class PolicyPayload(_message.Message):
    __slots__ = ("name", "description", "type", "comment")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    type: str
    comment: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[str] = ..., comment: _Optional[str] = ...) -> None: ...

class UpsertPolicyRequest(_message.Message):
    __slots__ = ("org", "payload", "policy_file")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    POLICY_FILE_FIELD_NUMBER: _ClassVar[int]
    org: str
    payload: PolicyPayload
    policy_file: _common_pb2.UploadedFile
    def __init__(self, org: _Optional[str] = ..., payload: _Optional[_Union[PolicyPayload, _Mapping]] = ..., policy_file: _Optional[_Union[_common_pb2.UploadedFile, _Mapping]] = ...) -> None: ...

class UpsertPolicyResponse(_message.Message):
    __slots__ = ("policy", "created")
    POLICY_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    policy: Policy
    created: bool
    def __init__(self, policy: _Optional[_Union[Policy, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class GetPolicyRequest(_message.Message):
    __slots__ = ("org", "policy_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    POLICY_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    policy_name: str
    def __init__(self, org: _Optional[str] = ..., policy_name: _Optional[str] = ...) -> None: ...

class ListPoliciesRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ListPoliciesResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Policy]
    def __init__(self, data: _Optional[_Iterable[_Union[Policy, _Mapping]]] = ...) -> None: ...

class AttachPoliciesRequest(_message.Message):
    __slots__ = ("org", "env_name", "policy_names")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    POLICY_NAMES_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    policy_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., policy_names: _Optional[_Iterable[str]] = ...) -> None: ...

class AttachPoliciesResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class DetachPoliciesRequest(_message.Message):
    __slots__ = ("org", "env_name", "policy_names")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    POLICY_NAMES_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    policy_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., policy_names: _Optional[_Iterable[str]] = ...) -> None: ...

class DetachPoliciesResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class GetSchemaRequest(_message.Message):
    __slots__ = ("kind", "version")
    KIND_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    kind: str
    version: str
    def __init__(self, kind: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...
