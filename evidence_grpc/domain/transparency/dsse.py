"""DSSE v1 envelopes (github.com/secure-systems-lab/dsse) signed with the log's Ed25519 note keys.

A signature's `keyid` is the hex of the note key ID (`notes.key_hash`: SHA-256 of name, newline,
0x01 and public key, first 4 bytes), so the same 8 hex digits name the key in a verifier key
string, a checkpoint signature and an envelope. DSSE keeps keyid an unauthenticated hint: the
verifier tries every key it trusts."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from .notes import Signer, Verifier


class DsseError(ValueError):
    """An envelope is malformed or no trusted key signed it."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """`DSSEv1 <len(type)> <type> <len(payload)> <payload>`, lengths in bytes, type in UTF-8."""
    type_bytes = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(type_bytes), type_bytes, len(payload), payload)


def key_id(key: Signer | Verifier) -> str:
    """The keyid written for a key: its note key ID in hex."""
    return key.key_id.hex()


def signatures(payload_type: str, payload: bytes, signer: Signer, *more: Signer
               ) -> list[tuple[str, bytes]]:
    """(keyid, signature over the PAE) of each signer."""
    message = pae(payload_type, payload)
    return [(key_id(each), each.sign(message)) for each in (signer, *more)]


def envelope(payload_type: str, payload: bytes, signer: Signer, *more: Signer) -> dict[str, Any]:
    """The JSON envelope: base64 payload, payloadType, one `{keyid, sig}` per signer."""
    return {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [{"keyid": keyid, "sig": base64.b64encode(sig).decode("ascii")}
                       for keyid, sig in signatures(payload_type, payload, signer, *more)],
    }


def _b64decode(value: object, what: str) -> bytes:
    """Standard or URL-safe base64, padded or not (DSSE verifiers must accept both)."""
    if not isinstance(value, str):
        raise DsseError(f"the envelope's {what} is not a string")
    text = value.replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (UnicodeEncodeError, binascii.Error) as error:
        raise DsseError(f"the envelope's {what} is not base64") from error


def verify_envelope(data: Mapping[str, Any], verifier: Verifier, *more: Verifier) -> tuple[str, bytes]:
    """The payload type and payload of an envelope that one of the verifiers signed."""
    payload_type = data.get("payloadType")
    if not isinstance(payload_type, str):
        raise DsseError("the envelope has no payloadType")
    payload = _b64decode(data.get("payload"), "payload")
    signatures = data.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        raise DsseError("the envelope has no signatures")
    message = pae(payload_type, payload)
    for signature in signatures:
        if not isinstance(signature, Mapping):
            raise DsseError("an envelope signature is not an object")
        sig = _b64decode(signature.get("sig"), "signature")
        if any(each.verify(message, sig) for each in (verifier, *more)):
            return payload_type, payload
    raise DsseError("no signature of the envelope verifies with a trusted key")
