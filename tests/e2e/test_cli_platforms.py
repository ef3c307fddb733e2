"""`kosli snapshot docker` and `kosli snapshot k8s` end to end: the official CLI reads a local
fake of the Docker Engine API or of the Kubernetes API (tests/e2e/platform_fakes.py) and reports
to a real `evidence-server serve`, on every engine under test.

One server per engine serves the module; every test has its own fake and environment."""

from __future__ import annotations

import hashlib
import pathlib
import subprocess
from collections.abc import Iterator

import pytest

from tests.conftest import RunningServer
from tests.e2e.cli import annotations, failure, running, snapshot_indexes, unique
from tests.e2e.platform_fakes import FakeApi, FakeDocker, FakeKubernetes, Pod

pytestmark = pytest.mark.e2e

CREATED = 1_700_000_000


def digest(label: str) -> str:
    """A sha256 standing for one image's registry digest."""
    return hashlib.sha256(label.encode()).hexdigest()


@pytest.fixture
def docker(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDocker]:
    """A fake Docker host; the CLI finds it through DOCKER_HOST as it would a remote daemon."""
    with FakeDocker() as fake:
        for name in ("DOCKER_API_VERSION", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY",
                     "DOCKER_CONTEXT"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("DOCKER_HOST", fake.docker_host)
        yield fake


@pytest.fixture
def cluster(tmp_path: pathlib.Path) -> Iterator[FakeKubernetes]:
    """A fake Kubernetes API server and a kubeconfig for it."""
    with FakeKubernetes(tmp_path / "kubeconfig") as fake:
        yield fake


def requested(fake: FakeApi) -> list[tuple[str, str]]:
    """What the CLI asked the fake since the last look: every request answered, and none with
    a query (a filter the fake would have to honour)."""
    taken = fake.take_requests()
    assert [r for r in taken if r.status != 200 or r.query] == [], taken
    return [(r.method, r.path) for r in taken]


# ---- docker --------------------------------------------------------------------------------

def test_docker_snapshot_reports_running_images(live: RunningServer, docker: FakeDocker) -> None:
    env = unique("docker")
    live.kosli("create", "environment", env, "--type", "docker")
    docker.pull("ghcr.io/acme/web:1.0", f"ghcr.io/acme/web@sha256:{digest('web 1.0')}")
    # Pulled from two registries: the CLI picks the repo digest of the name it runs under.
    docker.pull("acme/worker:2.1", f"mirror.acme.test/acme/worker@sha256:{digest('mirror')}",
                f"acme/worker@sha256:{digest('worker 2.1')}")
    docker.pull("local/tool:dev")  # built on the host, never pushed: no repo digest
    docker.run("web", "ghcr.io/acme/web:1.0", CREATED)
    docker.run("worker-1", "acme/worker:2.1", CREATED + 10)
    docker.run("worker-2", "acme/worker:2.1", CREATED + 20)
    docker.run("tool", "local/tool:dev", CREATED)
    docker.run("old", "ghcr.io/acme/web:1.0", CREATED - 99).running = False

    reported = live.kosli("snapshot", "docker", env)
    assert f"[3] containers were reported to environment {env}" in reported.stdout
    assert "ignoring container 'tool'" in reported.stdout
    calls = requested(docker)
    assert calls.count(("GET", "/v1.47/containers/json")) == 1
    assert {path for method, path in calls if path.startswith("/v1.47/images/")} == {
        "/v1.47/images/ghcr.io/acme/web:1.0/json", "/v1.47/images/acme/worker:2.1/json",
        "/v1.47/images/local/tool:dev/json"}

    snapshot = live.kosli_json("get", "snapshot", env)
    assert (snapshot["index"], snapshot["type"], snapshot["compliant"]) == (1, "docker", False)
    assert running(snapshot) == {"ghcr.io/acme/web:1.0": (digest("web 1.0"), 1),
                                 "acme/worker:2.1": (digest("worker 2.1"), 2)}
    by_name = {a["name"]: a for a in snapshot["artifacts"]}
    assert sorted(by_name["acme/worker:2.1"]["creationTimestamp"]) == [CREATED + 10, CREATED + 20]
    assert by_name["ghcr.io/acme/web:1.0"]["creationTimestamp"] == [CREATED]
    assert {a["annotation"]["type"] for a in snapshot["artifacts"]} == {"started-non-compliant"}
    assert all(a["pods"] is None for a in snapshot["artifacts"])

    live.kosli("snapshot", "docker", env)  # the same containers again: no new snapshot
    assert snapshot_indexes(live, env) == [1]
    assert live.kosli_json("get", "environment", env)["type"] == "docker"


def test_docker_snapshot_records_started_and_exited(live: RunningServer,
                                                    docker: FakeDocker) -> None:
    env = unique("docker")
    docker.pull("ghcr.io/acme/web:1.0", f"ghcr.io/acme/web@sha256:{digest('web 1.0')}")
    docker.pull("redis:7", f"redis@sha256:{digest('redis 7')}")
    web = docker.run("web", "ghcr.io/acme/web:1.0", CREATED)
    docker.run("cache", "redis:7", CREATED)
    live.kosli("snapshot", "docker", env, "--auto-environment")
    assert live.kosli_json("get", "environment", env)["type"] == "docker"

    web.running = False  # a new release replaces the web container
    docker.pull("ghcr.io/acme/web:1.1", f"ghcr.io/acme/web@sha256:{digest('web 1.1')}")
    docker.run("web-new", "ghcr.io/acme/web:1.1", CREATED + 600)
    docker.run("gone", "acme/removed:1", CREATED)  # its image was deleted since: ignored
    reported = live.kosli("snapshot", "docker", env)
    assert "[2] containers were reported" in reported.stdout
    assert "image is no longer present locally" in reported.stdout + reported.stderr
    assert ("GET", "/v1.47/images/acme/removed:1/json") in \
        [(r.method, r.path) for r in docker.take_requests() if r.status == 404]

    assert snapshot_indexes(live, env) == [2, 1]
    latest = live.kosli_json("get", "snapshot", env)
    assert running(latest) == {"ghcr.io/acme/web:1.1": (digest("web 1.1"), 1),
                               "redis:7": (digest("redis 7"), 1)}
    assert annotations(latest) == {
        ("ghcr.io/acme/web:1.0", digest("web 1.0")): "exited",
        ("ghcr.io/acme/web:1.1", digest("web 1.1")): "started-non-compliant",
        ("redis:7", digest("redis 7")): "unchanged"}
    first = live.kosli_json("get", "snapshot", f"{env}#1")
    assert set(running(first)) == {"ghcr.io/acme/web:1.0", "redis:7"}
    events = live.kosli_json("log", "environment", env)
    assert {(e["type"], e["artifact_name"], e["sha256"]) for e in events
            if e["snapshot_index"] == 2} == {
        ("started", "ghcr.io/acme/web:1.1", digest("web 1.1")),
        ("exited", "ghcr.io/acme/web:1.0", digest("web 1.0"))}


# ---- k8s -----------------------------------------------------------------------------------

WEB_1 = ("web", "ghcr.io/acme/web:1.0", f"ghcr.io/acme/web@sha256:{digest('web 1.0')}")
WEB_2 = ("web", "ghcr.io/acme/web:2.0", f"ghcr.io/acme/web@sha256:{digest('web 2.0')}")
API = ("api", "ghcr.io/acme/api:3", f"ghcr.io/acme/api@sha256:{digest('api 3')}")
LOGS = ("logs", "fluent/fluent-bit:3.0", f"docker.io/fluent/fluent-bit@sha256:{digest('fb')}")
DNS = ("coredns", "registry.k8s.io/coredns/coredns:v1.11.1",
       f"docker-pullable://registry.k8s.io/coredns/coredns@sha256:{digest('dns')}")


def deploy(cluster: FakeKubernetes) -> None:
    """A shop (two web replicas, an api pod with a log sidecar), payments, and cluster DNS."""
    cluster.add(Pod("web-7d9f-a", "shop", [WEB_1], CREATED, owner="web-7d9f"))
    cluster.add(Pod("web-7d9f-b", "shop", [WEB_1], CREATED + 5, owner="web-7d9f"))
    cluster.add(Pod("api-0", "shop", [API, LOGS], CREATED + 7, owner="api-5c4b"))
    cluster.add(Pod("pay-0", "payments", [API], CREATED + 9))
    cluster.add(Pod("web-7d9f-c", "shop", [WEB_1], CREATED, owner="web-7d9f", phase="Pending"))
    cluster.add(Pod("pulling", "shop", [("web", "ghcr.io/acme/web:1.0", "")], CREATED))
    cluster.add(Pod("coredns-1", "kube-system", [DNS], CREATED))


def snapshot_k8s(live: RunningServer, cluster: FakeKubernetes, env: str,
                 *flags: str) -> subprocess.CompletedProcess:
    return live.kosli("snapshot", "k8s", env, "--kubeconfig", str(cluster.kubeconfig), *flags)


def test_k8s_snapshot_of_the_whole_cluster(live: RunningServer, cluster: FakeKubernetes,
                                           docker: FakeDocker) -> None:
    env = unique("cluster")
    live.kosli("create", "environment", env, "--type", "K8S")
    deploy(cluster)
    reported = snapshot_k8s(live, cluster, env)
    assert f"[5] pods were reported to environment {env}" in reported.stdout
    assert requested(cluster) == [("GET", "/api/v1/pods")]
    refused = failure(live.kosli("snapshot", "docker", env, check=False))
    assert "is of type 'K8S', not 'docker'" in refused

    snapshot = live.kosli_json("get", "snapshot", env)
    assert (snapshot["index"], snapshot["type"]) == (1, "K8S")
    assert running(snapshot) == {
        "ghcr.io/acme/web:1.0": (digest("web 1.0"), 2),
        "ghcr.io/acme/api:3": (digest("api 3"), 2),
        "fluent/fluent-bit:3.0": (digest("fb"), 1),
        "registry.k8s.io/coredns/coredns:v1.11.1": (digest("dns"), 1)}
    by_name = {a["name"]: a for a in snapshot["artifacts"]}
    web = by_name["ghcr.io/acme/web:1.0"]
    assert sorted(web["pods"]) == ["web-7d9f-a", "web-7d9f-b"]
    assert sorted(web["creationTimestamp"]) == [CREATED, CREATED + 5]
    assert sorted(by_name["ghcr.io/acme/api:3"]["pods"]) == ["api-0", "pay-0"]
    assert list(by_name["fluent/fluent-bit:3.0"]["pods"]) == ["api-0"]
    owners = {(c["podName"], c["namespace"]): c["owners"] for c in web["context"]}
    owner = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f",
              "uid": "uid-web-7d9f", "controller": True, "blockOwnerDeletion": True}]
    assert owners == {(pod, "shop"): owner for pod in ("web-7d9f-a", "web-7d9f-b")}
    assert web["pods"]["web-7d9f-b"] == {"namespace": "shop", "creationTimestamp": CREATED + 5,
                                         "owners": owner}
    # The table output unmarshals the snapshot into the CLI's typed structs.
    table = live.kosli("get", "snapshot", env).stdout
    assert "Fingerprint: " + digest("web 1.0") in table and "REPLICAS" in table

    cluster.pods[4].phase = "Running"  # a third web replica: scaling alone is no new snapshot
    snapshot_k8s(live, cluster, env)
    assert snapshot_indexes(live, env) == [1]

    for pod in cluster.pods:  # roll the web deployment out to 2.0
        pod.containers = [WEB_2 if c == WEB_1 else c for c in pod.containers]
    snapshot_k8s(live, cluster, env)
    latest = live.kosli_json("get", "snapshot", env)
    assert latest["index"] == 2
    assert running(latest)["ghcr.io/acme/web:2.0"] == (digest("web 2.0"), 3)
    changed = {k: v for k, v in annotations(latest).items() if v != "unchanged"}
    assert changed == {("ghcr.io/acme/web:1.0", digest("web 1.0")): "exited",
                       ("ghcr.io/acme/web:2.0", digest("web 2.0")): "started-non-compliant"}


@pytest.mark.parametrize(("flags", "calls"), [
    (("--namespaces", "shop,payments"),
     {"/api/v1/namespaces/shop/pods", "/api/v1/namespaces/payments/pods"}),
    (("--exclude-namespaces", "kube-system"),
     {"/api/v1/namespaces", "/api/v1/namespaces/default/pods", "/api/v1/namespaces/shop/pods",
      "/api/v1/namespaces/payments/pods"}),
    (("--namespaces-regex", "^(shop|pay.*)$"),
     {"/api/v1/namespaces", "/api/v1/namespaces/shop/pods", "/api/v1/namespaces/payments/pods"}),
], ids=["namespaces", "exclude-namespaces", "namespaces-regex"])
def test_k8s_snapshot_of_selected_namespaces(live: RunningServer, cluster: FakeKubernetes,
                                             flags: tuple[str, str], calls: set[str]) -> None:
    env = unique("shop")
    deploy(cluster)
    snapshot_k8s(live, cluster, env, *flags, "--auto-environment")
    assert {path for _, path in requested(cluster)} == calls
    snapshot = live.kosli_json("get", "snapshot", env)
    assert set(running(snapshot)) == {"ghcr.io/acme/web:1.0", "ghcr.io/acme/api:3",
                                      "fluent/fluent-bit:3.0"}
    namespaces = {c["namespace"] for a in snapshot["artifacts"] for c in a["context"]}
    assert namespaces == {"shop", "payments"}
    assert live.kosli_json("get", "environment", env)["type"] == "K8S"
