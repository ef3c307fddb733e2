"""Domain rules called directly, without gRPC or HTTP.

Tests that touch the database run on both engines (the `db` fixture) inside one connection
context, as the database interceptor provides it for a call. Pure rules (names, pages,
templates, compliance, Authorization headers) need no database."""

from __future__ import annotations

import base64

import peewee
import pytest

from evidence_grpc.domain.evidence import artifacts, compliance, flows, templates, trails
from evidence_grpc.domain.identity import callers, organizations
from evidence_grpc.domain.kernel.errors import (
    AlreadyExists,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from evidence_grpc.domain.kernel.names import check_name, safe_filename
from evidence_grpc.domain.kernel.pages import page_of
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    ApiKey,
    Artifact,
    Flow,
    FlowAlias,
    Membership,
    Organization,
    Trail,
    TrailEvent,
    User,
)
from tests.conftest import ALICE_KEY, BOB_KEY, BOOTSTRAP, recorded_statements

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
        - name: anything
          type: "*"
"""

COMMIT = {"sha1": "a" * 40, "message": "fix", "author": "Alice <alice@example.com>",
          "branch": "main", "timestamp": 1700000000, "url": "https://git.example/c/aaa"}


@pytest.fixture
def conn(db):
    with storage.database.connection_context():
        yield


@pytest.fixture
def acme(conn):
    return Organization.get(Organization.name == "acme")


@pytest.fixture
def alice(conn):
    return User.get(User.name == "alice")


def names(rows):
    return [row.name for row in rows]


def all_page():
    return page_of(1, 100)


# ---- names and pages (pure) ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["a", "A.b-c_d~e", "1.0", "x" * 255])
def test_check_name_accepts_path_safe_names(name):
    assert check_name("name", name) == name


# The hosted service's wording (pydantic's), the pattern quoted as its schema writes it.
PATTERN_REFUSAL = "String should match pattern '^[a-zA-Z0-9][a-zA-Z0-9\\.\\-_~]*$' [input: {}]"


@pytest.mark.parametrize(("name", "problem"), [
    ("", "Field cannot be empty"),
    ("x" * 256, "Must be at most 255 characters"),
    ("has space", PATTERN_REFUSAL.format("has space")),
    ("-leading-dash", PATTERN_REFUSAL.format("-leading-dash")),
    (".hidden", PATTERN_REFUSAL.format(".hidden")),
    ("a/b", PATTERN_REFUSAL.format("a/b")),
    ("per%cent", PATTERN_REFUSAL.format("per%cent")),
    ("ünïcode", PATTERN_REFUSAL.format("ünïcode")),
    ("trailing\n", PATTERN_REFUSAL.format("trailing\n")),
])
def test_check_name_refuses_names_that_are_not_one_path_segment(name, problem):
    with pytest.raises(InvalidArgument) as caught:
        check_name("new_name", name)
    assert caught.value.message == "Input payload validation failed"
    assert list(caught.value.errors) == ["new_name"]
    assert caught.value.errors["new_name"] == problem


def test_safe_filename_keeps_only_the_base_name():
    for given, kept in [("../../etc/passwd", "passwd"), ("..\\..\\evil.yml", "evil.yml"),
                        ("/abs/t.yml", "t.yml"), (" spaced.yml ", "spaced.yml"), ("a.yml", "a.yml")]:
        assert safe_filename("attachment_file", given) == kept
    for hopeless in ["", "..", ".", "dir/", "../.."]:
        with pytest.raises(InvalidArgument) as caught:
            safe_filename("attachment_file", hopeless)
        assert list(caught.value.errors) == ["attachment_file"], hopeless


def test_page_of_defaults_and_validation():
    default = page_of(None, None)
    assert (default.number, default.size, default.requested) == (1, 20, False)
    assert page_of(None, 5).requested is True
    assert page_of(3, None) == page_of(3, 20)
    for page, per_page, field in [(0, None, "page"), (-1, None, "page"),
                                  (None, 0, "per_page"), (None, 101, "per_page")]:
        with pytest.raises(InvalidArgument) as caught:
            page_of(page, per_page)
        assert list(caught.value.errors) == [field]


# ---- templates (pure) ----------------------------------------------------------------------

def test_parse_template_normalises_requirements():
    parsed = templates.parse_template(TEMPLATE)
    assert parsed == {
        "version": 1,
        "trail": {
            "attestations": [{"name": "pull-request", "type": "pull_request"}],
            "artifacts": [{"name": "backend", "attestations": [
                {"name": "unit-test", "type": "junit"}, {"name": "anything", "type": "*"}]}],
        },
    }


@pytest.mark.parametrize("text", ["", "version: 1\n", "version: 1\ntrail:\n", "trail: {}\n",
                                  "# only a comment\n"])
def test_parse_template_empty_documents_mean_no_requirements(text):
    assert templates.parse_template(text) == {
        "version": 1, "trail": {"attestations": [], "artifacts": []}}


def test_parse_template_fills_missing_artifact_attestations_and_custom_types():
    parsed = templates.parse_template(
        "trail:\n  attestations:\n    - {name: bp, type: 'custom:branch-protection'}\n"
        "  artifacts:\n    - name: web\n")
    assert parsed["trail"]["attestations"] == [{"name": "bp", "type": "custom:branch-protection"}]
    assert parsed["trail"]["artifacts"] == [{"name": "web", "attestations": []}]


def test_parse_template_answers_a_fresh_copy_each_time():
    first = templates.parse_template(TEMPLATE)
    first["trail"]["attestations"].clear()
    first["trail"]["artifacts"][0]["attestations"].append({"name": "x", "type": "generic"})
    assert templates.parse_template(TEMPLATE) == templates.parse_template(TEMPLATE)
    assert len(templates.parse_template(TEMPLATE)["trail"]["attestations"]) == 1
    assert len(templates.parse_template(TEMPLATE)["trail"]["artifacts"][0]["attestations"]) == 2


@pytest.mark.parametrize("text", ["version: [1\n", "trail:\n  - a\n b: c\n", "key: 'unterminated\n",
                                  "!!python/object/apply:os.system ['true']\n"])
def test_parse_template_invalid_yaml_is_invalid_argument(text):
    with pytest.raises(InvalidArgument) as caught:
        templates.parse_template(text)
    assert caught.value.message == "Invalid flow template: not valid YAML"
    assert list(caught.value.errors) == ["template_file"]
    assert caught.value.errors["template_file"]
    assert "\n" not in caught.value.errors["template_file"]


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", "42\n"])
def test_parse_template_must_be_a_mapping(text):
    with pytest.raises(InvalidArgument) as caught:
        templates.parse_template(text)
    assert caught.value.message == "Invalid flow template: expected a YAML mapping"
    assert caught.value.errors == {"template_file": "expected a mapping at the top level"}


@pytest.mark.parametrize(("text", "field", "problem"), [
    ("version: 2\n", "version", "1 was expected"),
    ("version: '1'\n", "version", "1 was expected"),
    ("version: 1\nextra: true\n", "template_file", "'extra' was unexpected"),
    ("trail:\n  attestations:\n    - name: a\n      type: bogus\n", "trail", "not valid"),
    ("trail:\n  attestations:\n    - name: a\n", "trail", "not valid"),
    ("trail:\n  attestations:\n    - name: 7\n      type: generic\n", "trail", "not valid"),
    ("trail:\n  artifacts: nope\n", "trail", "not valid"),
    ("trail:\n  surprise: []\n", "trail", "not valid"),
])
def test_parse_template_schema_violations_are_invalid_argument(text, field, problem):
    with pytest.raises(InvalidArgument) as caught:
        templates.parse_template(text)
    assert caught.value.message == "Invalid flow template"
    assert list(caught.value.errors) == [field]
    assert problem in caught.value.errors[field]


def test_a_template_the_schema_refuses_is_worded_by_the_door_it_came_through():
    """A flow's template is a field of its payload; a trail's is read as a Template model,
    which counts each branch of a failed union (the type: four kinds of name) and lists them,
    the deepest first; the `null` branch of an optional part is not one of them."""
    text = "version: 1\ntrail:\n  attestations:\n    - name: a\n      type: bogus\n"
    with pytest.raises(InvalidArgument) as flow:
        templates.check_template(text, "flow")
    assert flow.value.message == "Input payload validation failed"
    assert flow.value.errors == {"template_file": "trail.attestations.0.type: 'bogus' is not "
                                 "one of ['generic', 'junit', 'snyk', 'pull_request', 'jira', "
                                 "'sonar']"}
    with pytest.raises(InvalidArgument) as trail:
        templates.check_template(text, "trail")
    lines = trail.value.message.split("\n")
    assert lines[0] == "4 validation errors for Template"
    assert lines[1::2] == ["trail -> attestations -> 0 -> type"] * 4
    assert lines[2] == "  'bogus' is not one of ['generic', 'junit', 'snyk', 'pull_request', " \
                       "'jira', 'sonar']"
    with pytest.raises(InvalidArgument) as one:
        templates.check_template("version: 2\n", "trail")
    assert one.value.message == "1 validation error for Template\nversion\n  1 was expected"
    with pytest.raises(InvalidArgument) as not_yaml:  # no YAML: as parse_template words it
        templates.check_template("trail: [unclosed\n", "trail")
    assert not_yaml.value.message == "Invalid flow template: not valid YAML"
    templates.check_template("version: 1\n", "trail")  # a valid one passes either door


def test_template_view_carries_the_raw_yaml():
    view = templates.template_view(TEMPLATE)
    assert view["content"] == TEMPLATE
    assert view["trail"]["attestations"][0]["name"] == "pull-request"
    assert templates.template_view(None)["content"] == "version: 1\n"


# ---- compliance (pure) ---------------------------------------------------------------------

def test_evaluate_trail_without_requirements_is_compliant():
    status = compliance.evaluate_trail(templates.parse_template("version: 1\n"), evaluated_at=12.5)
    assert status == {
        "status": "COMPLIANT", "is_compliant": True, "attestations_statuses": [],
        "artifacts_statuses": {}, "evaluated_at": 12.5, "flow_template_id": None,
    }


def test_evaluate_trail_with_requirements_is_incomplete_with_missing_entries():
    status = compliance.evaluate_trail(templates.parse_template(TEMPLATE), evaluated_at=3.0)
    assert status["status"] == "INCOMPLETE"
    assert status["is_compliant"] is False
    assert status["attestations_statuses"] == [{
        "attestation_name": "pull-request", "attestation_type": "pull_request",
        "attestation_id": None, "overridden_attestation_id": None, "status": "MISSING",
        "is_compliant": False, "unexpected": False}]
    backend = status["artifacts_statuses"]["backend"]
    assert backend["status"] == "MISSING"
    assert backend["is_compliant"] is False
    assert backend["evaluated_at"] == 3.0
    assert [(a["attestation_name"], a["attestation_type"], a["status"])
            for a in backend["attestations_statuses"]] == [
        ("unit-test", "junit", "MISSING"), ("anything", "*", "MISSING")]


def test_evaluate_trail_with_only_an_expected_artifact_is_incomplete():
    status = compliance.evaluate_trail(
        templates.parse_template("trail:\n  artifacts:\n    - name: web\n"), evaluated_at=1.0)
    assert status["status"] == "INCOMPLETE"
    assert status["attestations_statuses"] == []
    assert status["artifacts_statuses"]["web"]["attestations_statuses"] == []
    assert status["artifacts_statuses"]["web"]["status"] == "MISSING"


# ---- flows ---------------------------------------------------------------------------------

def test_upsert_flow_creates_then_updates(acme):
    flow, created = flows.upsert_flow(acme, "backend", "first")
    assert created is True
    assert flows.flow_view(flow, "acme") == {
        "name": "backend", "description": "first", "visibility": "private", "org": "acme",
        "template": "version: 1\n", "repo_url": None, "tags": {}, "last_deployment_at": None,
        "archived": False, "created_at": flow.created_at, "last_modified_at": flow.created_at,
    }
    assert isinstance(flow.created_at, float)

    flows.upsert_flow(acme, "backend", "second", visibility="public",
                      repo_url="https://git.example/b")
    again, created = flows.upsert_flow(acme, "backend", "third")
    assert created is False
    assert again.id == flow.id
    stored = Flow.get_by_id(flow.id)
    assert stored.description == "third"
    # Fields not given on an update keep their values.
    assert (stored.visibility, stored.repo_url) == ("public", "https://git.example/b")
    assert stored.created_at == flow.created_at
    assert stored.last_modified_at >= flow.last_modified_at
    assert Flow.select().where(Flow.organization == acme).count() == 1

    assert flows.upsert_flow(acme, "public", "", visibility="public")[0].visibility == "public"
    assert flows.upsert_flow(acme, "public", "", visibility="private")[0].visibility == "private"


def test_upsert_flow_legacy_template_gets_artifact_appended(acme):
    flow, _ = flows.upsert_flow(acme, "legacy", "", legacy_template=[" build ", "test", " ", ""])
    assert flow.legacy_template == ["build", "test", "artifact"]
    assert flow.template_yaml is None
    assert flows.flow_view(Flow.get_by_id(flow.id), "acme")["template"] == [
        "build", "test", "artifact"]

    flow, _ = flows.upsert_flow(acme, "legacy2", "", legacy_template=["artifact", "sign"])
    assert Flow.get_by_id(flow.id).legacy_template == ["artifact", "sign"]
    flow, _ = flows.upsert_flow(acme, "legacy3", "", legacy_template=[])
    assert Flow.get_by_id(flow.id).legacy_template == ["artifact"]

    # A YAML template later replaces the list.
    flow, created = flows.upsert_flow(acme, "legacy", "", template_yaml=TEMPLATE)
    assert created is False
    stored = Flow.get_by_id(flow.id)
    assert (stored.template_yaml, stored.legacy_template) == (TEMPLATE, None)
    assert flows.flow_view(stored, "acme")["template"] == TEMPLATE


def test_upsert_flow_refusals_change_nothing(acme):
    flows.upsert_flow(acme, "f", "kept", template_yaml=TEMPLATE)

    def refused(name, problem_field, **kwargs):
        with pytest.raises(InvalidArgument) as caught:
            flows.upsert_flow(acme, name, "lost", **kwargs)
        assert list(caught.value.errors) == [problem_field], (name, kwargs)
        return caught.value

    error = refused("f", "visibility", visibility="secret")
    assert error.message == "Input payload validation failed"
    assert error.errors == {"visibility": "'secret' is not one of ['private', 'public']"}
    # a template the schema refuses is a field of the flow's payload
    assert refused("f", "template_file", template_yaml="version: 2\n").errors == {
        "template_file": "version: 1 was expected"}
    assert refused("g", "template_file", template_yaml="trail: [\n").message == \
        "Invalid flow template: not valid YAML"
    for bad_name in ["", "two words", "../etc", "a/b", "_x", "x" * 257]:
        refused(bad_name, "name")

    assert names(Flow.select()) == ["f"]
    stored = flows.find_flow(acme, "f")
    assert (stored.description, stored.template_yaml, stored.visibility) == (
        "kept", TEMPLATE, "private")


def test_flows_are_per_organization(acme):
    shared = Organization.get(Organization.name == "acme-shared")
    flows.upsert_flow(acme, "same", "acme's")
    _, created = flows.upsert_flow(shared, "same", "shared's")
    assert created is True
    assert flows.find_flow(acme, "same").description == "acme's"
    assert flows.find_flow(shared, "same").description == "shared's"
    with pytest.raises(NotFound) as caught:
        flows.find_flow(Organization.get(Organization.name == "other"), "same")
    assert caught.value.message == "Flow named 'same' does not exist for organization 'other'"
    for action in (lambda: flows.archive_flow(acme, "ghost"),
                   lambda: flows.rename_flow(acme, "ghost", "spirit")):
        with pytest.raises(NotFound):
            action()


def test_find_flow_by_former_name_after_rename(acme):
    original, _ = flows.upsert_flow(acme, "old", "d")
    renamed = flows.rename_flow(acme, "old", "new")
    assert (renamed.id, renamed.name) == (original.id, "new")
    assert flows.find_flow(acme, "old").id == original.id
    assert flows.find_flow(acme, "old").name == "new"
    assert names(flows.list_flows(acme, all_page())[0]) == ["new"]

    flows.rename_flow(acme, "old", "newest")  # renaming through a former name works too
    for name in ("old", "new", "newest"):
        assert flows.find_flow(acme, name).name == "newest"

    flows.rename_flow(acme, "newest", "old")  # and back to a former name
    assert flows.find_flow(acme, "old").id == original.id
    assert flows.find_flow(acme, "newest").name == "old"
    assert names(flows.list_flows(acme, all_page())[0]) == ["old"]


def test_new_flow_taking_an_alias_name_ends_the_alias(acme):
    original, _ = flows.upsert_flow(acme, "old", "original")
    flows.rename_flow(acme, "old", "new")
    fresh, created = flows.upsert_flow(acme, "old", "fresh")
    assert created is True
    assert fresh.id != original.id
    assert flows.find_flow(acme, "old").description == "fresh"
    assert flows.find_flow(acme, "new").description == "original"
    assert not FlowAlias.select().where(FlowAlias.name == "old").exists()
    assert names(flows.list_flows(acme, all_page())[0]) == ["new", "old"]


def test_rename_onto_an_existing_name_is_already_exists(acme):
    flows.upsert_flow(acme, "one", "1")
    flows.upsert_flow(acme, "two", "2")
    with pytest.raises(AlreadyExists) as caught:
        flows.rename_flow(acme, "one", "two")
    assert caught.value.message == "A flow named 'two' already exists"
    with pytest.raises(AlreadyExists):
        flows.rename_flow(acme, "one", "one")
    with pytest.raises(InvalidArgument) as caught:
        flows.rename_flow(acme, "one", "no spaces")
    assert list(caught.value.errors) == ["new_name"]
    assert flows.find_flow(acme, "one").description == "1"
    assert flows.find_flow(acme, "two").description == "2"
    assert FlowAlias.select().count() == 0


def test_archive_renames_the_flow_and_frees_its_name(acme, alice, monkeypatch):
    flows.upsert_flow(acme, "keep", "")
    flows.upsert_flow(acme, "gone", "before")
    trails.begin_trail(acme, "gone", {"name": "t1"}, alice)
    monkeypatch.setattr(flows, "now", lambda: 1776759327.9)
    archived = flows.archive_flow(acme, "gone")
    assert (archived.name, archived.archived) == ("gone-archived-at-1776759327", True)
    rows, pagination = flows.list_flows(acme, all_page())
    assert names(rows) == ["keep"]
    assert pagination["total"] == 1
    # Its former name is gone with it (a client managing flows by name sees it is no more).
    for action in (lambda: flows.find_flow(acme, "gone"), lambda: flows.archive_flow(acme, "gone")):
        with pytest.raises(NotFound):
            action()
    assert flows.archive_flow(acme, "gone-archived-at-1776759327").archived  # no change

    flow, created = flows.upsert_flow(acme, "gone", "after")
    assert created is True
    assert (flow.archived, flow.description) == (False, "after")
    assert names(flows.list_flows(acme, all_page())[0]) == ["gone", "keep"]
    assert flows.find_flow(acme, "gone").id == flow.id
    assert trails.list_flow_trails(acme, "gone", all_page())[0] == []
    old = flows.find_flow(acme, "gone-archived-at-1776759327")
    assert (old.description, old.archived) == ("before", True)
    assert names(trails.list_flow_trails(acme, old.name, all_page())[0]) == ["t1"]

    # The same name archived again in the same second takes the next one.
    assert flows.archive_flow(acme, "gone").name == "gone-archived-at-1776759328"
    long_name = "x" * 250
    flows.upsert_flow(acme, long_name, "")
    cut = flows.archive_flow(acme, long_name).name  # cut short to fit the column
    assert (cut, len(cut)) == ("x" * 232 + "-archived-at-1776759327", Flow.name.max_length)


def test_a_flow_archived_before_renaming_keeps_its_name_until_it_is_created_again(acme, alice):
    """Earlier releases archived a flow without renaming it; it answers to its name, and
    evidence reported to the name goes to it, until `create flow` asks for the name."""
    flow, _ = flows.upsert_flow(acme, "old", "before")
    Flow.update(archived=True, last_modified_at=1700000000.5).where(Flow.id == flow.id).execute()
    assert flows.find_flow(acme, "old").id == flow.id
    assert flows.flow_to_report_to(acme, "old").id == flow.id
    assert flows.archive_flow(acme, "old").name == "old"  # already archived: left as it is

    new, created = flows.upsert_flow(acme, "old", "after")
    assert created is True and new.id != flow.id
    moved = Flow.get_by_id(flow.id)
    assert (moved.name, moved.archived, moved.description) == (
        "old-archived-at-1700000000", True, "before")
    assert flows.find_flow(acme, "old").id == new.id


def test_list_flows_search_case_sensitive_and_not(acme):
    for name in ("Alpha-api", "alpha-web", "beta", "a_b", "axb"):
        flows.upsert_flow(acme, name, "")

    def search(text, case_sensitive):
        return names(flows.list_flows(acme, all_page(), text, case_sensitive)[0])

    assert search("alpha", True) == ["alpha-web"]
    assert search("alpha", False) == ["Alpha-api", "alpha-web"]
    assert search("ALPHA", False) == ["Alpha-api", "alpha-web"]
    assert search("ALPHA", True) == []
    assert search("a_b", False) == ["a_b"]  # '_' is literal, not a wildcard
    assert search("%", False) == []
    assert search("", True) == ["Alpha-api", "a_b", "alpha-web", "axb", "beta"]
    # Every flow, read in batches by keyset (by name, as the pages are)
    assert [names(batch) for batch in flows.flows_in_batches(acme, 2)] == [
        ["Alpha-api", "a_b"], ["alpha-web", "axb"], ["beta"]]
    assert [names(batch) for batch in flows.flows_in_batches(acme, 2, "ALPHA", False)] == [
        ["Alpha-api", "alpha-web"]]
    assert list(flows.flows_in_batches(acme, 2, "gamma")) == []
    rows, pagination = flows.list_flows(acme, page_of(2, 1), "ALPHA", False)
    assert names(rows) == ["alpha-web"]
    assert pagination == {"total": 2, "page": 2, "per_page": 1, "page_count": 2}


def test_list_flows_pagination_math(acme):
    rows, pagination = flows.list_flows(acme, page_of(None, None))
    assert rows == []
    assert pagination == {"total": 0, "page": 1, "per_page": 20, "page_count": 1}
    for i in range(5):
        flows.upsert_flow(acme, f"flow-{i}", "")
    expected = [(1, ["flow-0", "flow-1"]), (2, ["flow-2", "flow-3"]), (3, ["flow-4"]), (4, [])]
    for page, wanted in expected:
        rows, pagination = flows.list_flows(acme, page_of(page, 2))
        assert names(rows) == wanted
        assert pagination == {"total": 5, "page": page, "per_page": 2, "page_count": 3}
    rows, pagination = flows.list_flows(acme, page_of(1, 5))
    assert len(rows) == 5
    assert pagination["page_count"] == 1


# ---- trails --------------------------------------------------------------------------------

def test_begin_trail_creates_then_updates_keeping_unspecified_fields_with_events(acme, alice):
    flows.upsert_flow(acme, "f", "")
    data = {"name": "t1", "description": "first", "git_commit_info": COMMIT,
            "repo_info": {"id": "repo-1", "name": "r", "url": "https://git.example/r"},
            "origin_url": "https://ci.example/1", "external_urls": {"docs": {"href": "https://d"}},
            "user_data": {"build": 7}}
    trail, created = trails.begin_trail(acme, "f", data, alice)
    assert created is True
    assert trail.created_by == "alice"

    again, created = trails.begin_trail(acme, "f", {"name": "t1", "user_data": [1, 2]}, alice)
    assert created is False
    assert again.id == trail.id
    stored = Trail.get_by_id(trail.id)
    assert stored.description == "first"
    assert stored.git_commit_info == COMMIT
    assert stored.repo_info == {"id": "repo-1", "name": "r", "url": "https://git.example/r"}
    assert stored.origin_url == "https://ci.example/1"
    assert stored.external_urls == {"docs": {"href": "https://d"}}
    assert stored.user_data == [1, 2]
    assert stored.created_at == trail.created_at
    assert stored.last_modified_at >= trail.created_at
    assert Trail.select().count() == 1

    # Each begin is an event: reported first, then updated; only what was sent is recorded.
    events = [e.view() for e in trails.events_of([stored])[trail.id]]
    assert [e["type"] for e in events] == ["trail_reported", "trail_updated"]
    assert events[0]["git_commit_info"] == COMMIT
    assert events[0]["origin_url"] == "https://ci.example/1"
    assert events[0]["user"] == "alice"
    assert events[1]["user_data"] == [1, 2]
    assert "git_commit_info" not in events[1]
    assert events[0]["timestamp"] == trail.created_at
    assert events[0]["timestamp"] <= events[1]["timestamp"] == stored.last_modified_at
    assert trails.events_of([]) == {}


def test_begin_trail_refusals_change_nothing(acme, alice):
    flows.upsert_flow(acme, "f", "")
    with pytest.raises(NotFound):
        trails.begin_trail(acme, "nope", {"name": "t"}, alice)
    with pytest.raises(InvalidArgument) as caught:
        trails.begin_trail(acme, "f", {"name": "bad name"}, alice)
    assert list(caught.value.errors) == ["name"]
    with pytest.raises(InvalidArgument) as caught:
        trails.begin_trail(acme, "f", {}, alice)
    assert caught.value.errors == {"name": "Field cannot be empty"}
    with pytest.raises(InvalidArgument):
        trails.begin_trail(acme, "f", {"name": "t"}, alice, template_yaml="version: 9\n")
    assert Trail.select().count() == 0


def test_trail_view_uses_trail_template_over_flow_template(acme, alice):
    flows.upsert_flow(acme, "f", "", template_yaml=TEMPLATE)
    trails.begin_trail(acme, "f", {"name": "strict", "repo_info": {"id": "r-9"}}, alice)
    trails.begin_trail(acme, "f", {"name": "loose"}, alice, template_yaml="version: 1\n")

    def view_of(name, html_base):
        trail = trails.find_trail(acme, "f", name)
        return trails.trail_view(trail, "acme", html_base, trails.evidence_of([trail])[trail.id])

    strict = trails.find_trail(acme, "f", "strict")
    view = view_of("strict", "https://evidence.example")
    assert view["compliance_state"] == "INCOMPLETE"
    assert view["is_compliant"] is False
    assert view["template"]["content"] == TEMPLATE
    assert view["repo_ids"] == ["r-9"]
    assert view["flow"] == {"name": "f", "tags": {}}
    assert view["html_url"] == "https://evidence.example/acme/flows/f/trails/strict"
    assert view["compliance_status"]["evaluated_at"] == strict.last_modified_at
    assert view["events"] == []  # encoded apart: servicers.trails
    assert view["created_by"] == "alice"

    loose = view_of("loose", "http://x")
    assert loose["compliance_state"] == "COMPLIANT"
    assert loose["is_compliant"] is True
    assert loose["repo_ids"] == []
    assert loose["template"]["content"] == "version: 1\n"


def test_list_flow_trails_newest_first_with_pagination(acme, alice):
    flows.upsert_flow(acme, "f", "")
    flows.upsert_flow(acme, "g", "")
    for i in range(3):
        trails.begin_trail(acme, "f", {"name": f"t{i}"}, alice)
    trails.begin_trail(acme, "g", {"name": "elsewhere"}, alice)

    rows, pagination = trails.list_flow_trails(acme, "f", page_of(None, None))
    assert names(rows) == ["t2", "t1", "t0"]
    assert pagination == {"total": 3, "page": 1, "per_page": 20, "page_count": 1}
    rows, pagination = trails.list_flow_trails(acme, "f", page_of(2, 2))
    assert names(rows) == ["t0"]
    assert pagination == {"total": 3, "page": 2, "per_page": 2, "page_count": 2}
    with pytest.raises(NotFound):
        trails.list_flow_trails(acme, "nope", page_of(None, None))

    # Every trail, read in batches by keyset: the whole list in its order, a batch at a time.
    assert [names(batch) for batch in trails.flow_trails_in_batches(acme, "f", 2)] == [
        ["t2", "t1"], ["t0"]]
    assert [names(batch) for batch in trails.flow_trails_in_batches(acme, "f", 3)] == [
        ["t2", "t1", "t0"]]
    assert list(trails.flow_trails_in_batches(acme, "g", 1))[0][0].marks is not None
    with pytest.raises(NotFound):
        next(trails.flow_trails_in_batches(acme, "nope", 2))

    flows.rename_flow(acme, "f", "renamed")
    assert names(trails.list_flow_trails(acme, "f", page_of(None, None))[0]) == ["t2", "t1", "t0"]
    trail = trails.find_trail(acme, "f", "t1")
    assert trail.flow.name == "renamed"
    with pytest.raises(NotFound) as caught:
        trails.find_trail(acme, "renamed", "missing")
    assert caught.value.message == ("Trail with name 'missing' does not exist for Organization 'acme' "
                                    "and Flow 'renamed'")


def test_list_trails_of_organization_flow_and_flow_tag_filters(acme, alice):
    for flow in ("api", "web", "old"):
        flows.upsert_flow(acme, flow, "")
        trails.begin_trail(acme, flow, {"name": f"{flow}-1"}, alice)
    trails.begin_trail(acme, "api", {"name": "api-2"}, alice)
    Flow.update(tags={"team": "core", "tier": "1"}).where(Flow.name == "api").execute()
    Flow.update(tags={"team": "ux"}).where(Flow.name == "web").execute()
    flows.archive_flow(acme, "old")
    other = Organization.get(Organization.name == "acme-shared")
    flows.upsert_flow(other, "api", "")
    trails.begin_trail(other, "api", {"name": "foreign"}, alice)

    rows, pagination = trails.list_trails(acme, page_of(None, None))
    assert names(rows) == ["api-2", "web-1", "api-1"]  # archived flows and other orgs left out
    assert pagination["total"] == 3
    assert names(trails.list_trails(acme, page_of(None, None), flow_name="web")[0]) == ["web-1"]
    assert names(trails.list_trails(acme, page_of(None, None), flow_tags=["team=core"])[0]) == [
        "api-2", "api-1"]
    assert names(trails.list_trails(acme, page_of(None, None),
                                    flow_tags=["team=core", "tier=1"])[0]) == ["api-2", "api-1"]
    assert names(trails.list_trails(acme, page_of(None, None),
                                    flow_tags=["team=core", "tier=2"])[0]) == []
    assert names(trails.list_trails(acme, page_of(None, None), flow_name="web",
                                    flow_tags=["team=core"])[0]) == []
    rows, pagination = trails.list_trails(acme, page_of(2, 2))
    assert names(rows) == ["api-1"]
    assert pagination == {"total": 3, "page": 2, "per_page": 2, "page_count": 2}
    with pytest.raises(NotFound):
        trails.list_trails(acme, page_of(None, None), flow_name="nope")


def test_trail_pages_of_the_organization_by_position_are_the_offset_pages(
        acme, alice, monkeypatch):
    for flow in ("api", "web", "idle"):
        flows.upsert_flow(acme, flow, "")
    for i in range(9):
        trails.begin_trail(acme, ("api", "web")[i % 3 == 1], {"name": f"t{i}"}, alice)
    trails.begin_trail(acme, "api", {"name": "t0"}, alice)  # begun again: listed once
    flows.archive_flow(acme, "idle")  # archived without trails: every trail is listed
    flows.upsert_flow(Organization.get(Organization.name == "acme-shared"), "api", "")
    trails.begin_trail(Organization.get(Organization.name == "acme-shared"), "api",
                       {"name": "foreign"}, alice)

    def offset_page(number: int, per_page: int) -> list[str]:
        return [t.name for t in Trail.select(Trail.name).join(Flow).where(
            (Flow.organization == acme) & (Flow.archived == False))  # noqa: E712
            .order_by(Trail.id.desc()).paginate(number, per_page)]

    def every_page_is_the_offset_page(total: int) -> None:
        for per_page in (1, 2, 4, 100):
            for number in range(1, total // per_page + 3):  # and a page past the end
                rows, pagination = trails.list_trails(acme, page_of(number, per_page))
                assert (names(rows), pagination["total"]) == (
                    offset_page(number, per_page), total), (number, per_page)

    statements = recorded_statements(monkeypatch)
    every_page_is_the_offset_page(9)
    assert any("list_entry" in sql for sql in statements)
    flows.upsert_flow(acme, "old", "")
    trails.begin_trail(acme, "old", {"name": "t9"}, alice)
    flows.archive_flow(acme, "old")  # its trails are not listed: the rows are walked
    statements.clear()
    every_page_is_the_offset_page(9)
    assert not any("list_entry" in sql for sql in statements)


def test_artifact_pages_of_a_flow_and_of_the_organization_by_position_are_the_offset_pages(
        acme, alice):
    for flow in ("api", "web"):
        flows.upsert_flow(acme, flow, "")
    reports = [("api", 1), ("web", 2), ("api", 3), ("api", 1), ("web", 4), ("api", 5),
               ("web", 6), ("api", 7)]  # artifact 1 reported again: listed once
    def built(fingerprint: str, trail: str) -> dict:
        return {"fingerprint": fingerprint, "filename": "app", "trail_name": trail,
                "git_commit": "c" * 40, "build_url": "https://ci.example/1",
                "commit_url": "https://git.example/c"}

    for flow, i in reports:
        artifacts.report_artifact(acme, alice, flow, built(f"{i:064x}", f"t{i % 3}"))
    other = Organization.get(Organization.name == "acme-shared")
    flows.upsert_flow(other, "api", "")
    artifacts.report_artifact(other, alice, "api", built("f" * 64, "t"))

    def offset_page(scope: peewee.Expression, number: int, per_page: int) -> list[str]:
        return [a.fingerprint for a in Artifact.select(Artifact.fingerprint).where(scope)
                .order_by(Artifact.id.desc()).paginate(number, per_page)]

    for flow, scope in ((None, Artifact.organization == acme),
                        ("api", Artifact.flow == Flow.get(Flow.name == "api",
                                                          Flow.organization == acme)),
                        ("web", Artifact.flow == Flow.get(Flow.name == "web",
                                                          Flow.organization == acme))):
        for per_page in (1, 3, 100):
            for number in range(1, 7 // per_page + 3):  # and a page past the end
                assert [a.fingerprint for a in artifacts.list_artifacts(
                    acme, page_of(number, per_page), flow_name=flow)] == \
                    offset_page(scope, number, per_page), (flow, number, per_page)
    assert len(offset_page(Artifact.organization == acme, 1, 100)) == 7


# ---- organizations -------------------------------------------------------------------------

def test_bootstrap_is_idempotent_adds_new_things_and_refuses_bad_specs(conn):
    before = {model: model.select().count() for model in (Organization, User, Membership, ApiKey)}
    assert organizations.bootstrap(BOOTSTRAP) == {"organizations": 0, "users": 0, "api_keys": 0}
    assert {model: model.select().count() for model in before} == before
    assert organizations.authenticate(f"Bearer {ALICE_KEY}", "acme").user.name == "alice"

    spec = {"organizations": [{"name": "acme", "features": ["controls", "beta"]},
                              {"name": "newco"}],
            "users": [{"name": "carol", "organizations": ["newco", "acme"],
                       "api_keys": ["carol-secret-key-0123456789", {"key": ALICE_KEY}]}]}
    assert organizations.bootstrap(spec) == {"organizations": 1, "users": 1, "api_keys": 1}
    acme = Organization.get(Organization.name == "acme")
    assert acme.features == ["beta", "controls"]
    assert acme.last_modified_at > acme.created_at
    carol = User.get(User.name == "carol")
    assert carol.default_org == "newco"
    assert organizations.authenticate("Bearer carol-secret-key-0123456789", "acme").user.name == "carol"
    # An existing key stays with its user.
    assert organizations.authenticate(f"Bearer {ALICE_KEY}", None).user.name == "alice"

    with pytest.raises(InvalidArgument):
        organizations.bootstrap(["not", "an", "object"])
    with pytest.raises(NotFound):
        organizations.bootstrap({"users": [{"name": "dave", "organizations": ["nowhere"]}]})
    with pytest.raises(InvalidArgument):
        organizations.bootstrap({"organizations": [{"name": "bad name"}]})
    with pytest.raises(InvalidArgument):
        organizations.bootstrap({"users": [{"name": "erin", "api_keys": [""]}]})
    assert not User.select().where(User.name.in_(["dave", "erin"])).exists()


def basic_header(key, password):
    return "Basic " + base64.b64encode(f"{key}:{password}".encode()).decode()


def test_authenticate_with_bearer_or_basic(conn):
    caller = organizations.authenticate(f"Bearer {ALICE_KEY}", "acme")
    assert (caller.user.name, caller.org.name) == ("alice", "acme")
    assert organizations.authenticate(f"bearer   {BOB_KEY}  ", "other").user.name == "bob"
    # Basic: the key is the user name; the password may be anything, including empty.
    for password in ["", "anything", "with:colons:inside"]:
        caller = organizations.authenticate(basic_header(ALICE_KEY, password), "acme-shared")
        assert (caller.user.name, caller.org.name) == ("alice", "acme-shared"), password

    anywhere = organizations.authenticate(f"Bearer {ALICE_KEY}", None)
    assert anywhere.organization is None
    with pytest.raises(InvalidArgument):
        anywhere.org  # noqa: B018 - the property raises


def test_authenticate_refusals(conn):
    unauthenticated = [
        None, "", f"Bearer {ALICE_KEY}x", "Bearer ", "Token abc", ALICE_KEY, "Basic !!!not-base64",
        "Basic " + base64.b64encode(b"nocolon").decode(), basic_header("", "password-only"),
        basic_header("unknown-key", ""),
    ]
    for header in unauthenticated:
        with pytest.raises(Unauthenticated):
            organizations.authenticate(header, "acme")
    # A foreign organization and an unknown one answer alike.
    for org in ["other", "no-such-org"]:
        with pytest.raises(PermissionDenied) as caught:
            organizations.authenticate(f"Bearer {ALICE_KEY}", org)
        assert caught.value.message == f"You do not have access to organization '{org}'"
    with pytest.raises(PermissionDenied):
        organizations.authenticate(basic_header(BOB_KEY, "x"), "acme")

    key_hash = callers.hash_key(ALICE_KEY)
    ApiKey.update(expires_at=1.0).where(ApiKey.key_hash == key_hash).execute()
    with pytest.raises(Unauthenticated):
        organizations.authenticate(f"Bearer {ALICE_KEY}", None)
    ApiKey.update(expires_at=None, revoked=True).where(ApiKey.key_hash == key_hash).execute()
    with pytest.raises(Unauthenticated):
        organizations.authenticate(f"Bearer {ALICE_KEY}", None)
    assert organizations.authenticate(f"Bearer {BOB_KEY}", None).user.name == "bob"


def test_current_caller_requires_one():
    with pytest.raises(Unauthenticated):
        callers.current_caller()
    caller = callers.Caller(user=User(name="someone"))
    token = callers.set_current_caller(caller)
    try:
        assert callers.current_caller() is caller
    finally:
        callers.reset_current_caller(token)
    with pytest.raises(Unauthenticated):
        callers.current_caller()


def test_default_organization_and_experimental_features(acme, alice):
    assert organizations.default_organization(alice) == "acme"
    organizations.set_default_organization(alice, Organization.get(Organization.name == "acme-shared"))
    assert organizations.default_organization(User.get_by_id(alice.id)) == "acme-shared"

    assert organizations.organization_view(acme)["experimental_features_enabled"] is False
    organizations.set_experimental_features(acme, True)
    view = organizations.organization_view(Organization.get_by_id(acme.id))
    assert view["experimental_features_enabled"] is True
    assert view["features"] == ["controls"]
    assert (view["name"], view["kind"]) == ("acme", "shared")
    assert organizations.organization_has_feature(acme, "controls") is True
    assert organizations.organization_has_feature(acme, "beta") is False


# ---- prepared queries ----------------------------------------------------------------------

def test_prepared_in_lists_of_every_length_answer_as_the_built_query(acme):
    names_list = [f"f-{i}" for i in range(6)]
    for name in names_list:
        flows.upsert_flow(acme, name, "")
    by_names = storage.Prepared(lambda org, wanted: Flow.select(Flow.name).where(
        (Flow.organization == org) & Flow.name.in_(wanted)).order_by(Flow.name),
        org=int, wanted=list[str])
    # 0..6 values hit the forms of length 0, 1, 2, 4 and 8 (the padding repeats the last).
    for count in range(len(names_list) + 1):
        wanted = names_list[:count] + ["missing"]
        expected = [(n,) for n in sorted(names_list[:count])]
        assert by_names.rows(org=acme.id, wanted=wanted) == expected
    assert by_names.rows(org=acme.id, wanted=[]) == []
    sql, params = by_names.sql(org=acme.id, wanted=["f-0", "f-1", "f-2"])
    assert sql.count("?") + sql.count("%s") == 5 and params[1:] == ["f-0", "f-1", "f-2", "f-2"]


def test_prepared_models_carry_their_joined_models(acme, alice):
    flows.upsert_flow(acme, "joined", "")
    trails.begin_trail(acme, "joined", {"name": "t-1"}, alice)
    of_flows = storage.Prepared(lambda ids: Trail.select(Trail, Flow).join(Flow)
                                .where(Flow.id.in_(ids)), ids=list[int])
    flow = Flow.get(Flow.name == "joined")
    [trail] = of_flows.models(Trail, ids=[flow.id])
    assert (trail.name, trail.flow.name, trail.flow.id) == ("t-1", "joined", flow.id)
    assert trail.created_at == Trail.get_by_id(trail.id).created_at  # converted as peewee would
    assert trail.flow.archived is False
    # Each keeps the row it was made of: hashable, and a new one once the data changes.
    assert trail.__row__ is trail.flow.__row__ and hash(trail.__row__)
    assert "t-1" in trail.__row__ and "joined" in trail.__row__
    Flow.update(description="changed").where(Flow.id == flow.id).execute()
    assert of_flows.models(Trail, ids=[flow.id])[0].__row__ != trail.__row__
    # Columns of a model the rows' model has no foreign key to are refused.
    unrelated = storage.Prepared(lambda ids: Flow.select(Flow, Trail).join(Trail)
                                 .where(Flow.id.in_(ids)), ids=list[int])
    with pytest.raises(TypeError):
        unrelated.models(Flow, ids=[flow.id])


def test_prepared_inserts_store_what_peewee_would(acme, alice):
    """A compiled insert converts its values by their fields, fills defaults and gives the new
    key on either engine: the row reads back as the one `Model.create` stores."""
    flows.upsert_flow(acme, "inserted", "")
    trail, _ = trails.begin_trail(acme, "inserted", {"name": "t-1"}, alice)
    events = storage.PreparedInsert(TrailEvent)
    stored = [events.create(trail=trail, timestamp=1.5 + i, type="kind",
                            payload={"n": i, "text": "ü\n\"x\""}) for i in range(3)]
    assert len({e.id for e in stored}) == 3 and all(isinstance(e.id, int) for e in stored)
    by_peewee = TrailEvent.create(trail=trail, timestamp=9.0, type="kind", payload={"n": 9})
    assert by_peewee.id > stored[-1].id > stored[0].id  # one sequence, whoever inserts
    for event in stored:
        again = TrailEvent.get_by_id(event.id)
        assert (again.trail_id, again.timestamp, again.type, again.payload) == (
            trail.id, event.timestamp, "kind", event.payload)
        assert event.trail is trail  # a foreign key given as an instance stays related
    # A field not given gets its default; the touch of a trail is a compiled UPDATE.
    assert events.create(trail=trail.id, timestamp=2.0, type="bare").payload == {}
    assert TrailEvent.get(TrailEvent.type == "bare").payload == {}
    trails.reported(acme, trail, 123.25, "touched", {})
    assert Trail.get_by_id(trail.id).last_modified_at == 123.25
    # A constraint still holds: nothing is stored without its trail.
    with pytest.raises(peewee.IntegrityError), storage.database.atomic():
        events.create(trail=None, timestamp=3.0, type="orphan")
    assert not TrailEvent.select().where(TrailEvent.type == "orphan").exists()
