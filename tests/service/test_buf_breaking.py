"""scripts/buf_breaking.sh: protos/ checked against the baseline named in .buf-baseline; a
changed field type or a removed field fails it."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

BIN = pathlib.Path(sys.executable).parent


@pytest.fixture(scope="module")
def deps() -> pathlib.Path:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", "PYTHON": sys.executable}
    subprocess.run([str(ROOT / "scripts/buf_lint.sh")], check=True, capture_output=True, env=env)
    return ROOT / ".buf-deps"


def _workspace(tmp_path: pathlib.Path, deps: pathlib.Path) -> pathlib.Path:
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    shutil.copy(ROOT / "buf.yaml", tmp_path)
    shutil.copytree(deps, tmp_path / ".buf-deps")
    return tmp_path


def _check(workspace: pathlib.Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
    return subprocess.run([str(ROOT / "scripts/buf_breaking.sh"), str(workspace)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_the_protos_as_they_are_pass(tmp_path: pathlib.Path, deps: pathlib.Path):
    result = _check(_workspace(tmp_path, deps))
    assert result.returncode == 0, result.stderr + result.stdout
    assert "buf breaking: OK against" in result.stdout


@pytest.mark.parametrize("old, new, complaint", [
    ("  double last_modified_at = 7;", "  string last_modified_at = 7;", "changed type"),
    ("  string html_url = 17;\n", "", "deleted"),
])
def test_a_breaking_change_fails(tmp_path: pathlib.Path, deps: pathlib.Path, old: str, new: str,
                                 complaint: str):
    workspace = _workspace(tmp_path, deps)
    trail = workspace / "protos/evidence/v2/trail_service.proto"
    text = trail.read_text()
    assert old in text
    trail.write_text(text.replace(old, new, 1))
    result = _check(workspace)
    assert result.returncode != 0
    assert "trail_service.proto" in result.stdout and complaint in result.stdout, result.stdout
