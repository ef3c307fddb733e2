"""`evidence-server verify-log` at scale and at its edges (issue 45 item 6, issue 47 item 10): the
check reads a log in bounded pages and its memory does not grow with the log; the summary it
ends with; progress only on a terminal; a missing, unreadable or unreachable database answered
by every command with one line and exit 2, never a traceback nor a new empty file."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tracemalloc
from typing import Any

import pytest

from evidence_grpc import cli
from evidence_grpc.domain.transparency import log, merkle, notes
from evidence_grpc.storage.models import LogEntry, LogHead, Organization
from tests.conftest import recorded_statements
from tests.helpers import H
from tests.transparency.test_log import BASE, _verify_log, write_evidence

SYNTHETIC = "synthetic-test"


def _leaf(n: int) -> dict[str, Any]:
    return {"kind": SYNTHETIC, "n": n}


def _grow(org: Organization, size: int) -> None:
    """Grow the organization's log of synthetic entries to `size` (rows as log.append writes
    them)."""
    head = LogHead.get_or_none(LogHead.organization == org)
    first = head.size if head else 0
    frontier = [bytes.fromhex(value) for value in (head.frontier if head else [])]
    rows = []
    for n in range(first, size):
        leaf = log.canonical(_leaf(n))
        made = merkle.append_leaf(frontier, n, merkle.leaf_hash(leaf))
        rows.append((org.id, n, SYNTHETIC, n, leaf.decode(), b"".join(made)))
    fields = [LogEntry.organization, LogEntry.number, LogEntry.kind, LogEntry.record_id,
              LogEntry.leaf, LogEntry.hashes]
    for start in range(0, len(rows), 2000):
        LogEntry.insert_many(rows[start:start + 2000], fields=fields).execute()
    LogHead.delete().where(LogHead.organization == org).execute()
    LogHead.insert(organization=org.id, size=size,
                   frontier=[value.hex() for value in frontier]).execute()


def test_verify_reads_the_log_in_pages_and_its_memory_does_not_grow(db, monkeypatch):
    rounds: list[int] = []

    def rebuild(ids: list[int]) -> dict[int, dict[str, Any]]:
        rounds.append(len(ids))
        return {i: _leaf(i) for i in ids}

    monkeypatch.setitem(log._REBUILDERS, SYNTHETIC, rebuild)
    acme = Organization.get(Organization.name == "acme")
    peaks = []
    for size in (log.PAGE, 3 * log.PAGE):
        _grow(acme, size)
        statements = recorded_statements(monkeypatch)
        rounds.clear()
        tracemalloc.start()
        try:
            check = log.check_log(acme)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert check.problems == [] and check.entries == size
        assert check.rederived == {SYNTHETIC: size} and check.hashes == 2 * size - bin(size).count("1")
        pages = [s for s in statements if "log_entry" in s.lower() and "MAX(" not in s]
        # one statement a page of PAGE (LIMIT), and one that finds the last page short
        assert len(pages) == size // log.PAGE + 1 and all("LIMIT" in s for s in pages), pages
        assert max(rounds) <= log._CHECKED_AT_ONCE and sum(rounds) == size
    # three times the entries, about the same memory (holding the log would take three times)
    assert peaks[1] < 1.5 * peaks[0], peaks


def test_verify_log_ends_with_a_summary_and_shows_no_progress_off_a_terminal(client, db,
                                                                             tmp_path):
    write_evidence(client)
    done = _verify_log(db)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"acme: ok \(16 entries, root [0-9a-f]{64}\)", lines[0]), lines
    # the trail's four manifests and the artifact's two: the latest of each re-derived
    assert re.fullmatch(
        r"acme: checked 16 entries and 31 hashes; 11 leaves re-derived \(artifact 1, "
        r"artifact_manifest 1, attestation 2, environment 1, flow 1, snapshot 1, trail 1, "
        r"trail_event 2, trail_manifest 1\); 9 records checked for their entry \(artifact 1, attestation 2, "
        r"environment 1, flow 1, snapshot 1, trail 1, trail_event 2\); since the saved checkpoint: "
        r"not asked; 0 finding\(s\) in \d+\.\d s",
        lines[1]), lines
    assert re.fullmatch(r"verify-log: 1 log\(s\), 16 entries, 0 finding\(s\) in \d+\.\d s",
                        lines[-1]), lines
    assert done.stderr == ""  # captured: not a terminal, so no progress
    saved, key = tmp_path / "checkpoint", tmp_path / "key.pub"
    saved.write_text(client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True))
    key.write_text(client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True))
    done = _verify_log(db, "--since", str(saved), "--public-key", str(key))
    assert done.returncode == 0 and "; since the saved checkpoint: holds (the log only grew); " \
        "0 finding(s) in " in done.stdout.splitlines()[1], done.stdout
    saved.write_text(saved.read_text().replace("\n16\n", "\n15\n"))
    done = _verify_log(db, "--since", str(saved), "--public-key", str(key))
    assert done.returncode == 1 and "; since the saved checkpoint: FAILED; 1 finding(s) in " \
        in done.stdout, done.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_rewritten_stderr_line_on_a_terminal_only(monkeypatch):
    monkeypatch.setattr(sys, "stderr", _Terminal())
    with cli._Progress("acme", 20_000) as progress:
        progress(5_000)
        progress(10_000)  # within the second: not shown
    shown = sys.stderr.getvalue()
    assert re.fullmatch(r"\rverify-log: acme 5,000/20,000 entries \(25 %\), [\d,]+ entries/s"
                        r"\x1b\[K\r\x1b\[K", shown), repr(shown)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with cli._Progress("acme", 20_000) as progress:
        progress(5_000)
    assert sys.stderr.getvalue() == ""


@pytest.mark.parametrize("command", [
    ["verify-log", "--database-url", "sqlite:///{tmp}/missing.db"],
    ["deliver", "--database-url", "sqlite:///{tmp}"],  # a directory
    ["migrate", "--database-url", "sqlite:///{tmp}"],  # a directory
    ["verify-log", "--database-url", "postgresql://nobody@127.0.0.1:1/none"],
    ["serve", "--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--database-url",
     "sqlite:///{tmp}"],  # a directory
])
def test_a_missing_or_unreachable_database_is_one_line_and_exit_2(command, tmp_path):
    done = subprocess.run([sys.executable, "-m", "evidence_grpc.cli",
                           *(part.format(tmp=tmp_path) for part in command)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    error = done.stderr.strip()
    assert error.startswith(f"evidence-server {command[0]}: ") and (
        "no database at" in error or "cannot open the database" in error), error
    assert not (tmp_path / "missing.db").exists() and list(tmp_path.iterdir()) == []


def test_verify_log_on_a_database_never_migrated_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "empty.db").touch()
    done = subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "verify-log",
                           "--database-url", f"sqlite:///{tmp_path}/empty.db"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith(
        "evidence-server verify-log: the database lacks migrations of this release: 0001_initial,"
    ) and len(done.stderr.splitlines()) == 1, done.stderr


def test_verify_package_checks_each_package_and_names_one_it_cannot_read(tmp_path):
    """Several packages in one run, each finding and verdict after its file's name; one that
    cannot be read is one line on stderr and exit 2, the others checked all the same."""
    key = tmp_path / "log.pub"
    key.write_text(notes.generate_signer("evidence.test").vkey + "\n")
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a package")
    done = subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "verify-package",
                           str(tmp_path / "missing.tar.gz"), str(junk), "--public-key", str(key)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("verify-package: ") and "missing.tar.gz" in done.stderr \
        and len(done.stderr.splitlines()) == 1, done.stderr
    findings = done.stdout.splitlines()
    assert findings[0].startswith(f"{junk}: not an audit package") and \
        findings[1:] == [f"{junk}: FAILED"], findings
