"""Domain rules by bounded context: plain functions over the storage models, callable without
gRPC (docs/architecture.md). From the top: views (answers across contexts), governance
(policies, asserts, controls, approvals, tags), runtime (environments, reports and snapshots,
deployments, policy evaluation), evidence (flows, trails, attestations, artifacts, repos),
outbound and identity beside each other, kernel. A context imports only those below it
(`lint-imports`); a lower context's change that a higher one reacts to is a domain event
(kernel.events), subscribed here, once, when the domain is first imported."""

from .evidence import leaves as evidence_leaves
from .evidence import manifests as evidence_manifests
from .evidence.artifacts import first_reports
from .evidence.events import ArtifactRepoKnown, DecisionRecorded
from .governance import controls
from .governance import leaves as governance_leaves
from .kernel import events
from .outbound import notifications
from .runtime import leaves as runtime_leaves
from .runtime.deployments import link_artifact
from .transparency import keys, log

events.subscribe(ArtifactRepoKnown, link_artifact)
# A decision joins its control's list of decisions (governance, above evidence).
events.subscribe(DecisionRecorded, controls.decision_recorded)
# Notifications (outbound) name where an artifact was built (evidence, above them).
notifications.register_provenance(first_reports)
# How `verify-log` re-derives each kind of leaf from its rows, and which rows must each have an
# entry (named, where they are, when one has none); the rows from before a kind was logged are
# committed to by a genesis (migrations 0026, 0030). The columns a log begun again digests of
# the rows from before it: those that never change once written (migration 0026's).
log.register(evidence_leaves.ATTESTATION, evidence_leaves.rebuild_attestations,
             evidence_leaves.attestation_rows, evidence_leaves.attestation_labels, (
                 "attestation", ["uid", "organization_id", "flow_id", "trail_id", "name", "type",
                                 "target_artifact", "is_compliant", "data", "summary",
                                 "attachment_id", "attachment_name", "overrides", "git_commit",
                                 "created_by", "created_at"]))
log.register(evidence_leaves.ATTESTATION_BOUND, evidence_leaves.rebuild_bindings,
             evidence_leaves.bound_rows, evidence_leaves.attestation_labels,
             ("attestation", ["artifact_id", "artifact_fingerprint"]))
log.register(evidence_leaves.TRAIL_EVENT, evidence_leaves.rebuild_trail_events,
             evidence_leaves.trail_event_rows, evidence_leaves.trail_event_labels,
             ("trail_event", ["trail_id", "timestamp", "type", "payload"]))
log.register(evidence_leaves.TRAIL_MANIFEST, evidence_manifests.rebuild_manifests)
log.register_subject(evidence_manifests.SUBJECT)
# after the trail's: a trail's manifest names the artifacts whose verdict it changed
log.register(evidence_leaves.ARTIFACT_MANIFEST, evidence_manifests.rebuild_artifact_manifests)
log.register_subject(evidence_manifests.ARTIFACT_SUBJECT)
log.register(runtime_leaves.SNAPSHOT, runtime_leaves.rebuild_snapshots,
             runtime_leaves.snapshot_rows, runtime_leaves.snapshot_labels, (
                 "snapshot", ["environment_id", "index", "type", "artifacts", "created_at",
                              "verdicts", "compliant", "applied_policies"]))
log.register(governance_leaves.APPROVAL, governance_leaves.rebuild_approvals,
             governance_leaves.approval_rows, governance_leaves.approval_labels, (
                 "approval", ["organization_id", "flow_id", "number", "fingerprint",
                              "artifact_name", "environment", "environment_id", "description",
                              "commits", "oldest_commit", "reviews", "state", "user_data",
                              "created_by", "created_at"]))
log.register(evidence_leaves.ARTIFACT, evidence_leaves.rebuild_artifacts,
             evidence_leaves.artifact_rows, evidence_leaves.artifact_labels)
log.register(evidence_leaves.FLOW, evidence_leaves.rebuild_flows,
             evidence_leaves.flow_rows, evidence_leaves.flow_labels)
log.register(evidence_leaves.TRAIL, evidence_leaves.rebuild_trails,
             evidence_leaves.trail_rows, evidence_leaves.trail_labels)
log.register(runtime_leaves.ENVIRONMENT, runtime_leaves.rebuild_environments,
             runtime_leaves.environment_rows, runtime_leaves.environment_labels)
log.register(runtime_leaves.ALLOWLIST_ENTRY, runtime_leaves.rebuild_allowlist,
             runtime_leaves.allowlist_rows, runtime_leaves.allowlist_labels)
log.register(governance_leaves.POLICY, governance_leaves.rebuild_policies,
             governance_leaves.policy_rows, governance_leaves.policy_labels)
log.register(governance_leaves.POLICY_VERSION, governance_leaves.rebuild_policy_versions,
             governance_leaves.policy_version_rows, governance_leaves.policy_version_labels)
log.register(governance_leaves.CONTROL, governance_leaves.rebuild_controls,
             governance_leaves.control_rows, governance_leaves.control_labels)
log.register(governance_leaves.CONTROL_VERSION, governance_leaves.rebuild_control_versions,
             governance_leaves.control_version_rows, governance_leaves.control_version_labels)
log.register(evidence_leaves.REPO, evidence_leaves.rebuild_repos, evidence_leaves.repo_rows,
             evidence_leaves.repo_labels)
log.register(evidence_leaves.ATTESTATION_TYPE, evidence_leaves.rebuild_attestation_types,
             evidence_leaves.attestation_type_rows, evidence_leaves.attestation_type_labels)
log.register(evidence_leaves.ATTESTATION_TYPE_VERSION,
             evidence_leaves.rebuild_attestation_type_versions,
             evidence_leaves.attestation_type_version_rows,
             evidence_leaves.attestation_type_version_labels)
log.register(keys.KEY_ROTATED, keys.rebuild_rotations)
