"""Actions: an organization's outbound notification rules, the notifications their triggers
put in the outbox (in the transaction of the change that causes them), and their delivery.

Environment actions watch environments (by id: renaming one keeps its actions, a new one
given an old name has none) for ON_STARTED_ARTIFACT, ON_EXITED_ARTIFACT,
ON_SCALED_ARTIFACT (a snapshot's changes), ON_ALLOWED_ARTIFACT (an allowlist entry) and
ON_NON_COMPLIANT_ENV / ON_COMPLIANT_ENV (the environment's stored verdict turning compliant or
non-compliant). Flow actions watch flows (by id too) for ON_STARTED_TRAIL,
ON_ATTESTED_PROVENANCE (an artifact reported), ON_ATTESTATION, ON_APPROVAL and ON_RELEASE (an
artifact of the flow starting to run in an environment). What each notification says is
`notifications`' (the hosted docs' webhook document)."""

from __future__ import annotations

import json
import logging
import random
import re
import secrets
import smtplib
import time
from collections.abc import Mapping
from email.message import EmailMessage
from typing import Any
from urllib.parse import urlsplit

import peewee

from ...api.v2 import views
from ...storage.db import Prepared, database, for_update, now, write_transaction
from ...storage.models import (
    Action,
    Artifact,
    Environment,
    Flow,
    Organization,
    OutboxMessage,
    Snapshot,
)
from ..kernel import references
from ..kernel.errors import (
    InvalidArgument,
    NotFound,
    already_exists,
    not_found,
    validation_error,
)
from ..kernel.names import pattern_mismatch
from ..kernel.urls import parsed_url
from . import notifications
from . import targets as outbound

log = logging.getLogger(__name__)

ENV_TRIGGERS = ("ON_STARTED_ARTIFACT", "ON_EXITED_ARTIFACT", "ON_SCALED_ARTIFACT",
                "ON_ALLOWED_ARTIFACT", "ON_NON_COMPLIANT_ENV", "ON_COMPLIANT_ENV")
FLOW_TRIGGERS = ("ON_STARTED_TRAIL", "ON_ATTESTED_PROVENANCE", "ON_ATTESTATION", "ON_APPROVAL",
                 "ON_RELEASE")
TARGET_TYPES = ("WEBHOOK", "SLACK", "EMAIL")
NAME_PATTERN = r"^[a-zA-Z0-9][a-zA-Z0-9\-_\.~/]*$"
MAX_NAME = 256
MAX_TARGETS = 20
MAX_SCOPES = 1000
MAX_ATTEMPTS = 8
_NAME = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9\-_\.~/]*")
_EMAIL = re.compile(r"[^@\s,;<>\"]+@[^@\s,;<>\"]+\.[^@\s,;<>\"]+")
_CHANGE_TRIGGERS = {"started": "ON_STARTED_ARTIFACT", "exited": "ON_EXITED_ARTIFACT",
                    "scaled": "ON_SCALED_ARTIFACT"}

_smtp_url = ""


def configure_smtp(url: str) -> None:
    """The SMTP server of EMAIL targets (smtp://host:port); empty: EMAIL targets are refused."""
    global _smtp_url
    _smtp_url = url


# ---- the rules ----------------------------------------------------------------------------

def _check_name(name: str) -> str:
    if not name:
        raise validation_error("name", "Field cannot be empty")
    if len(name) > MAX_NAME or not _NAME.fullmatch(name):
        raise validation_error("name", pattern_mismatch(NAME_PATTERN, name))
    return name


# What callers who may not manage actions get instead of a webhook URL's path, query, fragment,
# userinfo and port: `scheme://host/***` (a Slack incoming-webhook URL is itself a credential).
REDACTED = "***"


def redacted_url(url: str) -> str:
    """`url` without its secret parts: `https://hooks.slack.com/***` for
    `https://hooks.slack.com/services/T0/B0/XXXX`; `***` when it is not a URL with a host."""
    parts = parsed_url(url)
    if parts is None or not parts.scheme or not parts.hostname:
        return REDACTED
    host = parts.hostname
    return f"{parts.scheme}://{f'[{host}]' if ':' in host else host}/{REDACTED}"


def _is_redacted(url: str) -> bool:
    parts = parsed_url(url)
    return parts is not None and parts.path == f"/{REDACTED}" and not parts.query and not parts.fragment


_TARGET_FIELDS = {"type", "webhook", "payload_version", "emails", "context", "last_success_at",
                  "last_failure_at"}


def _target(index: int, target: Any) -> dict[str, Any]:
    field = f"targets[{index}]"
    if not isinstance(target, dict):
        raise validation_error(field, "Input should be an object")
    unknown = sorted(set(target) - _TARGET_FIELDS)
    if unknown:
        raise validation_error(f"{field}.{unknown[0]}", "Extra inputs are not permitted")
    kind = target.get("type") or ("EMAIL" if target.get("emails") else None)
    if kind not in TARGET_TYPES:
        raise validation_error(f"{field}.type", f"Input should be one of {', '.join(TARGET_TYPES)}")
    if kind == "EMAIL":
        emails = target.get("emails") or []
        if (not isinstance(emails, list) or not emails or len(emails) > 50
                or not all(isinstance(e, str) and _EMAIL.fullmatch(e) for e in emails)):
            raise validation_error(f"{field}.emails", "Must be 1 to 50 valid email addresses")
        if not _smtp_url:
            raise InvalidArgument("EMAIL targets need an SMTP server: this server has none "
                                  "configured (EVIDENCE_SMTP_URL)", {f"{field}.type": "EMAIL"},
                                  reason="SMTP_NOT_CONFIGURED")
        return {"type": "EMAIL", "emails": list(emails)}
    webhook = target.get("webhook")
    if not webhook:
        raise validation_error(f"{field}.webhook", "Field required")
    if isinstance(webhook, str) and _is_redacted(webhook):
        raise validation_error(f"{field}.webhook", "Is a redacted URL (as answered to callers "
                               "who may not manage actions): send the full URL")
    outbound.check_when_saved(webhook, f"{field}.webhook")
    saved: dict[str, Any] = {"type": kind, "webhook": webhook}
    if kind == "WEBHOOK":
        version = target.get("payload_version") or notifications.VERSION
        if version != notifications.VERSION:
            raise validation_error(f"{field}.payload_version",
                                   f"Input should be '{notifications.VERSION}'")
        saved["payload_version"] = version
    elif target.get("context"):
        if not isinstance(target["context"], dict):
            raise validation_error(f"{field}.context", "Input should be an object")
        saved["context"] = target["context"]
    return saved


def _scopes(org: Organization, kind: str, names: list[str]) -> list[int]:
    """The ids of the named environments or flows, in the order named."""
    field = "environments" if kind == "env" else "flows"
    if len(names) > MAX_SCOPES:
        raise validation_error(field, f"At most {MAX_SCOPES} names")
    known = references.ids_by_name(_scope_model(kind), org, names)
    missing = [name for name in names if name not in known]
    if missing:
        noun = "Environment" if kind == "env" else "Flow"
        raise NotFound(f"{noun}(s) not found in organization '{org.name}': "
                       f"{', '.join(sorted(set(missing)))}", {field: ", ".join(missing)},
                       reason=f"{noun.upper()}_NOT_FOUND", metadata={field: ", ".join(missing)})
    return [known[name] for name in dict.fromkeys(names)]


def _scope_model(kind: str) -> references.Named:
    return Environment if kind == "env" else Flow


def _triggers(kind: str, triggers: list[str]) -> list[str]:
    allowed = ENV_TRIGGERS if kind == "env" else FLOW_TRIGGERS
    unknown = [t for t in triggers if t not in allowed]
    if unknown or not triggers:
        raise validation_error("triggers", f"Input should be one or more of {', '.join(allowed)}")
    return list(dict.fromkeys(triggers))


def _validated(org: Organization, kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if data.get("type") not in (None, "", kind):
        raise validation_error("type", f"Input should be '{kind}'")
    targets = data.get("targets") or []
    if not targets or len(targets) > MAX_TARGETS:
        raise validation_error("targets", f"Must hold 1 to {MAX_TARGETS} targets")
    return {"name": _check_name(data.get("name", "")),
            "targets": [_target(i, t) for i, t in enumerate(targets)],
            "scopes": _scopes(org, kind, data.get("environments" if kind == "env" else "flows")
                              or []),
            "triggers": _triggers(kind, data.get("triggers") or [])}


def put_action(org: Organization, actor: str, kind: str, data: dict[str, Any]
               ) -> tuple[Action, bool]:
    """Create the action named in `data`, or replace the one of that name; (action, created)."""
    values = _validated(org, kind, data)
    stamp = now()
    existing = for_update(Action.select().where((Action.organization == org)
                                                & (Action.name == values["name"]))).first()
    if existing is not None:
        if existing.type != kind:
            raise already_exists("action", f"Action '{values['name']}' exists and is a "
                                 f"{existing.type} action", action=values["name"])
        Action.update(**values, last_modified_at=stamp).where(Action.id == existing.id).execute()
        return Action.get_by_id(existing.id), False
    number = (Action.select(peewee.fn.MAX(Action.number)).where(Action.organization == org)
              .scalar() or 0) + 1
    return Action.create(organization=org, number=number, type=kind, created_by=actor,
                         created_at=stamp, last_modified_at=stamp, **values), True


def update_action(org: Organization, number: int, kind: str, data: dict[str, Any]) -> Action:
    """Replace the action of this number (renaming it is allowed)."""
    action = find_action(org, number, kind=kind, lock=True)
    values = _validated(org, kind, data)
    clash = Action.select().where((Action.organization == org) & (Action.name == values["name"])
                                  & (Action.id != action.id)).exists()
    if clash:
        raise already_exists("action", f"Action '{values['name']}' already exists",
                             action=values["name"])
    Action.update(**values, last_modified_at=now()).where(Action.id == action.id).execute()
    return Action.get_by_id(action.id)


def find_action(org: Organization, number: int, *, kind: str | None = None,
                lock: bool = False) -> Action:
    query = Action.select().where((Action.organization == org) & (Action.number == number))
    if kind:
        query = query.where(Action.type == kind)
    action = (for_update(query) if lock else query).first()
    if action is None:
        noun = "Notification" if kind == "env" else "Action"
        raise not_found("action", f"{noun} {number} not found in organization '{org.name}'",
                        number=number)
    return action


def list_actions(org: Organization, kind: str | None = None) -> list[Action]:
    query = Action.select().where(Action.organization == org)
    if kind:
        query = query.where(Action.type == kind)
    return list(query.order_by(Action.number))


def delete_action(org: Organization, number: int, kind: str | None = None) -> Action:
    action = find_action(org, number, kind=kind, lock=True)
    action.delete_instance()  # its outbox rows go with it (ON DELETE CASCADE)
    return action


def action_views(actions: list[Action], *, reveal: bool = True) -> list[views.Action]:
    """The actions as the contract answers them, their environments and flows by current name:
    one read of the names per kind, however many actions. Webhook URLs in full when `reveal`
    (the server's own reads, or a caller who may manage actions: the servicer decides), else
    redacted (`redacted_url`)."""
    names = {kind: references.names_by_id(_scope_model(kind), [
        scope for a in actions if a.type == kind for scope in a.scopes])
        for kind in {a.type for a in actions}}
    return [_view(a, references.labels(a.scopes, names[a.type]), reveal) for a in actions]


def _target_shown(target: dict[str, Any], reveal: bool) -> dict[str, Any]:
    """A target as its action's answer shows it (a Struct: its keys are the target kind's)."""
    view = {k: v for k, v in target.items() if not k.startswith("_")}
    if not reveal and isinstance(view.get("webhook"), str):
        view["webhook"] = redacted_url(view["webhook"])
    return view


def _view(action: Action, scopes: list[str], reveal: bool) -> views.Action:
    view: views.Action = {
        "name": action.name, "type": action.type, "number": action.number,
        "targets": [_target_shown(t, reveal) for t in action.targets],
        "triggers": action.triggers, "created_by": action.created_by,
        "is_created_from_slack_app": False, "created_at": action.created_at,
        "last_modified_at": action.last_modified_at}
    # Never used, never failed: no `is_failing` nor timestamps (left out, not null).
    if action.last_failure_at or action.last_success_at:
        view["is_failing"] = (action.last_failure_at or 0) > (action.last_success_at or 0)
    if action.last_success_at is not None:
        view["last_success_timestamp"] = action.last_success_at
    if action.last_failure_at is not None:
        view["last_failure_timestamp"] = action.last_failure_at
    if action.type == "flow":
        view["flows"] = scopes
    else:
        view["environments"] = scopes
    return view


# ---- triggers -----------------------------------------------------------------------------

_OF_KIND = Prepared(lambda org, kind: Action.select().where((Action.organization == org)
                                                           & (Action.type == kind)),
                   org=int, kind=str)


def _actions(org: Organization, kind: str) -> list[Action]:
    return _OF_KIND.models(Action, org=org.id, kind=kind)


def _watching(org: Organization, kind: str, scope: int, trigger: str,
              among: list[Action] | None = None) -> list[Action]:
    """The actions of `org` (or `among` them) watching the environment or flow of id `scope`
    for `trigger` (few per
    organization: filtered here rather than by JSON queries, which the engines spell
    differently)."""
    return [a for a in (_actions(org, kind) if among is None else among)
            if trigger in a.triggers and scope in a.scopes]


def _enqueue(actions: list[Action], trigger: str, payload: dict[str, Any]) -> None:
    stamp = now()
    rows = [{"action": action.id, "target_index": index, "trigger": trigger,
             "payload": payload, "created_at": stamp, "next_attempt_at": stamp}
            for action in actions for index in range(len(action.targets))]
    if rows:
        OutboxMessage.insert_many(rows).execute()


def environment_changed(org: Organization, env: Environment, snapshot: Snapshot,
                        changes: list[dict[str, Any]]) -> None:
    """A snapshot's started / exited / scaled artifacts, and ON_RELEASE to the flows of the
    artifacts that started. One read of the actions however many changes."""
    if not changes:
        return
    shot = notifications.snapshot(org, env.name, snapshot.index, snapshot.compliant)
    env_actions = _actions(org, "env")
    notified = []
    for change in changes if env_actions else ():
        trigger = _CHANGE_TRIGGERS[change["type"]]
        watching = _watching(org, "env", env.id, trigger, env_actions)
        if watching:
            notified.append((change, trigger, watching))
    # The artifacts' provenance, read once for all of them.
    found = notifications.artifacts(org, {c["fingerprint"]: c["artifact_name"]
                                          for c, _, _ in notified})
    for change, trigger, watching in notified:
        _enqueue(watching, trigger, notifications.document(
            org, trigger, notifications.instances(change["was"], change["now"]),
            environment=env.name, snapshot=shot, artifact=found[change["fingerprint"]]))
    started = {c["fingerprint"]: c for c in changes if c["type"] == "started"}
    flow_actions = _actions(org, "flow") if started else []
    if not flow_actions:
        return
    releases = (Artifact.select(Artifact.fingerprint, Flow.id, Flow.name).join(Flow)
                .where((Flow.organization == org) & Artifact.fingerprint.in_(list(started)))
                .distinct().tuples())
    for fingerprint, flow_id, flow_name in releases:
        watching = _watching(org, "flow", flow_id, "ON_RELEASE", flow_actions)
        if watching:
            change = started[fingerprint]
            _enqueue(watching, "ON_RELEASE", notifications.document(
                org, "ON_RELEASE", notifications.instances(change["was"], change["now"]),
                environment=env.name, snapshot=shot, flow=flow_name,
                artifact=notifications.artifact(org, change["artifact_name"], fingerprint,
                                                flow_id)))


def compliance_changed(org: Organization, env: Environment, snapshot_index: int,
                       before: bool | None, after: bool | None) -> None:
    """ON_COMPLIANT_ENV / ON_NON_COMPLIANT_ENV when a snapshot's stored verdict turns from
    compliant to non-compliant or back (the hosted docs' two changes). Unknown on either side
    (an environment without policies, or no snapshot before) fires nothing."""
    if before is None or after is None or before == after:
        return
    trigger = "ON_COMPLIANT_ENV" if after else "ON_NON_COMPLIANT_ENV"
    watching = _watching(org, "env", env.id, trigger)
    if watching:
        _enqueue(watching, trigger, notifications.document(
            org, trigger, f"changed from {notifications.status(before)} to "
                          f"{notifications.status(after)}",
            environment=env.name,
            snapshot=notifications.snapshot(org, env.name, snapshot_index, after)))


def artifact_allowed(org: Organization, env: Environment, entry: Mapping[str, Any]) -> None:
    """ON_ALLOWED_ARTIFACT, with the environment's latest snapshot (none before the first)."""
    watching = _watching(org, "env", env.id, "ON_ALLOWED_ARTIFACT")
    if not watching:
        return
    latest = (Snapshot.select(Snapshot.compliant).where(
        (Snapshot.environment == env) & (Snapshot.index == env.latest_index)).first()
        if env.latest_index else None)
    _enqueue(watching, "ON_ALLOWED_ARTIFACT", notifications.document(
        org, "ON_ALLOWED_ARTIFACT",
        f"added to the allow-list by {entry['user_name']}: {entry['description']}",
        environment=env.name,
        snapshot=(notifications.snapshot(org, env.name, env.latest_index, latest.compliant)
                  if latest else None),
        artifact=notifications.artifact(org, entry["artifact_name"], entry["fingerprint"])))


def flow_event(org: Organization, flow: Flow, trigger: str, description: str, *,
               artifact: tuple[str, str] | None = None, environment: str | None = None,
               **about: Any) -> None:
    """ON_STARTED_TRAIL, ON_ATTESTED_PROVENANCE, ON_ATTESTATION, ON_APPROVAL of a flow;
    `artifact`: the (name, fingerprint) it is about, its provenance in this flow; `about`: what
    else the notification carries (`trail`, `attestation`, `approval`)."""
    watching = _watching(org, "flow", flow.id, trigger)
    if watching:
        _enqueue(watching, trigger, notifications.document(
            org, trigger, description, environment=environment, flow=flow.name,
            artifact=notifications.artifact(org, *artifact, flow.id) if artifact else None,
            **about))


# ---- delivery -----------------------------------------------------------------------------

LEASE_SECONDS = 60.0
# What a lease must still have when its notification is sent, beyond the delivery deadline:
# time to record the outcome, and for the clocks of workers on different hosts to disagree.
LEASE_MARGIN_SECONDS = 10.0


def _time_to_send() -> float:
    """Seconds a lease must have left for its notification to be sent."""
    return outbound.current_policy().timeout_seconds + LEASE_MARGIN_SECONDS


def claim(batch: int = 50, busy: Mapping[int, int] | None = None) -> list[OutboxMessage]:
    """Take up to `batch` due notifications under a lease: a token of this claim's own written
    with the lease's end (`claimed_until`), so that only this claim sends them and records
    their outcomes. A worker that dies holding them lets the lease run out and another (or its
    successor) takes them again. Concurrent workers never take the same rows (SKIP LOCKED on
    PostgreSQL, one writer on SQLite).

    Organizations take turns: each one's oldest due notification first, then each one's second
    ...; one with `busy[organization id]` notifications in flight in this worker waits that
    many turns more. So one organization's backlog or slow receiver never starves another's."""
    stamp = now()
    due = (OutboxMessage.delivered_at.is_null() & OutboxMessage.abandoned_at.is_null()
           & (OutboxMessage.next_attempt_at <= stamp) & (OutboxMessage.claimed_until < stamp))
    if not OutboxMessage.select().where(due).exists():  # an idle poll takes no write lock
        return []
    organization = Action.organization
    turn = peewee.fn.ROW_NUMBER().over(partition_by=[organization], order_by=[
        OutboxMessage.next_attempt_at, OutboxMessage.id])
    if busy:
        turn = turn + peewee.Case(organization, list(busy.items()), 0)
    ranked = (OutboxMessage.select(OutboxMessage.id, OutboxMessage.next_attempt_at,
                                   turn.alias("turn"))
              .join(Action).where(due).alias("ranked"))
    in_turn = (OutboxMessage.select(ranked.c.id).from_(ranked)
               .order_by(ranked.c.turn, ranked.c.next_attempt_at, ranked.c.id).limit(batch))
    with write_transaction():
        order = {row_id: position for position, (row_id,) in enumerate(in_turn.tuples())}
        # Taken by another worker since it was ranked: skipped (locked) or no longer due.
        query = OutboxMessage.select().where(OutboxMessage.id.in_(list(order)) & due)
        if isinstance(database.obj, peewee.PostgresqlDatabase):
            query = query.for_update("FOR UPDATE SKIP LOCKED")
        rows = sorted(query, key=lambda row: order[row.id])
        if rows:
            token = secrets.token_hex(16)
            # Long enough to wait a little for a free sender and still be sendable.
            until = stamp + max(LEASE_SECONDS, 2 * _time_to_send())
            OutboxMessage.update(claimed_until=until, lease_token=token).where(
                OutboxMessage.id.in_([r.id for r in rows])).execute()
            for row in rows:
                row.claimed_until, row.lease_token = until, token
    return rows


def _held(message: OutboxMessage) -> peewee.Expression:
    """`message`'s row while the lease of the claim that took it is the latest. A row without
    a token (claimed before migration 0020, or never) is nobody's: `== None` would match it."""
    return ((OutboxMessage.id == message.id) & OutboxMessage.lease_token.is_null(False)
            & (OutboxMessage.lease_token == message.lease_token))


def still_held(message: OutboxMessage) -> bool:
    """Whether `message` may be sent now: no other claim took it over, and its lease lasts
    beyond the delivery deadline (plus a margin), so no other worker can take it while it is
    being sent. Checked right before sending: a worker that waited past its lease sends
    nothing."""
    until = OutboxMessage.select(OutboxMessage.claimed_until).where(_held(message)).scalar()
    return until is not None and until - now() >= _time_to_send()


def outbox_counts() -> dict[str, int]:
    """How many notifications wait to be delivered (pending) and how many were given up."""
    pending = OutboxMessage.select().where(OutboxMessage.delivered_at.is_null()
                                           & OutboxMessage.abandoned_at.is_null()).count()
    abandoned = OutboxMessage.select().where(OutboxMessage.abandoned_at.is_null(False)).count()
    return {"pending": pending, "abandoned": abandoned}


def send(target: dict[str, Any], payload: dict[str, Any]) -> None:
    """Deliver one notification to one target; OutboundRefused when it was not delivered."""
    if target["type"] == "EMAIL":
        _send_email(target["emails"], payload)
        return
    body = payload if target["type"] == "WEBHOOK" else notifications.slack_message(payload)
    outbound.post_json(target["webhook"], json.dumps(body).encode())


class _BoundedSMTP(smtplib.SMTP):
    """SMTP on a connection that gives up at a deadline, as a webhook's POST does: a server
    answering a byte at a time cannot hold a delivery longer than the timeout."""

    def __init__(self, host: str, port: int, deadline: float) -> None:
        self._deadline = deadline
        super().__init__(host, port)  # connects

    def _get_socket(self, host: str, port: int, timeout: object) -> outbound.DeadlineSocket:
        return outbound.open_connection(host, port, self._deadline)


def _send_email(recipients: list[str], payload: dict[str, Any]) -> None:
    if not _smtp_url:
        raise outbound.OutboundRefused("no SMTP server is configured")
    deadline = time.monotonic() + outbound.current_policy().timeout_seconds
    parts = urlsplit(_smtp_url)
    message = EmailMessage()
    message["From"] = parts.username or "evidence-server@localhost"
    message["To"] = ", ".join(recipients)
    message["Subject"] = notifications.headline(payload)
    message.set_content(json.dumps(payload, indent=2))
    try:
        with _BoundedSMTP(parts.hostname or "127.0.0.1", parts.port or 25, deadline) as smtp:
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        raise outbound.OutboundRefused(f"SMTP delivery failed: {exc}") from None


def backoff(attempts: int) -> float:
    """Seconds before the next attempt after `attempts` failures: 2, 4, 8 ... capped at an
    hour, with jitter so that retries of many notifications spread out."""
    return min(3600.0, 2.0 ** attempts) * random.uniform(0.8, 1.2)


def attempt(message: OutboxMessage, action: Action | None) -> str | None:
    """Send one claimed notification (no database work): None when delivered, else why not."""
    if action is None:
        return "the action was deleted"
    try:
        send(action.targets[message.target_index], message.payload)
    except outbound.OutboundRefused as refused:
        return str(refused)
    except (IndexError, KeyError) as exc:  # the action was edited since: the target is gone
        return f"target no longer exists: {exc}"
    return None


def actions_of(messages: list[OutboxMessage]) -> dict[int, Action]:
    ids = {m.action_id for m in messages}
    return {a.id: a for a in Action.select().where(Action.id.in_(list(ids) or [0]))}


def record_outcome(message: OutboxMessage, error: str | None) -> bool:
    """Keep what became of one attempt, in one transaction: delivered, or due again after a
    backoff, or abandoned after the last attempt; and the action's last success or failure.
    Only while the claim that sent it holds the latest lease (False, nothing recorded, when
    another worker took it over: that worker's outcome counts). A lease that ran out and was
    taken by nobody is still the latest: its outcome is the truth, and keeping it spares the
    receiver a second delivery."""
    stamp = now()
    attempts = message.attempts + 1
    give_up = error is not None and attempts >= MAX_ATTEMPTS
    with write_transaction():
        if error is None:
            changed = OutboxMessage.update(delivered_at=stamp, attempts=attempts,
                                           last_error=None).where(_held(message)).execute()
        else:
            changed = OutboxMessage.update(
                attempts=attempts, last_error=error[:2000], claimed_until=0,
                next_attempt_at=stamp + backoff(attempts),
                abandoned_at=stamp if give_up else None).where(_held(message)).execute()
        if not changed:
            log.warning("notification %s: another worker took it over; this attempt's outcome "
                        "is not recorded", message.id)
            return False
        Action.update({Action.last_success_at if error is None else Action.last_failure_at: stamp}
                      ).where(Action.id == message.action_id).execute()
    if error is not None:
        log.warning("notification %s not delivered (attempt %d%s): %s", message.id, attempts,
                    ", abandoned" if give_up else "", error)
    return True
