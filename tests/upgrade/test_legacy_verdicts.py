"""Migrations 0011 and 0018 on rows written in the schema before them (both engines): snapshots
made before verdicts were kept are judged as their releases judged them (legacy_verdicts), and
installs that 0011 of 2026-11-23 to 2026-11-27 turned Unknown get those verdicts back. Rows are
written with SQL of the old schema, never through today's models."""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import peewee
import pytest
from playhouse.migrations import Runner

from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import ALL_MODELS
from tests.conftest import _close_shared_database, postgres_database

STAMP = 1_700_000_000.0
TEMPLATE = ("version: 1\ntrail:\n  attestations:\n    - name: review\n      type: generic\n"
            "  artifacts:\n    - name: app\n      attestations:\n        - name: scan\n"
            "          type: '*'\n")


@pytest.fixture
def old_database(engine: str, tmp_path: pathlib.Path) -> Iterator[peewee.Database]:
    """A database migrated up to 0010: the schema the releases before verdicts had."""
    if engine == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
        database = storage.init_database(url)
        with storage.database.connection_context():
            Runner(database, directory=str(storage.MIGRATIONS_DIR)).up(target="0010_controls")
            yield database
    else:
        with postgres_database(None) as url:
            database = storage.init_database(url)
            with storage.database.connection_context():
                Runner(database, directory=str(storage.MIGRATIONS_DIR)).up(target="0010_controls")
                yield database
    _close_shared_database()


def insert(db: peewee.Database, table: str, **values: Any) -> int:
    """A row of `table` as the old schema has it, its id: the columns given, and those the old
    table has that today's model fills by default (the schema keeps no defaults of its own);
    dicts and lists as JSON text."""
    model = next(m for m in ALL_MODELS if m._meta.table_name == table)
    columns = {c.name for c in db.get_columns(table)}
    row = {f.column_name: f.default() if callable(f.default) else f.default
           for f in model._meta.sorted_fields if f.default is not None and f.column_name in columns}
    row.update(values)
    row = {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()}
    names = ", ".join(f'"{c}"' for c in row)
    marks = ", ".join(["?" if isinstance(db, peewee.SqliteDatabase) else "%s"] * len(row))
    sql = f'INSERT INTO "{table}" ({names}) VALUES ({marks})'
    if isinstance(db, peewee.SqliteDatabase):
        return db.execute_sql(sql, list(row.values())).lastrowid
    return db.execute_sql(sql + " RETURNING id", list(row.values())).fetchone()[0]


def running(*fingerprints: str) -> list[dict[str, Any]]:
    return [{"name": f"app-{fp[0]}", "fingerprint": fp, "instance_count": 1,
             "creationTimestamp": [1], "pods": None, "context": []} for fp in fingerprints]


def evidence(db: peewee.Database) -> dict[str, int]:
    """A flow whose template wants a trail review and an artifact scan, and its reports:
    a (trail t1, everything met: COMPLIANT), b (t2, no scan: INCOMPLETE), e (t3, its scan
    non-compliant: NON-COMPLIANT), f (t3 too, no template name: the trail's state); c nowhere,
    d allowlisted in prod."""
    times = {"created_at": STAMP, "last_modified_at": STAMP}
    org = insert(db, "organization", name="acme", **times)
    flow = insert(db, "flow", organization_id=org, name="ci", template_yaml=TEMPLATE, **times)
    ids = {"org": org}
    for trail_name, reports, attested in (
            ("t1", [("a", "app")], [("review", None, True), ("scan", "app", True)]),
            ("t2", [("b", "app")], [("review", None, True)]),
            ("t3", [("e", "app"), ("f", None)], [("review", None, True), ("scan", "app", False),
                                                  ("scan", "app", True), ("scan", "app", False)])):
        trail = insert(db, "trail", flow_id=flow, name=trail_name, **times)
        for letter, template_name in reports:
            insert(db, "artifact", organization_id=org, flow_id=flow, trail_id=trail,
                   fingerprint=letter * 64, name=f"app-{letter}", git_commit="c0ffee",
                   git_commit_info={"timestamp": STAMP - 60},
                   template_reference_name=template_name, **times)
        for n, (name, target, compliant) in enumerate(attested):
            insert(db, "attestation", uid=f"{trail_name}-{n}", organization_id=org, flow_id=flow,
                   trail_id=trail, name=name, type="generic", target_artifact=target,
                   is_compliant=compliant, created_at=STAMP + n)
    for env in ("prod", "dev"):
        ids[env] = insert(db, "environment", organization_id=org, name=env, type="server",
                          latest_index=3, **times)
    insert(db, "allowlist_entry", environment_id=ids["prod"], fingerprint="d" * 64,
           artifact_name="app-d", created_at=STAMP)
    return ids


def snapshot(db: peewee.Database, env: int, index: int, *fingerprints: str,
             created_at: float = STAMP) -> None:
    insert(db, "snapshot", environment_id=env, index=index, type="server",
           artifacts=running(*fingerprints), created_at=created_at + index)


def kept(db: peewee.Database) -> dict[tuple[int, int], tuple[Any, list[dict]]]:
    """(compliant, verdicts) of every snapshot by (environment, index)."""
    return {(env, index): (None if compliant is None else bool(compliant), json.loads(verdicts))
            for env, index, compliant, verdicts in db.execute_sql(
                "SELECT environment_id, " + '"index"' + ", compliant, verdicts FROM snapshot")}


def summary(verdicts: list[dict]) -> list[tuple]:
    return [(v["name"], v["compliant"], [r["message"] for r in v["reasons_for_incompliance"]],
             [f["compliance_state"] for f in v["flows"]]) for v in verdicts]


def test_0011_judges_old_snapshots_as_their_releases_did(old_database: peewee.Database) -> None:
    db = old_database
    ids = evidence(db)
    snapshot(db, ids["prod"], 1, "a" * 64)
    snapshot(db, ids["prod"], 2, "a" * 64, "b" * 64, "c" * 64, "d" * 64)
    snapshot(db, ids["prod"], 3, "e" * 64, "f" * 64)
    snapshot(db, ids["dev"], 1)  # nothing running
    snapshot(db, ids["dev"], 2, "d" * 64)  # allowlisted in prod only

    assert "0011_snapshot_verdicts" in storage.migrate()

    snapshots = kept(db)
    assert {key: compliant for key, (compliant, _) in snapshots.items()} == {
        (ids["prod"], 1): True, (ids["prod"], 2): False, (ids["prod"], 3): False,
        (ids["dev"], 1): True, (ids["dev"], 2): False}
    assert summary(snapshots[(ids["prod"], 2)][1]) == [
        ("app-a", True, [], ["COMPLIANT"]),
        ("app-b", False, ["Artifact is INCOMPLETE in trail 't2' of flow 'ci'"], ["INCOMPLETE"]),
        ("app-c", False, ["Artifact has no provenance"], []),
        ("app-d", True, [], [])]
    # e's newest scan is non-compliant; f has no template name, so it is judged as its trail.
    assert summary(snapshots[(ids["prod"], 3)][1]) == [
        ("app-e", False, ["Artifact is NON-COMPLIANT in trail 't3' of flow 'ci'"],
         ["NON-COMPLIANT"]),
        ("app-f", False, ["Artifact is NON-COMPLIANT in trail 't3' of flow 'ci'"],
         ["NON-COMPLIANT"])]
    [flow] = snapshots[(ids["prod"], 1)][1][0]["flows"]
    assert flow == {"flow_name": "ci", "trail_name": "t1", "template_reference_name": "app",
                    "git_commit": "c0ffee", "commit_url": "",
                    "git_commit_info": {"timestamp": STAMP - 60},
                    "html_url": f"/acme/flows/ci/artifacts/{'a' * 64}",
                    "flow_html_url": "/acme/flows/ci", "compliance_state": "COMPLIANT",
                    "commit_timestamp": STAMP - 60}
    # Judged as they were, none is Unknown: 0018 has nothing to give back.
    storage.migrate()
    assert kept(db) == snapshots


def test_0018_gives_back_the_verdicts_0011_turned_unknown(old_database: peewee.Database) -> None:
    """A database as 0011 of 2026-11-23 to 2026-11-27 left it: every snapshot of an environment
    without policies Unknown. Those made before it ran get their old verdicts back; one made
    after keeps Unknown, as does one judged by policies; an allowlisting after the upgrade
    counts for none of them."""
    db = old_database
    ids = evidence(db)
    snapshot(db, ids["prod"], 1, "a" * 64, "d" * 64)
    snapshot(db, ids["prod"], 2, "a" * 64, "b" * 64)
    Runner(db, directory=str(storage.MIGRATIONS_DIR)).up(target="0017_packed_deployment_series")
    # naive UTC, as this release's runner records it
    upgraded_at = datetime.datetime.fromtimestamp(STAMP + 10, datetime.UTC).replace(tzinfo=None)
    db.execute_sql(("UPDATE schema_migration SET applied = ? WHERE name = ?"
                    if isinstance(db, peewee.SqliteDatabase) else
                    "UPDATE schema_migration SET applied = %s WHERE name = %s"),
                   [upgraded_at, "0011_snapshot_verdicts"])
    judged = kept(db)
    unknown = {key: [{**v, "compliant": None, "reasons_for_incompliance": []} for v in verdicts]
               for key, (_, verdicts) in judged.items()}
    later = running("a" * 64)
    insert(db, "snapshot", environment_id=ids["prod"], index=3, type="server", artifacts=later,
           created_at=STAMP + 20, compliant=None,
           verdicts=[{**judged[(ids["prod"], 1)][1][0], "compliant": None,
                      "reasons_for_incompliance": []}], applied_policies=[])
    governed = [{"name": "rules", "version": 1}]
    insert(db, "snapshot", environment_id=ids["dev"], index=1, type="server",
           artifacts=running("b" * 64), created_at=STAMP, compliant=None,
           verdicts=unknown[(ids["prod"], 2)][1:], applied_policies=governed)
    insert(db, "allowlist_entry", environment_id=ids["prod"], fingerprint="b" * 64,
           artifact_name="app-b", created_at=STAMP + 30)
    for (env, index), verdicts in unknown.items():
        db.execute_sql(
            ("UPDATE snapshot SET compliant = NULL, verdicts = ? WHERE environment_id = ? "
             'AND "index" = ?').replace("?", "?" if isinstance(db, peewee.SqliteDatabase)
                                         else "%s"), [json.dumps(verdicts), env, index])

    assert "0018_legacy_verdicts_restored" in storage.migrate()

    after = kept(db)
    assert {key: compliant for key, (compliant, _) in after.items()} == {
        (ids["prod"], 1): True, (ids["prod"], 2): False, (ids["prod"], 3): None,
        (ids["dev"], 1): None}
    assert after[(ids["prod"], 1)][1] == judged[(ids["prod"], 1)][1]
    assert summary(after[(ids["prod"], 2)][1]) == [
        ("app-a", True, [], ["COMPLIANT"]),
        ("app-b", False, ["Artifact is INCOMPLETE in trail 't2' of flow 'ci'"], ["INCOMPLETE"])]


@pytest.fixture
def zone() -> Iterator[Callable[[str], None]]:
    """Sets this process's time zone (TZ), restored afterwards."""
    before = os.environ.get("TZ")

    def set_zone(name: str) -> None:
        os.environ["TZ"] = name
        time.tzset()

    yield set_zone
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.mark.parametrize("zone_0011, zone_0018", [("Asia/Tokyo", "America/New_York"),
                                                  ("America/New_York", "Asia/Tokyo")])
def test_0018_finds_the_same_snapshots_whatever_the_zones_of_the_upgrades(
        old_database: peewee.Database, zone: Callable[[str], None], zone_0011: str,
        zone_0018: str) -> None:
    """Issue 47, item 9: 0011 recorded in one zone and 0018 run in another (hours apart either
    way) still tell a snapshot made three hours before 0011 (Unknown as 0011 of 2026-11-24..27
    left it: given back its verdict) from one made three hours after (Unknown: kept)."""
    db = old_database
    ids = evidence(db)
    upgraded = time.time()
    snapshot(db, ids["prod"], 1, "a" * 64, created_at=upgraded - 3 * 3600)
    zone(zone_0011)
    storage.MigrationRunner(db, directory=str(storage.MIGRATIONS_DIR)).up(
        target="0017_packed_deployment_series")
    [(before, verdicts)] = kept(db).values()
    assert before is True
    unknown = [{**v, "compliant": None, "reasons_for_incompliance": []} for v in verdicts]
    db.execute_sql(("UPDATE snapshot SET compliant = NULL, verdicts = ?" if isinstance(
        db, peewee.SqliteDatabase) else "UPDATE snapshot SET compliant = NULL, verdicts = %s"),
                   [json.dumps(unknown)])
    insert(db, "snapshot", environment_id=ids["prod"], index=2, type="server",
           artifacts=running("a" * 64), created_at=upgraded + 3 * 3600, compliant=None,
           verdicts=unknown, applied_policies=[])
    zone(zone_0018)

    assert "0018_legacy_verdicts_restored" in storage.migrate()

    assert {key: compliant for key, (compliant, _) in kept(db).items()} == {
        (ids["prod"], 1): True, (ids["prod"], 2): None}
