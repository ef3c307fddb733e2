"""The README's endpoint table is the one generated from the http rules."""

import subprocess
import sys

from tests.conftest import ROOT


def test_readme_lists_every_endpoint():
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "endpoint_table.py")],
                               capture_output=True, text=True, check=True).stdout
    readme = (ROOT / "README.md").read_text()
    start = readme.index("<!-- endpoints:start -->\n") + len("<!-- endpoints:start -->\n")
    end = readme.index("<!-- endpoints:end -->")
    assert readme[start:end] == generated, "run: python scripts/endpoint_table.py and update README.md"
