"""The documentation holds: the README is a short front page whose quick start is the two
commands CI relies on, every relative link of README.md, docs/ and bench/README.md resolves (file
and anchor), docs/api.md's endpoint table is the one generated from the http rules, and every
variable the server reads is in docs/operator.md's configuration table. (The README's tour runs
in tests/e2e/test_pipeline_guide.py.)"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text without fenced code blocks and inline code, where nothing is a link or a
    heading."""
    return re.sub(r"`[^`\n]*`", "", FENCE.sub("", text))


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one numbered."""
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", FENCE.sub("", text), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def broken_links(page: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """Each relative link of the page whose file or heading is missing, named by the page's
    path under root."""
    problems = []
    for target in LINK.findall(prose(page.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            problems.append(f"{page.relative_to(root)}: {target}: no such file")
        elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked.read_text())):
            problems.append(f"{page.relative_to(root)}: {target}: no such heading")
    return problems


def test_every_relative_link_resolves():
    assert [problem for page in PAGES for problem in broken_links(page)] == []


def test_a_missing_file_or_heading_is_found(tmp_path: pathlib.Path):
    (tmp_path / "other.md").write_text("# Other\n\n## The log's key (v2)\n\n## Twice\n\n## Twice\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#the-logs-key-v2) [ok](other.md#twice-1) [ok](#top)\n"
                    "[bad](missing.md) [bad](other.md#nowhere) `[code](missing.md)`\n"
                    "```\n[code](missing.md)\n```\n# Top\n")
    assert broken_links(page, tmp_path) == ["page.md: missing.md: no such file",
                                            "page.md: other.md#nowhere: no such heading"]


def test_the_readme_is_a_short_front_page():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail to docs/"


def test_the_quick_start_is_two_commands_and_ci_runs_the_second():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "the quick start has a shell block"
    commands = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["scripts/serve.sh", "scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1].endswith("exec scripts/test.sh"), "CI runs the README's test command"


def test_docs_api_lists_every_endpoint():
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "endpoint_table.py")],
                               capture_output=True, text=True, check=True).stdout
    api = (ROOT / "docs" / "api.md").read_text()
    start = api.index("<!-- endpoints:start -->\n") + len("<!-- endpoints:start -->\n")
    end = api.index("<!-- endpoints:end -->")
    assert api[start:end] == generated, "run: python scripts/endpoint_table.py and update docs/api.md"


def test_every_variable_the_server_reads_is_documented():
    code = "".join((ROOT / "evidence_grpc" / name).read_text() for name in ("config.py", "cli.py"))
    read = set(re.findall(r"\bEVIDENCE_[A-Z][A-Z_]*[A-Z]\b", code))
    # Counts given as (flag, what, VARIABLE, default) to cli._counts, read as EVIDENCE_VARIABLE.
    read |= {f"EVIDENCE_{name}" for name in re.findall(r'\("--[a-z-]+",\s*"[^"]+",\s*"([A-Z_]+)"', code)}
    operator = (ROOT / "docs" / "operator.md").read_text()
    table = operator.split("## Configuration\n", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`(EVIDENCE_[A-Z_]+)`", table))
    assert read >= {"EVIDENCE_DATABASE_URL", "EVIDENCE_HTTP_WORKERS", "EVIDENCE_LOG_KEY_FILE"}
    assert sorted(read - documented) == []
