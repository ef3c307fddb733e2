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

class Environment(_message.Message):
    __slots__ = ("org", "name", "type", "description", "last_modified_at", "last_reported_at", "last_changed_at", "state", "include_scaling", "tags", "policies", "included_environments", "archived", "created_at", "require_provenance")
    class TagsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_REPORTED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_CHANGED_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SCALING_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    type: str
    description: str
    last_modified_at: float
    last_reported_at: float
    last_changed_at: float
    state: bool
    include_scaling: bool
    tags: _containers.ScalarMap[str, str]
    policies: _containers.RepeatedScalarFieldContainer[str]
    included_environments: _containers.RepeatedScalarFieldContainer[str]
    archived: bool
    created_at: float
    require_provenance: bool
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ..., description: _Optional[str] = ..., last_modified_at: _Optional[float] = ..., last_reported_at: _Optional[float] = ..., last_changed_at: _Optional[float] = ..., state: _Optional[bool] = ..., include_scaling: _Optional[bool] = ..., tags: _Optional[_Mapping[str, str]] = ..., policies: _Optional[_Iterable[str]] = ..., included_environments: _Optional[_Iterable[str]] = ..., archived: _Optional[bool] = ..., created_at: _Optional[float] = ..., require_provenance: _Optional[bool] = ...) -> None: ...

class UpsertEnvironmentRequest(_message.Message):
    __slots__ = ("org", "name", "type", "description", "include_scaling", "require_provenance", "included_environments", "policies")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SCALING_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_PROVENANCE_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    type: str
    description: str
    include_scaling: bool
    require_provenance: bool
    included_environments: _containers.RepeatedScalarFieldContainer[str]
    policies: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ..., description: _Optional[str] = ..., include_scaling: _Optional[bool] = ..., require_provenance: _Optional[bool] = ..., included_environments: _Optional[_Iterable[str]] = ..., policies: _Optional[_Iterable[str]] = ...) -> None: ...

class UpsertEnvironmentResponse(_message.Message):
    __slots__ = ("message", "created")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    message: str
    created: bool
    def __init__(self, message: _Optional[str] = ..., created: _Optional[bool] = ...) -> None: ...

class GetEnvironmentRequest(_message.Message):
    __slots__ = ("org", "env_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ...) -> None: ...

class ListEnvironmentsRequest(_message.Message):
    __slots__ = ("org", "page", "per_page", "name", "type", "tag", "space_id", "sort", "sort_direction")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    SPACE_ID_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    SORT_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    page: int
    per_page: int
    name: str
    type: _containers.RepeatedScalarFieldContainer[str]
    tag: _containers.RepeatedScalarFieldContainer[str]
    space_id: _containers.RepeatedScalarFieldContainer[str]
    sort: str
    sort_direction: str
    def __init__(self, org: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., name: _Optional[str] = ..., type: _Optional[_Iterable[str]] = ..., tag: _Optional[_Iterable[str]] = ..., space_id: _Optional[_Iterable[str]] = ..., sort: _Optional[str] = ..., sort_direction: _Optional[str] = ...) -> None: ...

class StreamEnvironmentsRequest(_message.Message):
    __slots__ = ("org", "name", "type", "tag", "sort", "sort_direction")
    ORG_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    SORT_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    name: str
    type: _containers.RepeatedScalarFieldContainer[str]
    tag: _containers.RepeatedScalarFieldContainer[str]
    sort: str
    sort_direction: str
    def __init__(self, org: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[_Iterable[str]] = ..., tag: _Optional[_Iterable[str]] = ..., sort: _Optional[str] = ..., sort_direction: _Optional[str] = ...) -> None: ...

class StreamEnvironmentsResponse(_message.Message):
    __slots__ = ("environments",)
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    environments: _containers.RepeatedCompositeFieldContainer[Environment]
    def __init__(self, environments: _Optional[_Iterable[_Union[Environment, _Mapping]]] = ...) -> None: ...

class ListEnvironmentsResponse(_message.Message):
    __slots__ = ("environments", "page", "per_page", "total_pages", "total_count")
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    environments: _containers.RepeatedCompositeFieldContainer[Environment]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, environments: _Optional[_Iterable[_Union[Environment, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class UpdateEnvironmentRequest(_message.Message):
    __slots__ = ("org", "env_name", "description", "include_scaling", "included_environments", "policies")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_SCALING_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    description: str
    include_scaling: bool
    included_environments: _struct_pb2.ListValue
    policies: _struct_pb2.ListValue
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., description: _Optional[str] = ..., include_scaling: _Optional[bool] = ..., included_environments: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ..., policies: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ...) -> None: ...

class ArchiveEnvironmentRequest(_message.Message):
    __slots__ = ("org", "env_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ...) -> None: ...

class RenameEnvironmentRequest(_message.Message):
    __slots__ = ("org", "env_name", "new_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    NEW_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    new_name: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., new_name: _Optional[str] = ...) -> None: ...

class JoinEnvironmentRequest(_message.Message):
    __slots__ = ("org", "env_name", "physical_env_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    PHYSICAL_ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    physical_env_name: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., physical_env_name: _Optional[str] = ...) -> None: ...

class EnvironmentMessage(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class ReportEnvironmentRequest(_message.Message):
    __slots__ = ("org", "env_name", "type", "report")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    type: str
    report: _struct_pb2.Struct
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., type: _Optional[str] = ..., report: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ListEnvironmentEventsRequest(_message.Message):
    __slots__ = ("org", "env_name", "page", "per_page", "reverse", "interval", "repo_name", "start_ts", "end_ts", "start", "end", "to")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    REVERSE_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    page: int
    per_page: int
    reverse: bool
    interval: str
    repo_name: _containers.RepeatedScalarFieldContainer[str]
    start_ts: float
    end_ts: float
    start: str
    end: str
    to: float
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., reverse: _Optional[bool] = ..., interval: _Optional[str] = ..., repo_name: _Optional[_Iterable[str]] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ..., start: _Optional[str] = ..., end: _Optional[str] = ..., to: _Optional[float] = ..., **kwargs) -> None: ...

class EnvironmentEventFlow(_message.Message):
    __slots__ = ("flow_name", "deployments")
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    flow_name: str
    deployments: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, flow_name: _Optional[str] = ..., deployments: _Optional[_Iterable[int]] = ...) -> None: ...

class EnvironmentEvent(_message.Message):
    __slots__ = ("environment_name", "snapshot_index", "artifact_name", "sha256", "description", "reported_at", "pipeline", "deployments", "flows", "artifact_compliance", "snapshot_compliance", "type", "code_diff")
    ENVIRONMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_INDEX_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    REPORTED_AT_FIELD_NUMBER: _ClassVar[int]
    PIPELINE_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    FLOWS_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_COMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_COMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CODE_DIFF_FIELD_NUMBER: _ClassVar[int]
    environment_name: str
    snapshot_index: int
    artifact_name: str
    sha256: str
    description: str
    reported_at: float
    pipeline: str
    deployments: _containers.RepeatedScalarFieldContainer[int]
    flows: _containers.RepeatedCompositeFieldContainer[EnvironmentEventFlow]
    artifact_compliance: bool
    snapshot_compliance: bool
    type: str
    code_diff: str
    def __init__(self, environment_name: _Optional[str] = ..., snapshot_index: _Optional[int] = ..., artifact_name: _Optional[str] = ..., sha256: _Optional[str] = ..., description: _Optional[str] = ..., reported_at: _Optional[float] = ..., pipeline: _Optional[str] = ..., deployments: _Optional[_Iterable[int]] = ..., flows: _Optional[_Iterable[_Union[EnvironmentEventFlow, _Mapping]]] = ..., artifact_compliance: _Optional[bool] = ..., snapshot_compliance: _Optional[bool] = ..., type: _Optional[str] = ..., code_diff: _Optional[str] = ...) -> None: ...

class ListEnvironmentEventsResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[EnvironmentEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[EnvironmentEvent, _Mapping]]] = ...) -> None: ...

class AllowArtifactRequest(_message.Message):
    __slots__ = ("org", "env_name", "artifact_name", "artifact_fingerprint", "description")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    artifact_name: str
    artifact_fingerprint: str
    description: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., artifact_name: _Optional[str] = ..., artifact_fingerprint: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class AllowlistEntry(_message.Message):
    __slots__ = ("artifact_name", "fingerprint", "environment_name", "timestamp", "user_name", "description")
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    USER_NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    artifact_name: str
    fingerprint: str
    environment_name: str
    timestamp: float
    user_name: str
    description: str
    def __init__(self, artifact_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., environment_name: _Optional[str] = ..., timestamp: _Optional[float] = ..., user_name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class AllowedArtifact(_message.Message):
    __slots__ = ("artifact_name", "artifact_fingerprint", "description")
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    artifact_name: str
    artifact_fingerprint: str
    description: str
    def __init__(self, artifact_name: _Optional[str] = ..., artifact_fingerprint: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class AllowArtifactResponse(_message.Message):
    __slots__ = ("allowed", "entry")
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    allowed: AllowedArtifact
    entry: AllowlistEntry
    def __init__(self, allowed: _Optional[_Union[AllowedArtifact, _Mapping]] = ..., entry: _Optional[_Union[AllowlistEntry, _Mapping]] = ...) -> None: ...

class ListAllowlistRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ListAllowlistResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AllowlistEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[AllowlistEntry, _Mapping]]] = ...) -> None: ...

class GetEnvironmentAuditLogRequest(_message.Message):
    __slots__ = ("org", "env_name", "from_timestamp", "to_timestamp", "event_types", "flow_names", "repo_names")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    FROM_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAMES_FIELD_NUMBER: _ClassVar[int]
    REPO_NAMES_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    from_timestamp: float
    to_timestamp: float
    event_types: _containers.RepeatedScalarFieldContainer[str]
    flow_names: _containers.RepeatedScalarFieldContainer[str]
    repo_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., from_timestamp: _Optional[float] = ..., to_timestamp: _Optional[float] = ..., event_types: _Optional[_Iterable[str]] = ..., flow_names: _Optional[_Iterable[str]] = ..., repo_names: _Optional[_Iterable[str]] = ...) -> None: ...
