"""URLs from callers (repos, builds, commits, origins, external links, policy schemas, webhooks),
checked with the parser that reads them back. urllib.parse refuses some text (an unbalanced IPv6
bracket, a port that is no number or beyond 65535) only when it splits it or reads its host or
port: a stored URL it refuses would fail every read that shows it, so it is refused at the door,
and reads of one stored before treat it as text that is no URL."""

from __future__ import annotations

from typing import Any
from urllib.parse import SplitResult, urlsplit

from .errors import InvalidArgument

# Where reported evidence (trails, artifacts, attestations) carries URLs.
_URL_FIELDS = ("origin_url", "build_url", "commit_url", "repo_url")


def parsed_url(text: str) -> SplitResult | None:
    """`text` split as a URL, its host and port readable; None when urllib.parse refuses it."""
    try:
        parts = urlsplit(text)
        parts.hostname, parts.port  # noqa: B018 - reading them is what raises
    except ValueError:
        return None
    return parts


def not_a_url(text: str) -> str:
    """What is said of a URL `parsed_url` refuses."""
    return f"'{text}' is not a URL: its host or port cannot be read"


def check_reported_urls(data: dict[str, Any]) -> None:
    """The contract's 400 naming each URL of reported evidence the reads could not parse: the
    URL fields, `repo_info.url`, `git_commit_info.url` and each `external_urls` href."""
    found = {name: data.get(name) for name in _URL_FIELDS}
    for part in ("repo_info", "git_commit_info"):
        if isinstance(data.get(part), dict):
            found[f"{part}.url"] = data[part].get("url")
    links = data.get("external_urls")
    if isinstance(links, dict):
        for label, link in links.items():
            if isinstance(link, dict):
                found[f"external_urls.{label}.href"] = link.get("href")
    problems = {field: not_a_url(url) for field, url in found.items()
                if isinstance(url, str) and parsed_url(url) is None}
    if problems:
        raise InvalidArgument("Input payload validation failed", problems)
