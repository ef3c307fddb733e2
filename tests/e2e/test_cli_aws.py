"""`kosli snapshot lambda|s3|ecs` end to end: the official CLI reads local fakes of the AWS APIs
(tests/e2e/aws_fakes.py, reached through AWS_ENDPOINT_URL) and reports to a real
`evidence-server serve`, on every engine under test."""

from __future__ import annotations

import hashlib
import pathlib
from collections.abc import Iterator
from typing import TypeVar

import pytest

from tests.conftest import RunningServer
from tests.e2e.aws_fakes import FakeEcs, FakeLambda, FakeS3, aws_environment
from tests.e2e.cli import annotations, running, snapshot_indexes, unique
from tests.e2e.platform_fakes import FakeApi

pytestmark = pytest.mark.e2e

MODIFIED = 1_704_164_645  # 2024-01-02T03:04:05Z
F = TypeVar("F", bound=FakeApi)


def served(fake_type: type[F], monkeypatch: pytest.MonkeyPatch) -> Iterator[F]:
    """A running fake, the CLI's AWS calls pointed at it (no other AWS configuration)."""
    with fake_type() as fake:
        for name, value in aws_environment(fake.url).items():
            monkeypatch.setenv(name, value)
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_CONFIG_FILE",
                     "AWS_SHARED_CREDENTIALS_FILE"):
            monkeypatch.delenv(name, raising=False)
        yield fake


@pytest.fixture
def lambdas(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLambda]:
    yield from served(FakeLambda, monkeypatch)


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeS3]:
    yield from served(FakeS3, monkeypatch)


@pytest.fixture
def ecs(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEcs]:
    yield from served(FakeEcs, monkeypatch)


def answered(fake: FakeApi) -> list[tuple[str, str]]:
    """What the CLI asked since the last look; every request must have been answered."""
    taken = fake.take_requests()
    assert [r for r in taken if r.status != 200] == [], taken
    return [(r.method, r.path) for r in taken]


def test_lambda_snapshot_reports_function_code_digests(live: RunningServer,
                                                       lambdas: FakeLambda) -> None:
    env = unique("lambda")
    live.kosli("create", "environment", env, "--type", "lambda")
    api = lambdas.deploy("api", b"def handler(): return 1", MODIFIED)
    worker = lambdas.deploy("worker", b"def handler(): return 2", MODIFIED + 60)
    lambdas.deploy("unrelated", b"not asked for", MODIFIED)

    live.kosli("snapshot", "lambda", env, "--function-names", "api,worker")
    assert ("GET", "/2015-03-31/functions/api/configuration") in answered(lambdas)
    first = live.kosli_json("get", "snapshot", env)
    assert (first["index"], first["type"]) == (1, "lambda")
    assert running(first) == {"api": (api.fingerprint, 1), "worker": (worker.fingerprint, 1)}
    assert {a["name"]: a["creationTimestamp"] for a in first["artifacts"]} == {
        "api": [MODIFIED], "worker": [MODIFIED + 60]}

    live.kosli("snapshot", "lambda", env, "--function-names", "api,worker")
    assert snapshot_indexes(live, env) == [1]  # nothing changed: no new snapshot
    new_api = lambdas.deploy("api", b"def handler(): return 3", MODIFIED + 120)
    live.kosli("snapshot", "lambda", env, "--function-names", "api,worker")
    second = live.kosli_json("get", "snapshot", env)
    assert second["index"] == 2
    assert annotations(second) == {("api", new_api.fingerprint): "started-non-compliant",
                                   ("api", api.fingerprint): "exited",
                                   ("worker", worker.fingerprint): "unchanged"}
    diff = live.kosli_json("diff", "snapshots", f"{env}#1", f"{env}#2")
    assert [a["fingerprint"] for a in diff["snappish1"]["artifacts"]] == [api.fingerprint]
    assert [a["fingerprint"] for a in diff["snappish2"]["artifacts"]] == [new_api.fingerprint]


def test_s3_snapshot_fingerprints_the_bucket_as_a_directory(
        live: RunningServer, s3: FakeS3, tmp_path: pathlib.Path) -> None:
    files = {"site/index.html": b"<h1>hello</h1>", "site/js/main.js": b"console.log(1)",
             "readme.txt": b"read me"}
    copy = tmp_path / "bucket"
    for key, content in files.items():
        s3.put("assets", key, content, MODIFIED)
        (copy / key).parent.mkdir(parents=True, exist_ok=True)
        (copy / key).write_bytes(content)
    # The CLI downloads every object and fingerprints the bucket as it would a directory.
    expected = live.kosli("fingerprint", str(copy), "--artifact-type", "dir").stdout.strip()
    env = unique("s3")

    live.kosli("snapshot", "s3", env, "--bucket", "assets", "--auto-environment")
    calls = answered(s3)
    assert calls[0] == ("GET", "/assets")
    assert sorted(path for _, path in calls[1:]) == [f"/assets/{k}" for k in sorted(files)]
    assert live.kosli_json("get", "environment", env)["type"] == "S3"
    assert running(live.kosli_json("get", "snapshot", env)) == {"assets": (expected, 1)}

    # One object only: it is reported under its own name, with its own SHA-256.
    live.kosli("snapshot", "s3", env, "--bucket", "assets", "--include", "readme.txt")
    only = live.kosli_json("get", "snapshot", env)
    assert only["index"] == 2
    assert running(only) == {"readme.txt": (hashlib.sha256(b"read me").hexdigest(), 1)}
    assert annotations(only)[("assets", expected)] == "exited"


def test_ecs_snapshot_reports_tasks_of_every_cluster_and_service(live: RunningServer,
                                                                  ecs: FakeEcs) -> None:
    web, api = hashlib.sha256(b"web").hexdigest(), hashlib.sha256(b"api").hexdigest()
    sidecar = hashlib.sha256(b"sidecar").hexdigest()
    ecs.run("blue", "web", "t1", [("acme/web:1.0", web), ("acme/sidecar:2", sidecar)], MODIFIED)
    ecs.run("blue", "web", "t2", [("acme/web:1.0", web), ("acme/sidecar:2", sidecar)],
            MODIFIED + 5)
    ecs.run("green", "api", "t3", [("acme/api:7", api)], MODIFIED + 9)
    env = unique("ecs")
    live.kosli("create", "environment", env, "--type", "ECS")

    live.kosli("snapshot", "ecs", env, "--clusters", "blue,green")
    calls = answered(ecs)
    assert calls and all(call == ("POST", "/") for call in calls)
    snapshot = live.kosli_json("get", "snapshot", env)
    assert (snapshot["index"], snapshot["type"]) == (1, "ECS")
    assert running(snapshot) == {"acme/web:1.0": (web, 2), "acme/sidecar:2": (sidecar, 2),
                                 "acme/api:7": (api, 1)}

    # Only the blue cluster: the api task is gone from what runs in the environment.
    live.kosli("snapshot", "ecs", env, "--clusters", "blue")
    narrowed = live.kosli_json("get", "snapshot", env)
    assert narrowed["index"] == 2
    assert annotations(narrowed)[("acme/api:7", api)] == "exited"
    assert set(running(narrowed)) == {"acme/web:1.0", "acme/sidecar:2"}
    # The CLI's table outputs unmarshal these answers into its typed structs.
    assert "Fingerprint: " + web in live.kosli("get", "snapshot", env).stdout
    assert "acme/api:7" in live.kosli("diff", "snapshots", f"{env}#1", f"{env}#2").stdout
    assert "acme/api:7" in live.kosli("log", "environment", env).stdout
