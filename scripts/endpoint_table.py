"""Print docs/api.md's endpoint table from the google.api.http rules, with each endpoint described
by the comment above its `rpc` in protos/ (an undocumented RPC is an error).

Usage: python scripts/endpoint_table.py   (tests/service/test_docs.py checks docs/api.md matches)
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evidence_grpc.services import service_descriptors  # noqa: E402
from rest_shim.transcoder import routes_of  # noqa: E402

RPC = re.compile(r"((?:^[ \t]*//.*\n)*)^[ \t]*rpc[ \t]+(\w+)\(", re.M)
SERVICE = re.compile(r"^service[ \t]+(\w+)[ \t]*\{", re.M)


def rpc_comments() -> dict[str, str]:
    """{"evidence.v2.Service.Method": first sentence of the comment above the rpc}."""
    comments = {}
    for path in sorted((ROOT / "protos" / "evidence" / "v2").glob("*.proto")):
        text = path.read_text()
        services = [(m.start(), m.group(1)) for m in SERVICE.finditer(text)]
        for match in RPC.finditer(text):
            service = [name for start, name in services if start < match.start()][-1]
            lines = [line.strip().lstrip("/").strip() for line in match.group(1).splitlines()]
            comments[f"evidence.v2.{service}.{match.group(2)}"] = " ".join(lines).strip()
    return comments


def table() -> str:
    comments = rpc_comments()
    rows = ["| Method | Path | gRPC method | What it does |", "|---|---|---|---|"]
    missing = []
    for route in routes_of(service_descriptors()):
        template = route.rule.replace("<path:", "{").replace("<", "{").replace(">", "}")
        summary = comments.get(route.method.full_name, "")
        if not summary:
            missing.append(route.method.full_name)
        rows.append(f"| {route.http_method} | `{template}` | `{route.method.full_name}` | "
                    f"{summary.replace('|', '/')} |")
    if missing:
        raise SystemExit("RPCs without a comment in protos/: " + ", ".join(missing))
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table())
