"""Domain events: how a lower context lets a higher one react without importing it.

Contexts depend one way (docs/architecture.md): evidence cannot call runtime, runtime cannot
call governance. Where a lower context's change must have an effect above it, it publishes an
event (a frozen dataclass it defines), and the higher context's handler is subscribed once,
when the domain package is imported (evidence_grpc/domain/__init__.py). Handlers run at once,
in the publisher's transaction, in the order subscribed: their writes commit or roll back with
the change that caused them, and a handler's error fails the call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

Event = TypeVar("Event")
_handlers: dict[type, list[Callable[[Any], None]]] = {}


def subscribe(kind: type[Event], handler: Callable[[Event], None]) -> None:
    """Run `handler` on every event of type `kind` from now on (once, however often
    subscribed)."""
    handlers = _handlers.setdefault(kind, [])
    if handler not in handlers:
        handlers.append(handler)


def publish(event: object) -> None:
    for handler in _handlers.get(type(event), ()):
        handler(event)
