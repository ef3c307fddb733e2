"""The logs' key and its history: a key is never replaced silently. A rotation
(`evidence-server rotate-log-key`, the server stopped) is an entry of every organization's log,
`key_rotated`, binding the verifier keys before and after; the checkpoint of the tree that ends
with it is signed by both keys, so that whoever trusts the old key learns the new one from the
log itself. A server starts only with the key the latest rotation took over to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...storage.db import database, now, write_transaction
from ...storage.models import LogHead, LogKeyRotation, Organization
from ..kernel.errors import FailedPrecondition
from . import log

KEY_ROTATED = "key_rotated"

ROTATION_LEAF = log.shape(KEY_ROTATED, LogKeyRotation, {
    "id": log.Derived("the entry's record id"), "organization": log.Bound("org"),
    "old_key": log.Bound("old_key"), "new_key": log.Bound("new_key"),
    "size": log.Derived("the number of the rotation's own entry plus one: its place in the log"),
    "checkpoint": log.Derived("a signature of the tree, checked with both keys, not evidence"),
    "created_at": log.Bound("created_at"),
})


def rebuild_rotations(versions: dict[int, int]) -> dict[int, dict[str, Any]]:
    rows = LogKeyRotation.select(LogKeyRotation, Organization.name).join(Organization).where(
        LogKeyRotation.id.in_(list(versions)))
    return {row.id: ROTATION_LEAF.leaf(row, org=row.organization.name) for row in rows}


class WrongKey(FailedPrecondition):
    """The key given is not the one the logs' latest rotation took over to."""

    reason = "LOG_KEY_ROTATED"


def require_current(signer: log.LogSigner, path: str) -> None:
    """Refuse (`WrongKey`) a key that a rotation replaced, or that is not the key the latest
    rotation took over to."""
    latest = LogKeyRotation.select().order_by(LogKeyRotation.id.desc()).first()
    if latest is None or latest.new_key == signer.vkey:
        return
    replaced = LogKeyRotation.select().where(LogKeyRotation.old_key == signer.vkey).exists()
    raise WrongKey(f"The transparency log key in {path} ({signer.vkey}) "
                   f"{'was replaced by a rotation' if replaced else 'is not the logs key'}: "
                   f"the logs are signed with {latest.new_key} since its rotation; pass "
                   "--log-key-file naming that key's file (env EVIDENCE_LOG_KEY_FILE)")


def prepare(path: str, name: str, *, default: bool) -> log.LogSigner:
    """The logs' signing key for a server about to start (made when it may be:
    `log.prepare_signer`), once found to be the key the latest rotation took over to and every
    organization's log consistent with the largest checkpoint signed of it. Raises
    `log.MissingKey`, `WrongKey` or `kept.Forked`."""
    with database.connection_context():
        orgs = list(Organization.select().join(LogHead, on=LogHead.organization == Organization.id)
                    .where(LogHead.size > 0).order_by(Organization.name))
        signer = log.prepare_signer(path, name, has_log=bool(orgs), default=default)
        require_current(signer, path)
        for org in orgs:
            log.check_kept(org, signer, signer.name)
    return signer


def rotate(org: Organization, old: log.LogSigner, new: log.LogSigner) -> LogKeyRotation:
    """Append the `key_rotated` entry of `org`'s log and sign the tree it ends with both keys
    (the log first found consistent with the largest checkpoint `old` signed of it). Run with
    the server stopped: the entry must be the log's last when it is signed."""
    log.check_kept(org, old, old.name)
    with write_transaction():
        row = LogKeyRotation.create(organization=org, old_key=old.vkey, new_key=new.vkey,
                                    created_at=now())
        log.append(org.id, KEY_ROTATED, row.id, rebuild_rotations({row.id: 1})[row.id])
    number = log.log_indexes(KEY_ROTATED, [row.id])[row.id]
    if log.size_of(org) != number + 1:
        raise FailedPrecondition(f"The log of '{org.name}' grew past its key_rotated entry "
                                 f"{number}: stop the server before rotating the key")
    row.size = number + 1
    row.checkpoint = log.checkpoint(org, old, old.name, new)
    with write_transaction():
        row.save()
    return row


@dataclass(frozen=True)
class KeySpan:
    """A key of the log and the tree sizes it signed: from `first_size` to `last_size` (None:
    the key signing now); `rotation`, for a key that took over at a rotation, the checkpoint of
    `first_size` signed by it and the key before."""
    verifier_key: str
    first_size: int
    last_size: int | None
    rotation: str | None


def history(org: Organization, current: str) -> list[KeySpan]:
    """The keys of `org`'s log, oldest first (`current`: the verifier key signing now)."""
    spans: list[KeySpan] = []
    first, rotation = 0, None
    for row in LogKeyRotation.select().where(LogKeyRotation.organization == org).order_by(
            LogKeyRotation.id):
        spans.append(KeySpan(row.old_key, first, row.size, rotation))
        first, rotation = row.size, row.checkpoint
    spans.append(KeySpan(current, first, None, rotation))
    return spans
