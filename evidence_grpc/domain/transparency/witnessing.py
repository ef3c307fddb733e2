"""Witnesses that cosign the log's checkpoints (C2SP tlog-witness, cosignature/v1).

The operator names each witness by its verifier key (type byte 0x04) and its submission prefix
(`--witness VKEY=URL`); nothing is ever sent anywhere else (no redirect is followed). After new
entries, at most once a second per organization and witness and off the request path
(`Submitter`, a thread of the delivery worker), the log signs a checkpoint and sends it to each
witness with the RFC 9162 consistency proof from the size that witness last cosigned
(`POST <URL>/add-checkpoint`). A witness that answers 409 with its size (`text/x.tlog.size`)
is sent the proof from that size, once. Its cosignature, verified, is kept
(`LogCheckpoint`, `LogCosignature`); what went wrong is kept per witness (`LogWitness`): a
witness that cannot be reached is tried again later (exponential backoff, for it alone), and
one that refuses the log (a conflict at the size it cosigned, a larger size than the log's, a
proof that does not hold) is a refusal, logged as an error, counted in /metrics and shown on
the organization's page.

Several processes may submit for one database: no claim is taken, duplicates are accepted (a
witness cosigns the checkpoint it already cosigned again, and the second cosignature of a
witness on one checkpoint is not kept).

The checkpoint served (`served_checkpoint`) is, with witnesses configured, the newest kept one
cosigned by at least `quorum` of them, with every cosignature it has as extra signature lines;
until one is, and without witnesses, the log's checkpoint now."""

from __future__ import annotations

import base64
import http.client
import logging
import re
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

import peewee

from ...storage.db import database
from ...storage.models import LogCheckpoint, LogCosignature, LogHead, LogWitness, Organization
from . import kept, log, notes
from .cosignatures import WitnessVerifier, parse_witness_key, signature_line, verify_cosignature

logger = logging.getLogger(__name__)

SIZE_TYPE = "text/x.tlog.size"
TIMEOUT_SECONDS = 5.0  # a witness that has not answered by then is down, for now
FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 300.0
MAX_ANSWER_BYTES = 64 * 1024
_SPEC = re.compile(r"(?P<key>[^=\s]+(?:=[^=\s]*)*?)=(?P<url>https?://\S+)")


class BadWitness(ValueError):
    """A `--witness` or `--witness-quorum` the server cannot start with."""


@dataclass(frozen=True)
class Witness:
    verifier: WitnessVerifier
    url: str  # the submission prefix, without a trailing slash

    @property
    def name(self) -> str:
        return self.verifier.name

    @property
    def key(self) -> str:
        return self.verifier.vkey


@dataclass(frozen=True)
class Witnesses:
    """The witnesses configured, and how many of them a served checkpoint needs."""

    each: tuple[Witness, ...] = ()
    quorum: int = 0

    @property
    def keys(self) -> list[str]:
        return [witness.key for witness in self.each]


def parse_witness(spec: str) -> Witness:
    """`VKEY=URL`: a C2SP witness verifier key and the http(s) prefix of its add-checkpoint."""
    found = _SPEC.fullmatch(spec.strip())
    if found is None:
        raise BadWitness(f"--witness {spec!r}: expected VKEY=URL, the witness's verifier key and "
                         "its http:// or https:// submission prefix")
    try:
        verifier = parse_witness_key(found["key"])
    except notes.NoteError as error:
        raise BadWitness(f"--witness {spec!r}: {error}") from None
    url = urlsplit(found["url"])
    if not url.hostname or url.query or url.fragment or url.username or url.password:
        raise BadWitness(f"--witness {spec!r}: the URL must name a host, with no query, fragment "
                         "or credentials")
    return Witness(verifier, found["url"].rstrip("/"))


def parse_witnesses(specs: Iterable[str], quorum: int = 0) -> Witnesses:
    """The witnesses of `--witness` options; `quorum` 0 means 1 (the newest checkpoint any of
    them cosigned is served, with every cosignature it has)."""
    each = tuple(parse_witness(spec) for spec in specs)
    keys = [witness.key for witness in each]
    if len(set(keys)) != len(keys):
        raise BadWitness("--witness: a witness key is given twice")
    if not each:
        if quorum:
            raise BadWitness("--witness-quorum needs --witness")
        return Witnesses()
    quorum = quorum or 1
    if not 1 <= quorum <= len(each):
        raise BadWitness(f"--witness-quorum {quorum}: must be between 1 and the number of "
                         f"witnesses ({len(each)})")
    return Witnesses(each, quorum)


# ---- what is served --------------------------------------------------------------------------

def _newest_quorum(org_id: int, witnesses: Witnesses) -> LogCheckpoint | None:
    count = peewee.fn.COUNT(LogCosignature.id)
    return (LogCheckpoint.select().join(LogCosignature)
            .where((LogCheckpoint.organization == org_id)
                   & LogCosignature.witness.in_(witnesses.keys))
            .group_by(LogCheckpoint.id).having(count >= witnesses.quorum)
            .order_by(LogCheckpoint.size.desc()).first())


def _lines(checkpoint: LogCheckpoint, witnesses: Witnesses) -> dict[str, str]:
    return dict(LogCosignature.select(LogCosignature.witness, LogCosignature.line).where(
        (LogCosignature.checkpoint == checkpoint)
        & LogCosignature.witness.in_(witnesses.keys)).tuples())


def witnessed(org: Organization, witnesses: Witnesses, at_least: int = 0
              ) -> tuple[int, str] | None:
    """The newest checkpoint `quorum` witnesses cosigned, if it has at least `at_least` entries:
    its size, and its note with their cosignature lines (in the order the witnesses are
    configured) after the log's signature."""
    if not witnesses.each:
        return None
    found = _newest_quorum(org.id, witnesses)
    if found is None or found.size < at_least:
        return None
    lines = _lines(found, witnesses)
    return found.size, found.note + "".join(lines[key] for key in witnesses.keys if key in lines)


def unextended(org: Organization) -> list[str]:
    """The checkpoints witnesses cosigned (kept in the database) that the log now does not
    extend, one line each: a log rewritten after they cosigned it (verify-log)."""
    return [unlike for size, root in
            LogCheckpoint.select(LogCheckpoint.size, LogCheckpoint.root).where(
                LogCheckpoint.organization == org).order_by(LogCheckpoint.size).tuples()
            if (unlike := log.not_extending(org, size, bytes.fromhex(root),
                                            "the checkpoint witnesses cosigned"))]


def served_checkpoint(org: Organization, signer: log.LogSigner, public_host: str,
                      witnesses: Witnesses) -> str:
    """The checkpoint GET …/checkpoint answers: the newest one the witnesses cosigned
    (`witnessed`); the log's checkpoint now without witnesses or until they cosigned one."""
    found = witnessed(org, witnesses)
    return found[1] if found is not None else log.checkpoint(org, signer, public_host)


@dataclass(frozen=True)
class WitnessState:
    witness: Witness
    size: int
    cosigned_at: int | None
    failures: int
    refusals: int
    problem: str
    on_served: bool


def states(org: Organization, witnesses: Witnesses) -> tuple[int, list[WitnessState]]:
    """The size of the checkpoint served (0 before a quorum), and each witness's state."""
    found = _newest_quorum(org.id, witnesses) if witnesses.each else None
    served = _lines(found, witnesses) if found is not None else {}
    kept = {row.witness: row for row in LogWitness.select().where(
        (LogWitness.organization == org) & LogWitness.witness.in_(witnesses.keys))}
    answer = []
    for witness in witnesses.each:
        row = kept.get(witness.key)
        answer.append(WitnessState(
            witness, row.size if row else 0, row.cosigned_at if row else None,
            row.failures if row else 0, row.refusals if row else 0,
            row.problem if row else "", witness.key in served))
    return (found.size if found is not None else 0), answer


# ---- submitting ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


def _post(witness: Witness, body: bytes) -> Answer:
    """POST `body` to the witness's add-checkpoint, to that URL only (no redirect)."""
    url = urlsplit(witness.url)
    connection_class = (http.client.HTTPSConnection if url.scheme == "https"
                        else http.client.HTTPConnection)
    connection = connection_class(url.netloc, timeout=TIMEOUT_SECONDS)
    try:
        connection.request("POST", f"{url.path}/add-checkpoint", body,
                           {"Content-Type": "text/plain; charset=utf-8"})
        response = connection.getresponse()
        return Answer(response.status, response.getheader("Content-Type") or "",
                      response.read(MAX_ANSWER_BYTES))
    finally:
        connection.close()


def request_body(old: int, proof: list[bytes], note: str) -> bytes:
    """tlog-witness's add-checkpoint request: `old <size>`, the proof's hashes (base64, a line
    each), a blank line, the signed checkpoint."""
    lines = [f"old {old}", *(base64.b64encode(each).decode() for each in proof)]
    return ("\n".join(lines) + "\n\n" + note).encode()


class Refused(Exception):
    """The witness refuses this log: it saw another tree."""


class Failed(Exception):
    """The witness could not be asked, or did not answer as the protocol says."""


@dataclass(frozen=True)
class Signed:
    note: str
    body: str
    checkpoint: notes.Checkpoint


def _sign(org: Organization, signer: log.LogSigner, public_host: str) -> Signed:
    note = log.checkpoint(org, signer, public_host)
    body, _ = notes.split_note(note)
    return Signed(note, body, notes.parse_checkpoint(body))


def _proof(org: Organization, old: int, size: int) -> list[bytes]:
    return log.consistency_proof(org, old, size) if 0 < old < size else []


def _cosignature(answer: bytes, body: str, witness: Witness) -> tuple[str, int]:
    """The witness's verified cosignature line among those it answered, and its time."""
    try:
        text = answer.decode()
    except UnicodeDecodeError:
        raise Failed("it answered 200 with text that is not UTF-8") from None
    for line in text.splitlines():
        _, signatures = notes.split_note(f"x\n\n{line}\n") if line else (None, [])
        for signature in signatures:
            if witness.verifier.matches(signature):
                try:
                    return signature_line(signature), verify_cosignature(body, signature,
                                                                           witness.verifier)
                except notes.NoteError as error:
                    raise Failed(f"its cosignature does not verify: {error}") from None
    raise Failed("it answered 200 without a cosignature by its key")


def _ask(witness: Witness, old: int, proof: list[bytes], signed: Signed) -> Answer:
    try:
        return _post(witness, request_body(old, proof, signed.note))
    except (OSError, http.client.HTTPException) as error:
        raise Failed(f"not reached: {error or type(error).__name__}") from None


def _size_of(answer: Answer) -> int:
    text = answer.body.decode(errors="replace").strip()
    if not answer.content_type.startswith(SIZE_TYPE) or not text.isdigit():
        raise Failed(f"it answered 409 without its size ({answer.content_type!r})")
    return int(text)


def submit(org: Organization, witness: Witness, signer: log.LogSigner, public_host: str,
           old: int) -> tuple[Signed, str, int]:
    """Ask the witness to cosign the log's checkpoint now, from `old`, the size it last
    cosigned (once more from the size it says, if it says another): the signed checkpoint, the
    cosignature line and its time. Refused or Failed otherwise. Reads the database only before
    each request (none is held while waiting on the witness)."""
    with database.connection_context():
        signed = _sign(org, signer, public_host)
        size = signed.checkpoint.size
        proof = _proof(org, old, size) if old <= size else []
    for attempt in (1, 2):
        if old > size:
            raise Refused(f"it cosigned a tree of {old} entries, larger than the log's {size}: "
                          "the log lost entries")
        answer = _ask(witness, old, proof, signed)
        if answer.status == 200:
            return (signed, *_cosignature(answer.body, signed.body, witness))
        if answer.status == 409:
            said = _size_of(answer)
            if said == old:
                raise Refused(f"it cosigned another tree of {old} entries (the log was rewritten)")
            if attempt == 2:
                raise Failed(f"it answered 409 twice (sizes {old} then {said})")
            old = said
            if old <= size:
                with database.connection_context():
                    proof = _proof(org, old, size)
            continue
        if answer.status == 422:
            raise Refused(f"the log's tree of {size} entries is not consistent with the tree of "
                          f"{old} it cosigned (the log was rewritten)")
        what = answer.body[:200].decode(errors="replace").strip()
        raise Failed(f"it answered {answer.status}{f': {what}' if what else ''}")
    raise AssertionError("unreachable")


def backoff(failures: int) -> float:
    return min(FIRST_BACKOFF_SECONDS * 2 ** max(failures - 1, 0), MAX_BACKOFF_SECONDS)


def _state(org_id: int, key: str) -> LogWitness:
    LogWitness.insert(organization=org_id, witness=key).on_conflict_ignore().execute()
    return LogWitness.get((LogWitness.organization == org_id) & (LogWitness.witness == key))


def keep(org_id: int, witness: Witness, witnesses: Witnesses, signed: Signed, line: str,
         cosigned_at: int) -> None:
    """Keep a verified cosignature, and forget what no longer needs keeping: per witness its
    newest cosignature, and those on the newest checkpoint with a quorum."""
    checkpoint = signed.checkpoint
    with database.atomic():
        LogCheckpoint.insert(organization=org_id, size=checkpoint.size, root=checkpoint.root.hex(),
                             note=signed.note, created_at=time.time()).on_conflict_ignore().execute()
        kept = LogCheckpoint.get((LogCheckpoint.organization == org_id)
                                 & (LogCheckpoint.size == checkpoint.size)
                                 & (LogCheckpoint.root == checkpoint.root.hex()))
        LogCosignature.insert(checkpoint=kept, witness=witness.key, line=line,
                              cosigned_at=cosigned_at).on_conflict_ignore().execute()
        _state(org_id, witness.key)
        LogWitness.update(size=checkpoint.size, cosigned_at=cosigned_at, attempted_at=time.time(), failures=0,
                          problem="").where((LogWitness.organization == org_id)
                                            & (LogWitness.witness == witness.key)).execute()
        _prune(org_id, witnesses)


def _prune(org_id: int, witnesses: Witnesses) -> None:
    quorum = _newest_quorum(org_id, witnesses) if witnesses.each else None
    rows = list(LogCosignature.select(LogCosignature.id, LogCosignature.witness,
                                      LogCheckpoint.id, LogCheckpoint.size)
                .join(LogCheckpoint).where(LogCheckpoint.organization == org_id)
                .order_by(LogCheckpoint.size.desc()).tuples())
    newest: set[str] = set()
    dropped = []
    for cosignature, key, checkpoint, _ in rows:
        if key not in newest:
            newest.add(key)
        elif quorum is None or checkpoint != quorum.id:
            dropped.append(cosignature)
    if dropped:
        LogCosignature.delete().where(LogCosignature.id.in_(dropped)).execute()
    LogCheckpoint.delete().where((LogCheckpoint.organization == org_id) & ~peewee.fn.EXISTS(
        LogCosignature.select().where(LogCosignature.checkpoint == LogCheckpoint.id))).execute()


def note_problem(org_id: int, witness: Witness, problem: str, *, refused: bool,
                 size: int | None = None) -> None:
    """Record a failure (counted until the next cosignature) or a refusal (counted for good)."""
    with database.atomic():
        _state(org_id, witness.key)
        changes: dict[object, object] = {LogWitness.attempted_at: time.time(),
                                         LogWitness.problem: problem,
                                         LogWitness.failures: LogWitness.failures + 1}
        if refused:
            changes[LogWitness.refusals] = LogWitness.refusals + 1
        if size is not None:
            changes[LogWitness.size] = size
        LogWitness.update(changes).where((LogWitness.organization == org_id)
                                         & (LogWitness.witness == witness.key)).execute()


class Submitter:
    """Asks the witnesses to cosign each organization's new entries, until stopped."""

    def __init__(self, witnesses: Witnesses, signer: log.LogSigner, public_host: str) -> None:
        self.witnesses = witnesses
        self.signer = signer
        self.public_host = public_host
        self._busy: set[tuple[int, str]] = set()
        self._lock = threading.Lock()

    def due(self, now: float) -> list[tuple[int, Witness, int]]:
        """(organization id, witness, the size it last cosigned) of each witness a log has
        entries it has not cosigned, and that is not waiting out a backoff."""
        heads = dict(LogHead.select(LogHead.organization, LogHead.size)
                     .where(LogHead.size > 0).tuples())
        kept = {(row.organization_id, row.witness): row for row in LogWitness.select().where(
            LogWitness.witness.in_(self.witnesses.keys))}
        found = []
        for org_id, size in heads.items():
            for witness in self.witnesses.each:
                row = kept.get((org_id, witness.key))
                if row is None:
                    found.append((org_id, witness, 0))
                elif row.size != size and (not row.failures or now >= (row.attempted_at or 0)
                                           + backoff(row.failures)):
                    found.append((org_id, witness, row.size))
        return found

    def once(self, org_id: int, witness: Witness, old: int) -> None:
        """One submission, its outcome recorded (for tests and the loop)."""
        try:
            with database.connection_context():
                org = Organization.get_by_id(org_id)
            signed, line, cosigned_at = submit(org, witness, self.signer, self.public_host, old)
        except kept.Forked as forked:  # the server itself signs no fork: nothing to submit
            logger.error("the log of %s is not submitted to witness %s: %s", org.name,
                         witness.name, forked.message)
            with database.connection_context():
                note_problem(org_id, witness, f"not submitted: {forked.message}", refused=False)
            return
        except Refused as refusal:
            logger.error("witness %s refuses the log of %s: %s", witness.name, org.name, refusal)
            with database.connection_context():
                note_problem(org_id, witness, f"refused: {refusal}", refused=True)
            return
        except Failed as failure:
            logger.warning("witness %s did not cosign the log of %s: %s", witness.name,
                           org.name, failure)
            with database.connection_context():
                note_problem(org_id, witness, str(failure), refused=False)
            return
        with database.connection_context():
            keep(org_id, witness, self.witnesses, signed, line, cosigned_at)

    def _one(self, org_id: int, witness: Witness, old: int) -> None:
        try:
            self.once(org_id, witness, old)
        except Exception:  # the loop must outlive any one witness
            logger.exception("submitting to witness %s failed", witness.name)
        finally:
            with self._lock:
                self._busy.discard((org_id, witness.key))

    def run(self, stop: threading.Event, every: float = 1.0) -> None:
        """Every `every` seconds, start a submission for each witness that is due and not
        already being asked (each waits on its own witness, up to TIMEOUT_SECONDS twice)."""
        from ... import observability

        with ThreadPoolExecutor(max(4, 2 * len(self.witnesses.each)),
                                thread_name_prefix="witness") as pool:
            while not stop.is_set():
                try:
                    with database.connection_context():
                        due = self.due(time.time())
                        observability.observe_witnesses(witness_metrics(self.witnesses))
                    for org_id, witness, old in due:
                        with self._lock:
                            if (org_id, witness.key) in self._busy:
                                continue
                            self._busy.add((org_id, witness.key))
                        pool.submit(self._one, org_id, witness, old)
                except Exception:
                    logger.exception("reading the witnesses' state failed; trying again")
                stop.wait(every)


def witness_metrics(witnesses: Witnesses) -> list[tuple[str, str, int, int | None, int, int]]:
    """(organization, witness, size cosigned, time cosigned, failures, refusals) of each, by
    organization, the witnesses in the order they are configured."""
    names = {witness.key: witness.name for witness in witnesses.each}
    order = {key: number for number, key in enumerate(names)}
    rows = (LogWitness.select(Organization.name, LogWitness.witness, LogWitness.size,
                              LogWitness.cosigned_at, LogWitness.failures, LogWitness.refusals)
            .join(Organization).where(LogWitness.witness.in_(list(names))).tuples())
    return [(org, names[key], size, at, failures, refusals)
            for org, key, size, at, failures, refusals in sorted(
                rows, key=lambda row: (row[0], order[row[1]]))]
