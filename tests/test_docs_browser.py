"""The built site renders in a real browser (headless Chromium).

Builds the site into a temporary directory, serves it on 127.0.0.1 with
``http.server`` and loads pages with ``chromium --headless --dump-dom``. Skipped when
Chromium is not installed, unless ``ALLEGRA_REQUIRE_BROWSER=1`` (as in CI).

Run it alone with
``ALLEGRA_REQUIRE_BROWSER=1 .venv/bin/python -m pytest tests/test_docs_browser.py``.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")

ROOT = Path(__file__).resolve().parent.parent


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _chromium()
if CHROMIUM is None:
    if os.environ.get("ALLEGRA_REQUIRE_BROWSER") == "1":
        raise RuntimeError("ALLEGRA_REQUIRE_BROWSER=1 but chromium is not installed")
    pytest.skip("chromium is not installed", allow_module_level=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    out = tmp_path_factory.mktemp("site")
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
    subprocess.run([*mkdocs, "--site-dir", str(out)], cwd=ROOT, check=True, timeout=120)
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _dump_dom(url: str, profile: Path) -> str:
    assert CHROMIUM is not None
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=3000",
        "--dump-dom",
        url,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_home_page_renders_with_the_table_picture(site: str, tmp_path: Path) -> None:
    dom = _dump_dom(f"{site}/", tmp_path)
    assert "allegra-rules" in dom
    assert 'src="img/table-4p.svg"' in dom


def test_rules_page_renders_with_the_knock_pictures(site: str, tmp_path: Path) -> None:
    dom = _dump_dom(f"{site}/rules/", tmp_path)
    assert 'id="r9-1"' in dom
    for n in range(1, 5):
        assert f"knock-{n}.svg" in dom


def test_ambiguities_page_shows_the_generated_tables(site: str, tmp_path: Path) -> None:
    dom = _dump_dom(f"{site}/ambiguities/", tmp_path)
    assert 'id="a34"' in dom
    assert "<table>" in dom
    assert "<code>discard_draw</code>" in dom
    assert "<code>fr@1</code>" in dom
    assert "ambiguity-options" not in dom


def test_zone_picture_loads_as_svg(site: str, tmp_path: Path) -> None:
    dom = _dump_dom(f"{site}/img/triple-cross-zone.svg", tmp_path)
    assert "<svg" in dom
