"""The policy engine as pure functions: a policy's YAML and an artifact's reports and
attestations in, the hosted decision out. No database, no server."""

from __future__ import annotations

from typing import Any

from evidence_grpc.domain.runtime.policy_eval import (
    Batch,
    LoadedPolicy,
    compile_policy,
    decide,
    kept_outcomes,
    render_decisions,
)

SCHEMA = "_schema: https://docs.kosli.com/schemas/policy/v1\n"
FP, OTHER = "a" * 64, "b" * 64


def policy(text: str, name: str = "p") -> LoadedPolicy:
    rules, dump = compile_policy(SCHEMA + text)
    return LoadedPolicy("1", name, 3, rules, dump)


def report(trail_id: int = 1, state: str = "COMPLIANT", flow: str = "runner",
           tags: dict[str, str] | None = None) -> dict[str, Any]:
    return {"flow_name": flow, "trail_name": f"t{trail_id}", "template_reference_name": "app",
            "compliance_state": state, "_trail_id": trail_id, "_flow_tags": tags or {},
            "_artifact_name": "app"}


def attestation(name: str, type_: str = "generic", compliant: bool = True,
                control: str | None = None, fingerprint: str | None = None) -> dict[str, Any]:
    return {"name": name, "type": type_, "is_compliant": compliant, "control": control,
            "target": "app" if fingerprint else None, "fingerprint": fingerprint}


def decision(name: str, compliant: bool, control: str) -> dict[str, Any]:
    """A decision about the artifact, as decisions_about finds them."""
    return {"name": name, "is_compliant": compliant, "control": control}


def outcomes(verdict, policy_index: int = 0) -> list[list[str]]:
    return [[r["type"] for r in e["resolutions"]]
            for e in verdict.policy_decisions[policy_index]["rule_evaluations"]]


def test_every_rule_is_resolved_per_report_in_the_hosted_shape():
    p = policy("artifacts:\n  provenance:\n    required: true\n  trail-compliance:\n"
               "    required: true\n    exceptions:\n      - if: ${{ flow.name == 'legacy' }}\n")
    verdict = decide([p], FP, None, [report(1), report(2, "NON-COMPLIANT", flow="legacy")], {})
    assert verdict.compliant is True
    assert outcomes(verdict) == [["rule_satisfied", "rule_satisfied"],
                                 ["rule_satisfied", "rule_not_applicable"]]
    decision = verdict.policy_decisions[0]
    assert (decision["policy_name"], decision["policy_version"], decision["status"]) == (
        "p", 3, "COMPLIANT")
    trail_rule = decision["rule_evaluations"][1]
    assert trail_rule["rule"] == {"type": "trail-compliance", "definition": {
        "required": True, "exceptions": [{"if": {"text": "flow.name == 'legacy'"}}]}}
    assert trail_rule["resolutions"][1]["context"] == {
        "flow_name": "legacy", "trail_name": "t2", "artifact_status": "NON-COMPLIANT"}
    assert verdict.reasons == []


def test_without_provenance_rules_fail_unless_an_exception_names_the_artifact():
    p = policy("artifacts:\n  provenance:\n    required: true\n    exceptions:\n"
               "      - if: ${{ matches(artifact.name, '^datadog:') }}\n")
    assert decide([p], FP, "datadog:7", [], {}).compliant is True
    refused = decide([p], FP, "nginx", [], {})
    assert refused.compliant is False
    assert refused.policy_decisions[0]["rule_evaluations"][0]["resolutions"] == [
        {"type": "no_provenance",
         "context": {"flow_name": None, "trail_name": None, "artifact_status": None}}]
    assert refused.reasons == [{"type": "no_provenance",
                                "message": "Policy 'p': artifact has no provenance"}]


def test_attestation_rules_match_name_type_control_and_compliance():
    p = policy("artifacts:\n  attestations:\n"
               "    - name: '*'\n      type: pull_request\n"
               "    - name: cov\n      type: custom:coverage\n      must_be_compliant: false\n"
               "    - name: approval\n      type: decision\n      for_control: C1\n")
    evidence = {1: [attestation("pr-1", "pull_request"), attestation("cov", "custom:coverage",
                                                                     False)]}
    decisions = [decision("approval", True, "C2")]
    verdict = decide([p], FP, None, [report(1)], evidence, decisions)
    assert [o[0] for o in outcomes(verdict)[2:]] == [
        "rule_satisfied", "rule_satisfied", "missing_attestation"]
    assert verdict.policy_decisions[0]["rule_evaluations"][4]["resolutions"][0]["context"][
        "for_control"] == "C1"
    decisions.append(decision("approval", False, "C1"))
    assert [o[0] for o in outcomes(decide([p], FP, None, [report(1)], evidence, decisions))[2:]
            ] == ["rule_satisfied", "rule_satisfied", "non_compliant_attestation"]


def test_a_controls_most_recent_decision_about_the_artifact_decides_in_every_report():
    """Decisions count wherever they were recorded (decisions_about finds them): the newest of
    the rule's name for the control decides, alike for each report the rule applies to."""
    p = policy("artifacts:\n  attestations:\n    - type: decision\n      for_control: C1\n"
               "    - name: review\n      type: decision\n      for_control: C1\n")
    reports = [report(1), report(2, flow="promotion")]
    assert outcomes(decide([p], FP, None, reports, {}))[2:] == [
        ["missing_attestation"] * 2] * 2
    decisions = [decision("review", False, "C1"), decision("go-live", True, "C1")]
    assert outcomes(decide([p], FP, None, reports, {}, decisions))[2:] == [
        ["rule_satisfied"] * 2, ["non_compliant_attestation"] * 2]
    decisions.append(decision("review", True, "C1"))
    assert decide([p], FP, None, reports, {}, decisions).compliant is True
    decisions.append(decision("go-live", False, "C1"))
    assert outcomes(decide([p], FP, None, reports, {}, decisions))[2:] == [
        ["non_compliant_attestation"] * 2, ["rule_satisfied"] * 2]


def test_attestations_count_on_the_trail_and_on_any_of_its_artifacts():
    """Lab 5 of the hosted labs: the image's `unit-tests` rule is met by the JAR's
    `application.unit-tests`, attested in the image's trail."""
    p = policy("artifacts:\n  attestations:\n    - name: unit-tests\n      type: junit\n")
    image = {**report(1), "template_reference_name": "docker-image"}
    jar_tests = {**attestation("unit-tests", "junit", fingerprint=OTHER), "target": "application"}
    assert decide([p], FP, None, [image], {1: [jar_tests]}).compliant is True
    assert decide([p], FP, None, [image], {1: [{**jar_tests, "is_compliant": False}]}
                  ).policy_decisions[0]["rule_evaluations"][2]["resolutions"][0]["type"] == \
        "non_compliant_attestation"
    # each subject's newest counts: the image's own passing tests do not hide the JAR's failure
    own = {**attestation("unit-tests", "junit", fingerprint=FP), "target": "docker-image"}
    failed_jar = {**jar_tests, "is_compliant": False}
    assert decide([p], FP, None, [image], {1: [failed_jar, own]}).compliant is False
    assert decide([p], FP, None, [image], {1: [failed_jar, jar_tests, own]}).compliant is True


def test_a_decision_about_another_artifact_of_the_trail_does_not_count():
    """A rule asking for a decision by type (a `for_control` rule reads the artifact's decisions
    wherever recorded: decisions_about) counts one about this artifact or its trail only."""
    p = policy("artifacts:\n  attestations:\n    - name: approval\n      type: decision\n")
    other = {**attestation("approval", "decision", control="C1", fingerprint=OTHER),
             "target": "other"}
    assert decide([p], FP, None, [report(1)], {1: [other]}).compliant is False
    mine = attestation("approval", "decision", control="C1", fingerprint=FP)
    assert decide([p], FP, None, [report(1)], {1: [other, mine]}).compliant is True


def test_a_batch_never_mixes_artifacts_that_differ():
    p = policy("artifacts:\n  attestations:\n    - name: signed\n      type: generic\n"
               "      if: ${{ flow.tags.tier == 'gold' }}\n")
    batch = Batch([p])
    gold = {"tier": "gold"}
    evidence = {1: [attestation("signed")], 2: []}
    signed = batch.decide(FP, None, [report(1, tags=gold)], evidence)
    unsigned = batch.decide(OTHER, None, [report(2, tags=gold)], evidence)
    other_flow = batch.decide(OTHER, None, [report(2, flow="batch")], evidence)
    assert (signed.compliant, unsigned.compliant, other_flow.compliant) == (True, False, True)
    assert unsigned.failing == {"p"}
    assert unsigned.reasons[0]["message"] == (
        "Policy 'p': artifact is missing required 'signed' (type: generic) attestation in "
        "trail 't2' of flow 'runner'")


def test_artifacts_alike_share_their_outcomes_and_names_read_by_exceptions_tell_them_apart():
    p = policy("artifacts:\n  provenance:\n    required: true\n    exceptions:\n"
               "      - if: ${{ matches(artifact.name, '^datadog') }}\n"
               "  attestations:\n    - name: signed\n      type: generic\n")
    batch = Batch([p])
    verdicts = [batch.decide(f"{i:064x}", f"app-{i}", [report(i)], {}) for i in range(1, 1001)]
    excepted = batch.decide("c" * 64, "datadog:7", [report(2000)], {})
    signed = batch.decide("d" * 64, "app-x", [report(3000)], {3000: [attestation("signed")]})
    assert len({id(v.outcomes) for v in verdicts}) == 1
    assert len({id(v.outcomes) for v in (verdicts[0], excepted, signed)}) == 3
    assert [v.outcomes.codes for v in (verdicts[0], excepted, signed)] == ["SNM", "NNM", "SNS"]
    # rendered per artifact: each names its own trail
    assert verdicts[9].reasons[0]["message"].endswith("in trail 't10' of flow 'runner'")
    assert verdicts[0].compliant is False and signed.compliant is True


def test_kept_codes_render_the_same_decisions_with_one_report_or_several():
    one = policy("artifacts:\n  provenance:\n    required: true\n")
    two = policy("artifacts:\n  trail-compliance:\n    required: true\n"
                 "  attestations:\n    - name: signed\n      type: generic\n", "q")
    for reports in ([report(1)], [report(1), report(2, "NON-COMPLIANT")], []):
        verdict = decide([one, two], FP, None, reports, {1: [attestation("signed")]})
        kept = kept_outcomes([one, two], verdict.outcomes.codes)
        shown = [r or None for r in reports] or [None]
        assert render_decisions([one, two], kept, shown) == verdict.policy_decisions
    assert verdict.outcomes.codes == "PN|NPM"  # no provenance: one case, no report
    assert decide([one, two], FP, None, [report(1), report(2, "NON-COMPLIANT")],
                  {1: [attestation("signed")]}).outcomes.codes == "SS,NN|NN,ST,SM"


def test_the_policy_dump_has_the_hosted_names():
    p = policy("artifacts:\n  attestations:\n    - name: x\n      type: junit\n"
               "      if: ${{ exists(flow) }}\n")
    assert p.dump == {"schema_version": "1", "artifacts": {
        "provenance": {"required": False, "exceptions": []},
        "trail_compliance": {"required": False, "exceptions": []},
        "attestations": [{"if_condition": {"text": "exists(flow)"}, "name": "x", "type": "junit",
                          "must_be_compliant": True}]}}
