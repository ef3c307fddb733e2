from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListSnapshotsRequest(_message.Message):
    __slots__ = ("org", "env_name", "page", "per_page", "interval", "reverse")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    REVERSE_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    page: int
    per_page: int
    interval: str
    reverse: bool
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., interval: _Optional[str] = ..., reverse: _Optional[bool] = ...) -> None: ...

class SnapshotListItem(_message.Message):
    __slots__ = ("index", "to", "duration", "compliant")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    index: int
    to: float
    duration: float
    compliant: bool
    def __init__(self, index: _Optional[int] = ..., to: _Optional[float] = ..., duration: _Optional[float] = ..., compliant: _Optional[bool] = ..., **kwargs) -> None: ...

class ListSnapshotsResponse(_message.Message):
    __slots__ = ("snapshots",)
    SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    snapshots: _containers.RepeatedCompositeFieldContainer[SnapshotListItem]
    def __init__(self, snapshots: _Optional[_Iterable[_Union[SnapshotListItem, _Mapping]]] = ...) -> None: ...

class GetSnapshotRequest(_message.Message):
    __slots__ = ("org", "env_name", "snapshot_expression")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_EXPRESSION_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    snapshot_expression: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., snapshot_expression: _Optional[str] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("index", "is_latest", "next_snapshot_timestamp", "artifact_compliance_count", "timestamp", "type", "compliant", "html_url", "artifacts", "applied_policies")
    class ArtifactComplianceCountEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    INDEX_FIELD_NUMBER: _ClassVar[int]
    IS_LATEST_FIELD_NUMBER: _ClassVar[int]
    NEXT_SNAPSHOT_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_COMPLIANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    APPLIED_POLICIES_FIELD_NUMBER: _ClassVar[int]
    index: int
    is_latest: bool
    next_snapshot_timestamp: float
    artifact_compliance_count: _containers.ScalarMap[str, int]
    timestamp: float
    type: str
    compliant: bool
    html_url: str
    artifacts: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    applied_policies: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    def __init__(self, index: _Optional[int] = ..., is_latest: _Optional[bool] = ..., next_snapshot_timestamp: _Optional[float] = ..., artifact_compliance_count: _Optional[_Mapping[str, int]] = ..., timestamp: _Optional[float] = ..., type: _Optional[str] = ..., compliant: _Optional[bool] = ..., html_url: _Optional[str] = ..., artifacts: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., applied_policies: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ...) -> None: ...

class DiffSnapshotsRequest(_message.Message):
    __slots__ = ("org", "snappish1", "snappish2")
    ORG_FIELD_NUMBER: _ClassVar[int]
    SNAPPISH1_FIELD_NUMBER: _ClassVar[int]
    SNAPPISH2_FIELD_NUMBER: _ClassVar[int]
    org: str
    snappish1: str
    snappish2: str
    def __init__(self, org: _Optional[str] = ..., snappish1: _Optional[str] = ..., snappish2: _Optional[str] = ...) -> None: ...

class DiffItem(_message.Message):
    __slots__ = ("snapshot_id", "artifacts")
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    snapshot_id: str
    artifacts: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    def __init__(self, snapshot_id: _Optional[str] = ..., artifacts: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ...) -> None: ...

class SnapshotDiff(_message.Message):
    __slots__ = ("snappish1", "snappish2", "changed", "not_changed")
    SNAPPISH1_FIELD_NUMBER: _ClassVar[int]
    SNAPPISH2_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    NOT_CHANGED_FIELD_NUMBER: _ClassVar[int]
    snappish1: DiffItem
    snappish2: DiffItem
    changed: DiffItem
    not_changed: DiffItem
    def __init__(self, snappish1: _Optional[_Union[DiffItem, _Mapping]] = ..., snappish2: _Optional[_Union[DiffItem, _Mapping]] = ..., changed: _Optional[_Union[DiffItem, _Mapping]] = ..., not_changed: _Optional[_Union[DiffItem, _Mapping]] = ...) -> None: ...
