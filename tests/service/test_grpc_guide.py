"""docs/grpc.md's Python example, run as written against a real server: a gRPC client written
only from the guide works (issue 12)."""

from __future__ import annotations

import contextlib
import io
import pathlib
import re

from evidence_grpc.api.v2 import flow_service_pb2
from tests.conftest import ALICE_KEY, ROOT, RunningServer

GUIDE = ROOT / "docs" / "grpc.md"


def example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) == 1, "the guide has one Python example"
    return blocks[0]


def test_the_guides_example_runs_against_a_real_server(server: RunningServer):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example(), str(GUIDE), "exec"),  # noqa: S102 - the documented example
             {"API_KEY": ALICE_KEY, "GRPC_TARGET": server.grpc_target})
    lines = printed.getvalue().splitlines()
    assert lines[:5] == ["created payments", "release-1 COMPLIANT", "unit-tests False 1 failed",
                         "release-1 NON-COMPLIANT",
                         "INVALID_ARGUMENT Input payload validation failed"], lines
    assert lines[5].strip().startswith("name ")


def test_the_proto_files_ship_with_the_stubs():
    shipped = pathlib.Path(flow_service_pb2.__file__).parent.parent / "protos" / "evidence" / "v2"
    sources = ROOT / "protos" / "evidence" / "v2"
    assert sorted(p.name for p in shipped.glob("*.proto")) == \
        sorted(p.name for p in sources.glob("*.proto"))
    assert (shipped / "flow_service.proto").read_text() == \
        (sources / "flow_service.proto").read_text()
