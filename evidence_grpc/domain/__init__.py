"""Domain rules by bounded context: plain functions over the storage models, callable without
gRPC (docs/architecture.md). From the top: views (answers across contexts), governance
(policies, asserts, controls, approvals, tags), runtime (environments, reports and snapshots,
deployments, policy evaluation), evidence (flows, trails, attestations, artifacts, repos),
outbound and identity beside each other, kernel. A context imports only those below it
(`lint-imports`); a lower context's change that a higher one reacts to is a domain event
(kernel.events), subscribed here, once, when the domain is first imported."""

from .evidence.events import ArtifactRepoKnown
from .kernel import events
from .runtime.deployments import link_artifact

events.subscribe(ArtifactRepoKnown, link_artifact)
