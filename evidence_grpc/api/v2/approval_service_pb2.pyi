from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ApprovalReviewInput(_message.Message):
    __slots__ = ("state", "comment", "approved_by", "approval_url")
    STATE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    APPROVED_BY_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_URL_FIELD_NUMBER: _ClassVar[int]
    state: str
    comment: str
    approved_by: str
    approval_url: str
    def __init__(self, state: _Optional[str] = ..., comment: _Optional[str] = ..., approved_by: _Optional[str] = ..., approval_url: _Optional[str] = ...) -> None: ...

class ApprovalReview(_message.Message):
    __slots__ = ("state", "comment", "approved_by", "approval_url", "timestamp")
    STATE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    APPROVED_BY_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_URL_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    state: str
    comment: str
    approved_by: str
    approval_url: str
    timestamp: float
    def __init__(self, state: _Optional[str] = ..., comment: _Optional[str] = ..., approved_by: _Optional[str] = ..., approval_url: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

class ApprovalCommit(_message.Message):
    __slots__ = ("commit_sha", "artifact_fingerprints")
    COMMIT_SHA_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FINGERPRINTS_FIELD_NUMBER: _ClassVar[int]
    commit_sha: str
    artifact_fingerprints: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, commit_sha: _Optional[str] = ..., artifact_fingerprints: _Optional[_Iterable[str]] = ...) -> None: ...

class Approval(_message.Message):
    __slots__ = ("release_number", "base_artifact", "artifact_name", "target_artifact", "environment", "description", "src_commit_list", "created_at", "last_modified_at", "state", "approvals", "user_data")
    RELEASE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    BASE_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    TARGET_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SRC_COMMIT_LIST_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    release_number: int
    base_artifact: str
    artifact_name: str
    target_artifact: str
    environment: str
    description: str
    src_commit_list: _containers.RepeatedCompositeFieldContainer[ApprovalCommit]
    created_at: float
    last_modified_at: float
    state: str
    approvals: _containers.RepeatedCompositeFieldContainer[ApprovalReview]
    user_data: _struct_pb2.Value
    def __init__(self, release_number: _Optional[int] = ..., base_artifact: _Optional[str] = ..., artifact_name: _Optional[str] = ..., target_artifact: _Optional[str] = ..., environment: _Optional[str] = ..., description: _Optional[str] = ..., src_commit_list: _Optional[_Iterable[_Union[ApprovalCommit, _Mapping]]] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., state: _Optional[str] = ..., approvals: _Optional[_Iterable[_Union[ApprovalReview, _Mapping]]] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class ApprovalListItem(_message.Message):
    __slots__ = ("release_number", "base_artifact", "artifact_name", "target_artifact", "environment", "description", "src_commit_list", "created_at", "last_modified_at", "state", "approvals", "user_data")
    RELEASE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    BASE_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    TARGET_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SRC_COMMIT_LIST_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    release_number: int
    base_artifact: str
    artifact_name: str
    target_artifact: str
    environment: str
    description: str
    src_commit_list: _containers.RepeatedScalarFieldContainer[str]
    created_at: float
    last_modified_at: float
    state: str
    approvals: _containers.RepeatedCompositeFieldContainer[ApprovalReview]
    user_data: _struct_pb2.Value
    def __init__(self, release_number: _Optional[int] = ..., base_artifact: _Optional[str] = ..., artifact_name: _Optional[str] = ..., target_artifact: _Optional[str] = ..., environment: _Optional[str] = ..., description: _Optional[str] = ..., src_commit_list: _Optional[_Iterable[str]] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., state: _Optional[str] = ..., approvals: _Optional[_Iterable[_Union[ApprovalReview, _Mapping]]] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class CreateApprovalRequest(_message.Message):
    __slots__ = ("org", "flow_name", "artifact_fingerprint", "description", "environment", "src_commit_list", "oldest_commit", "approvals", "user_data")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    SRC_COMMIT_LIST_FIELD_NUMBER: _ClassVar[int]
    OLDEST_COMMIT_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    artifact_fingerprint: str
    description: str
    environment: str
    src_commit_list: _containers.RepeatedScalarFieldContainer[str]
    oldest_commit: str
    approvals: _containers.RepeatedCompositeFieldContainer[ApprovalReviewInput]
    user_data: _struct_pb2.Value
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., artifact_fingerprint: _Optional[str] = ..., description: _Optional[str] = ..., environment: _Optional[str] = ..., src_commit_list: _Optional[_Iterable[str]] = ..., oldest_commit: _Optional[str] = ..., approvals: _Optional[_Iterable[_Union[ApprovalReviewInput, _Mapping]]] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class CreateApprovalResponse(_message.Message):
    __slots__ = ("message", "release_number")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RELEASE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    message: str
    release_number: int
    def __init__(self, message: _Optional[str] = ..., release_number: _Optional[int] = ...) -> None: ...

class ListApprovalsRequest(_message.Message):
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

class ListApprovalsResponse(_message.Message):
    __slots__ = ("approvals",)
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    approvals: _containers.RepeatedCompositeFieldContainer[ApprovalListItem]
    def __init__(self, approvals: _Optional[_Iterable[_Union[ApprovalListItem, _Mapping]]] = ...) -> None: ...

class GetApprovalRequest(_message.Message):
    __slots__ = ("org", "flow_name", "approval_number")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    approval_number: int
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., approval_number: _Optional[int] = ...) -> None: ...

class GetRunningArtifactCommitRequest(_message.Message):
    __slots__ = ("org", "flow_name", "env_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    env_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., env_name: _Optional[str] = ...) -> None: ...

class GetRunningArtifactCommitResponse(_message.Message):
    __slots__ = ("commit_sha",)
    COMMIT_SHA_FIELD_NUMBER: _ClassVar[int]
    commit_sha: str
    def __init__(self, commit_sha: _Optional[str] = ...) -> None: ...

class ListArtifactApprovalsRequest(_message.Message):
    __slots__ = ("org", "flow_name", "fingerprint")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    fingerprint: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...
