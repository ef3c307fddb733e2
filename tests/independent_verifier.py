"""A verifier of the transparency log written from the specifications alone, importing nothing of
evidence_grpc: RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2 (consistency), and C2SP signed-note /
tlog-checkpoint with an Ed25519 verifier key (`cryptography` checks the signature). The tests check
the service's answers with it, so that the service's own proof code is not what judges them."""

from __future__ import annotations

import base64
import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def inclusion_root(index: int, size: int, leaf: bytes, proof: list[bytes]) -> bytes:
    """The root the proof leads to from the leaf hash (RFC 9162 §2.1.3.2); ValueError when the
    proof cannot be one for (index, size)."""
    if not 0 <= index < size:
        raise ValueError("index out of range")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            raise ValueError("proof too long")
        if fn & 1 or fn == sn:
            r = _node(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            r = _node(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ValueError("proof too short")
    return r


def consistent(first: int, second: int, first_root: bytes, second_root: bytes,
               proof: list[bytes]) -> bool:
    """RFC 9162 §2.1.4.2."""
    if not 0 < first <= second:
        return False
    if first == second:
        return not proof and first_root == second_root
    path = list(proof)
    if first & (first - 1) == 0:  # a power of two: the first root starts the path
        path.insert(0, first_root)
    if not path:
        return False
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = _node(c, fr), _node(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn, sn = fn >> 1, sn >> 1
        else:
            sr = _node(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and fr == first_root and sr == second_root


def open_checkpoint(note: str, verifier_key: str) -> tuple[str, int, bytes]:
    """(origin, size, root) of a signed checkpoint that `verifier_key` signed; ValueError else."""
    name, key_id, encoded = verifier_key.strip().split("+", 2)
    key = base64.b64decode(encoded)
    if key[0] != 1 or len(key) != 33:
        raise ValueError("not an Ed25519 verifier key")
    if hashlib.sha256(name.encode() + b"\n" + key).digest()[:4].hex() != key_id:
        raise ValueError("the key hash does not match the key")
    body, _, signatures = note.partition("\n\n")
    body += "\n"
    for line in signatures.splitlines():
        prefix = f"\u2014 {name} "
        if line.startswith(prefix):
            signed = base64.b64decode(line[len(prefix):])
            if signed[:4].hex() == key_id:
                Ed25519PublicKey.from_public_bytes(key[1:]).verify(signed[4:], body.encode())
                origin, size, root = body.splitlines()[:3]
                return origin, int(size), base64.b64decode(root)
    raise ValueError("no signature of this key")


def entries_digest(numbers: list[int]) -> str:
    """A trail manifest's `entries_sha256` (docs/api.md, "A trail's (or an artifact's) manifest"): h = 32 zero
    bytes, then h = SHA-256(h || number as 8 bytes, big-endian) for each number in order; hex."""
    chained = bytes(32)
    for number in numbers:
        chained = hashlib.sha256(chained + number.to_bytes(8, "big")).digest()
    return chained.hex()
