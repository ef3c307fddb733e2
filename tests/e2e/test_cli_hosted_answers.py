"""What the official kosli CLI prints where the hosted service answers an empty list, an error or
a particular shape: attestations asked for by a name nothing was reported under, overrides of
an attestation the template expects before it is reported, a diff of an environment without
snapshots, the URL of an artifact and its history, a refused template at each door, and an
organization refused to a key; and what the other official client, the Terraform provider, sends
and reads (its calls replayed from tests/e2e/terraform_calls.py)."""

from __future__ import annotations

import gzip
import hashlib
import http.client
import json
import pathlib
import re
import secrets
import uuid
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import ALICE_KEY, RunningServer
from tests.e2e.cli import Repo, failure, unique, write
from tests.e2e.terraform_calls import CALLS, Call, go_json

pytestmark = pytest.mark.e2e

FINGERPRINT = "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9"
# A trail-level generic `bar`, and a generic `foo` about the artifact `cli`.
TEMPLATE = ("version: 1\ntrail:\n  attestations:\n  - name: bar\n    type: generic\n"
            "  artifacts:\n  - name: cli\n    attestations:\n    - name: foo\n      type: generic\n")
ARTIFACT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{8}")


def _trail_with_artifact(live: RunningServer, tmp_path: pathlib.Path) -> tuple[str, list[str]]:
    """A flow of TEMPLATE with trail `t1` and the artifact `cli` (FINGERPRINT) reported to it;
    (the flow, the --flow/--trail arguments)."""
    flow = unique("hosted")
    live.kosli("create", "flow", flow, "--template-file", str(write(tmp_path / "t.yml", TEMPLATE)))
    live.kosli("begin", "trail", "t1", "--flow", flow)
    repo = Repo(tmp_path / "repo")
    live.kosli("attest", "artifact", "file1", "--fingerprint", FINGERPRINT, "--flow", flow,
               "--trail", "t1", "--name", "cli", "--commit", repo.commit("build"),
               "--repo-root", str(repo.root), "--build-url", "https://ci.example/1",
               "--commit-url", "https://git.example/c")
    return flow, ["--flow", flow, "--trail", "t1"]


def test_attestations_of_a_name_never_reported_are_none_not_an_error(
        live: RunningServer, tmp_path: pathlib.Path):
    flow, where = _trail_with_artifact(live, tmp_path)
    assert live.kosli("get", "attestation", "never-reported", *where).stdout == \
        "No attestations found.\n"
    assert live.kosli_json("get", "attestation", "never-reported", *where) == []
    assert live.kosli_json("get", "attestation", "never-reported", "--flow", flow,
                           "--fingerprint", FINGERPRINT) == []
    # What the question is about must be there: an unknown trail is an error.
    unknown = live.kosli("get", "attestation", "never-reported", "--flow", flow,
                         "--trail", "no-such-trail", check=False)
    assert failure(unknown).endswith(f"Trail with name 'no-such-trail' does not exist for "
                                     f"Organization 'acme' and Flow '{flow}'\n")


def test_an_override_waives_an_attestation_the_template_expects_before_it_is_reported(
        live: RunningServer, tmp_path: pathlib.Path):
    flow, where = _trail_with_artifact(live, tmp_path)
    said = live.kosli("attest", "override", "--name", "bar", "--reason", "manual review",
                      "--original-attestation-type", "generic", "--new-compliance-status=true",
                      *where)
    assert said.stdout == "attestation 'bar' has been overridden in trail: t1\n"
    about = live.kosli("attest", "override", "--fingerprint", FINGERPRINT, "--name", "foo",
                       "--reason", "approved out of band", "--original-attestation-type",
                       "generic", "--new-compliance-status=true", *where)
    assert about.stdout == "attestation 'foo' has been overridden in trail: t1\n"
    status = live.kosli_json("get", "trail", "t1", "--flow", flow)["compliance_status"]
    [bar] = status["attestations_statuses"]
    assert (bar["attestation_name"], bar["is_compliant"]) == ("bar", True)
    [foo] = status["artifacts_statuses"]["cli"]["attestations_statuses"]
    assert (foo["attestation_name"], foo["is_compliant"]) == ("foo", True)
    # Overridden again, now reported: the newest verdict counts.
    live.kosli("attest", "override", "--name", "bar", "--reason", "failed audit",
               "--original-attestation-type", "generic", "--new-compliance-status=false", *where)
    [bar] = live.kosli_json("get", "trail", "t1", "--flow", flow)[
        "compliance_status"]["attestations_statuses"]
    assert bar["is_compliant"] is False
    # Nothing to override: neither reported nor expected, or expected of another type.
    for name, kind in (("no-such", "generic"), ("bar", "junit")):
        refused = live.kosli("attest", "override", "--name", name, "--reason", "r",
                             "--original-attestation-type", kind,
                             "--new-compliance-status=true", *where, check=False)
        assert failure(refused).endswith(
            f"No {kind} attestation '{name}' to override in trail 't1'\n"), refused.stderr


def test_diffing_an_environment_without_snapshots_is_an_error(live: RunningServer,
                                                             tmp_path: pathlib.Path):
    empty, other = unique("diff-empty"), unique("diff-other")
    for env in (empty, other):
        live.kosli("create", "environment", env, "--type", "server")
    said = (f"Org: 'acme'. Snapshot '{empty}' resolves to '{empty}#0'. len(snapshots) == 0. "
            "Indexes are 1-based\n")
    assert failure(live.kosli("diff", "snapshots", empty, empty, check=False)).endswith(said)
    live.kosli("snapshot", "server", other, "--paths", str(write(tmp_path / "app", "app")))
    assert failure(live.kosli("diff", "snapshots", other, empty, check=False)).endswith(said)
    same = live.kosli_json("diff", "snapshots", other, other)
    assert [a["name"] for a in same["not-changed"]["artifacts"]] == [str(tmp_path / "app")]


def test_an_artifact_url_names_the_report_it_shows(live: RunningServer, tmp_path: pathlib.Path):
    flow, _ = _trail_with_artifact(live, tmp_path)
    shown = live.kosli_json("get", "artifact", f"{flow}@{FINGERPRINT}")
    assert ARTIFACT_ID.fullmatch(shown["id"]), shown["id"]
    url = f"{live.http_url}/acme/flows/{flow}/artifacts/{FINGERPRINT}?artifact_id={shown['id']}"
    assert shown["html_url"] == url
    table = live.kosli("get", "artifact", f"{flow}@{FINGERPRINT}").stdout
    assert f"Artifact URL:      {url}\n" in table
    trail = live.kosli_json("get", "trail", "t1", "--flow", flow)
    assert trail["compliance_status"]["artifacts_statuses"]["cli"]["artifact_id"] == shown["id"]
    asserted = live.kosli("assert", "artifact", "--fingerprint", FINGERPRINT, "--flow", flow,
                          check=False)
    assert f"See more details at {url}\n" in asserted.stdout + asserted.stderr


def test_an_artifacts_history_reads_as_the_hosted_service_words_it(live: RunningServer,
                                                                   tmp_path: pathlib.Path):
    """get-artifact.txt of the CLI's own tests: an artifact reported under the template name
    `cli` has one line, "cli reported" (none for its commit); what is reported about it and
    where it runs follow, each at its time."""
    flow, where = _trail_with_artifact(live, tmp_path)

    def history(fingerprint: str) -> list[str]:
        table = live.kosli("get", "artifact", f"{flow}@{fingerprint}").stdout
        return [re.split(r"\s{2,}", line.strip())[0]
                for line in table.split("History:\n", 1)[1].splitlines()]

    assert history(FINGERPRINT) == ["cli reported"]
    built = write(tmp_path / "app.bin", f"{flow} app")
    fingerprint = hashlib.sha256(built.read_bytes()).hexdigest()
    live.kosli("attest", "artifact", str(built), "--fingerprint", fingerprint, "--name", "cli",
               "--build-url", "https://ci.example/2", "--commit-url", "https://git.example/c",
               "--commit", "HEAD", "--repo-root", str(tmp_path / "repo"), *where)
    live.kosli("attest", "generic", "--fingerprint", fingerprint, "--name", "foo", *where)
    env = unique("hosted-env")
    live.kosli("create", "environment", env, "--type", "server")
    live.kosli("snapshot", "server", env, "--paths", str(built))
    live.kosli("snapshot", "server", env, "--paths", str(write(tmp_path / "other.bin", "x")))
    assert history(fingerprint) == ["cli reported", "foo reported",
                                    f"Started running in {env}#1 environment",
                                    f"No longer running in {env}#2 environment"]


def test_an_organization_refused_to_a_key_reads_as_the_hosted_service_words_it(
        live: RunningServer):
    """updateDefaultOrg_test.go: an organization the key's user is no member of, or one that
    does not exist, is "Access denied to <the request's path>" over HTTP."""
    for org in ("other", unique("no-such-org")):
        refused = live.kosli("update", "default-org", org, check=False)
        assert failure(refused).endswith(f"] Access denied to /api/v2/user/{org}\n")
        refused = live.kosli("list", "flows", org=org, check=False)
        assert failure(refused).endswith(f"] Access denied to /api/v2/flows/{org}\n")


def test_a_refused_template_reads_as_each_door_words_it(live: RunningServer,
                                                       tmp_path: pathlib.Path):
    bad = write(tmp_path / "bad.yml", "version: 1\ntrail:\n  attestations:\n"
                                      "  - name: foo\n    type: not-supported\n")
    flow = unique("tmpl")
    refused = failure(live.kosli("create", "flow", flow, "--template-file", str(bad), check=False))
    assert re.match(r"Error: (\[kosli [^\]]*\] )?Input payload validation failed: "
                    r"map\[template_file:trail.attestations.0.type: 'not-supported' is not one of",
                    refused), refused
    live.kosli("create", "flow", flow, "--use-empty-template")
    begun = failure(live.kosli("begin", "trail", "t1", "--flow", flow, "--template-file",
                               str(bad), check=False))
    # A model's account: how many ways it fails (each branch of the type's union), then each.
    assert re.search(r"^Error: (\[kosli [^\]]*\] )?4 validation errors for Template\n"
                     r"trail -> attestations -> 0 -> type\n  'not-supported' is not one of ",
                     begun, re.MULTILINE), begun
    assert live.kosli("get", "trail", "t1", "--flow", flow, check=False).returncode == 1


# ---- the Terraform provider's calls ----------------------------------------------------------

def _filled(value: Any, context: dict[str, Any]) -> Any:
    """`value` with `{name}`s of `context` filled in (a string that is one `{name}` alone takes
    the captured value as it is, a number stays a number)."""
    if isinstance(value, str):
        bare = re.fullmatch(r"\{(\w+)\}", value)
        return context[bare.group(1)] if bare else value.format(**context)
    if isinstance(value, dict):
        return {_filled(k, context): _filled(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v, context) for v in value]
    return value


def _multipart(fields: dict[str, Any], files: dict[str, tuple[str, str]]) -> tuple[bytes, str]:
    """The body and Content-Type Go's mime/multipart Writer makes of WriteField parts (JSON,
    as json.Marshal writes it) and CreateFormFile parts."""
    boundary = secrets.token_hex(30)
    parts = [f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + go_json(value)
             for name, value in fields.items()]
    parts += [(f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
               f"Content-Type: application/octet-stream\r\n\r\n{content}").encode()
              for name, (filename, content) in files.items()]
    body = b"".join(f"--{boundary}\r\n".encode() + part + b"\r\n" for part in parts)
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _send(live: RunningServer, call: Call, context: dict[str, Any]) -> tuple[int, bytes]:
    """The call as the provider's client.go doRequest (or its multipart twins) sends it: the
    headers it sets, and Accept-Encoding: gzip as Go's transport adds and undoes."""
    headers = {"Authorization": f"Bearer {ALICE_KEY}", "User-Agent": "terraform-provider-kosli/dev",
               "Accept-Encoding": "gzip"}
    body = None
    if call.fields or call.files:
        body, headers["Content-Type"] = _multipart(_filled(call.fields, context),
                                                   _filled(call.files, context))
    elif call.json is not None:
        body, headers["Content-Type"] = go_json(_filled(call.json, context)), "application/json"
    url = urlsplit(live.http_url)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.request(call.method, "/api/v2" + _filled(call.path, context), body, headers)
        answer = connection.getresponse()
        data = answer.read()
        if answer.getheader("Content-Encoding") == "gzip":
            data = gzip.decompress(data)
        return answer.status, data
    finally:
        connection.close()


GO_TYPES: dict[str, tuple[type, ...]] = {"str": (str,), "int": (int,), "float": (int, float),
                                         "bool": (bool,), "{str}": (dict,)}


def _decode_errors(value: Any, shape: Any, where: str = "") -> list[str]:
    """Where json.Unmarshal of `value` into the Go type `shape` fails (null is a zero value)."""
    if value is None or shape in ("any", "raw"):
        return []
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not an array"]
        return [e for i, item in enumerate(value) for e in _decode_errors(item, shape[0],
                                                                          f"{where}.{i}")]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not an object"]
        errors = []
        for key, field_shape in shape.items():
            name = key.rstrip("?")
            if name not in value:
                errors += [] if key.endswith("?") else [f"{where}.{name}: never answered"]
            else:
                errors += _decode_errors(value[name], field_shape, f"{where}.{name}")
        return errors
    wrong = not isinstance(value, GO_TYPES[shape]) or (isinstance(value, bool) and shape != "bool")
    wrong = wrong or (shape == "int" and isinstance(value, float))
    if shape == "{str}" and not wrong:
        wrong = not all(isinstance(v, str) for v in value.values())
    return [f"{where}: {value!r} does not decode into Go {shape}"] if wrong else []


def _at(value: Any, path: str) -> Any:
    for step in path.split("."):
        if step == "#max":  # resource_policy.go latestPolicyVersion: the highest version
            value = max(value, key=lambda v: v["version"])
        else:
            value = value[int(step)] if isinstance(value, list) else value[step]
    return value


def test_the_terraform_provider_calls_behave(live: RunningServer):
    """Every call the Terraform provider's client makes in the lifecycle of one resource of each
    kind (tests/e2e/terraform_calls.py), replayed as its Go code sends it and judged as its Go
    code decodes and uses the answer."""
    context: dict[str, Any] = {"org": "acme", "s": uuid.uuid4().hex[:8]}
    for call in CALLS:
        status, data = _send(live, call, context)
        said = f"{call.source}: {call.method} {_filled(call.path, context)} -> {status} {data[:300]!r}"
        if call.missing:
            assert status == 404, said
            continue
        assert (status == call.status) if call.status else 200 <= status < 300, said
        if call.decodes is None:
            continue
        answer = json.loads(data)
        assert _decode_errors(answer, call.decodes) == [], said
        if call.pick is not None:
            [answer] = [item for item in answer if item["name"] == _filled(call.pick, context)]
        for path, expected in _filled(call.reads, context).items():
            assert _at(answer, path) == expected, f"{said}\n{path}"
        context.update({name: _at(answer, path) for name, path in call.capture.items()})
