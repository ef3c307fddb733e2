"""Signed notes and checkpoints against the published examples of C2SP signed-note and Go's
golang.org/x/mod/sumdb/note documentation (copied here as data)."""

from __future__ import annotations

import base64

import pytest

from evidence_grpc.domain.transparency import notes
from evidence_grpc.domain.transparency.notes import NoteError

# c2sp.org/signed-note, "Verifier keys" / "Example".
SPEC_VKEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_TEXT = "This is an example message.\n"
SPEC_NOTE = (
    SPEC_TEXT + "\n"
    "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3m"
    "FXmRKuwHjG1Yu72IneyaQM=\n"
)

# golang.org/x/mod/sumdb/note, package documentation: a signer key, its verifier key, and the note
# that signer key makes of the text (Ed25519 is deterministic, so signing reproduces it exactly).
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_TEXT = (
    "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
)
GO_NOTE = (
    GO_TEXT + "\n"
    "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotp"
    "RZb6KE6RyyBwJnAM=\n"
)


def test_the_spec_example_verifies():
    verifier = notes.parse_verifier_key(SPEC_VKEY)
    assert (verifier.name, verifier.key_id.hex()) == ("example.com/foo", "530d903a")
    assert verifier.vkey == SPEC_VKEY
    assert notes.verify_note(SPEC_NOTE, verifier) == SPEC_TEXT
    assert notes.verify_note(SPEC_NOTE.encode(), verifier) == SPEC_TEXT


def test_the_go_example_signs_and_verifies_byte_for_byte():
    signer = notes.parse_signer_key(GO_SKEY)
    assert signer.skey == GO_SKEY
    assert signer.vkey == GO_VKEY
    assert notes.key_hash("PeterNeumann", signer.verifier.public_key_bytes).hex() == "c74f20a3"
    assert notes.sign_note(GO_TEXT, signer) == GO_NOTE
    assert notes.verify_note(GO_NOTE, notes.parse_verifier_key(GO_VKEY)) == GO_TEXT


def _flip_byte(text: str, position: int) -> bytes:
    raw = bytearray(text.encode())
    raw[position] ^= 0x01
    return bytes(raw)


@pytest.mark.parametrize("position", [0, 5, len(SPEC_TEXT) - 2])
def test_a_flipped_byte_in_the_text_fails(position: int):
    with pytest.raises(NoteError, match="does not verify"):
        notes.verify_note(_flip_byte(SPEC_NOTE, position), notes.parse_verifier_key(SPEC_VKEY))


def test_a_flipped_byte_in_the_signature_fails():
    line_start = SPEC_NOTE.index("—")
    signature = SPEC_NOTE[line_start:].split(" ")[2].strip()
    raw = bytearray(base64.b64decode(signature))
    for position in (4, 20, len(raw) - 1):  # past the key ID
        raw[position] ^= 0x80
        bad = SPEC_NOTE.replace(signature, base64.b64encode(bytes(raw)).decode())
        raw[position] ^= 0x80
        with pytest.raises(NoteError, match="does not verify"):
            notes.verify_note(bad, notes.parse_verifier_key(SPEC_VKEY))


def test_another_key_name_or_key_id_is_an_unknown_key():
    spec = notes.parse_verifier_key(SPEC_VKEY)
    # same key ID, another name; same name, another key ID; another key with the right name
    renamed = notes.Verifier("example.com/bar", spec.key_id, spec.public_key)
    rekeyed = notes.Verifier(spec.name, bytes.fromhex("530d903b"), spec.public_key)
    other = notes.generate_signer("example.com/foo").verifier
    for verifier in (renamed, rekeyed, other):
        with pytest.raises(NoteError, match="not signed by a known key"):
            notes.verify_note(SPEC_NOTE, verifier)
    # the note's own line naming another key is unknown to the right verifier
    with pytest.raises(NoteError, match="not signed by a known key"):
        notes.verify_note(SPEC_NOTE.replace("— example.com/foo", "— example.com/fop"), spec)


def test_a_known_key_whose_public_key_differs_fails():
    spec = notes.parse_verifier_key(SPEC_VKEY)
    impostor = notes.Verifier(spec.name, spec.key_id, notes.generate_signer("x").verifier.public_key)
    with pytest.raises(NoteError, match="does not verify"):
        notes.verify_note(SPEC_NOTE, impostor)


def test_unknown_signatures_are_ignored_and_any_known_one_suffices():
    alice, bob, carol = (notes.generate_signer(f"example.com/{n}") for n in ("alice", "bob", "carol"))
    text = notes.sign_note("hello\n\nworld\n", alice, bob)
    assert text.startswith("hello\n\nworld\n\n— example.com/alice ")
    assert notes.verify_note(text, bob.verifier) == "hello\n\nworld\n"
    assert notes.verify_note(text, carol.verifier, alice.verifier) == "hello\n\nworld\n"
    with pytest.raises(NoteError, match="not signed by a known key"):
        notes.verify_note(text, carol.verifier)


def test_sign_and_verify_round_trip_with_key_strings():
    signer = notes.generate_signer("log.example/evidence")
    again = notes.parse_signer_key(signer.skey)
    verifier = notes.parse_verifier_key(signer.vkey)
    assert (again.name, again.key_id, again.vkey) == (signer.name, signer.key_id, signer.vkey)
    assert signer.skey.startswith(f"PRIVATE+KEY+log.example/evidence+{signer.key_id.hex()}+")
    body = notes.checkpoint_body("log.example/evidence", 3, bytes(range(32)))
    assert notes.verify_note(notes.sign_note(body, again), verifier) == body
    assert "PRIVATE" not in repr(signer) and "private_key" not in repr(signer)


def test_keys_whose_base64_holds_a_plus_sign():
    signers = [notes.generate_signer("example.com/plus") for _ in range(64)]
    plus = [s for s in signers if "+" in s.vkey.split("+", 2)[2]]
    assert plus
    for signer in plus:
        assert notes.parse_verifier_key(signer.vkey) == signer.verifier
        assert notes.parse_signer_key(signer.skey).vkey == signer.vkey


@pytest.mark.parametrize(
    "key",
    [
        "example.com/foo+530d903b+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # wrong key ID
        "example.com/fop+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # wrong name
        "example.com/foo+530D903A+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # not lowercase hex
        "example.com/foo+530d903+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
        "example.com/foo+530d903a+AukyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",  # type byte 0x02
        "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2",  # not base64
        "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv",  # short key
        "example.com/foo+530d903a",
        "example com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
        "+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k",
        "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k+",
    ],
)
def test_bad_verifier_keys(key: str):
    with pytest.raises(NoteError):
        notes.parse_verifier_key(key)


@pytest.mark.parametrize(
    "key",
    [
        GO_SKEY.replace("c74f20a3", "c74f20a4"),
        GO_SKEY.replace("PeterNeumann", "PeterNeuman"),
        GO_SKEY.replace("PRIVATE+KEY", "PRIVATE+KEYS"),
        GO_SKEY.replace("+AYEK", "+AoEK"),  # type byte not 0x01
        GO_SKEY[:-4],
        GO_VKEY,
    ],
)
def test_bad_signer_keys(key: str):
    with pytest.raises(NoteError):
        notes.parse_signer_key(key)


@pytest.mark.parametrize("name", ["", "a b", "a+b", "a\u00a0b", "a\u3000b", "a\tb", "a\nb", "a\x01b"])
def test_bad_key_names(name: str):
    with pytest.raises(NoteError):
        notes.generate_signer(name)
    with pytest.raises(NoteError):
        notes.verifier_key(name, bytes(32))


GOOD_LINE = SPEC_NOTE.split("\n")[-2]


@pytest.mark.parametrize(
    "text",
    [
        SPEC_NOTE[:-1],  # no final newline
        SPEC_TEXT + GOOD_LINE + "\n",  # no blank line
        SPEC_TEXT + "\n",  # no signatures
        SPEC_NOTE + "\n",  # blank line after the signatures
        SPEC_TEXT + "\n" + GOOD_LINE.replace("—", "-") + "\n",  # hyphen, not em dash
        SPEC_TEXT + "\n" + GOOD_LINE.replace("— ", "—") + "\n",
        SPEC_TEXT + "\n" + GOOD_LINE.replace("example.com/foo", "example.com/foo ") + "\n",
        SPEC_TEXT + "\n" + GOOD_LINE.replace("example.com/foo", "example.com+foo") + "\n",
        SPEC_TEXT + "\n" + GOOD_LINE.replace("example.com/foo", "") + "\n",
        SPEC_TEXT + "\n" + GOOD_LINE[:-8] + "!!!!====\n",  # not base64
        SPEC_TEXT + "\n" + GOOD_LINE[:18] + "AAAAAA==\n",  # too short for a key ID and signature
        SPEC_TEXT + "\n" + GOOD_LINE + " \n",
        "This is an\texample message.\n\n" + GOOD_LINE + "\n",  # a tab
        "This is an\rexample message.\n\n" + GOOD_LINE + "\n",
        "This is an example message.\x00\n\n" + GOOD_LINE + "\n",
        "This is an \ud800 message.\n\n" + GOOD_LINE + "\n",  # a lone surrogate
        SPEC_NOTE.encode() + b"\xff",  # not UTF-8
        b"This is an \xc3 example message.\n\n" + GOOD_LINE.encode() + b"\n",
        SPEC_TEXT + "\n" + (GOOD_LINE + "\n") * (notes.MAX_SIGNATURES + 1),
    ],
)
def test_malformed_notes(text: str | bytes):
    with pytest.raises(NoteError):
        notes.verify_note(text, notes.parse_verifier_key(SPEC_VKEY))


def test_the_text_is_split_at_the_last_blank_line():
    body, signatures = notes.split_note("a\n\nb\n\n" + GOOD_LINE + "\n")
    assert body == "a\n\nb\n"
    assert [s.name for s in signatures] == ["example.com/foo"]
    assert notes.split_note("\n\n" + GOOD_LINE + "\n")[0] == "\n"


def test_up_to_the_limit_of_signatures_is_accepted():
    verifier = notes.parse_verifier_key(SPEC_VKEY)
    many = SPEC_TEXT + "\n" + (GOOD_LINE + "\n") * notes.MAX_SIGNATURES
    assert notes.verify_note(many, verifier) == SPEC_TEXT


@pytest.mark.parametrize("body", ["no newline", "tab\there\n", "nul\x00\n"])
def test_bad_bodies_are_not_signed(body: str):
    with pytest.raises(NoteError):
        notes.sign_note(body, notes.generate_signer("example.com/a"))


# --- Checkpoints -------------------------------------------------------------------------


ROOT = bytes(range(32))


def test_checkpoint_body_format():
    assert notes.checkpoint_body("example.com/log42", 20852163, ROOT) == (
        "example.com/log42\n20852163\n" + base64.b64encode(ROOT).decode() + "\n"
    )
    assert notes.checkpoint_body("o", 0, ROOT, ["ext one", "ext two"]).endswith("\next one\next two\n")
    parsed = notes.parse_checkpoint(notes.checkpoint_body("o", 0, ROOT, ["ext one"]))
    assert parsed == notes.Checkpoint("o", 0, ROOT, ("ext one",))
    assert parsed[:3] == ("o", 0, ROOT)


def test_the_spec_checkpoint_parses():
    body = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    origin, size, root, extensions = notes.parse_checkpoint(body)
    assert (origin, size, extensions) == ("example.com/behind-the-sofa", 20852163, ())
    assert root == base64.b64decode("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=")
    assert notes.checkpoint_body(origin, size, root) == body


def test_signed_checkpoint_round_trip():
    signer = notes.generate_signer("log.example/evidence")
    text = notes.sign_note(notes.checkpoint_body("log.example/evidence", 7, ROOT), signer)
    assert notes.open_checkpoint(text, signer.verifier) == notes.Checkpoint("log.example/evidence", 7, ROOT)
    with pytest.raises(NoteError):
        notes.open_checkpoint(text.replace("\n7\n", "\n8\n"), signer.verifier)


R64 = base64.b64encode(ROOT).decode()


@pytest.mark.parametrize(
    "body",
    [
        f"o\n1\n{R64}",  # no final newline
        "o\n1\n",
        f"\n1\n{R64}\n",  # empty origin
        f"o\n01\n{R64}\n",  # leading zero
        f"o\n-1\n{R64}\n",
        f"o\n+1\n{R64}\n",
        f"o\n1_000\n{R64}\n",
        f"o\n١\n{R64}\n",  # a non-ASCII digit
        f"o\n 1\n{R64}\n",
        f"o\n18446744073709551616\n{R64}\n",  # 2**64
        f"o\n1\n{R64[:-4]}\n",  # 29 bytes
        f"o\n1\n{base64.b64encode(ROOT + b'x').decode()}\n",
        f"o\n1\n{R64.replace('=', '')}\n",  # unpadded
        f"o\n1\n{R64}\n\n",  # empty extension line
        f"o\n1\n{R64}\nok\n\nno\n",
        f"o\x07\n1\n{R64}\n",
    ],
)
def test_malformed_checkpoints(body: str):
    with pytest.raises(NoteError):
        notes.parse_checkpoint(body)


@pytest.mark.parametrize(
    ("origin", "size", "root", "extensions"),
    [
        ("", 1, ROOT, ()),
        ("a\nb", 1, ROOT, ()),
        ("o", -1, ROOT, ()),
        ("o", 2**64, ROOT, ()),
        ("o", 1, ROOT[:31], ()),
        ("o", 1, ROOT, ("",)),
        ("o", 1, ROOT, ("a\nb",)),
    ],
)
def test_bad_checkpoint_fields(origin: str, size: int, root: bytes, extensions: tuple[str, ...]):
    with pytest.raises(NoteError):
        notes.checkpoint_body(origin, size, root, extensions)
