"""The paged lists' positions and sizes (domain.kernel.list_sizes, issue 48) against their rows:
written by the domain they match; each SQL edit an operator could make to them is named by
`problems()` and by `evidence-server check-lists` (exit 1), and `--repair` numbers and counts
them again (both engines)."""

from __future__ import annotations

import pytest

from evidence_grpc import cli
from evidence_grpc.domain.evidence import attestations, flows, trails
from evidence_grpc.domain.kernel import list_sizes
from evidence_grpc.domain.kernel.pages import page_of
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import ListEntry, ListSize, Organization, Trail, User

TRAILS = list_sizes.KINDS[list_sizes.TRAILS_OF_FLOW].code
# (an edit in SQL, what problems() says of it): `flow` is the flow's id, `other` the other
# flow's, `moved` the id of a trail of the other flow
EDITS = [
    ("DELETE FROM list_entry WHERE list_kind = {kind} AND owner = {flow} AND position = 2",
     "trails of flow {flow}: 3 rows, 2 positions of 2 items up to 3, kept size 3"),
    ("UPDATE list_entry SET item = {moved} WHERE list_kind = {kind} AND owner = {flow} "
     "AND position = 1", "trails of flow {flow}: position 1 names {moved}, not a row of it"),
    ("UPDATE list_size SET size = 2 WHERE kind = 'trails of flow' AND owner = {flow}",
     "trails of flow {flow}: 3 rows, 3 positions of 3 items up to 3, kept size 2"),
    ("UPDATE list_entry SET position = 7 WHERE list_kind = {kind} AND owner = {flow} "
     "AND position = 3", "trails of flow {flow}: 3 rows, 3 positions of 3 items up to 7, "
                        "kept size 3"),
    # a list whose owner is not the items' own column (the organization of a trail's flow)
    ("DELETE FROM list_entry WHERE list_kind = {org_kind} AND owner = {org} AND position = 2",
     "trails of organization {org}: 4 rows, 3 positions of 3 items up to 4, kept size 4"),
    ("UPDATE list_entry SET item = 999999 WHERE list_kind = {org_kind} AND owner = {org} "
     "AND position = 1", "trails of organization {org}: position 1 names 999999, not a row of it"),
]


@pytest.fixture
def lists(db: str) -> dict[str, int]:
    """Two flows of three and one trails, and attestations in the first's trails."""
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        alice = User.get(User.name == "alice")
        for flow in ("ci", "other"):
            flows.upsert_flow(org, flow, "")
        for flow, trail in (("ci", "t1"), ("other", "o1"), ("ci", "t2"), ("ci", "t3")):
            trails.begin_trail(org, flow, {"name": trail}, alice)
        for trail in ("t1", "t3", "t1"):
            attestations.create_attestation(org, alice, "ci", trail, "generic",
                                            {"attestation_name": "tests", "is_compliant": True},
                                            None)
        ids = {t.name: t.id for t in Trail.select()}
        by_name = {f.name: f.id for f in flows.Flow.select()}
        assert list(list_sizes.problems()) == []
        return {"flow": by_name["ci"], "other": by_name["other"], "moved": ids["o1"],
                "kind": TRAILS, "org": org.id,
                "org_kind": list_sizes.KINDS[list_sizes.TRAILS_OF_ORGANIZATION].code}


@pytest.mark.parametrize(("edit", "named"), EDITS, ids=[
    "deleted", "moved", "size", "gap", "of organization deleted", "of organization moved"])
def test_each_edit_of_a_list_is_named_and_repaired(db: str, lists: dict[str, int], edit: str,
                                                   named: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with storage.database.connection_context():
        storage.database.execute_sql(edit.format(**lists))
        assert list(list_sizes.problems()) == [named.format(**lists)]
    assert cli.main(["check-lists", "--database-url", db]) == 1
    assert named.format(**lists) in capsys.readouterr().out
    assert cli.main(["check-lists", "--database-url", db, "--repair"]) == 0
    assert "numbered and counted again; 0 problem(s) left" in capsys.readouterr().out
    with storage.database.connection_context():
        org = Organization.get(Organization.name == "acme")
        listed = trails.list_flow_trails(org, "ci", page_of(1, 2))
        assert ([t.name for t in listed[0]], listed[1]["total"]) == (["t3", "t2"], 3)
        # trails of the flows, of the organization; attestations of the flow, of its trails
        assert ListEntry.select().count() == 4 + 4 + 3 + 3
        assert ListSize.get((ListSize.kind == list_sizes.TRAILS_OF_FLOW)
                            & (ListSize.owner == lists["flow"])).size == 3
    assert cli.main(["check-lists", "--database-url", db]) == 0
