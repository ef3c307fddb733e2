from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Deployment(_message.Message):
    __slots__ = ("id", "environment_name", "snapshot_index", "artifact_name", "fingerprint", "flow_name", "trail_name", "git_commit", "repo_name", "deployed_at", "lead_time_seconds", "repo_id")
    ID_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_INDEX_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    GIT_COMMIT_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    DEPLOYED_AT_FIELD_NUMBER: _ClassVar[int]
    LEAD_TIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    id: int
    environment_name: str
    snapshot_index: int
    artifact_name: str
    fingerprint: str
    flow_name: str
    trail_name: str
    git_commit: str
    repo_name: str
    deployed_at: float
    lead_time_seconds: float
    repo_id: str
    def __init__(self, id: _Optional[int] = ..., environment_name: _Optional[str] = ..., snapshot_index: _Optional[int] = ..., artifact_name: _Optional[str] = ..., fingerprint: _Optional[str] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., git_commit: _Optional[str] = ..., repo_name: _Optional[str] = ..., deployed_at: _Optional[float] = ..., lead_time_seconds: _Optional[float] = ..., repo_id: _Optional[str] = ...) -> None: ...

class ListDeploymentsRequest(_message.Message):
    __slots__ = ("org", "page", "per_page", "repo_name", "env_name", "start_ts", "end_ts")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    org: str
    page: int
    per_page: int
    repo_name: str
    env_name: str
    start_ts: float
    end_ts: float
    def __init__(self, org: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., repo_name: _Optional[str] = ..., env_name: _Optional[str] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ...) -> None: ...

class ListDeploymentsResponse(_message.Message):
    __slots__ = ("deployments", "page", "per_page", "total_pages", "total_count")
    DEPLOYMENTS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    deployments: _containers.RepeatedCompositeFieldContainer[Deployment]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, deployments: _Optional[_Iterable[_Union[Deployment, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetDeploymentRequest(_message.Message):
    __slots__ = ("org", "env_name", "fingerprint")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    fingerprint: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...

class ListEnvironmentDeploymentsRequest(_message.Message):
    __slots__ = ("org", "env_name", "to", "page", "page_size")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    to: str
    page: int
    page_size: int
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., to: _Optional[str] = ..., page: _Optional[int] = ..., page_size: _Optional[int] = ..., **kwargs) -> None: ...

class GetDeploymentFrequencyRequest(_message.Message):
    __slots__ = ("org", "env_name", "flow_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    FLOW_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    env_name: str
    flow_id: str
    def __init__(self, org: _Optional[str] = ..., env_name: _Optional[str] = ..., flow_id: _Optional[str] = ...) -> None: ...

class DeploymentFrequency(_message.Message):
    __slots__ = ("env_name", "flow_name", "start_ts", "end_ts", "count", "deployment_frequency")
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENT_FREQUENCY_FIELD_NUMBER: _ClassVar[int]
    env_name: str
    flow_name: str
    start_ts: float
    end_ts: float
    count: int
    deployment_frequency: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, env_name: _Optional[str] = ..., flow_name: _Optional[str] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ..., count: _Optional[int] = ..., deployment_frequency: _Optional[_Iterable[float]] = ...) -> None: ...
