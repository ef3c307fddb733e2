"""Pages hardened (issue 31, item 6): an invalid `next=` of the sign-in form is a 400 that sets
no cookie; every page says it is not to be framed, sniffed or cached; a public flow's trail,
artifact and attestation pages answer anonymous visitors, a private flow's send them to
sign-in."""

from __future__ import annotations

import re

import pytest

from rest_shim.web import PAGE_HEADERS
from tests.conftest import ALICE_KEY
from tests.helpers import FP, H, csrf_of, sign_in, world  # noqa: F401 - `world` is a fixture

BAD_NEXT = [
    "/acme\r\nSet-Cookie: evil=1", "/acme\nx", "/acme\rx", "/acme\x00", "/acme\tx", "/acme\x7f",
    "https://evil.example/", "//evil.example/", "///evil.example", "/\\evil.example",
    "\\\\evil.example", "/acme\\..", "javascript:alert(1)", "evil.example", "http:/evil",
]


@pytest.mark.parametrize("target", BAD_NEXT)
def test_an_invalid_next_is_a_400_that_sets_no_cookie(world, target):  # noqa: F811
    form = world.get("/sign-in")
    answer = world.post("/sign-in", data={"csrf": csrf_of(form), "org": "acme", "key": ALICE_KEY,
                                          "next": target})
    assert answer.status_code == 400, answer.get_data(as_text=True)
    assert "Set-Cookie" not in answer.headers
    assert "Location" not in answer.headers
    assert world.get("/acme").status_code == 302  # not signed in


@pytest.mark.parametrize("target, location", [
    (None, "/acme"), ("", "/acme"), ("/acme/flows/payments?page=2", "/acme/flows/payments?page=2"),
])
def test_a_path_of_this_site_or_none_still_signs_in(world, target, location):  # noqa: F811
    answer = sign_in(world, next_path=target)
    assert answer.status_code == 302 and answer.headers["Location"] == location
    assert "Set-Cookie" in answer.headers


def _page_paths(app) -> list[str]:
    """Every GET rule of the web blueprint, its variables filled in with the world's names."""
    values = {"org": "acme", "flow": "payments", "trail": "release-1", "fingerprint": FP,
              "env": "prod", "index": "1", "repo": "acme/payments", "attestation_id": "x",
              "identifier": "ctl-1"}
    paths = []
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("web.") or "GET" not in (rule.methods or ()):
            continue
        paths.append(re.sub(r"<(?:[^:>]+:)?([^>]+)>", lambda m: values[m.group(1)], rule.rule))
    return sorted(set(paths))


def test_every_page_is_not_framed_sniffed_or_cached(world):  # noqa: F811
    world.put("/api/v2/environments/acme", headers=H,
              json={"name": "prod", "type": "server", "description": ""})
    paths = _page_paths(world.application)
    assert "/sign-in" in paths and "/acme/flows/payments/trails/release-1" in paths
    assert len(paths) >= 10
    for signed_in in (False, True):
        if signed_in:
            sign_in(world)
        for path in paths:
            answer = world.get(path)
            assert answer.status_code in (200, 302, 400, 404), (path, answer.status_code)
            for header, value in PAGE_HEADERS.items():
                assert answer.headers.get(header) == value, (path, header)
            assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]
    for extra in (world.post("/sign-in", data={"csrf": "stale"}),
                  world.get("/acme/flows/absent")):
        assert extra.headers["X-Frame-Options"] == "DENY"
        assert extra.headers["Cache-Control"] == "no-store"


def test_the_api_keeps_its_own_headers(world):  # noqa: F811
    answer = world.get("/api/v2/flows/acme", headers=H)
    assert answer.status_code == 200 and "X-Frame-Options" not in answer.headers


def test_a_public_flows_pages_answer_anonymous_visitors(world):  # noqa: F811
    world.put("/api/v2/flows/acme", headers=H, json={
        "name": "payments", "description": "open", "visibility": "public"})
    trail = world.get("/acme/flows/payments/trails/release-1")
    assert trail.status_code == 200
    artifact = world.get(f"/acme/flows/payments/artifacts/{FP}")
    text = artifact.get_data(as_text=True)
    assert artifact.status_code == 200, text
    assert "backend.tgz" in text and "/acme/flows/payments/trails/release-1" in text
    assert "Sign in to see its approvals." in text
    link = re.search(r'href="(/acme/flows/payments/trails/release-1/attestations/[^"]+/'
                     r'attachment)"', trail.get_data(as_text=True)).group(1)
    attachment = world.get(link)
    assert attachment.status_code == 200 and attachment.data == b"<testsuite/>"
    assert attachment.headers["X-Content-Type-Options"] == "nosniff"
    attestation_id = link.split("/")[-2]
    selected = world.get(f"/acme/flows/payments/trails/release-1?attestation_id={attestation_id}")
    assert selected.status_code == 200
    assert world.get("/acme").status_code == 302  # the organization itself stays private
    assert world.get("/acme/environments/prod").status_code == 302
    sign_in(world)
    assert "No approvals." in world.get(f"/acme/flows/payments/artifacts/{FP}").get_data(
        as_text=True)


def test_a_private_flows_pages_send_anonymous_visitors_to_sign_in(world):  # noqa: F811
    for path in ("/acme/flows/payments/trails/release-1", f"/acme/flows/payments/artifacts/{FP}"):
        answer = world.get(path)
        assert answer.status_code == 302 and answer.headers["Location"].startswith(
            "/sign-in?next="), path
        assert answer.headers["Cache-Control"] == "no-store"


PAGE_VALUES = ["2147483648", "99999999999999999999", "-1", "-2147483649", "0", "abc", "1e9",
               "\u00b2", "\u0661", " 2", ""]


def test_every_page_takes_huge_negative_and_non_numeric_parameters(world, db):  # noqa: F811
    """Issue 47, item 6: every page's numbers (`?page=`, `?from=`/`?to=`, a snapshot's index)
    are read by one helper that clamps (a page) or refuses (a snapshot number): never a 500,
    signed in or anonymously on a public flow; the flow page shows its last page for a
    page past any list. The API's page fields refuse what an int32 cannot hold, on both doors."""
    from evidence_grpc.api.v2 import trail_service_pb2 as trail_pb
    from evidence_grpc.api.v2 import trail_service_pb2_grpc as trail_grpc
    from tests.conftest import grpc_channel

    world.put("/api/v2/environments/acme", headers=H,
              json={"name": "prod", "type": "server", "description": ""})
    world.put("/api/v2/flows/acme", headers=H, json={
        "name": "payments", "description": "open", "visibility": "public"})
    paths = _page_paths(world.application)
    paths += [p.replace("/1", f"/{huge}") for p in paths if p.endswith("/1")
              for huge in ("2147483648", "99999999999999999999")]
    tried, failures = 0, []
    for signed_in in (False, True):
        if signed_in:
            sign_in(world)
        for path in paths:
            for value in PAGE_VALUES:
                answer = world.get(path, query_string={"page": value, "from": value,
                                                       "to": value})
                tried += 1
                if answer.status_code not in (200, 302, 400, 404):
                    failures.append(f"{path} {value!r} -> {answer.status_code}")
        for value in PAGE_VALUES:
            flow = world.get("/acme/flows/payments", query_string={"page": value})
            assert flow.status_code == 200, (value, flow.status_code)
            diff = world.get("/acme/environments/prod/diff",
                             query_string={"from": value, "to": "1"})
            assert diff.status_code == 400 or value == "0", (value, diff.status_code)
    assert tried > 400 and not failures, f"{len(failures)} of {tried}:\n" + "\n".join(failures)
    for page, status in (("2147483647", 200), ("2147483648", 400), ("-1", 400), ("0", 400)):
        answer = world.get(f"/api/v2/trails/acme/payments?page={page}&per_page=100")
        assert answer.status_code == status, (page, answer.get_data(as_text=True))
    with grpc_channel(db) as channel:
        stub = trail_grpc.TrailServiceStub(channel)
        found = stub.ListFlowTrails(trail_pb.ListFlowTrailsRequest(
            org="acme", flow_name="payments", page=2**31 - 1, per_page=100), timeout=10)
        assert list(found.data) == []
