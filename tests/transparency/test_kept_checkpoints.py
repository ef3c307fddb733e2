"""No silent forks, no silent keys (domain.transparency.kept, cli._prepare_log_key), on both
engines: the largest checkpoint signed of each log is kept beside the key, and a log that is not
an extension of it (a restored backup written on) is never signed again; a start refuses it, and
refuses to make a key for a database that holds a log."""

from __future__ import annotations

import json
import re
import shutil
import threading

import pytest

from evidence_grpc import cli
from evidence_grpc.config import Settings
from evidence_grpc.domain.transparency import kept, log, notes
from evidence_grpc.domain.views.audit_packages import verify_package
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import (
    LogEntry,
    LogHead,
    LogKeyRotation,
    Organization,
    TrailEvent,
)
from tests import independent_verifier as independent
from tests.conftest import LOG_KEY_FILE
from tests.helpers import H, begin_trail, create_flow

CHECKPOINT = "/api/v2/transparency/acme/checkpoint"


@pytest.fixture
def key_file(tmp_path) -> str:
    """A key of this test's own, so that its kept checkpoints are this test's alone."""
    made = str(tmp_path / "log.key")
    shutil.copy(LOG_KEY_FILE, made)
    return made


@pytest.fixture
def settings(db: str, key_file: str) -> Settings:
    return Settings(database_url=db, public_url="http://evidence.test", log_key_file=key_file)


def _grow_to(size: int, written: str = "before") -> None:
    """Entries until acme's log holds `size` (its genesis the first), each saying `written`."""
    acme = Organization.get(Organization.name == "acme")
    while log.size_of(acme) < size:
        with storage.write_transaction():
            log.append(acme.id, "note", log.size_of(acme), {"kind": "note", "said": written})


def _signed(client) -> tuple[int, bytes]:
    answer = client.get(CHECKPOINT, headers=H)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    key = client.get("/api/v2/transparency/acme/public-key", headers=H).get_data(as_text=True)
    return independent.open_checkpoint(answer.get_data(as_text=True), key)[1:]


def _backup() -> tuple[list[dict], tuple[int, str]]:
    acme = Organization.get(Organization.name == "acme")
    head = LogHead.get(LogHead.organization == acme)
    return (list(LogEntry.select().where(LogEntry.organization == acme).dicts()),
            (head.size, head.frontier))


def _restore(backup: tuple[list[dict], tuple[int, str]]) -> None:
    """acme's log as the backup holds it: what a database restored from it holds."""
    rows, (size, frontier) = backup
    acme = Organization.get(Organization.name == "acme")
    with storage.write_transaction():
        LogEntry.delete().where(LogEntry.organization == acme).execute()
        LogEntry.insert_many(rows).execute()
        LogHead.update(size=size, frontier=frontier).where(LogHead.organization == acme).execute()


def _kept(key_file: str) -> list[kept.Kept]:
    return list(kept.read(kept.state_file(key_file)).values())


def test_a_restored_backup_written_on_is_never_signed(client, settings, key_file, capsys):
    create_flow(client)
    begin_trail(client)  # records whose rows must each have an entry (a trail event)
    _grow_to(13)
    backup = _backup()
    _grow_to(16)
    signed = _signed(client)
    assert [(each.size, each.root) for each in _kept(key_file)] == [signed]
    _restore(backup)
    for size, why in ((13, "smaller than what was signed"), (15, "smaller than what was signed"),
                      (16, "the same size with another root"),
                      (17, "not an extension of it")):
        _grow_to(size, "after the restore")
        answer = client.get(CHECKPOINT, headers=H)
        assert answer.status_code == 503, answer.get_data(as_text=True)
        message = answer.json["message"]
        assert f"holds {size} entries" in message and why in message
        assert f"checkpoint of 16 entries (root {signed[1].hex()}, kept in {key_file}.checkpoints)" \
            in message and "Restore a database backup holding at least those 16 entries" in message
        with pytest.raises(cli.LogRefused, match=f"'acme' holds {size} entries"):
            cli._prepare_log_key(settings)
    [held] = _kept(key_file)
    assert (held.size, held.root) == signed  # unchanged

    # no newer backup: the log begins again under a new origin, committing to the old one
    assert cli.main(["begin-new-log", "--database-url", settings.database_url, "--log-key-file",
                     key_file, "--org", "acme", "--origin-suffix", "-2"]) == 0
    assert "acme: the log evidence.test/acme ends; the log evidence.test/acme-2 begins" in \
        capsys.readouterr().out
    cli._prepare_log_key(settings)
    origin, size, _ = independent.open_checkpoint(
        client.get(CHECKPOINT, headers=H).get_data(as_text=True),
        client.get("/api/v2/transparency/acme/public-key", headers=H).get_data(as_text=True))
    assert (origin, size) == ("evidence.test/acme-2", 1)
    acme = Organization.get(Organization.name == "acme")
    genesis = json.loads(log.entry(acme, 0).leaf)
    assert genesis["previous"] == {"origin": "evidence.test/acme", "size": 16,
                                   "checkpoint": held.checkpoint}
    assert genesis["records"]["trail_event"]["count"] == 1
    assert log.verify_log(acme) == []
    TrailEvent.update(type="trail_updated").execute()  # a record from before the new log edited
    assert log.verify_log(acme) == [
        "entry 0: the log's genesis commits to 1 trail_event rows before the log (up to id "
        f"{TrailEvent.get().id}); they have been changed, replaced or added to"]


def test_a_log_that_grew_is_kept_and_the_same_tree_reads_no_file(client, key_file, monkeypatch):
    _grow_to(3)
    first = _signed(client)
    _grow_to(7)
    second = _signed(client)
    assert [(each.size, each.root) for each in _kept(key_file)] == [second] and first != second
    monkeypatch.setattr(kept, "read", lambda path: pytest.fail("read again"))
    assert _signed(client) == second


def test_a_checkpoint_read_before_another_process_signed_a_larger_one_is_signed(
        client, settings, key_file):
    """A read's snapshot may be older than the largest kept checkpoint (another process wrote
    and signed since): the tree committed now, read outside the snapshot, extends both."""
    _grow_to(5)
    signer = log.read_signer(key_file)
    acme = Organization.get(Organization.name == "acme")
    with storage.read_snapshot():
        size = log.size_of(acme)

        def elsewhere() -> None:
            with storage.database.connection_context():
                _grow_to(9)
                log.checkpoint(acme, signer, signer.name)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
        note = log.checkpoint(acme, signer, signer.name)
    assert note.split("\n")[1] == str(size) == "5"
    assert [each.size for each in _kept(key_file)] == [9]


@pytest.mark.parametrize("engine", ["sqlite"])  # where the key is does not depend on the engine
def test_a_start_without_the_key_of_an_existing_log_refuses_naming_it(settings, tmp_path):
    missing = str(tmp_path / "elsewhere" / "log.key")
    moved = Settings(database_url=settings.database_url, log_key_file=missing)
    cli._prepare_log_key(moved)  # no log yet: a key is made
    assert log.read_signer(missing)
    _grow_to(2)
    (tmp_path / "elsewhere" / "log.key").unlink()
    with pytest.raises(cli.LogRefused, match=f"no transparency log key at {missing}: the "
                                             "database already holds a transparency log"):
        cli._prepare_log_key(moved)
    assert not (tmp_path / "elsewhere" / "log.key").exists()


@pytest.mark.parametrize("engine", ["sqlite"])
def test_the_default_key_is_the_users_and_a_key_left_in_the_working_directory_is_named(
        db, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    settings = Settings(database_url=db)
    assert settings.log_key_file == str(tmp_path / "state" / "evidence-server" / "log.key")
    shutil.copy(LOG_KEY_FILE, tmp_path / "evidence-log.key")  # where earlier releases kept it
    _grow_to(2)
    with pytest.raises(cli.LogRefused, match=re.escape(
            f"a key is at {tmp_path / 'evidence-log.key'}, where earlier releases kept it by "
            f"default: move it to {settings.log_key_file}, or pass --log-key-file "
            f"{tmp_path / 'evidence-log.key'}")):
        cli._prepare_log_key(settings)
    assert not (tmp_path / "state").exists()
    (tmp_path / "state" / "evidence-server").mkdir(parents=True)
    shutil.move(tmp_path / "evidence-log.key", settings.log_key_file)
    cli._prepare_log_key(settings)


def test_a_rotation_is_an_entry_signed_by_both_keys_and_the_history_says_who_signed_what(
        client, settings, key_file, tmp_path, capsys):
    from rest_shim.app import create_app
    from tests.transparency.test_log import write_evidence

    write_evidence(client)
    before = client.get(CHECKPOINT, headers=H).get_data(as_text=True)
    old = log.read_signer(key_file)
    new_file = str(tmp_path / "new" / "log.key")
    assert cli.main(["rotate-log-key", "--database-url", settings.database_url,
                     "--log-key-file", key_file, "--new-key-file", new_file]) == 0
    said = capsys.readouterr().out
    new = log.read_signer(new_file)
    acme = Organization.get(Organization.name == "acme")
    [rotation] = LogKeyRotation.select().where(LogKeyRotation.organization == acme)
    assert f"acme: key_rotated entry {rotation.size - 1}, the checkpoint of {rotation.size} " \
           "entries signed by both keys" in said
    assert json.loads(log.entry(acme, rotation.size - 1).leaf) == {
        "kind": "key_rotated", "org": "acme", "old_key": old.vkey, "new_key": new.vkey,
        "created_at": rotation.created_at}
    for signer in (old, new):  # each key alone verifies the rotation's checkpoint
        assert notes.open_checkpoint(rotation.checkpoint, signer.verifier).size == rotation.size
    assert log.verify_log(acme) == []
    assert log.verify_growth(acme, before, old.verifier) == []

    # the server starts with the new key only; the old one is named as replaced
    with pytest.raises(cli.LogRefused, match="was replaced by a rotation: the logs are signed "
                                             f"with {re.escape(new.vkey)}"):
        cli._prepare_log_key(settings)
    rotated = Settings(database_url=settings.database_url, public_url="http://evidence.test",
                       log_key_file=new_file)
    cli._prepare_log_key(rotated)
    after = create_app(rotated).test_client()
    assert notes.open_checkpoint(after.get(CHECKPOINT, headers=H).get_data(as_text=True),
                                 new.verifier).size == rotation.size
    package = after.get("/api/v2/trails/acme/payments/release-1/audit_package", headers=H)
    assert verify_package(package.data, new.verifier) == []
    answer = after.get("/api/v2/transparency/acme/public-key/history", headers=H)
    assert answer.status_code == 200, answer.json
    assert answer.json == {"keys": [
        {"verifier_key": old.vkey, "first_size": 0, "last_size": rotation.size,
         "rotation_checkpoint": ""},
        {"verifier_key": new.vkey, "first_size": rotation.size, "last_size": None,
         "rotation_checkpoint": rotation.checkpoint}]}
    # a rewritten rotation is named by verify-log
    LogKeyRotation.update(new_key=old.vkey).where(LogKeyRotation.id == rotation.id).execute()
    assert log.verify_log(acme) == [f"entry {rotation.size - 1}: key_rotated {rotation.id} "
                                    "differs from its leaf (new_key)"]


def test_a_log_begun_again_digests_the_columns_migration_0026_did():
    """The columns of the rows from before a log that its genesis digests, as the genesis of
    an upgraded database has them (the check reads both the same way)."""
    import importlib

    from evidence_grpc import domain

    assert domain  # the kinds are registered when the domain is imported
    genesis = importlib.import_module("evidence_grpc.storage.migrations.0026_log_genesis")
    assert {kind: (where.split()[1], columns) for kind, (where, columns) in genesis.KINDS.items()
            } == {kind: (table, columns) for kind, (table, columns) in log._FROZEN.items()}
