"""DSSE envelopes against securesystemslib's implementation and the DSSE protocol's test vector."""

from __future__ import annotations

import base64
import copy
import hashlib
import json

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import CryptoSigner, SSlibKey

from evidence_grpc.domain.transparency import dsse, notes
from evidence_grpc.domain.transparency.dsse import DsseError

# github.com/secure-systems-lab/dsse protocol.md, "Test Vectors": the PAE, and the envelope signed
# with ECDSA P-256 / SHA-256 (raw r ‖ s) by the key below.
SPEC_TYPE = "http://example.com/HelloWorld"
SPEC_BODY = b"hello world"
SPEC_PAE = b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
SPEC_X = 46950820868899156662930047687818585632848591499744589407958293238635476079160
SPEC_Y = 5640078356564379163099075877009565129882514886557779369047442380624545832820
SPEC_SIG = "A3JqsQGtVsJ2O2xqrI5IcnXip5GToJ3F+FnZ+O88SjtR6rDAajabZKciJTfUiHqJPcIAriEGAHTVeCUjW2JIZA=="

IN_TOTO = "application/vnd.in-toto+json"
STATEMENT = json.dumps(
    {"_type": "https://in-toto.io/Statement/v1", "subject": [], "predicateType": "x"}
).encode()


def test_pae_is_the_specs_example():
    assert dsse.pae(SPEC_TYPE, SPEC_BODY) == SPEC_PAE


def test_the_specs_signature_verifies_over_our_pae():
    public_key = ec.EllipticCurvePublicNumbers(SPEC_X, SPEC_Y, ec.SECP256R1()).public_key()
    raw = base64.b64decode(SPEC_SIG)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public_key.verify(der, dsse.pae(SPEC_TYPE, SPEC_BODY), ec.ECDSA(hashes.SHA256()))


@pytest.mark.parametrize(
    ("payload_type", "payload", "expected"),
    [
        ("", b"", b"DSSEv1 0  0 "),
        ("t", b"\x00\xff", b"DSSEv1 1 t 2 \x00\xff"),
        ("\u00fc", b"x" * 10, b"DSSEv1 2 \xc3\xbc 10 xxxxxxxxxx"),  # lengths in bytes of UTF-8
        (IN_TOTO, b"{}", b"DSSEv1 28 application/vnd.in-toto+json 2 {}"),
    ],
)
def test_pae_by_hand(payload_type: str, payload: bytes, expected: bytes):
    assert dsse.pae(payload_type, payload) == expected


@pytest.fixture(scope="module")
def signer() -> notes.Signer:
    return notes.generate_signer("log.example/evidence")


def _sslib_key(signer: notes.Signer) -> SSlibKey:
    return SSlibKey.from_crypto(signer.verifier.public_key, keyid=dsse.key_id(signer))


def test_our_envelope_verifies_with_securesystemslib(signer: notes.Signer):
    made = dsse.envelope(IN_TOTO, STATEMENT, signer)
    assert set(made) == {"payload", "payloadType", "signatures"}
    assert made["signatures"][0]["keyid"] == signer.key_id.hex() == signer.vkey.split("+")[1]
    envelope = Envelope.from_dict(copy.deepcopy(made))
    assert envelope.payload == STATEMENT and envelope.payload_type == IN_TOTO
    assert envelope.pae() == dsse.pae(IN_TOTO, STATEMENT)
    accepted = envelope.verify([_sslib_key(signer)], 1)
    assert list(accepted) == [signer.key_id.hex()]
    assert dsse.verify_envelope(made, signer.verifier) == (IN_TOTO, STATEMENT)


@pytest.mark.parametrize("position", [0, len(STATEMENT) // 2, len(STATEMENT) - 1])
def test_one_changed_payload_byte_fails(signer: notes.Signer, position: int):
    made = dsse.envelope(IN_TOTO, STATEMENT, signer)
    payload = bytearray(STATEMENT)
    payload[position] ^= 0x01
    made["payload"] = base64.b64encode(bytes(payload)).decode()
    with pytest.raises(VerificationError):
        Envelope.from_dict(copy.deepcopy(made)).verify([_sslib_key(signer)], 1)
    with pytest.raises(DsseError):
        dsse.verify_envelope(made, signer.verifier)


def test_a_changed_payload_type_or_another_key_fails(signer: notes.Signer):
    made = dsse.envelope(IN_TOTO, STATEMENT, signer)
    retyped = {**made, "payloadType": "application/json"}
    with pytest.raises(VerificationError):
        Envelope.from_dict(copy.deepcopy(retyped)).verify([_sslib_key(signer)], 1)
    with pytest.raises(DsseError):
        dsse.verify_envelope(retyped, signer.verifier)
    other = notes.generate_signer("log.example/other")
    with pytest.raises(DsseError):
        dsse.verify_envelope(made, other.verifier)
    assert dsse.verify_envelope(made, other.verifier, signer.verifier) == (IN_TOTO, STATEMENT)


def test_securesystemslibs_envelope_verifies_with_ours(signer: notes.Signer):
    theirs = Envelope(STATEMENT, IN_TOTO, {})
    theirs.sign(CryptoSigner(signer.private_key, _sslib_key(signer)))
    assert dsse.verify_envelope(theirs.to_dict(), signer.verifier) == (IN_TOTO, STATEMENT)
    # Ed25519 is deterministic: both make the same envelope
    assert theirs.to_dict() == dsse.envelope(IN_TOTO, STATEMENT, signer)


def test_url_safe_unpadded_base64_is_accepted(signer: notes.Signer):
    payload = hashlib.sha256(b"find a - or _").digest() * 3
    made = dsse.envelope(IN_TOTO, payload, signer)
    url_safe = {
        **made,
        "payload": base64.urlsafe_b64encode(payload).decode().rstrip("="),
        "signatures": [
            {"sig": base64.urlsafe_b64encode(base64.b64decode(made["signatures"][0]["sig"])).decode()}
        ],
    }
    assert dsse.verify_envelope(url_safe, signer.verifier) == (IN_TOTO, payload)


@pytest.mark.parametrize(
    "change",
    [
        {"payloadType": None},
        {"payload": None},
        {"payload": "not base64!"},
        {"signatures": []},
        {"signatures": None},
        {"signatures": ["x"]},
        {"signatures": [{"sig": 7}]},
    ],
)
def test_malformed_envelopes(signer: notes.Signer, change: dict[str, object]):
    made = {**dsse.envelope(IN_TOTO, STATEMENT, signer), **change}
    with pytest.raises(DsseError):
        dsse.verify_envelope(made, signer.verifier)
