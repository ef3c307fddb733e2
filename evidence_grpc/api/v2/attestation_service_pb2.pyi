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
    data: _containers.RepeatedCompositeFieldContainer[Attestation]
    def __init__(self, data: _Optional[_Iterable[_Union[Attestation, _Mapping]]] = ...) -> None: ...

class AttestationPage(_message.Message):
    __slots__ = ("data", "pagination", "links")
    DATA_FIELD_NUMBER: _ClassVar[int]
    PAGINATION_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    data: _containers.RepeatedCompositeFieldContainer[Attestation]
    pagination: _common_pb2.Pagination
    links: Links
    def __init__(self, data: _Optional[_Iterable[_Union[Attestation, _Mapping]]] = ..., pagination: _Optional[_Union[_common_pb2.Pagination, _Mapping]] = ..., links: _Optional[_Union[Links, _Mapping]] = ...) -> None: ...

class Links(_message.Message):
    __slots__ = ("next",)
    NEXT_FIELD_NUMBER: _ClassVar[int]
    next: str
    def __init__(self, next: _Optional[str] = ...) -> None: ...

class Attestation(_message.Message):
    __slots__ = ("schema_version", "attestation_id", "attestation_name", "attestation_type", "is_compliant", "artifact_fingerprint", "target_artifact", "target_artifacts", "flow_name", "trail_name", "created_at", "created_by", "reported_by", "git_commit_info", "repo_info", "origin_url", "description", "user_data", "annotations", "external_urls", "summary", "evidence", "overridden_attestation_id", "override", "evidence_archive_fingerprint", "has_audit_package", "html_url", "links", "log_index", "junit", "jira", "snyk", "sonar", "scanner", "pull_request", "custom", "system")
    class AnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class ExternalUrlsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _common_pb2.ExternalUrl
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_common_pb2.ExternalUrl, _Mapping]] = ...) -> None: ...
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    TARGET_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    TARGET_ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    REPORTED_BY_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    REPO_INFO_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_URL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    USER_DATA_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_URLS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    OVERRIDDEN_ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    OVERRIDE_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_ARCHIVE_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    HAS_AUDIT_PACKAGE_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    LOG_INDEX_FIELD_NUMBER: _ClassVar[int]
    JUNIT_FIELD_NUMBER: _ClassVar[int]
    JIRA_FIELD_NUMBER: _ClassVar[int]
    SNYK_FIELD_NUMBER: _ClassVar[int]
    SONAR_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    PULL_REQUEST_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    schema_version: int
    attestation_id: str
    attestation_name: str
    attestation_type: str
    is_compliant: bool
    artifact_fingerprint: str
    target_artifact: str
    target_artifacts: _containers.RepeatedScalarFieldContainer[str]
    flow_name: str
    trail_name: str
    created_at: float
    created_by: str
    reported_by: str
    git_commit_info: _common_pb2.GitCommitInfo
    repo_info: _common_pb2.RepoInfo
    origin_url: str
    description: str
    user_data: _struct_pb2.Value
    annotations: _containers.ScalarMap[str, str]
    external_urls: _containers.MessageMap[str, _common_pb2.ExternalUrl]
    summary: _struct_pb2.Struct
    evidence: AttestationAttachment
    overridden_attestation_id: str
    override: AttestationOverride
    evidence_archive_fingerprint: str
    has_audit_package: bool
    html_url: str
    links: AttestationLinks
    log_index: int
    junit: JunitAttestation
    jira: JiraAttestation
    snyk: SnykAttestation
    sonar: SonarAttestation
    scanner: ScannerAttestation
    pull_request: PullRequestAttestation
    custom: CustomAttestation
    system: SystemAttestation
    def __init__(self, schema_version: _Optional[int] = ..., attestation_id: _Optional[str] = ..., attestation_name: _Optional[str] = ..., attestation_type: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., artifact_fingerprint: _Optional[str] = ..., target_artifact: _Optional[str] = ..., target_artifacts: _Optional[_Iterable[str]] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., created_at: _Optional[float] = ..., created_by: _Optional[str] = ..., reported_by: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., repo_info: _Optional[_Union[_common_pb2.RepoInfo, _Mapping]] = ..., origin_url: _Optional[str] = ..., description: _Optional[str] = ..., user_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., annotations: _Optional[_Mapping[str, str]] = ..., external_urls: _Optional[_Mapping[str, _common_pb2.ExternalUrl]] = ..., summary: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., evidence: _Optional[_Union[AttestationAttachment, _Mapping]] = ..., overridden_attestation_id: _Optional[str] = ..., override: _Optional[_Union[AttestationOverride, _Mapping]] = ..., evidence_archive_fingerprint: _Optional[str] = ..., has_audit_package: _Optional[bool] = ..., html_url: _Optional[str] = ..., links: _Optional[_Union[AttestationLinks, _Mapping]] = ..., log_index: _Optional[int] = ..., junit: _Optional[_Union[JunitAttestation, _Mapping]] = ..., jira: _Optional[_Union[JiraAttestation, _Mapping]] = ..., snyk: _Optional[_Union[SnykAttestation, _Mapping]] = ..., sonar: _Optional[_Union[SonarAttestation, _Mapping]] = ..., scanner: _Optional[_Union[ScannerAttestation, _Mapping]] = ..., pull_request: _Optional[_Union[PullRequestAttestation, _Mapping]] = ..., custom: _Optional[_Union[CustomAttestation, _Mapping]] = ..., system: _Optional[_Union[SystemAttestation, _Mapping]] = ...) -> None: ...

class AttestationAttachment(_message.Message):
    __slots__ = ("filename", "sha256", "size", "url")
    FILENAME_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    filename: str
    sha256: str
    size: int
    url: str
    def __init__(self, filename: _Optional[str] = ..., sha256: _Optional[str] = ..., size: _Optional[int] = ..., url: _Optional[str] = ...) -> None: ...

class AttestationOverride(_message.Message):
    __slots__ = ("reason", "overridden_attestation_id", "previous_compliance", "by")
    REASON_FIELD_NUMBER: _ClassVar[int]
    OVERRIDDEN_ATTESTATION_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_COMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    reason: str
    overridden_attestation_id: str
    previous_compliance: bool
    by: str
    def __init__(self, reason: _Optional[str] = ..., overridden_attestation_id: _Optional[str] = ..., previous_compliance: _Optional[bool] = ..., by: _Optional[str] = ...) -> None: ...

class Href(_message.Message):
    __slots__ = ("href",)
    HREF_FIELD_NUMBER: _ClassVar[int]
    href: str
    def __init__(self, href: _Optional[str] = ...) -> None: ...

class AttestationLinks(_message.Message):
    __slots__ = ("self_link", "evidence")
    SELF_LINK_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    self_link: Href
    evidence: Href
    def __init__(self, self_link: _Optional[_Union[Href, _Mapping]] = ..., evidence: _Optional[_Union[Href, _Mapping]] = ...) -> None: ...

class JunitAttestation(_message.Message):
    __slots__ = ("junit_results",)
    JUNIT_RESULTS_FIELD_NUMBER: _ClassVar[int]
    junit_results: _containers.RepeatedCompositeFieldContainer[JunitSuite]
    def __init__(self, junit_results: _Optional[_Iterable[_Union[JunitSuite, _Mapping]]] = ...) -> None: ...

class JunitSuite(_message.Message):
    __slots__ = ("name", "failures", "errors", "skipped", "total", "duration", "timestamp")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    name: str
    failures: int
    errors: int
    skipped: int
    total: int
    duration: float
    timestamp: float
    def __init__(self, name: _Optional[str] = ..., failures: _Optional[int] = ..., errors: _Optional[int] = ..., skipped: _Optional[int] = ..., total: _Optional[int] = ..., duration: _Optional[float] = ..., timestamp: _Optional[float] = ...) -> None: ...

class JiraAttestation(_message.Message):
    __slots__ = ("jira_results",)
    JIRA_RESULTS_FIELD_NUMBER: _ClassVar[int]
    jira_results: _containers.RepeatedCompositeFieldContainer[JiraIssue]
    def __init__(self, jira_results: _Optional[_Iterable[_Union[JiraIssue, _Mapping]]] = ...) -> None: ...

class JiraIssue(_message.Message):
    __slots__ = ("issue_id", "issue_url", "issue_exists", "issue_fields")
    ISSUE_ID_FIELD_NUMBER: _ClassVar[int]
    ISSUE_URL_FIELD_NUMBER: _ClassVar[int]
    ISSUE_EXISTS_FIELD_NUMBER: _ClassVar[int]
    ISSUE_FIELDS_FIELD_NUMBER: _ClassVar[int]
    issue_id: str
    issue_url: str
    issue_exists: bool
    issue_fields: _struct_pb2.Struct
    def __init__(self, issue_id: _Optional[str] = ..., issue_url: _Optional[str] = ..., issue_exists: _Optional[bool] = ..., issue_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class SnykAttestation(_message.Message):
    __slots__ = ("processed_snyk_results",)
    PROCESSED_SNYK_RESULTS_FIELD_NUMBER: _ClassVar[int]
    processed_snyk_results: ScanResults
    def __init__(self, processed_snyk_results: _Optional[_Union[ScanResults, _Mapping]] = ...) -> None: ...

class ScannerAttestation(_message.Message):
    __slots__ = ("scanner_results",)
    SCANNER_RESULTS_FIELD_NUMBER: _ClassVar[int]
    scanner_results: ScanResults
    def __init__(self, scanner_results: _Optional[_Union[ScanResults, _Mapping]] = ...) -> None: ...

class ScanResults(_message.Message):
    __slots__ = ("tool", "schema_version", "results")
    TOOL_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    tool: ScanTool
    schema_version: int
    results: _containers.RepeatedCompositeFieldContainer[ScanResult]
    def __init__(self, tool: _Optional[_Union[ScanTool, _Mapping]] = ..., schema_version: _Optional[int] = ..., results: _Optional[_Iterable[_Union[ScanResult, _Mapping]]] = ...) -> None: ...

class ScanTool(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class ScanResult(_message.Message):
    __slots__ = ("high_count", "medium_count", "low_count", "high", "medium", "low")
    HIGH_COUNT_FIELD_NUMBER: _ClassVar[int]
    MEDIUM_COUNT_FIELD_NUMBER: _ClassVar[int]
    LOW_COUNT_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    MEDIUM_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    high_count: int
    medium_count: int
    low_count: int
    high: _containers.RepeatedCompositeFieldContainer[ScanFinding]
    medium: _containers.RepeatedCompositeFieldContainer[ScanFinding]
    low: _containers.RepeatedCompositeFieldContainer[ScanFinding]
    def __init__(self, high_count: _Optional[int] = ..., medium_count: _Optional[int] = ..., low_count: _Optional[int] = ..., high: _Optional[_Iterable[_Union[ScanFinding, _Mapping]]] = ..., medium: _Optional[_Iterable[_Union[ScanFinding, _Mapping]]] = ..., low: _Optional[_Iterable[_Union[ScanFinding, _Mapping]]] = ...) -> None: ...

class ScanFinding(_message.Message):
    __slots__ = ("id", "message", "priority_score", "locations")
    ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_SCORE_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    message: str
    priority_score: float
    locations: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    def __init__(self, id: _Optional[str] = ..., message: _Optional[str] = ..., priority_score: _Optional[float] = ..., locations: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ...) -> None: ...

class SonarAttestation(_message.Message):
    __slots__ = ("sonar_results",)
    SONAR_RESULTS_FIELD_NUMBER: _ClassVar[int]
    sonar_results: _struct_pb2.Struct
    def __init__(self, sonar_results: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class PullRequestAttestation(_message.Message):
    __slots__ = ("git_provider", "pull_requests")
    GIT_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    PULL_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    git_provider: str
    pull_requests: _containers.RepeatedCompositeFieldContainer[PullRequest]
    def __init__(self, git_provider: _Optional[str] = ..., pull_requests: _Optional[_Iterable[_Union[PullRequest, _Mapping]]] = ...) -> None: ...

class PullRequest(_message.Message):
    __slots__ = ("url", "state", "merge_commit", "author", "title", "head_ref", "base_ref", "created_at", "merged_at", "approvers", "commits")
    URL_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MERGE_COMMIT_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    HEAD_REF_FIELD_NUMBER: _ClassVar[int]
    BASE_REF_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    MERGED_AT_FIELD_NUMBER: _ClassVar[int]
    APPROVERS_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    url: str
    state: str
    merge_commit: str
    author: str
    title: str
    head_ref: str
    base_ref: str
    created_at: float
    merged_at: float
    approvers: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    commits: _containers.RepeatedCompositeFieldContainer[_common_pb2.GitCommitInfo]
    def __init__(self, url: _Optional[str] = ..., state: _Optional[str] = ..., merge_commit: _Optional[str] = ..., author: _Optional[str] = ..., title: _Optional[str] = ..., head_ref: _Optional[str] = ..., base_ref: _Optional[str] = ..., created_at: _Optional[float] = ..., merged_at: _Optional[float] = ..., approvers: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., commits: _Optional[_Iterable[_Union[_common_pb2.GitCommitInfo, _Mapping]]] = ...) -> None: ...

class CustomAttestation(_message.Message):
    __slots__ = ("type_name", "attestation_data")
    TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_DATA_FIELD_NUMBER: _ClassVar[int]
    type_name: str
    attestation_data: _struct_pb2.Value
    def __init__(self, type_name: _Optional[str] = ..., attestation_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class SystemAttestation(_message.Message):
    __slots__ = ("type_name", "attestation_data", "more")
    TYPE_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_DATA_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    type_name: str
    attestation_data: _struct_pb2.Value
    more: _struct_pb2.Struct
    def __init__(self, type_name: _Optional[str] = ..., attestation_data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., more: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

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
    __slots__ = ("org", "flow_name", "page", "per_page", "from_timestamp", "to_timestamp", "trail_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    FROM_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    flow_name: str
    page: int
    per_page: int
    from_timestamp: float
    to_timestamp: float
    trail_name: str
    def __init__(self, org: _Optional[str] = ..., flow_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., from_timestamp: _Optional[float] = ..., to_timestamp: _Optional[float] = ..., trail_name: _Optional[str] = ...) -> None: ...

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
    class ByCommitEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: AttestationList
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[AttestationList, _Mapping]] = ...) -> None: ...
    BY_COMMIT_FIELD_NUMBER: _ClassVar[int]
    by_commit: _containers.MessageMap[str, AttestationList]
    def __init__(self, by_commit: _Optional[_Mapping[str, AttestationList]] = ...) -> None: ...

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

class GetAttestationInTotoRequest(_message.Message):
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

class DsseEnvelope(_message.Message):
    __slots__ = ("payload", "payload_type", "signatures")
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURES_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    payload_type: str
    signatures: _containers.RepeatedCompositeFieldContainer[DsseSignature]
    def __init__(self, payload: _Optional[bytes] = ..., payload_type: _Optional[str] = ..., signatures: _Optional[_Iterable[_Union[DsseSignature, _Mapping]]] = ...) -> None: ...

class DsseSignature(_message.Message):
    __slots__ = ("keyid", "sig")
    KEYID_FIELD_NUMBER: _ClassVar[int]
    SIG_FIELD_NUMBER: _ClassVar[int]
    keyid: str
    sig: bytes
    def __init__(self, keyid: _Optional[str] = ..., sig: _Optional[bytes] = ...) -> None: ...
