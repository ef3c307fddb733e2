"""The independent implementation (c2sp.py) against the C2SP texts' examples and
transparency-dev/merkle's consistency probes (tests/transparency/vectors), and our own code against
it: two readings of the same specifications must agree byte for byte."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.c2sp import c2sp

# c2sp.org/signed-note, "Example".
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = (
    "This is an example message.\n\n"
    "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72"
    "IneyaQM=\n"
)
# c2sp.org/tlog-cosignature: the cosigned example checkpoint and its signed message.
COSIGNED_BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
COSIGNED_NOTE = (
    COSIGNED_BODY + "\n"
    "— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gG"
    "zGku9nTo+zyWE+xeMcTOAYQ8=\n"
    "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin"
    "1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)
# c2sp.org/tlog-witness: the example add-checkpoint request body.
WITNESS_REQUEST = (
    "old 20852014\n"
    "PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n"
    "jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=\n"
    "5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=\n"
    "/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=\n"
    "\n" + COSIGNED_NOTE.split("— witness")[0]
)
CONSISTENCY = Path(__file__).parents[1] / "transparency" / "vectors" / "consistency"


def test_the_signed_note_example_verifies_and_a_changed_text_does_not():
    key = c2sp.read_vkey(SPEC_VKEY)
    assert (key.key_type, key.vkey) == (c2sp.NOTE_KEY, SPEC_VKEY)
    assert c2sp.verify_note(SPEC_NOTE, key) == "This is an example message.\n"
    with pytest.raises(c2sp.Invalid):
        c2sp.verify_note(SPEC_NOTE.replace("example message", "example massage"), key)


def test_the_cosignature_example_line_carries_the_specs_timestamp():
    text, lines = c2sp.parse_note(COSIGNED_NOTE)
    assert text == COSIGNED_BODY
    witness = lines[1]
    assert (witness.name, len(witness.signature)) == ("witness.example.com/w1", 72)
    assert int.from_bytes(witness.signature[:8], "big") == 1679315147
    assert c2sp.cosigned_message(text, 1679315147) == (
        b"cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\n"
        b"CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    )


def test_the_witness_request_example_is_what_add_checkpoint_body_writes():
    checkpoint = WITNESS_REQUEST.split("\n\n", 1)[1]
    proof = [base64.b64decode(line) for line in WITNESS_REQUEST.split("\n")[1:5]]
    assert c2sp.add_checkpoint_body(20852014, proof, checkpoint).decode() == WITNESS_REQUEST


def test_witness_keys_are_type_0x04_and_cosignatures_verify():
    witness = c2sp.new_key("witness.example/w1", c2sp.WITNESS_KEY)
    assert c2sp.read_vkey(witness.vkey) == witness.public_only()
    assert c2sp.read_skey(witness.skey).vkey == witness.vkey
    line = c2sp.cosign(COSIGNED_BODY, witness, 1700000000)
    assert c2sp.verify_cosignature(COSIGNED_BODY, line, witness) == 1700000000
    assert c2sp.cosigners(COSIGNED_BODY + "\n" + line.text(), [witness]) == ["witness.example/w1"]
    with pytest.raises(c2sp.Invalid):
        c2sp.verify_cosignature(COSIGNED_BODY.replace("163", "164"), line, witness)


@pytest.mark.parametrize(
    "path", sorted(CONSISTENCY.rglob("*.json")), ids=lambda p: str(p.relative_to(CONSISTENCY))
)
def test_consistency_probe(path: Path):
    probe = json.loads(path.read_text())
    args = (
        probe["size1"],
        probe["size2"],
        base64.b64decode(probe["root1"] or ""),
        base64.b64decode(probe["root2"] or ""),
        [base64.b64decode(h) for h in probe["proof"] or []],
    )
    if probe["size1"] == 0 < probe["size2"]:
        # transparency-dev/merkle refuses any proof from the empty tree; tlog-witness takes an
        # empty one from size 0 (the empty tree is consistent with any tree), and so do we.
        c2sp.verify_consistency(0, args[1], c2sp.EMPTY, args[3], [])
        if args[4]:
            with pytest.raises(c2sp.Invalid):
                c2sp.verify_consistency(*args)
    elif probe["wantErr"]:
        with pytest.raises(c2sp.Invalid):
            c2sp.verify_consistency(*args)
    else:
        c2sp.verify_consistency(*args)


def test_made_consistency_proofs_verify_and_a_changed_hash_does_not():
    leaves = [c2sp.leaf_hash(bytes([n])) for n in range(20)]
    for second in range(1, 21):
        for first in range(second + 1):
            proof = c2sp.consistency_proof(first, leaves[:second])
            roots = c2sp.mth(leaves[:first]), c2sp.mth(leaves[:second])
            c2sp.verify_consistency(first, second, *roots, proof)
            for n in range(len(proof)):
                bad = [*proof[:n], bytes(32), *proof[n + 1 :]]
                with pytest.raises(c2sp.Invalid):
                    c2sp.verify_consistency(first, second, *roots, bad)


def test_our_cosignatures_and_the_independent_ones_agree():
    from evidence_grpc.domain.transparency import cosignatures, notes

    ours = cosignatures.generate_witness_signer("witness.example/ours")
    theirs = c2sp.new_key("witness.example/theirs", c2sp.WITNESS_KEY)
    assert c2sp.read_skey(ours.skey).vkey == ours.vkey
    assert cosignatures.parse_witness_signer(theirs.skey).vkey == theirs.vkey
    line = c2sp.cosign(COSIGNED_BODY, theirs, 1700000000)
    assert (
        cosignatures.signature_line(
            cosignatures.cosign(COSIGNED_BODY, cosignatures.parse_witness_signer(theirs.skey), 1700000000)
        )
        == line.text()
    )  # Ed25519 is deterministic
    note = (
        COSIGNED_BODY
        + "\n"
        + line.text()
        + cosignatures.signature_line(cosignatures.cosign(COSIGNED_BODY, ours, 1700000001))
    )
    assert c2sp.cosigners(note, [c2sp.read_vkey(ours.vkey), theirs]) == [
        "witness.example/ours",
        "witness.example/theirs",
    ]
    both = [cosignatures.parse_witness_key(theirs.vkey), ours.verifier]
    assert [each.name for each in cosignatures.cosigned_by(note, both)] == [
        "witness.example/theirs",
        "witness.example/ours",
    ]
    assert notes.split_note(note)[1][0] == notes.NoteSignature(line.name, line.id, line.signature)
