"""What happens to evidence that higher contexts react to (kernel.events)."""

from __future__ import annotations

from dataclasses import dataclass

from ...storage.models import Artifact, Organization


@dataclass(frozen=True)
class ArtifactRepoKnown:
    """An artifact was reported, or its trail's repository became known after it was: its
    deployments can be linked to the repository (runtime.deployments)."""

    org: Organization
    artifact: Artifact
