"""Attestations as in-toto Statements v1 (github.com/in-toto/attestation) in DSSE envelopes,
signed with the transparency log's key: evidence a consumer of in-toto (a policy engine, an
SBOM or SLSA tool) can check with the key published at /api/v2/transparency/{org}/public-key.

The subject is the artifact the attestation is about (its file name and SHA-256), else the trail
(its commit, when reported, else the hash of the attestation's leaf). Junit results are the in-toto
test-result predicate; every other kind is this service's own predicate: the attestation as the
REST API answers it and its entry in the transparency log."""

from __future__ import annotations

import json
from typing import Any

from ...storage.models import Artifact, Organization, Trail
from ..kernel.errors import missing
from ..transparency import dsse, log, notes
from . import attestations

STATEMENT = "https://in-toto.io/Statement/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
# This service's predicate: {attestation: the REST answer, transparency_log: {origin, index,
# leaf_hash} or null}.
EVIDENCE_PREDICATE = "urn:evidence-service:predicate:attestation:v1"
TEST_RESULT = "https://in-toto.io/attestation/test-result/v0.1"


def _subject(org: Organization, a: attestations.Listed, fallback: str) -> dict[str, Any]:
    if a.artifact_fingerprint:
        named = (Artifact.select(Artifact.name).join(Trail).where(
            (Artifact.organization == org) & (Artifact.fingerprint == a.artifact_fingerprint)
            & (Trail.name == a.trail_name)).order_by(Artifact.id.desc()).scalar())
        return {"name": named or a.artifact_fingerprint,
                "digest": {"sha256": a.artifact_fingerprint}}
    name = f"{org.name}/{a.flow_name}/{a.trail_name}"
    commit = a.git_commit
    if commit:
        return {"name": name, "digest": {"gitCommit": commit}}
    return {"name": name, "digest": {"sha256": fallback}}


def _test_result(document: dict[str, Any]) -> dict[str, Any]:
    """The in-toto test-result predicate of junit results: suites by name."""
    suites = document.get("junit_results") or []
    failed = [s.get("name", "") for s in suites if s.get("failures") or s.get("errors")]
    passed = [s.get("name", "") for s in suites if s.get("name", "") not in failed]
    return {"result": "PASSED" if document.get("is_compliant") else "FAILED",
            "configuration": [], "url": document.get("html_url", ""),
            "passedTests": passed, "warnedTests": [], "failedTests": failed}


def statement(org: Organization, a: attestations.Listed, html_base: str, origin: str
              ) -> dict[str, Any]:
    """The attestation's in-toto Statement v1."""
    entry = a.log_index
    leaf_hash = log.entry(org, entry).leaf_hash.hex() if entry is not None else None
    document = attestations.attestation_document(a, org.name, html_base)
    if a.type == "junit":
        predicate_type, predicate = TEST_RESULT, _test_result(document)
    else:
        predicate_type = EVIDENCE_PREDICATE
        predicate = {"attestation": document, "transparency_log": None if entry is None else {
            "origin": origin, "index": entry, "leaf_hash": leaf_hash}}
    # Without an artifact or a commit, the trail is named by the leaf's hash (by the answer's
    # digest for an attestation kept before the log began).
    fallback = leaf_hash or log.digest(document)
    return {"_type": STATEMENT, "subject": [_subject(org, a, fallback)],
            "predicateType": predicate_type, "predicate": predicate}


def export(org: Organization, flow_name: str, trail_name: str, name: str, html_base: str,
           signer: notes.Signer) -> tuple[bytes, list[tuple[str, bytes]]]:
    """The newest attestation of that name in the trail as a DSSE envelope's parts: the
    Statement (of type PAYLOAD_TYPE) and its (keyid, signature)."""
    found = attestations.trail_attestations(org, flow_name, trail_name, name)
    if not found:  # one attestation to export: none is not there
        raise missing("attestation_in_trail", trail=trail_name, attestation=name)
    newest = found[0]
    origin = log.origin(signer.name, org)
    payload = json.dumps(statement(org, newest, html_base, origin), separators=(",", ":"),
                         ensure_ascii=False).encode()
    return payload, dsse.signatures(PAYLOAD_TYPE, payload, signer)
