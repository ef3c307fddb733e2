"""Artifacts as they are answered: what was reported (evidence), where they run and ran
(runtime) and their approvals (governance), read in a few set-based queries for all of them;
and the search by fingerprint or commit prefix."""

from __future__ import annotations

import math
from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import Prepared
from ...storage.models import Artifact, Attestation, Flow, Organization, Trail
from ..evidence.artifacts import (
    COMMIT_LENGTH,
    FINGERPRINT_LENGTH,
    MAX_CANDIDATES,
    MIN_PREFIX,
    attestations_about,
    check_prefix,
    commit_time,
    evidence_of,
    matching_commits,
    matching_fingerprints,
    states_of,
)
from ..evidence.leaves import artifact_log_indexes
from ..governance.approvals import approval_numbers
from ..kernel.artifact_links import artifact_api_url, artifact_html_url
from ..kernel.errors import not_found
from ..kernel.numbers import timestamp_text
from ..runtime.deployments import lead_time
from ..runtime.presence import presence


def _history(artifact: Artifact, where: dict[str, list[Any]], attested: list[Attestation]
             ) -> list[views.ArtifactHistoryEvent]:
    """What happened to the artifact, oldest first, each event with its time, in the hosted
    service's words as `kosli get artifact` and `kosli search` print them: each report about it
    (its own, every attestation's) is "<the name it was reported under> reported" ("cli
    reported"); each start, change of instances and exit in an environment "Started running in
    prod#2 environment", "Scaled up from 1 to 3 in prod#3 environment", "No longer running in
    prod#4 environment" (querying_kosli.md)."""
    history: list[views.ArtifactHistoryEvent] = [
        {"event": f"{artifact.template_reference_name or artifact.name} reported",
         "timestamp": artifact.created_at, "type": "created"}]
    history += [{"event": f"{a.name} reported", "timestamp": a.created_at, "type": "attestation"}
                for a in attested]
    seen = set()
    # A snapshot where the build stopped under one name and started under another (re-reported
    # under a new name): it kept running, neither started nor stopped there.
    at: dict[str, set[tuple[str, int]]] = {"started": set(), "exited": set(), "scaled": set()}
    for event in where["events"]:
        at[event["type"]].add((event["environment_name"], event["snapshot_index"]))
    renamed = at["started"] & at["exited"]
    for event in where["events"]:
        key = (event["type"], event["environment_name"], event["snapshot_index"])
        if key in seen or key[1:] in renamed:  # the same build under two names starts once
            continue
        seen.add(key)
        was, now = event["was"], event["now"]
        happened = {"started": "Started running in", "exited": "No longer running in",
                    "scaled": f"Scaled {'up' if now > was else 'down'} from {was} to {now} in"}
        history.append({"event": f"{happened[event['type']]} {event['environment_name']}#"
                                 f"{event['snapshot_index']} environment",
                        "timestamp": event["timestamp"], "type": event["type"]})
    return sorted(history, key=lambda e: e["timestamp"] or 0.0)  # stable: ties keep this order


def _lead_times(artifact: Artifact, where: dict[str, list[Any]]
                ) -> tuple[dict[str, float], dict[str, float]]:
    """(commit lead times, build lead times): per environment, seconds from the commit
    (`commit_time`) and from the build (the report) until the artifact first started there,
    as the snapshot that saw it start (its deployment) dates it (`deployments.lead_time`)."""
    first: dict[str, float] = {}
    for event in where["events"]:
        if event["type"] == "started":
            first[event["environment_name"]] = min(event["timestamp"],
                                                   first.get(event["environment_name"], math.inf))
    committed = commit_time(artifact)
    commit = {env: lead for env, at in first.items()
              if (lead := lead_time(at, committed)) is not None}
    build = {env: lead for env, at in first.items()
             if (lead := lead_time(at, artifact.created_at)) is not None}
    return commit, build


def artifact_views(org: Organization, artifacts: list[Artifact], html_base: str
                   ) -> list[views.Artifact]:
    """Artifacts as `get artifact` and `list artifacts` answer them (every field the CLI reads
    is always present)."""
    states = states_of(artifacts)
    where = presence(org, [a.fingerprint for a in artifacts])
    approved = approval_numbers(artifacts)
    about = attestations_about(artifacts)
    logged = artifact_log_indexes(org.id, artifacts)
    answers: list[views.Artifact] = []
    for a in artifacts:
        flow_name = a.flow.name
        running = where[a.fingerprint]
        commit_lead_times, build_lead_times = _lead_times(a, running)
        answers.append({
            "id": a.uid,
            "flow_name": flow_name,
            "trail_name": a.trail.name,
            "template_reference_name": a.template_reference_name,
            "fingerprint": a.fingerprint,
            "filename": a.name,
            "git_commit": a.git_commit or "",
            "git_commit_info": a.git_commit_info,
            "repo_info": a.repo_info,
            "commit_url": a.commit_url or "",
            "build_url": a.build_url or "",
            "repo_url": a.repo_url,
            "html_url": artifact_html_url(html_base, org.name, flow_name, a.fingerprint, a.uid),
            "api_url": artifact_api_url(html_base, org.name, flow_name, a.fingerprint),
            "created_at": timestamp_text(a.created_at),
            "last_modified_at": timestamp_text(a.last_modified_at),
            "external_urls": a.external_urls or {},
            "annotations": a.annotations or {},
            "state": states[a.id],
            "running": running["running"],
            "exited": running["exited"],
            "history": _history(a, running, about[a.id]),
            "commits": a.commits or [],
            "deployments": [],
            "approvals": approved.get((a.flow_id, a.fingerprint), []),
            "evidence": evidence_of(org, a, about[a.id], html_base),
            "commit_lead_times": commit_lead_times,
            "build_lead_times": build_lead_times,
            "log_index": logged.get(a.id),
        })
    return answers


def _found_by(field: peewee.Field) -> Prepared:
    """An organization's artifacts whose `field` is the value, newest first."""
    return Prepared(lambda org, value: (
        Artifact.select(Artifact, Trail, Flow).join(Trail).switch(Artifact).join(Flow)
        .where((Artifact.organization == org) & (field == value)).order_by(Artifact.id.desc())),
        org=int, value=str)


_FOUND_BY = {"fingerprint": _found_by(Artifact.fingerprint), "commit": _found_by(Artifact.git_commit)}


def search(org: Organization, value: str, html_base: str) -> views.SearchResult:
    """Artifacts whose fingerprint or commit is `value` or starts with it."""
    prefix = check_prefix("search_value", value, FINGERPRINT_LENGTH, minimum=4)
    fingerprints = matching_fingerprints(org, prefix) if len(prefix) >= MIN_PREFIX else []
    commits = matching_commits(org, prefix) if len(prefix) <= COMMIT_LENGTH else []
    if len(fingerprints) == 1:
        kind, full = "fingerprint", fingerprints[0]
    elif len(commits) == 1:
        kind, full = "commit", commits[0]
    elif not fingerprints and not commits:
        raise not_found("artifact", f"No matches for '{value}'.", search_value=value)
    else:
        kind, full = None, None
    found = _FOUND_BY[kind].models(Artifact, org=org.id, value=full) if kind else []
    found_views = artifact_views(org, found, html_base)
    return {
        "resolved_to": {
            "type": kind,
            "full_match": full,
            "fingerprints": {"type": "fingerprint", "count": len(fingerprints),
                             "matches": fingerprints[:MAX_CANDIDATES]},
            "commits": {"type": "commit", "count": len(commits), "matches": commits[:MAX_CANDIDATES]},
        },
        "artifacts": [{
            "fingerprint": v["fingerprint"], "name": v["filename"], "has_provenance": True,
            "git_commit": v["git_commit"], "pipeline": v["flow_name"], "flow": v["flow_name"],
            "trail": v["trail_name"], "template_reference_name": v["template_reference_name"] or "",
            "build_url": v["build_url"], "commit_url": v["commit_url"],
            "compliance_state": v["state"],
            "running_in": [r["environment_name"] for r in v["running"]],
            "exited_from": [r["environment_name"] for r in v["exited"]],
            "html_url": v["html_url"], "api_url": v["api_url"], "history": v["history"],
        } for v in found_views],
    }
