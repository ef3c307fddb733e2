"""Settings from the command line and the environment: flags win over the environment, which
wins over the defaults; a nonsensical count is refused before anything starts."""

from __future__ import annotations

import pytest

from evidence_grpc import cli
from evidence_grpc.config import Settings


def _settings_of(argv: list[str]) -> Settings:
    return cli._settings(cli.parser().parse_args(argv))


@pytest.mark.parametrize(("door", "field", "default"), [("grpc", "grpc_threads", 4),
                                                         ("shim", "http_threads", 8)])
def test_threads_come_from_the_flag_then_the_environment_then_the_default(door, field, default,
                                                                          monkeypatch):
    variable, flag = f"EVIDENCE_{field.upper()}", "--" + field.replace("_", "-")
    monkeypatch.delenv(variable, raising=False)
    assert getattr(_settings_of([door]), field) == getattr(Settings(), field) == default
    monkeypatch.setenv(variable, "6")
    assert getattr(_settings_of([door]), field) == 6
    assert getattr(_settings_of(["serve", flag, "2"]), field) == 2


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_thread_count_below_one_is_refused(value, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args(["grpc", "--grpc-threads", value])
    assert exited.value.code == 2
    assert "--grpc-threads" in capsys.readouterr().err


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
