"""What migrations share, frozen: copies of the column types they create, so that a migration
behaves as it did when it shipped whatever later releases change in storage.models or the
domain (no migration imports either; `lint-imports` checks it)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import peewee


class JSONField(peewee.TextField):
    """JSON stored as text, identical on SQLite and PostgreSQL (storage.models.JSONField as of
    migration 0022: compact separators on write; Python's parser on read, which reads
    everything orjson does and integers past 64 bits)."""

    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, separators=(",", ":"))

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)


# ---- the transparency log's genesis (migrations 0026, 0030) ----------------------------------

PAGE = 5_000  # rows a read


def _row_line(values: Any) -> bytes:
    """domain.transparency.log.row_line as of migration 0026."""
    plain = [int(v) if isinstance(v, bool) else bytes(v).hex() if isinstance(v, bytes | memoryview)
             else v for v in values]
    return json.dumps(plain, separators=(",", ":")).encode() + b"\n"


def rows_before_the_log(db: Any, org: int, kind: str, where: str, columns: list[str],
                        all_rows: bool = False) -> dict[str, Any]:
    """What a genesis says of the organization's `kind` rows that have no entry (`where`: FROM
    and WHERE of its rows, the table as `t`, {p} its organization's id): their count, highest id
    and the SHA-256 of their `columns` (each row's JSON array of its id and those, and a newline,
    in id order). `all_rows`: of every row, logged or not (`"rows": "all"`)."""
    p = db.param
    selected = ", ".join(f't."{c}"' for c in ["id", *columns])
    unlogged = "" if all_rows else (
        f" AND NOT EXISTS (SELECT 1 FROM log_entry e WHERE e.organization_id = {p} AND e.kind = "
        f"{p} AND e.record_id = t.id)")
    sql = f"SELECT {selected} {where.format(p=p)} AND t.id > {p}{unlogged} ORDER BY t.id LIMIT {PAGE}"
    count, last_id, digest = 0, 0, hashlib.sha256()
    while True:
        rows = list(db.execute_sql(sql, (org, last_id) if all_rows else (org, last_id, org, kind)))
        for row in rows:
            digest.update(_row_line(row))
        count += len(rows)
        if rows:
            last_id = rows[-1][0]
        if len(rows) < PAGE:
            break
    claim = {"count": count, "last_id": last_id, "sha256": digest.hexdigest(),
             "table": where.split()[1], "columns": columns}
    return {**claim, "rows": "all"} if all_rows else claim


def _leaf_hash(leaf: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + leaf).digest()


def _node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def append_to_log(db: Any, org: int, kind: str, leaf: bytes) -> None:
    """log.append's writes: entry `size` with the hashes it completes, the head moved on."""
    p = db.param
    head = list(db.execute_sql(f"SELECT id, size, frontier FROM log_head WHERE organization_id "
                               f"= {p}", (org,)))
    if not head:
        db.execute_sql(f"INSERT INTO log_head (organization_id, size, frontier) VALUES ({p}, 0, "
                       f"'[]')", (org,))
        head = list(db.execute_sql(f"SELECT id, size, frontier FROM log_head WHERE "
                                   f"organization_id = {p}", (org,)))
    head_id, size, text = head[0]
    frontier = [bytes.fromhex(h) for h in json.loads(text)]
    made = [_leaf_hash(leaf)]
    number = size
    while number & 1:
        made.append(_node_hash(frontier.pop(), made[-1]))
        number >>= 1
    frontier.append(made[-1])
    db.execute_sql(f"INSERT INTO log_entry (organization_id, number, kind, record_id, leaf, hashes) "
                   f"VALUES ({p}, {p}, {p}, 0, {p}, {p})",
                   (org, size, kind, leaf.decode(), b"".join(made)))
    db.execute_sql(f"UPDATE log_head SET size = {p}, frontier = {p} WHERE id = {p}",
                   (size + 1, json.dumps([h.hex() for h in frontier], separators=(",", ":")),
                    head_id))
