"""What happens to evidence that higher contexts react to (kernel.events)."""

from __future__ import annotations

from dataclasses import dataclass

from ...storage.models import Artifact, Attestation, Organization


@dataclass(frozen=True)
class ArtifactRepoKnown:
    """An artifact was reported, or its trail's repository became known after it was: its
    deployments can be linked to the repository (runtime.deployments)."""

    org: Organization
    artifact: Artifact


@dataclass(frozen=True)
class DecisionRecorded:
    """A decision naming a control (its `control`) was recorded, or one was overridden: it
    joins the list of the control's decisions (governance.controls)."""

    org: Organization
    decision: Attestation
