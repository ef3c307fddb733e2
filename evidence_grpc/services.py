"""The services this server implements and their method handlers.

One table serves both the network gRPC server and the REST shim's in-process calls."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor, message_factory

from ._pb.evidence.v2 import (
    flow_service_pb2,
    organization_service_pb2,
    readiness_service_pb2,
    trail_service_pb2,
)
from .config import Settings
from .servicers.flows import FlowServicer
from .servicers.organizations import OrganizationServicer, ReadinessServicer
from .servicers.trails import TrailServicer


def service_descriptors() -> list[descriptor.ServiceDescriptor]:
    return [
        flow_service_pb2.DESCRIPTOR.services_by_name["FlowService"],
        trail_service_pb2.DESCRIPTOR.services_by_name["TrailService"],
        organization_service_pb2.DESCRIPTOR.services_by_name["OrganizationService"],
        readiness_service_pb2.DESCRIPTOR.services_by_name["ReadinessService"],
    ]


def _servicers(settings: Settings) -> dict[str, Any]:
    return {
        "evidence.v2.FlowService": FlowServicer(),
        "evidence.v2.TrailService": TrailServicer(settings),
        "evidence.v2.OrganizationService": OrganizationServicer(),
        "evidence.v2.ReadinessService": ReadinessServicer(),
    }


def method_path(method: descriptor.MethodDescriptor) -> str:
    """The gRPC path of a method: /package.Service/Method."""
    return f"/{method.containing_service.full_name}/{method.name}"


def method_handlers(settings: Settings) -> dict[str, grpc.RpcMethodHandler]:
    """Unary handlers keyed by method path, not yet intercepted."""
    servicers = _servicers(settings)
    handlers = {}
    for service in service_descriptors():
        servicer = servicers[service.full_name]
        for method in service.methods:
            request_class = message_factory.GetMessageClass(method.input_type)
            response_class = message_factory.GetMessageClass(method.output_type)
            handlers[method_path(method)] = grpc.unary_unary_rpc_method_handler(
                getattr(servicer, method.name),
                request_deserializer=request_class.FromString,
                response_serializer=response_class.SerializeToString,
            )
    return handlers
