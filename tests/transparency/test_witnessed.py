"""Clients that require witnesses (issue 46): verify-package and verify-log --witness-key /
--quorum fail, naming the witnesses whose cosignatures are missing, unless the checkpoint they
check carries valid cosignatures of the quorum. The cosignatures are made by the independent
implementation of tests/c2sp."""

from __future__ import annotations

import contextlib
import io

import pytest

from evidence_grpc import cli
from evidence_grpc.domain.transparency import notes
from evidence_grpc.domain.transparency.cosignatures import parse_witness_key
from evidence_grpc.domain.views.audit_packages import check_package
from tests.c2sp import c2sp
from tests.helpers import H, unpacked
from tests.transparency.test_log import BASE, _verify_log, write_evidence
from tests.transparency.test_manifests import _doctored, package  # noqa: F401 (a fixture)

SQLITE = pytest.mark.parametrize("engine", ["sqlite"])  # the log's engines: test_log.py
W1, W2, W3 = (c2sp.new_key(f"witness.test/w{n}", c2sp.WITNESS_KEY) for n in (1, 2, 3))


def _cosigned(note: str, *witnesses: c2sp.Key) -> str:
    text, _ = c2sp.parse_note(note)
    return note + "".join(
        c2sp.cosign(text, witness, 1700000000 + n).text() for n, witness in enumerate(witnesses)
    )


def _run(command: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = getattr(cli, command)(cli.parser().parse_args(list(args)))
    return status, out.getvalue(), err.getvalue()


def _keys(*witnesses: c2sp.Key) -> list[str]:
    return [each for witness in witnesses for each in ("--witness-key", witness.vkey)]


@SQLITE
def test_a_package_holds_only_with_the_quorum_of_cosignatures(package, tmp_path):  # noqa: F811
    content, verifier = package
    checkpoint = unpacked(content)["transparency/checkpoint"].decode()
    cosigned = _doctored(
        content,
        lambda files: files.update({"transparency/checkpoint": _cosigned(checkpoint, W1, W2).encode()}),
    )
    three = [parse_witness_key(w.vkey) for w in (W1, W2, W3)]
    assert check_package(cosigned, verifier, three[:2], 2).problems == []
    assert check_package(cosigned, verifier, three, 2).problems == []
    assert check_package(cosigned, verifier, three, 3).problems == [
        f"the checkpoint has 2 of the 3 witness cosignatures it needs; missing: witness.test/w3+{W3.id.hex()}"
    ]
    # the log's own package, not cosigned: every witness missing
    assert "missing: witness.test/w1" in check_package(content, verifier, three[:1], 1).problems[0]
    forged = _cosigned(checkpoint, W1)[:-20] + "AAAAAAAAAAAAAAAAAAA=\n"
    doctored = _doctored(content, lambda files: files.update({"transparency/checkpoint": forged.encode()}))
    assert (
        check_package(doctored, verifier, three[:1], 1)
        .problems[0]
        .startswith("the checkpoint's witness cosignatures do not verify: the cosignature by witness.test/w1")
    )
    # the command: every key must have cosigned unless --quorum says fewer
    key, path = tmp_path / "log.pub", tmp_path / "package.tar.gz"
    key.write_text(verifier.vkey + "\n")
    path.write_bytes(cosigned)
    status, out, _ = _run(
        "cmd_verify_package", "verify-package", str(path), "--public-key", str(key), *_keys(W1, W3)
    )
    assert (
        status == 1
        and f"{path}: the checkpoint has 1 of the 2 witness cosignatures it needs; missing: witness.test/w3+"
        in out
    ), out
    status, out, _ = _run(
        "cmd_verify_package",
        "verify-package",
        str(path),
        "--public-key",
        str(key),
        *_keys(W1, W3),
        "--quorum",
        "1",
    )
    assert status == 0 and out.endswith(f"{path}: ok\n"), out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--quorum", "3", *_keys(W1, W2)], "--quorum 3 needs 1 to 2"),
        (["--quorum", "1"], "--quorum 1 needs 1 to 0"),
        (_keys(W1)[:1] + [c2sp.new_key("log.test/a").vkey], "not an Ed25519 cosignature/v1 key"),
    ],
)
def test_a_witness_policy_that_cannot_be_met_is_refused(args: list[str], said: str, tmp_path):
    key = tmp_path / "log.pub"
    key.write_text(notes.generate_signer("log.test/a").vkey + "\n")
    status, _, err = _run("cmd_verify_package", "verify-package", "p.tar.gz", "--public-key", str(key), *args)
    assert status == cli.REFUSED and said in err, err
    status, _, err = _run("cmd_verify_log", "verify-log", "--since", str(tmp_path / "saved"), *args)
    assert status == cli.REFUSED and said in err, err


@SQLITE
def test_verify_log_checks_the_witnesses_of_the_saved_checkpoint(client, db, tmp_path):
    status, _, err = _run("cmd_verify_log", "verify-log", *_keys(W1))
    assert status == cli.REFUSED and "--witness-key checks the witnesses' cosignatures on the --since" in err
    write_evidence(client)
    saved, key = tmp_path / "checkpoint", tmp_path / "key.pub"
    saved.write_text(_cosigned(client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True), W1))
    key.write_text(client.get(f"{BASE}/public-key", headers=H).get_data(as_text=True))
    since = ["--since", str(saved), "--public-key", str(key), *_keys(W1, W2)]
    done = _verify_log(db, *since)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "acme: the saved checkpoint: the checkpoint has 1 of the 2 witness cosignatures it needs; "
        f"missing: witness.test/w2+{W2.id.hex()}"
    ) in done.stdout.splitlines()
    done = _verify_log(db, *since, "--quorum", "1")
    assert done.returncode == 0 and (
        "since the saved checkpoint: holds (the log only grew), cosigned by 1 of 2 witnesses;" in done.stdout
    ), done.stdout + done.stderr
    assert notes.split_note(saved.read_text())[1][-1].name == "witness.test/w1"
