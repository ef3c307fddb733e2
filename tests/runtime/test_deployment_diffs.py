"""A snapshot artifact's `deployment_diff`: the version of the same flow and template name that
ran in the environment before it, with the repository's compare page between their commits."""

from __future__ import annotations

import hashlib

from tests.helpers import COMMIT, OTHER_COMMIT, H, begin_trail, create_flow
from tests.helpers import report_running as report

V1 = hashlib.sha256(b"backend v1").hexdigest()
V2 = hashlib.sha256(b"backend v2").hexdigest()
LOOSE = hashlib.sha256(b"reported without a template name").hexdigest()
TEMPLATE = "version: 1\ntrail:\n  artifacts:\n    - name: backend\n"


def _report_artifact(client, fingerprint: str, trail: str, commit: str, commit_url: str,
                     template: str | None = "backend") -> None:
    begin_trail(client, "payments", trail)
    answer = client.post("/api/v2/artifacts/acme/payments", headers=H, json={
        "fingerprint": fingerprint, "filename": f"backend-{trail}.tgz", "git_commit": commit,
        "build_url": "https://ci.example/build/1",
        "commit_url": commit_url, "trail_name": trail, "template_reference_name": template,
        "git_commit_info": {"sha1": commit, "message": "m", "author": "A <a@x>",
                            "branch": "main", "timestamp": 1700000000}})
    assert answer.status_code == 201, answer.get_json()


def _snapshot(client, expression: str) -> dict[str, dict]:
    answer = client.get(f"/api/v2/snapshots/acme/prod/{expression}", headers=H)
    assert answer.status_code == 200, answer.get_json()
    return {a["fingerprint"]: a for a in answer.get_json()["artifacts"]}


def test_each_version_names_the_one_it_replaced(client):
    create_flow(client, "payments", TEMPLATE)
    _report_artifact(client, V1, "v1", OTHER_COMMIT,
                     f"https://github.com/acme/payments/commit/{OTHER_COMMIT}")
    _report_artifact(client, V2, "v2", COMMIT, f"https://github.com/acme/payments/commit/{COMMIT}")
    _report_artifact(client, LOOSE, "loose", COMMIT, "", template=None)
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": "prod", "type": "server", "description": ""})
    report(client, "prod", ("backend", V1), ("loose", LOOSE))
    report(client, "prod", ("backend", V2), ("loose", LOOSE))  # v2 replaces v1

    first = _snapshot(client, "1")
    assert first[V1]["deployment_diff"] is None  # nothing of its kind ran there before
    second = _snapshot(client, "2")
    diff = second[V2]["deployment_diff"]
    assert diff == {
        "diff_url": f"https://github.com/acme/payments/compare/{OTHER_COMMIT}...{COMMIT}",
        "previous_git_commit": OTHER_COMMIT,
        "previous_fingerprint": V1,
        "previous_artifact_name": "backend-v1.tgz",
        "previous_artifact_compliance_state": diff["previous_artifact_compliance_state"],
        "previous_running": False,
        "previous_git_commit_url": f"https://github.com/acme/payments/commit/{OTHER_COMMIT}",
        "previous_trail_name": "v1",
        "previous_template_reference_name": "backend",
    }
    assert diff["previous_artifact_compliance_state"] in ("COMPLIANT", "NON-COMPLIANT",
                                                          "INCOMPLETE")
    [flow] = second[V2]["flows"]
    assert flow["deployment_diff"] == diff
    assert flow["artifact_compliance_in_flow"] is (flow["compliance_state"] == "COMPLIANT")
    assert second[V1]["annotation"]["type"] == "exited"
    assert second[V1]["deployment_diff"] is None  # v1 started before v2 ever ran
    assert second[LOOSE]["deployment_diff"] is None  # no template name: no kind to follow

    report(client, "prod", ("backend", V2), ("backend", V1), ("loose", LOOSE))  # v1 is back
    third = _snapshot(client, "3")
    assert third[V1]["deployment_diff"]["previous_fingerprint"] == V2
    assert third[V1]["deployment_diff"]["previous_running"] is True
    assert third[V1]["deployment_diff"]["diff_url"] == \
        f"https://github.com/acme/payments/compare/{COMMIT}...{OTHER_COMMIT}"
    assert third[V2]["deployment_diff"]["previous_fingerprint"] == V1  # as when it started


def test_compare_pages_follow_the_commit_urls_form():
    from evidence_grpc.domain.runtime.deployment_diffs import compare_url

    gitlab = compare_url(f"https://gitlab.com/acme/app/-/commit/{COMMIT}", COMMIT, OTHER_COMMIT)
    assert gitlab == f"https://gitlab.com/acme/app/-/compare/{OTHER_COMMIT}...{COMMIT}"
    assert compare_url(f"https://bitbucket.org/acme/app/commits/{COMMIT}", COMMIT,
                       OTHER_COMMIT) is None  # a form we do not know: no guess
    assert compare_url("", COMMIT, OTHER_COMMIT) is None
    assert compare_url(f"https://github.com/a/b/commit/{COMMIT}", COMMIT, None) is None
