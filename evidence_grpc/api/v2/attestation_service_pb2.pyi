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

class CreateAttestationRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name", "kind", "data_json", "attachment_file")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    ATTACHMENT_FILE_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    kind: str
    data_json: _struct_pb2.Struct
    attachment_file: _common_pb2.UploadedFile
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., kind: _Optional[str] = ..., data_json: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., attachment_file: _Optional[_Union[_common_pb2.UploadedFile, _Mapping]] = ...) -> None: ...

class CreateAttestationResponse(_message.Message):
    __slots__ = ("message", "attestation_id")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    message: str
    attestation_id: str
    def __init__(self, message: _Optional[str] = ..., attestation_id: _Optional[str] = ...) -> None: ...

class OverrideAttestationRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name", "data_json")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    data_json: _struct_pb2.Struct
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., data_json: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AttestationList(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    def __init__(self, data: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ...) -> None: ...

class AttestationPage(_message.Message):
    __slots__ = ("data", "pagination", "links")
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    pagination: _common_pb2.Pagination
    links: Links
    def __init__(self, data: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., pagination: _Optional[_Union[_common_pb2.Pagination, _Mapping]] = ..., links: _Optional[_Union[Links, _Mapping]] = ...) -> None: ...

class Links(_message.Message):
    __slots__ = ("next",)
    NEXT_FIELD_NUMBER: _ClassVar[int]
    next: str
    def __init__(self, next: _Optional[str] = ...) -> None: ...

class GetTrailAttestationRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name", "attestation_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    attestation_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., attestation_name: _Optional[str] = ...) -> None: ...

class GetArtifactAttestationRequest(_message.Message):
    __slots__ = ("org", "flow_name", "fingerprint", "attestation_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    fingerprint: str
    attestation_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., attestation_name: _Optional[str] = ...) -> None: ...

class ListAttestationsRequest(_message.Message):
    __slots__ = ("org", "attestation_id", "name", "name_regex", "flow", "type", "is_compliant", "from_timestamp", "to_timestamp", "after", "per_page")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    NAME_REGEX_FIELD_NUMBER: _ClassVar[int]
    FLOW_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    FROM_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    AFTER_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    attestation_id: str
    name: str
    name_regex: str
    flow: str
    type: str
    is_compliant: bool
    from_timestamp: float
    to_timestamp: float
    after: str
    per_page: int
    def __init__(self, org: _Optional[str] = ..., attestation_id: _Optional[str] = ..., name: _Optional[str] = ..., name_regex: _Optional[str] = ..., flow: _Optional[str] = ..., type: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., from_timestamp: _Optional[float] = ..., to_timestamp: _Optional[float] = ..., after: _Optional[str] = ..., per_page: _Optional[int] = ...) -> None: ...

class ListFlowAttestationsRequest(_message.Message):
    __slots__ = ("org", "flow_name", "page", "per_page", "from_timestamp", "to_timestamp")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    FROM_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    page: int
    per_page: int
    from_timestamp: float
    to_timestamp: float
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., from_timestamp: _Optional[float] = ..., to_timestamp: _Optional[float] = ...) -> None: ...

class ListAttestationsForCriteriaRequest(_message.Message):
    __slots__ = ("org", "flow_name", "commit_list", "attestation_name", "attestation_id", "attestation_type")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LIST_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    commit_list: _containers.RepeatedScalarFieldContainer[str]
    attestation_name: str
    attestation_id: str
    attestation_type: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., commit_list: _Optional[_Iterable[str]] = ..., attestation_name: _Optional[str] = ..., attestation_id: _Optional[str] = ..., attestation_type: _Optional[str] = ...) -> None: ...

class ListAttestationsForCriteriaResponse(_message.Message):
    __slots__ = ("by_commit",)
    BY_COMMIT_FIELD_NUMBER: _ClassVar[int]
    by_commit: _struct_pb2.Struct
    def __init__(self, by_commit: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class GetAttestationEvidenceRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name", "attestation_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    attestation_id: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., attestation_id: _Optional[str] = ...) -> None: ...

class ListSystemAttestationTypesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SystemAttestationTypeVersion(_message.Message):
    __slots__ = ("version", "attestation_data_schema")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_DATA_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    version: int
    attestation_data_schema: _struct_pb2.Struct
    def __init__(self, version: _Optional[int] = ..., attestation_data_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class SystemAttestationType(_message.Message):
    __slots__ = ("name", "description", "versions")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    versions: _containers.RepeatedCompositeFieldContainer[SystemAttestationTypeVersion]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., versions: _Optional[_Iterable[_Union[SystemAttestationTypeVersion, _Mapping]]] = ...) -> None: ...

class ListSystemAttestationTypesResponse(_message.Message):
    __slots__ = ("types",)
    TYPES_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedCompositeFieldContainer[SystemAttestationType]
    def __init__(self, types: _Optional[_Iterable[_Union[SystemAttestationType, _Mapping]]] = ...) -> None: ...
