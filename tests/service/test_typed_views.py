"""Typed results (docs/architecture.md): the domain's views are typed by the TypedDicts of
evidence_grpc/api/v2/views.py, so mypy (scripts/test.sh) finds a misspelt key or a value of the
wrong kind before run time; and no view function goes untyped."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import textwrap

from mypy import api as mypy_api

import evidence_grpc.domain
from evidence_grpc.api.v2 import flow_service_pb2, views

CHECKED = textwrap.dedent('''
    from evidence_grpc.api.v2 import views

    def misspelt() -> views.Flow:
        return {"nmae": "payments"}

    def wrong_kind() -> views.Flow:
        return {"name": "payments", "archived": "no"}

    def nested() -> views.Trail:
        return {"flow": {"name": "payments", "tagz": {}}}

    def right() -> list[views.Flow]:
        return [{"name": "payments", "tags": {"team": "a"}, "created_at": 1.5, "template": None}]
''')


def test_mypy_refuses_a_view_with_a_key_or_value_its_message_does_not_have(tmp_path):
    module = tmp_path / "checked.py"
    module.write_text(CHECKED)
    out, err, status = mypy_api.run([
        "--config-file", "", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
        "--ignore-missing-imports", "--follow-imports=silent", "--show-error-codes", str(module)])
    assert status == 1, out + err
    lines = {int(m.group(1)): m.group(2) for m in re.finditer(r"checked\.py:(\d+): error: (.*)", out)}
    source = CHECKED.splitlines()
    flagged = {source[number - 1].strip(): text for number, text in lines.items()}
    assert '"nmae"' in flagged['return {"nmae": "payments"}']
    assert '"archived"' in flagged['return {"name": "payments", "archived": "no"}']
    assert 'item "flow"' in flagged['return {"flow": {"name": "payments", "tagz": {}}}']
    assert len(lines) == 3, out  # the right one passes


def test_views_mirror_their_messages():
    """Generated from the descriptors (scripts/gen_views.py): every field, and a contract key
    where the field has one."""
    assert set(views.Flow.__annotations__) == {f.name for f in flow_service_pb2.Flow.DESCRIPTOR.fields}
    assert "_links" in views.Attestation.__annotations__  # the json_key of `links`
    assert len(views.__all__) > 250


def _domain_functions():
    for info in pkgutil.walk_packages(evidence_grpc.domain.__path__, "evidence_grpc.domain."):
        module = importlib.import_module(info.name)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == info.name:
                yield f"{info.name}.{name}", function


def test_every_view_function_answers_a_typed_view():
    """A function named *_view or *_views returns a views.* TypedDict (or a list of them), so
    what it builds is checked against its message."""
    untyped = [name for name, function in _domain_functions()
               if re.search(r"_views?$", function.__name__)
               and not re.fullmatch(r"(list\[)?views\.\w+\]?",
                                    str(function.__annotations__.get("return")))]
    assert untyped == []
