"""`evidence-server`: serve, grpc, shim, deliver, bootstrap, migrate."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import peewee
import yaml

from . import observability
from .config import Settings
from .storage.db import (
    PendingMigrations,
    UnknownMigrations,
    database,
    init_database,
    migrate,
    migration_status,
    release_connections,
)

if TYPE_CHECKING:
    from .domain.transparency.cosignatures import WitnessVerifier
    from .domain.transparency.log import LogSigner

log = logging.getLogger("evidence-server")
# The exit status of a command refused a database that a newer release migrated.
REFUSED = 2
# Seconds a serving process has, after SIGTERM, to answer what it received (REST requests, gRPC
# calls) before what is left is cut off: gunicorn's graceful_timeout, the gRPC server's stop
# grace. `serve` gives its processes that and STOP_MARGIN to exit before it kills them.
GRACE = 10
STOP_MARGIN = 5


class BadOption(Exception):
    """An option the command cannot start with (the message says which and why)."""


def _settings(args: argparse.Namespace) -> Settings:
    settings = _read_settings(args)
    _witnesses(settings)  # refused at start when malformed
    return settings


def _witnesses(settings: Settings) -> Any:
    from .domain.transparency import witnessing

    try:
        return witnessing.parse_witnesses(settings.witnesses, settings.witness_quorum)
    except witnessing.BadWitness as error:
        raise BadOption(str(error)) from None


def _witnessing(settings: Settings) -> Any:
    """A thread asking the witnesses to cosign the logs' new entries until `stop` is set (its
    Event), or None without witnesses."""
    import threading

    from .domain.transparency import witnessing

    witnesses = _witnesses(settings)
    if not witnesses.each:
        return None
    signer = _prepare_log_key(settings)
    stop = threading.Event()
    submitter = witnessing.Submitter(witnesses, signer, signer.name)
    thread = threading.Thread(target=submitter.run, args=(stop,), name="witnesses", daemon=True)
    thread.start()
    log.info("witnesses asked to cosign the logs: %d (quorum %d)", len(witnesses.each),
             witnesses.quorum)
    return stop


def _read_settings(args: argparse.Namespace) -> Settings:
    return Settings.from_env(
        http_addr=getattr(args, "http_addr", None),
        grpc_addr=getattr(args, "grpc_addr", None),
        database_url=getattr(args, "database_url", None),
        grpc_target=getattr(args, "grpc_target", None),
        public_url=getattr(args, "public_url", None),
        http_workers=getattr(args, "workers", None),
        http_threads=getattr(args, "http_threads", None),
        grpc_workers=getattr(args, "grpc_workers", None),
        grpc_threads=getattr(args, "grpc_threads", None),
        log_key_file=getattr(args, "log_key_file", None),
        witnesses=tuple(args.witness) if getattr(args, "witness", None) else None,
        witness_quorum=getattr(args, "witness_quorum", None),
    )


def masked(url: str) -> str:
    """`url` with its password, if any, as `***`: fit for logs and the terminal."""
    parsed = urlparse(url)
    if parsed.password is None:
        return url
    credentials, _, host = parsed.netloc.rpartition("@")
    return parsed._replace(netloc=f"{credentials.partition(':')[0]}:***@{host}").geturl()


class DatabaseUnavailable(Exception):
    """The command's database is missing (where the command must not create it), unreadable or
    unreachable: said in one line, exit 2."""


def _open_database(settings: Settings, *, existing: bool = False) -> None:
    """Point the storage at the settings' database and connect once, so that a database that
    cannot be used is named before anything else runs. `existing`: a SQLite file must be there
    already (a command that only reads must not leave an empty database behind)."""
    url = settings.database_url
    where = masked(url)
    missing = _missing_sqlite(url)
    if existing and missing:
        raise DatabaseUnavailable(f"no database at {missing} ({where})")
    try:
        db = init_database(url)
        db.connect(reuse_if_open=True)
        db.execute_sql("SELECT 1")
    except (OSError, peewee.OperationalError) as error:
        raise DatabaseUnavailable(f"cannot open the database {where}: "
                                  f"{' '.join(str(error).split())}") from None
    except peewee.DatabaseError as error:  # e.g. SQLite's "file is not a database"
        if type(error) is not peewee.DatabaseError:
            raise
        raise DatabaseUnavailable(f"cannot use the database {where}: "
                                  f"{' '.join(str(error).split())}") from None
    except ValueError as error:  # an unsupported URL
        raise DatabaseUnavailable(str(error)) from None
    finally:
        release_connections()


def _missing_sqlite(url: str) -> str | None:
    """The path of a SQLite database `url` names that is not a file (yet), else None."""
    parsed = urlparse(url)
    if parsed.scheme != "sqlite":
        return None
    path = url[len("sqlite:///"):] if url.startswith("sqlite:///") else parsed.path
    return None if path == ":memory:" or os.path.isfile(path) else path


def _prepare_database(settings: Settings) -> None:
    _open_database(settings)
    _migrate()


def _migrate() -> None:
    applied = migrate()
    if applied:
        log.info("applied migrations: %s", ", ".join(applied))


class LogRefused(Exception):
    """The transparency log cannot be signed: its key is missing or was replaced by a rotation,
    or a log is not consistent with the largest checkpoint signed of it (a restored backup).
    Said in one line, exit 2."""


def _prepare_log_key(settings: Settings) -> LogSigner:
    """The transparency log's signing key: created on the first start of a database that holds
    no log yet (before any process is forked, so that every process signs with the one key),
    read on later ones; then every organization's log checked against the largest checkpoint
    signed of it (domain.transparency.kept)."""
    from .domain.kernel.errors import DomainError
    from .domain.transparency import keys
    from .domain.transparency import log as transparency_log

    try:
        signer = keys.prepare(settings.log_key_file, settings.log_key_name,
                              default=settings.log_key_default)
    except (transparency_log.MissingKey, DomainError) as refused:
        raise LogRefused(str(refused)) from None
    log.info("transparency log key %s (verifier key %s)", settings.log_key_file, signer.vkey)
    return signer


def cmd_grpc(args: argparse.Namespace) -> int:
    """The gRPC server alone: `grpc_processes` server processes on one address."""
    settings = _settings(args)
    _prepare_database(settings)
    _prepare_log_key(settings)
    # Forked children open the database again; none may inherit a parent's connection.
    release_connections()
    # Run alone, its first process asks the witnesses (under `serve`, the delivery worker does).
    witnessing = not args.no_witness_submission
    workers = settings.grpc_processes
    if workers == 1:
        return _grpc_process(settings, witnessing)
    address, reservation = _reserved_address(settings.grpc_addr)
    settings = dataclasses.replace(settings, grpc_addr=address)
    log.info("gRPC server on %s, %d processes", address, workers)
    with reservation or contextlib.nullcontext():
        return _forked(workers, lambda index: _grpc_process(settings, witnessing and index == 0))


def _grpc_process(settings: Settings, witnessing: bool) -> int:
    """One gRPC server process until SIGTERM (grpc must not have started any server or
    channel in this process before: grpcio cannot survive a fork); with `witnessing`, it asks
    the witnesses too."""
    from .server import build_server

    init_database(settings.database_url)
    asking = _witnessing(settings) if witnessing else None
    server, port = build_server(settings)
    # What the process holds for its life leaves the collector's generations (as in the shim's
    # workers): full collections scan only what calls make.
    gc.collect()
    gc.freeze()
    server.start()
    log.info("gRPC server process %d on %s", os.getpid(), settings.grpc_addr)
    # stop(GRACE) refuses new calls and connections at once and lets the calls in flight run
    # for up to GRACE seconds; wait_for_termination returns when the last one ended.
    signal.signal(signal.SIGTERM, lambda *_: server.stop(GRACE))
    try:
        server.wait_for_termination()
    except KeyboardInterrupt:
        server.stop(GRACE).wait()
    if asking is not None:
        asking.set()
    return 0


def _reserved_address(address: str) -> tuple[str, socket.socket | None]:
    """`address` itself, or with port 0 a free port all workers will share, held by a bound
    (not listening) SO_REUSEPORT socket until they stop, so no other program takes it."""
    host, _, port = address.rpartition(":")
    if port != "0":
        return address, None
    bare = host.strip("[]")
    reservation = socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET)
    reservation.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    reservation.bind((bare, 0))
    return f"{host}:{reservation.getsockname()[1]}", reservation


def _forked(workers: int, run: Any) -> int:
    """Run `run(index)` in `workers` forked children (index 0 to workers - 1) until a signal
    stops them all (exit 0) or one ends by itself (the others are stopped, exit 1)."""
    pids: list[int] = []
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True
        for child in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)

    # A signal that arrives while the children are forked waits until every one of them is
    # known to `stop` (the children start with the signals as they were, unblocked).
    stopping_signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stopping_signals)
    try:
        for index in range(workers):
            pid = os.fork()
            if pid == 0:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, stopping_signals)
                code = 1
                try:
                    code = run(index)
                finally:
                    os._exit(code)
            pids.append(pid)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stopping_signals)
    ended, _ = os.waitpid(-1, 0)
    pids.remove(ended)
    if not stopping:
        log.error("gRPC server process %d ended; stopping the others", ended)
    was_stopping = stopping
    stop()
    for child in pids:
        os.waitpid(child, 0)
    return 0 if was_stopping else 1


def cmd_shim(args: argparse.Namespace) -> int:
    """The REST shim alone (gunicorn, threaded workers: rest_shim.worker)."""
    from gunicorn.app.base import BaseApplication

    settings = _settings(args)
    if not settings.grpc_target:  # the servicers in-process sign checkpoints too
        _prepare_database(settings)
        _prepare_log_key(settings)
        release_connections()

    class Shim(BaseApplication):
        def load_config(self) -> None:
            self.cfg.set("bind", settings.http_addr)
            self.cfg.set("workers", settings.http_processes)
            self.cfg.set("worker_class", "rest_shim.worker.ThreadWorker")
            self.cfg.set("threads", settings.http_threads)
            self.cfg.set("timeout", 120)
            self.cfg.set("keepalive", 30)
            # on SIGTERM, the workers answer what they received for up to GRACE seconds
            # (rest_shim.worker: the drain)
            self.cfg.set("graceful_timeout", GRACE)
            # gunicorn's lines in the form of every other line (rest_shim.gunicorn_log)
            self.cfg.set("logger_class", "rest_shim.gunicorn_log.Logger")
            # gunicorn's control socket has one fixed path per user: several shims on a host
            # would take each other's.
            self.cfg.set("control_socket_disable", True)
            # the heartbeat file each worker touches on every turn of its loop
            self.cfg.set("worker_tmp_dir", observability.memory_dir())
            self.cfg.set("child_exit", lambda _, worker: observability.process_exited(worker.pid))

        def load(self) -> Any:
            # Runs in each worker after fork: database connections and gRPC channels are
            # created here, never inherited.
            from rest_shim.app import create_app

            if not settings.grpc_target:
                init_database(settings.database_url)
            app = create_app(settings)
            # What the worker holds for its life (modules, descriptors, templates) leaves the
            # collector's generations: full collections, the pauses behind the p99, scan less.
            gc.collect()
            gc.freeze()
            return app

    # The app's modules are imported once, here, and the workers forked with them: each worker
    # would spend a second of CPU importing them again. Importing opens nothing (no database
    # connection, channel or thread): the app itself is made in each worker (load above).
    import rest_shim.app  # noqa: F401

    log.info("REST shim on http://%s (%s)", settings.http_addr,
             f"gRPC target {settings.grpc_target}" if settings.grpc_target else "in-process")
    Shim().run()
    return 0


def cmd_deliver(args: argparse.Namespace) -> int:
    """The delivery worker alone: sends the outbox's notifications until stopped."""
    import threading

    from . import delivery
    from .services import configure_outbound

    settings = _settings(args)
    _prepare_database(settings)
    configure_outbound(settings)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    log.info("delivery worker on %s", masked(settings.database_url))
    asking = _witnessing(settings)
    delivery.run(stop)
    if asking is not None:
        asking.set()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """The gRPC server, the REST shim and the delivery worker, processes on one database."""
    settings = _settings(args)
    _prepare_database(settings)
    _prepare_log_key(settings)
    release_connections()
    database_args = ["--database-url", settings.database_url]
    # Both doors link to the same pages: the shim's address unless a public URL is given.
    links = ["--public-url", settings.html_base]
    # Every process serves the checkpoint with the witnesses' cosignatures; the delivery
    # worker asks the witnesses.
    witnesses = [*(arg for spec in settings.witnesses for arg in ("--witness", spec)),
                 *(["--witness-quorum", str(settings.witness_quorum)]
                   if settings.witness_quorum else [])]
    me = [sys.executable, "-m", "evidence_grpc.cli"]
    children: list[subprocess.Popen] = []
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.terminate()

    # Before the children start: a signal while they do stops those started, and the loop
    # below then stops the rest.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for command in (
            ["grpc", "--grpc-addr", settings.grpc_addr, *database_args, *links,
             "--grpc-workers", str(settings.grpc_processes),
             "--grpc-threads", str(settings.grpc_threads), "--log-key-file", settings.log_key_file,
             *witnesses, "--no-witness-submission"],
            ["shim", "--http-addr", settings.http_addr, "--workers", str(settings.http_processes),
             "--http-threads", str(settings.http_threads), *database_args, *links,
             "--log-key-file", settings.log_key_file, *witnesses],
            ["deliver", *database_args, *links, "--log-key-file", settings.log_key_file,
             *witnesses]):
        children.append(subprocess.Popen([*me, *command]))
    log.info("REST on http://%s, gRPC on %s, database %s", settings.http_addr, settings.grpc_addr,
             masked(settings.database_url))
    while not stopping and all(c.poll() is None for c in children):
        time.sleep(0.2)
    stop()
    # Each process drains within GRACE seconds of the signal (all of them at once): one that
    # has not ended by then and STOP_MARGIN more is killed.
    deadline = time.monotonic() + GRACE + STOP_MARGIN
    for child in children:
        try:
            child.wait(max(deadline - time.monotonic(), 0))
        except subprocess.TimeoutExpired:
            child.kill()
    return 0 if stopping else 1


def cmd_bootstrap(args: argparse.Namespace) -> int:
    """Create organizations, users and their API keys from a JSON or YAML file."""
    from .domain.identity.organizations import bootstrap
    from .domain.kernel.errors import DomainError

    # A default would write the organizations and keys to ./evidence.db of whatever directory
    # bootstrap runs in, which need not be the server's database.
    if not (args.database_url or os.environ.get("EVIDENCE_DATABASE_URL")):
        print("evidence-server bootstrap: which database? give --database-url or set "
              "EVIDENCE_DATABASE_URL (bootstrap has no default database)", file=sys.stderr)
        return 2
    settings = _settings(args)
    _open_database(settings)
    print(f"evidence-server bootstrap: database {masked(settings.database_url)}", file=sys.stderr)
    _migrate()
    try:
        with open(args.file, encoding="utf-8") as handle:
            spec = yaml.safe_load(handle)
        with database.connection_context():
            counts = bootstrap(spec)
    except (OSError, yaml.YAMLError, KeyError, TypeError, DomainError) as exc:
        print(f"bootstrap failed: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"created": counts}))
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    """Apply pending migrations; with --check, say what would happen (exit 0 nothing, 1 pending
    migrations, 2 migrations this release does not know) and change nothing."""
    settings = _settings(args)
    if args.check and _missing_sqlite(settings.database_url):
        init_database(settings.database_url)  # all pending; connecting would create the file
    else:
        _open_database(settings)
    if not args.check:
        print(json.dumps({"applied": migrate()}))
        return 0
    status = migration_status()
    print(json.dumps({"pending": status.pending, "unknown": status.unknown}))
    return REFUSED if status.unknown else 1 if status.pending else 0


def cmd_check_lists(args: argparse.Namespace) -> int:
    """Check that every paged list's positions and size match its rows (exit 1 naming each that
    does not); with --repair, number and count them again from the rows, the server stopped."""
    from .domain.kernel import list_sizes
    from .storage.db import require_current_schema, write_transaction

    _open_database(_settings(args), existing=True)
    require_current_schema()
    found = list(list_sizes.problems())
    for problem in found:
        print(problem)
    if found and args.repair:
        with write_transaction():
            list_sizes.recount()
        found = list(list_sizes.problems())
        print(f"check-lists: numbered and counted again; {len(found)} problem(s) left")
    else:
        print(f"check-lists: {len(found)} problem(s)")
    return 1 if found else 0


def cmd_rotate_log_key(args: argparse.Namespace) -> int:
    """Rotate the transparency logs' key, the server stopped: a `key_rotated` entry in every
    organization's log binding the verifier keys before and after, the tree it ends signed by
    both keys; the new key (made in --new-key-file when missing, under the old key's name,
    which is the host of every origin) signs from then on, and the kept checkpoints go with it."""
    import shutil

    from .domain.kernel.errors import DomainError
    from .domain.transparency import kept, keys
    from .domain.transparency import log as transparency_log
    from .storage.db import require_current_schema
    from .storage.models import Organization

    settings = _settings(args)
    _open_database(settings, existing=True)
    require_current_schema()
    try:
        old = transparency_log.read_signer(settings.log_key_file)
        new = transparency_log.prepare_signer(args.new_key_file, old.name, has_log=False,
                                              default=False)
    except (OSError, DomainError, transparency_log.MissingKey) as error:
        print(f"rotate-log-key: {error}", file=sys.stderr)
        return REFUSED
    if new.name != old.name or new.vkey == old.vkey:
        print(f"rotate-log-key: the new key must be another key named {old.name} (the host of "
              f"every checkpoint's origin), not {new.vkey}", file=sys.stderr)
        return REFUSED
    with database.connection_context():
        orgs = list(Organization.select().order_by(Organization.name))
        try:
            keys.require_current(old, settings.log_key_file)
            for org in orgs:  # every log consistent before any is rotated
                transparency_log.check_kept(org, old, old.name)
            for org in orgs:
                row = keys.rotate(org, old, new)
                print(f"{org.name}: key_rotated entry {row.size - 1}, the checkpoint of "
                      f"{row.size} entries signed by both keys")
        except DomainError as error:
            print(f"rotate-log-key: {error}", file=sys.stderr)
            return REFUSED
    if os.path.exists(old.checkpoints):
        shutil.copyfile(old.checkpoints, f"{new.checkpoints}.new")
        os.replace(f"{new.checkpoints}.new", new.checkpoints)
    print(f"rotate-log-key: the logs are signed with {new.vkey} from now on: start the server "
          f"with --log-key-file {args.new_key_file} (kept checkpoints: "
          f"{kept.state_file(args.new_key_file)}); keep {settings.log_key_file}")
    return 0


def cmd_begin_new_log(args: argparse.Namespace) -> int:
    """Begin an organization's log again under a new origin, the server stopped: for a log
    that cannot go on (a database restored from a backup older than a checkpoint signed of it,
    no newer backup). Its first entry commits to the old log's largest signed checkpoint and to
    the organization's records, all now from before the log."""
    from .domain.kernel.errors import DomainError
    from .domain.transparency import log as transparency_log
    from .domain.transparency import notes
    from .storage.db import require_current_schema
    from .storage.models import Organization

    settings = _settings(args)
    _open_database(settings, existing=True)
    require_current_schema()
    with database.connection_context():
        org = Organization.get_or_none(Organization.name == args.org)
        if org is None:
            print(f"begin-new-log: no organization '{args.org}'", file=sys.stderr)
            return REFUSED
        try:
            signer = transparency_log.read_signer(settings.log_key_file)
            before = transparency_log.origin(signer.name, org)
            began = transparency_log.begin_again(org, signer, signer.name, args.origin_suffix)
        except (OSError, DomainError, notes.NoteError) as error:
            print(f"begin-new-log: {error}", file=sys.stderr)
            return REFUSED
    print(f"{org.name}: the log {before} ends; the log {began} begins (entry 0 commits to the "
          "old log's largest signed checkpoint and to every record before it)")
    return 0


def cmd_verify_log(args: argparse.Namespace) -> int:
    """Check the transparency logs in the database (exit 0 when they hold, 1 naming what
    differs): every leaf re-derived from its record's row, the stored hashes from the leaves,
    every record that must have an entry having one (or counted by the log's genesis among
    those from before the log), every checkpoint witnesses cosigned extended by the log, and
    with --since, that the log only grew since a checkpoint
    saved earlier (with --witness-key, one cosigned by a quorum of witnesses). Each log is
    read in pages (memory does not grow with it); on a terminal, progress goes to stderr; a
    summary line a log and one for all of them end the output."""
    from .domain.kernel.errors import DomainError
    from .domain.transparency import cosignatures, notes, witnessing
    from .domain.transparency import log as transparency_log
    from .storage.db import read_snapshot, require_current_schema
    from .storage.models import Organization

    try:
        witnesses, quorum = _witness_policy(args)
    except notes.NoteError as error:
        print(f"verify-log: {error}", file=sys.stderr)
        return REFUSED
    if witnesses and not args.since:
        print("verify-log: --witness-key checks the witnesses' cosignatures on the --since "
              "checkpoint: give one", file=sys.stderr)
        return REFUSED
    settings = _settings(args)
    _open_database(settings, existing=True)
    require_current_schema()
    verifier = None
    if args.since:
        try:
            verifier = (notes.parse_verifier_key(open(args.public_key).read().strip())
                        if args.public_key else
                        transparency_log.read_signer(settings.log_key_file).verifier)
        except (OSError, notes.NoteError, DomainError) as error:
            print(f"verify-log: no verifier key: {error}", file=sys.stderr)
            return REFUSED
        saved = open(args.since).read()
        witnessed = cosignatures.quorum_shortfall(saved, witnesses, quorum) if witnesses else ""
    failed = False
    started = time.monotonic()
    entries = findings = 0
    with read_snapshot():
        # every organization: one whose log was deleted may still hold records
        found = list(Organization.select().where(Organization.name == args.org) if args.org
                     else Organization.select().order_by(Organization.name))
        if args.org and not found:
            print(f"verify-log: no organization '{args.org}'", file=sys.stderr)
            return REFUSED
        logs = 0
        for org in found:
            org_started = time.monotonic()
            with _Progress(org.name, transparency_log.size_of(org)) as progress:
                check = transparency_log.check_log(org, progress)
            problems = check.problems + witnessing.unextended(org)
            if not (args.org or check.size or check.entries or problems):
                continue  # no log and nothing that should be in one
            logs += 1
            since = "not asked"
            if verifier is not None:
                grew = transparency_log.verify_growth(org, saved, verifier)
                grew += [f"the saved checkpoint: {witnessed}"] if witnessed else []
                since = "FAILED" if grew else "holds (the log only grew)" + (
                    f", cosigned by {quorum} of {len(witnesses)} witnesses" if witnesses else "")
                problems += grew
            size, root = transparency_log.size_and_root(org)
            for problem in problems:
                print(f"{org.name}: {problem}")
            print(f"{org.name}: {'FAILED' if problems else 'ok'} ({size} entries, root "
                  f"{root.hex()})")
            print(f"{org.name}: checked {check.entries:,} entries and {check.hashes:,} hashes; "
                  f"{_counted(check.rederived, 'leaves re-derived')}; "
                  f"{_counted(check.covered, 'records checked for their entry')}; "
                  f"since the saved checkpoint: {since}; "
                  f"{len(problems)} finding(s) in {time.monotonic() - org_started:.1f} s",
                  flush=True)
            entries += check.entries
            findings += len(problems)
            failed = failed or bool(problems)
    print(f"verify-log: {logs} log(s), {entries:,} entries, {findings} finding(s) in "
          f"{time.monotonic() - started:.1f} s")
    return 1 if failed else 0


def _counted(by_kind: dict[str, int], what: str) -> str:
    """`N <what> (kind n, ...)`, kinds counting none left out."""
    kinds = ", ".join(f"{kind} {count:,}" for kind, count in sorted(by_kind.items()) if count)
    return f"{sum(by_kind.values()):,} {what}" + (f" ({kinds})" if kinds else "")


class _Progress:
    """verify-log's progress on a terminal: a line on stderr, from the first page of entries
    on rewritten at most once a second (organization, entries checked of the total, rate),
    erased at the end; nothing when stderr is not a terminal."""

    def __init__(self, org: str, total: int) -> None:
        self.org, self.total = org, total
        self.shown = sys.stderr.isatty()
        self.started = time.monotonic()
        self.last = float("-inf")

    def __call__(self, checked: int) -> None:
        now = time.monotonic()
        if not self.shown or now - self.last < 1:
            return
        self.last = now
        share = f" ({checked * 100 // self.total} %)" if self.total else ""
        print(f"\rverify-log: {self.org} {checked:,}/{self.total:,} entries{share}, "
              f"{checked / max(now - self.started, 1e-3):,.0f} entries/s\x1b[K", end="", file=sys.stderr,
              flush=True)

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *_: object) -> None:
        if self.shown:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)


def cmd_verify_package(args: argparse.Namespace) -> int:
    """Check audit packages with nothing but them and the log's verifier key (exit 0 when every
    one holds, 1 when one does not); no database, no server. Each finding is a line naming its
    package, and each package ends with its verdict: `PACKAGE: ok` or `PACKAGE: FAILED`."""
    from .domain.transparency import notes
    from .domain.views.audit_packages import check_package

    try:
        with open(args.public_key) as key:
            verifier = notes.parse_verifier_key(key.read().strip())
        witnesses, quorum = _witness_policy(args)
    except (OSError, notes.NoteError) as error:
        print(f"verify-package: {error}", file=sys.stderr)
        return REFUSED
    failed = unreadable = False
    for path in args.files:
        try:
            with open(path, "rb") as package:
                content = package.read()
        except OSError as error:
            print(f"verify-package: {error}", file=sys.stderr)
            unreadable = True
            continue
        check = check_package(content, verifier, witnesses, quorum)
        for problem in check.problems:
            print(f"{path}: {problem}")
        for note in check.notes:
            print(f"{path}: note: {note}")
        print(f"{path}: {'FAILED' if check.problems else 'ok'}", flush=True)
        failed = failed or bool(check.problems)
    return REFUSED if unreadable else 1 if failed else 0


def cmd_witness(args: argparse.Namespace) -> int:
    """A C2SP witness (evidence_grpc/witness.py): cosigns the given logs' checkpoints that
    extend what it cosigned before; or, with --print-verifier-key, prints its key's verifier
    key (the key file made if missing) and exits."""
    from .domain.transparency import notes
    from .witness import Witness, WitnessError, load_or_create_key, serve

    try:
        signer = load_or_create_key(args.key_file, args.name)
        if args.print_verifier_key:
            print(signer.vkey)
            return 0
        if not (args.state and args.listen and args.log):
            raise WitnessError("serving needs --state, --listen and at least one --log")
        logs = [notes.parse_verifier_key(vkey) for vkey in args.log]
        serve(Witness(signer, logs, args.state), args.listen)
    except (WitnessError, notes.NoteError) as error:
        print(f"evidence-server witness: {error}", file=sys.stderr)
        return REFUSED
    return 0


def _witness_policy(args: argparse.Namespace) -> tuple[list[WitnessVerifier], int]:
    """The witnesses' keys given (--witness-key) and how many of them must have cosigned the
    checkpoint (--quorum; default all of them). notes.NoteError on a bad key or quorum."""
    from .domain.transparency import cosignatures, notes

    given = map(cosignatures.parse_witness_key, args.witness_key)
    witnesses = list({key.vkey: key for key in given}.values())
    if args.quorum is None:
        return witnesses, len(witnesses)
    if not 1 <= args.quorum <= len(witnesses):
        raise notes.NoteError(f"--quorum {args.quorum} needs 1 to {len(witnesses)} (the --witness-key given)")
    return witnesses, args.quorum


def _witness_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--witness-key", action="append", default=[], metavar="VKEY",
                   help=f"a witness's verifier key (repeatable): {what} must carry its valid "
                        "cosignature (c2sp.org/tlog-cosignature)")
    p.add_argument("--quorum", type=int, metavar="N",
                   help="how many of the --witness-key must have cosigned (default: all of them)")


def _at_least_one(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def _counts(p: argparse.ArgumentParser, *options: tuple[str, str, str, object]) -> None:
    """Options counting processes or threads: (flag, what it counts, EVIDENCE_ variable,
    default), each at least one."""
    for flag, what, variable, default in options:
        p.add_argument(flag, type=_at_least_one,
                       help=f"{what} (env EVIDENCE_{variable}; default {default})")


def parser() -> argparse.ArgumentParser:
    defaults = Settings()
    top = argparse.ArgumentParser(prog="evidence-server", description=__doc__)
    sub = top.add_subparsers(dest="command", required=True)

    def command(name: str, func: Any, help_text: str, *, http: bool = False,
                grpc: bool = False, target: bool = False, witnesses: bool = False,
                database_default: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text)
        p.set_defaults(func=func)
        p.add_argument("--database-url", help=f"env EVIDENCE_DATABASE_URL (default "
                                              f"{defaults.database_url})" if database_default
                       else "required, or env EVIDENCE_DATABASE_URL")
        if http:
            p.add_argument("--http-addr", help=f"env EVIDENCE_HTTP_ADDR (default {defaults.http_addr})")
            _counts(p, ("--workers", "HTTP worker processes", "HTTP_WORKERS", "two per core"),
                    ("--http-threads", "request threads of each HTTP worker", "HTTP_THREADS",
                     defaults.http_threads))
            p.add_argument("--public-url", help="base of html_url links (env EVIDENCE_PUBLIC_URL)")
        if grpc:
            p.add_argument("--grpc-addr", help=f"env EVIDENCE_GRPC_ADDR (default {defaults.grpc_addr})")
            _counts(p, ("--grpc-workers", "gRPC server processes sharing the address",
                        "GRPC_WORKERS", "one per core"),
                    ("--grpc-threads", "handler threads of each gRPC process", "GRPC_THREADS",
                     defaults.grpc_threads))
        if grpc or http or witnesses:  # the shim runs the servicers in-process too
            p.add_argument("--log-key-file", help="the transparency log's signing key, created "
                                                  "when missing and the database holds no log "
                                                  "(env EVIDENCE_LOG_KEY_FILE; default "
                                                  f"{defaults.log_key_file})")
            p.add_argument("--witness", action="append", metavar="VKEY=URL",
                           help="a witness that cosigns the log's checkpoints: its C2SP verifier "
                                "key and its submission URL prefix; repeatable (env "
                                "EVIDENCE_WITNESSES, space-separated)")
            p.add_argument("--witness-quorum", type=_at_least_one, metavar="N",
                           help="cosignatures a served checkpoint needs (env "
                                "EVIDENCE_WITNESS_QUORUM; default 1: the newest checkpoint any "
                                "witness cosigned, with every cosignature it has)")
        if target:
            p.add_argument("--grpc-target", help="call this gRPC server instead of running the "
                                                 "servicers in-process (env EVIDENCE_GRPC_TARGET)")
        return p

    command("serve", cmd_serve, "gRPC server and REST shim together", http=True, grpc=True)
    grpc_alone = command("grpc", cmd_grpc, "the gRPC server alone", grpc=True)
    grpc_alone.add_argument("--public-url", help="base of html_url links (env EVIDENCE_PUBLIC_URL)")
    # `serve` runs the witness submissions in its delivery worker, not in its gRPC server
    grpc_alone.add_argument("--no-witness-submission", action="store_true", help=argparse.SUPPRESS)
    command("shim", cmd_shim, "the REST shim alone", http=True, target=True)
    command("deliver", cmd_deliver, "the delivery worker of actions' notifications (and of the "
            "witnesses' submissions) alone", witnesses=True).add_argument(
        "--public-url", help="the server's public URL, naming the log's key and checkpoints "
                             "(env EVIDENCE_PUBLIC_URL)")
    command("bootstrap", cmd_bootstrap, "create organizations, users and API keys",
            database_default=False).add_argument("file", help="JSON or YAML file")
    command("migrate", cmd_migrate, "apply pending database migrations").add_argument(
        "--check", action="store_true",
        help='print {"pending": [...], "unknown": [...]} and change nothing: exit 0 when up to '
             "date, 1 with pending migrations, 2 with migrations this release does not know")
    command("check-lists", cmd_check_lists,
            "check that the paged lists' positions and sizes match their rows (exit 1 naming "
            "each list that does not)").add_argument(
        "--repair", action="store_true",
        help="number and count every list again from its rows (the server stopped)")
    rotate = command("rotate-log-key", cmd_rotate_log_key,
                     "rotate the transparency logs' key, the server stopped (an entry in every "
                     "log, signed by both keys)")
    rotate.add_argument("--log-key-file", help="the key now (env EVIDENCE_LOG_KEY_FILE; default "
                                               f"{defaults.log_key_file})")
    rotate.add_argument("--new-key-file", required=True,
                        help="the key from now on, made (mode 0600) when missing")
    begin = command("begin-new-log", cmd_begin_new_log,
                    "begin an organization's log again under a new origin, the server stopped "
                    "(its database restored from a backup older than a signed checkpoint)")
    begin.add_argument("--org", required=True)
    begin.add_argument("--origin-suffix", required=True,
                       help="the new origin is <key name>/<org><suffix>, e.g. -2")
    begin.add_argument("--log-key-file", help="env EVIDENCE_LOG_KEY_FILE; default "
                                              f"{defaults.log_key_file}")
    verify = command("verify-log", cmd_verify_log,
                     "check the transparency logs against the stored records (exit 1 naming "
                     "what differs)")
    verify.add_argument("--org", help="only this organization's log")
    verify.add_argument("--since", help="a checkpoint saved earlier: prove the log only grew")
    verify.add_argument("--public-key", help="the log's verifier key file (default: the key of "
                                             "--log-key-file)")
    verify.add_argument("--log-key-file", help="env EVIDENCE_LOG_KEY_FILE")
    _witness_options(verify, "the --since checkpoint")
    package = sub.add_parser("verify-package", help="check audit packages offline with the "
                                                    "log's verifier key (exit 1 naming what fails)")
    package.set_defaults(func=cmd_verify_package)
    package.add_argument("files", nargs="+", metavar="FILE",
                         help="an audit package (.tar.gz); several are checked one by one")
    package.add_argument("--public-key", required=True,
                         help="the log's verifier key (GET /api/v2/transparency/{org}/public-key)")
    _witness_options(package, "each package's checkpoint")
    witness = sub.add_parser("witness", help="a C2SP tlog-witness: cosign the logs' checkpoints that only "
                                             "grew (POST /add-checkpoint)")
    witness.set_defaults(func=cmd_witness)
    witness.add_argument("--name", required=True, help="the witness's key name, e.g. witness.example.com/w1")
    witness.add_argument("--key-file", required=True, help="the witness's signer key, created (mode 0600) "
                                                           "when missing")
    witness.add_argument("--print-verifier-key", action="store_true",
                         help="print the witness's verifier key (for clients' --witness-key) and exit")
    witness.add_argument("--state", help="the file of the latest checkpoint cosigned for each log")
    witness.add_argument("--listen", help="HOST:PORT to answer on")
    witness.add_argument("--log", action="append", metavar="VKEY",
                         help="a log's verifier key; its name is the log's origin (repeatable)")
    return top


SERVING = ("serve", "grpc", "shim", "deliver")


def main(argv: list[str] | None = None) -> int:
    observability.configure_logging(os.environ.get("EVIDENCE_LOG_FORMAT", "json"))
    args = parser().parse_args(argv)
    try:
        return _run(args)
    except (UnknownMigrations, PendingMigrations, DatabaseUnavailable, BadOption,
            LogRefused) as refused:
        print(f"evidence-server {args.command}: {refused}", file=sys.stderr)
        return REFUSED


def _run(args: argparse.Namespace) -> int:
    if args.command not in SERVING or os.environ.get(observability.MULTIPROC_ENV):
        return args.func(args)  # a tool, or a process of a server whose metrics are set up
    # The server's processes (and those they start) write their metrics to one directory,
    # which /metrics reads: EVIDENCE_METRICS_DIR, or a temporary one removed at exit.
    chosen = os.environ.get("EVIDENCE_METRICS_DIR")
    directory = observability.prepare_metrics_dir(chosen)
    # Every process of this server signs web sessions with one secret (children inherit it).
    os.environ.setdefault("EVIDENCE_SESSION_SECRET", secrets.token_hex(32))
    try:
        return args.func(args)
    finally:
        # the variable goes with the directory: a command run in-process (a test) leaves
        # nothing for the servers started after it to write to
        os.environ.pop(observability.MULTIPROC_ENV, None)
        if not chosen:
            observability.remove_metrics_dir(directory)


if __name__ == "__main__":
    sys.exit(main())
