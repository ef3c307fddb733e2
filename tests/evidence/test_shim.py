"""The /api/v2 REST contract of flows, trails, organizations and readiness, through the Flask
shim over the in-process servicers: what the kosli CLI sends and what it reads back."""

from __future__ import annotations

import io
import json
import re

import pytest

from evidence_grpc.domain.kernel import limits
from tests.conftest import BOB_KEY, ROOT, basic, bearer

MULTIPART = "multipart/form-data"
CLI_JSON = "application/json; charset=utf-8"  # the CLI's content type, GETs included
LIVE_TRAIL = ROOT.parent / "shared/spec/reference/live-responses/cyber_dojo_trail_creator-ci.json"

TEMPLATE = """\
version: 1
trail:
  attestations:
    - name: pull-request
      type: pull_request
  artifacts:
    - name: backend
      attestations:
        - name: unit-test
          type: junit
"""
COMMIT = {"sha1": "65fd2bfa2478534ea4bc5ccf30f6bfc6aab7550c", "message": "Merge branch 'x'",
          "author": "Jon <jon@example.com>", "branch": "main", "timestamp": 1776252244,
          "url": "https://gitlab.example/creator/-/commit/65fd2bfa"}
REPO = {"name": "creator", "url": "https://gitlab.example/creator", "id": "a4bbd22e-cd62",
        "provider": "gitlab", "namespace_path": ["cyber-dojo"]}

# The shape of the hosted service's `GET /trails/{org}/{flow}/{trail}` answer in LIVE_TRAIL,
# copied here (test_live_reference_shape_copy_is_current keeps it honest) so the suite runs
# where the spec is not checked out.
REFERENCE_SHAPE = {
    "trail": ["name", "description", "git_commit_info", "origin_url", "user_data", "repo_ids",
              "last_modified_at", "created_at", "compliance_status", "template",
              "compliance_state", "is_compliant", "events", "created_by", "flow",
              "external_urls", "html_url"],
    "git_commit_info": ["sha1", "message", "author", "branch", "timestamp", "url"],
    "compliance_status": ["status", "is_compliant", "attestations_statuses",
                          "artifacts_statuses", "evaluated_at", "flow_template_id"],
    "attestation_status": ["attestation_name", "attestation_type", "attestation_id",
                           "overridden_attestation_id", "status", "is_compliant", "unexpected"],
    "artifact_status": ["artifact_fingerprint", "artifact_id", "status", "is_compliant",
                        "attestations_statuses", "unexpected", "evaluated_at", "flow_template_id"],
    "template": ["version", "trail", "content"],
    "flow": ["name", "tags"],
}


def put_json(client, path, body, key_headers=None):
    return client.put(path, data=json.dumps(body), content_type=CLI_JSON,
                      headers=key_headers or bearer())


def put_null(client, path, key_headers=None):
    """A write without payload, as the CLI sends it: the 4 bytes `null`."""
    return client.put(path, data="null", content_type=CLI_JSON, headers=key_headers or bearer())


def get(client, path, key_headers=None):
    return client.get(path, content_type=CLI_JSON, headers=key_headers or bearer())


def put_flow_template(client, name, template=TEMPLATE, description="", filename="template.yml"):
    return client.put("/api/v2/flows/acme/template_file", content_type=MULTIPART, headers=bearer(),
                      data={"data_json": json.dumps({"name": name, "description": description}),
                            "template_file": (io.BytesIO(template.encode()), filename)})


def begin_trail(client, flow, data, template=None):
    parts = {"data_json": json.dumps(data)}
    if template is not None:
        parts["template_file"] = (io.BytesIO(template.encode()), "template.yml")
    return client.put(f"/api/v2/trails/acme/{flow}", data=parts, content_type=MULTIPART,
                      headers=bearer())


def is_number(value):
    return isinstance(value, int | float) and not isinstance(value, bool)


# ---- flows ---------------------------------------------------------------------------------

def test_legacy_flow_put_answers_201_then_200_and_get_flow(client):
    created = put_json(client, "/api/v2/flows/acme",
                       {"name": "legacy", "description": "first", "template": ["build", " test "]})
    assert created.status_code == 201
    assert created.mimetype == "application/json"
    body = created.get_json()
    assert body["template"] == ["build", "test", "artifact"]
    assert (body["name"], body["description"], body["visibility"], body["org"]) == (
        "legacy", "first", "private", "acme")

    updated = put_json(client, "/api/v2/flows/acme", {"name": "legacy", "description": "second",
                                                      "template": ["build", "artifact"],
                                                      "visibility": "public"})
    assert updated.status_code == 200
    assert updated.get_json()["description"] == "second"

    flow = get(client, "/api/v2/flows/acme/legacy")
    assert flow.status_code == 200
    body = flow.get_json()
    assert body == {
        "name": "legacy", "description": "second", "visibility": "public", "org": "acme",
        "template": ["build", "artifact"], "repo_url": None, "tags": {}, "last_deployment_at": None,
        "archived": False, "created_at": body["created_at"], "last_modified_at": body["last_modified_at"],
    }
    assert is_number(body["created_at"])
    assert body["last_modified_at"] >= body["created_at"]


def test_flow_with_template_file_multipart(client):
    created = put_flow_template(client, "modern", description="with yaml")
    assert created.status_code == 201
    assert created.get_json()["template"] == TEMPLATE

    # `kosli create flow --use-empty-template` uploads a file holding `version: 1`.
    updated = put_flow_template(client, "modern", template="version: 1\n", description="emptied")
    assert updated.status_code == 200

    body = get(client, "/api/v2/flows/acme/modern").get_json()
    assert (body["template"], body["description"], body["visibility"]) == (
        "version: 1\n", "emptied", "private")

    # data_json alone (no template_file part) is a flow with the empty template.
    bare = client.put("/api/v2/flows/acme/template_file", content_type=MULTIPART, headers=bearer(),
                      data={"data_json": json.dumps({"name": "bare", "description": "",
                                                     "visibility": "public"})})
    assert bare.status_code == 201
    assert bare.get_json()["template"] == "version: 1\n"
    assert bare.get_json()["visibility"] == "public"


def test_flow_template_is_answered_from_its_version_line(client):
    """The docs' templates open with a `# yaml-language-server:` comment; the flow answers the
    template from `version:` on (what `kosli get flow` renders as YAML), its trails the text
    as stored, and a template that does not open with `version:` as it parses."""
    commented = "# yaml-language-server: $schema=https://docs.kosli.com/schemas/flow-template/v1\n\n"
    assert put_flow_template(client, "documented", template=commented + TEMPLATE).status_code == 201
    assert get(client, "/api/v2/flows/acme/documented").get_json()["template"] == TEMPLATE
    assert begin_trail(client, "documented", {"name": "t1"}).status_code == 201
    trail = get(client, "/api/v2/trails/acme/documented/t1").get_json()
    assert trail["template"]["content"] == commented + TEMPLATE

    trail_first = "# ours\ntrail:\n  artifacts:\n    - name: backend # built by CI\nversion: 1\n"
    assert put_flow_template(client, "trail-first", template=trail_first).status_code == 201
    listed = {f["name"]: f["template"] for f in get(client, "/api/v2/flows/acme").get_json()}
    assert listed["trail-first"] == ("version: 1\ntrail:\n  attestations: []\n  artifacts:\n"
                                     "  - name: backend\n    attestations: []\n")
    assert listed["documented"] == TEMPLATE


def test_list_flows_bare_array_or_envelope_when_paging(client):
    for name in ("Alpha", "alpha-2", "beta"):
        assert put_json(client, "/api/v2/flows/acme", {"name": name, "description": ""}).status_code == 201

    bare = get(client, "/api/v2/flows/acme")
    assert bare.status_code == 200
    assert [f["name"] for f in bare.get_json()] == ["Alpha", "alpha-2", "beta"]
    assert all(f["tags"] == {} for f in bare.get_json())

    all_three = ["Alpha", "alpha-2", "beta"]
    for query, expected_names, (page, per_page, page_count) in [
        ("?page=1&per_page=2", ["Alpha", "alpha-2"], (1, 2, 2)),
        ("?page=2&per_page=2", ["beta"], (2, 2, 2)),
        ("?per_page=5", all_three, (1, 5, 1)),
        ("?page=1", all_three, (1, 20, 1)),
    ]:
        pagination = {"total": 3, "page": page, "per_page": per_page, "page_count": page_count}
        body = get(client, f"/api/v2/flows/acme{query}").get_json()
        assert list(body) == ["data", "pagination"], query
        assert [f["name"] for f in body["data"]] == expected_names, query
        assert body["pagination"] == pagination, query

    assert [f["name"] for f in get(client, "/api/v2/flows/acme?search_by_name=alpha").get_json()] == [
        "alpha-2"]
    assert [f["name"] for f in get(
        client, "/api/v2/flows/acme?case_sensitive=false&search_by_name=alpha").get_json()] == [
        "Alpha", "alpha-2"]
    assert get(client, "/api/v2/flows/acme-shared").get_json() == []


def test_archive_and_rename_with_null_body(client):
    put_json(client, "/api/v2/flows/acme", {"name": "old", "description": "d"})
    put_json(client, "/api/v2/flows/acme", {"name": "other", "description": ""})

    renamed = put_json(client, "/api/v2/flows/acme/old/rename", {"new_name": "new"})
    assert renamed.status_code == 200
    assert renamed.get_json() == "flow 'old' was renamed to 'new'"
    assert get(client, "/api/v2/flows/acme/old").get_json()["name"] == "new"
    assert [f["name"] for f in get(client, "/api/v2/flows/acme").get_json()] == ["new", "other"]

    taken = put_json(client, "/api/v2/flows/acme/new/rename", {"new_name": "other"})
    assert taken.status_code == 409
    assert taken.get_json() == {"message": "A flow named 'other' already exists"}

    archived = put_null(client, "/api/v2/flows/acme/new/archive")
    assert archived.status_code == 200
    renamed_to = re.fullmatch(r"flow 'new' was archived as '(new-archived-at-\d+)'",
                              archived.get_json()).group(1)
    assert [f["name"] for f in get(client, "/api/v2/flows/acme").get_json()] == ["other"]
    # An archived flow answers to the name archiving gave it only: its former names, the one
    # it was archived under and the one it was renamed from, are gone with it.
    assert get(client, f"/api/v2/flows/acme/{renamed_to}").get_json()["name"] == renamed_to
    for name in ("new", "old"):
        gone = get(client, f"/api/v2/flows/acme/{name}")
        assert (gone.status_code, gone.get_json()) == (404, {
            "message": f"Flow named '{name}' does not exist for organization 'acme'"}), name
    assert put_null(client, f"/api/v2/flows/acme/{renamed_to}/archive").get_json() == (
        f"flow '{renamed_to}' was archived")
    recreated = put_json(client, "/api/v2/flows/acme", {"name": "new", "description": "again"})
    assert recreated.status_code == 201
    assert get(client, "/api/v2/flows/acme/new").get_json()["archived"] is False
    assert get(client, f"/api/v2/flows/acme/{renamed_to}").get_json()["description"] == "d"

    assert put_null(client, "/api/v2/flows/acme/ghost/archive").status_code == 404
    missing_name = put_null(client, "/api/v2/flows/acme/other/rename")
    assert missing_name.status_code == 400
    assert missing_name.get_json() == {"message": "Input payload validation failed",
                                       "errors": {"new_name": "Field cannot be empty"}}


# ---- trails --------------------------------------------------------------------------------

def test_begin_trail_multipart_201_then_200_stores_and_returns_fields(client):
    put_flow_template(client, "creator-ci")
    data = {"name": "t1", "description": "first", "git_commit_info": COMMIT, "repo_info": REPO,
            "origin_url": "https://ci.example/jobs/1",
            "external_urls": {"docs": {"href": "https://docs.example", "fingerprint": "f" * 64},
                              "ticket": {"href": "https://jira.example/X-1"}},
            "user_data": {"build": 7, "ratio": 0.5, "nested": {"ids": [1, 2]}}}
    created = begin_trail(client, "creator-ci", data)
    assert created.status_code == 201
    assert created.get_json() == "trail 't1' was begun"

    body = get(client, "/api/v2/trails/acme/creator-ci/t1").get_json()
    assert body["description"] == "first"
    assert {k: body["git_commit_info"][k] for k in COMMIT} == COMMIT
    assert body["origin_url"] == "https://ci.example/jobs/1"
    assert body["repo_ids"] == ["a4bbd22e-cd62"]
    assert body["external_urls"] == {
        "docs": {"href": "https://docs.example", "fingerprint": "f" * 64},
        "ticket": {"href": "https://jira.example/X-1", "fingerprint": None}}
    assert body["user_data"] == {"build": 7, "ratio": 0.5, "nested": {"ids": [1, 2]}}
    reported = body["events"][0]
    assert reported["type"] == "trail_reported"
    assert reported["repo_info"] == REPO
    assert reported["git_commit_info"] == COMMIT
    assert reported["user"] == "alice"

    # Beginning it again updates the given fields and keeps the others; user_data may be an array.
    updated = begin_trail(client, "creator-ci", {"name": "t1", "user_data": [1, "two", {"three": 3}]})
    assert updated.status_code == 200
    assert updated.get_json() == "trail 't1' was updated"
    body = get(client, "/api/v2/trails/acme/creator-ci/t1").get_json()
    assert body["user_data"] == [1, "two", {"three": 3}]
    assert body["description"] == "first"
    assert body["git_commit_info"]["sha1"] == COMMIT["sha1"]
    assert body["origin_url"] == "https://ci.example/jobs/1"
    assert body["repo_ids"] == ["a4bbd22e-cd62"]
    assert [e["type"] for e in body["events"]] == ["trail_reported", "trail_updated"]


def test_get_trail_has_the_shape_of_the_live_reference(client):
    put_flow_template(client, "creator-ci")
    begin_trail(client, "creator-ci", {"name": "t1", "git_commit_info": COMMIT, "repo_info": REPO,
                                       "user_data": {"count": 3, "when": 1700000000,
                                                     "list": [1, 2.5], "deep": {"n": 10}}})
    response = get(client, "/api/v2/trails/acme/creator-ci/t1")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    body = response.get_json()

    assert list(body) == REFERENCE_SHAPE["trail"]
    assert set(REFERENCE_SHAPE["git_commit_info"]) <= set(body["git_commit_info"])
    status = body["compliance_status"]
    assert set(REFERENCE_SHAPE["compliance_status"]) <= set(status)
    assert set(REFERENCE_SHAPE["attestation_status"]) <= set(status["attestations_statuses"][0])
    assert set(REFERENCE_SHAPE["artifact_status"]) <= set(status["artifacts_statuses"]["backend"])
    assert set(REFERENCE_SHAPE["template"]) <= set(body["template"])
    assert set(REFERENCE_SHAPE["flow"]) <= set(body["flow"])

    assert (body["name"], body["created_by"]) == ("t1", "alice")
    assert (body["compliance_state"], body["is_compliant"]) == ("INCOMPLETE", False)
    assert status["attestations_statuses"][0]["status"] == "MISSING"
    assert body["template"]["content"] == TEMPLATE
    assert body["template"]["trail"]["attestations"] == [
        {"name": "pull-request", "type": "pull_request"}]
    assert body["flow"] == {"name": "creator-ci", "tags": {}}
    assert body["html_url"] == "http://evidence.test/acme/flows/creator-ci/trails/t1"

    # Timestamps are JSON numbers.
    for value in (body["created_at"], body["last_modified_at"], status["evaluated_at"],
                  body["git_commit_info"]["timestamp"], body["events"][0]["timestamp"]):
        assert is_number(value), value
    assert body["git_commit_info"]["timestamp"] == 1776252244
    # Free-form user data keeps integral numbers integral.
    assert body["user_data"] == {"count": 3, "when": 1700000000, "list": [1, 2.5], "deep": {"n": 10}}
    assert type(body["user_data"]["count"]) is int
    assert type(body["user_data"]["when"]) is int
    assert type(body["user_data"]["list"][0]) is int
    assert type(body["user_data"]["deep"]["n"]) is int
    assert re.search(r'"count":\s*3[,}]', response.get_data(as_text=True))


def test_live_reference_shape_copy_is_current():
    if not LIVE_TRAIL.exists():
        pytest.skip(f"{LIVE_TRAIL} is not checked out here")
    live = json.loads(LIVE_TRAIL.read_text())
    status = live["compliance_status"]
    assert {
        "trail": list(live), "git_commit_info": list(live["git_commit_info"]),
        "compliance_status": list(status),
        "attestation_status": list(status["attestations_statuses"][0]),
        "artifact_status": list(next(iter(status["artifacts_statuses"].values()))),
        "template": list(live["template"]), "flow": list(live["flow"]),
    } == REFERENCE_SHAPE


def test_list_trails_per_flow_and_per_organization(client):
    put_json(client, "/api/v2/flows/acme", {"name": "api", "description": ""})
    put_json(client, "/api/v2/flows/acme", {"name": "web", "description": ""})
    for flow, trail in [("api", "a1"), ("web", "w1"), ("api", "a2")]:
        assert begin_trail(client, flow, {"name": trail, "description": f"{trail}!"}).status_code == 201

    of_flow = get(client, "/api/v2/trails/acme/api")
    assert of_flow.status_code == 200
    assert [t["name"] for t in of_flow.get_json()] == ["a2", "a1"]
    paged = get(client, "/api/v2/trails/acme/api?page=2&per_page=1").get_json()
    assert [t["name"] for t in paged["data"]] == ["a1"]
    assert paged["pagination"] == {"total": 2, "page": 2, "per_page": 1, "page_count": 2}

    # The org-level list (what `kosli list trails` calls) always answers {data, pagination}.
    everything = get(client, "/api/v2/trails/acme").get_json()
    assert [t["name"] for t in everything["data"]] == ["a2", "w1", "a1"]
    assert everything["pagination"] == {"total": 3, "page": 1, "per_page": 20, "page_count": 1}
    first = everything["data"][0]
    assert (first["description"], first["compliance_state"]) == ("a2!", "COMPLIANT")

    filtered = get(client, "/api/v2/trails/acme?flow=web&page=1&per_page=20").get_json()
    assert [t["name"] for t in filtered["data"]] == ["w1"]
    assert filtered["pagination"]["total"] == 1
    assert get(client, "/api/v2/trails/acme?flow=nope").status_code == 404
    assert get(client, "/api/v2/trails/acme-shared").get_json()["data"] == []


# ---- user, organization, readiness ---------------------------------------------------------

def test_user_default_organization_organization_and_experimental_features(client):
    assert get(client, "/api/v2/user/default-org").get_json() == {"default_org_name": "acme"}
    changed = put_null(client, "/api/v2/user/acme-shared")
    assert changed.status_code == 200
    assert changed.get_json() == "default organization is 'acme-shared'"
    assert get(client, "/api/v2/user/default-org").get_json() == {"default_org_name": "acme-shared"}

    refused = put_null(client, "/api/v2/user/other")
    assert refused.status_code == 403
    assert get(client, "/api/v2/user/default-org").get_json() == {"default_org_name": "acme-shared"}
    assert get(client, "/api/v2/user/default-org", basic(BOB_KEY, "x")).get_json() == {
        "default_org_name": "other"}

    org = get(client, "/api/v2/organizations/acme")
    assert org.status_code == 200
    body = org.get_json()
    assert body == {"name": "acme", "kind": "shared", "experimental_features_enabled": False,
                    "created_at": body["created_at"], "last_modified_at": body["last_modified_at"],
                    "features": ["controls"]}
    assert is_number(body["created_at"])

    enabled = put_json(client, "/api/v2/organizations/acme/experimental_features",
                       {"experimental_features_enabled": True})
    assert (enabled.status_code, enabled.get_json()) == (200, "experimental features updated")
    assert get(client, "/api/v2/organizations/acme").get_json()["experimental_features_enabled"] is True
    put_json(client, "/api/v2/organizations/acme/experimental_features",
             {"experimental_features_enabled": False})
    assert get(client, "/api/v2/organizations/acme").get_json()["experimental_features_enabled"] is False
    assert get(client, "/api/v2/organizations/acme-shared").get_json()["features"] == []


def test_ready_answers_plain_ok_without_auth(client):
    for headers in ({}, bearer("not-a-key")):
        ready = client.get("/ready", content_type=CLI_JSON, headers=headers)
        assert ready.status_code == 200
        assert ready.mimetype == "text/plain"
        assert ready.get_data(as_text=True) == "OK"


def test_answers_rendered_again_are_the_same_json_and_never_stale(client):
    """The shim keeps the JSON of small answers by their encoding (transcoder._KEPT_JSON): a
    trail read twice is the same bytes, and read after a change shows the change."""
    from rest_shim import transcoder

    put_flow_template(client, "kept")
    assert begin_trail(client, "kept", {"name": "t"}).status_code == 201
    transcoder._KEPT_JSON.clear()
    first = client.get("/api/v2/trails/acme/kept/t", headers=bearer())
    assert first.status_code == 200 and len(transcoder._KEPT_JSON) == 1
    again = client.get("/api/v2/trails/acme/kept/t", headers=bearer())
    assert again.get_data() == first.get_data() and len(transcoder._KEPT_JSON) == 1
    assert begin_trail(client, "kept", {"name": "t", "description": "changed"}).status_code == 200
    changed = client.get("/api/v2/trails/acme/kept/t", headers=bearer())
    assert changed.json["description"] == "changed" and changed.json["events"] != first.json["events"]
    assert changed.headers["Content-Type"] == first.headers["Content-Type"] == "application/json"


def test_answers_too_big_to_keep_are_rendered_every_time(client):
    from rest_shim import transcoder

    long = "x" * limits.DESCRIPTION.most  # with the rest of the answer, past what is kept
    assert put_json(client, "/api/v2/flows/acme", {"name": "big", "template": ["build"],
                                                   "description": long}).status_code == 201
    transcoder._KEPT_JSON.clear()
    for _ in range(2):
        answer = client.get("/api/v2/flows/acme/big", headers=bearer())
        assert answer.status_code == 200 and answer.json["description"] == long
    assert len(transcoder._KEPT_JSON) == 0
