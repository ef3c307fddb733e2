from . import deployment_service_pb2 as _deployment_service_pb2
from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Repo(_message.Message):
    __slots__ = ("id", "name", "url", "provider", "description", "tags", "latest_activity", "namespace_path", "repo_id", "vcs_instance")
    class TagsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    LATEST_ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    VCS_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    url: str
    provider: str
    description: str
    tags: _containers.ScalarMap[str, str]
    latest_activity: float
    namespace_path: _containers.RepeatedScalarFieldContainer[str]
    repo_id: str
    vcs_instance: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., url: _Optional[str] = ..., provider: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[_Mapping[str, str]] = ..., latest_activity: _Optional[float] = ..., namespace_path: _Optional[_Iterable[str]] = ..., repo_id: _Optional[str] = ..., vcs_instance: _Optional[str] = ...) -> None: ...

class ListReposRequest(_message.Message):
    __slots__ = ("org", "page", "per_page", "name", "search", "provider", "repo_id", "sort_direction", "tag", "vcs_instance", "namespace")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    SORT_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    VCS_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    org: str
    page: int
    per_page: int
    name: str
    search: str
    provider: str
    repo_id: str
    sort_direction: str
    tag: _containers.RepeatedScalarFieldContainer[str]
    vcs_instance: str
    namespace: str
    def __init__(self, org: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., name: _Optional[str] = ..., search: _Optional[str] = ..., provider: _Optional[str] = ..., repo_id: _Optional[str] = ..., sort_direction: _Optional[str] = ..., tag: _Optional[_Iterable[str]] = ..., vcs_instance: _Optional[str] = ..., namespace: _Optional[str] = ...) -> None: ...

class ListReposResponse(_message.Message):
    __slots__ = ("repos", "page", "per_page", "total_pages", "total_count")
    REPOS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    repos: _containers.RepeatedCompositeFieldContainer[Repo]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, repos: _Optional[_Iterable[_Union[Repo, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetRepoRequest(_message.Message):
    __slots__ = ("org", "repo_name", "provider", "id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    repo_name: str
    provider: str
    id: str
    def __init__(self, org: _Optional[str] = ..., repo_name: _Optional[str] = ..., provider: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class GetRepoLiveArtifactsRequest(_message.Message):
    __slots__ = ("org", "repo_name", "provider", "id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    REPO_NAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    repo_name: str
    provider: str
    id: str
    def __init__(self, org: _Optional[str] = ..., repo_name: _Optional[str] = ..., provider: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class GetDeploymentStatisticsRequest(_message.Message):
    __slots__ = ("org", "repo", "env", "start_ts", "end_ts")
    ORG_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    org: str
    repo: str
    env: _containers.RepeatedScalarFieldContainer[str]
    start_ts: float
    end_ts: float
    def __init__(self, org: _Optional[str] = ..., repo: _Optional[str] = ..., env: _Optional[_Iterable[str]] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ...) -> None: ...

class EnvironmentDeploymentStatistics(_message.Message):
    __slots__ = ("env_name", "deployment_frequency", "lead_times")
    ENV_NAME_FIELD_NUMBER: _ClassVar[int]
    DEPLOYMENT_FREQUENCY_FIELD_NUMBER: _ClassVar[int]
    LEAD_TIMES_FIELD_NUMBER: _ClassVar[int]
    env_name: str
    deployment_frequency: _containers.RepeatedScalarFieldContainer[float]
    lead_times: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, env_name: _Optional[str] = ..., deployment_frequency: _Optional[_Iterable[float]] = ..., lead_times: _Optional[_Iterable[float]] = ...) -> None: ...

class DeploymentStatistics(_message.Message):
    __slots__ = ("start_ts", "end_ts", "environments", "links")
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    start_ts: float
    end_ts: float
    environments: _containers.RepeatedCompositeFieldContainer[EnvironmentDeploymentStatistics]
    links: _struct_pb2.Struct
    def __init__(self, start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ..., environments: _Optional[_Iterable[_Union[EnvironmentDeploymentStatistics, _Mapping]]] = ..., links: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ListRepoDeploymentsRequest(_message.Message):
    __slots__ = ("org", "repo", "page", "per_page", "env", "start_ts", "end_ts")
    ORG_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    START_TS_FIELD_NUMBER: _ClassVar[int]
    END_TS_FIELD_NUMBER: _ClassVar[int]
    org: str
    repo: str
    page: int
    per_page: int
    env: _containers.RepeatedScalarFieldContainer[str]
    start_ts: float
    end_ts: float
    def __init__(self, org: _Optional[str] = ..., repo: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., env: _Optional[_Iterable[str]] = ..., start_ts: _Optional[float] = ..., end_ts: _Optional[float] = ...) -> None: ...

class ListRepoTagChoicesRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class RepoTagChoice(_message.Message):
    __slots__ = ("key", "values")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    key: str
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, key: _Optional[str] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class RepoTagChoices(_message.Message):
    __slots__ = ("tags",)
    TAGS_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedCompositeFieldContainer[RepoTagChoice]
    def __init__(self, tags: _Optional[_Iterable[_Union[RepoTagChoice, _Mapping]]] = ...) -> None: ...

class ListRepoFilterOptionsRequest(_message.Message):
    __slots__ = ("org", "provider", "vcs_instance", "namespace", "tag")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    VCS_INSTANCE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    org: str
    provider: str
    vcs_instance: str
    namespace: str
    tag: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., provider: _Optional[str] = ..., vcs_instance: _Optional[str] = ..., namespace: _Optional[str] = ..., tag: _Optional[_Iterable[str]] = ...) -> None: ...

class RepoFilterOptions(_message.Message):
    __slots__ = ("providers", "vcs_instances", "namespace_values")
    PROVIDERS_FIELD_NUMBER: _ClassVar[int]
    VCS_INSTANCES_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_VALUES_FIELD_NUMBER: _ClassVar[int]
    providers: _containers.RepeatedScalarFieldContainer[str]
    vcs_instances: _containers.RepeatedScalarFieldContainer[str]
    namespace_values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, providers: _Optional[_Iterable[str]] = ..., vcs_instances: _Optional[_Iterable[str]] = ..., namespace_values: _Optional[_Iterable[str]] = ...) -> None: ...

class LiveArtifact(_message.Message):
    __slots__ = ("environment_id", "artifact_id", "artifact_name", "snapshot_index", "compliance", "started_at", "links")
    class LinksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ENVIRONMENT_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_INDEX_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    environment_id: str
    artifact_id: str
    artifact_name: str
    snapshot_index: int
    compliance: str
    started_at: float
    links: _containers.ScalarMap[str, str]
    def __init__(self, environment_id: _Optional[str] = ..., artifact_id: _Optional[str] = ..., artifact_name: _Optional[str] = ..., snapshot_index: _Optional[int] = ..., compliance: _Optional[str] = ..., started_at: _Optional[float] = ..., links: _Optional[_Mapping[str, str]] = ...) -> None: ...

class LiveEnvironment(_message.Message):
    __slots__ = ("id", "name", "type")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    type: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ...) -> None: ...

class LiveArtifactOrigin(_message.Message):
    __slots__ = ("id", "fingerprint", "commit_sha", "commit_url")
    ID_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    COMMIT_SHA_FIELD_NUMBER: _ClassVar[int]
    COMMIT_URL_FIELD_NUMBER: _ClassVar[int]
    id: str
    fingerprint: str
    commit_sha: str
    commit_url: str
    def __init__(self, id: _Optional[str] = ..., fingerprint: _Optional[str] = ..., commit_sha: _Optional[str] = ..., commit_url: _Optional[str] = ...) -> None: ...

class RepoLiveEmbedded(_message.Message):
    __slots__ = ("artifacts", "environments")
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    artifacts: _containers.RepeatedCompositeFieldContainer[LiveArtifactOrigin]
    environments: _containers.RepeatedCompositeFieldContainer[LiveEnvironment]
    def __init__(self, artifacts: _Optional[_Iterable[_Union[LiveArtifactOrigin, _Mapping]]] = ..., environments: _Optional[_Iterable[_Union[LiveEnvironment, _Mapping]]] = ...) -> None: ...

class RepoLiveArtifacts(_message.Message):
    __slots__ = ("live_artifacts", "embedded", "links")
    class LinksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    LIVE_ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    EMBEDDED_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    live_artifacts: _containers.RepeatedCompositeFieldContainer[LiveArtifact]
    embedded: RepoLiveEmbedded
    links: _containers.ScalarMap[str, str]
    def __init__(self, live_artifacts: _Optional[_Iterable[_Union[LiveArtifact, _Mapping]]] = ..., embedded: _Optional[_Union[RepoLiveEmbedded, _Mapping]] = ..., links: _Optional[_Mapping[str, str]] = ...) -> None: ...
