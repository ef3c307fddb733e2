"""`evidence-server witness` as a real process (one per module), driven over HTTP by the
independent log of tests/c2sp/c2sp.py: every answer of c2sp.org/tlog-witness's add-checkpoint,
cosignatures checked by the independent code, state kept across a restart, forks racing."""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import io
import json
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from evidence_grpc import cli, witness
from evidence_grpc.domain.transparency import notes
from tests.c2sp import c2sp

NAME = "witness.test/w1"
LOGS = ("grows", "refusals", "forks", "restart", "monitor")


@dataclass
class Running:
    """The witness process, its address and the keys it was given."""

    key_file: Path
    state: Path
    logs: dict[str, c2sp.Key]
    witness: c2sp.Key
    process: subprocess.Popen[str] | None = None
    port: int = 0
    lines: list[str] = field(default_factory=list)

    def start(self) -> None:
        command = [sys.executable, "-m", "evidence_grpc.cli", "witness", "--name", NAME, "--key-file"]
        command += [str(self.key_file), "--state", str(self.state), "--listen", "127.0.0.1:0"]
        for key in self.logs.values():
            command += ["--log", key.vkey]
        env = {**os.environ, "EVIDENCE_LOG_FORMAT": "json"}
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
        assert self.process.stderr is not None
        for line in self.process.stderr:  # until it says where it listens
            self.lines.append(line)
            message = json.loads(line)["message"]
            if message.startswith(f"witness {NAME} on http://"):
                self.port = int(message.split()[3].rsplit(":", 1)[1])
                break
        else:
            raise AssertionError("the witness did not start:\n" + "".join(self.lines))
        threading.Thread(target=lambda: self.lines.extend(self.process.stderr), daemon=True).start()  # type: ignore[union-attr,arg-type]

    def stop(self) -> int:
        assert self.process is not None
        self.process.terminate()
        return self.process.wait(10)

    def post(self, body: bytes) -> tuple[int, str, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("POST", "/add-checkpoint", body)
            response = connection.getresponse()
            return response.status, response.read().decode(), response.getheader("Content-Type", "")
        finally:
            connection.close()

    def get(self, path: str) -> tuple[int, str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read().decode()
        finally:
            connection.close()


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    where = tmp_path_factory.mktemp("witness")
    key_file = where / "witness.key"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        arguments = ["witness", "--name", NAME, "--key-file", str(key_file), "--print-verifier-key"]
        assert cli.cmd_witness(cli.parser().parse_args(arguments)) == 0
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    public = c2sp.read_vkey(printed.getvalue())
    assert (public.name, public.key_type) == (NAME, c2sp.WITNESS_KEY)
    logs = {name: c2sp.new_key(f"log.test/{name}") for name in LOGS} | {"server": c2sp.new_key("server.test")}
    state = Running(key_file, where / "state.json", logs, public)
    state.start()
    yield state
    # SIGTERM: a clean stop, that does not wait for a kept-alive connection's next request
    idle = http.client.HTTPConnection("127.0.0.1", state.port, timeout=10)
    idle.request("GET", "/")
    assert idle.getresponse().read() == b"not found\n"
    began = time.monotonic()
    assert state.stop() == 0
    assert time.monotonic() - began < witness.IDLE_TIMEOUT / 2
    idle.close()
    assert json.loads(state.lines[-1])["message"] == f"witness {NAME} stopped"


def _log(running: Running, name: str, size: int) -> c2sp.Log:
    log = c2sp.Log(running.logs[name])
    log.append(*(f"{name} {n}".encode() for n in range(size)))
    return log


def _cosigned(running: Running, log: c2sp.Log, old: int, size: int) -> str:
    status, answer, _ = running.post(
        c2sp.add_checkpoint_body(old, log.proof(old, size), log.checkpoint(size))
    )
    assert status == 200, answer
    note = log.checkpoint(size) + answer
    assert c2sp.cosigners(note, [running.witness]) == [NAME]
    return note


def test_it_cosigns_an_independent_logs_growing_checkpoints(running: Running):
    log = _log(running, "grows", 9)
    _cosigned(running, log, 0, 3)
    _cosigned(running, log, 3, 3)  # the same checkpoint again: cosigned again
    note = _cosigned(running, log, 3, 9)
    text, lines = c2sp.parse_note(note)
    assert c2sp.read_checkpoint(text)[1] == 9
    assert 0 < c2sp.verify_cosignature(text, lines[-1], running.witness)


def test_it_refuses_what_it_must_not_cosign_and_keeps_its_state(running: Running):
    log = _log(running, "refusals", 8)
    _cosigned(running, log, 0, 5)
    stranger = c2sp.Log(c2sp.new_key("log.test/unknown"), list(log.leaves))
    impostor = c2sp.Log(c2sp.new_key(log.origin), list(log.leaves))  # the log's name, another key
    good = log.checkpoint(8)
    broken_signature = good[: good.rindex(" ") + 1] + c2sp.b64(log.key.id + bytes(64)) + "\n"
    forked = c2sp.Log(log.key, [*log.leaves[:2], c2sp.leaf_hash(b"other"), *log.leaves[3:]])
    other_root = c2sp.sign_note(c2sp.checkpoint_text(log.origin, 5, bytes(32)), log.key)
    cases = {
        "unknown origin": (404, c2sp.add_checkpoint_body(5, log.proof(5, 8), stranger.checkpoint(8))),
        "another key of the log's name": (
            403,
            c2sp.add_checkpoint_body(5, log.proof(5, 8), impostor.checkpoint(8)),
        ),
        "a broken signature": (403, c2sp.add_checkpoint_body(5, log.proof(5, 8), broken_signature)),
        "old beyond the size": (400, c2sp.add_checkpoint_body(9, [], good)),
        "no blank line": (400, b"old 5\n" + good.split("\n\n")[0].encode()),
        "a leading zero": (400, c2sp.add_checkpoint_body(5, [], good).replace(b"old 5", b"old 05")),
        "a proof line that is no hash": (400, b"old 5\nnot-base64\n\n" + good.encode()),
        "a stale old size": (409, c2sp.add_checkpoint_body(3, log.proof(3, 8), good)),
        "a proof that does not verify": (
            422,
            c2sp.add_checkpoint_body(5, forked.proof(5, 8), forked.checkpoint(8)),
        ),
        "another root at the cosigned size": (422, c2sp.add_checkpoint_body(5, [], other_root)),
        "a body over the bound": (413, b"old 5\n" + b"A" * 70000),
    }
    for case, (expected, body) in cases.items():
        status, answer, content_type = running.post(body)
        assert status == expected, f"{case}: {status} {answer}"
        if status == 409:
            assert (answer, content_type) == ("5\n", "text/x.tlog.size"), case
    status, answer = running.get(f"/{hashlib.sha256(log.origin.encode()).hexdigest()}/checkpoint")
    assert status == 200 and c2sp.read_checkpoint(c2sp.verify_note(answer, log.key))[1] == 5
    _cosigned(running, log, 5, 8)  # what it held all along still extends


def test_a_servers_key_is_trusted_for_its_organizations_origins(running: Running):
    server = running.logs["server"]  # evidence-server: origin <host>/<org>, key named <host>
    acme = c2sp.Log(server, named=f"{server.name}/acme")
    acme.append(b"a", b"b")
    _cosigned(running, acme, 0, 2)
    for origin in (f"{server.name}/acme/deeper", f"{server.name}x/acme", "elsewhere.test/acme"):
        stranger = c2sp.Log(server, list(acme.leaves), named=origin)
        assert running.post(c2sp.add_checkpoint_body(0, [], stranger.checkpoint()))[0] == 404, origin


def test_a_new_logs_first_checkpoint_needs_an_empty_proof_and_a_true_empty_root(running: Running):
    log = _log(running, "monitor", 4)
    assert running.post(c2sp.add_checkpoint_body(0, log.proof(2, 4), log.checkpoint(4)))[0] == 422
    empty_but_not = c2sp.sign_note(c2sp.checkpoint_text(log.origin, 0, bytes(32)), log.key)
    assert running.post(c2sp.add_checkpoint_body(0, [], empty_but_not))[0] == 422
    origin_hash = hashlib.sha256(log.origin.encode()).hexdigest()
    assert running.get(f"/{origin_hash}/checkpoint")[0] == 404
    _cosigned(running, log, 0, 4)
    status, served = running.get(f"/{origin_hash}/checkpoint")
    assert status == 200
    assert c2sp.verify_note(served, log.key) == c2sp.checkpoint_text(log.origin, 4, c2sp.mth(log.leaves))
    assert c2sp.cosigners(served, [running.witness]) == [NAME]


def _race(running: Running, bodies: list[bytes]) -> list[tuple[int, str, str]]:
    """The answers to the bodies, posted at once from as many threads."""
    barrier = threading.Barrier(len(bodies))
    answers: list[tuple[int, str, str]] = [(0, "", "")] * len(bodies)

    def submit(side: int) -> None:
        barrier.wait()
        answers[side] = running.post(bodies[side])

    threads = [threading.Thread(target=submit, args=(side,)) for side in range(len(bodies))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_of_two_forks_racing_from_one_size_exactly_one_is_cosigned(running: Running):
    log = _log(running, "forks", 3)
    _cosigned(running, log, 0, 3)
    for round_ in range(5):
        size = len(log.leaves)
        forks = [
            c2sp.Log(log.key, [*log.leaves, c2sp.leaf_hash(f"{round_} {side}".encode())]) for side in "ab"
        ]
        bodies = [c2sp.add_checkpoint_body(size, fork.proof(size), fork.checkpoint()) for fork in forks]
        answers = _race(running, bodies)
        statuses = sorted(status for status, _, _ in answers)
        assert statuses == [200, 409], answers
        winner = forks[0] if answers[0][0] == 200 else forks[1]
        assert answers[1 - forks.index(winner)][1] == f"{size + 1}\n"
        log = winner


def test_a_restarted_witness_keeps_what_it_cosigned(running: Running):
    log = _log(running, "restart", 6)
    _cosigned(running, log, 0, 4)
    # A witness started again on the state file answers from it (in this process: starting a
    # second server process costs seconds).
    signer = witness.load_or_create_key(str(running.key_file), NAME)
    again = witness.Witness(
        signer, [notes.parse_verifier_key(key.vkey) for key in running.logs.values()], str(running.state)
    )
    assert again.add_checkpoint(c2sp.add_checkpoint_body(0, [], log.checkpoint(6))) == (
        409,
        "4\n",
        "text/x.tlog.size",
    )
    assert again.add_checkpoint(c2sp.add_checkpoint_body(4, log.proof(4, 6), log.checkpoint(6))).status == 200
    assert json.loads(running.state.read_text())["logs"][log.origin]["size"] == 6


def test_a_witness_will_not_start_on_a_key_of_another_name_or_an_unreadable_state(tmp_path: Path):
    key_file = tmp_path / "key"
    signer = witness.load_or_create_key(str(key_file), NAME)
    assert witness.load_or_create_key(str(key_file), NAME).vkey == signer.vkey
    with pytest.raises(witness.WitnessError, match="is named witness.test/w1, not other"):
        witness.load_or_create_key(str(key_file), "other")
    state = tmp_path / "state.json"
    for text in ("{", '{"version": 2, "logs": {}}', '{"version": 1, "logs": {"a": {"size": 1}}}'):
        state.write_text(text)
        with pytest.raises(witness.WitnessError, match="witness state"):
            witness.Witness(signer, [], str(state))
    arguments = ["witness", "--name", NAME, "--key-file", str(key_file), "--listen", "127.0.0.1:0"]
    assert cli.cmd_witness(cli.parser().parse_args(arguments)) == cli.REFUSED
