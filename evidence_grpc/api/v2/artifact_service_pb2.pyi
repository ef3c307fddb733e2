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

class ReportArtifactRequest(_message.Message):
    __slots__ = ("org", "flow_name", "artifact")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    artifact: _struct_pb2.Struct
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., artifact: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ReportArtifactResponse(_message.Message):
    __slots__ = ("message", "fingerprint")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    message: str
    fingerprint: str
    def __init__(self, message: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...

class GetArtifactByFingerprintRequest(_message.Message):
    __slots__ = ("org", "flow_name", "fingerprint", "trail", "attestation_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    fingerprint: str
    trail: str
    attestation_id: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., trail: _Optional[str] = ..., attestation_id: _Optional[str] = ...) -> None: ...

class GetArtifactsByCommitRequest(_message.Message):
    __slots__ = ("org", "flow_name", "commit_sha", "trail")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    COMMIT_SHA_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    commit_sha: str
    trail: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., commit_sha: _Optional[str] = ..., trail: _Optional[str] = ...) -> None: ...

class GetLatestArtifactCommitRequest(_message.Message):
    __slots__ = ("org", "flow_name", "fingerprint", "branch")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    fingerprint: str
    branch: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., branch: _Optional[str] = ...) -> None: ...

class GetLatestArtifactCommitResponse(_message.Message):
    __slots__ = ("latest_commit",)
    LATEST_COMMIT_FIELD_NUMBER: _ClassVar[int]
    latest_commit: str
    def __init__(self, latest_commit: _Optional[str] = ...) -> None: ...

class ListArtifactsRequest(_message.Message):
    __slots__ = ("org", "flow_name", "repo_name", "page", "per_page")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    repo_name: str
    page: int
    per_page: int
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., repo_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ...) -> None: ...

class ListFlowArtifactsRequest(_message.Message):
    __slots__ = ("org", "flow_name", "page", "per_page")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    page: int
    per_page: int
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ...) -> None: ...

class ArtifactList(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    def __init__(self, data: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("org", "search_value")
    ORG_FIELD_NUMBER: _ClassVar[int]
    SEARCH_VALUE_FIELD_NUMBER: _ClassVar[int]
    org: str
    search_value: str
    def __init__(self, org: _Optional[str] = ..., search_value: _Optional[str] = ...) -> None: ...

class GetArtifactAuditPackageRequest(_message.Message):
    __slots__ = ("org", "flow_name", "fingerprint")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    fingerprint: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...
