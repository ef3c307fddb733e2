from . import options_pb2 as _options_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class UploadedFile(_message.Message):
    __slots__ = ("filename", "content_type", "content")
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    filename: str
    content_type: str
    content: bytes
    def __init__(self, filename: _Optional[str] = ..., content_type: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...

class GitCommitInfo(_message.Message):
    __slots__ = ("sha1", "message", "author", "author_username", "branch", "timestamp", "url", "parents", "verified", "signature_state")
    SHA1_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_USERNAME_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    PARENTS_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_STATE_FIELD_NUMBER: _ClassVar[int]
    sha1: str
    message: str
    author: str
    author_username: str
    branch: str
    timestamp: float
    url: str
    parents: _containers.RepeatedScalarFieldContainer[str]
    verified: bool
    signature_state: str
    def __init__(self, sha1: _Optional[str] = ..., message: _Optional[str] = ..., author: _Optional[str] = ..., author_username: _Optional[str] = ..., branch: _Optional[str] = ..., timestamp: _Optional[float] = ..., url: _Optional[str] = ..., parents: _Optional[_Iterable[str]] = ..., verified: _Optional[bool] = ..., signature_state: _Optional[str] = ...) -> None: ...

class RepoInfo(_message.Message):
    __slots__ = ("name", "url", "id", "description", "provider", "namespace_path", "additional_info")
    NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_INFO_FIELD_NUMBER: _ClassVar[int]
    name: str
    url: str
    id: str
    description: str
    provider: str
    namespace_path: _containers.RepeatedScalarFieldContainer[str]
    additional_info: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., url: _Optional[str] = ..., id: _Optional[str] = ..., description: _Optional[str] = ..., provider: _Optional[str] = ..., namespace_path: _Optional[_Iterable[str]] = ..., additional_info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ExternalUrl(_message.Message):
    __slots__ = ("href", "fingerprint")
    HREF_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    href: str
    fingerprint: str
    def __init__(self, href: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...

class Pagination(_message.Message):
    __slots__ = ("total", "page", "per_page", "page_count")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    total: int
    page: int
    per_page: int
    page_count: int
    def __init__(self, total: _Optional[int] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., page_count: _Optional[int] = ...) -> None: ...
