"""`evidence-server witness`: a C2SP transparency log witness (c2sp.org/tlog-witness).

A witness is configured with the verifier keys of the logs it follows: a key named N is trusted
for the origin N and the origins N/<part> (evidence-server's `<host>/<org>`, one key a server).
For each log (origin) it keeps the latest checkpoint it cosigned, and cosigns a new one only
when a consistency proof shows that the log grew from it: a log that shows two different trees
to two parties cannot have both cosigned by a witness, so clients that require a quorum of
witnesses' cosignatures (verify-log and verify-package --witness-key) cannot be shown a fork.

HTTP interface:

- `POST /add-checkpoint`: body `old <size>\\n`, the consistency proof (one base64 hash a line),
  an empty line, then the signed checkpoint note. Answers 200 with the cosignature line; 400 a
  malformed body or an old size beyond the checkpoint's size; 403 no valid signature from the
  log's key; 404 an unknown origin; 409 (`Content-Type: text/x.tlog.size`, the latest cosigned
  size) an old size that is not that size; 413 a body over MAX_BODY bytes; 422 a proof that does
  not verify, or another root at the cosigned size.
- `GET /<hex SHA-256 of an origin>/checkpoint`: the latest checkpoint it cosigned for that log,
  with the log's signatures and its cosignature (404 if none).

The state (per origin: size, root, the cosigned checkpoint) is one JSON file, replaced atomically
and fsynced before an answer is sent; checking a request against it and replacing it happen under
one lock, and one lock file keeps a second witness process off the same state."""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

from .domain.transparency import cosignatures, merkle, notes

log = logging.getLogger("evidence-server.witness")

MAX_BODY = 64 * 1024  # 63 proof lines and a checkpoint with its signatures fit many times over
MAX_PROOF_LINES = 63
IDLE_TIMEOUT = 10  # seconds
STATE_VERSION = 1
TEXT = "text/plain; charset=utf-8"
TLOG_SIZE = "text/x.tlog.size"
_OLD = re.compile(r"old (0|[1-9][0-9]*)", re.ASCII)
_CHECKPOINT_PATH = re.compile(r"/([0-9a-f]{64})/checkpoint", re.ASCII)


class WitnessError(Exception):
    """The witness cannot start: its key, state or options are unusable (said in one line)."""


class Answer(NamedTuple):
    status: int
    body: str
    content_type: str = TEXT


@dataclass(frozen=True)
class Seen:
    """The latest checkpoint the witness cosigned for a log."""

    size: int
    root: bytes
    checkpoint: str  # the note: the log's verified signatures and the witness's cosignature


def load_or_create_key(path: str, name: str) -> cosignatures.WitnessSigner:
    """The witness's key kept in `path` (a `PRIVATE+KEY+…` string of type 0x04), created with
    mode 0600 under `name` if the file is missing; WitnessError if it is another name's key."""
    if not os.path.exists(path):
        made = cosignatures.generate_witness_signer(name)
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(descriptor, "w") as kept:
                kept.write(made.skey + "\n")
                kept.flush()
                os.fsync(kept.fileno())
    try:
        with open(path) as kept:
            signer = cosignatures.parse_witness_signer(kept.read())
    except (OSError, notes.NoteError) as error:
        raise WitnessError(f"the witness key {path} is unusable: {error}") from None
    if signer.name != name:
        raise WitnessError(f"the witness key {path} is named {signer.name}, not {name}")
    return signer


def _write_atomically(path: str, text: str) -> None:
    """Replace `path` by `text`: a new file fsynced, renamed over it, the directory fsynced."""
    directory = os.path.dirname(os.path.abspath(path))
    made = f"{path}.{os.getpid()}.{threading.get_ident()}.new"
    with open(made, "w", encoding="utf-8") as new:
        new.write(text)
        new.flush()
        os.fsync(new.fileno())
    os.replace(made, path)
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def origin_hash(origin: str) -> str:
    return hashlib.sha256(origin.encode("utf-8")).hexdigest()


class Witness:
    """The witness's logic, without HTTP: `add_checkpoint` and `latest` answer the two calls."""

    def __init__(
        self,
        signer: cosignatures.WitnessSigner,
        logs: Iterable[notes.Verifier],
        state_path: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.signer = signer
        self.logs: dict[str, list[notes.Verifier]] = {}
        for key in logs:
            self.logs.setdefault(key.name, []).append(key)
        self.state_path = state_path
        self.clock = clock
        self.lock = threading.Lock()
        self.seen = self._load()

    def _load(self) -> dict[str, Seen]:
        try:
            with open(self.state_path, encoding="utf-8") as kept:
                saved = json.load(kept)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            raise WitnessError(f"the witness state {self.state_path} is unreadable: {error}") from None
        if not isinstance(saved, dict) or saved.get("version") != STATE_VERSION:
            raise WitnessError(f"the witness state {self.state_path} is not a version {STATE_VERSION} state")
        try:
            return {
                origin: Seen(entry["size"], base64.b64decode(entry["root"]), entry["checkpoint"])
                for origin, entry in saved["logs"].items()
            }
        except (KeyError, TypeError, AttributeError, binascii.Error) as error:
            raise WitnessError(f"the witness state {self.state_path} is malformed: {error!r}") from None

    def _save(self, seen: dict[str, Seen]) -> None:
        logs = {
            origin: {
                "size": each.size,
                "root": base64.b64encode(each.root).decode(),
                "checkpoint": each.checkpoint,
            }
            for origin, each in sorted(seen.items())
        }
        state = {"version": STATE_VERSION, "logs": logs}
        _write_atomically(self.state_path, json.dumps(state, indent=1) + "\n")

    def keys_of(self, origin: str) -> list[notes.Verifier] | None:
        """The keys trusted for an origin: those named as it, else those named as it without
        its last `/<part>` (evidence-server signs the log of each organization, origin
        `<host>/<org>`, with one key named `<host>`); None for an unknown origin."""
        return self.logs.get(origin) or self.logs.get(origin.rpartition("/")[0])

    def latest(self, hashed_origin: str) -> str | None:
        """The latest checkpoint cosigned for the log whose origin hashes to `hashed_origin`."""
        with self.lock:
            found = [each for origin, each in self.seen.items() if origin_hash(origin) == hashed_origin]
        return found[0].checkpoint if found else None

    def add_checkpoint(self, body: bytes) -> Answer:
        """The answer to an add-checkpoint request body."""
        try:
            old, proof, note = _parse_request(body)
            text, signatures = notes.split_note(note)
        except (ValueError, UnicodeDecodeError) as error:  # NoteError is a ValueError
            return Answer(400, f"malformed request: {error}\n")
        origin = text.partition("\n")[0]
        keys = self.keys_of(origin)
        if keys is None:
            return Answer(404, f"unknown log origin {origin!r}\n")
        try:
            checkpoint = notes.parse_checkpoint(notes.verify_note(note, *keys))
        except notes.NoteError as error:
            return Answer(403, f"the checkpoint is not signed by the log's key: {error}\n")
        if old > checkpoint.size:
            return Answer(400, f"old size {old} is beyond the checkpoint's size {checkpoint.size}\n")
        known = {(key.name, key.key_id) for key in keys}
        log_lines = [each for each in signatures if (each.name, each.key_id) in known]
        with self.lock:
            before = self.seen.get(origin, Seen(0, merkle.EMPTY_ROOT, ""))
            if old != before.size:
                return Answer(409, f"{before.size}\n", TLOG_SIZE)
            problem = _inconsistency(old, before.root, checkpoint, proof)
            if problem:
                log.warning(
                    "witness refused a checkpoint of %s: %s",
                    origin,
                    problem,
                    extra={"fields": {"origin": origin, "old": old, "size": checkpoint.size, "note": note}},
                )
                return Answer(422, f"{problem}\n")
            line = cosignatures.signature_line(cosignatures.cosign(text, self.signer, int(self.clock())))
            cosigned = text + "\n" + "".join(map(cosignatures.signature_line, log_lines)) + line
            seen = {**self.seen, origin: Seen(checkpoint.size, checkpoint.root, cosigned)}
            self._save(seen)
            self.seen = seen
        log.info(
            "witness cosigned %s at size %d",
            origin,
            checkpoint.size,
            extra={"fields": {"origin": origin, "old": old, "size": checkpoint.size}},
        )
        return Answer(200, line)


def _parse_request(body: bytes) -> tuple[int, list[bytes], str]:
    """(old size, proof hashes, checkpoint note) of an add-checkpoint body; ValueError if malformed."""
    text = body.decode("utf-8")
    head, blank, note = text.partition("\n\n")
    if not blank:
        raise ValueError("no empty line before the checkpoint")
    first, *lines = head.split("\n")
    found = _OLD.fullmatch(first)
    if not found:
        raise ValueError(f"the first line is 'old <size>', not {first!r}")
    if len(lines) > MAX_PROOF_LINES:
        raise ValueError(f"more than {MAX_PROOF_LINES} consistency proof lines")
    proof = []
    for line in lines:
        try:
            hashed = base64.b64decode(line.encode("ascii"), validate=True)
        except (UnicodeEncodeError, binascii.Error):
            hashed = b""
        if len(hashed) != merkle.HASH_SIZE:
            raise ValueError(f"a proof line is one base64 SHA-256 hash, not {line!r}")
        proof.append(hashed)
    return int(found.group(1)), proof, note


def _inconsistency(old: int, old_root: bytes, checkpoint: notes.Checkpoint, proof: list[bytes]) -> str:
    """Why the checkpoint is not a consistent extension of the cosigned tree (old, old_root);
    "" when it is."""
    if checkpoint.size == 0 and checkpoint.root != merkle.EMPTY_ROOT:
        return "a checkpoint of size 0 must have the empty tree's root"
    if old == 0:
        return "a proof from size 0 must be empty" if proof else ""
    try:
        merkle.verify_consistency(old, checkpoint.size, old_root, checkpoint.root, proof)
    except merkle.ProofError as error:
        if old == checkpoint.size and not proof:
            return f"another root at the cosigned size {old}: a fork"
        return f"the consistency proof from size {old} does not verify: {error}"
    return ""


class _Server(ThreadingHTTPServer):
    """Threads answer connections; a stop lets requests being answered finish and closes the
    kept-alive connections that wait for their next request."""

    daemon_threads = False  # server_close() joins the threads

    def __init__(self, address: tuple[str, int], handler: type[_Handler]) -> None:
        super().__init__(address, handler)
        self.idle: set[socket.socket] = set()
        self.idle_lock = threading.Lock()
        self.stopping = False

    def stop(self) -> None:
        self.shutdown()  # waits for serve_forever to return: no new connection
        with self.idle_lock:
            self.stopping = True
            for connection in self.idle:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RD)  # its wait for a request line ends


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as tlog-witness asks
    server_version = "evidence-witness"
    timeout = IDLE_TIMEOUT  # a connection silent that long mid-request, or idle, is closed
    witness: Witness  # set on the subclass serve() makes

    server: _Server

    def handle_one_request(self) -> None:
        with self.server.idle_lock:
            if self.server.stopping:
                self.close_connection = True
                return
            self.server.idle.add(self.connection)
        try:
            super().handle_one_request()
        finally:
            with self.server.idle_lock:
                self.server.idle.discard(self.connection)

    def parse_request(self) -> bool:
        with self.server.idle_lock:  # a request line came: answered even if a stop comes now
            self.server.idle.discard(self.connection)
        return super().parse_request()

    def _answer(self, answer: Answer) -> None:
        data = answer.body.encode("utf-8")
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_POST(self) -> None:
        if self.path != "/add-checkpoint":
            self.close_connection = True  # its body is not read
            self._answer(Answer(404, "not found\n"))
            return
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self.close_connection = True
            self._answer(Answer(411, "a Content-Length is required\n"))
            return
        if int(length) > MAX_BODY:
            self.close_connection = True
            self._answer(Answer(413, f"the body is over {MAX_BODY} bytes\n"))
            return
        self._answer(self.witness.add_checkpoint(self.rfile.read(int(length))))

    def do_GET(self) -> None:
        found = _CHECKPOINT_PATH.fullmatch(self.path)
        checkpoint = self.witness.latest(found.group(1)) if found else None
        self._answer(Answer(200, checkpoint) if checkpoint else Answer(404, "not found\n"))

    do_HEAD = do_GET

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        log.info(
            "%s %s %s",
            self.command,
            self.path,
            code,
            extra={"fields": {"method": self.command, "path": self.path, "status": code}},
        )

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        log.warning("witness HTTP: " + format, *args)


def _address(listen: str) -> tuple[str, int]:
    host, colon, port = listen.rpartition(":")
    if not colon or not port.isdigit():
        raise WitnessError(f"--listen is HOST:PORT, not {listen!r}")
    return host.strip("[]"), int(port)


def serve(witness: Witness, listen: str) -> None:
    """Answer on `listen` until SIGTERM or SIGINT; requests being answered are finished first."""
    lock_path = f"{witness.state_path}.lock"
    lock = open(lock_path, "a")  # noqa: SIM115 (held for the server's life)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise WitnessError(f"another witness holds {lock_path}") from None
    handler = type("Handler", (_Handler,), {"witness": witness})
    try:
        server = _Server(_address(listen), handler)
    except OSError as error:
        lock.close()
        raise WitnessError(f"cannot listen on {listen}: {error}") from None

    def stop(*_: Any) -> None:
        threading.Thread(target=server.stop).start()  # it waits for serve_forever to return

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    host, port = server.server_address[:2]
    log.info(
        "witness %s on http://%s:%s for %s (verifier key %s)",
        witness.signer.name,
        host,
        port,
        ", ".join(sorted(witness.logs)) or "no log",
        witness.signer.vkey,
    )
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        lock.close()
    log.info("witness %s stopped", witness.signer.name)
