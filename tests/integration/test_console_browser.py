"""The web console in a real browser: Debian's chromium driven by Playwright, against a real
``serve``.  One walk through every feature, a screenshot after each step; the screenshots stay
in the directory printed at the start (``OKD_ARTIFACTS`` when set) for CI to keep.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import httpx
import pytest

from support.server import ServerProcess

pytestmark = pytest.mark.integration
CHROMIUM = os.environ.get("OKD_CHROMIUM", "/usr/bin/chromium")


def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("missing: the playwright Python package (pip install playwright)")
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"missing: {CHROMIUM} (Debian: apt-get install chromium chromium-driver)")
    return sync_playwright


@pytest.fixture(scope="module")
def artifacts() -> Path:
    base = os.environ.get("OKD_ARTIFACTS")
    path = Path(base) / "console" if base else Path(tempfile.mkdtemp(prefix="okd-console-"))
    path.mkdir(parents=True, exist_ok=True)
    print(f"\nconsole screenshots in {path}")
    return path


@pytest.fixture(scope="module")
def server():
    with ServerProcess(wait_dns=True) as srv:
        yield srv


IMPORTED = """$ORIGIN imported-console.example.org.
$TTL 300
@ IN SOA ns1.example.net. admin.imported-console.example.org. 1 3600 600 86400 300
@ IN NS ns1.example.net.
mail IN A 192.0.2.25
"""


def test_console_walkthrough(server, artifacts):
    sync_playwright = _browser_or_skip()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            _walk(page, server, artifacts)
            assert errors == []
        finally:
            browser.close()


def _shot(page, artifacts: Path, name: str) -> None:
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)


def _walk(page, server: ServerProcess, artifacts: Path) -> None:
    page.set_default_timeout(20000)
    page.goto(f"{server.api_url}/console/")
    page.fill("#auth-project", "console-project")
    page.fill("#auth-roles", "member,reader")
    page.click("#auth-form button")
    _shot(page, artifacts, "01-empty")

    # a refused zone: the API's reason shown next to the form
    page.fill("#zone-form input[name=name]", "no-final-dot.example.org")
    page.fill("#zone-form input[name=email]", "admin@example.org")
    page.click("#zone-form button")
    page.wait_for_selector("#zone-form-error:not(:empty)")
    assert "invalid_object" in page.inner_text("#zone-form-error")
    _shot(page, artifacts, "02-zone-refused")

    page.fill("#zone-form input[name=name]", "console.example.org.")
    page.click("#zone-form button")
    page.wait_for_selector("#zone-list >> text=console.example.org.")
    # the console times the change and re-renders once the zone is served everywhere
    page.wait_for_selector("#propagation .badge.IN_SYNC")
    page.wait_for_selector("#chart rect.bar")
    assert "served by all" in page.inner_text("#propagation-summary")
    assert page.inner_text("#targets").count("OK") >= 1
    _shot(page, artifacts, "03-zone-served")

    # validation errors of a recordset, in place
    page.fill("#recordset-form input[name=name]", "www.console.example.org.")
    page.select_option("#recordset-form select[name=type]", "A")
    page.fill("#recordset-form textarea[name=records]", "not-an-address")
    page.click("#recordset-submit")
    page.wait_for_selector("#recordset-form-error:not(:empty)")
    assert "records" in page.inner_text("#recordset-form-error")
    _shot(page, artifacts, "04-recordset-refused")

    page.fill("#recordset-form textarea[name=records]", "192.0.2.10\n192.0.2.11")
    page.click("#recordset-submit")
    page.wait_for_selector("#recordsets >> text=www.console.example.org.")
    assert page.inner_text("#recordset-form-error") == ""
    page.fill("#recordset-form input[name=name]", "console.example.org.")
    page.select_option("#recordset-form select[name=type]", "MX")
    page.fill("#recordset-form textarea[name=records]", "10 mail.console.example.org.")
    page.click("#recordset-submit")
    page.wait_for_selector("#recordsets >> text=10 mail.console.example.org.")
    _shot(page, artifacts, "05-recordsets")

    row = page.locator("#recordsets tr", has_text="www.console.example.org.")
    row.get_by_role("button", name="Edit").click()
    page.fill("#recordset-form textarea[name=records]", "192.0.2.99")
    page.click("#recordset-submit")
    page.wait_for_selector("#recordsets >> text=192.0.2.99")
    page.wait_for_selector("#history >> text=+ www.console.example.org. 3600 A 192.0.2.99")
    _shot(page, artifacts, "06-edited-and-history")

    page.click("#export-button")
    page.wait_for_selector("#export-text:not(:empty)")
    exported = page.inner_text("#export-text")
    assert "192.0.2.99" in exported and "SOA" in exported

    page.fill("#share-form input[name=target_project_id]", "friend-project")
    page.click("#share-form button")
    page.wait_for_selector("#shares >> text=friend-project")
    page.click("#transfer-form button")
    page.wait_for_selector("#transfers .badge.ACTIVE")
    _shot(page, artifacts, "07-export-share-transfer")

    row = page.locator("#recordsets tr", has_text="www.console.example.org.")
    row.get_by_role("button", name="Delete").click()
    page.wait_for_function(
        "() => !document.querySelector('#history').innerText.includes('192.0.2.99') ||"
        " document.querySelector('#history').innerText.includes('- www.console.example.org.')")
    page.wait_for_selector("#history >> text=- www.console.example.org. 3600 A 192.0.2.99")
    assert page.locator("#chart rect.bar").count() >= 4

    page.click("#import-box summary")
    page.fill("#import-form textarea", IMPORTED)
    page.click("#import-form button")
    # The import is parsed in a worker process that may first have to start: on a loaded
    # 2-core machine that alone has taken over 20 s (Playwright's default wait).
    page.wait_for_selector("#zone-list >> text=imported-console.example.org.", timeout=90_000)
    page.wait_for_selector("#recordsets >> text=mail.imported-console.example.org.",
                           timeout=90_000)
    _shot(page, artifacts, "08-imported")

    zones = httpx.get(f"{server.api_url}/v2/zones",
                      headers=server.headers(project="console-project")).json()["zones"]
    assert {z["name"] for z in zones} == {"console.example.org.",
                                          "imported-console.example.org."}
