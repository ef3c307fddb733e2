"""C2SP signed notes (c2sp.org/signed-note) with Ed25519 keys, and the tlog checkpoints
(c2sp.org/tlog-checkpoint) they carry.

Key strings are written as Go's `golang.org/x/mod/sumdb/note` writes them: a verifier key
`<name>+<key ID, 8 hex>+<base64(0x01 ‖ public key)>` and a signer key
`PRIVATE+KEY+<name>+<key ID, 8 hex>+<base64(0x01 ‖ 32-byte seed)>`."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple, TypeVar

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519 = 0x01  # the signature type byte of Ed25519 keys
KEY_ID_SIZE = 4
SIGNATURE_PREFIX = "\u2014 "  # em dash, space
MAX_SIGNATURES = 100  # the spec asks verifiers to accept at least 16
MAX_TREE_SIZE = (1 << 64) - 1
ROOT_HASH_SIZE = 32
_HEX_KEY_ID = re.compile(r"[0-9a-f]{8}", re.ASCII)
_DECIMAL = re.compile(r"0|[1-9][0-9]*", re.ASCII)


class NoteError(ValueError):
    """A note, key or checkpoint is malformed, or a note's signatures do not verify."""


def _b64decode(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error) as error:
        raise NoteError(f"{what} is not standard base64") from error


def _b64encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _check_text(text: str, what: str) -> None:
    """Valid UTF-8 (no lone surrogates) and no control character below U+0020 but newline."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise NoteError(f"{what} is not valid UTF-8") from error
    for ch in text:
        if ch < "\x20" and ch != "\n":
            raise NoteError(f"{what} has the control character U+{ord(ch):04X}")


def check_key_name(name: str) -> None:
    """Key names are non-empty, without Unicode spaces, plus signs or control characters."""
    if not name:
        raise NoteError("a key name must not be empty")
    _check_text(name, f"the key name {name!r}")
    if "+" in name or any(ch.isspace() for ch in name):
        raise NoteError(f"the key name {name!r} has a space or a plus sign")


def key_hash(name: str, public_key: bytes, alg: int = ED25519) -> bytes:
    """The key ID: SHA-256(name ‖ 0x0A ‖ the type byte (0x01: Ed25519) ‖ public key)[:4]."""
    return hashlib.sha256(name.encode("utf-8") + b"\n" + bytes([alg]) + public_key).digest()[:KEY_ID_SIZE]


def _raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class Verifier:
    """An Ed25519 note verifier: the key name, its 4-byte key ID and the public key. `alg`: the
    type byte its key strings and ID carry (`kind`, in errors)."""

    alg: ClassVar[int] = ED25519
    kind: ClassVar[str] = "an Ed25519 key"
    name: str
    key_id: bytes
    public_key: Ed25519PublicKey = field(repr=False)

    @property
    def public_key_bytes(self) -> bytes:
        return _raw_public_key(self.public_key)

    @property
    def vkey(self) -> str:
        return verifier_key(self.name, self.public_key_bytes, self.alg)

    def verify(self, message: bytes, signature: bytes) -> bool:
        try:
            self.public_key.verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class Signer:
    """An Ed25519 note signer: the key name, its 4-byte key ID and the private key; its
    verifier is a `verifier_type`, whose type byte its key strings carry."""

    verifier_type: ClassVar[type[Verifier]] = Verifier
    name: str
    key_id: bytes
    private_key: Ed25519PrivateKey = field(repr=False)

    @property
    def verifier(self) -> Verifier:
        return self.verifier_type(self.name, self.key_id, self.private_key.public_key())

    @property
    def vkey(self) -> str:
        return self.verifier.vkey

    @property
    def skey(self) -> str:
        """The signer key string (secret)."""
        seed = self.private_key.private_bytes_raw()
        alg = bytes([self.verifier_type.alg])
        return f"PRIVATE+KEY+{self.name}+{self.key_id.hex()}+{_b64encode(alg + seed)}"

    def sign(self, message: bytes) -> bytes:
        return self.private_key.sign(message)


def verifier_key(name: str, public_key: bytes, alg: int = ED25519) -> str:
    """`<name>+<key ID hex>+<base64(type byte (0x01: Ed25519) ‖ public key)>`."""
    check_key_name(name)
    if len(public_key) != 32:
        raise NoteError(f"an Ed25519 public key has 32 bytes, not {len(public_key)}")
    return f"{name}+{key_hash(name, public_key, alg).hex()}+{_b64encode(bytes([alg]) + public_key)}"


def _key_material(name: str, hex_id: str, encoded: str, what: str, key: type[Verifier]) -> bytes:
    check_key_name(name)
    if not _HEX_KEY_ID.fullmatch(hex_id):
        raise NoteError(f"the {what}'s key ID {hex_id!r} is not 8 lowercase hex digits")
    material = _b64decode(encoded, f"the {what}")
    if not material or material[0] != key.alg:
        raise NoteError(f"the {what} is not {key.kind} (type byte 0x{key.alg:02x})")
    if len(material) != 33:
        raise NoteError(f"the {what} has {len(material) - 1} bytes of key, not 32")
    return material[1:]


V = TypeVar("V", bound=Verifier)
S = TypeVar("S", bound=Signer)


def parse_key(text: str, key: type[V], what: str = "verifier key") -> V:
    """The `key` (a Verifier type) a verifier key string names, its key ID checked against name
    and key."""
    parts = text.split("+", 2)  # the base64 key may hold plus signs, the name and ID may not
    if len(parts) != 3:
        raise NoteError(f"a {what} is <name>+<key ID>+<key>")
    name, hex_id, encoded = parts
    public_key = _key_material(name, hex_id, encoded, what, key)
    if key_hash(name, public_key, key.alg).hex() != hex_id:
        raise NoteError(f"the {what}'s ID {hex_id} is not its name and key's")
    return key(name, bytes.fromhex(hex_id), Ed25519PublicKey.from_public_bytes(public_key))


def parse_signer(text: str, signer: type[S], what: str = "signer key") -> S:
    """The `signer` (a Signer type) a `PRIVATE+KEY+…` string names, its key ID checked against
    name and key."""
    parts = text.split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise NoteError(f"a {what} is PRIVATE+KEY+<name>+<key ID>+<key>")
    name, hex_id, encoded = parts[2:]
    key = signer.verifier_type
    private_key = Ed25519PrivateKey.from_private_bytes(
        _key_material(name, hex_id, encoded, what, key))
    if key_hash(name, _raw_public_key(private_key.public_key()), key.alg).hex() != hex_id:
        raise NoteError(f"the {what}'s ID {hex_id} is not its name and key's")
    return signer(name, bytes.fromhex(hex_id), private_key)


def generate(name: str, signer: type[S]) -> S:
    """A new key of the `signer` type named name (write `.skey` somewhere safe, publish `.vkey`)."""
    check_key_name(name)
    private_key = Ed25519PrivateKey.generate()
    key_id = key_hash(name, _raw_public_key(private_key.public_key()), signer.verifier_type.alg)
    return signer(name, key_id, private_key)


def parse_verifier_key(text: str) -> Verifier:
    """The Verifier a verifier key string names, its key ID checked against name and key."""
    return parse_key(text, Verifier)


def parse_signer_key(text: str) -> Signer:
    """The Signer a `PRIVATE+KEY+…` string names, its key ID checked against name and key."""
    return parse_signer(text, Signer)


def generate_signer(name: str) -> Signer:
    """A new Ed25519 signer named name (write `.skey` somewhere safe, publish `.vkey`)."""
    return generate(name, Signer)


class NoteSignature(NamedTuple):
    """A signature line: key name, 4-byte key ID, signature."""

    name: str
    key_id: bytes
    signature: bytes


def _check_body(body: str) -> None:
    if not body.endswith("\n"):
        raise NoteError("a note's text must end in a newline")
    _check_text(body, "the note's text")


def sign_note(body: str, signer: Signer, *more: Signer) -> str:
    """The signed note: body, a blank line, then one `— <name> <base64(key ID ‖ signature)>`
    line per signer."""
    _check_body(body)
    message = body.encode("utf-8")
    lines = []
    for each in (signer, *more):
        check_key_name(each.name)
        signed = _b64encode(each.key_id + each.sign(message))
        lines.append(f"{SIGNATURE_PREFIX}{each.name} {signed}\n")
    return body + "\n" + "".join(lines)


def split_note(text: str | bytes) -> tuple[str, list[NoteSignature]]:
    """A note's text and signature lines, unverified (the text MUST be ignored until verified)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as error:
            raise NoteError("the note is not valid UTF-8") from error
    _check_text(text, "the note")
    if not text.endswith("\n"):
        raise NoteError("a note must end in a newline")
    split = text.rfind("\n\n")
    if split < 0:
        raise NoteError("the note has no blank line before its signatures")
    body, lines = text[: split + 1], text[split + 2 : -1]
    if not lines:
        raise NoteError("the note has no signatures")
    signatures: list[NoteSignature] = []
    for line in lines.split("\n"):
        if len(signatures) == MAX_SIGNATURES:
            raise NoteError(f"the note has more than {MAX_SIGNATURES} signatures")
        if not line.startswith(SIGNATURE_PREFIX):
            raise NoteError(f"not a signature line: {line!r}")
        name, space, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
        if not space:
            raise NoteError(f"a signature line is '— <name> <signature>': {line!r}")
        check_key_name(name)
        raw = _b64decode(encoded, f"the signature by {name}")
        if len(raw) <= KEY_ID_SIZE:
            raise NoteError(f"the signature by {name} is too short")
        signatures.append(NoteSignature(name, raw[:KEY_ID_SIZE], raw[KEY_ID_SIZE:]))
    return body, signatures


def verify_note(text: str | bytes, verifier: Verifier, *more: Verifier) -> str:
    """The note's text, once verified: signatures by unknown keys (name and key ID) are ignored,
    a known key's must verify, and at least one known key must have signed."""
    body, signatures = split_note(text)
    known = {(each.name, each.key_id): each for each in (verifier, *more)}
    message = body.encode("utf-8")
    verified = False
    for signature in signatures:
        key = known.get((signature.name, signature.key_id))
        if key is None:
            continue
        if not key.verify(message, signature.signature):
            raise NoteError(f"the signature by {signature.name} ({signature.key_id.hex()}) does not verify")
        verified = True
    if not verified:
        names = ", ".join(f"{name}+{key_id.hex()}" for name, key_id in known)
        raise NoteError(f"the note is not signed by a known key ({names})")
    return body


class Checkpoint(NamedTuple):
    """A tlog checkpoint's text: origin, tree size, root hash, extension lines."""

    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()


def _check_line(line: str, what: str) -> None:
    if not line:
        raise NoteError(f"the checkpoint's {what} must not be empty")
    if "\n" in line:
        raise NoteError(f"the checkpoint's {what} must be one line")
    _check_text(line, f"the checkpoint's {what}")


def checkpoint_body(origin: str, tree_size: int, root_hash: bytes, extensions: Sequence[str] = ()) -> str:
    """The checkpoint text: origin, decimal size, base64 root, extension lines; each ends in \\n."""
    _check_line(origin, "origin")
    if not 0 <= tree_size <= MAX_TREE_SIZE:
        raise NoteError(f"a tree size is 0 to 2**64 - 1, got {tree_size}")
    if len(root_hash) != ROOT_HASH_SIZE:
        raise NoteError(f"a root hash has {ROOT_HASH_SIZE} bytes, not {len(root_hash)}")
    for line in extensions:
        _check_line(line, "extension line")
    return "".join(f"{line}\n" for line in (origin, str(tree_size), _b64encode(root_hash), *extensions))


def parse_checkpoint(body: str) -> Checkpoint:
    """The checkpoint a (verified) note text holds; NoteError unless it is exactly the format."""
    _check_body(body)
    lines = body[:-1].split("\n")
    if len(lines) < 3:
        raise NoteError("a checkpoint has an origin, a tree size and a root hash")
    origin, size, encoded, *extensions = lines
    for line in lines:
        _check_line(line, "lines")
    if not _DECIMAL.fullmatch(size) or int(size) > MAX_TREE_SIZE:
        raise NoteError(f"the checkpoint's tree size {size!r} is not a decimal number without leading zeros")
    root = _b64decode(encoded, "the checkpoint's root hash")
    if len(root) != ROOT_HASH_SIZE:
        raise NoteError(f"the checkpoint's root hash has {len(root)} bytes, not {ROOT_HASH_SIZE}")
    return Checkpoint(origin, int(size), root, tuple(extensions))


def open_checkpoint(text: str | bytes, verifier: Verifier, *more: Verifier) -> Checkpoint:
    """A signed checkpoint, verified then parsed."""
    return parse_checkpoint(verify_note(text, verifier, *more))
