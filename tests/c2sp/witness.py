"""An independent C2SP witness (c2sp.org/tlog-witness), built on tests/c2sp/c2sp.py and importing
nothing from evidence_grpc: it knows some logs (origin -> the log's note verifier key), keeps the
latest checkpoint it cosigned of each, and answers `POST <prefix>/add-checkpoint` as the spec
says: 404 for an unknown origin, 403 when the log's signature does not verify, 400 when `old` is
larger than the checkpoint or the body is malformed, 409 with its size (`text/x.tlog.size`)
when `old` is not the size it cosigned (or the size is the same and the root is not), 422 when
the consistency proof does not verify, else 200 with its cosignature/v1 line.

In a test: `with Witness(key, {origin: log_vkey}) as witness:` serves on 127.0.0.1 in a thread
(`witness.url` is its submission prefix). Alone: `python -m tests.c2sp.witness --skey FILE
--log ORIGIN=VKEY [--port N]` prints its URL and serves until stopped."""

from __future__ import annotations

import argparse
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.c2sp import c2sp

SIZE_TYPE = "text/x.tlog.size"


class Witness:
    def __init__(self, key: c2sp.Key, logs: dict[str, c2sp.Key], prefix: str = "/witness",
                 port: int = 0) -> None:
        assert key.key_type == c2sp.WITNESS_KEY
        self.key = key
        self.logs = dict(logs)
        self.prefix = prefix.rstrip("/")
        self.latest: dict[str, tuple[int, bytes]] = {}  # origin -> (size, root) cosigned
        self.requests = 0
        self._lock = threading.Lock()
        witness = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if self.path != f"{witness.prefix}/add-checkpoint":
                    status, kind, answer = 404, "text/plain", b"no such endpoint\n"
                else:
                    status, kind, answer = witness.add_checkpoint(body)
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{self.prefix}"

    def add_checkpoint(self, body: bytes) -> tuple[int, str, bytes]:
        self.requests += 1
        try:
            head, _, note = body.decode().partition("\n\n")
            rows = head.split("\n")
            word, _, old_text = rows[0].partition(" ")
            if word != "old" or not old_text.isdigit():
                raise c2sp.Invalid("the body begins with `old <size>`")
            old = int(old_text)
            proof = [c2sp.unb64(row) for row in rows[1:]]
            text, _ = c2sp.parse_note(note)
            origin, size, root = c2sp.read_checkpoint(text)
        except (ValueError, c2sp.Invalid) as error:
            return 400, "text/plain", f"{error}\n".encode()
        log_key = self.logs.get(origin)
        if log_key is None:
            return 404, "text/plain", b"unknown log\n"
        try:
            c2sp.verify_note(note, log_key)
        except c2sp.Invalid:
            return 403, "text/plain", b"the log's signature does not verify\n"
        if old > size:
            return 400, "text/plain", b"old is larger than the checkpoint's size\n"
        with self._lock:
            known_size, known_root = self.latest.get(origin, (0, c2sp.EMPTY))
            if old != known_size or (old == size and root != known_root):
                return 409, SIZE_TYPE, f"{known_size}\n".encode()
            try:
                c2sp.verify_consistency(old, size, known_root, root, proof)
            except c2sp.Invalid as error:
                return 422, "text/plain", f"{error}\n".encode()
            self.latest[origin] = (size, root)
            line = c2sp.cosign(text, self.key, int(time.time()))
        return 200, "text/plain", line.text().encode()

    def __enter__(self) -> Witness:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skey", required=True, help="the witness's signer key file (type 0x04)")
    parser.add_argument("--log", action="append", required=True, metavar="ORIGIN=VKEY",
                        help="a log's origin and its note verifier key")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with open(args.skey) as kept:
        key = c2sp.read_skey(kept.read().strip())
    logs = {origin: c2sp.read_vkey(vkey) for origin, _, vkey in
            (each.partition("=") for each in args.log)}
    witness = Witness(key, logs, port=args.port)
    print(witness.url, flush=True)
    witness.server.serve_forever()


if __name__ == "__main__":
    main()
