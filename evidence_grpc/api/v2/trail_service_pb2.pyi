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

class TrailData(_message.Message):
    __slots__ = ("name", "description", "git_commit_info", "repo_info", "origin_url", "external_urls", "user_data")
    class ExternalUrlsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.ExternalUrl
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.ExternalUrl, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_URL_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_URLS_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    git_commit_info: _common_pb2.GitCommitInfo
    repo_info: _common_pb2.RepoInfo
    origin_url: str
    external_urls: _containers.MessageMap[str, _common_pb2.ExternalUrl]
    user_data: _struct_pb2.Value
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., repo_info: _Optional[_Union[_common_pb2.RepoInfo, _Mapping]] = ..., origin_url: _Optional[str] = ..., external_urls: _Optional[_Mapping[str, _common_pb2.ExternalUrl]] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class BeginTrailRequest(_message.Message):
    __slots__ = ("org", "flow_name", "data_json", "template_file")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    DATA_JSON_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FILE_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    data_json: TrailData
    template_file: _common_pb2.UploadedFile
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., data_json: _Optional[_Union[TrailData, _Mapping]] = ..., template_file: _Optional[_Union[_common_pb2.UploadedFile, _Mapping]] = ...) -> None: ...

class BeginTrailResponse(_message.Message):
    __slots__ = ("message", "created")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    message: str
    created: bool
    def __init__(self, message: _Optional[str] = ..., created: _Optional[bool] = ...) -> None: ...

class GetTrailRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ...) -> None: ...

class GetTrailAuditPackageRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ...) -> None: ...

class GetTrailAuditPdfRequest(_message.Message):
    __slots__ = ("org", "flow_name", "trail_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    trail_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ...) -> None: ...

class TemplateAttestation(_message.Message):
    __slots__ = ("name", "type")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ...) -> None: ...

class TemplateArtifact(_message.Message):
    __slots__ = ("name", "attestations")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    attestations: _containers.RepeatedCompositeFieldContainer[TemplateAttestation]
    def __init__(self, name: _Optional[str] = ..., attestations: _Optional[_Iterable[_Union[TemplateAttestation, _Mapping]]] = ...) -> None: ...

class TemplateTrail(_message.Message):
    __slots__ = ("attestations", "artifacts")
    ATTESTATIONS_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    attestations: _containers.RepeatedCompositeFieldContainer[TemplateAttestation]
    artifacts: _containers.RepeatedCompositeFieldContainer[TemplateArtifact]
    def __init__(self, attestations: _Optional[_Iterable[_Union[TemplateAttestation, _Mapping]]] = ..., artifacts: _Optional[_Iterable[_Union[TemplateArtifact, _Mapping]]] = ...) -> None: ...

class Template(_message.Message):
    __slots__ = ("version", "trail", "content")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    version: int
    trail: TemplateTrail
    content: str
    def __init__(self, version: _Optional[int] = ..., trail: _Optional[_Union[TemplateTrail, _Mapping]] = ..., content: _Optional[str] = ...) -> None: ...

class AttestationStatus(_message.Message):
    __slots__ = ("attestation_name", "attestation_type", "attestation_id", "overridden_attestation_id", "status", "is_compliant", "unexpected")
    ATTESTATION_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    OVERRIDDEN_ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    UNEXPECTED_FIELD_NUMBER: _ClassVar[int]
    attestation_name: str
    attestation_type: str
    attestation_id: str
    overridden_attestation_id: str
    status: str
    is_compliant: bool
    unexpected: bool
    def __init__(self, attestation_name: _Optional[str] = ..., attestation_type: _Optional[str] = ..., attestation_id: _Optional[str] = ..., overridden_attestation_id: _Optional[str] = ..., status: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., unexpected: _Optional[bool] = ...) -> None: ...

class ArtifactStatus(_message.Message):
    __slots__ = ("artifact_fingerprint", "artifact_id", "status", "is_compliant", "attestations_statuses", "unexpected", "evaluated_at", "flow_template_id")
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    ATTESTATIONS_STATUSES_FIELD_NUMBER: _ClassVar[int]
    UNEXPECTED_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_AT_FIELD_NUMBER: _ClassVar[int]
    FLOW_TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    artifact_fingerprint: str
    artifact_id: str
    status: str
    is_compliant: bool
    attestations_statuses: _containers.RepeatedCompositeFieldContainer[AttestationStatus]
    unexpected: bool
    evaluated_at: float
    flow_template_id: str
    def __init__(self, artifact_fingerprint: _Optional[str] = ..., artifact_id: _Optional[str] = ..., status: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., attestations_statuses: _Optional[_Iterable[_Union[AttestationStatus, _Mapping]]] = ..., unexpected: _Optional[bool] = ..., evaluated_at: _Optional[float] = ..., flow_template_id: _Optional[str] = ...) -> None: ...

class ComplianceStatus(_message.Message):
    __slots__ = ("status", "is_compliant", "attestations_statuses", "artifacts_statuses", "evaluated_at", "flow_template_id")
    class ArtifactsStatusesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ArtifactStatus
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ArtifactStatus, _Mapping]] = ...) -> None: ...
    STATUS_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    ATTESTATIONS_STATUSES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_STATUSES_FIELD_NUMBER: _ClassVar[int]
    EVALUATED_AT_FIELD_NUMBER: _ClassVar[int]
    FLOW_TEMPLATE_ID_FIELD_NUMBER: _ClassVar[int]
    status: str
    is_compliant: bool
    attestations_statuses: _containers.RepeatedCompositeFieldContainer[AttestationStatus]
    artifacts_statuses: _containers.MessageMap[str, ArtifactStatus]
    evaluated_at: float
    flow_template_id: str
    def __init__(self, status: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., attestations_statuses: _Optional[_Iterable[_Union[AttestationStatus, _Mapping]]] = ..., artifacts_statuses: _Optional[_Mapping[str, ArtifactStatus]] = ..., evaluated_at: _Optional[float] = ..., flow_template_id: _Optional[str] = ...) -> None: ...

class FlowInfo(_message.Message):
    __slots__ = ("name", "tags")
    class TagsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    name: str
    tags: _containers.ScalarMap[str, str]
    def __init__(self, name: _Optional[str] = ..., tags: _Optional[_Mapping[str, str]] = ...) -> None: ...

class TrailEvent(_message.Message):
    __slots__ = ("timestamp", "type", "trail", "artifact", "attestation", "running", "approval")
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    timestamp: float
    type: str
    trail: TrailReported
    artifact: ArtifactReported
    attestation: AttestationReported
    running: ArtifactRunning
    approval: ApprovalReported
    def __init__(self, timestamp: _Optional[float] = ..., type: _Optional[str] = ..., trail: _Optional[_Union[TrailReported, _Mapping]] = ..., artifact: _Optional[_Union[ArtifactReported, _Mapping]] = ..., attestation: _Optional[_Union[AttestationReported, _Mapping]] = ..., running: _Optional[_Union[ArtifactRunning, _Mapping]] = ..., approval: _Optional[_Union[ApprovalReported, _Mapping]] = ...) -> None: ...

class TrailReported(_message.Message):
    __slots__ = ("user", "git_commit_info", "repo_info", "origin_url", "user_data")
    USER_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_URL_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    user: str
    git_commit_info: _common_pb2.GitCommitInfo
    repo_info: _common_pb2.RepoInfo
    origin_url: str
    user_data: _struct_pb2.Value
    def __init__(self, user: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., repo_info: _Optional[_Union[_common_pb2.RepoInfo, _Mapping]] = ..., origin_url: _Optional[str] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class ArtifactReported(_message.Message):
    __slots__ = ("artifact_name", "fingerprint", "template_reference_name", "git_commit_info", "user")
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    artifact_name: str
    fingerprint: str
    template_reference_name: str
    git_commit_info: _common_pb2.GitCommitInfo
    user: str
    def __init__(self, artifact_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., template_reference_name: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., user: _Optional[str] = ...) -> None: ...

class AttestationReported(_message.Message):
    __slots__ = ("attestation_id", "attestation_type", "template_reference_name", "target_artifact", "is_compliant", "git_commit_info", "user")
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    TARGET_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    attestation_id: str
    attestation_type: str
    template_reference_name: str
    target_artifact: str
    is_compliant: bool
    git_commit_info: _common_pb2.GitCommitInfo
    user: str
    def __init__(self, attestation_id: _Optional[str] = ..., attestation_type: _Optional[str] = ..., template_reference_name: _Optional[str] = ..., target_artifact: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., user: _Optional[str] = ...) -> None: ...

class ArtifactRunning(_message.Message):
    __slots__ = ("artifact_fingerprint", "template_reference_name", "environment_id", "environment_name", "snapshot_index", "replica_number", "git_commit_info", "repo_info")
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_INDEX_FIELD_NUMBER: _ClassVar[int]
    REPLICA_NUMBER_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    artifact_fingerprint: str
    template_reference_name: str
    environment_id: str
    environment_name: str
    snapshot_index: int
    replica_number: int
    git_commit_info: _common_pb2.GitCommitInfo
    repo_info: _common_pb2.RepoInfo
    def __init__(self, artifact_fingerprint: _Optional[str] = ..., template_reference_name: _Optional[str] = ..., environment_id: _Optional[str] = ..., environment_name: _Optional[str] = ..., snapshot_index: _Optional[int] = ..., replica_number: _Optional[int] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., repo_info: _Optional[_Union[_common_pb2.RepoInfo, _Mapping]] = ...) -> None: ...

class ApprovalReported(_message.Message):
    __slots__ = ("artifact_fingerprint", "approval_id", "approval_number", "environment_id", "state", "reviewer", "git_commit_info", "repo_info")
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_ID_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    artifact_fingerprint: str
    approval_id: str
    approval_number: int
    environment_id: str
    state: str
    reviewer: str
    git_commit_info: _common_pb2.GitCommitInfo
    repo_info: _common_pb2.RepoInfo
    def __init__(self, artifact_fingerprint: _Optional[str] = ..., approval_id: _Optional[str] = ..., approval_number: _Optional[int] = ..., environment_id: _Optional[str] = ..., state: _Optional[str] = ..., reviewer: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., repo_info: _Optional[_Union[_common_pb2.RepoInfo, _Mapping]] = ...) -> None: ...

class Trail(_message.Message):
    __slots__ = ("name", "description", "git_commit_info", "origin_url", "user_data", "repo_ids", "last_modified_at", "created_at", "compliance_status", "template", "compliance_state", "is_compliant", "events", "created_by", "flow", "external_urls", "html_url")
    class ExternalUrlsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.ExternalUrl
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.ExternalUrl, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_URL_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    REPO_IDS_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATUS_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATE_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    FLOW_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_URLS_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    git_commit_info: _common_pb2.GitCommitInfo
    origin_url: str
    user_data: _struct_pb2.Value
    repo_ids: _containers.RepeatedScalarFieldContainer[str]
    last_modified_at: float
    created_at: float
    compliance_status: ComplianceStatus
    template: Template
    compliance_state: str
    is_compliant: bool
    events: _containers.RepeatedCompositeFieldContainer[TrailEvent]
    created_by: str
    flow: FlowInfo
    external_urls: _containers.MessageMap[str, _common_pb2.ExternalUrl]
    html_url: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., origin_url: _Optional[str] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., repo_ids: _Optional[_Iterable[str]] = ..., last_modified_at: _Optional[float] = ..., created_at: _Optional[float] = ..., compliance_status: _Optional[_Union[ComplianceStatus, _Mapping]] = ..., template: _Optional[_Union[Template, _Mapping]] = ..., compliance_state: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., events: _Optional[_Iterable[_Union[TrailEvent, _Mapping]]] = ..., created_by: _Optional[str] = ..., flow: _Optional[_Union[FlowInfo, _Mapping]] = ..., external_urls: _Optional[_Mapping[str, _common_pb2.ExternalUrl]] = ..., html_url: _Optional[str] = ...) -> None: ...

class ListFlowTrailsRequest(_message.Message):
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

class StreamFlowTrailsRequest(_message.Message):
    __slots__ = ("org", "flow_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ...) -> None: ...

class StreamFlowTrailsResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Trail]
    def __init__(self, data: _Optional[_Iterable[_Union[Trail, _Mapping]]] = ...) -> None: ...

class ListTrailsRequest(_message.Message):
    __slots__ = ("org", "flow", "fingerprint", "flow_tag", "page", "per_page")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FLOW_TAG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow: str
    fingerprint: str
    flow_tag: _containers.RepeatedScalarFieldContainer[str]
    page: int
    per_page: int
    def __init__(self, org: _Optional[str] = ..., flow: _Optional[str] = ..., fingerprint: _Optional[str] = ..., flow_tag: _Optional[_Iterable[str]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ...) -> None: ...

class ListTrailsResponse(_message.Message):
    __slots__ = ("data", "pagination")
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Trail]
    pagination: _common_pb2.Pagination
    def __init__(self, data: _Optional[_Iterable[_Union[Trail, _Mapping]]] = ..., pagination: _Optional[_Union[_common_pb2.Pagination, _Mapping]] = ...) -> None: ...
