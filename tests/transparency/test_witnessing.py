"""Witnesses cosign the log's checkpoints (domain.transparency.witnessing): our log submitted to
an independent witness (tests/c2sp/witness.py, which imports nothing of ours) on both engines,
the cosigned checkpoint served with its lines and checked by tests/c2sp/c2sp.py; a witness that
is down delays only itself; a rewritten log is refused and the refusal is kept and shown."""

from __future__ import annotations

import dataclasses
import html
import io
import json
import logging
import os
import re
import tarfile
import time

import pytest

from evidence_grpc import cli, observability
from evidence_grpc.api.v2 import transparency_service_pb2 as pb
from evidence_grpc.api.v2 import transparency_service_pb2_grpc as pb_grpc
from evidence_grpc.domain.transparency import cosignatures, log, witnessing
from evidence_grpc.domain.views.audit_packages import check_package
from evidence_grpc.storage.models import (
    LogCheckpoint,
    LogCosignature,
    LogHead,
    LogWitness,
    Organization,
)
from tests.c2sp import c2sp
from tests.c2sp.witness import Witness
from tests.conftest import free_port, grpc_channel
from tests.helpers import H, begin_trail, create_flow

BASE = "/api/v2/transparency/acme"


@pytest.fixture
def signer(settings):
    return log.read_signer(settings.log_key_file)


def app_of(settings, witnesses: witnessing.Witnesses):
    from rest_shim.app import create_app

    specs = tuple(f"{each.key}={each.url}" for each in witnesses.each)
    return create_app(dataclasses.replace(settings, witnesses=specs,
                                          witness_quorum=witnesses.quorum)).test_client()


def independent(name: str, signer) -> Witness:
    """A witness of ours that knows the acme log by its key."""
    return Witness(c2sp.new_key(name, c2sp.WITNESS_KEY),
                   {f"{signer.name}/acme": c2sp.read_vkey(signer.vkey)})


def submit_due(submitter: witnessing.Submitter) -> list[str]:
    """Run each submission that is due now, one after the other: the witnesses' names."""
    due = submitter.due(time.time())
    for each in due:
        submitter.once(*each)
    return [witness.name for _, witness, _ in due]


def head_size() -> int:
    return LogHead.get().size


def state(witness: Witness) -> LogWitness:
    return LogWitness.get(LogWitness.witness == witness.key.vkey)


def test_an_independent_witness_cosigns_the_log_as_it_grows(settings, signer):
    with independent("w1.test", signer) as w1:
        witnesses = witnessing.parse_witnesses([f"{w1.key.vkey}={w1.url}/"])
        client = app_of(settings, witnesses)
        submitter = witnessing.Submitter(witnesses, signer, signer.name)
        create_flow(client)
        assert submit_due(submitter) == ["w1.test"]

        note = client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True)
        text = c2sp.verify_note(note, c2sp.read_vkey(signer.vkey))
        assert c2sp.cosigners(note, [w1.key.public_only()]) == ["w1.test"]
        assert c2sp.read_checkpoint(text)[1] == head_size() == w1.latest[f"{signer.name}/acme"][0]
        assert submit_due(submitter) == []  # nothing new: nothing sent

        # it grows: the witness checks the consistency proof from the size it cosigned
        first = head_size()
        begin_trail(client)
        assert submit_due(submitter) == ["w1.test"] and w1.requests == 2
        note = client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True)
        assert c2sp.read_checkpoint(c2sp.parse_note(note)[0])[1] == head_size() > first
        assert c2sp.cosigners(note, [w1.key.public_only()]) == ["w1.test"]
        # only what is served is kept
        assert LogCheckpoint.select().count() == LogCosignature.select().count() == 1

        # the state of the log as the server knew it lost: the witness's 409 says its size,
        # and the proof from that size is sent once more
        LogWitness.update(size=0).execute()
        begin_trail(client, trail="release-2")
        assert submit_due(submitter) == ["w1.test"] and w1.requests == 4
        assert state(w1).size == head_size() and state(w1).failures == 0

        shown = client.get(f"{BASE}/witnesses", headers=H).json
        assert shown["size"] == shown["served_size"] == head_size() and shown["quorum"] == 1
        [listed] = shown["witnesses"]
        assert listed["name"] == "w1.test" and listed["key"] == w1.key.vkey
        assert listed["cosigned_size"] == head_size() and listed["behind"] == 0
        assert listed["on_served_checkpoint"] is True and listed["refusals"] == 0
        assert abs(listed["cosigned_at"] - time.time()) < 60
        assert shown["checkpoint"] == client.get(f"{BASE}/checkpoint", headers=H).get_data(
            as_text=True)
        assert witnessing.witness_metrics(witnesses) == [
            ("acme", "w1.test", head_size(), listed["cosigned_at"], 0, 0)]


def test_a_package_carries_the_newest_cosigned_checkpoint_that_holds_its_entries(settings,
                                                                                  signer):
    """verify-package --witness-key passes a package made once the witnesses cosigned what it
    carries; one made before they did carries the log's checkpoint now, which it refuses."""
    with independent("w1.test", signer) as w1:
        witnesses = witnessing.parse_witnesses([f"{w1.key.vkey}={w1.url}/"])
        client = app_of(settings, witnesses)
        submitter = witnessing.Submitter(witnesses, signer, signer.name)
        create_flow(client)
        begin_trail(client)
        package = "/api/v2/trails/acme/payments/release-1/audit_package"
        witness = cosignatures.parse_witness_key(w1.key.vkey)

        early = client.get(package, headers=H).data
        assert check_package(early, signer.verifier).problems == []
        assert "witness" in " ".join(check_package(early, signer.verifier, [witness], 1).problems)

        submit_due(submitter)
        cosigned = head_size()
        create_flow(client, "other")  # a later entry, not yet cosigned, not in the package
        late = client.get(package, headers=H).data
        assert check_package(late, signer.verifier, [witness], 1).problems == []
        with tarfile.open(fileobj=io.BytesIO(late)) as tar:
            carried = json.load(tar.extractfile("transparency/entries.json"))  # type: ignore[arg-type]
        assert carried["tree_size"] == cosigned < head_size()


def test_verify_log_names_a_log_that_does_not_extend_what_witnesses_cosigned(settings, signer):
    with independent("w1.test", signer) as w1:
        witnesses = witnessing.parse_witnesses([f"{w1.key.vkey}={w1.url}/"])
        create_flow(app_of(settings, witnesses))
        submit_due(witnessing.Submitter(witnesses, signer, signer.name))
        org = Organization.get(Organization.name == "acme")
        assert witnessing.unextended(org) == []
        # the log's tree rewritten (its root now another): what w1 cosigned no longer holds
        head = LogHead.get()
        LogHead.update(frontier=[os.urandom(32).hex(), *head.frontier[1:]]).execute()
        [found] = witnessing.unextended(org)
        assert found.startswith(f"the log is not an extension of the checkpoint witnesses "
                                f"cosigned ({head.size} entries): ")


def test_a_witness_down_delays_only_itself_and_a_rewritten_log_is_refused(settings, signer,
                                                                        caplog):
    with independent("w1.test", signer) as w1, independent("w2.test", signer) as w2:
        down = f"http://127.0.0.1:{free_port()}/witness"
        witnesses = witnessing.parse_witnesses(
            [f"{w1.key.vkey}={w1.url}", f"{w2.key.vkey}={w2.url}",
             f"{c2sp.new_key('w3.test', c2sp.WITNESS_KEY).vkey}={down}"], 2)
        client = app_of(settings, witnesses)
        submitter = witnessing.Submitter(witnesses, signer, signer.name)
        create_flow(client)
        assert submit_due(submitter) == ["w1.test", "w2.test", "w3.test"]
        note = client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True)
        assert c2sp.cosigners(note, [w1.key.public_only(), w2.key.public_only()]) == [
            "w1.test", "w2.test"]
        w3 = LogWitness.get(LogWitness.witness == witnesses.each[2].key)
        assert w3.failures == 1 and w3.problem.startswith("not reached") and w3.size == 0
        assert submit_due(submitter) == []  # it waits out its backoff, the others are done

        # the log rewritten under w1's feet: the proof from the tree it cosigned does not hold
        origin = f"{signer.name}/acme"
        w1.latest[origin] = (w1.latest[origin][0], os.urandom(32))
        begin_trail(client)
        with caplog.at_level(logging.ERROR):
            submit_due(submitter)
        assert state(w1).refusals == 1 and state(w1).problem.startswith("refused: the log's tree")
        assert "witness w1.test refuses the log of acme" in caplog.text
        # the quorum (2) is not met by the newest: the checkpoint both cosigned is still served
        served = client.get(f"{BASE}/checkpoint", headers=H).get_data(as_text=True)
        assert served == note and state(w2).size == head_size()

        # another tree at the size the witness cosigned: its 409 names that very size
        LogWitness.update(size=0).where(LogWitness.witness == w1.key.vkey).execute()
        w1.latest[origin] = (head_size(), os.urandom(32))
        submitter.once(LogWitness.get(LogWitness.witness == w1.key.vkey).organization_id,
                       witnesses.each[0], 0)
        assert state(w1).refusals == 2 and "another tree of" in state(w1).problem
        assert [row[5] for row in witnessing.witness_metrics(witnesses)] == [2, 0, 0]
        listed = client.get(f"{BASE}/witnesses", headers=H).json["witnesses"]
        assert [each["refusals"] for each in listed] == [2, 0, 0]
        assert [each["on_served_checkpoint"] for each in listed] == [True, True, False]
        assert listed[2]["behind"] == head_size() and listed[2]["failures"] == 1

        # the organization's page shows it all, and how to verify
        page = client.get("/acme", headers=H).get_data(as_text=True)
        log_part = page.split('<h2 id="log">', 1)[1]
        assert f"{head_size()} entries." in log_part
        assert "at least 2 of its witnesses cosigned" in log_part
        assert html.escape(served, quote=False) in log_part
        rows = re.findall(r"<tr><td>(w\d\.test)</td>(.*?)</tr>", log_part, re.S)
        assert [name for name, _ in rows] == ["w1.test", "w2.test", "w3.test"]
        assert "refused the log (2&times;)" in rows[0][1] and "another tree of" in rows[0][1]
        assert "up to date" in rows[1][1] and "(on the served checkpoint)" in rows[1][1]
        assert "failing" in rows[2][1] and "not reached" in rows[2][1]
        assert "nothing yet" in rows[2][1]
        assert signer.vkey in log_part and w1.key.vkey in log_part
        assert "http://localhost/api/v2/transparency/acme/public-key &gt; log.pub" in log_part
        assert "evidence-server verify-package PACKAGE.tar.gz --public-key log.pub" in log_part


def test_the_grpc_door_answers_the_witnesses_typed(db):
    """Without witnesses: none listed, the log's own checkpoint served."""
    with grpc_channel(db) as channel:
        answer = pb_grpc.TransparencyServiceStub(channel).GetLogWitnesses(
            pb.GetLogWitnessesRequest(org="acme"), metadata=[("authorization", H["Authorization"])])
    assert isinstance(answer, pb.LogWitnesses)
    assert (answer.quorum, answer.served_size, list(answer.witnesses)) == (0, 0, [])
    origin, size = answer.checkpoint.split("\n")[:2]
    assert origin.endswith("/acme") and size == str(answer.size)


@pytest.mark.parametrize("spec,quorum,says", [
    ("nonsense", 0, "expected VKEY=URL"),
    ("w+00000000+AQ==", 0, "expected VKEY=URL"),
    ("w+00000000+AQ==@http://127.0.0.1", 0, "expected VKEY=URL"),
    ("w+00000000+AQ===http://127.0.0.1", 0, "type byte 0x04"),
    ("{key}=ftp://127.0.0.1", 0, "expected VKEY=URL"),
    ("{key}=http://127.0.0.1/w?x=1", 0, "no query"),
    ("{key}=http://127.0.0.1/w", 2, "between 1 and the number of witnesses (1)"),
])
def test_a_malformed_witness_is_refused_at_start(spec, quorum, says, capsys, tmp_path):
    key = c2sp.new_key("w.test", c2sp.WITNESS_KEY).vkey
    with pytest.raises(witnessing.BadWitness, match=says.replace("(", r"\(").replace(")", r"\)")):
        witnessing.parse_witnesses([spec.format(key=key)], quorum)
    args = ["serve", "--database-url", f"sqlite:///{tmp_path}/x.db", "--witness",
            spec.format(key=key), *(["--witness-quorum", str(quorum)] if quorum else [])]
    assert cli.main(args) == cli.REFUSED
    assert says in capsys.readouterr().err
    assert not (tmp_path / "x.db").exists()  # refused before anything was made
    # nor does it leave its metrics directory (removed) to the servers a later test starts
    assert observability.MULTIPROC_ENV not in os.environ
