"""C2SP tlog-cosignature `cosignature/v1` (c2sp.org/tlog-cosignature): Ed25519 witness
cosignatures on checkpoints.

A witness key is a signed-note key of signature type 0x04:

- its verifier key `<name>+<key ID, 8 hex>+<base64(0x04 ‖ 32-byte public key)>`, the key ID
  being SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4];
- its signer key `PRIVATE+KEY+<name>+<key ID, 8 hex>+<base64(0x04 ‖ 32-byte seed)>` (notes.py's
  format with the witness type byte; the secret a witness keeps in its key file).

A cosignature is a note signature line `— <name> <base64(key ID ‖ u64 big-endian timestamp ‖
64-byte Ed25519 signature)>` over the message `cosignature/v1\\ntime <timestamp>\\n` followed by
the checkpoint's whole note text. It states that, at that time, this was the largest consistent
checkpoint of that origin the witness had seen. `cosign` returns a `notes.NoteSignature` (its
`signature` is the timestamped signature: timestamp ‖ Ed25519 signature); `signature_line`
writes it as the line a note carries."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from cryptography.exceptions import InvalidSignature

from evidence_grpc.domain.transparency.notes import (
    SIGNATURE_PREFIX,
    NoteError,
    NoteSignature,
    Signer,
    Verifier,
    _b64encode,
    _check_body,
    generate,
    key_hash,
    parse_key,
    parse_signer,
    split_note,
)

WITNESS_ALG = 0x04  # the signature type byte of Ed25519 cosignature/v1 keys
TIMESTAMP_SIZE = 8
ED25519_SIGNATURE_SIZE = 64
MAX_TIMESTAMP = (1 << 63) - 1
HEADER = "cosignature/v1\n"


def witness_key_id(name: str, public_key: bytes) -> bytes:
    """SHA-256(name ‖ 0x0A ‖ 0x04 ‖ public key)[:4]."""
    return key_hash(name, public_key, WITNESS_ALG)


def signed_message(body: str, timestamp: int) -> bytes:
    """`cosignature/v1\\ntime <timestamp>\\n` ‖ the checkpoint's note text."""
    _check_body(body)
    if not 0 <= timestamp <= MAX_TIMESTAMP:
        raise NoteError(f"a cosignature's timestamp is 0 to 2**63 - 1, got {timestamp}")
    return f"{HEADER}time {timestamp}\n{body}".encode()


@dataclass(frozen=True)
class WitnessVerifier(Verifier):
    """A witness's public key: its name, 4-byte key ID and Ed25519 public key (type 0x04)."""

    alg: ClassVar[int] = WITNESS_ALG
    kind: ClassVar[str] = "an Ed25519 cosignature/v1 key"

    def matches(self, signature: NoteSignature) -> bool:
        """The line is by this key (name and key ID), whether or not it verifies."""
        return signature.name == self.name and signature.key_id == self.key_id


@dataclass(frozen=True)
class WitnessSigner(Signer):
    """A witness's private key: its name, 4-byte key ID and Ed25519 private key (type 0x04)."""

    verifier_type: ClassVar[type[Verifier]] = WitnessVerifier

    @property
    def verifier(self) -> WitnessVerifier:
        return WitnessVerifier(self.name, self.key_id, self.private_key.public_key())


def parse_witness_key(vkey: str) -> WitnessVerifier:
    """The WitnessVerifier a `<name>+<key ID>+<base64(0x04 ‖ key)>` string names, its key ID
    checked against the name and key."""
    return parse_key(vkey.strip(), WitnessVerifier, "witness key")


def parse_witness_signer(text: str) -> WitnessSigner:
    """The WitnessSigner a `PRIVATE+KEY+<name>+<key ID>+<base64(0x04 ‖ seed)>` string names."""
    return parse_signer(text.strip(), WitnessSigner, "witness signer key")


def generate_witness_signer(name: str) -> WitnessSigner:
    """A new witness key named name (keep `.skey` secret, publish `.vkey`)."""
    return generate(name, WitnessSigner)


def cosign(body: str, signer: WitnessSigner, timestamp: int) -> NoteSignature:
    """The cosignature on a checkpoint's note text at `timestamp` (POSIX seconds); its
    `signature` is the 72-byte timestamped signature."""
    message = signed_message(body, timestamp)
    return NoteSignature(
        signer.name,
        signer.key_id,
        timestamp.to_bytes(TIMESTAMP_SIZE, "big") + signer.private_key.sign(message),
    )


def signature_line(signature: NoteSignature) -> str:
    """`— <name> <base64(key ID ‖ signature)>\\n`, as a note (or a witness's answer) carries it."""
    return f"{SIGNATURE_PREFIX}{signature.name} {_b64encode(signature.key_id + signature.signature)}\n"


def verify_cosignature(body: str, signature: NoteSignature, verifier: WitnessVerifier) -> int:
    """The timestamp of a verified cosignature by `verifier` on the note text; NoteError if the
    line is not that key's, is malformed, or does not verify."""
    if not verifier.matches(signature):
        raise NoteError(
            f"the signature by {signature.name} ({signature.key_id.hex()}) is not {verifier.name}'s"
        )
    if len(signature.signature) != TIMESTAMP_SIZE + ED25519_SIGNATURE_SIZE:
        raise NoteError(f"the cosignature by {signature.name} is not a timestamp and an Ed25519 signature")
    timestamp = int.from_bytes(signature.signature[:TIMESTAMP_SIZE], "big")
    message = signed_message(body, timestamp)
    try:
        verifier.public_key.verify(signature.signature[TIMESTAMP_SIZE:], message)
    except InvalidSignature:
        raise NoteError(
            f"the cosignature by {signature.name} ({signature.key_id.hex()}) does not verify"
        ) from None
    return timestamp


def cosigned_by(note: str | bytes, verifiers: Iterable[WitnessVerifier]) -> list[WitnessVerifier]:
    """The witnesses among `verifiers` whose valid cosignature the note carries (in the order
    given). Lines by other keys are ignored; a line that names one of the keys but does not
    verify is a NoteError (the note is malformed, as signed-note says)."""
    body, signatures = split_note(note)
    found: list[WitnessVerifier] = []
    for verifier in verifiers:
        mine = [each for each in signatures if verifier.matches(each)]
        for each in mine:
            verify_cosignature(body, each, verifier)
        if mine and not any(each.matches(mine[0]) for each in found):
            found.append(verifier)
    return found


def missing_cosigners(
    note: str | bytes, verifiers: Iterable[WitnessVerifier], quorum: int
) -> list[WitnessVerifier]:
    """The witnesses whose cosignatures the note lacks, if it has fewer than `quorum` of them;
    [] when the quorum is met. NoteError as `cosigned_by`."""
    wanted = list({(each.name, each.key_id): each for each in verifiers}.values())
    if not 0 <= quorum <= len(wanted):
        raise NoteError(f"a quorum of {quorum} out of {len(wanted)} witness keys cannot be met")
    found = cosigned_by(note, wanted)
    if len(found) >= quorum:
        return []
    return [each for each in wanted if each not in found]


def quorum_shortfall(note: str | bytes, verifiers: Iterable[WitnessVerifier], quorum: int) -> str:
    """"" when the note carries valid cosignatures of at least `quorum` of the witnesses; else
    what is wrong, naming the witnesses whose cosignatures are missing."""
    wanted = list(verifiers)
    try:
        missing = missing_cosigners(note, wanted, quorum)
    except NoteError as error:
        return f"the checkpoint's witness cosignatures do not verify: {error}"
    if not missing:
        return ""
    have = len({(each.name, each.key_id) for each in wanted}) - len(missing)
    names = ", ".join(f"{each.name}+{each.key_id.hex()}" for each in missing)
    return f"the checkpoint has {have} of the {quorum} witness cosignatures it needs; missing: {names}"
