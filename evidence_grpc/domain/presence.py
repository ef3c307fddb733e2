"""Where artifacts run: the environments an artifact is running in or has exited from.

Environments and snapshots fill this in; until an artifact has been seen in a snapshot it runs
nowhere, which is what an artifact view must then say."""

from __future__ import annotations

from typing import Any

from ..storage.models import Organization


def presence(org: Organization, fingerprints: list[str]) -> dict[str, dict[str, list[Any]]]:
    """{fingerprint: {"running": [{environment_name, snapshot_index}], "exited": [...]}}."""
    return {fp: {"running": [], "exited": []} for fp in fingerprints}
