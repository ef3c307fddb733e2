"""Repos are learned when evidence is written, not scanned for when read: artifacts and
deployments point at their repo, and deployments keep their lead time. Existing rows are
linked here from the repo_info already reported. Frozen copies of the models."""

import json

import peewee

from evidence_grpc.storage.migrations.frozen import JSONField


def _key(info):
    if not isinstance(info, dict) or not info.get("name"):
        return None
    return str(info.get("id") or info["name"])


def _commit_time(*infos):
    for info in infos:
        stamp = info.get("timestamp") if isinstance(info, dict) else None
        if isinstance(stamp, int | float) and not isinstance(stamp, bool):
            return float(stamp)
    return None


def up(migrator, db):
    class Base(peewee.Model):
        class Meta:
            database = db
            legacy_table_names = False

    class Repo(Base):
        organization_id = peewee.IntegerField()
        repo_id = peewee.CharField()
        name = peewee.CharField()
        url = peewee.TextField(default="")
        provider = peewee.CharField(null=True)
        description = peewee.TextField(null=True)
        namespace_path = JSONField(default=list)
        tags = JSONField(default=dict)
        created_at = peewee.DoubleField()
        last_seen_at = peewee.DoubleField()

    class Flow(Base):
        organization_id = peewee.IntegerField()

    class Trail(Base):
        flow = peewee.ForeignKeyField(Flow)
        git_commit_info = JSONField(null=True)
        repo_info = JSONField(null=True)
        created_at = peewee.DoubleField()

    class Artifact(Base):
        organization_id = peewee.IntegerField()
        trail = peewee.ForeignKeyField(Trail)
        fingerprint = peewee.CharField()
        git_commit_info = JSONField(null=True)
        repo_info = JSONField(null=True)
        created_at = peewee.DoubleField()
        repo_id = peewee.IntegerField(null=True)

    class Attestation(Base):
        organization_id = peewee.IntegerField()
        data = peewee.TextField()
        created_at = peewee.DoubleField()

    class Deployment(Base):
        organization_id = peewee.IntegerField()
        fingerprint = peewee.CharField()
        deployed_at = peewee.DoubleField()
        repo_id = peewee.IntegerField(null=True)
        lead_time_seconds = peewee.DoubleField(null=True)

    migrator.migrate(
        migrator.add_column("artifact", "repo_id", peewee.ForeignKeyField(
            Repo, null=True, index=False, on_delete="SET NULL", field=Repo.id)),
        migrator.add_column("deployment", "repo_id", peewee.ForeignKeyField(
            Repo, null=True, index=False, on_delete="SET NULL", field=Repo.id)),
        migrator.add_column("deployment", "lead_time_seconds", peewee.DoubleField(null=True)),
        migrator.add_index("artifact", ("repo_id", "created_at")),
        migrator.add_index("deployment", ("environment_id", "deployed_at")),
        migrator.add_index("deployment", ("repo_id", "environment_id", "deployed_at")),
    )

    repos = {(r.organization_id, r.repo_id): r.id for r in Repo.select()}

    def learn(org_id, info, stamp):
        key = _key(info)
        if key is None:
            return None
        if (org_id, key) not in repos:
            repos[(org_id, key)] = Repo.insert(
                organization_id=org_id, repo_id=key, name=str(info["name"]),
                url=str(info.get("url") or ""), provider=info.get("provider"),
                description=info.get("description"),
                namespace_path=str(info["name"]).split("/")[:-1], tags={}, created_at=stamp,
                last_seen_at=stamp).execute()
        return repos[(org_id, key)]

    for trail in Trail.select(Trail, Flow).join(Flow).order_by(Trail.id):
        learn(trail.flow.organization_id, trail.repo_info, trail.created_at)
    for org_id, text, stamp in (Attestation.select(Attestation.organization_id, Attestation.data,
                                                   Attestation.created_at)
                                .where(Attestation.data.contains('"repo_info"'))
                                .order_by(Attestation.id).tuples()):
        learn(org_id, json.loads(text).get("repo_info"), stamp)
    first = {}
    for artifact in (Artifact.select(Artifact, Trail).join(Trail)
                     .order_by(Artifact.created_at, Artifact.id)):
        repo_id = learn(artifact.organization_id,
                        artifact.repo_info or artifact.trail.repo_info, artifact.created_at)
        if repo_id is not None:
            Artifact.update(repo_id=repo_id).where(Artifact.id == artifact.id).execute()
        first.setdefault((artifact.organization_id, artifact.fingerprint),
                         (repo_id, _commit_time(artifact.git_commit_info,
                                                artifact.trail.git_commit_info)))
    for deployment in Deployment.select():
        repo_id, commit_time = first.get((deployment.organization_id, deployment.fingerprint),
                                         (None, None))
        lead = None if commit_time is None else max(0.0, deployment.deployed_at - commit_time)
        Deployment.update(repo_id=repo_id, lead_time_seconds=lead).where(
            Deployment.id == deployment.id).execute()
