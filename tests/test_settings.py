"""Settings from the command line and the environment: flags win over the environment, which
wins over the defaults; a nonsensical count is refused before anything starts."""

from __future__ import annotations

import pytest

from evidence_grpc import cli
from evidence_grpc.config import Settings


def _settings_of(argv: list[str]) -> Settings:
    return cli._settings(cli.parser().parse_args(argv))


def test_grpc_threads_come_from_the_flag_then_the_environment_then_the_default(monkeypatch):
    monkeypatch.delenv("EVIDENCE_GRPC_THREADS", raising=False)
    assert _settings_of(["grpc"]).grpc_threads == Settings().grpc_threads == 4
    monkeypatch.setenv("EVIDENCE_GRPC_THREADS", "6")
    assert _settings_of(["grpc"]).grpc_threads == 6
    assert _settings_of(["serve", "--grpc-threads", "2"]).grpc_threads == 2


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_thread_count_below_one_is_refused(value, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args(["grpc", "--grpc-threads", value])
    assert exited.value.code == 2
    assert "--grpc-threads" in capsys.readouterr().err


def test_http_threads_come_from_the_flag_then_the_environment_then_the_default(monkeypatch):
    monkeypatch.delenv("EVIDENCE_HTTP_THREADS", raising=False)
    assert _settings_of(["serve"]).http_threads == Settings().http_threads == 8
    monkeypatch.setenv("EVIDENCE_HTTP_THREADS", "3")
    assert _settings_of(["shim"]).http_threads == 3
    assert _settings_of(["serve", "--http-threads", "2"]).http_threads == 2


def test_http_workers_are_two_per_core_unless_the_flag_or_the_environment_says(monkeypatch):
    monkeypatch.delenv("EVIDENCE_HTTP_WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 3)
    assert _settings_of(["serve"]).http_processes == 6
    monkeypatch.setenv("EVIDENCE_HTTP_WORKERS", "5")
    assert _settings_of(["shim"]).http_processes == 5
    assert _settings_of(["serve", "--workers", "1"]).http_processes == 1


@pytest.mark.parametrize("flag", ["--workers", "--http-threads", "--grpc-workers", "--grpc-threads"])
def test_a_process_or_thread_count_below_one_is_refused(flag, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args(["serve", flag, "0"])
    assert exited.value.code == 2
    assert flag in capsys.readouterr().err
