from . import assert_service_pb2 as _assert_service_pb2
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
    __slots__ = ("index", "to", "duration", "compliant", "compliance_state")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATE_FIELD_NUMBER: _ClassVar[int]
    index: int
    to: float
    duration: float
    compliant: bool
    compliance_state: str
    def __init__(self, index: _Optional[int] = ..., to: _Optional[float] = ..., duration: _Optional[float] = ..., compliant: _Optional[bool] = ..., compliance_state: _Optional[str] = ..., **kwargs) -> None: ...

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
    __slots__ = ("index", "is_latest", "next_snapshot_timestamp", "artifact_compliance_count", "timestamp", "type", "compliant", "compliance_state", "html_url", "artifacts", "applied_policies", "log_index")
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
    COMPLIANCE_STATE_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    APPLIED_POLICIES_FIELD_NUMBER: _ClassVar[int]
    LOG_INDEX_FIELD_NUMBER: _ClassVar[int]
    index: int
    is_latest: bool
    next_snapshot_timestamp: float
    artifact_compliance_count: _containers.ScalarMap[str, int]
    timestamp: float
    type: str
    compliant: bool
    compliance_state: str
    html_url: str
    artifacts: _containers.RepeatedCompositeFieldContainer[SnapshotArtifact]
    applied_policies: _containers.RepeatedCompositeFieldContainer[AppliedPolicy]
    log_index: int
    def __init__(self, index: _Optional[int] = ..., is_latest: _Optional[bool] = ..., next_snapshot_timestamp: _Optional[float] = ..., artifact_compliance_count: _Optional[_Mapping[str, int]] = ..., timestamp: _Optional[float] = ..., type: _Optional[str] = ..., compliant: _Optional[bool] = ..., compliance_state: _Optional[str] = ..., html_url: _Optional[str] = ..., artifacts: _Optional[_Iterable[_Union[SnapshotArtifact, _Mapping]]] = ..., applied_policies: _Optional[_Iterable[_Union[AppliedPolicy, _Mapping]]] = ..., log_index: _Optional[int] = ...) -> None: ...

class AppliedPolicy(_message.Message):
    __slots__ = ("id", "name", "version", "policy_dump", "failing_artifacts")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    POLICY_DUMP_FIELD_NUMBER: _ClassVar[int]
    FAILING_ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    version: int
    policy_dump: _struct_pb2.Struct
    failing_artifacts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[int] = ..., policy_dump: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., failing_artifacts: _Optional[_Iterable[str]] = ...) -> None: ...

class SnapshotArtifact(_message.Message):
    __slots__ = ("name", "fingerprint", "compliant", "deployments", "policy_decisions", "reasons_for_incompliance", "creation_timestamp", "pods", "instance_count", "context", "annotation", "flow_name", "git_commit", "commit_url", "html_url", "flow_html_url", "deployment_diff", "commit_lead_time", "flows")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    POLICY_DECISIONS_FIELD_NUMBER: _ClassVar[int]
    REASONS_FOR_INCOMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    CREATION_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ANNOTATION_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    FLOW_HTML_URL_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENT_DIFF_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LEAD_TIME_FIELD_NUMBER: _ClassVar[int]
    FLOWS_FIELD_NUMBER: _ClassVar[int]
    name: str
    fingerprint: str
    compliant: bool
    deployments: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    policy_decisions: _containers.RepeatedCompositeFieldContainer[_assert_service_pb2.PolicyEvaluation]
    reasons_for_incompliance: _containers.RepeatedCompositeFieldContainer[IncomplianceReason]
    creation_timestamp: _containers.RepeatedScalarFieldContainer[int]
    pods: _struct_pb2.Struct
    instance_count: int
    context: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    annotation: SnapshotAnnotation
    flow_name: str
    git_commit: str
    commit_url: str
    html_url: str
    flow_html_url: str
    deployment_diff: DeploymentDiff
    commit_lead_time: float
    flows: _containers.RepeatedCompositeFieldContainer[SnapshotArtifactFlow]
    def __init__(self, name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., compliant: _Optional[bool] = ..., deployments: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., policy_decisions: _Optional[_Iterable[_Union[_assert_service_pb2.PolicyEvaluation, _Mapping]]] = ..., reasons_for_incompliance: _Optional[_Iterable[_Union[IncomplianceReason, _Mapping]]] = ..., creation_timestamp: _Optional[_Iterable[int]] = ..., pods: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., instance_count: _Optional[int] = ..., context: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., annotation: _Optional[_Union[SnapshotAnnotation, _Mapping]] = ..., flow_name: _Optional[str] = ..., git_commit: _Optional[str] = ..., commit_url: _Optional[str] = ..., html_url: _Optional[str] = ..., flow_html_url: _Optional[str] = ..., deployment_diff: _Optional[_Union[DeploymentDiff, _Mapping]] = ..., commit_lead_time: _Optional[float] = ..., flows: _Optional[_Iterable[_Union[SnapshotArtifactFlow, _Mapping]]] = ...) -> None: ...

class IncomplianceReason(_message.Message):
    __slots__ = ("type", "message")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    type: str
    message: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class SnapshotAnnotation(_message.Message):
    __slots__ = ("type", "was", "now")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    WAS_FIELD_NUMBER: _ClassVar[int]
    NOW_FIELD_NUMBER: _ClassVar[int]
    type: str
    was: int
    now: int
    def __init__(self, type: _Optional[str] = ..., was: _Optional[int] = ..., now: _Optional[int] = ...) -> None: ...

class DeploymentDiff(_message.Message):
    __slots__ = ("diff_url", "previous_git_commit", "previous_fingerprint", "previous_artifact_name", "previous_artifact_compliance_state", "previous_running", "previous_git_commit_url", "previous_trail_name", "previous_template_reference_name")
    DIFF_URL_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_ARTIFACT_COMPLIANCE_STATE_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_RUNNING_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_GIT_COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    diff_url: str
    previous_git_commit: str
    previous_fingerprint: str
    previous_artifact_name: str
    previous_artifact_compliance_state: str
    previous_running: bool
    previous_git_commit_url: str
    previous_trail_name: str
    previous_template_reference_name: str
    def __init__(self, diff_url: _Optional[str] = ..., previous_git_commit: _Optional[str] = ..., previous_fingerprint: _Optional[str] = ..., previous_artifact_name: _Optional[str] = ..., previous_artifact_compliance_state: _Optional[str] = ..., previous_running: _Optional[bool] = ..., previous_git_commit_url: _Optional[str] = ..., previous_trail_name: _Optional[str] = ..., previous_template_reference_name: _Optional[str] = ...) -> None: ...

class SnapshotArtifactFlow(_message.Message):
    __slots__ = ("flow_name", "trail_name", "template_reference_name", "git_commit", "commit_url", "git_commit_info", "html_url", "flow_html_url", "compliance_state", "artifact_compliance_in_flow", "commit_lead_time", "deployment_diff")
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_REFERENCE_NAME_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_INFO_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    FLOW_HTML_URL_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_COMPLIANCE_IN_FLOW_FIELD_NUMBER: _ClassVar[int]
    COMMIT_LEAD_TIME_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENT_DIFF_FIELD_NUMBER: _ClassVar[int]
    flow_name: str
    trail_name: str
    template_reference_name: str
    git_commit: str
    commit_url: str
    git_commit_info: _common_pb2.GitCommitInfo
    html_url: str
    flow_html_url: str
    compliance_state: str
    artifact_compliance_in_flow: bool
    commit_lead_time: float
    deployment_diff: DeploymentDiff
    def __init__(self, flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., template_reference_name: _Optional[str] = ..., git_commit: _Optional[str] = ..., commit_url: _Optional[str] = ..., git_commit_info: _Optional[_Union[_common_pb2.GitCommitInfo, _Mapping]] = ..., html_url: _Optional[str] = ..., flow_html_url: _Optional[str] = ..., compliance_state: _Optional[str] = ..., artifact_compliance_in_flow: _Optional[bool] = ..., commit_lead_time: _Optional[float] = ..., deployment_diff: _Optional[_Union[DeploymentDiff, _Mapping]] = ...) -> None: ...

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
    artifacts: _containers.RepeatedCompositeFieldContainer[DiffArtifact]
    def __init__(self, snapshot_id: _Optional[str] = ..., artifacts: _Optional[_Iterable[_Union[DiffArtifact, _Mapping]]] = ...) -> None: ...

class DiffArtifact(_message.Message):
    __slots__ = ("name", "fingerprint", "flow", "commit_url", "most_recent_timestamp", "instance_count", "s1_instance_count", "s2_instance_count", "pods")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FLOW_FIELD_NUMBER: _ClassVar[int]
    COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    MOST_RECENT_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    S1_INSTANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    S2_INSTANCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    PODS_FIELD_NUMBER: _ClassVar[int]
    name: str
    fingerprint: str
    flow: str
    commit_url: str
    most_recent_timestamp: int
    instance_count: int
    s1_instance_count: int
    s2_instance_count: int
    pods: _struct_pb2.Value
    def __init__(self, name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., flow: _Optional[str] = ..., commit_url: _Optional[str] = ..., most_recent_timestamp: _Optional[int] = ..., instance_count: _Optional[int] = ..., s1_instance_count: _Optional[int] = ..., s2_instance_count: _Optional[int] = ..., pods: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

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
