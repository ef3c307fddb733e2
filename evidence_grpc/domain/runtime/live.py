"""What of a repo runs now: the artifacts built from it in the latest snapshot of each
environment (physical, not archived), with their compliance there and when they started."""

from __future__ import annotations

import peewee

from ...api.v2 import views
from ...storage.db import in_chunks
from ...storage.models import Artifact, Environment, EnvironmentEvent, Organization
from ..evidence.repos import find_repo
from .deployments import first_reports
from .environments import LOGICAL, latest_snapshots
from .snapshots import verdicts_of

# The compliance kept with the snapshot (None: an environment without policies, Unknown).
_COMPLIANCE = {True: "COMPLIANT", False: "NON-COMPLIANT", None: None}


def _started_at(org: Organization, fingerprints: set[str]) -> dict[tuple[int, str, str], float]:
    """When each artifact (name, fingerprint) last started running in each environment of the
    organization."""
    last = peewee.fn.MAX(EnvironmentEvent.reported_at)
    artifact = (EnvironmentEvent.environment, EnvironmentEvent.artifact_name,
                EnvironmentEvent.fingerprint)
    query = (EnvironmentEvent.select(*artifact, last)
             .join(Environment)
             .where((Environment.organization == org) & (EnvironmentEvent.type == "started"))
             .group_by(*artifact))
    return {(env_id, name, fp): at for chunk in in_chunks(sorted(fingerprints))
            for env_id, name, fp, at in query.where(EnvironmentEvent.fingerprint.in_(chunk)).tuples()}


def repo_live_artifacts(org: Organization, repo_name: str, *, provider: str | None = None,
                        repo_id: str | None = None, html_base: str = "") -> views.RepoLiveArtifacts:
    repo = find_repo(org, name=repo_name, repo_id=repo_id, provider=provider)
    built = {fp for (fp,) in Artifact.select(Artifact.fingerprint)
             .where(Artifact.repo == repo).distinct().tuples()}
    envs = list(Environment.select().where(
        (Environment.organization == org) & (Environment.archived == False)  # noqa: E712
        & (Environment.type != LOGICAL)).order_by(Environment.name))
    snapshots = latest_snapshots(envs)
    running = {env.id: sorted({(e["name"], e["fingerprint"]) for e in snapshots[env.id].artifacts
                               if e["fingerprint"] in built})
               for env in envs if env.id in snapshots}
    live_envs = [env for env in envs if running.get(env.id)]
    fingerprints = {fp for env in live_envs for _, fp in running[env.id]}
    started = _started_at(org, fingerprints)
    artifacts = first_reports(org, fingerprints)
    entries: list[views.LiveArtifact] = []
    for env in live_envs:
        snapshot = snapshots[env.id]
        verdicts = verdicts_of(snapshot, html_base, {})  # their compliance: no flow shown
        for name, fp in running[env.id]:
            entries.append({
                "environment_id": str(env.id), "artifact_id": artifacts[fp].uid,
                "artifact_name": name, "snapshot_index": snapshot.index,
                "compliance": _COMPLIANCE[verdicts[(name, fp)]["compliant"]],
                "started_at": started.get((env.id, name, fp), snapshot.created_at),
                "links": {"snapshot": f"{html_base}/api/v2/snapshots/{org.name}/{env.name}/"
                                      f"{snapshot.index}"}})
    return {
        "live_artifacts": entries,
        "embedded": {
            "environments": [{"id": str(e.id), "name": e.name, "type": e.type} for e in live_envs],
            "artifacts": [{"id": a.uid, "fingerprint": a.fingerprint,
                           "commit_sha": a.git_commit, "commit_url": a.commit_url}
                          for a in sorted(artifacts.values(), key=lambda a: a.id)],
        },
        "links": {"repo": f"{html_base}/api/v2/repos/{org.name}/{repo.name}"},
    }
