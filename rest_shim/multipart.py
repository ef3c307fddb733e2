"""The form of a multipart/form-data request: its text fields and its files.

Werkzeug's parser compiles two regular expressions for the boundary of every body; every body
has a new boundary, so on a small attestation that compiling cost more than the rest of the
parse and churned Python's cache of compiled expressions. Small bodies in the form clients
send (the kosli CLI, curl, Python's requests: CRLF line breaks, parts with a
`Content-Disposition: form-data; name="..."` and, for files, a `filename` and a
`Content-Type`) are read here with plain byte searches. Any other body, a larger one, or one
that would break a limit is left to werkzeug (reading the same bytes again), so its answers and
refusals (413 for an oversized part, an empty form for a malformed body) stay werkzeug's.

Either way a name sent in two parts is refused (BodyError naming it: which one counts would be
a guess). A text part read here is decoded strictly in the charset its Content-Type declares
(UTF-8 when it declares none): a charset Python has no text codec for, or bytes that are not
text in it, are refused, never read as something else. werkzeug, which reads the larger and
the unusual bodies, would read any charset but UTF-8, ASCII and ISO-8859-1 as UTF-8, replacing
undecodable bytes: its parser (StrictFormParser) hands each text part over byte for byte, and
it is decoded here in the same way."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import IO, Any

from werkzeug.datastructures import Headers
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.formparser import FormDataParser, MultiPartParser
from werkzeug.http import parse_options_header
from werkzeug.wrappers import Request

from .codec import BodyError

# Bodies up to this size are read whole into memory and parsed here; larger ones stream
# through werkzeug, which spools files to disk.
SMALL_BODY = 256 * 1024
# Names and file names werkzeug would read unchanged: no quote, escape, percent-escape or ';'.
_DISPOSITION = re.compile(r'form-data; name="([^"\\%;\r\n]*)"(?:; filename="([^"\\%;\r\n]*)")?')


@dataclasses.dataclass(frozen=True)
class FilePart:
    filename: str
    mimetype: str  # without parameters, lowercase; "" when the part names none
    size: int
    read: Callable[[], bytes]


@dataclasses.dataclass(frozen=True)
class Form:
    fields: dict[str, str]  # each name is sent in one part only
    files: dict[str, FilePart]


def form_of(request: Request) -> Form:
    """The request's form: parsed here when small and plain, else by werkzeug. A request
    class with a `max_file_bytes` (app.ApiRequest) declares the size a file part may have;
    werkzeug holds other requests to it while reading."""
    length = request.content_length
    boundary = request.mimetype_params.get("boundary", "")
    max_file_bytes = getattr(request, "max_file_bytes", None)
    # werkzeug refuses a body whose unread part outgrows max_form_memory_size: never a small
    # one under the default limits, but a lower limit reaches it.
    most = min(SMALL_BODY, request.max_form_memory_size or SMALL_BODY)
    if (length is not None and length <= most and max_file_bytes is not None
            and boundary.isascii() and boundary):
        body = request.get_data(cache=True)  # kept: werkzeug reads it again if need be
        form = read_small(body, boundary.encode(), max_field_bytes=request.max_form_memory_size,
                          max_file_bytes=max_file_bytes, max_parts=request.max_form_parts)
        if form is not None:
            return form
    try:
        fields, uploads = dict(request.form.items()), request.files
    except RequestEntityTooLarge as refused:
        raise _naming_the_limit(refused, request) from None
    except _Refused as refused:
        raise refused.error from None
    for name in {*fields, *uploads}:
        if len(request.form.getlist(name)) + len(uploads.getlist(name)) > 1:
            raise _repeated(name)
    files = {}
    for name, upload in uploads.items():
        stream = upload.stream
        stream.seek(0, 2)
        size = stream.tell()
        stream.seek(0)
        files[name] = FilePart(upload.filename or "", upload.mimetype, size, stream.read)
    return Form(fields, files)


def _naming_the_limit(refused: RequestEntityTooLarge, request: Request) -> RequestEntityTooLarge:
    """werkzeug's refusal of a form, saying which limit it broke: a body within the request
    limit was refused for a text field larger than max_form_memory_size (or, rarely, for more
    parts than max_form_parts: werkzeug does not tell them apart)."""
    length, most = request.content_length, request.max_content_length
    if length is None or most is None or length > most or request.max_form_memory_size is None:
        return refused
    return RequestEntityTooLarge(f"A form field is larger than {request.max_form_memory_size} "
                                 f"bytes (or the form has more than {request.max_form_parts} "
                                 "parts)")


def read_small(body: bytes, boundary: bytes, *, max_field_bytes: int | None,
               max_file_bytes: int, max_parts: int | None) -> Form | None:
    """The form of `body`, or None when it is not in the plain form or a part breaks a limit."""
    delimiter = b"\r\n--" + boundary
    # The first delimiter's line break may be left out (RFC 2046), as most clients do.
    start = 0 if body.startswith(delimiter + b"\r\n") else 2
    if not body.startswith(delimiter[start:] + b"\r\n"):
        return None
    fields: dict[str, str] = {}
    files: dict[str, FilePart] = {}
    position, parts = len(delimiter) + 2 - start, 0
    while True:
        headers_end = body.find(b"\r\n\r\n", position)
        if headers_end < 0:
            return None
        end = body.find(delimiter, headers_end + 4)
        parts += 1
        if end < 0 or (max_parts is not None and parts > max_parts):
            return None
        headers = _headers(body[position:headers_end])
        if headers is None:
            return None
        name, filename, content_type = headers
        data = body[headers_end + 4:end]
        if name in fields or name in files:
            raise _repeated(name)
        if filename is None:
            if max_field_bytes is not None and len(data) > max_field_bytes:
                return None
            fields[name] = _text(name, data, content_type)
        else:
            if len(data) > max_file_bytes:
                return None
            mimetype = (content_type or "").partition(";")[0].strip(" \t").lower()
            files[name] = FilePart(filename, mimetype, len(data), _reader(data))
        after = end + len(delimiter)
        if body.startswith(b"\r\n", after):
            position = after + 2
        elif body.startswith(b"--", after) and body[after + 2:] in (b"", b"\r\n"):
            return Form(fields, files)
        else:
            return None


class _BytewiseParts(MultiPartParser):
    """werkzeug's multipart parser, reading each text part as ISO-8859-1 (byte for byte, any
    bytes) and keeping the Content-Type it declared by its name."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.declared: dict[str, str | None] = {}

    def get_part_charset(self, headers: Headers) -> str:
        name = parse_options_header(headers.get("content-disposition"))[1].get("name", "")
        self.declared[name] = headers.get("content-type")
        return "iso-8859-1"


class _Refused(Exception):  # noqa: N818 - werkzeug turns a ValueError into an empty form
    """A BodyError raised inside werkzeug's form parsing, carried out of it."""

    def __init__(self, error: BodyError) -> None:
        super().__init__(str(error))
        self.error = error


class StrictFormParser(FormDataParser):
    """werkzeug's form parser (ApiRequest.form_data_parser_class) whose multipart text parts
    are decoded as `_text` decodes those this module reads: in the charset each declares, or
    refused."""

    def _parse_multipart(self, stream: IO[bytes], mimetype: str, content_length: int | None,
                         options: dict[str, str]) -> Any:
        boundary = options.get("boundary", "").encode("ascii")
        if not boundary:
            raise ValueError("Missing boundary")
        parser = _BytewiseParts(stream_factory=self.stream_factory,
                                max_form_memory_size=self.max_form_memory_size,
                                max_form_parts=self.max_form_parts, cls=self.cls)
        form, files = parser.parse(stream, boundary, content_length)
        try:
            decoded = [(name, _text(name, value.encode("iso-8859-1"), parser.declared.get(name)))
                       for name, value in form.items(multi=True)]
        except BodyError as error:
            raise _Refused(error) from None
        return stream, self.cls(decoded), files


def _repeated(name: str) -> BodyError:
    return BodyError("Sent in more than one part: send each form field once", name)


def _text(name: str, data: bytes, content_type: str | None) -> str:
    """A text part's value in the charset its Content-Type declares (UTF-8 by default)."""
    charset = parse_options_header(content_type)[1].get("charset", "utf-8") if content_type \
        else "utf-8"
    try:
        return data.decode(charset)
    except LookupError:
        raise BodyError(f"The charset '{charset}' is not one this server reads: send UTF-8",
                        name) from None
    except UnicodeDecodeError:
        raise BodyError(f"Not valid {charset} text (the charset its part declares, UTF-8 when "
                        "it declares none)", name) from None


def _reader(data: bytes) -> Callable[[], bytes]:
    return lambda: data


def _headers(block: bytes) -> tuple[str, str | None, str | None] | None:
    """(name, file name or None, content type or None) of a part's header lines, or None
    when they hold anything but one Content-Disposition and at most one Content-Type."""
    disposition = content_type = None
    for line in block.split(b"\r\n"):
        key, colon, value = line.partition(b":")
        key = key.strip(b" \t").lower()
        if not colon or line[:1] in (b" ", b"\t") or b"\r" in line or b"\n" in line:
            return None
        try:
            text = value.strip(b" \t").decode()
        except UnicodeDecodeError:
            return None
        if key == b"content-disposition" and disposition is None:
            disposition = text
        elif key == b"content-type" and content_type is None:
            content_type = text
        else:
            return None
    matched = _DISPOSITION.fullmatch(disposition or "")
    if matched is None:
        return None
    return matched.group(1), matched.group(2), content_type
