from . import common_pb2 as _common_pb2
from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateAttestationTypeRequest(_message.Message):
    __slots__ = ("org", "data_json", "type_schema")
    ORG_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    TYPE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    org: str
    data_json: _struct_pb2.Struct
    type_schema: _common_pb2.UploadedFile
    def __init__(self, org: _Optional[str] = ..., data_json: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., type_schema: _Optional[_Union[_common_pb2.UploadedFile, _Mapping]] = ...) -> None: ...

class CreateAttestationTypeResponse(_message.Message):
    __slots__ = ("message", "created")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    message: str
    created: bool
    def __init__(self, message: _Optional[str] = ..., created: _Optional[bool] = ...) -> None: ...

class GetAttestationTypeRequest(_message.Message):
    __slots__ = ("org", "custom_attestation_type_name", "version")
    ORG_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_ATTESTATION_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    org: str
    custom_attestation_type_name: str
    version: int
    def __init__(self, org: _Optional[str] = ..., custom_attestation_type_name: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class ListAttestationTypesRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class AttestationTypeList(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[AttestationType]
    def __init__(self, data: _Optional[_Iterable[_Union[AttestationType, _Mapping]]] = ...) -> None: ...

class AttestationType(_message.Message):
    __slots__ = ("name", "description", "org", "archived", "created_by", "created_at", "last_modified_at", "versions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ORG_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    org: str
    archived: bool
    created_by: str
    created_at: float
    last_modified_at: float
    versions: _containers.RepeatedCompositeFieldContainer[AttestationTypeVersion]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., org: _Optional[str] = ..., archived: _Optional[bool] = ..., created_by: _Optional[str] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., versions: _Optional[_Iterable[_Union[AttestationTypeVersion, _Mapping]]] = ...) -> None: ...

class AttestationTypeVersion(_message.Message):
    __slots__ = ("version", "comment", "timestamp", "created_by", "type_schema", "evaluator", "summary")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    TYPE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    EVALUATOR_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    version: int
    comment: str
    timestamp: float
    created_by: str
    type_schema: _struct_pb2.Value
    evaluator: AttestationEvaluator
    summary: _struct_pb2.Value
    def __init__(self, version: _Optional[int] = ..., comment: _Optional[str] = ..., timestamp: _Optional[float] = ..., created_by: _Optional[str] = ..., type_schema: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., evaluator: _Optional[_Union[AttestationEvaluator, _Mapping]] = ..., summary: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class AttestationEvaluator(_message.Message):
    __slots__ = ("content_type", "rules")
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    content_type: str
    rules: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, content_type: _Optional[str] = ..., rules: _Optional[_Iterable[str]] = ...) -> None: ...

class ArchiveAttestationTypeRequest(_message.Message):
    __slots__ = ("org", "custom_attestation_type_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_ATTESTATION_TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    custom_attestation_type_name: str
    def __init__(self, org: _Optional[str] = ..., custom_attestation_type_name: _Optional[str] = ...) -> None: ...

class ArchiveAttestationTypeResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...
