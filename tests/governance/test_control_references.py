"""Which policies reference a control (issue 35): a control's answer reads only the policies
that can name it, each text once per process and with libyaml, so that a control write after a
large policy exists does not parse it again; the answers are the same as parsing every policy
with PyYAML."""

from __future__ import annotations

import pytest

from evidence_grpc.domain.governance import policies
from evidence_grpc.domain.kernel import yaml_documents
from evidence_grpc.domain.kernel.yaml_documents import load_mapping, load_stored_mapping
from evidence_grpc.memo import BytesLru
from tests.conftest import bearer
from tests.governance.test_controls import BASE, create, for_control, policy

SCHEMA = "_schema: https://kosli.com/schemas/policy/environment/v1\n"


def big(identifier: str) -> str:
    """A policy naming `identifier` in one of its 100 rules, padded to ~1 MiB by comments."""
    rules = "".join(f"    - name: check-{i}\n      type: generic\n" for i in range(99))
    padding = ("# " + "x" * 1000 + "\n") * 1000
    return (SCHEMA + "artifacts:\n  attestations:\n" + rules + "    - name: decision\n"
            f"      type: decision\n      for_control: {identifier}\n" + padding)


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts read for their control references, with an empty cache."""
    texts: list[str] = []

    def reading(text: str, field: str, subject: str):
        texts.append(text)
        return load_stored_mapping(text, field, subject)

    monkeypatch.setattr(policies, "_REFERENCES", BytesLru(1024 * 1024))
    monkeypatch.setattr(policies, "load_stored_mapping", reading)
    return texts


def test_a_control_write_reads_only_the_policies_that_can_name_it(client, parsed):
    for identifier in ("ctl-1", "ctl-2", "ctl-3"):
        assert create(client, identifier=identifier).status_code == 201
    assert policy(client, "large", big("ctl-1")).status_code == 201
    assert policy(client, "small", for_control("ctl-2")).status_code == 201
    escaped = SCHEMA + ('artifacts:\n  attestations:\n    - name: d\n      type: decision\n'
                        '      for_control: "ctl\\x2d3"\n')  # ctl-3, spelled with an escape
    assert policy(client, "escaped", escaped).status_code == 201
    parsed.clear()

    edited = client.put(f"{BASE}/ctl-2", headers=bearer(), json={"name": "Two"})
    assert edited.get_json()["policies_referencing"] == ["small"]
    assert parsed == [for_control("ctl-2"), escaped]  # not the large one: it cannot name ctl-2

    archived = client.post(f"{BASE}/ctl-3/archive", headers=bearer())
    assert archived.get_json()["policies_referencing"] == ["escaped"]
    assert len(parsed) == 2  # read once per text

    edited = client.put(f"{BASE}/ctl-1", headers=bearer(), json={"name": "One"})
    assert edited.get_json()["policies_referencing"] == ["large"]
    assert parsed[2:] == [big("ctl-1")]
    client.put(f"{BASE}/ctl-1", headers=bearer(), json={"name": "One again"})
    assert len(parsed) == 3

    listed = client.get(BASE, headers=bearer()).get_json()["controls"]
    assert {c["identifier"]: c["policies_referencing"] for c in listed} == {
        "ctl-1": ["large"], "ctl-2": ["small"]}  # ctl-3 is archived
    coverage = client.get(f"{BASE}/ctl-1/coverage", headers=bearer())
    assert coverage.status_code == 200
    assert len(parsed) == 3


@pytest.mark.parametrize("text", [
    big("ctl-1"),
    for_control("ctl-2"),
    SCHEMA + "artifacts:\n  attestations:\n    - &rule {name: d, type: decision, "
             "for_control: 'ctl-4'}\n    - <<: *rule\n      name: e\n",
    SCHEMA + 'artifacts: {attestations: [{name: "d", type: decision, for_control: "c\\u0074l-5"}]}',
    SCHEMA + "artifacts:\n  attestations:\n    - name: >-\n        folded\n        name\n"
             "      type: decision\n      for_control: !!str ctl-6\n",
    "",
])
def test_libyaml_reads_stored_policies_as_pyyaml_does(text):
    assert load_stored_mapping(text, "policy_file", "policy") == \
        load_mapping(text, "policy_file", "policy")


def test_a_text_libyaml_refuses_is_read_by_pyyaml(monkeypatch):
    class Refusing:
        def __init__(self, text: str) -> None:
            raise yaml_documents.yaml.YAMLError("refused")

    monkeypatch.setattr(yaml_documents, "_C_LOADER", Refusing)
    assert load_stored_mapping(for_control("ctl-7"), "policy_file", "policy") == \
        load_mapping(for_control("ctl-7"), "policy_file", "policy")
