"""Local fakes of the AWS APIs that `kosli snapshot lambda|s3|ecs` read.

The CLI uses the AWS SDK for Go v2, which honours `AWS_ENDPOINT_URL`: with it pointing at one of
these fakes (and dummy credentials) every call goes to 127.0.0.1. Each fake answers only the
operations the real CLI makes (found by logging them) and records every request."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from xml.sax.saxutils import escape

from tests.e2e.platform_fakes import FakeApi, Reply

ACCOUNT = "123456789012"
REGION = "eu-west-1"


def aws_environment(url: str) -> dict[str, str]:
    """Environment variables that send the CLI's AWS calls to a fake."""
    return {"AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": "fake-key-id",
            "AWS_SECRET_ACCESS_KEY": "fake-secret", "AWS_REGION": REGION,
            "AWS_EC2_METADATA_DISABLED": "true"}


def _iso(stamp: int, layout: str) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime(layout)


# ---- Lambda --------------------------------------------------------------------------------

@dataclass
class Function:
    """A Zip-packaged function: its fingerprint is the SHA-256 of its code."""

    name: str
    code: bytes
    modified: int

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(self.code).hexdigest()

    def configuration(self) -> dict[str, object]:
        return {"FunctionName": self.name, "Runtime": "python3.12", "PackageType": "Zip",
                "FunctionArn": f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.name}",
                "CodeSha256": base64.b64encode(hashlib.sha256(self.code).digest()).decode(),
                "CodeSize": len(self.code), "Version": "$LATEST",
                "LastModified": _iso(self.modified, "%Y-%m-%dT%H:%M:%S.000+0000")}


class FakeLambda(FakeApi):
    """Lambda's REST API: ListFunctions and GetFunctionConfiguration."""

    def __init__(self) -> None:
        super().__init__()
        self.functions: dict[str, Function] = {}

    def deploy(self, name: str, code: bytes, modified: int) -> Function:
        self.functions[name] = Function(name, code, modified)
        return self.functions[name]

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
               headers: Mapping[str, str]) -> Reply:
        if method == "GET" and path == "/2015-03-31/functions":
            return Reply(200, {"Functions": [f.configuration() for f in self.functions.values()]})
        parts = path.split("/")
        if method == "GET" and len(parts) == 5 and parts[4] == "configuration":
            function = self.functions.get(parts[3])
            if function is not None:
                return Reply(200, function.configuration())
        return Reply(404, {"Type": "User", "message": f"Function not found: {path}"},
                     {"X-Amzn-Errortype": "ResourceNotFoundException"})


# ---- S3 ------------------------------------------------------------------------------------

_HTTP_DATE = "%a, %d %b %Y %H:%M:%S GMT"


class FakeS3(FakeApi):
    """S3's REST API, path-style: ListObjectsV2 of a bucket and GetObject of its keys."""

    def __init__(self) -> None:
        super().__init__()
        self.buckets: dict[str, dict[str, tuple[bytes, int]]] = {}

    def put(self, bucket: str, key: str, content: bytes, modified: int) -> None:
        self.buckets.setdefault(bucket, {})[key] = (content, modified)

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
               headers: Mapping[str, str]) -> Reply:
        name, _, key = path.lstrip("/").partition("/")
        bucket = self.buckets.get(name)
        if method != "GET" or bucket is None:
            return self._error(404, "NoSuchBucket")
        if not key and query.get("list-type") == ["2"]:
            return self._list(name, bucket, query.get("prefix", [""])[0])
        if key not in bucket:
            return self._error(404, "NoSuchKey")
        content, modified = bucket[key]
        return Reply(200, content, {"Content-Type": "application/octet-stream",
                                    "ETag": f'"{hashlib.md5(content).hexdigest()}"',
                                    "Last-Modified": _iso(modified, _HTTP_DATE)})

    @staticmethod
    def _list(name: str, bucket: dict[str, tuple[bytes, int]], prefix: str) -> Reply:
        keys = sorted(k for k in bucket if k.startswith(prefix))
        contents = "".join(
            f"<Contents><Key>{escape(k)}</Key>"
            f"<LastModified>{_iso(bucket[k][1], '%Y-%m-%dT%H:%M:%S.000Z')}</LastModified>"
            f"<ETag>&quot;{hashlib.md5(bucket[k][0]).hexdigest()}&quot;</ETag>"
            f"<Size>{len(bucket[k][0])}</Size><StorageClass>STANDARD</StorageClass></Contents>"
            for k in keys)
        xml = ('<?xml version="1.0" encoding="UTF-8"?>'
               '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
               f"<Name>{escape(name)}</Name><Prefix>{escape(prefix)}</Prefix>"
               f"<KeyCount>{len(keys)}</KeyCount><MaxKeys>1000</MaxKeys>"
               f"<IsTruncated>false</IsTruncated>{contents}</ListBucketResult>")
        return Reply(200, xml.encode(), {"Content-Type": "application/xml"})

    @staticmethod
    def _error(status: int, code: str) -> Reply:
        xml = f"<?xml version='1.0' encoding='UTF-8'?><Error><Code>{code}</Code></Error>"
        return Reply(status, xml.encode(), {"Content-Type": "application/xml"})


# ---- ECS -----------------------------------------------------------------------------------

_ECS_TARGET = "AmazonEC2ContainerServiceV20141113."


@dataclass
class Task:
    """A running task of a service, one container per `(image, sha256 digest)`."""

    cluster: str
    service: str
    task_id: str
    containers: list[tuple[str, str]]
    started: int

    @property
    def arn(self) -> str:
        return f"arn:aws:ecs:{REGION}:{ACCOUNT}:task/{self.cluster}/{self.task_id}"

    def description(self) -> dict[str, object]:
        return {"taskArn": self.arn, "clusterArn": _cluster_arn(self.cluster),
                "group": f"service:{self.service}", "lastStatus": "RUNNING",
                "desiredStatus": "RUNNING", "createdAt": self.started - 5,
                "startedAt": self.started, "containers": [
                    {"containerArn": f"{self.arn}/container/{i}", "name": f"c{i}",
                     "image": image, "imageDigest": f"sha256:{digest}", "lastStatus": "RUNNING"}
                    for i, (image, digest) in enumerate(self.containers)]}


def _cluster_arn(name: str) -> str:
    return f"arn:aws:ecs:{REGION}:{ACCOUNT}:cluster/{name}"


def _service_arn(cluster: str, name: str) -> str:
    return f"arn:aws:ecs:{REGION}:{ACCOUNT}:service/{cluster}/{name}"


class FakeEcs(FakeApi):
    """ECS's JSON 1.1 API: clusters, their services and the services' running tasks."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: list[Task] = []

    def run(self, cluster: str, service: str, task_id: str, containers: list[tuple[str, str]],
            started: int) -> Task:
        self.tasks.append(Task(cluster, service, task_id, containers, started))
        return self.tasks[-1]

    def answer(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
               headers: Mapping[str, str]) -> Reply:
        target = headers.get("X-Amz-Target", "")
        request = json.loads(body or b"{}")
        clusters = sorted({t.cluster for t in self.tasks})
        cluster = request.get("cluster", "")
        services = sorted({t.service for t in self.tasks if t.cluster == cluster})
        answers = {
            "ListClusters": lambda: {"clusterArns": [_cluster_arn(c) for c in clusters]},
            "DescribeClusters": lambda: {"failures": [], "clusters": [
                {"clusterArn": _cluster_arn(c), "clusterName": c, "status": "ACTIVE"}
                for c in clusters if _cluster_arn(c) in request["clusters"]
                or c in request["clusters"]]},
            "ListServices": lambda: {"serviceArns": [_service_arn(cluster, s) for s in services]},
            "DescribeServices": lambda: {"failures": [], "services": [
                {"serviceArn": _service_arn(cluster, s), "serviceName": s, "status": "ACTIVE",
                 "clusterArn": _cluster_arn(cluster)}
                for s in services if _service_arn(cluster, s) in request["services"]]},
            "ListTasks": lambda: {"taskArns": [
                t.arn for t in self.tasks if t.cluster == cluster
                and t.service == request.get("serviceName", t.service)]},
            "DescribeTasks": lambda: {"failures": [], "tasks": [
                t.description() for t in self.tasks if t.arn in request["tasks"]]},
        }
        operation = target.removeprefix(_ECS_TARGET)
        if method != "POST" or not target.startswith(_ECS_TARGET) or operation not in answers:
            return Reply(400, {"__type": "InvalidAction", "message": f"{target} is not served"},
                         {"Content-Type": "application/x-amz-json-1.1"})
        return Reply(200, answers[operation](), {"Content-Type": "application/x-amz-json-1.1"})
