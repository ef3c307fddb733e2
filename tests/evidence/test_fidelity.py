"""The hosted service's behaviour and wording where the official CLI shows them: reporting an
artifact begins its trail, the errors for things that are not there, pattern refusals in
pydantic's words, one-expression snapshot intervals, the attestation type view, and repo names
several repos share (on every engine under test)."""

from __future__ import annotations

import pytest

from evidence_grpc.domain.evidence import artifacts, attestation_types, attestations, flows, repos, trails
from evidence_grpc.domain.kernel.errors import InvalidArgument, NotFound
from evidence_grpc.domain.runtime import environment_changes, environments, snapshots
from evidence_grpc.domain.views import artifact_views
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.db import write_transaction
from evidence_grpc.storage.models import Organization, Trail, TrailEvent, User

FINGERPRINT = "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9"
OTHER_FINGERPRINT = "1234e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9"
NAME_RULE = r"^[a-zA-Z0-9][a-zA-Z0-9\.\-_~]*$"
ENV_NAME_RULE = r"^[a-zA-Z0-9][a-zA-Z0-9\.\-_]*$"


@pytest.fixture
def org(db: str):
    with storage.database.connection_context():
        yield Organization.get(Organization.name == "acme")


@pytest.fixture
def alice(org: Organization) -> User:
    return User.get(User.name == "alice")


def report(org: Organization, user: User, trail: str, fingerprint: str = FINGERPRINT):
    return artifacts.report_artifact(org, user, "ci", {
        "fingerprint": fingerprint, "filename": "file1", "trail_name": trail,
        "git_commit": "0fc1ba9876f91b215679f3649b8668085d820ab5",
        "build_url": "https://ci.example/1", "commit_url": "https://git.example/c"})


def message(action) -> str:
    with pytest.raises((NotFound, InvalidArgument)) as caught:
        action()
    return caught.value.message


# ---- reporting an artifact to a trail that is not there begins it ----------------------------

def test_reporting_an_artifact_begins_its_missing_trail_once(org, alice):
    flows.upsert_flow(org, "ci", "")
    artifact = report(org, alice, "test-321")
    trail = trails.find_trail(org, "ci", "test-321")
    assert artifact.trail_id == trail.id and trail.created_by == "alice"
    report(org, alice, "test-321", OTHER_FINGERPRINT)  # the trail exists now: used as it is
    events = [e.type for e in TrailEvent.select().where(TrailEvent.trail == trail)
              .order_by(TrailEvent.id)]
    assert events == ["trail_reported", "artifact_creation_reported",
                      "artifact_creation_reported"]
    # Attesting needs the trail, which the artifact report began.
    attestations.create_attestation(org, alice, "ci", "test-321", "generic", {
        "attestation_name": "check", "is_compliant": True, "artifact_fingerprint": FINGERPRINT},
        None)


def test_a_refused_report_begins_no_trail(org, alice):
    flows.upsert_flow(org, "ci", "")
    with pytest.raises(InvalidArgument) as caught:
        report(org, alice, "bad trail name")
    # The contract's schema writes the rule its own way, and is quoted as written.
    assert caught.value.errors == {"trail_name": "String should match pattern "
                                                 r"'^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$' "
                                                 "[input: bad trail name]"}
    assert message(lambda: report(org, alice, "t1", fingerprint="x" * 64))
    assert Trail.select().count() == 0


# ---- things that are not there ----------------------------------------------------------------

def test_missing_things_are_named_as_the_hosted_service_names_them(org, alice):
    flows.upsert_flow(org, "ci", "")
    trails.begin_trail(org, "ci", {"name": "test-123"}, alice)
    assert message(lambda: flows.find_flow(org, "nope")) == \
        "Flow named 'nope' does not exist for organization 'acme'"
    assert message(lambda: flows.rename_flow(org, "nope", "other")) == \
        "Flow named 'nope' does not exist for organization 'acme'"
    assert message(lambda: environments.find_environment(org, "nope")) == \
        "Environment named 'nope' does not exist for organization 'acme'"
    assert message(lambda: snapshots.list_snapshots(org, "nope", None, None)) == \
        "Environment named 'nope' does not exist for organization 'acme'"
    assert message(lambda: trails.find_trail(org, "ci", "nope")) == \
        "Trail with name 'nope' does not exist for Organization 'acme' and Flow 'ci'"
    assert message(lambda: attestation_types.find_type(org, "nope")) == \
        "Custom attestation type 'nope' does not exist for org 'acme'"
    assert message(lambda: artifact_views.search(org, "f040404f9fb3447ed0c8ad48c6af12d5e94513ca", "")) \
        == "No matches for 'f040404f9fb3447ed0c8ad48c6af12d5e94513ca'."
    assert message(lambda: attestations.create_attestation(
        org, alice, "ci", "test-123", "generic",
        {"attestation_name": "unit", "is_compliant": True, "artifact_fingerprint": FINGERPRINT},
        None)) \
        == (f"Artifact with fingerprint {FINGERPRINT} does not exist in trail \"test-123\" of "
            "flow \"ci\" belonging to organization \"acme\"")


def test_a_missing_attestation_type_version_is_named(org, alice):
    type_, _ = attestation_types.create_type(org, alice, {"name": "person"}, None)
    assert message(lambda: attestation_types.type_view(type_, "acme", 10)) == \
        "version 10 does not exist for custom attestation type 'person'"


# ---- pattern refusals --------------------------------------------------------------------------

def test_refused_names_quote_the_pattern_and_the_input(org):
    flows.upsert_flow(org, "ci", "")
    environment_changes.upsert_environment(org, {"name": "prod", "type": "server", "description": ""})
    with pytest.raises(InvalidArgument) as flow_rename:
        flows.rename_flow(org, "ci", "new illegal name")
    assert flow_rename.value.errors == {
        "new_name": f"String should match pattern '{NAME_RULE}' [input: new illegal name]"}
    with pytest.raises(InvalidArgument) as env_rename:
        environment_changes.rename_environment(org, "prod", "new illegal name")
    assert env_rename.value.errors == {
        "new_name": f"String should match pattern '{ENV_NAME_RULE}' [input: new illegal name]"}
    # A schema's pattern refuses in the same words (here the environment schema's).
    with pytest.raises(InvalidArgument) as env_create:
        environment_changes.upsert_environment(org, {"name": "a b", "type": "server", "description": ""})
    assert env_create.value.errors == {
        "name": f"String should match pattern '{ENV_NAME_RULE}' [input: a b]"}


# ---- snapshot intervals -----------------------------------------------------------------------

def test_one_expression_is_the_interval_of_the_one_snapshot_it_names(org):
    environment_changes.upsert_environment(org, {"name": "prod", "type": "server", "description": ""})
    for fingerprints in (["1" * 64], ["1" * 64, "2" * 64], ["3" * 64]):
        snapshots.report_environment(org, "prod", "server", {"artifacts": [
            {"digests": {f"app-{fp[0]}": fp}, "creationTimestamp": 1700000000}
            for fp in fingerprints]})

    def indexes(interval: str) -> list[int]:
        return [s["index"] for s in snapshots.list_snapshots(org, "prod", None, None, interval)]

    assert indexes("NOW") == [3]
    assert indexes("~1") == [2]
    assert indexes("1") == [1]
    assert indexes("1..2") == [2, 1]
    assert {e["snapshot_index"] for e in snapshots.list_events(org, "prod", interval="NOW")} \
        == {3}


def test_a_snapshot_out_of_range_is_named_with_the_index_it_resolves_to(org):
    environment_changes.upsert_environment(org, {"name": "empty", "type": "server", "description": ""})
    with pytest.raises(NotFound) as missing:
        snapshots.get_snapshot(org, "empty", "-1", "")
    assert str(missing.value) == ("Org: 'acme'. Snapshot 'empty#-1' resolves to 'empty#0'. "
                                  "len(snapshots) == 0. Indexes are 1-based")
    snapshots.report_environment(org, "empty", "server", {"artifacts": [
        {"digests": {"app": "1" * 64}, "creationTimestamp": 1700000000}]})
    with pytest.raises(NotFound) as beyond:
        snapshots.get_snapshot(org, "empty", "#7", "")
    assert str(beyond.value) == ("Org: 'acme'. Snapshot 'empty#7' resolves to 'empty#7'. "
                                 "len(snapshots) == 1. Indexes are 1-based")


# ---- the attestation type view ----------------------------------------------------------------

def test_the_type_view_leaves_out_what_is_empty_and_a_version_has_no_history(org, alice):
    with write_transaction():
        type_, _ = attestation_types.create_type(org, alice, {"name": "person"}, None)
    whole = attestation_types.type_view(type_, "acme")
    assert list(whole) == ["name", "org", "archived", "created_by", "created_at",
                           "last_modified_at", "versions"]
    assert "comment" not in whole["versions"][0]
    one = attestation_types.type_view(type_, "acme", 1)
    assert list(one) == ["name", "org", "archived", "versions"]
    attestation_types.create_type(org, alice, {"name": "person", "description": "who"}, None)
    described = attestation_types.type_view(type_, "acme")
    assert described["description"] == "who"  # the newest version's
    assert [v["version"] for v in described["versions"]] == [2, 1]  # newest first
    # Attestations are judged by the newest version, whatever order the view lists them in.
    attestation_types.create_type(org, alice, {"name": "person", "evaluator": {
        "content_type": "jq", "rules": [".age > 21"]}}, None)
    assert attestation_types.judge(org, "person", {"age": 20}) == (
        False, {"type_version": 3, "failed_rules": [".age > 21"]})


# ---- repos several share a name ----------------------------------------------------------------

def test_a_repo_name_several_repos_share_needs_the_provider(org):
    with write_transaction():
        for repo_id in ("111", "222"):
            repos.remember(org, {"id": repo_id, "name": "acme/shared", "provider": "github",
                                 "url": "https://github.com/acme/shared"}, 1.0)
        repos.remember(org, {"id": "333", "name": "acme/alone", "provider": "gitlab"}, 1.0)
    assert message(lambda: repos.find_repo(org, name="acme/shared")).startswith(
        "Multiple repos named 'acme/shared' exist (github). Specify the 'provider'")
    assert repos.find_repo(org, name="acme/shared", provider="github").repo_id == "222"
    assert repos.find_repo(org, repo_id="111").repo_id == "111"
    assert repos.find_repo(org, name="acme/alone").repo_id == "333"
