"""The web pages behind html_url (issue 13) over plain HTTP: sign-in with CSRF and a signed
session cookie, who may see what, escaping of everything reported, and each page's content."""

from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest
from markupsafe import escape

from tests.conftest import ALICE_KEY, BOB_KEY, bearer, govern, recorded_statements
from tests.helpers import FP, H, attest, begin_trail, csrf_of, report_artifact, sign_in
from tests.helpers import world as world  # noqa: F401 - fixture


def run_in(client, env: str, *artifacts: tuple[str, str]) -> None:
    """Create a server environment and report these (name, fingerprint) running in it."""
    client.put("/api/v2/environments/acme", headers=H,
               json={"name": env, "type": "server", "description": ""})
    answer = client.put(f"/api/v2/environments/acme/{env}/report/server", headers=H,
                        json={"artifacts": [{"digests": {name: fp}, "creationTimestamp": 5}
                                            for name, fp in artifacts]})
    assert answer.status_code in (200, 201), answer.get_json()


def test_anonymous_visitors_of_a_private_organization_are_sent_to_sign_in(world):
    answer = world.get("/acme/flows/payments/trails/release-1")
    assert answer.status_code == 302
    assert answer.headers["Location"].startswith("/sign-in?next=")
    assert "/acme/flows/payments/trails/release-1" in answer.headers["Location"]
    assert world.get("/acme").status_code == 302


def test_sign_in_keeps_a_signed_http_only_same_site_cookie_and_sign_out_clears_it(world):
    signed = sign_in(world, next_path="/acme/flows/payments")
    assert signed.status_code == 302 and signed.headers["Location"] == "/acme/flows/payments"
    cookie = signed.headers["Set-Cookie"]
    assert "evidence_session=" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    page = world.get("/acme")
    assert page.status_code == 200 and "payments" in page.get_data(as_text=True)
    token = csrf_of(page)
    assert world.post("/sign-out", data={"csrf": "forged"}).status_code == 400
    assert world.get("/acme").status_code == 200  # a forged sign-out does nothing
    out = world.post("/sign-out", data={"csrf": token})
    assert out.status_code == 302
    assert world.get("/acme").status_code == 302


def test_a_tampered_session_cookie_is_ignored(world):
    sign_in(world)
    cookie = world.get_cookie("evidence_session")
    world.set_cookie("evidence_session", cookie.value[:-4] + "AAAA")
    assert world.get("/acme").status_code == 302


def test_sign_in_refuses_a_missing_csrf_token_a_wrong_key_and_another_orgs_key(world):
    assert world.post("/sign-in", data={"org": "acme", "key": ALICE_KEY}).status_code == 400
    wrong = sign_in(world, key="not-a-key-0123456789012")
    assert wrong.status_code == 401 and "not valid" in wrong.get_data(as_text=True)
    assert world.get("/acme").status_code == 302
    other = sign_in(world, key=BOB_KEY)  # bob belongs to "other"
    assert other.status_code == 401
    assert world.get("/acme").status_code == 302


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/\\evil.example",
                                    "javascript:alert(1)"])
def test_sign_in_never_redirects_off_the_site(world, target: str):
    signed = sign_in(world, next_path=target)  # refused, signing nobody in (test_web_hardening)
    assert signed.status_code == 400 and "Set-Cookie" not in signed.headers


def test_an_authorization_header_is_accepted_without_a_session(world):
    page = world.get("/acme", headers=H)
    assert page.status_code == 200
    # its header knows the reader signed in with that key: no "Sign in", no "Sign out"
    header = page.get_data(as_text=True).split("</header>")[0]
    assert "Signed in with an API key" in header and "Sign in" not in header
    assert "Signed in with an API key" not in world.get("/sign-in").get_data(as_text=True)
    refused = world.get("/acme", headers={"Authorization": "Bearer wrong-key-0123456789012"})
    assert refused.status_code == 401 and "text/html" in refused.content_type
    assert "Signed in with an API key" not in refused.get_data(as_text=True)
    other = world.get("/acme", headers=bearer(BOB_KEY))
    assert other.status_code == 403


def test_a_page_authenticates_its_key_once_and_each_request_anew(world, monkeypatch):
    from evidence_grpc.domain.identity import organizations

    seen = []
    real = organizations.authenticate
    monkeypatch.setattr(organizations, "authenticate",
                        lambda header, org: seen.append(org) or real(header, org))
    page = world.get("/acme/flows/payments/trails/release-1", headers=H)
    assert page.status_code == 200 and "unit-tests" in page.get_data(as_text=True)
    assert seen == ["acme"]  # GetTrail and the attestation list shared one authentication
    world.get("/acme/flows/payments/trails/release-1", headers=H)
    assert seen == ["acme", "acme"]  # a revoked key would be refused at the next request
    assert world.get("/acme/flows/payments/trails/release-1",
                     headers=bearer("not-a-key")).status_code in (302, 401)


def test_everything_reported_is_shown_as_text(world):
    sign_in(world)
    for path in ("/acme", "/acme/flows/payments", "/acme/flows/payments/trails/release-1"):
        text = world.get(path).get_data(as_text=True)
        assert "<script>alert" not in text and "<img src=x" not in text, path
        assert 'href="javascript:' not in text, path
    trail = world.get("/acme/flows/payments/trails/release-1").get_data(as_text=True)
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in trail
    assert "&lt;img src=x onerror=alert(1)&gt;" in trail


def test_the_trail_page_shows_attestations_compliance_artifacts_and_timeline(world):
    sign_in(world)
    trail = world.get("/acme/flows/payments/trails/release-1")
    assert trail.status_code == 200
    text = trail.get_data(as_text=True)
    assert "COMPLIANT" in text
    assert "Attestations (2)" in text and "unit-tests" in text and "ticket" in text
    assert "&#34;total&#34;: 3" in text  # the junit results, as data
    assert "backend.tgz" in text and f"/acme/flows/payments/artifacts/{FP}" in text
    # the timeline in the words and columns `kosli get trail` prints its events with
    assert "<th>Time</th><th>Description</th><th>Git commit</th><th>Compliance</th>" in text
    for said in ("trail started", "artifact &#39;backend.tgz&#39; created for template name "
                 "&#39;backend&#39;", "&#39;junit&#39; attestation reported for backend.unit-tests",
                 "&#39;generic&#39; attestation reported for ticket on the trail"):
        assert f"<td>{said}</td>" in text, said
    assert "artifact_creation_reported" not in text
    link = re.search(r'href="(/acme/flows/payments/trails/release-1/attestations/[^"]+/attachment)"',
                     text).group(1)
    download = world.get(link)
    assert download.status_code == 200 and download.data == b"<testsuite/>"
    assert "report.xml" in download.headers["Content-Disposition"]


def test_each_attestation_names_its_log_entry_whose_page_shows_its_proof(world):
    sign_in(world)
    [attested] = world.get("/api/v2/attestations/acme/payments/trail/release-1/ticket",
                           headers=H).json
    text = world.get("/acme/flows/payments/trails/release-1").get_data(as_text=True)
    index = attested["log_index"]
    assert f'Transparency log: <a href="/acme/log/entries/{index}">entry {index}</a>' in text
    page = world.get(f"/acme/log/entries/{index}").get_data(as_text=True)
    entry = world.get(f"/api/v2/transparency/acme/entries/{index}", headers=H).json
    size = int(world.get("/api/v2/transparency/acme/checkpoint", headers=H).get_data(
        as_text=True).split("\n")[1])
    proof = world.get(f"/api/v2/transparency/acme/proofs/inclusion?index={index}"
                      f"&tree_size={size}", headers=H).json
    assert entry["leaf_hash"] in page and f"tree_size={size}" in page
    assert all(base64.b64decode(each).hex() in page for each in proof["hashes"])
    assert str(escape(base64.b64decode(entry["leaf"]).decode())) in page
    organization = world.get("/acme").get_data(as_text=True)
    assert f"{size} entries." in organization and "No witness cosigns this log" in organization
    assert world.get("/acme/log/entries/100000").status_code == 404


def test_the_trail_page_follows_an_api_answers_html_url(world):
    [attested] = world.get("/api/v2/attestations/acme/payments/trail/release-1/ticket",
                           headers=H).json
    sign_in(world)
    url = attested["html_url"].removeprefix("http://evidence.test")
    page = world.get(url)
    assert page.status_code == 200
    assert f'id="attestation-{attested["attestation_id"]}" open' in page.get_data(as_text=True)


def test_the_artifact_page_shows_where_it_runs_its_trails_and_evidence(world):
    run_in(world, "prod", ("backend.tgz", FP))
    sign_in(world)
    page = world.get(f"/acme/flows/payments/artifacts/{FP}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "backend.tgz" in text and "release-1" in text and "unit-tests" in text
    assert "/acme/environments/prod/snapshots/1" in text
    # its history: the same lines `kosli get artifact` prints
    history = text.split("<h2>History</h2>")[1]
    assert [cell for cell in re.findall(r"<td>([^<]*)</td></tr>", history)] == [
        "backend reported", "unit-tests reported", "Started running in prod#1 environment"]
    trail = world.get("/acme/flows/payments/trails/release-1").get_data(as_text=True)
    assert ('href="/acme/environments/prod">prod</a> (since '
            '<a href="/acme/environments/prod/snapshots/1">#1</a>)') in trail  # from its events
    # re-reported under a new name: it kept running, in the trail's table and the history
    run_in(world, "prod", ("backend-2.tgz", FP))
    trail = world.get("/acme/flows/payments/trails/release-1").get_data(as_text=True)
    assert ('href="/acme/environments/prod">prod</a> (since '
            '<a href="/acme/environments/prod/snapshots/1">#1</a>)') in trail
    artifact = world.get(f"/api/v2/artifacts/acme/payments/fingerprint/{FP}", headers=H).json
    assert [e["event"] for e in artifact["history"] if "prod#" in e["event"]] == [
        "Started running in prod#1 environment"]
    assert artifact["running"] == [{"environment_name": "prod", "snapshot_index": 2}]
    text = world.get(f"/acme/flows/payments/artifacts/{FP}").get_data(as_text=True)
    assert '/acme/environments/prod/snapshots/2">#2</a></td><td>running' in text
    # one pod, two (as a sidecar starts: scaling alone makes no snapshot), then none in a
    # cluster: its history says so as the hosted docs show it
    world.put("/api/v2/environments/acme", headers=H,
              json={"name": "k8s", "type": "K8S", "description": ""})
    for pods in ({FP: 1}, {FP: 2, "e" * 64: 1}, {}):
        assert world.put("/api/v2/environments/acme/k8s/report/K8S", headers=H, json={
            "artifacts": [{"podName": f"{fp[:4]}-{n}", "namespace": "default",
                           "digests": {fp[:4]: fp}, "creationTimestamp": 5}
                          for fp, count in pods.items() for n in range(count)]}
                         ).status_code in (200, 201)
    artifact = world.get(f"/api/v2/artifacts/acme/payments/fingerprint/{FP}", headers=H).json
    assert [e["event"] for e in artifact["history"] if "k8s#" in e["event"]] == [
        "Started running in k8s#1 environment", "Scaled up from 1 to 2 in k8s#2 environment",
        "No longer running in k8s#3 environment"]
    text = world.get(f"/acme/flows/payments/artifacts/{FP}").get_data(as_text=True)
    assert "<td>Scaled up from 1 to 2 in k8s#2 environment</td>" in text


def test_the_artifact_page_lists_the_trail_it_was_reported_to_not_the_flows_others(world):
    begin_trail(world, "payments", "release-2")  # no artifact
    sign_in(world)
    text = world.get(f"/acme/flows/payments/artifacts/{FP}").get_data(as_text=True)
    trails = text.split("<h2>Trails</h2>")[1].split("</ul>")[0]
    assert 'href="/acme/flows/payments/trails/release-1">release-1</a>' in trails
    assert "release-2" not in trails


PAGES = {"trail": "/acme/flows/payments/trails/release-1", "flow": "/acme/flows/payments",
         "artifact": f"/acme/flows/payments/artifacts/{FP}"}


def _statements_of_pages(client, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The SQL statements one request of each page runs, once the page was read before."""
    counts = {}
    for page, path in PAGES.items():
        assert client.get(path, headers=H).status_code == 200
        statements = recorded_statements(monkeypatch)
        assert client.get(path, headers=H).status_code == 200
        counts[page] = len(statements)
        monkeypatch.undo()
    return counts


def test_the_statements_of_a_page_do_not_grow_with_what_it_shows(world, monkeypatch):
    """The trail page with more attestations, the flow page with more trails and artifacts,
    the artifact page with more attestations about it (each with user data, annotations,
    some an attachment): the same statements, whatever their number (up to a list's page of
    100)."""
    few = _statements_of_pages(world, monkeypatch)
    for n in range(12):
        answer = attest(world, "generic", {
            "attestation_name": f"check-{n}", "is_compliant": n % 3 != 0,
            "artifact_fingerprint": FP, "user_data": {"run": n},
            "annotations": {"report_url": f"https://ci.example/{n}"}},
            attachment=("log.txt", b"ok") if n % 4 == 0 else None)
        assert answer.status_code == 201, answer.json
        begin_trail(world, "payments", f"release-{n + 2}")
        fingerprint = hashlib.sha256(f"build {n}".encode()).hexdigest()
        assert report_artifact(world, fingerprint, trail=f"release-{n + 2}").status_code == 201
        assert attest(world, "generic", {"attestation_name": "ticket", "is_compliant": True},
                      trail=f"release-{n + 2}").status_code == 201
    many = _statements_of_pages(world, monkeypatch)
    assert many == few
    assert "Attestations (14)" in world.get(PAGES["trail"], headers=H).get_data(as_text=True)


def test_environment_pages_show_snapshots_with_compliance_history_and_diffs(world):
    run_in(world, "prod", ("backend.tgz", FP))  # 1: runs, Unknown (no policy yet)
    govern(world, "prod")  # 2: judged again under the policy
    run_in(world, "prod")  # 3: it stopped
    sign_in(world)
    latest = world.get("/acme/environments/prod").get_data(as_text=True)
    assert "Snapshot #3 (latest)" in latest and "exited" in latest
    assert "policies: house-rules" in latest
    first = world.get("/acme/environments/prod/snapshots/1").get_data(as_text=True)
    assert "Snapshot #1" in first and "backend.tgz" in first and "started" in first
    # #1 is Unknown (no policies) while its artifact shows its own compliance
    heading = first[first.index("<h2>Snapshot #1"):first.index("</h2>")]
    assert ">Unknown</span>" in heading
    row = first[first.index("backend.tgz"):]
    row = row[:row.index("</tr>")]
    assert ">Unknown</span>" not in row and ('state ok' in row or 'state bad' in row)
    history = latest[latest.index("<h2>History</h2>"):]
    assert [line.count(">Unknown</span>") for line in history.split("<tr>")
            if "/snapshots/" in line] == [0, 0, 1]  # #3, #2, #1
    assert world.get("/acme/environments/prod/1").status_code == 200  # the CLI's link form
    diff = world.get("/acme/environments/prod/diff?from=2&to=3").get_data(as_text=True)
    assert "Only in #2 (1)" in diff and "backend.tgz" in diff
    assert world.get("/acme/environments/prod/diff?from=x").status_code == 400
    assert world.get("/acme/environments/prod/snapshots/99").status_code == 404
    assert world.get("/acme/environments/absent").status_code == 404


def test_repo_pages_draw_deployment_charts_as_svg(world):
    run_in(world, "prod", ("backend.tgz", FP))
    sign_in(world)
    home = world.get("/acme").get_data(as_text=True)
    link = re.search(r'href="(/acme/repos/[^"]+)"', home).group(1)
    page = world.get(link)
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert text.count("<svg") == 2 and "deployments per day" in text


def test_policies_and_controls_pages(world):
    run_in(world, "prod")
    govern(world, "prod")
    sign_in(world)
    policies = world.get("/acme/policies").get_data(as_text=True)
    assert "house-rules" in policies and "/acme/environments/prod" in policies
    world.post("/api/v2/controls/acme", headers=H, json={
        "identifier": "SOC2-CC8.1", "name": "<b>Change management</b>"})
    controls = world.get("/acme/controls").get_data(as_text=True)
    assert "SOC2-CC8.1" in controls and "&lt;b&gt;Change management" in controls


def test_a_public_flow_is_readable_without_a_key(world):
    world.put("/api/v2/flows/acme", headers=H, json={
        "name": "payments", "description": "open", "visibility": "public"})
    page = world.get("/acme/flows/payments/trails/release-1")
    assert page.status_code == 200 and "unit-tests" in page.get_data(as_text=True)
    assert world.get("/acme").status_code == 302  # the organization itself stays private


def test_an_archived_flows_page_is_at_the_name_archiving_gave_it(world):
    done = world.put("/api/v2/flows/acme/payments/archive", headers=H, json=None)
    archived = re.fullmatch(r"flow 'payments' was archived as '(payments-archived-at-\d+)'",
                            done.get_json()).group(1)
    gone = world.get("/acme/flows/payments", headers=H)  # its former name is gone with it
    assert gone.status_code == 404 and "text/html" in gone.content_type
    page = world.get(f"/acme/flows/{archived}", headers=H).get_data(as_text=True)
    assert f"<h1>{archived}</h1>" in page
    assert '<p class="meta">archived · ' in page
    assert f'href="/acme/flows/{archived}/trails/release-1"' in page
    assert world.get(f"/acme/flows/{archived}/trails/release-1", headers=H).status_code == 200


def test_unknown_pages_answer_html_not_found(world):
    sign_in(world)
    for path in ("/acme/flows/absent", "/acme/flows/payments/trails/absent",
                 f"/acme/flows/payments/artifacts/{'0' * 64}"):
        answer = world.get(path)
        assert answer.status_code == 404 and "text/html" in answer.content_type, path


def test_attachment_links_need_access_too(world):
    sign_in(world)
    text = world.get("/acme/flows/payments/trails/release-1").get_data(as_text=True)
    link = re.search(r'href="(/acme/flows/payments/trails/release-1/attestations/[^"]+/attachment)"',
                     text).group(1)
    world.post("/sign-out", data={"csrf": csrf_of(world.get("/acme"))})
    assert world.get(link).status_code == 302
    assert world.get(link, headers=bearer(BOB_KEY)).status_code == 403



def test_annotations_show_on_the_trail_page_humanized_with_links(world):
    """getting_started/attestations.md: annotation keys humanized (`report_url` -> "Report
    url"), URL values as links; anything else, a script URL included, is text."""
    answer = world.post("/api/v2/attestations/acme/payments/trail/release-1/generic", headers=H,
                        content_type="multipart/form-data", data={"data_json": json.dumps({
                            "attestation_name": "annotated", "is_compliant": True,
                            "annotations": {"report_url": "https://ci.example/r/1",
                                            "owner": "<b>ops</b>",
                                            "bad_link": "javascript:alert(1)"}})})
    assert answer.status_code == 201, answer.json
    sign_in(world)
    page = world.get("/acme/flows/payments/trails/release-1").get_data(as_text=True)
    assert ('<tr><th>Report url</th><td><a href="https://ci.example/r/1" '
            'rel="noopener noreferrer">https://ci.example/r/1</a></td></tr>') in page
    assert "<tr><th>Owner</th><td>&lt;b&gt;ops&lt;/b&gt;</td></tr>" in page
    assert "<tr><th>Bad link</th><td>javascript:alert(1)</td></tr>" in page
    assert 'href="javascript' not in page
