"""The REST shim's own reader of small multipart bodies (rest_shim/multipart.py): what it reads
is what werkzeug reads, byte for byte, and what it does not read in its plain form, or what
breaks a limit, is left to werkzeug."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.test import EnvironBuilder

from evidence_grpc.config import Settings
from rest_shim.app import ApiRequest, create_app
from rest_shim.codec import BodyError
from rest_shim.multipart import SMALL_BODY, Form, form_of, read_small
from tests.conftest import ALICE_KEY

B = "XyZ0123456789boundary"
CRLF = "\r\n"


def body(*parts: str, first: str = "", last: str = f"--{B}--{CRLF}") -> bytes:
    """Parts joined as a client writes them: `first` before the first delimiter, CRLF line
    breaks."""
    text = first + "".join(f"--{B}{CRLF}{part}{CRLF}" for part in parts) + last
    return text.encode()


def field(name: str, value: str) -> str:
    return f'Content-Disposition: form-data; name="{name}"{CRLF}{CRLF}{value}'


def file(name: str, filename: str, content: str, content_type: str | None = None) -> str:
    typed = f"Content-Type: {content_type}{CRLF}" if content_type else ""
    return (f'Content-Disposition: form-data; name="{name}"; filename="{filename}"{CRLF}'
            f"{typed}{CRLF}{content}")


# Bodies the reader takes: as the kosli CLI (Go), curl and werkzeug's test client write them.
PLAIN = {
    "one field": body(field("data_json", '{"a": 1}')),
    "leading line break": body(field("data_json", "{}"), first=CRLF),
    "field and file": body(field("data_json", '{"name": "x"}'),
                           file("attachment_file", "report.tgz", "\x00\x01bytes\r\n--",
                                "application/octet-stream")),
    "file without type": body(file("f", "a.txt", "text")),
    "typed file with parameters": body(file("f", "a.txt", "t", "Text/Plain; charset=UTF-8")),
    "empty values": body(field("a", ""), file("f", "", "")),
    "unicode": body(field("name", "zürich ✓"), file("f", "résumé ✓.txt", "ü")),
    "boundary-like data": body(field("a", f"x\r\n--{B[:-1]}\r\n{B}--")),
    "no final line break": body(field("a", "v"), last=f"--{B}--"),
    "header case and spacing": body(
        f'content-disposition:   form-data; name="a"  {CRLF}{CRLF}v'),
    "typed field": body(f'Content-Disposition: form-data; name="a"{CRLF}'
                        f"Content-Type: text/plain; charset=iso-8859-1{CRLF}{CRLF}caf\xe9"),
}
# Bodies left to werkzeug: legal or not, werkzeug decides what they hold.
ELSEWHERE = {
    "LF line breaks": body(field("a", "v")).replace(b"\r\n", b"\n"),
    "preamble": body(field("a", "v"), first="preamble text\r\n"),
    "epilogue": body(field("a", "v"), last=f"--{B}--{CRLF}epilogue"),
    "no final delimiter": body(field("a", "v"), last=""),
    "quoted quote in a name": body(field('a\\"b', "v")),
    "percent-escaped quote": body(file("f", "a%22b.txt", "v")),
    "RFC 2231 file name": body(
        f"Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%C3%BC.txt{CRLF}{CRLF}v"),
    "other header": body(f'Content-Disposition: form-data; name="a"{CRLF}'
                         f"Content-Transfer-Encoding: binary{CRLF}{CRLF}v"),
    "folded header": body(f'Content-Disposition: form-data;{CRLF} name="a"{CRLF}{CRLF}v'),
    "no disposition": body(f"Content-Type: text/plain{CRLF}{CRLF}v"),
    "no headers": body(f"{CRLF}v"),
    "attachment disposition": body(f'Content-Disposition: attachment; name="a"{CRLF}{CRLF}v'),
    "bare LF in a header": body(field("a", "v")).replace(b'name="a"', b'name="a"\n'),
    "invalid UTF-8 header": body(file("f", "x", "v")).replace(b'"x"', b'"\xff"'),
    "garbage after boundary": body(field("a", "v")).replace(f"--{B}\r\n".encode(),
                                                           f"--{B}  \r\n".encode(), 1),
    "empty": b"",
    "a delimiter in the data": body(field("a", f"x\r\n--{B}X")),
}


def request_of(raw: bytes, boundary: str = B, max_field: int = 1 << 20,
               max_parts: int = 1000) -> ApiRequest:
    environ = EnvironBuilder(method="POST", input_stream=io.BytesIO(raw),
                             content_type=f"multipart/form-data; boundary={boundary}",
                             content_length=len(raw)).get_environ()
    request = ApiRequest(environ, Settings(max_form_field_bytes=max_field))
    request.max_form_parts = max_parts
    return request


def werkzeug_form(raw: bytes) -> Form:
    """What werkzeug alone reads of `raw`, as a Form."""
    request = request_of(raw)
    files = {name: (upload.filename or "", upload.mimetype, upload.stream.read())
             for name, upload in request.files.items()}
    return Form(dict(request.form.items()), files)  # type: ignore[arg-type]


def as_read(form: Form) -> tuple[dict, dict]:
    files = {name: (part.filename, part.mimetype, part.read()) for name, part in form.files.items()}
    for name, part in form.files.items():
        assert part.size == len(files[name][2])
    return form.fields, files


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_plain_bodies_are_read_here_as_werkzeug_reads_them(name):
    raw = PLAIN[name]
    mine = read_small(raw, B.encode(), max_field_bytes=1 << 20, max_file_bytes=1 << 20,
                      max_parts=1000)
    assert mine is not None, "read here, not by werkzeug"
    expected = werkzeug_form(raw)
    assert as_read(mine) == (expected.fields, expected.files)
    assert as_read(form_of(request_of(raw))) == (expected.fields, expected.files)


@pytest.mark.parametrize("name", sorted(ELSEWHERE))
def test_other_bodies_are_left_to_werkzeug(name):
    raw = ELSEWHERE[name]
    assert read_small(raw, B.encode(), max_field_bytes=1 << 20, max_file_bytes=1 << 20,
                      max_parts=1000) is None
    expected = werkzeug_form(raw)
    assert as_read(form_of(request_of(raw))) == (expected.fields, expected.files)


def test_limits_send_a_body_to_werkzeug_which_refuses_it():
    raw = body(field("a", "x" * 101), file("f", "a", "y" * 201))
    reads = {"max_field_bytes": 1000, "max_file_bytes": 1000, "max_parts": 10}
    assert read_small(raw, B.encode(), **reads) is not None
    for limit, value in (("max_field_bytes", 100), ("max_file_bytes", 200), ("max_parts", 1)):
        assert read_small(raw, B.encode(), **{**reads, limit: value}) is None
    # A body larger than werkzeug's form memory limit goes to werkzeug, which refuses it.
    with pytest.raises(RequestEntityTooLarge):
        form_of(request_of(raw, max_field=200))
    # A large body is never read whole here: werkzeug streams it.
    large = body(file("f", "big", "z" * SMALL_BODY))
    request = request_of(large)
    assert form_of(request).files["f"].size == SMALL_BODY
    assert request.get_data(cache=True) == b""  # consumed by werkzeug's streaming, not kept


def test_a_small_file_part_over_its_limit_is_413_and_changes_nothing(settings):
    app = create_app(dataclasses.replace(settings, max_file_bytes=3000))
    client = app.test_client()
    headers = {"Authorization": f"Bearer {ALICE_KEY}"}
    assert client.put("/api/v2/flows/acme", json={"name": "f", "description": ""},
                      headers=headers).status_code == 201

    def attest(data: dict, attachment: bytes | None = None):
        raw = body(field("data_json", json.dumps(data)), *(
            [file("attachment_file", "e.bin", attachment.decode("latin-1"),
                  "application/octet-stream")] if attachment is not None else []))
        return client.post("/api/v2/attestations/acme/f/trail/t/generic", data=raw,
                           content_type=f"multipart/form-data; boundary={B}", headers=headers)

    fits = attest({"attestation_name": "fits", "is_compliant": True,
                   "user_data": {"x": "y" * 1500}}, b"a" * 2900)
    assert fits.status_code == 201, fits.get_json()
    too_large = attest({"attestation_name": "big file", "is_compliant": True}, b"a" * 3001)
    assert too_large.status_code == 413 and "larger than" in too_large.get_json()["message"]
    listed = client.get("/api/v2/attestations/acme", headers=headers).get_json()["data"]
    assert [a["attestation_name"] for a in listed] == ["fits"]


BIG_FILE = file("big", "big.bin", "x" * (SMALL_BODY + 1))  # sends the body to werkzeug


def _typed(name: str, content_type: str, value: bytes, *, big: bool = False) -> bytes:
    """A body of one text part of that Content-Type (and with `big`, a file part large enough
    that werkzeug reads the body)."""
    more = f"--{B}{CRLF}{BIG_FILE}{CRLF}" if big else ""
    return (f'--{B}{CRLF}Content-Disposition: form-data; name="{name}"{CRLF}'
            f"Content-Type: {content_type}{CRLF}{CRLF}").encode() + value + \
        f"{CRLF}{more}--{B}--{CRLF}".encode()


READERS = pytest.mark.parametrize("big", [False, True], ids=["read-here", "read-by-werkzeug"])


@pytest.mark.parametrize("raw, field", [
    (body(field("data_json", "{}"), field("data_json", '{"a": 1}')), "data_json"),
    (body(field("data_json", "{}"), field("data_json", "{}"), BIG_FILE), "data_json"),
    (body(file("f", "1", "one"), file("f", "2", "two")), "f"),
    (body(field("f", "x"), file("f", "2", "two"), BIG_FILE), "f"),
    (body(field("a", "ok")).replace(b"ok", b"o\xffk"), "a"),
    (body(field("a", "ok"), BIG_FILE).replace(b"ok", b"o\xffk"), "a"),
    *[(_typed("a", content_type, value, big=big), "a") for big in (False, True)
      for content_type, value in (("text/plain; charset=x-no-such-charset", b"v"),
                                  ("application/json; charset=rot13", b"v"),
                                  ("text/plain; charset=utf-8", "caf\u00e9".encode("latin-1")),
                                  ("text/plain; charset=utf-16", b"\x00\xd8"))],
])
def test_repeated_parts_and_text_not_in_its_charset_are_refused(raw: bytes, field: str):
    """Issue 47, item 7: a name sent twice is refused (both readers), and a text part is read
    in the charset it declares or refused: never the first part kept silently, never bytes
    replaced."""
    with pytest.raises(BodyError) as refused:
        form_of(request_of(raw))
    assert refused.value.field == field


@READERS
def test_a_declared_charset_is_honoured(big: bool):
    for charset, value in (("utf-16", "zürich ✓"), ("iso-8859-1", "café"), ("ascii", "plain"),
                           ("shift_jis", "証拠"), (None, "zürich ✓")):
        content_type = f"text/plain; charset={charset}" if charset else "text/plain"
        form = form_of(request_of(_typed("a", content_type, value.encode(charset or "utf-8"),
                                         big=big)))
        assert form.fields == {"a": value}, charset
        assert ("big" in form.files) is big


def test_the_api_refuses_a_repeated_data_json_naming_it(client):
    """Through the shim: a trail begun with two data_json parts is a 400 naming data_json, not
    the first part's trail."""
    raw = body(field("data_json", '{"name": "first"}'), field("data_json", '{"name": "second"}'))
    answer = client.put("/api/v2/trails/acme/payments", data=raw,
                        content_type=f"multipart/form-data; boundary={B}",
                        headers={"Authorization": f"Bearer {ALICE_KEY}"})
    assert answer.status_code == 400, answer.get_json()
    assert "data_json" in answer.get_json()["errors"]
    assert client.get("/api/v2/trails/acme/payments/first",
                      headers={"Authorization": f"Bearer {ALICE_KEY}"}).status_code == 404
