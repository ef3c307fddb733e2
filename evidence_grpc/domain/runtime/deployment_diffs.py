"""What a running artifact replaced in its environment: a snapshot artifact's `deployment_diff`.

The previous version of an artifact, for one flow it was reported to, is the artifact of that
flow with the same template name (another fingerprint) that most recently started running in
the environment before this one started (its latest start at or before the snapshot). Computed
when a snapshot is read: one grouped query for the starts, one indexed query per (artifact,
flow), and the compliance of the previous versions' trails."""

from __future__ import annotations

from typing import Any

import peewee

from ...api.v2 import views
from ...storage.db import Prepared, database, in_chunks
from ...storage.models import Artifact, Deployment, Environment, Flow, Organization, Trail
from ..evidence.artifacts import states_of
from ..kernel.references import ids_by_name

# (fingerprint, flow name, template reference name) of an artifact's report to one flow
Report = tuple[str, str, str]

_PREVIOUS = Prepared(lambda org, env, before, flow, template, fingerprint: (
    Artifact.select(Artifact, Flow, Trail).join(Flow).switch(Artifact).join(Trail)
    .switch(Artifact)
    .join(Deployment, on=(Deployment.organization == Artifact.organization)
          & (Deployment.fingerprint == Artifact.fingerprint))
    .where((Artifact.organization == org) & (Deployment.environment == env)
           & (Deployment.deployed_at < before) & (Artifact.flow == flow)
           & (Artifact.template_reference_name == template)
           & (Artifact.fingerprint != fingerprint))
    .order_by(Deployment.deployed_at.desc(), Deployment.id.desc(), Artifact.id)
    .limit(1)),
    org=int, env=int, before=float, flow=int, template=str, fingerprint=str)


def _starts(env: Environment, index: int, fingerprints: list[str]) -> dict[str, float]:
    """When each fingerprint last started running in the environment, up to snapshot `index`."""
    found: dict[str, float] = {}
    for chunk in in_chunks(fingerprints):
        query = (Deployment.select(Deployment.fingerprint, peewee.fn.MAX(Deployment.deployed_at))
                 .where((Deployment.environment == env) & (Deployment.snapshot_index <= index)
                        & Deployment.fingerprint.in_(chunk))
                 .group_by(Deployment.fingerprint))
        found.update(database.execute_sql(*query.sql()))
    return found


def previous_versions(org: Organization, env: Environment, index: int,
                      reports: set[Report]) -> dict[Report, Artifact]:
    """The previous version of each report that has one (with its flow and trail loaded); a
    report's flow is named as a snapshot kept it, found by a current or a former name."""
    starts = _starts(env, index, sorted({fingerprint for fingerprint, _, _ in reports}))
    flows = ids_by_name(Flow, org, sorted({flow_name for _, flow_name, _ in reports}))
    found = {}
    for report in sorted(reports):
        fingerprint, flow_name, template = report
        if fingerprint not in starts or flow_name not in flows:
            continue
        rows = _PREVIOUS.models(Artifact, org=org.id, env=env.id, before=starts[fingerprint],
                                flow=flows[flow_name], template=template, fingerprint=fingerprint)
        if rows:
            found[report] = rows[0]
    return found


def compare_url(commit_url: str | None, commit: str | None, previous: str | None) -> str | None:
    """The repository's compare page from `previous` to `commit`, where the commit's URL shows
    the repository's form (`<repo>/commit/<sha>`, GitLab's `<repo>/-/commit/<sha>`)."""
    suffix = f"/commit/{commit}"
    if not (commit_url and commit and previous and commit_url.endswith(suffix)):
        return None
    return f"{commit_url[:-len(suffix)]}/compare/{previous}...{commit}"


# An artifact's deployment_diff and each of its flows' (in the order of its flows).
ArtifactDiffs = tuple[views.DeploymentDiff | None, list[views.DeploymentDiff | None]]


def deployment_diffs(org: Organization, env: Environment, index: int,
                     artifacts: list[tuple[str, list[dict[str, Any]]]], running: set[str]
                     ) -> list[ArtifactDiffs]:
    """The deployment diffs of snapshot `index`'s artifacts, given as (fingerprint, its flows as
    the answer shows them: flow_name, template_reference_name, commit_url, git_commit), in
    their order (null where there is no previous version); `running`: the fingerprints that
    run in the snapshot. An artifact's own diff is its first flow's."""
    reports = {(fingerprint, f["flow_name"], f["template_reference_name"])
               for fingerprint, flows in artifacts
               for f in flows if f["flow_name"] is not None and f["template_reference_name"]}
    previous = previous_versions(org, env, index, reports)
    states = states_of(list(previous.values())) if previous else {}
    found: list[ArtifactDiffs] = []
    for fingerprint, flows in artifacts:
        of_flows: list[views.DeploymentDiff | None] = []
        for flow in flows:
            flow_name, template = flow["flow_name"], flow["template_reference_name"]
            before = (previous.get((fingerprint, flow_name, template))
                      if flow_name is not None and template else None)
            of_flows.append(None if before is None else {
                "diff_url": compare_url(flow["commit_url"], flow["git_commit"], before.git_commit),
                "previous_git_commit": before.git_commit,
                "previous_fingerprint": before.fingerprint,
                "previous_artifact_name": before.name,
                "previous_artifact_compliance_state": states[before.id],
                "previous_running": before.fingerprint in running,
                "previous_git_commit_url": before.commit_url,
                "previous_trail_name": before.trail.name,
                "previous_template_reference_name": before.template_reference_name,
            })
        found.append((of_flows[0] if of_flows else None, of_flows))
    return found
