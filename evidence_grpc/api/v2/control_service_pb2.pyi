from . import options_pb2 as _options_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Control(_message.Message):
    __slots__ = ("identifier", "name", "description", "links", "version", "created_by", "created_at", "last_modified_at", "tags", "archived", "policies_referencing")
    class LinksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class TagsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    POLICIES_REFERENCING_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    name: str
    description: str
    links: _containers.ScalarMap[str, str]
    version: int
    created_by: str
    created_at: float
    last_modified_at: float
    tags: _containers.ScalarMap[str, str]
    archived: bool
    policies_referencing: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, identifier: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., links: _Optional[_Mapping[str, str]] = ..., version: _Optional[int] = ..., created_by: _Optional[str] = ..., created_at: _Optional[float] = ..., last_modified_at: _Optional[float] = ..., tags: _Optional[_Mapping[str, str]] = ..., archived: _Optional[bool] = ..., policies_referencing: _Optional[_Iterable[str]] = ...) -> None: ...

class ControlVersion(_message.Message):
    __slots__ = ("version", "event", "created_by", "created_at", "name", "description", "links", "archived")
    class LinksEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    version: int
    event: str
    created_by: str
    created_at: float
    name: str
    description: str
    links: _containers.ScalarMap[str, str]
    archived: bool
    def __init__(self, version: _Optional[int] = ..., event: _Optional[str] = ..., created_by: _Optional[str] = ..., created_at: _Optional[float] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., links: _Optional[_Mapping[str, str]] = ..., archived: _Optional[bool] = ...) -> None: ...

class ControlDecision(_message.Message):
    __slots__ = ("decision_id", "control", "is_compliant", "flow_name", "trail_name", "attestation_name", "artifact_fingerprint", "target_artifact", "created_by", "created_at", "html_url", "control_version", "artifact_name", "artifact_flow_name")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    CONTROL_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    ATTESTATION_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    TARGET_ARTIFACT_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    CONTROL_VERSION_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    decision_id: str
    control: str
    is_compliant: bool
    flow_name: str
    trail_name: str
    attestation_name: str
    artifact_fingerprint: str
    target_artifact: str
    created_by: str
    created_at: float
    html_url: str
    control_version: int
    artifact_name: str
    artifact_flow_name: str
    def __init__(self, decision_id: _Optional[str] = ..., control: _Optional[str] = ..., is_compliant: _Optional[bool] = ..., flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., attestation_name: _Optional[str] = ..., artifact_fingerprint: _Optional[str] = ..., target_artifact: _Optional[str] = ..., created_by: _Optional[str] = ..., created_at: _Optional[float] = ..., html_url: _Optional[str] = ..., control_version: _Optional[int] = ..., artifact_name: _Optional[str] = ..., artifact_flow_name: _Optional[str] = ...) -> None: ...

class CoveredEnvironment(_message.Message):
    __slots__ = ("name", "type", "covered", "policies")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    POLICIES_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: str
    covered: bool
    policies: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., type: _Optional[str] = ..., covered: _Optional[bool] = ..., policies: _Optional[_Iterable[str]] = ...) -> None: ...

class CreateControlRequest(_message.Message):
    __slots__ = ("org", "identifier", "name", "description", "links")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    name: str
    description: str
    links: _struct_pb2.Struct
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., links: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ListControlsRequest(_message.Message):
    __slots__ = ("org", "page", "per_page", "sort_direction", "search", "tag", "archived")
    ORG_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    SORT_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    org: str
    page: int
    per_page: int
    sort_direction: str
    search: str
    tag: _containers.RepeatedScalarFieldContainer[str]
    archived: bool
    def __init__(self, org: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., sort_direction: _Optional[str] = ..., search: _Optional[str] = ..., tag: _Optional[_Iterable[str]] = ..., archived: _Optional[bool] = ...) -> None: ...

class ListControlsResponse(_message.Message):
    __slots__ = ("controls", "page", "per_page", "total_pages", "total_count")
    CONTROLS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    controls: _containers.RepeatedCompositeFieldContainer[Control]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, controls: _Optional[_Iterable[_Union[Control, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class ListControlTagChoicesRequest(_message.Message):
    __slots__ = ("org",)
    ORG_FIELD_NUMBER: _ClassVar[int]
    org: str
    def __init__(self, org: _Optional[str] = ...) -> None: ...

class ControlTagChoice(_message.Message):
    __slots__ = ("key", "values")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    key: str
    values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, key: _Optional[str] = ..., values: _Optional[_Iterable[str]] = ...) -> None: ...

class ControlTagChoices(_message.Message):
    __slots__ = ("tags",)
    TAGS_FIELD_NUMBER: _ClassVar[int]
    tags: _containers.RepeatedCompositeFieldContainer[ControlTagChoice]
    def __init__(self, tags: _Optional[_Iterable[_Union[ControlTagChoice, _Mapping]]] = ...) -> None: ...

class GetControlRequest(_message.Message):
    __slots__ = ("org", "identifier")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ...) -> None: ...

class UpdateControlRequest(_message.Message):
    __slots__ = ("org", "identifier", "name", "description", "links")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    name: str
    description: str
    links: _struct_pb2.Struct
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., links: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ArchiveControlRequest(_message.Message):
    __slots__ = ("org", "identifier")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ...) -> None: ...

class UnarchiveControlRequest(_message.Message):
    __slots__ = ("org", "identifier")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ...) -> None: ...

class ListControlVersionsRequest(_message.Message):
    __slots__ = ("org", "identifier", "page", "per_page", "sort_direction")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    SORT_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    page: int
    per_page: int
    sort_direction: str
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., sort_direction: _Optional[str] = ...) -> None: ...

class ListControlVersionsResponse(_message.Message):
    __slots__ = ("versions", "page", "per_page", "total_pages", "total_count")
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[ControlVersion]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, versions: _Optional[_Iterable[_Union[ControlVersion, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetControlVersionRequest(_message.Message):
    __slots__ = ("org", "identifier", "version_number")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    VERSION_NUMBER_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    version_number: int
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., version_number: _Optional[int] = ...) -> None: ...

class ListControlDecisionsRequest(_message.Message):
    __slots__ = ("org", "identifier", "page", "per_page", "is_compliant", "from_timestamp", "to_timestamp", "flow_id", "sort_direction")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    IS_COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    FROM_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TO_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    FLOW_ID_FIELD_NUMBER: _ClassVar[int]
    SORT_DIRECTION_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    page: int
    per_page: int
    is_compliant: bool
    from_timestamp: float
    to_timestamp: float
    flow_id: _containers.RepeatedScalarFieldContainer[str]
    sort_direction: str
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., is_compliant: _Optional[bool] = ..., from_timestamp: _Optional[float] = ..., to_timestamp: _Optional[float] = ..., flow_id: _Optional[_Iterable[str]] = ..., sort_direction: _Optional[str] = ...) -> None: ...

class ListControlDecisionsResponse(_message.Message):
    __slots__ = ("decisions", "page", "per_page", "total_pages", "total_count")
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    decisions: _containers.RepeatedCompositeFieldContainer[ControlDecision]
    page: int
    per_page: int
    total_pages: int
    total_count: int
    def __init__(self, decisions: _Optional[_Iterable[_Union[ControlDecision, _Mapping]]] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ...) -> None: ...

class GetControlDecisionRequest(_message.Message):
    __slots__ = ("org", "identifier", "decision_id")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    decision_id: str
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., decision_id: _Optional[str] = ...) -> None: ...

class GetControlCoverageRequest(_message.Message):
    __slots__ = ("org", "identifier", "page", "per_page", "search", "covered")
    ORG_FIELD_NUMBER: _ClassVar[int]
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    SEARCH_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    org: str
    identifier: str
    page: int
    per_page: int
    search: str
    covered: bool
    def __init__(self, org: _Optional[str] = ..., identifier: _Optional[str] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., search: _Optional[str] = ..., covered: _Optional[bool] = ...) -> None: ...

class ControlCoverage(_message.Message):
    __slots__ = ("identifier", "environments", "covered_count", "uncovered_count", "page", "per_page", "total_pages", "total_count", "total", "covered", "coverage_percent")
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    COVERED_COUNT_FIELD_NUMBER: _ClassVar[int]
    UNCOVERED_COUNT_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PER_PAGE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_PAGES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    COVERED_FIELD_NUMBER: _ClassVar[int]
    COVERAGE_PERCENT_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    environments: _containers.RepeatedCompositeFieldContainer[CoveredEnvironment]
    covered_count: int
    uncovered_count: int
    page: int
    per_page: int
    total_pages: int
    total_count: int
    total: int
    covered: int
    coverage_percent: float
    def __init__(self, identifier: _Optional[str] = ..., environments: _Optional[_Iterable[_Union[CoveredEnvironment, _Mapping]]] = ..., covered_count: _Optional[int] = ..., uncovered_count: _Optional[int] = ..., page: _Optional[int] = ..., per_page: _Optional[int] = ..., total_pages: _Optional[int] = ..., total_count: _Optional[int] = ..., total: _Optional[int] = ..., covered: _Optional[int] = ..., coverage_percent: _Optional[float] = ...) -> None: ...
