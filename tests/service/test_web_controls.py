"""The controls pages (issue 34, working_with_controls.mdx): the catalog with its search, tag
filter and archived view, each control's page with its Decisions, Coverage and Versions views,
all filtered by query parameters (links to share), escaped, bounded, refusing who may not read
them and showing a page for anything a visitor types."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from rest_shim.web import control_pages
from tests.conftest import BOB_KEY, ROLE_KEYS, bearer
from tests.helpers import FP, NASTY, H, attest, begin_trail, create_flow, report_artifact, sign_in
from tests.helpers import world as world  # noqa: F401 - fixture

BASE = "/api/v2/controls/acme"


def create(client, identifier: str, name: str, **extra: Any) -> None:
    answer = client.post(BASE, headers=H, json={"identifier": identifier, "name": name, **extra})
    assert answer.status_code == 201, answer.get_json()


def tag(client, identifier: str, **tags: str) -> None:
    answer = client.patch(f"/api/v2/tags/acme/control/{identifier}", headers=H,
                          json={"set_tags": tags, "remove_tags": []})
    assert answer.status_code == 200, answer.get_json()


def decide(client, control: str, compliant: bool, flow: str = "payments",
           trail: str = "release-1", **about: Any) -> None:
    answer = attest(client, "system", {
        "attestation_name": "review-decision", "type_name": "decision", "control": control,
        "attestation_data": {"is_compliant": compliant}, "user_data": {}, **about},
        flow=flow, trail=trail)
    assert answer.status_code == 201, answer.get_json()


def environment(client, name: str, *policies: str) -> None:
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": name, "type": "K8S", "description": ""})
    if policies:
        attached = client.post(f"/api/v2/environments/acme/{name}/policies", headers=H,
                               json={"policy_names": list(policies)})
        assert attached.status_code == 200, attached.get_json()


def policy(client, name: str, *controls: str) -> None:
    rules = "".join(f"    - type: decision\n      for_control: {c}\n" for c in controls)
    text = f"_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n" \
           f"  attestations:\n{rules}"
    answer = client.put("/api/v2/policies/acme", headers=H, content_type="multipart/form-data",
                        data={"payload": json.dumps({"name": name, "description": "",
                                                     "type": "env"}),
                              "policy_file": (io.BytesIO(text.encode()), "p.yml")})
    assert answer.status_code == 201, answer.get_json()


def page(client, path: str, status: int = 200) -> str:
    answer = client.get(path)
    assert answer.status_code == status, (path, answer.status_code)
    assert "text/html" in answer.content_type, path
    return answer.get_data(as_text=True)


def identifiers(text: str) -> list[str]:
    """The controls listed, in order, by their links."""
    return re.findall(r'<a href="/acme/controls/([^"?/]+)"><code>', text)


@pytest.fixture
def catalog(world):
    create(world, "SDLC-0002", "binary provenance", description="Known provenance")
    create(world, "SDLC-0022", "vulnerability scanning",
           description="Images are scanned", links={"runbook": "https://wiki.example/scan",
                                                    "bad": "javascript:alert(1)"})
    create(world, "RCTL-043", "Source code review", description=NASTY)
    create(world, "OLD-1", "retired check")
    tag(world, "SDLC-0022", framework="finos", tier="1")
    tag(world, "SDLC-0002", framework="soc2")
    assert world.post(f"{BASE}/OLD-1/archive", headers=H).status_code == 200
    sign_in(world)
    return world


def test_the_catalog_links_each_control_and_shows_its_version_and_tags(catalog):
    text = page(catalog, "/acme/controls")
    assert identifiers(text) == ["RCTL-043", "SDLC-0002", "SDLC-0022"]  # by name
    assert "Controls (3)" in text and "Archived (1)" in text
    assert "<code>framework=finos</code>" in text and '<span class="badge">V1</span>' in text
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in text and "<script>alert" not in text
    assert identifiers(page(catalog, "/acme/controls?sort=desc")) == [
        "SDLC-0022", "SDLC-0002", "RCTL-043"]


@pytest.mark.parametrize(("query", "found"), [
    ("search=scan", ["SDLC-0022"]),  # by name
    ("search=rctl", ["RCTL-043"]),  # by identifier, any case
    ("search=nothing-like-it", []),
    ("tag=framework", ["SDLC-0002", "SDLC-0022"]),
    ("tag=framework:finos", ["SDLC-0022"]),
    ("tag=framework&tag=tier:1", ["SDLC-0022"]),
    ("tag=framework:soc2&search=vuln", []),
    ("archived=true", ["OLD-1"]),
    ("archived=true&search=retired", ["OLD-1"]),
    ("archived=true&search=scan", []),
])
def test_the_catalog_filters_on_the_server_by_query_parameters(catalog, query: str,
                                                               found: list[str]):
    text = page(catalog, f"/acme/controls?{query}")
    assert identifiers(text) == found
    if not found:
        assert "No control matches." in text


def test_the_filter_form_keeps_what_was_asked_and_offers_every_tag(catalog):
    text = page(catalog, "/acme/controls?search=scan&tag=framework:finos&tag=tier")
    assert 'name="search" value="scan"' in text
    assert '<option value="framework:finos" selected>framework: finos</option>' in text
    assert '<option value="tier:1">tier: 1</option>' in text
    assert '<input type="hidden" name="tag" value="tier">' in text  # the second filter kept
    archived = page(catalog, "/acme/controls?archived=true")
    assert '<input type="hidden" name="archived" value="true">' in archived
    assert 'aria-current="page">Archived (1)</a>' in archived


@pytest.mark.parametrize("query", [
    "search=.*%5B(%5C", "search=%25", "search=_", "search=%00%1b%5B31m", "search=" + "x" * 20000,
    "search=%F0%9F%92%A5%E2%80%AE", "tag=%00", "tag=" + "&tag=".join(map(str, range(40))),
    "tag=:", "tag=a:b:c", "page=-3", "page=0", "page=abc", "page=99999999999999999999",
    "page=1e9", "archived=maybe", "sort=%3Cscript%3E", "search=%3Cscript%3Ealert(1)%3C/script%3E",
])
def test_hostile_catalog_queries_show_a_clean_page(catalog, query: str):
    text = page(catalog, f"/acme/controls?{query}")
    assert "<script>alert" not in text and "<h1>Controls</h1>" in text


def test_what_a_hostile_query_had_cut_is_said(catalog):
    text = page(catalog, "/acme/controls?search=scan%00%07" + "&tag=t" + "&tag=t".join(
        map(str, range(12))))
    assert "Control characters were removed from the search." in text
    assert f"Only the first {control_pages.MAX_TAGS} tag filters were applied." in text
    long = page(catalog, "/acme/controls?search=" + "a" * 500)
    assert f"The search was shortened to {control_pages.MAX_TEXT} characters." in long
    # a search for % or _ is a search for that character, not a wildcard
    assert identifiers(page(catalog, "/acme/controls?search=%25")) == []
    assert identifiers(page(catalog, "/acme/controls?search=_")) == []


def test_a_long_catalog_is_paged_with_its_filters_kept(catalog, monkeypatch):
    monkeypatch.setattr(control_pages, "PER_PAGE", 2)
    first = page(catalog, "/acme/controls?search=s")
    assert identifiers(first) == ["RCTL-043", "SDLC-0002"]
    assert "Page 1 of 2 (3 controls, 2 a page)" in first
    assert '<a href="/acme/controls?search=s&amp;page=2" rel="next">next</a>' in first
    second = page(catalog, "/acme/controls?search=s&page=2")
    assert identifiers(second) == ["SDLC-0022"]
    assert '<a href="/acme/controls?search=s" rel="prev">previous</a>' in second
    assert identifiers(page(catalog, "/acme/controls?search=s&page=9")) == []


@pytest.fixture
def decided(catalog):
    """Decisions on SDLC-0022 in two flows; one is about a build of another flow."""
    create_flow(catalog, "release")
    begin_trail(catalog, "release", "promotion-1")
    decide(catalog, "SDLC-0022", True, artifact_fingerprint=FP)  # payments' backend build
    catalog.put(f"{BASE}/SDLC-0022", headers=H, json={"description": "All images are scanned"})
    decide(catalog, "SDLC-0022", False, flow="release", trail="promotion-1",
           artifact_fingerprint=FP)
    decide(catalog, "SDLC-0022", True, flow="release", trail="promotion-1")
    decide(catalog, "RCTL-043", True)
    return catalog


def decision_rows(text: str) -> list[str]:
    return re.findall(r"<tr><td>\d{4}-\d\d-\d\d [\d:]+ UTC</td>\s*<td>.*?</tr>", text, re.S)


def test_the_control_page_shows_its_decisions_newest_first_with_links(decided):
    text = page(decided, "/acme/controls/SDLC-0022")
    assert "<h1><code>SDLC-0022</code> <span class=\"badge\">V2</span></h1>" in text
    assert '<a href="https://wiki.example/scan" rel="noopener">runbook</a>' in text
    assert 'href="javascript' not in text and "bad javascript:alert(1)" in text
    assert 'aria-current="page">Decisions</a>' in text and "Decisions (3)" in text
    rows = decision_rows(text)
    assert [("Non-compliant" in r, "promotion-1" in r) for r in rows] == [
        (False, True), (True, True), (False, False)]
    newest, middle, oldest = rows
    assert "the trail" in newest and 'class="badge">V2</a>' in newest
    ids = re.findall(r"\?attestation_id=([^\"]+)\"", "".join(rows))
    assert len(set(ids)) == 3
    assert f'<a href="/acme/flows/release/trails/promotion-1?attestation_id={ids[1]}"' in middle
    # a release trail's decision about a build reported in another flow links that flow's artifact
    assert f'<a href="/acme/flows/payments/artifacts/{FP}">backend.tgz</a>' in middle
    assert 'href="/acme/controls/SDLC-0022/versions#v1" class="badge">V1</a>' in oldest
    assert "<td>alice</td>" in oldest
    answered = decided.get(f"{BASE}/SDLC-0022/decisions/{ids[0]}", headers=H).get_json()
    assert answered["control_version"] == 2


@pytest.mark.parametrize(("query", "expected"), [
    ("outcome=compliant", 2), ("outcome=non-compliant", 1), ("flow=release", 2),
    ("flow=payments", 1), ("flow=release&outcome=compliant", 1), ("flow=absent", 0),
    ("flow=release&flow=payments", 3),
])
def test_decisions_filter_by_outcome_and_flow(decided, query: str, expected: int):
    text = page(decided, f"/acme/controls/SDLC-0022?{query}")
    assert len(decision_rows(text)) == expected and f"Decisions ({expected})" in text


def test_decisions_sort_oldest_first_and_page(decided, monkeypatch):
    oldest = decision_rows(page(decided, "/acme/controls/SDLC-0022?sort=asc"))
    assert "payments" in oldest[0] and "V1" in oldest[0]
    monkeypatch.setattr(control_pages, "PER_PAGE", 2)
    first = page(decided, "/acme/controls/SDLC-0022?outcome=&sort=asc")
    assert len(decision_rows(first)) == 2 and "Page 1 of 2 (3 decisions, 2 a page)" in first
    assert 'href="/acme/controls/SDLC-0022?outcome=&amp;sort=asc&amp;page=2"' in first
    assert len(decision_rows(page(decided, "/acme/controls/SDLC-0022?sort=asc&page=2"))) == 1


def test_coverage_shows_which_environments_enforce_the_control(decided):
    policy(decided, "scan-prod", "SDLC-0022")
    policy(decided, "review-only", "RCTL-043")
    environment(decided, "aws-prod", "scan-prod")
    environment(decided, "aws-beta", "review-only")
    environment(decided, "aws-drift")
    text = page(decided, "/acme/controls/SDLC-0022/coverage")
    assert 'aria-current="page">Coverage</a>' in text
    assert "<strong>33%</strong> (1 of 3 environments)" in text
    rows = re.findall(r'<tr><td><a href="/acme/environments/([^"]+)">.*?</tr>', text, re.S)
    assert rows == ["aws-beta", "aws-drift", "aws-prod"]
    assert re.search(r"aws-prod</a></td><td>K8S</td>\s*<td>scan-prod</td>\s*"
                     r'<td><span class="state ok">Covered</span>', text)
    assert "required by" in text and "scan-prod" in text
    only = page(decided, "/acme/controls/SDLC-0022/coverage?status=not-covered")
    assert "aws-prod" not in only and "aws-beta" in only and "Environments (2)" in only
    found = page(decided, "/acme/controls/SDLC-0022/coverage?search=PROD")
    assert "Environments (1)" in found and "(1 of 3 environments)" in found  # the summary: all
    assert "No environment matches." in page(
        decided, "/acme/controls/SDLC-0022/coverage?search=%00zz&status=covered")


def test_versions_show_what_changed_who_and_when(catalog):
    catalog.put(f"{BASE}/SDLC-0002", headers=H, json={
        "name": "artifact provenance", "links": {"doc": "https://doc.example/p"}})
    catalog.put(f"{BASE}/SDLC-0002", headers=H, json={"description": "<b>new</b>"})
    catalog.post(f"{BASE}/SDLC-0002/archive", headers=H)
    catalog.post(f"{BASE}/SDLC-0002/unarchive", headers=H)
    text = page(catalog, "/acme/controls/SDLC-0002/versions")
    assert "Versions (5)" in text and 'aria-current="page">Versions</a>' in text
    rows = re.findall(r'<tr id="v(\d)">(.*?)</tr>', text, re.S)
    assert [number for number, _ in rows] == ["5", "4", "3", "2", "1"]
    changed = {number: re.search(r"</td><td>\w+</td>\s*<td>(.*?)</td>", row, re.S).group(1)
               for number, row in rows}
    assert changed == {"5": "Back in the catalog", "4": "Left the catalog for the Archived view",
                       "3": "Description changed",
                       "2": "Name: binary provenance → artifact provenance<br>Link added: doc",
                       "1": "First version"}
    assert "&lt;b&gt;new&lt;/b&gt;" in rows[2][1] and "<td>alice</td>" in rows[0][1]


def test_versions_page_their_changes_across_pages(catalog, monkeypatch):
    for name in ("two", "three"):
        catalog.put(f"{BASE}/SDLC-0002", headers=H, json={"name": name})
    monkeypatch.setattr(control_pages, "PER_PAGE", 1)
    second = page(catalog, "/acme/controls/SDLC-0002/versions?page=2")
    assert 'id="v2"' in second and "Name: binary provenance → two" in second
    assert "Page 2 of 3 (3 versions, 1 a page)" in second


@pytest.mark.parametrize("path", ["/acme/controls/NOPE-1", "/acme/controls/NOPE-1/coverage",
                                  "/acme/controls/NOPE-1/versions",
                                  "/acme/controls/" + "x" * 5000,
                                  "/acme/controls/%3Cscript%3E", "/acme/controls/a%0Ab"])
def test_a_missing_control_is_an_html_not_found_page(catalog, path: str):
    text = page(catalog, path, 404)
    assert "<h1>Not found</h1>" in text and "<script>" not in text.split("</style>")[1]


def test_an_identifier_no_request_may_carry_is_a_clean_bad_request_page(catalog):
    assert "<h1>Bad request</h1>" in page(catalog, "/acme/controls/a%00b", 400)


def test_hostile_control_page_queries_show_a_clean_page(decided):
    for query in ("outcome=maybe", "sort=sideways", "flow=%00", "flow=" + "f" * 9000,
                  "page=-1", "page=99999999999999999999", "status=x&search=%1b"):
        for view in ("", "/coverage", "/versions"):
            text = page(decided, f"/acme/controls/SDLC-0022{view}?{query}")
            assert "<h1><code>SDLC-0022</code>" in text, (view, query)


def test_who_may_read_the_controls_pages(catalog):
    paths = ("/acme/controls", "/acme/controls/SDLC-0022", "/acme/controls/SDLC-0022/coverage",
             "/acme/controls/SDLC-0022/versions")
    catalog.post("/sign-out", data={"csrf": re.search(
        r'name="csrf" value="([^"]+)"', page(catalog, "/acme")).group(1)})
    for path in paths:
        answer = catalog.get(path)  # anonymous: to the sign-in form
        assert answer.status_code == 302 and "/sign-in?next=" in answer.headers["Location"]
        assert catalog.get(path, headers=bearer(ROLE_KEYS["reader"])).status_code == 200
        assert catalog.get(path, headers=bearer(BOB_KEY)).status_code == 403  # another org
    # alice's other organization has no Controls feature
    refused = catalog.get("/acme-shared/controls", headers=H)
    assert refused.status_code == 403 and "text/html" in refused.content_type
    assert "Controls feature (beta) is not enabled" in refused.get_data(as_text=True)


def test_the_organization_header_links_the_catalog_and_the_old_page_answers(world):
    report_artifact(world, FP, "backend.tgz")
    sign_in(world)
    assert '<a href="/acme/controls">Controls</a>' in page(world, "/acme")
    assert "No controls." in page(world, "/acme/controls")
    assert "No archived controls." in page(world, "/acme/controls?archived=true")
