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

class Flow(_message.Message):
    __slots__ = ("name", "description", "visibility", "org", "template", "repo_url", "tags", "last_deployment_at", "archived", "created_at", "last_modified_at")
    class TagsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    ORG_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    REPO_URL_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    LAST_DEPLOYMENT_AT_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    visibility: str
    org: str
    template: _struct_pb2.Value
    repo_url: str
    tags: _containers.ScalarMap[str, str]
    last_deployment_at: float
    archived: bool
    created_at: float
    last_modified_at: float
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., visibility: _Optional[str] = ..., org: _Optional[str] = ..., template: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., repo_url: _Optional[str] = ..., tags: _Optional[_Mapping[str, str]] = ..., last_deployment_at: _Optional[float] = ..., archived: _Optional[bool] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ...) -> None: ...

class UpsertFlowRequest(_message.Message):
    __slots__ = ("org", "name", "description", "visibility", "template", "repo_url")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    REPO_URL_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    description: str
    visibility: str
    template: _containers.RepeatedScalarFieldContainer[str]
    repo_url: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., visibility: _Optional[str] = ..., template: _Optional[_Iterable[str]] = ..., repo_url: _Optional[str] = ...) -> None: ...

class UpsertFlowResponse(_message.Message):
    __slots__ = ("flow", "created")
    FLOW_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    flow: Flow
    created: bool
    def __init__(self, flow: _Optional[_Union[Flow, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class FlowData(_message.Message):
    __slots__ = ("name", "description", "visibility")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    VISIBILITY_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    visibility: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., visibility: _Optional[str] = ...) -> None: ...

class UpsertFlowWithTemplateRequest(_message.Message):
    __slots__ = ("org", "data_json", "template_file")
    ORG_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FILE_FIELD_NUMBER: _ClassVar[int]
    org: str
    data_json: FlowData
    template_file: _common_pb2.UploadedFile
    def __init__(self, org: _Optional[str] = ..., data_json: _Optional[_Union[FlowData, _Mapping]] = ..., template_file: _Optional[_Union[_common_pb2.UploadedFile, _Mapping]] = ...) -> None: ...

class UpsertFlowWithTemplateResponse(_message.Message):
    __slots__ = ("flow", "created")
    FLOW_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    flow: Flow
    created: bool
    def __init__(self, flow: _Optional[_Union[Flow, _Mapping]] = ..., created: _Optional[bool] = ...) -> None: ...

class GetFlowRequest(_message.Message):
    __slots__ = ("org", "flow_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ...) -> None: ...

class ListFlowsRequest(_message.Message):
    __slots__ = ("org", "search_by_name", "case_sensitive", "page", "per_page")
    ORG_FIELD_NUMBER: _ClassVar[int]
    SEARCH_BY_NAME_FIELD_NUMBER: _ClassVar[int]
    CASE_SENSITIVE_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    search_by_name: str
    case_sensitive: bool
    page: int
    per_page: int
    def __init__(self, org: _Optional[str] = ..., search_by_name: _Optional[str] = ..., case_sensitive: _Optional[bool] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ...) -> None: ...

class StreamFlowsRequest(_message.Message):
    __slots__ = ("org", "search_by_name", "case_sensitive")
    ORG_FIELD_NUMBER: _ClassVar[int]
    SEARCH_BY_NAME_FIELD_NUMBER: _ClassVar[int]
    CASE_SENSITIVE_FIELD_NUMBER: _ClassVar[int]
    org: str
    search_by_name: str
    case_sensitive: bool
    def __init__(self, org: _Optional[str] = ..., search_by_name: _Optional[str] = ..., case_sensitive: _Optional[bool] = ...) -> None: ...

class StreamFlowsResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Flow]
    def __init__(self, data: _Optional[_Iterable[_Union[Flow, _Mapping]]] = ...) -> None: ...

class ListFlowsResponse(_message.Message):
    __slots__ = ("data", "pagination")
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Flow]
    pagination: _common_pb2.Pagination
    def __init__(self, data: _Optional[_Iterable[_Union[Flow, _Mapping]]] = ..., pagination: _Optional[_Union[_common_pb2.Pagination, _Mapping]] = ...) -> None: ...

class ArchiveFlowRequest(_message.Message):
    __slots__ = ("org", "flow_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ...) -> None: ...

class ArchiveFlowResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class RenameFlowRequest(_message.Message):
    __slots__ = ("org", "flow_name", "new_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    NEW_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    new_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., new_name: _Optional[str] = ...) -> None: ...

class RenameFlowResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...
