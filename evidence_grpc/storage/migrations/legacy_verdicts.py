"""Frozen: how a snapshot was judged before verdicts were kept with it, for migrations 0011 and
0018. What this computes is history, so it must never import the domain, whose rules move on.

Up to migration 0010 (the releases up to 2026-11-23) a snapshot was judged whenever it was read,
and no environment had policies attached (0009, which brought them, shipped with 0011). A running
artifact was compliant when it was allowlisted in the environment, or reported to a flow of the
organization and COMPLIANT in every trail it was reported to; a snapshot was compliant when all
its artifacts were, so one of no artifacts was compliant. A trail was judged against its template
(its own, else its flow's): a requirement {name, type} is met by the trail's newest attestation
of that name at the same level (trail, or the artifact of that template name) whose type matches
(`*` matches any); a level is NON-COMPLIANT when an attestation found there is non-compliant,
else INCOMPLETE when a requirement is unmet, else COMPLIANT; an artifact not reported is MISSING;
the trail is NON-COMPLIANT when a level is, INCOMPLETE when an artifact is MISSING or INCOMPLETE.
An artifact's state is that of its template name's level, or the trail's when it has none.

Rows are read with plain SQL (columns as of migration 0010) and JSON text decoded here, on both
engines. The verdicts kept have the shape today's reads render (domain/runtime/snapshots.py, `_verdict`)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import peewee
import yaml

COMPLIANT = "COMPLIANT"
NON_COMPLIANT = "NON-COMPLIANT"
INCOMPLETE = "INCOMPLETE"
MISSING = "MISSING"
# Rows judged per statement: far below SQLite's limit of variables.
CHUNK = 500

Requirement = tuple[str, str]  # (attestation name, type)
Found = tuple[bool, bool]  # (found, compliant) of one requirement or unexpected attestation


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _chunks(values: list[Any]) -> Iterable[list[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start:start + CHUNK]


def _marks(values: list[Any]) -> str:
    return ", ".join(["%s"] * len(values))


def _run(db: peewee.Database, sql: str, params: list[Any]) -> Any:
    """`sql` written with %s placeholders, run on either engine: its cursor."""
    if isinstance(db, peewee.SqliteDatabase):
        sql = sql.replace("%s", "?")
    return db.execute_sql(sql, params)


def rows_of(db: peewee.Database, sql: str, params: list[Any]) -> list[tuple]:
    """The rows of a SELECT written with %s placeholders."""
    return list(_run(db, sql, params).fetchall())


def _requirements(text: str | None) -> tuple[list[Requirement], dict[str, list[Requirement]]]:
    """(the trail's requirements, each artifact template name's) of a template's YAML. Templates
    were checked against their schema when stored; anything else requires nothing."""
    try:
        document = yaml.safe_load(text or "version: 1\n")
    except yaml.YAMLError:
        document = None
    trail = (document.get("trail") if isinstance(document, dict) else None) or {}

    def listed(items: Any) -> list[Requirement]:
        return [(str(i.get("name")), str(i.get("type", "*"))) for i in items or []
                if isinstance(i, dict)]

    return (listed(trail.get("attestations")),
            {str(a["name"]): listed(a.get("attestations")) for a in trail.get("artifacts") or []
             if isinstance(a, dict) and "name" in a})


def _level(required: list[Requirement], attestations: list[tuple[str, str, bool]]
           ) -> list[Found]:
    """Each requirement of one level met or not, then each attestation nobody required, from
    the level's attestations (name, type, compliant) in report order: the newest of a name
    counts."""
    newest = {name: (type_, compliant) for name, type_, compliant in attestations}
    found: list[Found] = []
    for name, type_ in required:
        got = newest.pop(name, None)
        matched = got is not None and type_ in ("*", got[0])
        found.append((matched, bool(got and matched and got[1])))
    return found + [(True, compliant) for _, compliant in newest.values()]


def _overall(found: list[Found]) -> str:
    if any(present and not compliant for present, compliant in found):
        return NON_COMPLIANT
    if any(not present for present, _ in found):
        return INCOMPLETE
    return COMPLIANT


def trail_states(template: str | None, attestations: list[tuple[str, str, bool, str | None]],
                 reported: set[str]) -> tuple[str, dict[str, str]]:
    """(the trail's state, each artifact template name's state) from its attestations (name,
    type, compliant, the template name of the artifact it is about or None) in report order
    and the template names of its reported artifacts."""
    trail_required, artifact_required = _requirements(template)
    at: dict[str | None, list[tuple[str, str, bool]]] = defaultdict(list)
    for name, type_, compliant, target in attestations:
        at[target].append((name, type_, compliant))
    names = [*artifact_required, *sorted(reported - set(artifact_required))]
    states = {name: _overall(_level(artifact_required.get(name, []), at[name]))
              if name in reported else MISSING for name in names}
    # An artifact missing evidence leaves the trail incomplete; only a non-compliant one makes
    # it non-compliant.
    artifacts = [(s not in (MISSING, INCOMPLETE), s == COMPLIANT) for s in states.values()]
    return _overall(_level(trail_required, at[None]) + artifacts), states


def verdict(name: str, fingerprint: str, flows: list[dict[str, Any]], allowed: bool
            ) -> dict[str, Any]:
    """What a snapshot keeps of one running artifact judged by these rules; `flows` are its
    reports, oldest first, each with its `compliance_state`."""
    compliant = allowed or (bool(flows) and all(f["compliance_state"] == COMPLIANT for f in flows))
    if compliant:
        reasons = []
    elif not flows:
        reasons = [{"type": "no_provenance", "message": "Artifact has no provenance"}]
    else:
        reasons = [{"type": "non_compliant_trail",
                    "message": f"Artifact is {f['compliance_state']} in trail '{f['trail_name']}' "
                               f"of flow '{f['flow_name']}'"}
                   for f in flows if f["compliance_state"] != COMPLIANT]
    return {"name": name, "fingerprint": fingerprint, "compliant": compliant, "decided": "",
            "flows": flows, "reasons_for_incompliance": reasons}


def snapshot_fields(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """The columns of a snapshot judged by these rules (none of no artifacts is compliant)."""
    return {"verdicts": json.dumps(verdicts), "compliant": all(v["compliant"] for v in verdicts),
            "applied_policies": "[]"}


def allowlisted(db: peewee.Database, environments: list[int], until: float | None = None
                ) -> dict[int, set[str]]:
    """The fingerprints allowlisted in each environment (by then, when `until` is given)."""
    allowed: dict[int, set[str]] = defaultdict(set)
    for ids in _chunks(environments):
        rows = rows_of(db, "SELECT environment_id, fingerprint, created_at FROM allowlist_entry "
                        f"WHERE environment_id IN ({_marks(ids)})", ids)
        for env_id, fingerprint, created_at in rows:
            if until is None or created_at <= until:
                allowed[env_id].add(fingerprint)
    return allowed


def provenance(db: peewee.Database, org_id: int, org_name: str, fingerprints: list[str]
               ) -> dict[str, list[dict[str, Any]]]:
    """The reports of each fingerprint in the organization, in report order (the id), with the
    compliance state of each in its trail; URLs relative to the html base, as kept."""
    reports = []
    for chunk in _chunks(fingerprints):
        reports += rows_of(db, (
            "SELECT a.id, a.fingerprint, a.template_reference_name, a.git_commit, a.commit_url, "
            "a.git_commit_info, a.trail_id, f.name, t.name, t.template_yaml, f.template_yaml "
            "FROM artifact a JOIN flow f ON f.id = a.flow_id JOIN trail t ON t.id = a.trail_id "
            f"WHERE a.organization_id = %s AND a.fingerprint IN ({_marks(chunk)})"),
            [org_id, *chunk])
    templates = {r[6]: r[9] if r[9] is not None else r[10] for r in reports}
    attestations: dict[int, list[tuple[str, str, bool, str | None]]] = defaultdict(list)
    reported: dict[int, set[str]] = defaultdict(set)
    for ids in _chunks(sorted(templates)):
        for trail_id, name, type_, compliant, target in rows_of(db, (
                "SELECT trail_id, name, type, is_compliant, target_artifact FROM attestation "
                f"WHERE trail_id IN ({_marks(ids)}) ORDER BY id"), ids):
            attestations[trail_id].append((name, type_, bool(compliant), target))
        for trail_id, template_name in rows_of(db, (
                "SELECT trail_id, template_reference_name FROM artifact "
                f"WHERE trail_id IN ({_marks(ids)}) AND template_reference_name IS NOT NULL"), ids):
            reported[trail_id].add(template_name)
    judged = {trail_id: trail_states(template, attestations[trail_id], reported[trail_id])
              for trail_id, template in templates.items()}
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (_, fingerprint, template_name, commit, commit_url, commit_info, trail_id, flow_name,
         trail_name, _, _) in sorted(reports):
        trail_state, states = judged[trail_id]
        info = _json(commit_info)
        flow_url = f"/{org_name}/flows/{flow_name}"
        found[fingerprint].append({
            "flow_name": flow_name, "trail_name": trail_name,
            "template_reference_name": template_name,
            "git_commit": commit or "", "commit_url": commit_url or "",
            "git_commit_info": info,
            "html_url": f"{flow_url}/artifacts/{fingerprint}",
            "flow_html_url": flow_url,
            "compliance_state": states.get(template_name or "", trail_state),
            "commit_timestamp": info.get("timestamp") if isinstance(info, dict) else None,
        })
    return found


def judge_all(db: peewee.Database) -> None:
    """Judge every snapshot of the database by these rules and keep the verdicts (0011)."""
    orgs = rows_of(db, "SELECT id, name FROM organization ORDER BY id", [])
    for org_id, org_name in orgs:
        snapshots = rows_of(db, (
            "SELECT s.id, s.environment_id, s.artifacts FROM snapshot s "
            "JOIN environment e ON e.id = s.environment_id WHERE e.organization_id = %s "
            "ORDER BY s.id"), [org_id])
        running = [(sid, env_id, _json(artifacts) or []) for sid, env_id, artifacts in snapshots]
        fingerprints = sorted({e["fingerprint"] for _, _, entries in running for e in entries})
        reports = provenance(db, org_id, org_name, fingerprints)
        allowed = allowlisted(db, sorted({env_id for _, env_id, _ in running}))
        for sid, env_id, entries in running:
            verdicts = [verdict(e["name"], e["fingerprint"], reports.get(e["fingerprint"], []),
                                e["fingerprint"] in allowed[env_id]) for e in entries]
            store(db, sid, snapshot_fields(verdicts))


def store(db: peewee.Database, snapshot_id: int, fields: dict[str, Any]) -> None:
    _run(db, "UPDATE snapshot SET verdicts = %s, compliant = %s, applied_policies = %s "
             "WHERE id = %s",
         [fields["verdicts"], fields["compliant"], fields["applied_policies"], snapshot_id])
