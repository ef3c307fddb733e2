"""Small local fakes of the platform APIs that `kosli snapshot docker|k8s` read.

Each fake is a stdlib HTTP server on 127.0.0.1 in a background thread. It answers only the
requests the real CLI makes (found by logging them), from state the test sets, and records every
request so a test can assert what the CLI asked for and that nothing went unanswered."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlsplit


@dataclass(frozen=True)
class Request:
    """One request a fake received, and the status it answered with."""

    method: str
    path: str
    query: dict[str, list[str]]
    status: int


@dataclass
class Reply:
    """An answer: `body` is sent as JSON, or as it is when bytes."""

    status: int = 200
    body: object = None
    headers: dict[str, str] = field(default_factory=dict)

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return b"" if self.body is None else json.dumps(self.body).encode()


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _serve(self) -> None:
        parts = urlsplit(self.path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        reply = self.server.fake.answer(self.command, path, query, body, self.headers)
        self.server.fake.record(Request(self.command, path, query, reply.status))
        payload = reply.payload()
        self.send_response(reply.status)
        headers = {"Content-Type": "application/json", **reply.headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: object) -> None:
        """Requests are recorded on the fake, not printed."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeApi) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", 0), _Handler)


class FakeApi:
    """An HTTP API on a free 127.0.0.1 port; subclasses implement `answer`."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name=type(self).__name__, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
               headers: Mapping[str, str]) -> Reply:
        raise NotImplementedError

    def record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)

    def take_requests(self) -> list[Request]:
        """The requests received since the last call, oldest first."""
        with self._lock:
            taken, self.requests = self.requests, []
        return taken

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# ---- Docker Engine API ---------------------------------------------------------------------

DOCKER_API_VERSION = "1.47"
_VERSIONED = re.compile(r"^/v(\d+\.\d+)(/.*)$")
_IMAGE_INSPECT = re.compile(r"^/images/(.+)/json$")


@dataclass
class Container:
    """A container as `GET /containers/json` summarizes it."""

    name: str
    image: str
    created: int
    running: bool = True

    def summary(self) -> dict[str, Any]:
        state = "running" if self.running else "exited"
        return {"Id": _sha256(f"container {self.name}"), "Names": [f"/{self.name}"],
                "Image": self.image, "ImageID": f"sha256:{_sha256(self.image)}",
                "Command": "/entrypoint", "Created": self.created, "Ports": [], "Labels": {},
                "State": state,
                "Status": "Up 5 minutes" if self.running else "Exited (0) 1 minute ago",
                "HostConfig": {"NetworkMode": "bridge"}, "NetworkSettings": {"Networks": {}},
                "Mounts": []}


class FakeDocker(FakeApi):
    """The Docker Engine API over TCP: the ping that negotiates the API version, the list of
    running containers, and image inspection (whose `RepoDigests` give the fingerprints)."""

    def __init__(self) -> None:
        super().__init__()
        self.containers: list[Container] = []
        self.repo_digests: dict[str, list[str]] = {}

    @property
    def docker_host(self) -> str:
        return self.url.replace("http://", "tcp://")

    def run(self, name: str, image: str, created: int) -> Container:
        """Start a container of `image` (an image pulled earlier with `pull`)."""
        container = Container(name, image, created)
        self.containers.append(container)
        return container

    def pull(self, image: str, *repo_digests: str) -> None:
        """Have `image` locally; without repo digests it was built here, never pushed."""
        self.repo_digests[image] = list(repo_digests)

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
               request_headers: Mapping[str, str]) -> Reply:
        headers = {"Api-Version": DOCKER_API_VERSION, "Docker-Experimental": "false",
                   "Ostype": "linux", "Server": "Docker/27.5.1 (linux)"}
        versioned = _VERSIONED.match(path)
        route = versioned.group(2) if versioned else path
        if method in ("GET", "HEAD") and route == "/_ping":
            return Reply(200, None if method == "HEAD" else b"OK",
                         {**headers, "Content-Type": "text/plain; charset=utf-8"})
        if method == "GET" and route == "/containers/json":  # running ones: `all` unasked
            return Reply(200, [c.summary() for c in self.containers if c.running], headers)
        image = _IMAGE_INSPECT.match(route)
        if method == "GET" and image:
            return self._inspect(image.group(1), headers)
        return Reply(404, {"message": f"page not found: {method} {path}"}, headers)

    def _inspect(self, name: str, headers: dict[str, str]) -> Reply:
        if name not in self.repo_digests:
            return Reply(404, {"message": f"No such image: {name}"}, headers)
        return Reply(200, {"Id": f"sha256:{_sha256(name)}",
                           "RepoTags": [name], "RepoDigests": self.repo_digests[name],
                           "Created": "2024-01-01T00:00:00Z", "Size": 1024,
                           "Os": "linux", "Architecture": "amd64",
                           "RootFS": {"Type": "layers", "Layers": []}}, headers)


# ---- Kubernetes API ------------------------------------------------------------------------

_NAMESPACED_PODS = re.compile(r"^/api/v1/namespaces/([^/]+)/pods$")


@dataclass
class Pod:
    """A pod with one container per `(container name, image, imageID)`."""

    name: str
    namespace: str
    containers: list[tuple[str, str, str]]
    created: int
    owner: str | None = None
    phase: str = "Running"

    def resource(self) -> dict[str, Any]:
        stamp = datetime.fromtimestamp(self.created, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        metadata: dict[str, Any] = {"name": self.name, "namespace": self.namespace,
                                    "uid": f"uid-{self.namespace}-{self.name}",
                                    "resourceVersion": "1", "creationTimestamp": stamp}
        if self.owner is not None:  # the ReplicaSet of a Deployment
            metadata["ownerReferences"] = [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": self.owner,
                "uid": f"uid-{self.owner}", "controller": True, "blockOwnerDeletion": True}]
        return {
            "apiVersion": "v1", "kind": "Pod", "metadata": metadata,
            "spec": {"containers": [{"name": n, "image": image}
                                    for n, image, _ in self.containers]},
            "status": {"phase": self.phase, "containerStatuses": [
                {"name": n, "image": image, "imageID": image_id, "ready": True,
                 "restartCount": 0, "started": True,
                 "state": {"running": {"startedAt": stamp}}}
                for n, image, image_id in self.containers]},
        }


class FakeKubernetes(FakeApi):
    """The Kubernetes core/v1 API over plain HTTP without authentication: pods of the cluster
    or of one namespace, and the namespace list. `kubeconfig` is written to point at it."""

    def __init__(self, kubeconfig: pathlib.Path) -> None:
        super().__init__()
        self.namespaces: list[str] = ["default", "kube-system"]
        self.pods: list[Pod] = []
        self.kubeconfig = kubeconfig
        kubeconfig.write_text(json.dumps({  # JSON is YAML
            "apiVersion": "v1", "kind": "Config", "current-context": "fake",
            "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
            "users": [{"name": "nobody", "user": {}}],
            "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "nobody"}}],
        }))

    def add(self, pod: Pod) -> Pod:
        if pod.namespace not in self.namespaces:
            self.namespaces.append(pod.namespace)
        self.pods.append(pod)
        return pod

    @staticmethod
    def _list(kind: str, items: list[dict[str, Any]]) -> Reply:
        return Reply(200, {"apiVersion": "v1", "kind": kind,
                           "metadata": {"resourceVersion": "1"}, "items": items})

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
               headers: Mapping[str, str]) -> Reply:
        if method != "GET":
            return Reply(405, {"kind": "Status", "message": f"{method} {path} is not served"})
        if path == "/api/v1/pods":
            return self._list("PodList", [p.resource() for p in self.pods])
        if path == "/api/v1/namespaces":
            return self._list("NamespaceList", [
                {"metadata": {"name": n, "uid": f"uid-{n}", "resourceVersion": "1"},
                 "status": {"phase": "Active"}} for n in self.namespaces])
        namespaced = _NAMESPACED_PODS.match(path)
        if namespaced:
            return self._list("PodList", [p.resource() for p in self.pods
                                          if p.namespace == namespaced.group(1)])
        return Reply(404, {"kind": "Status", "reason": "NotFound",
                           "message": f"the server could not find the requested resource ({path})"})
