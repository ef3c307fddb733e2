"""Helpers for driving the real kosli CLI in end-to-end tests."""

from __future__ import annotations

import hashlib
import pathlib
import subprocess
import uuid
from typing import Any

from tests.conftest import RunningServer


def unique(prefix: str) -> str:
    """A name no other test uses on the shared server."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def failure(result: subprocess.CompletedProcess) -> str:
    """The CLI's error text, checked to be a clean server message."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    text = result.stdout + result.stderr
    for junk in ("<nil>", "%!", "panic", "giving up after", "invalid character",
                 "unexpected end of JSON"):
        assert junk not in text, text
    return result.stderr




class Repo:
    """A git repository with a GitHub origin, for `--commit` and `--repo-root`."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        root.mkdir()
        self.git("init", "-q", "-b", "main")
        self.git("remote", "add", "origin", "https://github.com/acme/payments.git")

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.root), "-c", "user.name=Alice Example",
             "-c", "user.email=alice@example.com", "-c", "commit.gpgsign=false", *args],
            check=True, capture_output=True, text=True).stdout.strip()

    def commit(self, message: str) -> str:
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")


def write(path: pathlib.Path, text: str | bytes) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def attest_backend(live: RunningServer, flow: str, repo: Repo, tmp_path: pathlib.Path,
                   content: bytes = b"payments backend 1.0\n") -> tuple[str, str]:
    """`attest artifact` a file built from a fresh commit: (fingerprint, commit)."""
    sha = repo.commit("Build the backend")
    artifact = write(tmp_path / "dist" / "backend.tar", content)
    result = live.kosli("attest", "artifact", str(artifact), "--artifact-type", "file",
                        "--flow", flow, "--trail", "release-1", "--name", "backend",
                        "--commit", sha, "--repo-root", str(repo.root),
                        "--build-url", "https://ci.example/builds/42",
                        "--commit-url", f"https://github.com/acme/payments/commit/{sha}")
    fingerprint = hashlib.sha256(content).hexdigest()
    assert result.stdout.strip() == f"artifact backend.tar was attested with fingerprint: {fingerprint}"
    return fingerprint, sha


def running(snapshot: dict[str, Any]) -> dict[str, tuple[str, int]]:
    """Name -> (fingerprint, instances) of the artifacts running in a snapshot."""
    return {a["name"]: (a["fingerprint"], a["instance_count"]) for a in snapshot["artifacts"]
            if a["annotation"]["now"]}


def annotations(snapshot: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(a["name"], a["fingerprint"]): a["annotation"]["type"]
            for a in snapshot["artifacts"]}


def snapshot_indexes(live: RunningServer, env: str) -> list[int]:
    return [s["index"] for s in live.kosli_json("list", "snapshots", env)]
