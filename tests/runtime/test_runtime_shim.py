"""Environments, reports, snapshots and repos through the REST shim: status codes and the
JSON shapes the contract and the kosli CLI read."""

from __future__ import annotations

import json

from tests.conftest import BOB_KEY, bearer, govern

FP1, FP2 = "a" * 64, "b" * 64
H = bearer()


def create(client, name: str = "prod", env_type: str = "server", **extra):
    return client.put("/api/v2/environments/acme", headers=H,
                      json={"name": name, "type": env_type, "description": "", **extra})


def report(client, env: str, env_type: str, body: dict):
    return client.put(f"/api/v2/environments/acme/{env}/report/{env_type}", headers=H, json=body)


def test_environment_create_get_list(client):
    assert create(client, description="first").status_code == 201
    assert create(client, description="again").status_code == 200
    assert create(client, "k", "K8S").status_code == 201
    got = client.get("/api/v2/environments/acme/prod", headers=H)
    assert got.status_code == 200
    body = got.json
    assert (body["name"], body["type"], body["description"], body["state"],
            body["last_reported_at"], body["tags"], body["policies"]) == \
        ("prod", "server", "again", None, None, {}, [])
    assert client.get("/api/v2/environments/acme/nope", headers=H).status_code == 404
    listed = client.get("/api/v2/environments/acme", headers=H).json
    assert [e["name"] for e in listed] == ["k", "prod"]
    assert [e["name"] for e in client.get("/api/v2/environments/acme?type=K8S&type=ECS",
                                          headers=H).json] == ["k"]
    paged = client.get("/api/v2/environments/acme?page=1&per_page=1", headers=H).json
    assert {k: paged[k] for k in ("page", "per_page", "total_pages", "total_count")} == \
        {"page": 1, "per_page": 1, "total_pages": 2, "total_count": 2}
    assert [e["name"] for e in paged["environments"]] == ["k"]


def test_environment_settings_are_stored_and_answered_as_set(client):
    """include_scaling and require_provenance are answered as the caller set them (the Terraform
    provider reads both back and would see a permanent diff otherwise); unset, both are false."""
    assert create(client, "plain").status_code == 201
    plain = client.get("/api/v2/environments/acme/plain", headers=H).json
    assert (plain["include_scaling"], plain["require_provenance"]) == (False, False)
    assert create(client, include_scaling=True, require_provenance=True).status_code == 201
    got = client.get("/api/v2/environments/acme/prod", headers=H).json
    assert (got["include_scaling"], got["require_provenance"]) == (True, True)
    patched = client.patch("/api/v2/environments/acme/prod", headers=H,
                           json={"include_scaling": False})
    assert patched.status_code == 200
    assert (patched.json["include_scaling"], patched.json["require_provenance"]) == (False, True)
    assert client.patch("/api/v2/environments/acme/prod", headers=H,
                        json={"include_scaling": True}).json["include_scaling"] is True
    assert create(client, include_scaling=False).status_code == 200
    assert [e["include_scaling"] for e in client.get("/api/v2/environments/acme",
                                                     headers=H).json] == [False, False]

    # What it means: with it set, a change of instance counts alone makes a snapshot.
    def pods(count: int) -> dict:
        return {"artifacts": [{"podName": f"p{i}", "namespace": "default",
                               "digests": {"img": FP1}, "creationTimestamp": 1700000000}
                              for i in range(count)]}
    for name, scaling, snapshots in (("scaled", True, 2), ("unscaled", False, 1)):
        create(client, name, "K8S", include_scaling=scaling)
        for count in (1, 2):
            assert report(client, name, "K8S", pods(count)).status_code in (200, 201)
        assert len(client.get(f"/api/v2/snapshots/acme/{name}", headers=H).json) == snapshots


def test_environment_bad_input(client):
    bad = create(client, env_type="bogus")
    assert bad.status_code == 400 and "type" in bad.json["errors"]
    unknown_field = create(client, color="red")
    assert unknown_field.status_code == 400
    assert client.put("/api/v2/environments/acme", headers=bearer(BOB_KEY),
                      json={"name": "x", "type": "server", "description": ""}).status_code == 403


def test_patch_archive_rename_join(client):
    create(client, description="words")
    patched = client.patch("/api/v2/environments/acme/prod", headers=H, json={"description": ""})
    assert patched.status_code == 200 and patched.json["description"] == ""
    assert client.patch("/api/v2/environments/acme/prod", headers=H,
                        json={"type": "K8S"}).status_code == 400
    create(client, "all", "logical")
    joined = client.put("/api/v2/environments/acme/all/join", headers=H,
                        json={"physical_env_name": "prod"})
    assert joined.status_code == 200
    assert client.get("/api/v2/environments/acme/all", headers=H).json[
        "included_environments"] == ["prod"]
    assert client.put("/api/v2/environments/acme/prod/join", headers=H,
                      json={"physical_env_name": "all"}).status_code == 400
    renamed = client.put("/api/v2/environments/acme/prod/rename", headers=H,
                         json={"new_name": "production"})
    assert renamed.status_code == 200
    assert client.get("/api/v2/environments/acme/all", headers=H).json[
        "included_environments"] == ["production"]
    assert client.put("/api/v2/environments/acme/production/archive", headers=H,
                      data="null", content_type="application/json").status_code == 200
    assert [e["name"] for e in client.get("/api/v2/environments/acme", headers=H).json] == ["all"]
    archived = report(client, "production", "server", {"artifacts": []})
    assert archived.status_code == 400 and "archived" in archived.json["message"]


def test_patching_policies_names_known_policies_only(client):
    create(client, description="words")
    refused = client.patch("/api/v2/environments/acme/prod", headers=H,
                           json={"description": "new", "policies": ["house-rules"]})
    assert refused.status_code == 404
    assert refused.json["message"] == "Policy 'house-rules' does not exist in organization 'acme'"
    unchanged = client.get("/api/v2/environments/acme/prod", headers=H).json
    assert (unchanged["description"], unchanged["policies"]) == ("words", [])  # nothing written
    govern(client)  # creates house-rules, attached nowhere
    patched = client.patch("/api/v2/environments/acme/prod", headers=H,
                           json={"policies": ["house-rules", "house-rules"]})
    assert patched.status_code == 200 and patched.json["policies"] == ["house-rules"]
    both = client.patch("/api/v2/environments/acme/prod", headers=H,
                        json={"policies": ["house-rules", "a", "b"]})
    assert (both.status_code, both.json["message"]) == (
        404, "Policies ['a', 'b'] do not exist in organization 'acme'")
    assert client.put("/api/v2/environments/acme", headers=H, json={
        "name": "lab", "type": "server", "description": "", "policies": ["nope"]}).status_code == 404
    assert client.get("/api/v2/environments/acme/lab", headers=H).status_code == 404
    assert client.get("/api/v2/environments/acme/prod", headers=H).json["policies"] == [
        "house-rules"]


def test_reports_of_every_type(client):
    bodies = {
        "server": {"artifacts": [{"digests": {"/app": FP1}, "creationTimestamp": 1}]},
        "docker": {"artifacts": [{"digests": {"img:1": FP1}, "creationTimestamp": 1}]},
        "K8S": {"artifacts": [{"podName": "p1", "namespace": "default", "digests": {"img": FP1},
                               "creationTimestamp": 1, "owners": []},
                              {"podName": "p2", "namespace": "default", "digests": {"img": FP1},
                               "creationTimestamp": 2}]},
        "ECS": {"artifacts": [{"taskArn": "arn:t", "digests": {"img": FP1, "side": ""},
                               "creationTimestamp": 1}]},
        "lambda": {"artifacts": [{"digests": {"fn": FP1}, "creationTimestamp": 1}]},
        "S3": {"artifacts": [{"digests": {"bucket": FP1}, "creationTimestamp": 1}]},
        "azure-apps": {"artifacts": [{"app_name": "a", "app_kind": "app", "digests_source": "acr",
                                      "digests": {"img": FP1}, "creationTimestamp": 1}]},
        "cloud-run": {"type": "cloud-run", "artifacts": [{"digests": {"img": FP1},
                                                          "creationTimestamp": 1,
                                                          "kind": "service"}]},
        "container_service": {"type": "container_service", "artifacts": [
            {"digests": {"img": FP1}, "taskArn": "arn:t", "creationTimestamp": 1,
             "cluster_name": "c", "service_name": "s"}]},
    }
    for env_type, body in bodies.items():
        name = f"env-{env_type.lower()}"
        assert create(client, name, env_type).status_code == 201, env_type
        answer = report(client, name, env_type, body)
        assert answer.status_code == 200, (env_type, answer.json)
        assert answer.json == f"Snapshot #1 of environment '{name}' was created"
        again = report(client, name, env_type, body)
        assert again.json == "Report processed, no new snapshot was created"
    k8s = client.get("/api/v2/snapshots/acme/env-k8s/-1", headers=H).json
    # The map `kosli get snapshot` unmarshals: pod name -> namespace, start, owners.
    assert k8s["artifacts"][0]["pods"] == {
        "p1": {"namespace": "default", "creationTimestamp": 1, "owners": []},
        "p2": {"namespace": "default", "creationTimestamp": 2, "owners": []}}
    assert k8s["artifacts"][0]["annotation"] == {"type": "started-non-compliant", "was": 0,
                                                 "now": 2}
    assert k8s["artifacts"][0]["creationTimestamp"] == [1, 2]
    container = client.get("/api/v2/snapshots/acme/env-container_service/1", headers=H).json
    assert container["type"] == "container_service"
    assert container["artifacts"][0]["context"] == [
        {"taskArn": "arn:t", "cluster_name": "c", "service_name": "s"}]


def test_report_bad_input(client):
    create(client)
    unknown = report(client, "prod", "mainframe", {"artifacts": []})
    assert unknown.status_code == 400 and "type" in unknown.json["errors"]
    malformed = report(client, "prod", "server",
                       {"artifacts": [{"digests": {"app": "not-a-sha"}, "creationTimestamp": 1}]})
    assert malformed.status_code == 400
    assert "artifacts.0.digests.app" in malformed.json["errors"]
    missing = report(client, "prod", "server", {"artifacts": [{"digests": {}}]})
    assert missing.status_code == 400
    assert report(client, "prod", "K8S", {"artifacts": []}).status_code == 400
    assert report(client, "nope", "server", {"artifacts": []}).status_code == 404


def test_snapshots_list_get_and_expressions(client):
    create(client)
    for fp in (FP1, FP2):
        report(client, "prod", "server",
               {"artifacts": [{"digests": {"app": fp}, "creationTimestamp": 1}]})
    listed = client.get("/api/v2/snapshots/acme/prod?page=1&per_page=15&interval=&reverse=false",
                        headers=H).json
    assert [(s["index"], s["to"] == 0) for s in listed] == [(2, True), (1, False)]
    assert set(listed[0]) == {"index", "from", "to", "duration", "compliant", "compliance_state"}
    assert listed[0]["compliance_state"] == "UNKNOWN"  # no policies: no requirements
    for expression, index in (("-1", 2), ("%231", 1), ("~1", 1), ("2", 2), ("@%7Bnow%7D", 2),
                              ("@%7B2099-01-01T00:00:00%7D", 2)):
        got = client.get(f"/api/v2/snapshots/acme/prod/{expression}", headers=H)
        assert got.status_code == 200, expression
        assert got.json["index"] == index, expression
    latest = client.get("/api/v2/snapshots/acme/prod/-1", headers=H).json
    assert latest["is_latest"] is True and latest["compliant"] is False
    assert {a["fingerprint"]: a["annotation"]["now"] for a in latest["artifacts"]} == {FP1: 0, FP2: 1}
    for bogus in ("bogus", "@%7Bsoon%7D", "%23x"):
        answer = client.get(f"/api/v2/snapshots/acme/prod/{bogus}", headers=H)
        assert answer.status_code == 400, bogus
    assert client.get("/api/v2/snapshots/acme/prod/%2399", headers=H).status_code == 404
    assert client.get("/api/v2/snapshots/acme/prod/@%7B1.days.ago%7D", headers=H).status_code == 404


def test_diff_events_allowlist(client):
    create(client, "prod")
    create(client, "staging")
    govern(client, "prod")
    report(client, "prod", "server", {"artifacts": [{"digests": {"app": FP1}, "creationTimestamp": 5}]})
    report(client, "staging", "server", {"artifacts": [
        {"digests": {"app": FP1}, "creationTimestamp": 5},
        {"digests": {"app": FP1}, "creationTimestamp": 6},
        {"digests": {"web": FP2}, "creationTimestamp": 7}]})
    diff = client.get("/api/v2/env-diff/acme?snappish1=prod&snappish2=staging%231", headers=H).json
    assert diff["snappish1"] == {"snapshot_id": "prod#1", "artifacts": []}
    assert [a["fingerprint"] for a in diff["snappish2"]["artifacts"]] == [FP2]
    assert [(a["s1_instance_count"], a["s2_instance_count"]) for a in diff["changed"]["artifacts"]] \
        == [(1, 2)]
    assert diff["not-changed"]["artifacts"] == []
    assert client.get("/api/v2/env-diff/acme?snappish1=nope&snappish2=prod",
                      headers=H).status_code == 404

    events = client.get("/api/v2/environments/acme/staging/events?page=1&per_page=15",
                        headers=H).json
    assert {e["artifact_name"] for e in events} == {"app", "web"}
    assert all(isinstance(e[k], str) for e in events
               for k in ("artifact_name", "sha256", "description", "pipeline"))
    assert client.get("/api/v2/environments/acme/staging/events?start_ts=1&end_ts=0",
                      headers=H).status_code == 400
    assert client.get("/api/v2/environments/acme/staging/events?start_ts=abc",
                      headers=H).status_code == 400
    assert client.get("/api/v2/environments/acme/staging/events?start_ts=0&end_ts=1",
                      headers=H).json == []

    allowed = client.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": FP1, "artifact_name": "app", "description": "hotfix"})
    assert allowed.status_code == 201  # the published answer: what was allowed, nothing more
    assert allowed.json == {"artifact_fingerprint": FP1, "artifact_name": "app",
                            "description": "hotfix"}
    kept = client.get("/api/v2/allowlists/acme", headers=H).json
    assert [(e["fingerprint"], e["user_name"]) for e in kept] == [(FP1, "alice")]
    # The allowlisting shows in the next snapshot; snapshot #1 keeps its verdict.
    assert client.get("/api/v2/environments/acme/prod", headers=H).json["state"] is False
    report(client, "prod", "server", {"artifacts": [{"digests": {"app": FP1}, "creationTimestamp": 5},
                                                    {"digests": {"app": FP1}, "creationTimestamp": 6}]})
    assert client.get("/api/v2/environments/acme/prod", headers=H).json["state"] is False  # scaling
    report(client, "prod", "server", {"artifacts": [{"digests": {"api": FP1}, "creationTimestamp": 5}]})
    assert client.get("/api/v2/snapshots/acme/prod/-1", headers=H).json["compliant"] is True
    assert client.get("/api/v2/snapshots/acme/prod/1", headers=H).json["compliant"] is False
    assert client.get("/api/v2/environments/acme/prod", headers=H).json["state"] is True
    bad = client.put("/api/v2/allowlists/acme/prod", headers=H, json={
        "artifact_fingerprint": "xyz", "artifact_name": "app", "description": "hotfix"})
    assert bad.status_code == 400


def test_repos_and_statistics_answers(client):
    listed = client.get("/api/v2/repos/acme?page=1&per_page=15", headers=H).json
    assert listed == {"repos": [], "page": 1, "per_page": 15, "total_pages": 1, "total_count": 0}
    missing = client.get("/api/v2/repos/acme/acme/demo/deployment-statistics", headers=H)
    assert missing.status_code == 404 and "not found" in missing.json["message"]
    assert client.get("/api/v2/repos/acme/acme/demo", headers=H).status_code == 404
    assert client.get("/api/v2/repos/acme/x/deployment-statistics?start_ts=nope",
                      headers=H).status_code == 400
    deployed = client.get("/api/v2/deployments/acme", headers=H).json
    assert deployed["deployments"] == [] and deployed["total_count"] == 0


def test_tags_on_environments_and_repos(client):
    create(client)
    for kind in ("env", "environment", "environments"):
        answer = client.patch(f"/api/v2/tags/acme/{kind}/prod", headers=H,
                              json={"set_tags": {"tier": kind}, "remove_tags": []})
        assert answer.status_code == 200, answer.json
        assert client.get("/api/v2/environments/acme/prod", headers=H).json["tags"] == {"tier": kind}
    client.patch("/api/v2/tags/acme/env/prod", headers=H,
                 json={"set_tags": {}, "remove_tags": ["tier"]})
    assert client.get("/api/v2/environments/acme/prod", headers=H).json["tags"] == {}
    assert client.patch("/api/v2/tags/acme/env/nope", headers=H,
                        json={"set_tags": {"a": "b"}, "remove_tags": []}).status_code == 404

    # A repo is learned from the repo_info of a trail, then tagged by its provider id.
    client.put("/api/v2/flows/acme", headers=H, json={"name": "f", "description": "", "template": []})
    repo_info = {"name": "acme/demo", "url": "https://github.com/acme/demo", "id": "4711",
                 "provider": "github"}
    begun = client.put("/api/v2/trails/acme/f", headers=H, content_type="multipart/form-data",
                       data={"data_json": json.dumps({"name": "t1",
                                                 "repo_info": repo_info})})
    assert begun.status_code == 201, begun.json
    tagged = client.patch("/api/v2/tags/acme/repo/4711", headers=H,
                          json={"set_tags": {"team": "core"}, "remove_tags": []})
    assert tagged.status_code == 200, tagged.json
    assert client.get("/api/v2/repos/acme/acme/demo", headers=H).json["tags"] == {"team": "core"}
