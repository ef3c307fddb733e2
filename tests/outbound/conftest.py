"""Fixtures of the outbound tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evidence_grpc.domain.outbound import targets as outbound
from tests.helpers import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A webhook receiver on 127.0.0.1, with deliveries to loopback allowed while it runs."""
    outbound.configure(outbound.Policy(allow_loopback=True, timeout_seconds=2))
    running = Receiver()
    yield running
    running.close()
    outbound.configure(outbound.Policy())
