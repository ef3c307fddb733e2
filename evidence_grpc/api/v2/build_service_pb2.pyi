from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListBuildsRequest(_message.Message):
    __slots__ = ("org", "page", "per_page", "repo_id", "repo_name", "repo_inner_id", "start_ts", "end_ts")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    REPO_INNER_ID_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    org: str
    page: int
    per_page: int
    repo_id: str
    repo_name: str
    repo_inner_id: str
    start_ts: float
    end_ts: float
    def __init__(self, org: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., repo_id: _Optional[str] = ..., repo_name: _Optional[str] = ..., repo_inner_id: _Optional[str] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ...) -> None: ...

class BuildRepoInfo(_message.Message):
    __slots__ = ("name", "repo_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    repo_id: str
    def __init__(self, name: _Optional[str] = ..., repo_id: _Optional[str] = ...) -> None: ...

class Build(_message.Message):
    __slots__ = ("created_at", "fingerprint", "flow_name", "trail_name", "repo_info", "links")
    class LinksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    created_at: float
    fingerprint: str
    flow_name: str
    trail_name: str
    repo_info: BuildRepoInfo
    links: _containers.ScalarMap[str, str]
    def __init__(self, created_at: _Optional[float] = ..., fingerprint: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., repo_info: _Optional[_Union[BuildRepoInfo, _Mapping]] = ..., links: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ListBuildsResponse(_message.Message):
    __slots__ = ("builds", "page", "per_page", "total_pages", "total_count")
    BUILDS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    builds: _containers.RepeatedCompositeFieldContainer[Build]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, builds: _Optional[_Iterable[_Union[Build, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetBuildStatisticsRequest(_message.Message):
    __slots__ = ("org", "repo_id", "repo_name", "repo_inner_id", "start_ts", "end_ts")
    ORG_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    REPO_INNER_ID_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    org: str
    repo_id: str
    repo_name: str
    repo_inner_id: str
    start_ts: float
    end_ts: float
    def __init__(self, org: _Optional[str] = ..., repo_id: _Optional[str] = ..., repo_name: _Optional[str] = ..., repo_inner_id: _Optional[str] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ...) -> None: ...

class BuiltAt(_message.Message):
    __slots__ = ("created_at",)
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    created_at: float
    def __init__(self, created_at: _Optional[float] = ...) -> None: ...

class BuildStatistics(_message.Message):
    __slots__ = ("start_ts", "end_ts", "count", "builds")
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    BUILDS_FIELD_NUMBER: _ClassVar[int]
    start_ts: float
    end_ts: float
    count: int
    builds: _containers.RepeatedCompositeFieldContainer[BuiltAt]
    def __init__(self, start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ..., count: _Optional[int] = ..., builds: _Optional[_Iterable[_Union[BuiltAt, _Mapping]]] = ...) -> None: ...
