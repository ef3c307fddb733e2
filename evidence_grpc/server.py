"""The network gRPC server: evidence.v2 services behind the interceptors, plus health
checking and server reflection for grpcurl-style tools."""

from __future__ import annotations

from collections import defaultdict
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from .config import Settings
from .services import intercepted_handlers, service_descriptors


def grpc_options(settings: Settings, *, client: bool = False) -> list[tuple[str, int]]:
    """Requests are limited to max_message_bytes, answers to max_answer_bytes: the server
    receives requests and sends answers, a client (the shim's channel) the other way round."""
    requests, answers = settings.max_message_bytes, settings.max_answer_bytes
    return [
        ("grpc.max_receive_message_length", answers if client else requests),
        ("grpc.max_send_message_length", requests if client else answers),
    ]


def build_server(settings: Settings) -> tuple[grpc.Server, int]:
    """A started-ready server bound to settings.grpc_addr; returns it with the bound port."""
    # SO_REUSEPORT: the processes of `evidence-server grpc --grpc-workers N` bind one address
    # and the kernel spreads connections among them.
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=settings.grpc_threads),
                         options=[*grpc_options(settings), ("grpc.so_reuseport", 1)])
    by_service: dict[str, dict[str, grpc.RpcMethodHandler]] = defaultdict(dict)
    for path, handler in intercepted_handlers(settings, "network").items():
        service, method = path.lstrip("/").split("/")
        by_service[service][method] = handler
    server.add_generic_rpc_handlers(
        [grpc.method_handlers_generic_handler(s, h) for s, h in by_service.items()])

    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [s.full_name for s in service_descriptors()]
    for name in [*names, ""]:
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server)
    port = server.add_insecure_port(settings.grpc_addr)
    if port == 0:
        raise OSError(f"cannot bind gRPC address {settings.grpc_addr}")
    return server, port
