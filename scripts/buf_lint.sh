#!/usr/bin/env bash
# Lint protos/ with buf (PyPI buf-bin), offline. The google/* protos our files import (other
# than google/protobuf, built into buf) are copied from the installed googleapis-common-protos
# into the gitignored .buf-deps/ module, which buf.yaml excludes from lint.
# Usage: scripts/buf_lint.sh [extra buf lint arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
rm -rf .buf-deps
"$PYTHON" - <<'EOF'
import pathlib
import re
import shutil

import google.api

site = pathlib.Path(list(google.api.__path__)[0]).parent.parent
deps = pathlib.Path(".buf-deps")
imports = re.compile(r'^import\s+(?:public\s+|weak\s+)?"(google/[^"]+)";', re.M)
pending = [p.read_text() for p in pathlib.Path("protos").rglob("*.proto")]
copied: set[str] = set()
while pending:
    for name in imports.findall(pending.pop()):
        if name.startswith("google/protobuf/") or name in copied:
            continue
        source = site / name
        if not source.is_file():
            raise SystemExit(f"buf_lint: {name} is not in googleapis-common-protos ({site})")
        target = deps / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        copied.add(name)
        pending.append(source.read_text())
print("buf_lint: dependencies", ", ".join(sorted(copied)) or "(none)")
EOF
buf lint "$@"
echo "buf lint: OK"
