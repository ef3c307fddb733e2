"""Attestations and artifacts refusing bad input cleanly: the contract's error body with a 4xx
status, and nothing written. The last test reports many attestations to one trail at once
against a real server process."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import fastjsonschema
import jsonschema
import pytest
import requests

from evidence_grpc.domain.kernel import contract
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import Attestation, Blob
from tests.conftest import BOB_KEY, RunningServer, bearer

H = bearer()
MIB = 1024 * 1024
COMMIT = "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"
TEMPLATE = "version: 1\ntrail:\n  attestations:\n    - name: pr\n      type: pull_request\n"


def multipart(client, method: str, path: str, data: Any, attachment: tuple[str, bytes] | None = None,
              key: str | None = None, raw_data_json: str | None = None):
    form: dict[str, Any] = {"data_json": raw_data_json if raw_data_json is not None
                            else json.dumps(data)}
    if attachment is not None:
        form["attachment_file"] = (io.BytesIO(attachment[1]), attachment[0])
    return client.open(path, method=method, headers=bearer(key) if key else H,
                       content_type="multipart/form-data", data=form)


def attest(client, kind: str, data: Any, flow: str = "payments", trail: str = "release-1",
           **kwargs: Any):
    return multipart(client, "POST", f"/api/v2/attestations/acme/{flow}/trail/{trail}/{kind}",
                     data, **kwargs)


def generic(name: str = "check", **extra: Any) -> dict[str, Any]:
    return {"attestation_name": name, "is_compliant": True, "user_data": {}, **extra}


def nothing_written(client) -> None:
    """No attestation, no file and no attestation event on the trail."""
    with storage.database.connection_context():
        assert Attestation.select().count() == 0
        assert Blob.select().count() == 0
    trail = client.get("/api/v2/trails/acme/payments/release-1", headers=H).json
    assert [e["type"] for e in trail["events"]] == ["trail_reported"]


def assert_error(answer, status: int) -> dict[str, Any]:
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True))
    body = answer.json
    assert isinstance(body["message"], str) and body["message"]
    return body


@pytest.fixture
def trail(client):
    created = client.put(
        "/api/v2/flows/acme/template_file", headers=H, content_type="multipart/form-data",
        data={"data_json": json.dumps({"name": "payments", "description": ""}),
              "template_file": (io.BytesIO(TEMPLATE.encode()), "template.yml")})
    assert created.status_code == 201
    begun = multipart(client, "PUT", "/api/v2/trails/acme/payments", {"name": "release-1"})
    assert begun.status_code == 201
    return client


# ---- attachments ------------------------------------------------------------------------------

def test_attachments_are_limited_to_10_mib_and_a_larger_one_stores_nothing(trail):
    answer = attest(trail, "generic", generic("big"), attachment=("huge.bin", b"x" * (10 * MIB + 1)))
    body = assert_error(answer, 413)
    assert "larger than" in body["message"]
    nothing_written(trail)
    assert trail.get("/api/v2/attestations/acme/payments/trail/release-1/big",
                     headers=H).json == []

    content = b"y" * (10 * MIB)
    assert attest(trail, "generic", generic("big"), attachment=("big.bin", content)).status_code == 201
    [got] = trail.get("/api/v2/attestations/acme/payments/trail/release-1/big", headers=H).json
    assert got["evidence"]["size"] == 10 * MIB
    assert got["evidence"]["sha256"] == hashlib.sha256(content).hexdigest()


def test_a_path_in_the_attachment_name_is_reduced_to_its_base_name(trail):
    """A client-chosen path never reaches storage; a name that is only a path is refused."""
    for n, filename in enumerate(["../../etc/passwd", "/etc/passwd", "..\\..\\etc\\passwd",
                                  "a/b/../../passwd"]):
        name = f"check-{n}"
        answer = attest(trail, "generic", generic(name), attachment=(filename, b"root:x:0:0\n"))
        assert answer.status_code == 201, (filename, answer.json)
        [got] = trail.get(f"/api/v2/attestations/acme/payments/trail/release-1/{name}",
                          headers=H).json
        # Werkzeug's test client leaves backslashes unescaped in the quoted file name and
        # Werkzeug >= 3.1.9 reads them as escapes ("....etcpasswd"); no separator survives.
        stored = got["evidence"]["filename"]
        assert stored == "passwd" or ("\\" in filename and stored.endswith("passwd")), filename
        assert "/" not in stored and "\\" not in stored
        download = trail.get(urlsplit(got["evidence"]["url"]).path, headers=H)
        assert download.status_code == 200
        assert download.data == b"root:x:0:0\n"
        assert download.headers["Content-Disposition"] == f"attachment; filename={stored}"

    for nameless in ("..", "../", "/"):
        body = assert_error(attest(trail, "generic", generic("nameless"),
                                   attachment=(nameless, b"data")), 400)
        assert "attachment_file" in body["errors"], nameless
    assert trail.get("/api/v2/attestations/acme/payments/trail/release-1/nameless",
                     headers=H).json == []


# ---- payloads ---------------------------------------------------------------------------------

def report_artifact(client, **fields: Any):
    return client.post("/api/v2/artifacts/acme/payments", headers=H, json={
        "fingerprint": "a" * 64, "filename": "app", "build_url": "b", "commit_url": "c",
        "trail_name": "release-1", **fields})


def test_wrong_fingerprint_and_commit_formats_are_refused(trail):
    for fingerprint in ["ABCDEF" + "0" * 58, "a" * 63, "a" * 65, "sha256:" + "a" * 57, "g" * 64]:
        body = assert_error(attest(trail, "generic", generic(artifact_fingerprint=fingerprint)),
                            400)
        assert body["message"] == "Input payload validation failed"
        assert "artifact_fingerprint" in body["errors"], fingerprint
        assert "fingerprint" in assert_error(report_artifact(trail, fingerprint=fingerprint),
                                             400)["errors"]
    for commit in ["HEAD", "1a2b3c4", COMMIT.upper()]:
        assert "git_commit" in assert_error(report_artifact(trail, git_commit=commit),
                                            400)["errors"], commit
    nothing_written(trail)
    assert trail.get("/api/v2/artifacts/acme?flow_name=payments", headers=H).json == []


def test_unknown_kinds_are_not_found_and_a_failed_attestation_begins_no_flow_or_trail(trail):
    unknown_kind = assert_error(attest(trail, "bogus", generic(), flow="new-flow"), 404)
    assert "bogus" in unknown_kind["message"]
    # attesting about an artifact a new trail cannot hold fails, and leaves no flow or trail
    about = generic(artifact_fingerprint="a" * 64)
    assert_error(attest(trail, "generic", about, flow="new-flow", trail="t1"), 404)
    assert_error(attest(trail, "generic", about, trail="nope"), 404)
    assert_error(attest(trail, "generic", generic(), flow="bad name!", trail="t1"), 400)
    assert trail.get("/api/v2/flows/acme/new-flow", headers=H).status_code == 404
    assert trail.get("/api/v2/trails/acme/payments/nope", headers=H).status_code == 404
    nothing_written(trail)


def test_attesting_to_a_flow_and_trail_not_set_up_creates_them_without_a_template(trail):
    """The hosted docs, "Attesting without a template": compliance then depends only on the
    attestations made, never on a missing one."""
    assert attest(trail, "generic", generic(), flow="adhoc", trail="t1").status_code == 201
    made = trail.get("/api/v2/trails/acme/adhoc/t1", headers=H).json
    assert made["compliance_status"]["status"] == "COMPLIANT"
    assert [a["attestation_name"] for a in made["compliance_status"]["attestations_statuses"]] \
        == ["check"]
    flow = trail.get("/api/v2/flows/acme/adhoc", headers=H).json
    assert flow["name"] == "adhoc"
    assert attest(trail, "generic", generic("other", is_compliant=False), flow="adhoc",
                  trail="t2").status_code == 201
    assert trail.get("/api/v2/trails/acme/adhoc/t2", headers=H).json[
        "compliance_status"]["status"] == "NON-COMPLIANT"
    # an existing flow gets a new trail the same way
    assert attest(trail, "generic", generic(), trail="release-2").status_code == 201
    assert trail.get("/api/v2/trails/acme/payments/release-2", headers=H).status_code == 200


def test_an_unknown_field_is_refused_where_the_schema_is_closed(trail):
    pull_request = {
        "attestation_name": "pr", "git_provider": "github", "user_data": {},
        "base_ref": "main",  # only valid inside a pull request, not at the top level
        "pull_requests": [{"url": "https://github.com/acme/payments/pull/1", "state": "MERGED",
                           "merge_commit": COMMIT, "approvers": []}]}
    body = assert_error(attest(trail, "pull_request", pull_request), 400)
    assert body["message"] == "Input payload validation failed"
    assert "base_ref" in json.dumps(body["errors"])
    nothing_written(trail)

    del pull_request["base_ref"]
    assert attest(trail, "pull_request", pull_request).status_code == 201
    override = trail.post("/api/v2/attestations/acme/payments/trail/release-1/override",
                          headers=H, json={"attestation_name": "pr", "reason": "r",
                                           "new_compliance_status": False,
                                           "original_attestation_type": "pull_request",
                                           "approved_by": "me"})
    assert "approved_by" in json.dumps(assert_error(override, 400)["errors"])
    assert len(trail.get("/api/v2/attestations/acme/payments/trail/release-1/pr",
                         headers=H).json) == 1


def test_malformed_payloads_are_refused_with_the_field_named(trail):
    for name in ["unit tests", "", "tests/unit", "tests?x", "tests.unit"]:
        body = assert_error(attest(trail, "generic", generic(name)), 400)
        assert "attestation_name" in body["errors"], name
    for raw in ["{not json", "[1, 2]", '"text"', '{"attestation_name": ']:
        body = assert_error(attest(trail, "generic", None, raw_data_json=raw), 400)
        assert "data_json" in body["errors"], raw
    missing = assert_error(attest(trail, "generic", {"attestation_name": "x"}), 400)
    assert "is_compliant" in json.dumps(missing["errors"])
    mistyped = assert_error(attest(trail, "junit", {"attestation_name": "x", "junit_results": [
        {"name": "s", "failures": "two", "errors": 0, "skipped": 0, "total": 1,
         "duration": 1}]}), 400)
    assert "junit_results.0.failures" in mistyped["errors"]
    nothing_written(trail)


def test_another_organizations_key_is_forbidden_and_writes_nothing(trail):
    body = assert_error(attest(trail, "generic", generic(), key=BOB_KEY,
                               attachment=("report.txt", b"secret")), 403)
    assert "errors" not in body
    denied = trail.post("/api/v2/artifacts/acme/payments", headers=bearer(BOB_KEY), json={
        "fingerprint": "a" * 64, "filename": "app", "build_url": "b", "commit_url": "c",
        "trail_name": "release-1"})
    assert_error(denied, 403)
    assert_error(trail.get("/api/v2/attestations/acme", headers=bearer(BOB_KEY)), 403)
    assert_error(trail.patch("/api/v2/tags/acme/flow/payments", headers=bearer(BOB_KEY),
                             json={"set_tags": {"owner": "bob"}, "remove_tags": []}), 403)
    nothing_written(trail)
    assert trail.get("/api/v2/artifacts/acme", headers=H).json == []
    assert trail.get("/api/v2/flows/acme/payments", headers=H).json["tags"] == {}
    assert_error(attest(trail, "generic", generic(), key="not-a-key"), 401)


# ---- concurrency against a real server --------------------------------------------------------

CLIENTS = 24


def test_concurrent_attestations_to_one_trail_all_land(server: RunningServer):
    api = f"{server.http_url}/api/v2"
    with requests.Session() as session:
        session.headers.update(H)
        assert session.put(f"{api}/flows/acme/template_file", files={
            "data_json": (None, json.dumps({"name": "busy", "description": ""})),
            "template_file": ("template.yml", TEMPLATE)}, timeout=60).status_code == 201
        assert session.put(f"{api}/trails/acme/busy", files={
            "data_json": (None, json.dumps({"name": "shared"}))}, timeout=60).status_code == 201

    def report(n: int) -> requests.Response:
        kind, data = ("junit", {"attestation_name": f"tests-{n:02d}", "user_data": {},
                                "junit_results": [{"name": "s", "failures": n % 2, "errors": 0,
                                                   "skipped": 0, "total": 3, "duration": 0.5}]}) \
            if n % 3 == 0 else ("generic", generic(f"check-{n:02d}", is_compliant=n % 2 == 0))
        with requests.Session() as session:
            return session.post(
                f"{api}/attestations/acme/busy/trail/shared/{kind}", headers=H, timeout=60,
                files={"data_json": (None, json.dumps(data)),
                       "attachment_file": (f"evidence-{n}.txt", f"evidence {n % 4}".encode())})

    with ThreadPoolExecutor(max_workers=CLIENTS) as pool:
        answers = list(pool.map(report, range(CLIENTS)))

    assert [a.status_code for a in answers] == [201] * CLIENTS, \
        [(a.status_code, a.text) for a in answers if a.status_code != 201]

    with requests.Session() as session:
        session.headers.update(H)
        listed = session.get(f"{api}/attestations/acme?flow=busy&per_page=100", timeout=60).json()
        names = sorted(a["attestation_name"] for a in listed["data"])
        expected = sorted(f"tests-{n:02d}" if n % 3 == 0 else f"check-{n:02d}"
                          for n in range(CLIENTS))
        assert names == expected
        assert listed["_links"]["next"] is None
        for name in expected:
            got = session.get(f"{api}/attestations/acme/busy/trail/shared/{name}", timeout=60)
            assert got.status_code == 200, got.text
            [attestation] = got.json()
            n = int(name[-2:])
            assert attestation["evidence"]["url"].startswith(server.http_url)
            download = session.get(attestation["evidence"]["url"], timeout=60)
            assert download.content == f"evidence {n % 4}".encode()

        trail = session.get(f"{api}/trails/acme/busy/shared", timeout=60).json()
        kinds = Counter(e["type"] for e in trail["events"])
        assert kinds == {"trail_reported": 1, "trail_attestation_reported": CLIENTS}
        assert trail["compliance_state"] == "NON-COMPLIANT"
        assert len(trail["compliance_status"]["attestations_statuses"]) == CLIENTS + 1


HOSTILE_VALUES = [None, True, False, 0, 1, 1.0, 1.5, -1, 10**30, 1e308, float("nan"), "",
                  "x\n", "a" * 64, "A" * 64, "a" * 64 + "\n", "x\u0000y", [], [1], ["a-b"], {},
                  {"sha1": 1}, {"sha1": COMMIT}, {"x": None}]


VALID_BODIES = {
    "post_pull_request_attestation": {"git_provider": "github", "pull_requests": []},
    "post_snyk_attestation": {"snyk_results": {"results": [], "tool": {"name": "t",
                                                                         "version": "1"}}},
    "post_sonar_attestation": {"sonar_results": {"analysedAt": "t", "revision": "r",
                                                 "project": {"key": "k", "name": "n",
                                                             "url": "u"}}},
    "scanner": {"scanner_results": {"tool": {"name": "t", "version": "1"}, "results": [],
                                    "schema_version": 1}},
}


@pytest.mark.parametrize("operation", contract.CHECKS.keys())
def test_compiled_contract_check_never_passes_what_jsonschema_refuses(operation):
    """The compiled check (the fast path) may only accept what jsonschema, the authority,
    accepts: every declared field of every operation's body, given each hostile value in
    turn, and bodies that are no objects at all. Nor may it fill in defaults."""
    schema = contract._schemas()[operation]
    fields = schema.get("properties", {})
    base = dict(VALID_BODIES.get(operation, {}))  # else the required fields, each with the
    for name in set(schema.get("required", [])) - set(base):  # first value its schema takes
        takes = jsonschema.Draft202012Validator(fields.get(name, {})).is_valid
        base[name] = next(v for v in ["a", "generic", "decision", *HOSTILE_VALUES] if takes(v))
    payloads: list[Any] = [None, [], "text", 1, {}, base]
    for name in [*fields, "undeclared"]:
        for value in HOSTILE_VALUES:
            payloads.append({**base, name: value})
            payloads.append({name: value})
    accepted = 0
    for payload in payloads:
        refused = list(contract.CHECKS.full(operation).iter_errors(payload))
        before = repr(payload)
        try:
            contract.CHECKS.fast(operation)(payload)
        except fastjsonschema.JsonSchemaException:
            continue
        finally:
            assert repr(payload) == before
        assert not refused, (payload, [e.message for e in refused])
        accepted += 1
    assert accepted > 0  # the check let some through, so the comparison was made
