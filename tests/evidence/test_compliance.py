"""Trail compliance as a pure function: `evaluate_trail(template, evaluated_at, attestations,
artifacts)` turns a flow template and the evidence reported so far into the
`compliance_status` object that `get trail` shows. No database, no server."""

from __future__ import annotations

from typing import Any

from evidence_grpc.domain.evidence.compliance import evaluate_trail

BACKEND_FP = "b" * 64
FRONTEND_FP = "f" * 64

# A trail needs unit tests; its `backend` artifact needs a snyk scan.
TEMPLATE: dict[str, Any] = {
    "version": 1,
    "trail": {
        "attestations": [{"name": "unit-tests", "type": "junit"}],
        "artifacts": [{"name": "backend", "attestations": [{"name": "scan", "type": "snyk"}]}],
    },
}


def template(trail_attestations: list[dict[str, str]] | None = None,
             artifacts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"version": 1, "trail": {"attestations": trail_attestations or [],
                                    "artifacts": artifacts or []}}


class Evidence:
    """Builds attestation records in the order they were reported."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, name: str, type_: str, compliant: bool = True, target: str | None = None,
            overrides: str | None = None) -> dict[str, Any]:
        seq = len(self.items) + 1
        item = {"id": f"att-{seq}", "name": name, "type": type_, "is_compliant": compliant,
                "seq": seq,
                "target": target, "overrides": overrides}
        self.items.append(item)
        return item


def backend(fingerprint: str = BACKEND_FP) -> dict[str, Any]:
    return {"id": "7", "fingerprint": fingerprint, "template_reference_name": "backend"}


def by_name(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["attestation_name"]: e for e in entries}


# ---- the three states ------------------------------------------------------------------------

def test_nothing_reported_yet_is_incomplete_with_every_requirement_missing():
    status = evaluate_trail(TEMPLATE, 10.0)

    assert status["status"] == "INCOMPLETE"
    assert status["is_compliant"] is False
    assert status["evaluated_at"] == 10.0
    assert status["attestations_statuses"] == [{
        "attestation_name": "unit-tests", "attestation_type": "junit", "attestation_id": None,
        "overridden_attestation_id": None, "status": "MISSING", "is_compliant": False,
        "unexpected": False}]
    artifact = status["artifacts_statuses"]["backend"]
    assert artifact["status"] == "MISSING"
    assert artifact["artifact_fingerprint"] is None
    assert [(e["attestation_name"], e["status"]) for e in artifact["attestations_statuses"]] == [
        ("scan", "MISSING")]


def test_everything_required_and_compliant_is_compliant():
    evidence = Evidence()
    tests = evidence.add("unit-tests", "junit")
    scan = evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 5.0, evidence.items, [backend()])

    assert status["status"] == "COMPLIANT"
    assert status["is_compliant"] is True
    assert by_name(status["attestations_statuses"])["unit-tests"] == {
        "attestation_name": "unit-tests", "attestation_type": "junit",
        "attestation_id": tests["id"], "overridden_attestation_id": None, "status": "COMPLETE",
        "is_compliant": True, "unexpected": False}
    artifact = status["artifacts_statuses"]["backend"]
    assert artifact["status"] == "COMPLIANT"
    assert artifact["is_compliant"] is True
    assert artifact["artifact_fingerprint"] == BACKEND_FP
    assert artifact["artifact_id"] == "7"
    assert artifact["unexpected"] is False
    assert by_name(artifact["attestations_statuses"])["scan"]["attestation_id"] == scan["id"]


def test_a_non_compliant_attestation_makes_the_trail_non_compliant():
    evidence = Evidence()
    evidence.add("unit-tests", "junit", compliant=False)
    evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    assert status["status"] == "NON-COMPLIANT"
    assert status["is_compliant"] is False
    entry = by_name(status["attestations_statuses"])["unit-tests"]
    assert (entry["status"], entry["is_compliant"]) == ("COMPLETE", False)


def test_non_compliant_wins_over_missing():
    evidence = Evidence()
    evidence.add("unit-tests", "junit", compliant=False)

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items)  # backend never reported

    assert status["status"] == "NON-COMPLIANT"


def test_a_missing_trail_attestation_leaves_the_trail_and_its_artifacts_incomplete():
    """The hosted docs: an artifact is compliant "if and only if all the template attestations
    have been made against it and are themselves compliant: `jira-ticket` on its Trail, ..."."""
    evidence = Evidence()
    evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    assert status["status"] == "INCOMPLETE"
    artifact = status["artifacts_statuses"]["backend"]
    assert (artifact["status"], artifact["is_compliant"]) == ("INCOMPLETE", False)
    assert by_name(artifact["attestations_statuses"])["scan"]["status"] == "COMPLETE"
    assert by_name(status["attestations_statuses"])["unit-tests"]["status"] == "MISSING"


def test_a_non_compliant_trail_attestation_the_template_requires_fails_its_artifacts():
    evidence = Evidence()
    evidence.add("unit-tests", "junit", compliant=False)
    evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    assert status["artifacts_statuses"]["backend"]["status"] == "NON-COMPLIANT"


def test_a_trail_attestation_the_template_does_not_name_counts_for_the_trail_only():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("smoke", "generic", compliant=False)
    evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    assert status["status"] == "NON-COMPLIANT"
    assert status["artifacts_statuses"]["backend"]["status"] == "COMPLIANT"


# ---- matching requirements -------------------------------------------------------------------

def test_star_type_is_met_by_any_attestation_type():
    rules = template([{"name": "evidence", "type": "*"}])
    for kind in ("generic", "junit", "custom:coverage", "decision"):
        evidence = Evidence()
        found = evidence.add("evidence", kind)

        status = evaluate_trail(rules, 1.0, evidence.items)

        assert status["status"] == "COMPLIANT", kind
        entry = status["attestations_statuses"][0]
        assert (entry["attestation_type"], entry["attestation_id"], entry["status"]) == (
            kind, found["id"], "COMPLETE")


def test_a_type_mismatch_counts_as_missing():
    evidence = Evidence()
    evidence.add("unit-tests", "generic")  # the template wants junit

    status = evaluate_trail(template([{"name": "unit-tests", "type": "junit"}]), 1.0,
                            evidence.items)

    assert status["status"] == "INCOMPLETE"
    assert status["attestations_statuses"] == [{
        "attestation_name": "unit-tests", "attestation_type": "junit", "attestation_id": None,
        "overridden_attestation_id": None, "status": "MISSING", "is_compliant": False,
        "unexpected": False}]


def test_unexpected_attestations_are_listed_with_unexpected_true():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    extra = evidence.add("lint", "generic")

    status = evaluate_trail(template([{"name": "unit-tests", "type": "junit"}]), 1.0,
                            evidence.items)

    assert status["status"] == "COMPLIANT"
    entries = by_name(status["attestations_statuses"])
    assert entries["unit-tests"]["unexpected"] is False
    assert entries["lint"] == {
        "attestation_name": "lint", "attestation_type": "generic", "attestation_id": extra["id"],
        "overridden_attestation_id": None, "status": "COMPLETE", "is_compliant": True,
        "unexpected": True}


def test_an_unexpected_non_compliant_attestation_still_counts():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("lint", "generic", compliant=False)

    status = evaluate_trail(template([{"name": "unit-tests", "type": "junit"}]), 1.0,
                            evidence.items)

    assert status["status"] == "NON-COMPLIANT"
    assert by_name(status["attestations_statuses"])["lint"]["unexpected"] is True


def test_with_an_empty_template_every_attestation_is_unexpected():
    evidence = Evidence()
    evidence.add("anything", "generic")

    status = evaluate_trail(template(), 1.0, evidence.items)

    assert status["status"] == "COMPLIANT"
    assert [(e["attestation_name"], e["unexpected"]) for e in status["attestations_statuses"]] == [
        ("anything", True)]


# ---- artifact-level requirements -------------------------------------------------------------

def test_artifact_requirements_are_met_only_by_attestations_about_that_artifact():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("scan", "snyk")  # trail level: does not satisfy backend's scan

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    artifact = status["artifacts_statuses"]["backend"]
    assert artifact["status"] == "INCOMPLETE"
    assert by_name(artifact["attestations_statuses"])["scan"]["status"] == "MISSING"
    assert by_name(status["attestations_statuses"])["scan"]["unexpected"] is True
    # Something required is missing and nothing is non-compliant: the trail is incomplete.
    assert status["status"] == "INCOMPLETE"


def test_an_artifact_missing_its_attestation_makes_the_trail_incomplete_not_non_compliant():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    assert status["artifacts_statuses"]["backend"]["status"] == "INCOMPLETE"
    assert status["status"] == "INCOMPLETE"
    assert status["is_compliant"] is False


def test_a_non_compliant_artifact_attestation_makes_artifact_and_trail_non_compliant():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("scan", "snyk", compliant=False, target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    artifact = status["artifacts_statuses"]["backend"]
    assert artifact["status"] == "NON-COMPLIANT"
    assert artifact["is_compliant"] is False
    assert status["status"] == "NON-COMPLIANT"


def test_an_attestation_about_an_unreported_template_artifact_leaves_it_missing():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, artifacts=[])

    artifact = status["artifacts_statuses"]["backend"]
    assert artifact["status"] == "MISSING"
    assert artifact["artifact_fingerprint"] is None
    assert artifact["artifact_id"] is None
    assert by_name(artifact["attestations_statuses"])["scan"]["status"] == "COMPLETE"
    assert status["status"] == "INCOMPLETE"


def test_an_unreported_template_artifact_without_requirements_is_missing():
    rules = template(artifacts=[{"name": "backend", "attestations": []},
                                {"name": "frontend", "attestations": []}])

    status = evaluate_trail(rules, 1.0, [], [backend()])

    assert status["artifacts_statuses"]["backend"]["status"] == "COMPLIANT"
    assert status["artifacts_statuses"]["frontend"]["status"] == "MISSING"
    assert status["status"] == "INCOMPLETE"


def test_an_artifact_the_template_does_not_name_is_unexpected():
    frontend = {"id": "9", "fingerprint": FRONTEND_FP, "template_reference_name": "frontend"}
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("scan", "snyk", target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend(), frontend])

    assert list(status["artifacts_statuses"]) == ["backend", "frontend"]
    extra = status["artifacts_statuses"]["frontend"]
    assert extra["unexpected"] is True
    assert extra["status"] == "COMPLIANT"
    assert extra["artifact_fingerprint"] == FRONTEND_FP
    assert status["artifacts_statuses"]["backend"]["unexpected"] is False
    assert status["status"] == "COMPLIANT"


# ---- newest wins -----------------------------------------------------------------------------

def test_the_newest_attestation_of_a_name_wins_so_an_override_flips_the_verdict():
    evidence = Evidence()
    failed = evidence.add("unit-tests", "junit", compliant=False)
    override = evidence.add("unit-tests", "junit", compliant=True, overrides=failed["id"])
    rules = template([{"name": "unit-tests", "type": "junit"}])

    status = evaluate_trail(rules, 1.0, evidence.items)

    assert status["status"] == "COMPLIANT"
    assert status["attestations_statuses"] == [{
        "attestation_name": "unit-tests", "attestation_type": "junit",
        "attestation_id": override["id"], "overridden_attestation_id": failed["id"],
        "status": "COMPLETE", "is_compliant": True, "unexpected": False}]

    # And back: a later override to non-compliant wins again.
    evidence.add("unit-tests", "junit", compliant=False, overrides=override["id"])
    assert evaluate_trail(rules, 2.0, evidence.items)["status"] == "NON-COMPLIANT"


def test_newest_is_decided_by_report_order():
    """Reads list attestations in report order (their id); compliance agrees with them."""
    evidence = Evidence()
    evidence.add("unit-tests", "junit", compliant=True)
    last = evidence.add("unit-tests", "junit", compliant=False)
    rules = template([{"name": "unit-tests", "type": "junit"}])

    status = evaluate_trail(rules, 1.0, evidence.items)
    assert status["status"] == "NON-COMPLIANT"
    assert status["attestations_statuses"][0]["attestation_id"] == last["id"]


def test_newest_wins_per_artifact_too():
    evidence = Evidence()
    evidence.add("unit-tests", "junit")
    evidence.add("scan", "snyk", compliant=False, target="backend")
    evidence.add("scan", "snyk", compliant=True, target="backend")

    status = evaluate_trail(TEMPLATE, 1.0, evidence.items, [backend()])

    assert status["artifacts_statuses"]["backend"]["status"] == "COMPLIANT"
    assert status["status"] == "COMPLIANT"
