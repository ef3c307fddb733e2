"""An independent, small implementation of the C2SP texts the transparency log and its witnesses
speak, written from the specifications alone (it imports nothing from evidence_grpc, only the
standard library and `cryptography`), so tests can check our code against a second reading:

- c2sp.org/signed-note: notes, Ed25519 note keys (type 0x01), verifier and signer key strings;
- c2sp.org/tlog-cosignature: `cosignature/v1` Ed25519 witness keys (type 0x04), cosign, verify;
- c2sp.org/tlog-checkpoint: checkpoint text;
- RFC 9162 §2.1: leaf and node hashes, tree roots, inclusion and consistency proofs;
- c2sp.org/tlog-witness: the add-checkpoint request body, and a tiny in-memory `Log` that makes
  checkpoints and proofs to submit."""

from __future__ import annotations

import base64
import hashlib
import struct
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

NOTE_KEY = 0x01
WITNESS_KEY = 0x04
DASH = "\u2014"


class Invalid(Exception):
    """Something does not parse or does not verify."""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except ValueError as error:
        raise Invalid(f"bad base64 {text!r}") from error


# --- keys -----------------------------------------------------------------------------------


def key_id(name: str, key_type: int, public: bytes) -> bytes:
    return hashlib.sha256(name.encode() + b"\n" + bytes([key_type]) + public).digest()[:4]


@dataclass(frozen=True)
class Key:
    """A named Ed25519 key of a signature type: NOTE_KEY (note signer) or WITNESS_KEY."""

    name: str
    key_type: int
    public: bytes
    private: Ed25519PrivateKey | None = field(default=None, repr=False, compare=False)

    @property
    def id(self) -> bytes:
        return key_id(self.name, self.key_type, self.public)

    @property
    def vkey(self) -> str:
        return f"{self.name}+{self.id.hex()}+{b64(bytes([self.key_type]) + self.public)}"

    @property
    def skey(self) -> str:
        assert self.private is not None
        seed = self.private.private_bytes_raw()
        return f"PRIVATE+KEY+{self.name}+{self.id.hex()}+{b64(bytes([self.key_type]) + seed)}"

    def public_only(self) -> Key:
        return Key(self.name, self.key_type, self.public)

    def sign_raw(self, message: bytes) -> bytes:
        assert self.private is not None, "a public key cannot sign"
        return self.private.sign(message)

    def verify_raw(self, message: bytes, signature: bytes) -> bool:
        try:
            Ed25519PublicKey.from_public_bytes(self.public).verify(signature, message)
        except InvalidSignature:
            return False
        return True


def new_key(name: str, key_type: int = NOTE_KEY, seed: bytes | None = None) -> Key:
    private = Ed25519PrivateKey.from_private_bytes(seed) if seed else Ed25519PrivateKey.generate()
    return Key(name, key_type, private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw), private)


def read_vkey(text: str) -> Key:
    name, hex_id, material = text.strip().split("+", 2)
    raw = unb64(material)
    if len(raw) != 33 or raw[0] not in (NOTE_KEY, WITNESS_KEY):
        raise Invalid(f"not an Ed25519 note or witness key: {text!r}")
    key = Key(name, raw[0], raw[1:])
    if key.id.hex() != hex_id:
        raise Invalid(f"key ID {hex_id} does not match {name}")
    return key


def read_skey(text: str) -> Key:
    private, plus_key, name, hex_id, material = text.strip().split("+", 4)
    raw = unb64(material)
    if (private, plus_key) != ("PRIVATE", "KEY") or len(raw) != 33:
        raise Invalid("not a signer key")
    key = new_key(name, raw[0], raw[1:])
    if key.id.hex() != hex_id:
        raise Invalid(f"key ID {hex_id} does not match {name}")
    return key


# --- signed notes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One signature line of a note."""

    name: str
    id: bytes
    signature: bytes

    def text(self) -> str:
        return f"{DASH} {self.name} {b64(self.id + self.signature)}\n"


def parse_note(note: str) -> tuple[str, list[Line]]:
    """(text, signature lines), unverified."""
    cut = note.rfind("\n\n")
    if cut < 0 or not note.endswith("\n"):
        raise Invalid("not a signed note")
    lines = []
    for row in note[cut + 2 : -1].split("\n"):
        dash, _, rest = row.partition(" ")
        name, _, sig = rest.partition(" ")
        raw = unb64(sig)
        if dash != DASH or not name or len(raw) < 5:
            raise Invalid(f"bad signature line {row!r}")
        lines.append(Line(name, raw[:4], raw[4:]))
    return note[: cut + 1], lines


def note_line(text: str, key: Key) -> Line:
    """The note signature (type 0x01) of key on text."""
    return Line(key.name, key.id, key.sign_raw(text.encode()))


def sign_note(text: str, *keys: Key) -> str:
    return text + "\n" + "".join(note_line(text, key).text() for key in keys)


def verify_note(note: str, key: Key) -> str:
    """The text, if key (a note key) signed it."""
    text, lines = parse_note(note)
    for line in lines:
        if (line.name, line.id) == (key.name, key.id):
            if not key.verify_raw(text.encode(), line.signature):
                raise Invalid(f"the signature of {key.name} does not verify")
            return text
    raise Invalid(f"no signature by {key.name}")


# --- cosignatures ---------------------------------------------------------------------------


def cosigned_message(text: str, timestamp: int) -> bytes:
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosign(text: str, witness: Key, timestamp: int) -> Line:
    """A cosignature/v1 line of a witness key (type 0x04) on a checkpoint's text."""
    assert witness.key_type == WITNESS_KEY
    signed = struct.pack(">Q", timestamp) + witness.sign_raw(cosigned_message(text, timestamp))
    return Line(witness.name, witness.id, signed)


def verify_cosignature(text: str, line: Line, witness: Key) -> int:
    """The timestamp of a valid cosignature by witness on text."""
    if (line.name, line.id) != (witness.name, witness.id) or len(line.signature) != 72:
        raise Invalid(f"not a cosignature by {witness.name}")
    (timestamp,) = struct.unpack(">Q", line.signature[:8])
    if not witness.verify_raw(cosigned_message(text, timestamp), line.signature[8:]):
        raise Invalid(f"the cosignature of {witness.name} does not verify")
    return int(timestamp)


def cosigners(note: str, witnesses: list[Key]) -> list[str]:
    """Names of the witnesses with a valid cosignature on the note."""
    text, lines = parse_note(note)
    found = []
    for witness in witnesses:
        for line in lines:
            if (line.name, line.id) == (witness.name, witness.id):
                verify_cosignature(text, line, witness)
                found.append(witness.name)
                break
    return found


# --- checkpoints and the Merkle tree --------------------------------------------------------


def checkpoint_text(origin: str, size: int, root: bytes) -> str:
    return f"{origin}\n{size}\n{b64(root)}\n"


def read_checkpoint(text: str) -> tuple[str, int, bytes]:
    origin, size, root, *_ = text.split("\n")
    return origin, int(size), unb64(root)


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _k(n: int) -> int:
    """The largest power of two smaller than n."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


EMPTY = hashlib.sha256(b"").digest()


def mth(leaves: list[bytes]) -> bytes:
    """MTH(D[n]) over leaf hashes."""
    if not leaves:
        return EMPTY
    if len(leaves) == 1:
        return leaves[0]
    k = _k(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def inclusion_proof(index: int, leaves: list[bytes]) -> list[bytes]:
    """PATH(m, D[n])."""
    if len(leaves) <= 1:
        return []
    k = _k(len(leaves))
    if index < k:
        return [*inclusion_proof(index, leaves[:k]), mth(leaves[k:])]
    return [*inclusion_proof(index - k, leaves[k:]), mth(leaves[:k])]


def consistency_proof(m: int, leaves: list[bytes]) -> list[bytes]:
    """PROOF(m, D[n]) of RFC 9162 §2.1.4.1 (empty when m is 0 or n)."""
    if m == 0 or m == len(leaves):
        return []

    def subproof(m: int, d: list[bytes], whole: bool) -> list[bytes]:
        if m == len(d):
            return [] if whole else [mth(d)]
        k = _k(len(d))
        if m <= k:
            return [*subproof(m, d[:k], whole), mth(d[k:])]
        return [*subproof(m - k, d[k:], False), mth(d[:k])]

    return subproof(m, leaves, True)


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: list[bytes]
) -> None:
    """RFC 9162 §2.1.4.2; raises Invalid unless the proof shows the second tree extends the first."""
    if first > second:
        raise Invalid("the first tree is larger")
    if (first == 0 and first_root != EMPTY) or (second == 0 and second_root != EMPTY):
        raise Invalid("the empty tree's root is SHA-256 of the empty string")
    if first == second:
        if proof or first_root != second_root:
            raise Invalid("same size, different roots (or a proof where none belongs)")
        return
    if first == 0:
        if proof:
            raise Invalid("a proof from the empty tree must be empty")
        return
    if not proof:
        raise Invalid("empty proof")
    path = list(proof)
    if first & (first - 1) == 0:  # a power of two: the first root is the proof's start
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise Invalid("proof too long")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0 or fr != first_root or sr != second_root:
        raise Invalid("the consistency proof does not verify")


# --- a tiny log and the witness protocol ----------------------------------------------------


@dataclass
class Log:
    """An in-memory log: append leaves, sign checkpoints, prove consistency."""

    key: Key
    leaves: list[bytes] = field(default_factory=list)
    named: str = ""  # the origin, when it is not the key's name

    @property
    def origin(self) -> str:
        return self.named or self.key.name

    def append(self, *data: bytes) -> None:
        self.leaves.extend(leaf_hash(each) for each in data)

    def checkpoint(self, size: int | None = None) -> str:
        """The signed checkpoint note of the first `size` leaves (default: all)."""
        size = len(self.leaves) if size is None else size
        return sign_note(checkpoint_text(self.origin, size, mth(self.leaves[:size])), self.key)

    def proof(self, old: int, size: int | None = None) -> list[bytes]:
        size = len(self.leaves) if size is None else size
        return consistency_proof(old, self.leaves[:size])


def add_checkpoint_body(old: int, proof: list[bytes], checkpoint: str) -> bytes:
    """The c2sp.org/tlog-witness add-checkpoint request body."""
    return (f"old {old}\n" + "".join(f"{b64(h)}\n" for h in proof) + "\n" + checkpoint).encode()
