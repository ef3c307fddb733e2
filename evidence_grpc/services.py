"""The services this server implements and their method handlers.

One table serves both the network gRPC server and the REST shim's in-process calls."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import descriptor, message_factory
from google.protobuf.message import DecodeError

from .api.v2 import (
    action_service_pb2,
    approval_service_pb2,
    artifact_service_pb2,
    assert_service_pb2,
    attestation_service_pb2,
    attestation_type_service_pb2,
    build_service_pb2,
    control_service_pb2,
    deployment_service_pb2,
    environment_service_pb2,
    flow_service_pb2,
    organization_service_pb2,
    policy_service_pb2,
    readiness_service_pb2,
    repo_service_pb2,
    service_account_service_pb2,
    snapshot_service_pb2,
    tag_service_pb2,
    trail_service_pb2,
    transparency_service_pb2,
)
from .config import Settings
from .convert import serialize
from .domain.kernel import sandbox
from .domain.outbound import actions, notifications
from .domain.outbound import targets as outbound
from .interceptors import interceptors
from .interceptors.errors import Undecodable
from .observability import ObservingInterceptor
from .servicers.actions import ActionServicer
from .servicers.approvals import ApprovalServicer
from .servicers.artifacts import ArtifactServicer, SearchServicer, TagServicer
from .servicers.asserts import AssertServicer
from .servicers.attestations import AttestationServicer, AttestationTypeServicer
from .servicers.controls import ControlServicer
from .servicers.environments import EnvironmentServicer
from .servicers.flows import FlowServicer
from .servicers.organizations import OrganizationServicer, ReadinessServicer
from .servicers.policies import PolicyServicer, SchemaServicer
from .servicers.repos import BuildServicer, DeploymentServicer, RepoServicer
from .servicers.service_accounts import ServiceAccountServicer
from .servicers.snapshots import SnapshotServicer
from .servicers.trails import TrailServicer
from .servicers.transparency import TransparencyServicer

# (service descriptor, how to build its servicer from the settings)
SERVICES: list[tuple[descriptor.ServiceDescriptor, Callable[[Settings], Any]]] = [
    (flow_service_pb2.DESCRIPTOR.services_by_name["FlowService"], lambda s: FlowServicer()),
    (trail_service_pb2.DESCRIPTOR.services_by_name["TrailService"], TrailServicer),
    (transparency_service_pb2.DESCRIPTOR.services_by_name["TransparencyService"],
     TransparencyServicer),
    (attestation_service_pb2.DESCRIPTOR.services_by_name["AttestationService"],
     AttestationServicer),
    (attestation_type_service_pb2.DESCRIPTOR.services_by_name["AttestationTypeService"],
     lambda s: AttestationTypeServicer()),
    (artifact_service_pb2.DESCRIPTOR.services_by_name["ArtifactService"], ArtifactServicer),
    (artifact_service_pb2.DESCRIPTOR.services_by_name["SearchService"], SearchServicer),
    (tag_service_pb2.DESCRIPTOR.services_by_name["TagService"], lambda s: TagServicer()),
    (organization_service_pb2.DESCRIPTOR.services_by_name["OrganizationService"],
     lambda s: OrganizationServicer()),
    (readiness_service_pb2.DESCRIPTOR.services_by_name["ReadinessService"],
     lambda s: ReadinessServicer()),
    (environment_service_pb2.DESCRIPTOR.services_by_name["EnvironmentService"],
     EnvironmentServicer),
    (snapshot_service_pb2.DESCRIPTOR.services_by_name["SnapshotService"], SnapshotServicer),
    (repo_service_pb2.DESCRIPTOR.services_by_name["RepoService"], RepoServicer),
    (deployment_service_pb2.DESCRIPTOR.services_by_name["DeploymentService"],
     lambda s: DeploymentServicer()),
    (build_service_pb2.DESCRIPTOR.services_by_name["BuildService"], BuildServicer),
    (policy_service_pb2.DESCRIPTOR.services_by_name["PolicyService"], lambda s: PolicyServicer()),
    (policy_service_pb2.DESCRIPTOR.services_by_name["SchemaService"], lambda s: SchemaServicer()),
    (approval_service_pb2.DESCRIPTOR.services_by_name["ApprovalService"],
     lambda s: ApprovalServicer()),
    (control_service_pb2.DESCRIPTOR.services_by_name["ControlService"], ControlServicer),
    (assert_service_pb2.DESCRIPTOR.services_by_name["AssertService"], AssertServicer),
    (service_account_service_pb2.DESCRIPTOR.services_by_name["ServiceAccountService"],
     lambda s: ServiceAccountServicer()),
    (action_service_pb2.DESCRIPTOR.services_by_name["ActionService"], lambda s: ActionServicer()),
]


def service_descriptors() -> list[descriptor.ServiceDescriptor]:
    return [service for service, _ in SERVICES]


def method_path(method: descriptor.MethodDescriptor) -> str:
    """The gRPC path of a method: /package.Service/Method."""
    return f"/{method.containing_service.full_name}/{method.name}"


def configure_outbound(settings: Settings) -> None:
    """Where actions may POST (SSRF rules), the SMTP server of EMAIL targets and the base of
    the links notifications carry."""
    outbound.configure(outbound.Policy(allow_loopback=settings.outbound_allow_loopback,
                                       deny=outbound.parse_cidrs(settings.outbound_deny_cidrs)))
    actions.configure_smtp(settings.smtp_url)
    notifications.configure_links(settings.html_base)


def request_deserializer(request_class: Any) -> Callable[[bytes], Any]:
    """request_class.FromString, but undecodable bytes become an Undecodable."""
    type_name = request_class.DESCRIPTOR.full_name

    def deserialize(data: bytes) -> Any:
        try:
            return request_class.FromString(data)
        except (DecodeError, RuntimeError, ValueError) as error:
            return Undecodable(type_name, str(error))

    return deserialize


def method_handlers(settings: Settings) -> dict[str, grpc.RpcMethodHandler]:
    """Unary and server-streaming handlers keyed by method path, not yet intercepted."""
    sandbox.configure(sandbox.Limits(seconds=settings.rule_seconds,
                                     memory_bytes=settings.rule_memory_bytes))
    configure_outbound(settings)
    handlers = {}
    for service, build in SERVICES:
        servicer = build(settings)
        for method in service.methods:
            request_class = message_factory.GetMessageClass(method.input_type)
            handler = (grpc.unary_stream_rpc_method_handler if method.server_streaming
                       else grpc.unary_unary_rpc_method_handler)
            handlers[method_path(method)] = handler(
                getattr(servicer, method.name),
                request_deserializer=request_deserializer(request_class),
                response_serializer=serialize,
            )
    return handlers


def intercepted_handlers(settings: Settings, transport: str) -> dict[str, grpc.RpcMethodHandler]:
    """The method handlers, each wrapped once at start in the interceptor chain (observing ->
    errors -> database -> auth -> values -> servicer), the same for the network server and the
    shim's in-process calls (`transport`: network or in-process, a label of the call's metrics).
    grpc.server(interceptors=...) would build the wrappers again on every call; ours only read
    the method's path when wrapping, so once per method is enough."""
    chain = [ObservingInterceptor(transport), *interceptors()]
    wrapped = {}
    for path, handler in method_handlers(settings).items():
        details = types.SimpleNamespace(method=path, invocation_metadata=())
        for interceptor in reversed(chain):  # the first listed ends up outermost
            handler = interceptor.intercept_service(lambda _, inner=handler: inner, details)
        wrapped[path] = handler
    return wrapped

