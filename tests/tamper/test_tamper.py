"""The tamper suite (issue 45): every edit of tests/tamper/cases.yaml, made to a copy of an honest
database or audit package, is named by the tool the case says, and the honest ones pass.

This module trusts nothing of the service's own code: it imports nothing of evidence_grpc or
rest_shim (a test below checks). The honest evidence is recorded by the real kosli CLI and REST
against a real server (build.py); the edits are made with sqlite3, psycopg2, tarfile and json;
the tools are run as an auditor runs them, `evidence-server verify-log` and `verify-package`
as processes, and only their exit codes and output are judged. A log rewritten consistently is
rehashed with RFC 9162 code of its own. From the suite it takes the server (`live`), the test
organizations' API keys and the CLI helpers (build.py)."""

from __future__ import annotations

import ast
import base64
import contextlib
import fnmatch
import gzip
import hashlib
import io
import json
import os
import pathlib
import re
import sqlite3
import subprocess
import sys
import tarfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import psycopg2
import pytest
import yaml

from tests.conftest import ALICE_KEY, BOB_KEY, RunningServer
from tests.tamper.build import SMALL_LOGS, Recorded, record

pytestmark = pytest.mark.e2e

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CASES = yaml.safe_load((HERE / "cases.yaml").read_text())
SQL_CASES = {case["id"]: case for case in CASES["sql"]}
PACKAGE_CASES = {case["id"]: case for case in CASES["packages"]}
ORGS = ("acme", *SMALL_LOGS)
KEYS = {"acme": ALICE_KEY, "acme-shared": ALICE_KEY, "other": BOB_KEY}


# ---- databases: copies, statements ---------------------------------------------------------

class Database:
    """A connection to a copy of the honest database, SQLite or PostgreSQL, with the statements
    of the cases written once for both (`?` parameters)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite:")
        self.conn: Any = (sqlite3.connect(url[len("sqlite:///"):], isolation_level=None)
                          if self.sqlite else psycopg2.connect(url))
        if not self.sqlite:
            self.conn.autocommit = True

    def rows(self, sql: str, *params: Any) -> list[tuple[Any, ...]]:
        cursor = self.conn.cursor()
        if self.sqlite:
            cursor.execute(sql, params)
        else:  # psycopg2 reads % as a parameter's mark only when given parameters
            cursor.execute(sql.replace("?", "%s") if params else sql, params or None)
        return cursor.fetchall() if cursor.description else []

    def close(self) -> None:
        self.conn.close()


@contextlib.contextmanager
def copy_of(url: str, directory: pathlib.Path) -> Iterator[str]:
    """The URL of a copy of the database `url` (whose server has stopped): a file copy made with
    SQLite's backup API, or a PostgreSQL database made with CREATE DATABASE ... TEMPLATE."""
    if url.startswith("sqlite:"):
        path = directory / f"copy-{uuid.uuid4().hex[:8]}.db"
        with contextlib.closing(sqlite3.connect(url[len("sqlite:///"):])) as source, \
                contextlib.closing(sqlite3.connect(path)) as target:
            source.backup(target)
        yield f"sqlite:///{path}"
        return
    parsed = urlparse(url)
    name = f"tamper_{uuid.uuid4().hex[:12]}"
    admin = psycopg2.connect(parsed._replace(path="/postgres").geturl())
    admin.autocommit = True
    try:
        with admin.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}" TEMPLATE "{parsed.path[1:]}"')
        yield parsed._replace(path=f"/{name}").geturl()
    finally:
        with admin.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


@dataclass
class Named:
    """What a case's finding must name: the record's row id and its latest entry's number."""
    id: int | None = None
    entry: int | None = None


def _find(db: Database, case: dict[str, Any]) -> Named:
    wanted = case.get("record")
    if not wanted:
        return Named()
    found = db.rows(f"SELECT id FROM {wanted['table']} WHERE {wanted['where']}")
    if not found:
        return Named()
    assert len(found) == 1, (case["id"], found)
    record_id = found[0][0]
    [(entry,)] = db.rows("SELECT MAX(number) FROM log_entry WHERE kind = ? AND record_id = ?",
                         wanted["kind"], record_id)
    return Named(record_id, entry)


def _placeholders(named: Named, orgs: dict[str, int], sizes: dict[str, int]) -> dict[str, Any]:
    return {"id": named.id, "entry": named.entry, "org": orgs, "size": sizes}


def _expected(case: dict[str, Any], named: Named, sizes: dict[str, int]) -> str:
    """The case's regular expression with its placeholders (not its quantifiers) filled in."""
    return re.sub(r"\{(id|entry|size\[([a-z-]+)\])\}",
                  lambda m: str(sizes[m[2]] if m[2] else getattr(named, m[1])), case["names"])


# ---- a log rewritten consistently (RFC 9162 §2.1.1, kept as the service keeps it) ---------

def _leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def rehash(db: Database, org_id: int) -> None:
    """Number the organization's entries 0.. in their order, give each the hashes of the
    subtrees its append completes (level 0, the leaf's hash, first) and the head the log's
    size and right edge (complete subtrees, largest first): a log that holds together."""
    entries = db.rows("SELECT id, leaf FROM log_entry WHERE organization_id = ? ORDER BY number",
                      org_id)
    db.rows("UPDATE log_entry SET number = -1 - number WHERE organization_id = ?", org_id)
    edge: list[bytes] = []
    for number, (row, leaf) in enumerate(entries):
        made = [_leaf_hash(leaf.encode())]
        edge.append(made[0])
        size = number + 1
        while size % 2 == 0:
            right = edge.pop()
            edge[-1] = _node(edge[-1], right)
            made.append(edge[-1])
            size //= 2
        db.rows("UPDATE log_entry SET number = ?, hashes = ? WHERE id = ?", number,
                b"".join(made), row)
    db.rows("UPDATE log_head SET size = ?, frontier = ? WHERE organization_id = ?", len(entries),
            json.dumps([value.hex() for value in edge]), org_id)


# ---- packages ------------------------------------------------------------------------------

def _unpacked(path: pathlib.Path) -> dict[str, bytes]:
    with tarfile.open(path, mode="r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]


def _packed(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, compresslevel=1) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _one(files: dict[str, bytes], pattern: str) -> str:
    found = [name for name in files if fnmatch.fnmatchcase(name, pattern)]
    assert len(found) == 1, (pattern, found)
    return found[0]


def _dumps(value: Any) -> bytes:  # as the packages write JSON
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).encode()


def _pointer(document: Any, pointer: str) -> tuple[Any, str | int]:
    """The container and key RFC 6901 `pointer` names (dicts missing on the way are made)."""
    *path, last = [part.replace("~1", "/").replace("~0", "~") for part in pointer.split("/")[1:]]
    for part in path:
        document = document[int(part)] if isinstance(document, list) else \
            document.setdefault(part, {})
    return document, int(last) if isinstance(document, list) else last


def edited(files: dict[str, bytes], case: dict[str, Any],
           honest: dict[str, dict[str, bytes]]) -> dict[str, bytes]:
    """The package's files with the case's edits made (and, with resum, its sums made anew);
    `honest`: the honest packages by name, that an edit copies from."""
    files = dict(files)
    for edit in case["edits"]:
        if "from_package" in edit:
            _copy_attestation(files, honest[edit["from_package"]], edit["copy"], edit["as"])
        elif "remove" in edit:
            matched = [name for name in files if fnmatch.fnmatchcase(name, edit["remove"])]
            assert matched, edit
            for name in matched:
                del files[name]
        elif "write" in edit:
            name = edit["write"]
            name = _one(files, name) if any(c in name for c in "*?[") else name
            files[name] = files[_one(files, edit["copy_of"])] if "copy_of" in edit else \
                edit["text"].encode()
        elif "json" in edit:
            name = _one(files, edit["json"])
            document = json.loads(files[name])
            for pointer, value in edit.get("set", {}).items():
                parent, key = _pointer(document, pointer)
                parent[key] = value
            for pointer in edit.get("delete", []):
                parent, key = _pointer(document, pointer)
                del parent[key]
            files[name] = _dumps(document)
        elif "drop_entries" in edit:
            carried = json.loads(files["transparency/entries.json"])
            kept = [e for e in carried["entries"] if not (
                fnmatch.fnmatchcase(e["path"], edit["drop_entries"]) and edit.get("kind") in (
                    None, json.loads(base64.b64decode(e["leaf"]))["kind"]))]
            assert len(kept) < len(carried["entries"]), edit
            files["transparency/entries.json"] = _dumps({**carried, "entries": kept})
        elif "checkpoint_size" in edit:
            lines = files["transparency/checkpoint"].decode().split("\n")
            lines[1] = str(int(lines[1]) + edit["checkpoint_size"])
            files["transparency/checkpoint"] = "\n".join(lines).encode()
        else:
            raise AssertionError(f"unknown edit {edit}")
    if case.get("resum"):
        listed = [name for name in files if name not in ("manifest.json", "SHA256SUMS")]
        manifest = json.loads(files["manifest.json"])
        manifest["files"] = [{"path": name, "sha256": hashlib.sha256(files[name]).hexdigest(),
                              "size": len(files[name])} for name in listed]
        files["manifest.json"] = _dumps(manifest)
        files["SHA256SUMS"] = "".join(f"{e['sha256']}  {e['path']}\n"
                                      for e in manifest["files"]).encode()
    return files


def _copy_attestation(files: dict[str, bytes], other: dict[str, bytes], pattern: str,
                      name: str) -> None:
    """The attestation file of `other` matching `pattern` added as `name`, with its record,
    attachments and log entries (their proofs are against the same checkpoint: the packages
    are downloaded together)."""
    source = _one(other, pattern)
    stem = source[len("attestations/"):-len(".json")]
    new = name[len("attestations/"):-len(".json")]
    for path in [p for p in other if p.split("/")[0] in ("attestations", "records", "attachments")
                 and p.split("/")[1].removesuffix(".json") == stem]:
        files[path.replace(stem, new, 1)] = other[path]
    carried = json.loads(files["transparency/entries.json"])
    carried["entries"] += [{**e, "path": name} for e in json.loads(
        other["transparency/entries.json"])["entries"] if e["path"] == source]
    files["transparency/entries.json"] = _dumps(carried)


# ---- the tools, as an auditor runs them ----------------------------------------------------

def _tool(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "evidence_grpc.cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "EVIDENCE_LOG_FORMAT": "text"})


@dataclass
class Outcome:
    code: int
    output: str

    @classmethod
    def of(cls, process: subprocess.Popen[str]) -> Outcome:
        out, err = process.communicate(timeout=180)
        return cls(process.returncode, out + err)


@dataclass
class Run:
    """What the tools said: the honest database and packages, each copy of tampered ones."""
    honest_log: Outcome
    honest_packages: Outcome
    copies: dict[str, Outcome]  # copy -> verify-log's outcome
    packages: Outcome
    named: dict[str, Named]  # case -> its record
    sizes: dict[str, int]  # organization -> its log's size in the honest database
    package_files: dict[str, pathlib.Path]  # case -> its package


@pytest.fixture(scope="module")
def run(live: RunningServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    """Record the honest evidence, stop the server, make every case's edit on copies (the cases
    of one copy together) and run the tools on them all at once."""
    tmp = tmp_path_factory.mktemp("tamper")
    kept: Recorded = record(live, KEYS, tmp)
    live.process.terminate()  # the copies are made of a database nothing writes to
    key = ["--public-key", str(kept.public_key)]
    running = {"honest packages": _tool("verify-package", *map(str, kept.packages.values()), *key)}
    package_files = {}
    honest = {name: _unpacked(path) for name, path in kept.packages.items()}
    (tmp / "tampered").mkdir()
    for name, case in PACKAGE_CASES.items():
        package_files[name] = tmp / "tampered" / f"{name}.tar.gz"
        package_files[name].write_bytes(_packed(edited(honest[case["package"]], case, honest)))
    running["packages"] = _tool("verify-package", *map(str, package_files.values()), *key)
    live.process.wait(30)
    groups: dict[str, list[str]] = {}
    for name, case in SQL_CASES.items():
        groups.setdefault(case.get("copy", "batch"), []).append(name)
    named: dict[str, Named] = {}
    with contextlib.ExitStack() as stack:
        for group, names in groups.items():
            url = stack.enter_context(copy_of(live.database_url, tmp))
            db = Database(url)
            stack.callback(db.close)
            orgs = {org: org_id for org_id, org in db.rows("SELECT id, name FROM organization")}
            sizes = {org: size for org, size in db.rows(
                "SELECT o.name, h.size FROM log_head h JOIN organization o "
                "ON o.id = h.organization_id")}
            named.update((name, _find(db, SQL_CASES[name])) for name in names)
            for name in names:
                for statement in SQL_CASES[name]["sql"]:
                    db.rows(statement.format(**_placeholders(named[name], orgs, sizes)))
            args = ["verify-log", "--database-url", url]
            for name in names:
                case = SQL_CASES[name]
                if named[name].id is None:  # a row the case inserted
                    named[name] = _find(db, case)
                if case.get("rehash"):
                    rehash(db, orgs[case["rehash"]])
                if case.get("since"):
                    args += ["--org", case["since"], "--since",
                             str(kept.checkpoints[case["since"]]), *key]
            db.close()
            running[group] = _tool(*args)
        # once every copy is made: PostgreSQL copies no database another session is connected to
        running["honest log"] = _tool("verify-log", "--database-url", live.database_url)
        outcomes = {name: Outcome.of(process) for name, process in running.items()}
    yield Run(outcomes.pop("honest log"), outcomes.pop("honest packages"),
              {group: outcomes[group] for group in groups}, outcomes["packages"], named, sizes,
              package_files)


def test_the_honest_database_and_packages_pass(run: Run) -> None:
    log = run.honest_log
    assert log.code == 0, log.output
    for org in ORGS:
        assert re.search(rf"^{org}: ok \(\d+ entries, root [0-9a-f]{{64}}\)$", log.output,
                         re.M), log.output
    packages = run.honest_packages
    assert packages.code == 0, packages.output
    lines = packages.output.splitlines()
    assert [line.rsplit(": ", 1)[1] for line in lines if ": note: " not in line] == ["ok", "ok"], \
        packages.output
    # both packages are checked whole (their manifests: nothing left out, verdicts judged again)
    assert [line for line in lines if ": note: " in line] == [], packages.output


@pytest.mark.parametrize("name", list(SQL_CASES))
def test_verify_log_names_each_edit_of_the_database(run: Run, name: str) -> None:
    case = SQL_CASES[name]
    outcome = run.copies[case.get("copy", "batch")]
    assert outcome.code == 1, outcome.output
    wanted = _expected(case, run.named[name], run.sizes)
    assert re.search(wanted, outcome.output, re.M), f"{name}: /{wanted}/ not in\n{outcome.output}"
    if case.get("rehash"):  # rewritten consistently: only the checkpoint saved before shows it
        assert re.search(rf"^{case['rehash']}: checked .*; since the saved checkpoint: FAILED; "
                         r"1 finding\(s\) in ", outcome.output, re.M), outcome.output


@pytest.mark.parametrize("name", list(PACKAGE_CASES))
def test_verify_package_names_each_edit_of_a_package(run: Run, name: str) -> None:
    outcome = run.packages
    assert outcome.code == 1, outcome.output
    prefix = f"{run.package_files[name]}: "
    said = [line[len(prefix):] for line in outcome.output.splitlines() if line.startswith(prefix)]
    assert said[-1] == "FAILED", said
    wanted = PACKAGE_CASES[name]["names"]
    assert any(re.search(wanted, line) for line in said[:-1]), f"{name}: /{wanted}/ not in {said}"


def test_every_case_is_well_formed_and_the_runner_imports_nothing_of_the_service() -> None:
    for name, case in {**SQL_CASES, **PACKAGE_CASES}.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and case["what"], name
        assert "awaits" not in case, f"{name}: every case runs"
        re.compile(case["names"])
    assert not SQL_CASES.keys() & PACKAGE_CASES.keys()
    assert len(SQL_CASES) == len(CASES["sql"]) and len(PACKAGE_CASES) == len(CASES["packages"])
    for module in (HERE / "test_tamper.py", HERE / "build.py"):
        imported = {alias.name.split(".")[0] if isinstance(node, ast.Import) else
                    (node.module or "").split(".")[0]
                    for node in ast.walk(ast.parse(module.read_text()))
                    if isinstance(node, ast.Import | ast.ImportFrom)
                    for alias in (node.names if isinstance(node, ast.Import) else [node])}
        assert not imported & {"evidence_grpc", "rest_shim"}, (module, imported)


def _table(cases: dict[str, dict[str, Any]]) -> str:
    def tool(case: dict[str, Any]) -> str:
        return "verify-package" if "package" in case else \
            "verify-log --since" if case.get("since") else "verify-log"

    rows = [f"| `{name}` | {case['what']} | `{tool(case)}` |" for name, case in cases.items()]
    return "\n".join(["| case | the edit | named by |", "|---|---|---|", *rows])


@pytest.mark.parametrize("part, cases", [("database", SQL_CASES), ("packages", PACKAGE_CASES)])
def test_the_auditors_guide_lists_every_case(part: str, cases: dict[str, dict[str, Any]]) -> None:
    """docs/auditing.md shows the cases as they are kept here (the table between its markers
    is made from cases.yaml: paste the one this test prints when a case changes)."""
    guide = (ROOT / "docs" / "auditing.md").read_text()
    found = re.search(rf"<!-- tamper cases: {part} -->\n(.*?)\n<!-- end -->", guide, re.S)
    assert found and found.group(1) == _table(cases), f"docs/auditing.md, {part}:\n{_table(cases)}"
