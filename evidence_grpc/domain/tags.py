"""Tags: key/value labels set and removed on flows (and, as they arrive, environments and
repos), addressed by the resource type as the CLI spells it."""

from __future__ import annotations

import re

from ..storage.db import now, write_transaction
from ..storage.models import Flow, Organization
from .errors import NotFound, validation_error
from .flows import find_flow

KEY = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9\-_.~]*$")
RESOURCE_TYPES = {"flow": "flow", "flows": "flow"}


def update_tags(org: Organization, resource_type: str, resource_id: str,
                set_tags: dict[str, str], remove_tags: list[str]) -> dict[str, str]:
    """Apply the changes and return the resulting tags."""
    kind = RESOURCE_TYPES.get(resource_type)
    if kind is None:
        raise NotFound(f"Unknown resource type '{resource_type}': use one of "
                       f"{sorted(RESOURCE_TYPES)}")
    for key in set_tags:
        if not KEY.match(key):
            raise validation_error(f"set_tags.{key}", "Tag keys start with a letter or digit and "
                                                      "contain only letters, digits, '-', '_', '.', '~'")
    with write_transaction():
        flow = find_flow(org, resource_id)
        tags = dict(flow.tags or {})
        tags.update(set_tags)
        for key in remove_tags:
            tags.pop(key, None)
        Flow.update(tags=tags, last_modified_at=now()).where(Flow.id == flow.id).execute()
    return tags
