"""Schemathesis against a real server: every operation of the published OpenAPI document
(`tests/data/kosli-openapi-2025.json`, the hosted service's) is called with generated input, and
fails on any server error (5xx) or any answer that its response schema does not allow.

Path parameters name resources seeded for the run (organization `acme`, flow `f`, trail `t`,
environment `prod`, ...), so that answers are the real ones, not only 404s; query strings and
bodies are generated. Reads run before writes (a rename or an archive generated for a write
would otherwise hide the seeded resources from the reads that follow).

Where SPEC.md or the real CLI contradicts the document, the document is amended here, each
amendment with its reason (`AMENDMENTS`); nothing else is relaxed."""

from __future__ import annotations

import copy
import hashlib
import json
import pathlib
from collections.abc import Callable
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.conftest import ALICE_KEY, RunningServer
from tests.e2e.cli import Repo

DOCUMENT = pathlib.Path(__file__).resolve().parent.parent / "data" / "kosli-openapi-2025.json"
FP = hashlib.sha256(b"published schema").hexdigest()
PARAMETERS = {"org": "acme", "flow_name": "f", "trail_name": "t", "env_name": "prod",
              "fingerprint": FP, "attestation_name": "g", "policy_name": "p",
              "custom_attestation_type_name": "coverage", "name": "ci-bot"}
AUTH = {"Authorization": f"Bearer {ALICE_KEY}"}
EXAMPLES = 6
Amendment = tuple[str, Callable[[dict[str, Any]], None], str]


def _at(document: dict[str, Any], pointer: str) -> dict[str, Any]:
    node: Any = document
    for part in pointer.strip("/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _replace(name: str, schema: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def change(node: dict[str, Any]) -> None:
        node["properties"][name] = schema
    return change


def _git_commit(node: dict[str, Any]) -> None:
    node["properties"]["git_commit"] = {"type": ["string", "null"]}


def _any_json(node: dict[str, Any]) -> None:
    node.clear()


SCHEMAS = "/components/schemas"
CLI = "the real CLI contradicts the document: "
SPEC = "SPEC.md contradicts the document: "
# (JSON pointer into the document, the change, why).
AMENDMENTS: list[Amendment] = [
    (f"{SCHEMAS}/ArtifactListItemResponse", _git_commit,
     CLI + "`kosli list artifacts` prints git_commit[:7], so an artifact reported without a "
     "commit answers a string ('unknown'), never null"),
    (f"{SCHEMAS}/ArtifactResponse", _git_commit,
     CLI + "`kosli get artifact` reads git_commit as a required string"),
    (f"{SCHEMAS}/AssertArtifactResponse", _replace("flows", {"type": "array"}),
     CLI + "`kosli assert artifact` reads flows as a list of {flow, trail, compliance_status}"),
    ("/paths/~1approvals~1{org}~1{flow_name}/post/responses/201/content/application~1json",
     _any_json, SPEC + "creating an approval answers a JSON string"),
]


def amended() -> dict[str, Any]:
    document = copy.deepcopy(json.loads(DOCUMENT.read_text()))
    for pointer, change, _reason in AMENDMENTS:
        change(_at(document, pointer))
    return document


def seed(live: RunningServer, tmp_path: pathlib.Path) -> None:
    """The resources the path parameters name, made with the real CLI."""
    repo = Repo(tmp_path / "repo")
    sha = repo.commit("Build")
    artifact = tmp_path / "app.bin"
    artifact.write_bytes(b"published schema")
    policy = tmp_path / "p.yml"
    policy.write_text("_schema: https://kosli.com/schemas/policy/environment/v1\n"
                      "artifacts:\n  provenance:\n    required: true\n")
    schema = tmp_path / "coverage.json"
    schema.write_text('{"type": "object", "properties": {"line": {"type": "number"}}}')
    for command in (
            ("create", "flow", "f", "--use-empty-template"),
            ("begin", "trail", "t", "--flow", "f"),
            ("attest", "artifact", str(artifact), "--artifact-type", "file", "--flow", "f",
             "--trail", "t", "--name", "app", "--commit", sha, "--repo-root", str(repo.root),
             "--build-url", "https://ci.example/1",
             "--commit-url", f"https://github.com/acme/payments/commit/{sha}"),
            ("attest", "generic", "--name", "g", "--flow", "f", "--trail", "t"),
            ("create", "environment", "prod", "--type", "server"),
            ("snapshot", "server", "prod", "--paths", str(artifact)),
            ("create", "policy", "p", str(policy)),
            ("attach-policy", "p", "--environment", "prod"),
            ("create", "attestation-type", "coverage", "--schema", str(schema)),
            ("create", "service-account", "ci-bot", "--privilege", "member")):
        live.kosli(*command)


@pytest.fixture(scope="module")
def published(live: RunningServer, tmp_path_factory: pytest.TempPathFactory):
    seed(live, tmp_path_factory.mktemp("published"))
    schema = schemathesis.openapi.from_dict(amended())
    schema.base_url = f"{live.http_url}/api/v2"
    return schema


BOUNDED = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                   suppress_health_check=list(HealthCheck),
                   phases=[Phase.explicit, Phase.generate])


def _caller(operation: Any, base_url: str, session: requests.Session,
            calls: list[str]) -> Callable[[], None]:
    """A bounded property test of one operation: generated calls, answers checked."""

    @given(case=operation.as_strategy())
    @BOUNDED
    def call(case: Any) -> None:
        for name in case.path_parameters or {}:
            if name in PARAMETERS:
                case.path_parameters[name] = PARAMETERS[name]
        case.call_and_validate(base_url=base_url, session=session, timeout=30, headers=AUTH,
                               checks=[not_a_server_error, response_schema_conformance])
        calls.append(operation.label)

    return call


def violations(schema: Any, reads: bool) -> list[str]:
    """Each operation (GET ones, or the others) called with generated input: what failed."""
    found: list[str] = []
    calls: list[str] = []
    with requests.Session() as session:
        for result in schema.get_all_operations():
            operation = result.ok()
            if (operation.method.upper() == "GET") != reads:
                continue
            try:
                _caller(operation, schema.base_url, session, calls)()
            except (Exception, BaseExceptionGroup) as exc:  # noqa: BLE001 - all are reported
                parts = exc.exceptions if isinstance(exc, BaseExceptionGroup) else [exc]
                found.append(f"{operation.label}: " + "\n".join(str(p)[:1500] for p in parts))
    assert len(set(calls)) > 10, "too few operations were called"
    return found


def test_reads_answer_as_published(published: Any) -> None:
    problems = violations(published, reads=True)
    assert not problems, "\n\n".join(problems)


def test_writes_answer_as_published(published: Any) -> None:
    problems = violations(published, reads=False)
    assert not problems, "\n\n".join(problems)


def test_every_amendment_names_a_place_in_the_document_and_a_reason():
    document = json.loads(DOCUMENT.read_text())
    for pointer, _change, reason in AMENDMENTS:
        assert _at(document, pointer) is not None and len(reason) > 20
