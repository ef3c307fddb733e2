from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class UpdateTagsRequest(_message.Message):
    __slots__ = ("org", "resource_type", "resource_id", "set_tags", "remove_tags")
    class SetTagsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ORG_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    SET_TAGS_FIELD_NUMBER: _ClassVar[int]
    REMOVE_TAGS_FIELD_NUMBER: _ClassVar[int]
    org: str
    resource_type: str
    resource_id: str
    set_tags: _containers.ScalarMap[str, str]
    remove_tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., resource_type: _Optional[str] = ..., resource_id: _Optional[str] = ..., set_tags: _Optional[_Mapping[str, str]] = ..., remove_tags: _Optional[_Iterable[str]] = ...) -> None: ...

class UpdateTagsResponse(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...
