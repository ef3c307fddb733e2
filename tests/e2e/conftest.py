"""A real server per engine shared by an end-to-end module (each start costs seconds)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import ENGINES, RunningServer, fresh_database, start_server, stop_server


@pytest.fixture(scope="module", params=ENGINES)
def live(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """A real `evidence-server serve` on a fresh database of each engine, for the module."""
    tmp = tmp_path_factory.mktemp(f"server-{request.param}")
    with fresh_database(request.param, tmp, request) as url:
        running = start_server(url, tmp, bootstrap_with=None)
        try:
            yield running
        finally:
            stop_server(running)
