"""The console's files are served from the package, same-origin only, and nothing else is."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite"])
def database_url(request, tmp_path):
    from openkeel_designate.storage import migrate

    url = f"sqlite:///{tmp_path / 'console.sqlite'}"
    migrate.upgrade(url)
    return url


async def test_console_files(client):
    for path in ("/console/", "/console"):
        page = await client.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert '<script src="/console/app.js">' in page.text
        assert "default-src 'self'" in page.headers["content-security-policy"]
    script = await client.get("/console/app.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "/v2/zones" in script.text
    assert (await client.get("/console/style.css")).status_code == 200
    for path in ("/console/..%2Fapp.py", "/console/missing.js", "/console/a/b"):
        assert (await client.get(path)).status_code == 404
