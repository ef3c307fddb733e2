"""Limits the core holds whatever the door: API keys of at least 20 characters at bootstrap,
and upload and field sizes for gRPC callers as for the REST shim."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from evidence_grpc.domain import organizations
from evidence_grpc.domain.errors import InvalidArgument
from evidence_grpc.storage import db as storage
from evidence_grpc.storage.models import ApiKey, User
from tests.conftest import ALICE_KEY, BOB_KEY, BOOTSTRAP

# ---- API keys ------------------------------------------------------------------------------

def test_the_suites_keys_are_long_enough():
    assert len(ALICE_KEY) >= organizations.MIN_KEY_LENGTH
    assert len(BOB_KEY) >= organizations.MIN_KEY_LENGTH


@pytest.mark.parametrize("key", ["short-key", "x" * 19, {"key": "nineteen-characters"}])
def test_bootstrap_refuses_a_key_shorter_than_20_characters(db, key):
    spec = {"users": [{"name": "erin", "organizations": ["acme"], "api_keys": [key]}]}
    with storage.database.connection_context():
        with pytest.raises(InvalidArgument) as refused:
            organizations.bootstrap(spec)
        assert "at least 20 characters" in refused.value.message
        assert refused.value.errors == {"users[0].api_keys[0]": "is 9 characters long"
                                        if key == "short-key" else "is 19 characters long"}
        assert not User.select().where(User.name == "erin").exists()
        assert ApiKey.select().count() == 2


def test_bootstrap_takes_a_key_of_20_characters(db):
    spec = {"users": [{"name": "erin", "organizations": ["acme"], "api_keys": ["k" * 20]}]}
    with storage.database.connection_context():
        assert organizations.bootstrap(spec)["api_keys"] == 1


def test_the_bootstrap_command_says_why_it_refuses_a_short_key(tmp_path: pathlib.Path):
    spec = dict(BOOTSTRAP, users=[{"name": "erin", "organizations": ["acme"],
                                   "api_keys": [{"key": "SECRET"}]}])
    boot = tmp_path / "bootstrap.json"
    boot.write_text(json.dumps(spec))
    result = subprocess.run([sys.executable, "-m", "evidence_grpc.cli", "bootstrap", str(boot),
                             "--database-url", f"sqlite:///{tmp_path / 'e.db'}"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "at least 20 characters" in result.stderr


def test_the_example_bootstrap_file_is_accepted(db):
    example = pathlib.Path(__file__).resolve().parent.parent / "examples" / "bootstrap.json"
    with storage.database.connection_context():
        organizations.bootstrap(json.loads(example.read_text()))
