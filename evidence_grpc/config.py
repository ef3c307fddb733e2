"""Settings of a server process, from command-line options or EVIDENCE_* variables."""

from __future__ import annotations

import dataclasses
import os
from urllib.parse import urlparse

MIB = 1024 * 1024


def default_log_key_file() -> str:
    """Where the log's key is kept unless told: one place per user, whatever the working
    directory and the database engine, `${XDG_STATE_HOME:-$HOME/.local/state}/evidence-server/
    log.key` (docs/operator.md#the-transparency-logs-key)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "evidence-server", "log.key")


@dataclasses.dataclass(frozen=True)
class Settings:
    http_addr: str = "127.0.0.1:8000"
    grpc_addr: str = "127.0.0.1:50051"
    database_url: str = "sqlite:///evidence.db"
    # Where the REST shim finds the gRPC server when run on its own; empty means in-process.
    grpc_target: str = ""
    # Base of html_url links in answers; defaults to http://<http_addr>.
    public_url: str = ""
    # HTTP worker processes; 0 means two per core. A worker's request threads share one GIL,
    # and on SQLite a worker whose threads all wait for the writer's lock idles its core: two
    # per core keep the cores busy (ingest +10 % over one per core on 2 cores).
    http_workers: int = 0
    # Request threads of each HTTP worker: a slow client or a long upload holds one.
    http_threads: int = 8
    # Handler threads of each gRPC process. Python runs one thread at a time, so threads beyond
    # a few only add switching: more help only calls that wait (on PostgreSQL, on a write lock).
    grpc_threads: int = 4
    # gRPC server processes sharing grpc_addr (SO_REUSEPORT); 0 means one per core.
    grpc_workers: int = 0
    max_request_bytes: int = 11 * MIB
    max_file_bytes: int = 10 * MIB
    max_form_field_bytes: int = 1 * MIB
    # Largest answer (audit packages carry every attachment of a trail).
    max_answer_bytes: int = 260 * MIB
    # Limits of one evaluation of untrusted rules (custom types' schemas and jq) in the sandbox.
    rule_seconds: float = 2.0
    rule_memory_bytes: int = 512 * MIB
    # Actions: the SMTP server of EMAIL targets (smtp://[from@]host:port; empty: refused),
    # ranges outbound POSTs never reach beyond the built-in ones, and whether loopback
    # receivers may get deliveries (off: only for tests and local receivers).
    smtp_url: str = ""
    outbound_deny_cidrs: str = ""
    outbound_allow_loopback: bool = False
    # Signs the web pages' CSRF tokens (their sessions are kept in the database); the same for
    # every process of a server (the command line makes one per start when none is set, so
    # forms loaded before a restart must be loaded again).
    session_secret: str = ""
    # The transparency log's Ed25519 signing key (a C2SP signer key string), created with mode
    # 0600 on first start when the file does not exist and the database holds no log yet;
    # outside the database, to be backed up apart from it (docs/operator.md). Beside it,
    # `<key file>.checkpoints`: the largest checkpoint signed of each log (domain.transparency.kept).
    log_key_file: str = dataclasses.field(default_factory=default_log_key_file)
    # Witnesses that cosign the log's checkpoints, `VKEY=URL` each (domain.transparency.
    # witnessing), and how many cosignatures a served checkpoint needs (0: one).
    witnesses: tuple[str, ...] = ()
    witness_quorum: int = 0

    @property
    def html_base(self) -> str:
        return (self.public_url or f"http://{self.http_addr}").rstrip("/")

    @property
    def log_key_name(self) -> str:
        """The name of the log's key and the host part of its checkpoints' origin: the public
        URL's host (and port)."""
        return urlparse(self.html_base).netloc or "evidence-server"

    @property
    def log_key_default(self) -> bool:
        """Whether the log's key is looked for in its default place (not told where)."""
        return self.log_key_file == default_log_key_file()

    @property
    def http_processes(self) -> int:
        return self.http_workers if self.http_workers > 0 else 2 * (os.cpu_count() or 1)

    @property
    def grpc_processes(self) -> int:
        return self.grpc_workers if self.grpc_workers > 0 else (os.cpu_count() or 1)

    @property
    def max_message_bytes(self) -> int:
        return self.max_request_bytes + MIB

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        env = {
            "http_addr": os.environ.get("EVIDENCE_HTTP_ADDR"),
            "grpc_addr": os.environ.get("EVIDENCE_GRPC_ADDR"),
            "database_url": os.environ.get("EVIDENCE_DATABASE_URL"),
            "grpc_target": os.environ.get("EVIDENCE_GRPC_TARGET"),
            "public_url": os.environ.get("EVIDENCE_PUBLIC_URL"),
            "session_secret": os.environ.get("EVIDENCE_SESSION_SECRET"),
            "log_key_file": os.environ.get("EVIDENCE_LOG_KEY_FILE"),
        }
        values: dict[str, object] = {k: v for k, v in env.items() if v}
        if os.environ.get("EVIDENCE_RULE_SECONDS"):
            values["rule_seconds"] = float(os.environ["EVIDENCE_RULE_SECONDS"])
        if os.environ.get("EVIDENCE_RULE_MEMORY_MIB"):
            values["rule_memory_bytes"] = int(os.environ["EVIDENCE_RULE_MEMORY_MIB"]) * MIB
        for field in ("http_workers", "http_threads", "grpc_workers", "grpc_threads"):
            count = os.environ.get(f"EVIDENCE_{field.upper()}")
            if count:
                values[field] = int(count)
        if os.environ.get("EVIDENCE_SMTP_URL"):
            values["smtp_url"] = os.environ["EVIDENCE_SMTP_URL"]
        if os.environ.get("EVIDENCE_OUTBOUND_DENY_CIDRS"):
            values["outbound_deny_cidrs"] = os.environ["EVIDENCE_OUTBOUND_DENY_CIDRS"]
        if os.environ.get("EVIDENCE_WITNESSES"):
            values["witnesses"] = tuple(os.environ["EVIDENCE_WITNESSES"].split())
        if os.environ.get("EVIDENCE_WITNESS_QUORUM"):
            values["witness_quorum"] = int(os.environ["EVIDENCE_WITNESS_QUORUM"])
        values["outbound_allow_loopback"] = (
            os.environ.get("EVIDENCE_OUTBOUND_ALLOW_LOOPBACK", "").lower() in ("1", "true", "yes"))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
