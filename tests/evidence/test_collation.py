"""Fingerprint and commit prefixes hold under any database collation: a prefix ending in `9`
or `f` finds its artifact (under ICU's en-US, `:` sorts before `9`, so a range ending at the
next code point finds nothing). PostgreSQL runs these under `scripts/start_postgres.sh`'s
en-US cluster."""

from __future__ import annotations

import pytest

from tests.conftest import bearer
from tests.helpers import report_artifact, trail  # noqa: F401 - fixture

H = bearer()
FINGERPRINTS = {"9": "abcd9" + "0" * 59, "f": "abcdf" + "1" * 59}
COMMITS = {"9": "12349" + "2" * 35, "f": "1234f" + "3" * 35}


@pytest.fixture
def reported(trail):  # noqa: F811 - the fixture imported above
    for last in FINGERPRINTS:
        answer = report_artifact(trail, fingerprint=FINGERPRINTS[last], commit=COMMITS[last],
                                 filename=f"app-{last}.tgz")
        assert answer.status_code == 201, answer.json
    return trail


@pytest.mark.parametrize("last", sorted(FINGERPRINTS))
def test_a_fingerprint_prefix_finds_its_artifact(reported, last):
    prefix = FINGERPRINTS[last][:5]
    got = reported.get(f"/api/v2/artifacts/acme/payments/fingerprint/{prefix}", headers=H)
    assert got.status_code == 200, got.json
    assert got.json["fingerprint"] == FINGERPRINTS[last]


@pytest.mark.parametrize("last", sorted(COMMITS))
def test_a_commit_prefix_finds_its_artifacts(reported, last):
    prefix = COMMITS[last][:5]
    got = reported.get(f"/api/v2/artifacts/acme/payments/commit_sha/{prefix}", headers=H)
    assert got.status_code == 200, got.json
    assert [a["fingerprint"] for a in got.json] == [FINGERPRINTS[last]]


@pytest.mark.parametrize("value", [FINGERPRINTS["9"][:5], FINGERPRINTS["f"][:5],
                                   COMMITS["9"][:5], COMMITS["f"][:5]])
def test_search_resolves_a_prefix(reported, value):
    got = reported.get(f"/api/v2/search/acme/sha/{value}", headers=H)
    assert got.status_code == 200, got.json
    assert got.json["resolved_to"]["full_match"].startswith(value)


NAMES = ["Zeta", "a_b", "alpha", "Alpha-api", "a-b", "ab", "b1", "B2"]


def test_lists_are_in_byte_order_on_every_engine(client):
    """Names sort as Python sorts them (byte order), whatever the database's collation: the
    engines agree, and a page boundary falls where a client sorting the names expects it."""
    for name in NAMES:
        assert client.put("/api/v2/flows/acme", headers=H, json={
            "name": name, "description": "", "visibility": "private",
            "template": []}).status_code in (200, 201)
        assert client.put("/api/v2/environments/acme", headers=H, json={
            "name": name, "type": "server", "description": ""}).status_code == 201
    flows = client.get("/api/v2/flows/acme", headers=H).json
    environments = client.get("/api/v2/environments/acme", headers=H).json
    assert [f["name"] for f in flows] == sorted(NAMES)
    assert [e["name"] for e in environments] == sorted(NAMES)
