from . import attestation_service_pb2 as _attestation_service_pb2
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

class SearchResult(_message.Message):
    __slots__ = ("resolved_to", "artifacts")
    RESOLVED_TO_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    resolved_to: SearchResolution
    artifacts: _containers.RepeatedCompositeFieldContainer[SearchArtifact]
    def __init__(self, resolved_to: _Optional[_Union[SearchResolution, _Mapping]] = ..., artifacts: _Optional[_Iterable[_Union[SearchArtifact, _Mapping]]] = ...) -> None: ...

class SearchResolution(_message.Message):
    __slots__ = ("type", "full_match", "fingerprints", "commits")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    FULL_MATCH_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINTS_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    type: str
    full_match: str
    fingerprints: SearchCandidates
    commits: SearchCandidates
    def __init__(self, type: _Optional[str] = ..., full_match: _Optional[str] = ..., fingerprints: _Optional[_Union[SearchCandidates, _Mapping]] = ..., commits: _Optional[_Union[SearchCandidates, _Mapping]] = ...) -> None: ...

class SearchCandidates(_message.Message):
    __slots__ = ("type", "count", "matches")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    type: str
    count: int
    matches: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., count: _Optional[int] = ..., matches: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchArtifact(_message.Message):
    __slots__ = ("fingerprint", "name", "has_provenance", "git_commit", "pipeline", "flow", "trail", "template_reference_name", "build_url", "commit_url", "compliance_state", "running_in", "exited_from", "html_url", "api_url", "history")
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    HAS_PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    PIPELINE_FIELD_NUMBER: _ClassVar[int]
    FLOW_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    BUILD_URL_FIELD_NUMBER: _ClassVar[int]
    COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATE_FIELD_NUMBER: _ClassVar[int]
    RUNNING_IN_FIELD_NUMBER: _ClassVar[int]
    EXITED_FROM_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    API_URL_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    fingerprint: str
    name: str
    has_provenance: bool
    git_commit: str
    pipeline: str
    flow: str
    trail: str
    template_reference_name: str
    build_url: str
    commit_url: str
    compliance_state: str
    running_in: _containers.RepeatedScalarFieldContainer[str]
    exited_from: _containers.RepeatedScalarFieldContainer[str]
    html_url: str
    api_url: str
    history: _containers.RepeatedCompositeFieldContainer[ArtifactHistoryEvent]
    def __init__(self, fingerprint: _Optional[str] = ..., name: _Optional[str] = ..., has_provenance: _Optional[bool] = ..., git_commit: _Optional[str] = ..., pipeline: _Optional[str] = ..., flow: _Optional[str] = ..., trail: _Optional[str] = ..., template_reference_name: _Optional[str] = ..., build_url: _Optional[str] = ..., commit_url: _Optional[str] = ..., compliance_state: _Optional[str] = ..., running_in: _Optional[_Iterable[str]] = ..., exited_from: _Optional[_Iterable[str]] = ..., html_url: _Optional[str] = ..., api_url: _Optional[str] = ..., history: _Optional[_Iterable[_Union[ArtifactHistoryEvent, _Mapping]]] = ...) -> None: ...

class ArtifactHistoryEvent(_message.Message):
    __slots__ = ("type", "event", "timestamp")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    type: str
    event: str
    timestamp: float
    def __init__(self, type: _Optional[str] = ..., event: _Optional[str] = ..., timestamp: _Optional[float] = ...) -> None: ...

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
    __slots__ = ("org", "flow_name", "fingerprint", "trail", "attestation_id", "artifact_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    fingerprint: str
    trail: str
    attestation_id: str
    artifact_id: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., trail: _Optional[str] = ..., attestation_id: _Optional[str] = ..., artifact_id: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("org", "flow_name", "page", "per_page", "trail_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    page: int
    per_page: int
    trail_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., trail_name: _Optional[str] = ...) -> None: ...

class ArtifactList(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Artifact]
    def __init__(self, data: _Optional[_Iterable[_Union[Artifact, _Mapping]]] = ...) -> None: ...

class Artifact(_message.Message):
    __slots__ = ("id", "flow_name", "trail_name", "template_reference_name", "fingerprint", "filename", "git_commit", "git_commit_info", "repo_info", "commit_url", "build_url", "repo_url", "html_url", "api_url", "created_at", "last_modified_at", "external_urls", "annotations", "state", "running", "exited", "history", "commits", "deployments", "approvals", "evidence", "commit_lead_times", "build_lead_times", "log_index")
    class ExternalUrlsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.ExternalUrl
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.ExternalUrl, _Mapping]] = ...) -> None: ...
    class EvidenceEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ArtifactEvidence
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ArtifactEvidence, _Mapping]] = ...) -> None: ...
    class CommitLeadTimesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    class BuildLeadTimesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    BUILD_URL_FIELD_NUMBER: _ClassVar[int]
    REPO_URL_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    API_URL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_URLS_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    EXITED_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    APPROVALS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LEAD_TIMES_FIELD_NUMBER: _ClassVar[int]
    BUILD_LEAD_TIMES_FIELD_NUMBER: _ClassVar[int]
    LOG_INDEX_FIELD_NUMBER: _ClassVar[int]
    id: str
    flow_name: str
    trail_name: str
    template_reference_name: str
    fingerprint: str
    filename: str
    git_commit: str
    git_commit_info: _common_pb2.GitCommitInfo
    repo_info: _common_pb2.RepoInfo
    commit_url: str
    build_url: str
    repo_url: str
    html_url: str
    api_url: str
    created_at: str
    last_modified_at: str
    external_urls: _containers.MessageMap[str, _common_pb2.ExternalUrl]
    annotations: _struct_pb2.Struct
    state: str
    running: _containers.RepeatedCompositeFieldContainer[ArtifactPlacement]
    exited: _containers.RepeatedCompositeFieldContainer[ArtifactPlacement]
    history: _containers.RepeatedCompositeFieldContainer[ArtifactHistoryEvent]
    commits: _containers.RepeatedCompositeFieldContainer[_common_pb2.GitCommitInfo]
    deployments: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    approvals: _containers.RepeatedScalarFieldContainer[int]
    evidence: _containers.MessageMap[str, ArtifactEvidence]
    commit_lead_times: _containers.ScalarMap[str, float]
    build_lead_times: _containers.ScalarMap[str, float]
    log_index: int
    def __init__(self, id: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., template_reference_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., filename: _Optional[str] = ..., git_commit: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., repo_info: _Optional[_Union[_common_pb2.RepoInfo, _Mapping]] = ..., commit_url: _Optional[str] = ..., build_url: _Optional[str] = ..., repo_url: _Optional[str] = ..., html_url: _Optional[str] = ..., api_url: _Optional[str] = ..., created_at: _Optional[str] = ..., last_modified_at: _Optional[str] = ..., external_urls: _Optional[_Mapping[str, _common_pb2.ExternalUrl]] = ..., annotations: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., state: _Optional[str] = ..., running: _Optional[_Iterable[_Union[ArtifactPlacement, _Mapping]]] = ..., exited: _Optional[_Iterable[_Union[ArtifactPlacement, _Mapping]]] = ..., history: _Optional[_Iterable[_Union[ArtifactHistoryEvent, _Mapping]]] = ..., commits: _Optional[_Iterable[_Union[_common_pb2.GitCommitInfo, _Mapping]]] = ..., deployments: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., approvals: _Optional[_Iterable[int]] = ..., evidence: _Optional[_Mapping[str, ArtifactEvidence]] = ..., commit_lead_times: _Optional[_Mapping[str, float]] = ..., build_lead_times: _Optional[_Mapping[str, float]] = ..., log_index: _Optional[int] = ...) -> None: ...

class ArtifactPlacement(_message.Message):
    __slots__ = ("environment_name", "snapshot_index")
    ENVIRONMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_INDEX_FIELD_NUMBER: _ClassVar[int]
    environment_name: str
    snapshot_index: int
    def __init__(self, environment_name: _Optional[str] = ..., snapshot_index: _Optional[int] = ...) -> None: ...

class ArtifactEvidence(_message.Message):
    __slots__ = ("evidence_type", "is_compliant", "created_at", "has_audit_package", "build_url", "description", "user_data", "evidence_archive_fingerprint", "evidence_fingerprint", "evidence_url", "commit_sha", "junit_results", "jira_results", "snyk_results", "git_provider", "pull_requests")
    EVIDENCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    HAS_AUDIT_PACKAGE_FIELD_NUMBER: _ClassVar[int]
    BUILD_URL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_ARCHIVE_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_URL_FIELD_NUMBER: _ClassVar[int]
    COMMIT_SHA_FIELD_NUMBER: _ClassVar[int]
    JUNIT_RESULTS_FIELD_NUMBER: _ClassVar[int]
    JIRA_RESULTS_FIELD_NUMBER: _ClassVar[int]
    SNYK_RESULTS_FIELD_NUMBER: _ClassVar[int]
    GIT_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    PULL_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    evidence_type: str
    is_compliant: bool
    created_at: str
    has_audit_package: bool
    build_url: str
    description: str
    user_data: _struct_pb2.Value
    evidence_archive_fingerprint: str
    evidence_fingerprint: str
    evidence_url: str
    commit_sha: str
    junit_results: _containers.RepeatedCompositeFieldContainer[_attestation_service_pb2.JunitSuite]
    jira_results: _containers.RepeatedCompositeFieldContainer[_attestation_service_pb2.JiraIssue]
    snyk_results: _attestation_service_pb2.ScanResults
    git_provider: str
    pull_requests: _containers.RepeatedCompositeFieldContainer[_attestation_service_pb2.PullRequest]
    def __init__(self, evidence_type: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., created_at: _Optional[str] = ..., has_audit_package: _Optional[bool] = ..., build_url: _Optional[str] = ..., description: _Optional[str] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., evidence_archive_fingerprint: _Optional[str] = ..., evidence_fingerprint: _Optional[str] = ..., evidence_url: _Optional[str] = ..., commit_sha: _Optional[str] = ..., junit_results: _Optional[_Iterable[_Union[_attestation_service_pb2.JunitSuite, _Mapping]]] = ..., jira_results: _Optional[_Iterable[_Union[_attestation_service_pb2.JiraIssue, _Mapping]]] = ..., snyk_results: _Optional[_Union[_attestation_service_pb2.ScanResults, _Mapping]] = ..., git_provider: _Optional[str] = ..., pull_requests: _Optional[_Iterable[_Union[_attestation_service_pb2.PullRequest, _Mapping]]] = ...) -> None: ...

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
