"""cosignature/v1 (c2sp.org/tlog-cosignature): witness keys, cosigning, verifying, quorums."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence_grpc.domain.transparency import cosignatures, notes
from evidence_grpc.domain.transparency.cosignatures import NoteError

# c2sp.org/tlog-cosignature: the example checkpoint, its signed message, and a cosigned note
# whose witness line carries the timestamp of that message.
SPEC_BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
SPEC_MESSAGE = "cosignature/v1\ntime 1679315147\n" + SPEC_BODY
SPEC_NOTE = (
    SPEC_BODY + "\n"
    "— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gG"
    "zGku9nTo+zyWE+xeMcTOAYQ8=\n"
    "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin"
    "1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)
# The seed of golang.org/x/mod/sumdb/note's example key, as a witness key (type 0x04).
SEED = base64.b64decode("AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz")[1:]
SKEY = "PRIVATE+KEY+witness.example/w1+" + "{id}+" + base64.b64encode(b"\x04" + SEED).decode()


def _signer() -> cosignatures.WitnessSigner:
    public = Ed25519PrivateKey.from_private_bytes(SEED).public_key()
    key_id = cosignatures.witness_key_id("witness.example/w1", notes._raw_public_key(public))
    return cosignatures.parse_witness_signer(SKEY.format(id=key_id.hex()))


def test_the_spec_example_line_holds_its_timestamp_and_message():
    _body, signatures = notes.split_note(SPEC_NOTE)
    line = signatures[1]
    assert (line.name, line.key_id.hex(), len(line.signature)) == ("witness.example.com/w1", "8d66cf3f", 72)
    assert int.from_bytes(line.signature[:8], "big") == 1679315147
    assert cosignatures.signed_message(SPEC_BODY, 1679315147) == SPEC_MESSAGE.encode()


def test_key_strings_round_trip_and_key_ids_are_type_0x04():
    signer = _signer()
    assert cosignatures.parse_witness_signer(signer.skey).skey == signer.skey
    verifier = cosignatures.parse_witness_key(signer.vkey)
    assert verifier == signer.verifier
    name, hex_id, encoded = signer.vkey.split("+", 2)
    assert base64.b64decode(encoded)[0] == 0x04
    # Not the note key ID of the same name and key (type 0x01): the two never collide.
    assert hex_id != notes.key_hash(name, base64.b64decode(encoded)[1:]).hex()
    with pytest.raises(NoteError, match="0x04"):
        cosignatures.parse_witness_key(notes.generate_signer("a.example/log").vkey)
    with pytest.raises(NoteError, match="not its name"):
        cosignatures.parse_witness_key(signer.vkey.replace("w1", "w2", 1))


def test_cosign_then_verify_and_tampering_fails():
    signer = _signer()
    line = cosignatures.cosign(SPEC_BODY, signer, 1700000000)
    assert cosignatures.verify_cosignature(SPEC_BODY, line, signer.verifier) == 1700000000
    text = cosignatures.signature_line(line)
    assert text.startswith("— witness.example/w1 ")
    assert notes.split_note(SPEC_BODY + "\n" + text)[1] == [line]
    with pytest.raises(NoteError, match="does not verify"):
        cosignatures.verify_cosignature(SPEC_BODY.replace("163", "164"), line, signer.verifier)
    later = line._replace(signature=(1700000001).to_bytes(8, "big") + line.signature[8:])
    with pytest.raises(NoteError, match="does not verify"):
        cosignatures.verify_cosignature(SPEC_BODY, later, signer.verifier)
    with pytest.raises(NoteError, match="not"):
        cosignatures.verify_cosignature(SPEC_BODY, line, cosignatures.generate_witness_signer("w1").verifier)


def test_quorum_counts_only_valid_cosignatures_of_the_given_keys():
    log = notes.generate_signer("log.example/a")
    one, two, three = (cosignatures.generate_witness_signer(f"w{n}.example") for n in (1, 2, 3))
    body = notes.checkpoint_body("log.example/a", 3, bytes(32))
    note = notes.sign_note(body, log) + "".join(
        cosignatures.signature_line(cosignatures.cosign(body, each, 1700000000)) for each in (one, two)
    )
    verifiers = [one.verifier, two.verifier, three.verifier]
    assert cosignatures.cosigned_by(note, verifiers) == [one.verifier, two.verifier]
    assert cosignatures.missing_cosigners(note, verifiers, 2) == []
    assert cosignatures.missing_cosigners(note, verifiers, 3) == [three.verifier]
    with pytest.raises(NoteError, match="cannot be met"):
        cosignatures.missing_cosigners(note, verifiers, 4)
    forged = note.replace(note.splitlines()[-1][-10:], "AAAAAAAA==")
    with pytest.raises(NoteError, match="w2.example .* does not verify"):
        cosignatures.cosigned_by(forged, verifiers)
