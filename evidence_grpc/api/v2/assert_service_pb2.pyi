from . import options_pb2 as _options_pb2
from . import trail_service_pb2 as _trail_service_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AssertArtifactRequest(_message.Message):
    __slots__ = ("org", "fingerprint", "flow_name", "environment_name", "policy_name")
    ORG_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_NAME_FIELD_NUMBER: _ClassVar[int]
    POLICY_NAME_FIELD_NUMBER: _ClassVar[int]
    org: str
    fingerprint: str
    flow_name: str
    environment_name: str
    policy_name: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, org: _Optional[str] = ..., fingerprint: _Optional[str] = ..., flow_name: _Optional[str] = ..., environment_name: _Optional[str] = ..., policy_name: _Optional[_Iterable[str]] = ...) -> None: ...

class RuleResolutionContext(_message.Message):
    __slots__ = ("flow_name", "trail_name", "artifact_status", "for_control")
    FLOW_NAME_FIELD_NUMBER: _ClassVar[int]
    TRAIL_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_STATUS_FIELD_NUMBER: _ClassVar[int]
    FOR_CONTROL_FIELD_NUMBER: _ClassVar[int]
    flow_name: str
    trail_name: str
    artifact_status: str
    for_control: str
    def __init__(self, flow_name: _Optional[str] = ..., trail_name: _Optional[str] = ..., artifact_status: _Optional[str] = ..., for_control: _Optional[str] = ...) -> None: ...

class RuleResolution(_message.Message):
    __slots__ = ("type", "context")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    type: str
    context: RuleResolutionContext
    def __init__(self, type: _Optional[str] = ..., context: _Optional[_Union[RuleResolutionContext, _Mapping]] = ...) -> None: ...

class PolicyRule(_message.Message):
    __slots__ = ("type", "definition")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    type: str
    definition: _struct_pb2.Struct
    def __init__(self, type: _Optional[str] = ..., definition: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class RuleEvaluation(_message.Message):
    __slots__ = ("rule", "satisfied", "ignored", "resolutions")
    RULE_FIELD_NUMBER: _ClassVar[int]
    SATISFIED_FIELD_NUMBER: _ClassVar[int]
    IGNORED_FIELD_NUMBER: _ClassVar[int]
    RESOLUTIONS_FIELD_NUMBER: _ClassVar[int]
    rule: PolicyRule
    satisfied: bool
    ignored: bool
    resolutions: _containers.RepeatedCompositeFieldContainer[RuleResolution]
    def __init__(self, rule: _Optional[_Union[PolicyRule, _Mapping]] = ..., satisfied: _Optional[bool] = ..., ignored: _Optional[bool] = ..., resolutions: _Optional[_Iterable[_Union[RuleResolution, _Mapping]]] = ...) -> None: ...

class PolicyEvaluation(_message.Message):
    __slots__ = ("policy_name", "policy_version", "status", "rule_evaluations")
    POLICY_NAME_FIELD_NUMBER: _ClassVar[int]
    POLICY_VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RULE_EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    policy_name: str
    policy_version: int
    status: str
    rule_evaluations: _containers.RepeatedCompositeFieldContainer[RuleEvaluation]
    def __init__(self, policy_name: _Optional[str] = ..., policy_version: _Optional[int] = ..., status: _Optional[str] = ..., rule_evaluations: _Optional[_Iterable[_Union[RuleEvaluation, _Mapping]]] = ...) -> None: ...

class AssertedFlow(_message.Message):
    __slots__ = ("flow", "trail", "compliance_status")
    FLOW_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATUS_FIELD_NUMBER: _ClassVar[int]
    flow: str
    trail: str
    compliance_status: _trail_service_pb2.ComplianceStatus
    def __init__(self, flow: _Optional[str] = ..., trail: _Optional[str] = ..., compliance_status: _Optional[_Union[_trail_service_pb2.ComplianceStatus, _Mapping]] = ...) -> None: ...

class AssertArtifactResponse(_message.Message):
    __slots__ = ("compliant", "scope", "environment", "policy_evaluations", "flows", "html_url", "fingerprint", "flow", "trail", "compliance_status")
    COMPLIANT_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    POLICY_EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    FLOWS_FIELD_NUMBER: _ClassVar[int]
    HTML_URL_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    FLOW_FIELD_NUMBER: _ClassVar[int]
    TRAIL_FIELD_NUMBER: _ClassVar[int]
    COMPLIANCE_STATUS_FIELD_NUMBER: _ClassVar[int]
    compliant: bool
    scope: str
    environment: str
    policy_evaluations: _containers.RepeatedCompositeFieldContainer[PolicyEvaluation]
    flows: _containers.RepeatedCompositeFieldContainer[AssertedFlow]
    html_url: str
    fingerprint: str
    flow: str
    trail: str
    compliance_status: _trail_service_pb2.ArtifactStatus
    def __init__(self, compliant: _Optional[bool] = ..., scope: _Optional[str] = ..., environment: _Optional[str] = ..., policy_evaluations: _Optional[_Iterable[_Union[PolicyEvaluation, _Mapping]]] = ..., flows: _Optional[_Iterable[_Union[AssertedFlow, _Mapping]]] = ..., html_url: _Optional[str] = ..., fingerprint: _Optional[str] = ..., flow: _Optional[str] = ..., trail: _Optional[str] = ..., compliance_status: _Optional[_Union[_trail_service_pb2.ArtifactStatus, _Mapping]] = ...) -> None: ...
