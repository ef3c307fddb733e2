"""What the official kosli CLI shows of the hosted service's behaviour and wording, end to end:
an artifact reported to a trail that is not there begins it, errors for missing things and
refused names read as the hosted service words them, `--interval NOW`, and the attestation type
table (on every engine under test)."""

from __future__ import annotations

import pathlib
import re

import pytest

from tests.conftest import RunningServer
from tests.e2e.cli import Repo, failure, unique

pytestmark = pytest.mark.e2e

FINGERPRINT = "7509e5bda0c762d2bac7f90d758b5b2263fa01ccbc542ab5e3df163be08e6ca9"
SCHEMA = '{"type": "object", "properties": {"age": {"type": "integer"}}}'


def test_attesting_an_artifact_begins_its_trail(live: RunningServer, tmp_path: pathlib.Path):
    flow = unique("implicit")
    live.kosli("create", "flow", flow, "--use-empty-template")
    repo = Repo(tmp_path / "repo")
    live.kosli("attest", "artifact", "file1", "--fingerprint", FINGERPRINT, "--flow", flow,
               "--trail", "test-321", "--name", "cli", "--commit", repo.commit("first"),
               "--repo-root", str(repo.root), "--build-url", "https://ci.example/1", "--commit-url", "https://git.example/c")
    trail = live.kosli_json("get", "trail", "test-321", "--flow", flow)
    assert trail["name"] == "test-321"
    # The begun trail takes attestations about the artifact.
    live.kosli("attest", "generic", "--name", "cli.check", "--fingerprint", FINGERPRINT,
               "--flow", flow, "--trail", "test-321", "--compliant=true")
    missing = live.kosli("attest", "generic", "--name", "cli.check", "--fingerprint",
                         "1" * 64, "--flow", flow, "--trail", "test-321", check=False)
    assert failure(missing).endswith(
        f"Artifact with fingerprint {'1' * 64} does not exist in trail \"test-321\" of flow "
        f"\"{flow}\" belonging to organization \"acme\"\n")


def test_missing_things_and_refused_names_read_as_the_hosted_service_words_them(
        live: RunningServer):
    flow = unique("words")
    live.kosli("create", "flow", flow, "--use-empty-template")
    # Some commands put their name in brackets before the server's message.
    cases = {
        ("rename", "flow", "non-existing", "x"):
            "Flow named 'non-existing' does not exist for organization 'acme'\n",
        ("rename", "environment", "non-existing", "x"):
            "Environment named 'non-existing' does not exist for organization 'acme'\n",
        ("get", "trail", "foo", "--flow", flow):
            f"Trail with name 'foo' does not exist for Organization 'acme' and Flow "
            f"'{flow}'\n",
        ("get", "attestation-type", "foo"):
            "Custom attestation type 'foo' does not exist for org 'acme'\n",
        ("search", "f040404f9fb3447ed0c8ad48c6af12d5e94513ca"):
            "No matches for 'f040404f9fb3447ed0c8ad48c6af12d5e94513ca'.\n",
        ("get", "policy", "non-existing"):
            "Policy 'non-existing' does not exist in organization 'acme'\n",
        ("get", "artifact", f"{flow}@{'8' * 64}"):
            f"Artifact with fingerprint '{'8' * 64}' does not exist in flow '{flow}' belonging "
            "to organization 'acme'\n",
        ("list", "artifacts", "--flow", "non-existing"):
            "Flow named 'non-existing' does not exist for organization 'acme'\n",
        ("list", "artifacts", "--repo", "non-existing"): "Repo 'non-existing' not found\n",
        ("archive", "control", "no-such-control"):
            "Control 'no-such-control' does not exist in organization 'acme'\n",
        ("archive", "environment", "non-existing"):
            "Environment named 'non-existing' does not exist for organization 'acme'\n",
        ("rename", "flow", flow, "new illegal name"):
            "Input payload validation failed: map[new_name:String should match pattern "
            "'^[a-zA-Z0-9][a-zA-Z0-9\\.\\-_~]*$' [input: new illegal name]]\n",
    }
    for args, said in cases.items():
        text = failure(live.kosli(*args, check=False))
        assert re.fullmatch(r"Error: (\[kosli [^\]]*\] )?" + re.escape(said), text), (args, text)


def test_interval_now_lists_the_latest_snapshot(live: RunningServer, tmp_path: pathlib.Path):
    env = unique("now")
    live.kosli("create", "environment", env, "--type", "server")
    for paths in ("a", "a,b"):
        files = []
        for name in paths.split(","):
            (tmp_path / name).write_text(name + paths)
            files.append(str(tmp_path / name))
        live.kosli("snapshot", "server", env, "--paths", ",".join(files))
    listed = live.kosli_json("list", "snapshots", env, "--interval", "NOW")
    assert [s["index"] for s in listed] == [2]
    live.kosli("log", "environment", env, "--interval", "NOW")


def test_attestation_type_table_shows_the_organization(live: RunningServer,
                                                       tmp_path: pathlib.Path):
    name = unique("person")
    schema = tmp_path / "schema.json"
    schema.write_text(SCHEMA)
    live.kosli("create", "attestation-type", name, "--schema", str(schema), "--jq", ".age > 21")
    table = [line.rstrip() for line in
             live.kosli("get", "attestation-type", name).stdout.splitlines()]
    assert table[:3] == [f"Name:              {name}", "Organization:      acme",
                         "Archived:          false"]
    version = [line.rstrip() for line in
               live.kosli("get", "attestation-type", f"{name}@v1").stdout.splitlines()]
    assert version[:4] == [f"Name:          {name}", "Organization:  acme",
                           "Archived:      false", "Versions:"]
    missing = live.kosli("get", "attestation-type", f"{name}@v10", check=False)
    assert failure(missing).endswith(
        f"] version 10 does not exist for custom attestation type '{name}'\n")
