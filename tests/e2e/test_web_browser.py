"""The web pages in a real browser (issue 13): headless Chromium from Debian's packages, driven
by Selenium through Debian's chromedriver (no browser download), against a real server fed by
the real kosli CLI. Screenshots of the main pages are kept in test-artifacts/screenshots/."""

from __future__ import annotations

import hashlib
import pathlib
import shutil

import pytest
import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.conftest import ALICE_KEY, ROOT, RunningServer, bearer
from tests.e2e.cli import Repo

pytestmark = pytest.mark.e2e
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
TEMPLATE = ("version: 1\ntrail:\n  attestations:\n    - name: ticket\n      type: generic\n"
            "  artifacts:\n    - name: app\n      attestations:\n"
            "        - name: unit-tests\n          type: junit\n")
JUNIT = ('<?xml version="1.0"?><testsuite name="app" tests="1" failures="0" errors="0" '
         'skipped="0" time="0.1" timestamp="2026-11-25T10:00:00">'
         '<testcase classname="app" name="works" time="0.1"/></testsuite>')


@pytest.fixture
def browser():
    for needed in (CHROMIUM, CHROMEDRIVER):
        assert shutil.which(needed), f"{needed} is missing: apt-get install chromium chromium-driver"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-background-networking", "--disable-sync",
                 "--disable-component-update", "--window-size=1280,1000"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _shot(driver: webdriver.Chrome, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def _deliver(server: RunningServer, tmp_path: pathlib.Path) -> tuple[str, str]:
    """A flow, a trail with an artifact and its evidence, and a snapshot of prod: (commit,
    fingerprint), all through the real CLI."""
    repo = Repo(tmp_path / "work")
    commit = repo.commit("Release the app")
    app = repo.root / "app.tar"
    app.write_bytes(b"app 1.0\n")
    (repo.root / "reports").mkdir()
    (repo.root / "reports" / "junit.xml").write_text(JUNIT)
    template = tmp_path / "flow.yml"
    template.write_text(TEMPLATE)
    server.kosli("create", "flow", "shop", "--template-file", str(template),
                 "--description", "<script>alert('flow')</script>")
    common = ("--flow", "shop", "--trail", commit, "--commit", commit, "--repo-root", str(repo.root))
    server.kosli("begin", "trail", commit, "--flow", "shop")
    server.kosli("attest", "artifact", str(app), "--artifact-type", "file", "--name", "app",
                 "--build-url", "https://ci.example/1", "--commit-url", "https://git.example/c",
                 "--repository", "acme/shop", "--repo-id", "7",
                 "--repo-url", "https://github.com/acme/shop", *common)
    server.kosli("attest", "junit", "--name", "app.unit-tests", "--results-dir",
                 str(repo.root / "reports"), *common)
    server.kosli("attest", "generic", "--name", "ticket", "--compliant=true", *common)
    server.kosli("create", "environment", "prod", "--type", "server")
    server.kosli("snapshot", "server", "prod", "--paths", str(app))
    return commit, hashlib.sha256(b"app 1.0\n").hexdigest()


def _arrives(browser: webdriver.Chrome, url: str) -> None:
    """Wait until the browser shows `url` (a click navigates after it returns)."""
    WebDriverWait(browser, 10).until(lambda b: b.current_url == url,
                                     message=f"never reached {url}")


def test_a_browser_signs_in_and_reads_trail_environment_and_repo_pages(
        server: RunningServer, browser: webdriver.Chrome, tmp_path: pathlib.Path):
    commit, fingerprint = _deliver(server, tmp_path)
    trail = requests.get(f"{server.http_url}/api/v2/trails/acme/shop/{commit}",
                         headers=bearer(), timeout=10).json()

    browser.get(trail["html_url"])  # a private organization: to the sign-in form first
    assert "/sign-in" in browser.current_url
    _shot(browser, "sign-in")
    browser.find_element(By.NAME, "key").send_keys(ALICE_KEY)
    browser.find_element(By.CSS_SELECTOR, "form[action='/sign-in'] button").click()
    # a click returns before the form's answer has loaded: wait for the page it leads to
    _arrives(browser, trail["html_url"])
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith(commit)
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "COMPLIANT" in body and "Attestations (2)" in body
    assert "unit-tests" in body and "ticket" in body and "app.tar" in body
    # its timeline in the words `kosli get trail` prints
    assert "trail started" in body and "'junit' attestation reported for app.unit-tests" in body
    _shot(browser, "trail")
    # each attestation names its log entry, whose page shows its leaf and inclusion proof
    browser.find_element(By.CSS_SELECTOR, "details summary").click()
    entry = browser.find_element(By.CSS_SELECTOR, "details[open] p.entry a")
    index = entry.text.split()[-1]
    entry.click()
    _arrives(browser, f"{server.http_url}/acme/log/entries/{index}")
    assert browser.find_element(By.TAG_NAME, "h1").text == f"Log entry {index}"
    assert browser.find_element(By.CSS_SELECTOR, "pre.proof").text
    _shot(browser, "log-entry")

    browser.get(f"{server.http_url}/acme/flows/shop")
    assert "<script>alert('flow')</script>" in browser.find_element(By.TAG_NAME, "body").text
    _shot(browser, "flow")

    browser.get(f"{server.http_url}/acme/flows/shop/artifacts/{fingerprint}")
    history = browser.find_element(By.XPATH, "//h2[.='History']/following-sibling::table").text
    assert "app reported" in history and "Started running in prod#1 environment" in history
    _shot(browser, "artifact")

    browser.get(f"{server.http_url}/acme/environments/prod")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "Snapshot #1 (latest)" in body and "app.tar" in body
    _shot(browser, "environment")

    browser.get(f"{server.http_url}/acme")
    browser.find_element(By.CSS_SELECTOR, "details.verify summary").click()
    verify = browser.find_element(By.CSS_SELECTOR, "details.verify").text
    assert "evidence-server verify-package PACKAGE.tar.gz --public-key log.pub" in verify
    assert "No witness cosigns this log" in browser.find_element(By.TAG_NAME, "body").text
    _shot(browser, "organization")
    browser.find_element(By.LINK_TEXT, "acme/shop").click()
    _arrives(browser, f"{server.http_url}/acme/repos/acme/shop")
    charts = browser.find_elements(By.CSS_SELECTOR, "figure svg")
    assert len(charts) == 2 and charts[0].find_elements(By.TAG_NAME, "rect")
    _shot(browser, "repo")

    browser.find_element(By.CSS_SELECTOR, "form[action='/sign-out'] button").click()
    WebDriverWait(browser, 10).until(lambda b: "/sign-in" in b.current_url)
    browser.get(f"{server.http_url}/acme")
    assert "/sign-in" in browser.current_url


def test_a_browser_finds_a_control_and_reads_its_decisions_coverage_and_versions(
        server: RunningServer, browser: webdriver.Chrome, tmp_path: pathlib.Path):
    """working_with_controls.mdx, as a reader of the hosted service follows it: the catalog,
    its search, a control's page and its three views, everything made by the real CLI."""
    _, fingerprint = _deliver(server, tmp_path)  # the shop flow's build, running in prod
    server.kosli("create", "control", "RCTL-043", "--name", "Source code review",
                 "--description", "<b>Every change reviewed</b>")
    server.kosli("update", "control", "RCTL-043", "--link", "policy=https://grc.example/043")
    server.kosli("tag", "control", "RCTL-043", "--set", "framework=sdlc")
    server.kosli("create", "control", "RCTL-1866", "--name", "Supply chain integrity")
    server.kosli("create", "control", "OLD-7", "--name", "Retired check")
    server.kosli("archive", "control", "OLD-7")
    server.kosli("create", "flow", "release", "--use-empty-template")
    server.kosli("begin", "trail", "promotion-1", "--flow", "release")
    server.kosli("attest", "decision", "--flow", "release", "--trail", "promotion-1",
                 "--fingerprint", fingerprint, "--control", "RCTL-043", "--compliant=true",
                 "--name", "source-code-review-decision")
    policy = tmp_path / "prod-policy.yml"
    policy.write_text("_schema: https://kosli.com/schemas/policy/environment/v1\nartifacts:\n"
                      "  attestations:\n    - type: decision\n      for_control: RCTL-043\n")
    server.kosli("create", "policy", "prod-policy", str(policy))
    server.kosli("attach-policy", "prod-policy", "--environment", "prod")
    server.kosli("create", "environment", "staging", "--type", "server")

    controls = f"{server.http_url}/acme/controls"
    browser.get(controls)
    browser.find_element(By.NAME, "key").send_keys(ALICE_KEY)
    browser.find_element(By.CSS_SELECTOR, "form[action='/sign-in'] button").click()
    _arrives(browser, controls)
    table = browser.find_element(By.TAG_NAME, "table").text
    assert "RCTL-043" in table and "RCTL-1866" in table and "OLD-7" not in table
    _shot(browser, "controls")

    browser.find_element(By.NAME, "search").send_keys("review")
    browser.find_element(By.CSS_SELECTOR, "form.filters button").click()
    _arrives(browser, f"{controls}?search=review&tag=&sort=asc")
    table = browser.find_element(By.TAG_NAME, "table").text
    assert "RCTL-043" in table and "RCTL-1866" not in table

    browser.find_element(By.LINK_TEXT, "Archived (1)").click()
    _arrives(browser, f"{controls}?archived=true")
    assert "OLD-7" in browser.find_element(By.TAG_NAME, "table").text
    browser.find_element(By.PARTIAL_LINK_TEXT, "Controls (").click()
    _arrives(browser, controls)

    browser.find_element(By.LINK_TEXT, "RCTL-043").click()
    _arrives(browser, f"{controls}/RCTL-043")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "<b>Every change reviewed</b>" in body and "Decisions (1)" in body
    row = browser.find_elements(By.CSS_SELECTOR, "table tr")[1].text
    assert "Compliant" in row and "release / promotion-1" in row and "app.tar" in row
    assert "V2" in row and "alice" in row
    _shot(browser, "control-decisions")

    browser.find_element(By.LINK_TEXT, "Coverage").click()
    _arrives(browser, f"{controls}/RCTL-043/coverage")
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "50% (1 of 2 environments)" in body
    rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "table tr")[1:]]
    assert [("prod" in r, "Not covered" in r) for r in rows] == [(True, False), (False, True)]
    _shot(browser, "control-coverage")

    browser.find_element(By.LINK_TEXT, "Versions").click()
    _arrives(browser, f"{controls}/RCTL-043/versions")
    rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "table tr")[1:]]
    assert "Link added: policy" in rows[0] and "First version" in rows[1]
    _shot(browser, "control-versions")

    browser.find_element(By.LINK_TEXT, "Decisions").click()
    _arrives(browser, f"{controls}/RCTL-043")
    browser.find_element(By.LINK_TEXT, "promotion-1").click()  # the decision on its trail
    WebDriverWait(browser, 10).until(lambda b: "/acme/flows/release/trails/promotion-1"
                                     "?attestation_id=" in b.current_url)
    assert "source-code-review-decision" in browser.find_element(By.TAG_NAME, "body").text

    browser.get(f"{controls}/NO-SUCH-CONTROL")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Not found"
