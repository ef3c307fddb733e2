"""The tables. Every model binds to the shared proxy in `db.py`; schema changes go through
numbered scripts in `migrations/`. On PostgreSQL the columns compared as ranges or sorted
(artifact fingerprints and commits; flow, environment, attestation type and repo names) are
COLLATE "C", as SQLite compares (migrations/0008_collate_c.py)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import orjson
import peewee

from .db import database


class JSONField(peewee.TextField):
    """JSON stored as text, identical on SQLite and PostgreSQL."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        if value is None:
            return None
        try:  # several times faster than json on the documents evidence carries
            return orjson.loads(value)
        except orjson.JSONDecodeError:  # what only Python's parser reads (integers past 64 bits)
            return json.loads(value)

    if TYPE_CHECKING:  # on a row, the field reads as the JSON data it holds (peewee is untyped here)
        def __get__(self, instance: Any, owner: Any) -> Any: ...


class BaseModel(peewee.Model):
    class Meta:
        database = database
        legacy_table_names = False


class Organization(BaseModel):
    name = peewee.CharField(unique=True)
    kind = peewee.CharField(default="shared")
    features = JSONField(default=list)
    experimental_features_enabled = peewee.BooleanField(default=False)
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()


class User(BaseModel):
    name = peewee.CharField(unique=True)
    default_org = peewee.CharField(null=True)
    created_at = peewee.DoubleField()


class Membership(BaseModel):
    user = peewee.ForeignKeyField(User, on_delete="CASCADE")
    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    # admin | member | snapshotter | reader
    role = peewee.CharField(default="admin")

    class Meta:
        indexes = ((("user", "organization"), True),)


class ApiKey(BaseModel):
    """A personal API key; only its SHA-256 is kept."""

    key_hash = peewee.CharField(unique=True)
    user = peewee.ForeignKeyField(User, on_delete="CASCADE")
    description = peewee.TextField(default="")
    created_at = peewee.DoubleField()
    expires_at = peewee.DoubleField(null=True)
    last_used_at = peewee.DoubleField(null=True)
    revoked = peewee.BooleanField(default=False)


class Flow(BaseModel):
    """`template_yaml` or `legacy_template` is the flow's current template, which is also its
    newest FlowTemplate, `template` (that one's id): what a trail begun now is judged by."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    name = peewee.CharField()
    description = peewee.TextField(default="")
    visibility = peewee.CharField(default="private")
    template_yaml = peewee.TextField(null=True)
    legacy_template = JSONField(null=True)
    template = peewee.CharField(null=True)  # FlowTemplate.id (not a key: the two point at each other)
    repo_url = peewee.TextField(null=True)
    tags = JSONField(default=dict)
    archived = peewee.BooleanField(default=False)
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()
    last_deployment_at = peewee.DoubleField(null=True)

    class Meta:
        indexes = ((("organization", "name"), True),)


class FlowTemplate(BaseModel):
    """A template a flow had, or a trail of it was given (`trail`): appended, never changed, so
    that a trail is judged by the template it was begun with. Its id is random, in the hosted
    service's shape (`kernel.ids`); answers name it `flow_template_id`. Neither text nor list:
    the empty template."""

    id = peewee.CharField(primary_key=True)
    flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
    template_yaml = peewee.TextField(null=True)
    legacy_template = JSONField(null=True)
    for_trail = peewee.BooleanField(default=False)
    created_at = peewee.DoubleField()


class FlowAlias(BaseModel):
    """A former name of a renamed flow, resolving to it until a flow takes the name."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    name = peewee.CharField()
    flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")

    class Meta:
        indexes = ((("organization", "name"), True),)


class Repo(BaseModel):
    """A source repository, learned when trails, artifacts and attestations report repo_info.
    `repo_id` is the provider's id of the repository (its name when none was reported)."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    repo_id = peewee.CharField()
    name = peewee.CharField()
    url = peewee.TextField(default="")
    provider = peewee.CharField(null=True)
    description = peewee.TextField(null=True)
    namespace_path = JSONField(default=list)
    tags = JSONField(default=dict)
    created_at = peewee.DoubleField()
    last_seen_at = peewee.DoubleField()

    class Meta:
        indexes = (
            (("organization", "repo_id"), True),
            (("organization", "name"), False),
        )


class Trail(BaseModel):
    flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
    name = peewee.CharField()
    description = peewee.TextField(null=True)
    git_commit_info = JSONField(null=True)
    repo_info = JSONField(null=True)
    origin_url = peewee.TextField(null=True)
    external_urls = JSONField(default=dict)
    user_data = JSONField(null=True)
    template_yaml = peewee.TextField(null=True)  # its own template, as given (also flow_template)
    # what it is judged by; every trail has one since migration 0025
    flow_template = peewee.ForeignKeyField(FlowTemplate, null=True, on_delete="CASCADE")
    # its artifacts judged by what the template requires of them alone, not of the trail too:
    # trails begun before migration 0025 keep that rule and their verdicts (issue 44). Not null,
    # false unless given (the column's default), so no insert needs to name it
    artifacts_judged_alone = peewee.BooleanField(null=True)
    created_by = peewee.CharField(default="")
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()

    class Meta:
        indexes = (
            (("flow", "name"), True),
            (("flow", "created_at"), False),
        )


class TrailEvent(BaseModel):
    trail = peewee.ForeignKeyField(Trail, on_delete="CASCADE", index=True)
    timestamp = peewee.DoubleField()
    type = peewee.CharField()
    payload = JSONField(default=dict)


class Blob(BaseModel):
    """Attachment content, addressed by its SHA-256 and stored once however often attached.
    The bytes are in BlobChunk rows."""

    sha256 = peewee.CharField(primary_key=True)
    size = peewee.IntegerField()
    created_at = peewee.DoubleField()


class BlobChunk(BaseModel):
    """A piece of a blob. Small rows keep a database write of a large file from holding the
    whole file in the driver's and the database's memory."""

    blob = peewee.ForeignKeyField(Blob, on_delete="CASCADE", column_name="blob_sha256")
    seq = peewee.IntegerField()
    data = peewee.BlobField()

    class Meta:
        indexes = ((("blob", "seq"), True),)


class Artifact(BaseModel):
    """A build output of a trail, identified by the SHA-256 of its content. `uid` is its id in
    answers (kernel.ids)."""

    uid = peewee.CharField(null=True, unique=True)  # every artifact has one since migration 0025
    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
    trail = peewee.ForeignKeyField(Trail, on_delete="CASCADE")
    fingerprint = peewee.CharField()
    name = peewee.TextField()
    template_reference_name = peewee.CharField(null=True)
    git_commit = peewee.CharField(null=True)
    git_commit_info = JSONField(null=True)
    repo_info = JSONField(null=True)
    repo = peewee.ForeignKeyField(Repo, null=True, index=False, on_delete="SET NULL")  # or trail's
    build_url = peewee.TextField(null=True)
    commit_url = peewee.TextField(null=True)
    repo_url = peewee.TextField(null=True)
    external_urls = JSONField(default=dict)
    annotations = JSONField(default=dict)
    commits = JSONField(default=list)
    created_by = peewee.CharField(default="")
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()

    class Meta:
        indexes = (
            (("trail", "fingerprint"), True),
            (("organization", "fingerprint"), False),
            (("organization", "git_commit"), False),
            (("flow", "created_at"), False),
            (("flow", "fingerprint"), False),
            (("flow", "git_commit"), False),
            (("repo", "created_at"), False),
        )


class Attestation(BaseModel):
    """One piece of evidence reported to a trail, optionally about one of its artifacts.
    An override is a new row that re-judges an earlier one; both are kept."""

    uid = peewee.CharField(null=True, unique=True)  # every artifact has one since migration 0025
    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
    trail = peewee.ForeignKeyField(Trail, on_delete="CASCADE")
    artifact = peewee.ForeignKeyField(Artifact, null=True, on_delete="SET NULL")
    name = peewee.CharField()
    type = peewee.CharField()
    target_artifact = peewee.CharField(null=True)
    artifact_fingerprint = peewee.CharField(null=True)
    is_compliant = peewee.BooleanField()
    data = JSONField(default=dict)
    summary = JSONField(default=dict)
    attachment = peewee.ForeignKeyField(Blob, null=True, on_delete="SET NULL")
    attachment_name = peewee.TextField(null=True)
    overrides = peewee.CharField(null=True)  # uid of the attestation this one re-judges
    git_commit = peewee.CharField(null=True)  # data.git_commit_info.sha1, for commit searches
    created_by = peewee.CharField(default="")
    created_at = peewee.DoubleField()

    class Meta:
        indexes = (
            (("trail", "name"), False),
            (("organization", "created_at"), False),
            (("flow", "created_at"), False),
            (("organization", "git_commit"), False),
        )


class AttestationType(BaseModel):
    """A custom attestation type: a JSON Schema for its data and jq rules judging it."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    name = peewee.CharField()
    archived = peewee.BooleanField(default=False)
    created_by = peewee.CharField(default="")
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()

    class Meta:
        indexes = ((("organization", "name"), True),)


class AttestationTypeVersion(BaseModel):
    type = peewee.ForeignKeyField(AttestationType, on_delete="CASCADE")
    version = peewee.IntegerField()
    description = peewee.TextField(default="")
    comment = peewee.TextField(default="")
    type_schema = JSONField(null=True)
    evaluator = JSONField(null=True)
    summary = JSONField(null=True)
    created_by = peewee.CharField(default="")
    timestamp = peewee.DoubleField()

    class Meta:
        indexes = ((("type", "version"), True),)


# ---- runtime: environments, snapshots, deployments, repos ----------------------------------

class Environment(BaseModel):
    """Where artifacts run. `latest_index` is the number of its newest snapshot (0: none yet)."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    name = peewee.CharField()
    type = peewee.CharField()
    description = peewee.TextField(default="")
    include_scaling = peewee.BooleanField(default=False)
    require_provenance = peewee.BooleanField(default=False)
    tags = JSONField(default=dict)
    policies = JSONField(default=list)
    # The ids of a logical environment's physical members (and, as strings, names that named
    # none when migrations/0019 turned names into ids: domain/kernel/references.py).
    included_environments = JSONField(default=list)
    archived = peewee.BooleanField(default=False)
    latest_index = peewee.IntegerField(default=0)
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()
    last_reported_at = peewee.DoubleField(null=True)
    last_changed_at = peewee.DoubleField(null=True)

    class Meta:
        indexes = ((("organization", "name"), True),)


class Snapshot(BaseModel):
    """One state of an environment: the artifacts running from `created_at` until the next."""

    environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
    index = peewee.IntegerField()
    type = peewee.CharField()
    # [{name, fingerprint, instance_count, creationTimestamp: [...], pods, context: [...]}]
    artifacts = JSONField(default=list)
    created_at = peewee.DoubleField()
    # Judged once, when the snapshot is made, and never again (migrations/0011): per running
    # artifact, in the order of `artifacts`, [{name, fingerprint, compliant, decided, flows,
    # reasons_for_incompliance (without policies)}]: `decided` holds one letter per rule
    # resolution of each applied policy (policy_eval.Outcomes.codes), from which
    # policy_decisions and the policies' reasons are rendered when read (snapshots kept
    # before 2026-11-24 carry them rendered, before 2026-11-25 as lists of letters);
    # `compliant` is null (Unknown) for the artifacts and the snapshot of an environment
    # without policies.
    verdicts = JSONField(default=list)
    compliant = peewee.BooleanField(null=True)
    applied_policies = JSONField(default=list)

    class Meta:
        indexes = (
            (("environment", "index"), True),
            (("environment", "created_at"), False),
        )


class EnvironmentEvent(BaseModel):
    """An artifact started, exited or scaled in a snapshot."""

    environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
    snapshot_index = peewee.IntegerField()
    type = peewee.CharField()  # started | exited | scaled
    artifact_name = peewee.TextField()
    fingerprint = peewee.CharField()
    was = peewee.IntegerField()
    now = peewee.IntegerField()
    reported_at = peewee.DoubleField()

    class Meta:
        indexes = (
            (("environment", "snapshot_index"), False),
            (("fingerprint",), False),
        )


class Deployment(BaseModel):
    """An artifact starting to run in a (non-logical) environment."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
    snapshot_index = peewee.IntegerField()
    artifact_name = peewee.TextField()
    fingerprint = peewee.CharField()
    deployed_at = peewee.DoubleField()
    # From the first artifact reported with the fingerprint, at deployment or when it is reported.
    repo = peewee.ForeignKeyField(Repo, null=True, index=False, on_delete="SET NULL")
    lead_time_seconds = peewee.DoubleField(null=True)

    class Meta:
        indexes = (
            (("organization", "deployed_at"), False),
            (("organization", "fingerprint"), False),
            (("environment", "deployed_at"), False),
            (("repo", "environment", "deployed_at", "id", "lead_time_seconds"), False),
        )


class AllowlistEntry(BaseModel):
    """An artifact allowed to run in an environment without provenance."""

    environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
    fingerprint = peewee.CharField()
    artifact_name = peewee.TextField()
    description = peewee.TextField(default="")
    user_name = peewee.CharField(default="")
    created_at = peewee.DoubleField()

    class Meta:
        indexes = ((("environment", "fingerprint"), True),)


ALL_MODELS = [Organization, User, Membership, ApiKey, Flow, FlowTemplate, FlowAlias, Repo, Trail,
              TrailEvent, Blob,
              BlobChunk,
              Artifact, Attestation, AttestationType, AttestationTypeVersion,
              Environment, Snapshot, EnvironmentEvent, Deployment, AllowlistEntry]


class Policy(BaseModel):
    """An environment policy; its YAML lives in numbered PolicyVersion rows."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    name = peewee.CharField()
    description = peewee.TextField(default="")
    created_by = peewee.CharField()
    archived = peewee.BooleanField(default=False)
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()

    class Meta:
        indexes = ((("organization", "name"), True),)


class PolicyVersion(BaseModel):
    """One content of a policy: a new one only when the YAML text changed."""

    policy = peewee.ForeignKeyField(Policy, on_delete="CASCADE")
    version = peewee.IntegerField()
    policy_yaml = peewee.TextField()
    comment = peewee.TextField(default="")
    created_by = peewee.CharField()
    created_at = peewee.DoubleField()

    class Meta:
        indexes = ((("policy", "version"), True),)


class PolicyEvent(BaseModel):
    """What happened to a policy: creation, new_version, metadata_update."""

    policy = peewee.ForeignKeyField(Policy, on_delete="CASCADE")
    type = peewee.CharField()
    user_name = peewee.CharField()
    user_type = peewee.CharField(default="user")  # user | service_account
    data = JSONField(default=dict)
    created_at = peewee.DoubleField()

    class Meta:
        indexes = ((("policy", "created_at"), False),)


ALL_MODELS += [Policy, PolicyVersion, PolicyEvent]


class Approval(BaseModel):
    """A (deprecated) approval of an artifact of a flow, numbered per flow. `reviews` are the
    individual verdicts [{state, comment, approved_by, approval_url, timestamp}]; none: pending.
    `environment_ref` is the environment named when it was made (shown by its current name),
    `environment` the name as given (shown when it named no environment)."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    flow = peewee.ForeignKeyField(Flow, on_delete="CASCADE")
    number = peewee.IntegerField()
    fingerprint = peewee.CharField()
    artifact_name = peewee.TextField()
    environment = peewee.CharField(null=True)
    environment_ref = peewee.ForeignKeyField(Environment, null=True, on_delete="SET NULL",
                                             column_name="environment_id")
    description = peewee.TextField(default="")
    commits = JSONField(default=list)
    oldest_commit = peewee.CharField(null=True)
    reviews = JSONField(default=list)
    state = peewee.CharField()
    user_data = JSONField(null=True)
    created_by = peewee.CharField(default="")
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()

    class Meta:
        indexes = (
            (("flow", "number"), True),
            (("flow", "fingerprint"), False),
        )


ALL_MODELS += [Approval]


class Control(BaseModel):
    """A control of the organization's catalog (beta). Archived, never deleted; `version` is
    the number of its newest ControlVersion."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    identifier = peewee.CharField(max_length=256)
    name = peewee.TextField()
    description = peewee.TextField(default="")
    links = JSONField(default=dict)
    tags = JSONField(default=dict)
    version = peewee.IntegerField()
    archived = peewee.BooleanField(default=False)
    created_by = peewee.CharField()
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()

    class Meta:
        indexes = ((("organization", "identifier"), True),
                   (("organization", "archived", "name"), False))


class ControlVersion(BaseModel):
    """One lifecycle event of a control (Created, Edited, Archived, Unarchived) and the control
    as it left it."""

    control = peewee.ForeignKeyField(Control, on_delete="CASCADE")
    version = peewee.IntegerField()
    event = peewee.CharField()
    name = peewee.TextField()
    description = peewee.TextField(default="")
    links = JSONField(default=dict)
    archived = peewee.BooleanField()
    created_by = peewee.CharField()
    created_at = peewee.DoubleField()

    class Meta:
        indexes = ((("control", "version"), True),)


ALL_MODELS += [Control, ControlVersion]


class ServiceAccount(BaseModel):
    """A machine identity of one organization; its keys carry its privilege."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    name = peewee.CharField(max_length=64)
    description = peewee.TextField(null=True)
    privilege = peewee.CharField()
    created_by = peewee.CharField()
    created_at = peewee.DoubleField()

    class Meta:
        indexes = ((("organization", "name"), True),)


class ServiceAccountKey(BaseModel):
    """An API key of a service account: only its SHA-256 is kept. `expires_at` is 0 for
    never; a rotated key's `expires_at` is the end of its grace period."""

    service_account = peewee.ForeignKeyField(ServiceAccount, on_delete="CASCADE")
    key_id = peewee.CharField(unique=True)
    key_hash = peewee.CharField(unique=True)
    description = peewee.TextField()
    created_at = peewee.DoubleField()
    expires_at = peewee.BigIntegerField(default=0)
    last_used_at = peewee.DoubleField(null=True)
    revoked = peewee.BooleanField(default=False)
    rotated = peewee.BooleanField(default=False)


class MembershipAuditEvent(BaseModel):
    """Who changed which identity of an organization, recorded in the changing transaction."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    event_type = peewee.CharField()
    timestamp = peewee.DoubleField()
    actor = peewee.CharField()
    actor_type = peewee.CharField(default="user")  # user | service_account
    subject = peewee.CharField()
    role = peewee.CharField(default="")
    source = peewee.CharField(default="api")
    details = JSONField(default=dict)

    class Meta:
        indexes = ((("organization", "timestamp"), False),)


ALL_MODELS += [ServiceAccount, ServiceAccountKey, MembershipAuditEvent]


class Action(BaseModel):
    """An outbound notification rule of an organization: which events (`triggers`) of which
    environments or flows (`scopes`: their ids, and labels as in
    `Environment.included_environments`) go to which `targets`."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    number = peewee.IntegerField()
    name = peewee.CharField()
    type = peewee.CharField()  # env | flow
    targets = JSONField(default=list)
    scopes = JSONField(default=list)
    triggers = JSONField(default=list)
    created_by = peewee.CharField()
    created_at = peewee.DoubleField()
    last_modified_at = peewee.DoubleField()
    last_success_at = peewee.DoubleField(null=True)
    last_failure_at = peewee.DoubleField(null=True)

    class Meta:
        indexes = ((("organization", "number"), True), (("organization", "name"), True))


class OutboxMessage(BaseModel):
    """One notification to one target, committed with the change that caused it and delivered
    by the delivery worker: claimed with a lease (`claimed_until`, and the claim's own
    `lease_token`: only the latest claim sends it and records its outcome), retried with
    backoff until `delivered_at` or `abandoned_at`."""

    action = peewee.ForeignKeyField(Action, on_delete="CASCADE")
    target_index = peewee.IntegerField()
    trigger = peewee.CharField()
    payload = JSONField()
    created_at = peewee.DoubleField()
    attempts = peewee.IntegerField(default=0)
    next_attempt_at = peewee.DoubleField()
    claimed_until = peewee.DoubleField(default=0)
    lease_token = peewee.CharField(null=True)  # none until first claimed
    delivered_at = peewee.DoubleField(null=True)
    abandoned_at = peewee.DoubleField(null=True)
    last_error = peewee.TextField(null=True)

    class Meta:
        indexes = ((("delivered_at", "abandoned_at", "next_attempt_at"), False),)


ALL_MODELS += [Action, OutboxMessage]


class EnvironmentAuditEvent(BaseModel):
    """Who changed what in an environment, recorded in the transaction of the change:
    its definition, policies, allowlist, and the artifacts its snapshots started, exited or
    scaled."""

    environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
    timestamp = peewee.DoubleField()
    event_type = peewee.CharField()
    actor = peewee.CharField(default="")
    actor_type = peewee.CharField(default="")  # user | service_account; "" with no actor
    artifact_name = peewee.TextField(null=True)
    fingerprint = peewee.CharField(null=True)
    snapshot_index = peewee.IntegerField(null=True)
    details = JSONField(default=dict)

    class Meta:
        indexes = ((("environment", "timestamp"), False),)


ALL_MODELS += [EnvironmentAuditEvent]


class DeploymentSeries(BaseModel):
    """A repo's deployments to one environment on one UTC day (`deployed_at` in
    [day * 86400, (day + 1) * 86400)), packed for deployment statistics: `times` their
    `deployed_at` and `leads` their `lead_time_seconds` (NaN where unknown), little-endian
    doubles in (deployed_at, id) order. Rewritten from the rows by `deployments.repack` in the
    transaction of every write to them; gone with the repo or the environment."""

    repo = peewee.ForeignKeyField(Repo, on_delete="CASCADE", index=False)
    environment = peewee.ForeignKeyField(Environment, on_delete="CASCADE")
    day = peewee.IntegerField()
    times = peewee.BlobField()
    leads = peewee.BlobField()

    class Meta:
        primary_key = peewee.CompositeKey("repo", "environment", "day")


ALL_MODELS += [DeploymentSeries]


class WebSession(BaseModel):
    """A signed-in visitor of the web pages. The browser's cookie holds a random id; only its
    SHA-256 (`id_hash`) is kept, with the SHA-256 of the API key it was opened with
    (`key_hash`, as ApiKey and ServiceAccountKey keep it): every page request authenticates
    that key anew (domain.web_sessions), so revoking or expiring it ends the session."""

    id_hash = peewee.CharField(unique=True)
    key_hash = peewee.CharField(index=True)
    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    created_at = peewee.DoubleField()
    last_seen_at = peewee.DoubleField()


ALL_MODELS += [WebSession]


class LogHead(BaseModel):
    """An organization's transparency log (domain.transparency.log): its size and the hashes of
    the complete subtrees along its right edge (`frontier`, hex, largest first), from which its
    root is folded and the next append's hashes made without a read. Locked by every append:
    entries are numbered in commit order without gaps."""

    organization = peewee.ForeignKeyField(Organization, unique=True, on_delete="CASCADE")
    size = peewee.BigIntegerField(default=0)
    frontier = JSONField(default=list)
    # The origin of its checkpoints when it is not `<key name>/<organization>`: a log begun
    # again (`evidence-server begin-new-log`) after one that could not go on.
    origin = peewee.CharField(null=True)


class LogEntry(BaseModel):
    """Entry `number` of an organization's log: the leaf (RFC 8785 canonical JSON) of one
    evidence record (`kind`, its row `record_id`), and `hashes`, the hashes of the complete
    subtrees its append made, level 0 (the leaf's hash) first, 32 bytes each
    (merkle.closed_by): the hash of subtree (level, index) is kept by entry
    ((index + 1) << level) - 1, so a proof's O(log n) hashes are one indexed IN read and an
    append writes one row."""

    # found by (organization, number), the unique index below
    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE", index=False)
    number = peewee.BigIntegerField()
    kind = peewee.CharField()
    record_id = peewee.BigIntegerField()
    leaf = peewee.TextField()
    hashes = peewee.BlobField()

    class Meta:
        indexes = ((("organization", "number"), True), (("kind", "record_id"), False))


ALL_MODELS += [LogHead, LogEntry]


class LogKeyRotation(BaseModel):
    """A rotation of the transparency logs' key (`evidence-server rotate-log-key`), one row per
    organization, each the record of a `key_rotated` entry of its log (domain.transparency.keys):
    the verifier keys before and after, the size of the log once its entry was appended
    (`size`: the key before signed the trees up to it, the key after from it on) and the
    checkpoint of that tree signed by both keys."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE")
    old_key = peewee.CharField()
    new_key = peewee.CharField()
    size = peewee.BigIntegerField(null=True)
    checkpoint = peewee.TextField(null=True)
    created_at = peewee.DoubleField()


ALL_MODELS += [LogKeyRotation]


class TrailManifest(BaseModel):
    """What a trail's latest manifest in the transparency log says of its entries, and what
    its verdict is made from (the newest attestation of each name at each level: the trail
    itself, each artifact it names; evidence.compliance reads no other): kept in the
    transaction of each write of the trail, so that its next manifest (evidence.manifests) is
    made from this row, however many entries and attestations the trail has. Made from the
    trail's rows when missing (a trail last written before migration 0027)."""

    trail = peewee.ForeignKeyField(Trail, primary_key=True, on_delete="CASCADE")
    manifest = peewee.BigIntegerField()  # the number of its latest manifest
    count = peewee.BigIntegerField()  # the entries it lists
    entries_sha256 = peewee.CharField()  # transparency.log.entries_digest of their numbers
    # [[seq, uid, name, type, is_compliant, target, overrides], ...] (trails.EvidenceRows)
    newest = JSONField()


ALL_MODELS += [TrailManifest]


class LogCheckpoint(BaseModel):
    """A checkpoint of an organization's log that a witness cosigned (domain.transparency.
    witnessing): its size, root (hex) and the note as the log signed it. Kept while a
    cosignature on it is kept."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE", index=False)
    size = peewee.BigIntegerField()
    root = peewee.CharField()
    note = peewee.TextField()
    created_at = peewee.DoubleField()

    class Meta:
        indexes = ((("organization", "size", "root"), True),)


class LogCosignature(BaseModel):
    """A witness's cosignature (C2SP cosignature/v1) on a kept checkpoint: the witness's
    verifier key, the signature line as the witness answered it, and its timestamp."""

    checkpoint = peewee.ForeignKeyField(LogCheckpoint, on_delete="CASCADE", index=False)
    witness = peewee.CharField()
    line = peewee.TextField()
    cosigned_at = peewee.BigIntegerField()

    class Meta:
        indexes = ((("checkpoint", "witness"), True),)


class LogWitness(BaseModel):
    """What a witness (its verifier key) knows of an organization's log: the size it last
    cosigned (or said it had), when, and how submitting to it went (consecutive failures,
    refusals counted, the last problem)."""

    organization = peewee.ForeignKeyField(Organization, on_delete="CASCADE", index=False)
    witness = peewee.CharField()
    size = peewee.BigIntegerField(default=0)
    cosigned_at = peewee.BigIntegerField(null=True)
    attempted_at = peewee.DoubleField(null=True)
    failures = peewee.IntegerField(default=0)
    refusals = peewee.IntegerField(default=0)
    problem = peewee.TextField(default="")

    class Meta:
        indexes = ((("organization", "witness"), True),)


ALL_MODELS += [LogCheckpoint, LogCosignature, LogWitness]


class ArtifactManifest(BaseModel):
    """What an artifact's latest manifest in the transparency log says of its entries, and the
    digest of the verdict it logs (evidence.manifests.artifact_verdict): kept in the
    transaction of each write touching the artifact, so that its next manifest is made from
    this row, and a write of its trail logs one only when its verdict changed. Made from the
    artifact's rows when missing (an artifact last written before migration 0032)."""

    artifact = peewee.ForeignKeyField(Artifact, primary_key=True, on_delete="CASCADE")
    manifest = peewee.BigIntegerField()  # the number of its latest manifest
    count = peewee.BigIntegerField()  # the entries it lists
    entries_sha256 = peewee.CharField()  # transparency.log.entries_digest of their numbers
    verdict_sha256 = peewee.CharField()  # transparency.log.digest of its verdict's fields


ALL_MODELS += [ArtifactManifest]


class ListSize(BaseModel):
    """How many items a list holds (`kind`: a flow's trails, a flow's attestations, a trail's
    attestations; `owner`: the flow's or trail's id), kept in the transaction that adds one, so
    that a page of the list tells its total without counting it (migration 0031 counted those
    made before it). Nothing that lists are made of is ever deleted but with its owner."""

    kind = peewee.CharField()
    owner = peewee.BigIntegerField()
    size = peewee.BigIntegerField()

    class Meta:
        primary_key = peewee.CompositeKey("kind", "owner")


ALL_MODELS += [ListSize]


class ListEntry(BaseModel):
    """An item's place in a paged list (`list_kind`: the list's kind's code in
    domain.kernel.list_sizes; `owner` as in ListSize; `position`: 1 for the first item added,
    the list's size for the last), given in the transaction that adds it, so that any page is a
    range of positions: an index seek, whatever its depth (migration 0033 numbered those made
    before it, in the list's order; on SQLite a table WITHOUT ROWID, stored in that key's
    order)."""

    list_kind = peewee.SmallIntegerField()
    owner = peewee.BigIntegerField()
    position = peewee.BigIntegerField()
    item = peewee.BigIntegerField()

    class Meta:
        primary_key = peewee.CompositeKey("list_kind", "owner", "position")


ALL_MODELS += [ListEntry]
