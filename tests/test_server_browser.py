"""The server's page in headless Chromium: a person plays a whole game against a bot by clicks.

A real server process on 127.0.0.1 (tests/server_process.py) and one Chromium
(tests/cdp.py). Skipped when Chromium is not installed, unless
``ALLEGRA_REQUIRE_BROWSER=1`` (as in CI). ``ALLEGRA_SCREENSHOTS=DIR`` saves screenshots
at 1280 and 390 px into ``DIR``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")

from allegra_rules import GameRecord
from cdp import Browser, require_chromium, save_screenshot

CHROMIUM = require_chromium()
from server_process import ServerProcess

CLICKABLE = "#actions button:not([disabled]), #picture g.card.highlighted"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("page") / "tables.db") as running:
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(CHROMIUM, tmp_path_factory.mktemp("profile")) as opened:
        yield opened


def screenshot(browser: Browser, name: str) -> None:
    save_screenshot(browser, f"server-{name}")


def click(browser: Browser, element: str) -> None:
    """A real mouse click (pressed and released) at the middle of the element."""
    point = browser.evaluate(
        f"(() => {{ const el = {element}; el.scrollIntoView({{block: 'center'}});"
        " const r = el.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    for kind in ("mousePressed", "mouseReleased"):
        browser.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": point[0], "y": point[1], "button": "left", "clickCount": 1},
        )


def overflows(browser: Browser) -> bool:
    return bool(
        browser.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"
        )
    )


def test_a_whole_game_against_a_bot_by_clicks(browser: Browser, server: ServerProcess) -> None:
    rng = random.Random(2)
    browser.load(f"{server.base}/?lang=en", width=1280, height=900)
    assert not browser.evaluate("document.getElementById('lobby').hidden")
    browser.evaluate(
        "document.getElementById('players').value = '2';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "document.getElementById('max-turns').value = '2';"
    )
    screenshot(browser, "lobby-1280")
    click(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    link = browser.evaluate("document.getElementById('share-link').value")
    assert link.startswith(f"{server.base}/?table=")
    table = link.rsplit("=", 1)[1]
    screenshot(browser, "table-1280")

    seen_knock = False
    clicks = 0
    deadline = time.monotonic() + 90
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        browser.wait_until(
            f"!document.getElementById('over').hidden || document.querySelector('{CLICKABLE}')",
            timeout=15,
        )
        if not browser.evaluate("document.getElementById('over').hidden"):
            break
        if not seen_knock and browser.evaluate(
            "document.querySelector('#actions button[data-action=\"knock\"]') !== null"
        ):
            seen_knock = True  # the knock window: Knock and Pass, and the banner
            assert not browser.evaluate("document.getElementById('knock').hidden")
            screenshot(browser, "knock-window-1280")
        version = browser.evaluate("page.view.version")
        count = browser.evaluate(f"document.querySelectorAll('{CLICKABLE}').length")
        click(browser, f"document.querySelectorAll('{CLICKABLE}')[{rng.randrange(count)}]")
        clicks += 1
        assert clicks < 200
        browser.wait_until(f"page.view.version > {version} && !page.busy", timeout=15)
    assert clicks >= 6  # two setup reveals and at least one turn in each of three rounds
    over = browser.evaluate("document.getElementById('over').textContent")
    assert over.startswith("Game over: ") and "Download the game record" in over
    rows = browser.evaluate("document.querySelectorAll('#scores tr').length")
    assert rows == 1 + 3 + 1  # header, three rounds, total
    screenshot(browser, "over-1280")
    assert not overflows(browser)

    record = GameRecord.from_json(httpx.get(f"{server.base}/api/tables/{table}/record").text)
    assert record.initial_state().num_players == 2
    assert len(record.actions) == browser.evaluate("page.view.version")

    # The same table at 390 px and in the other languages.
    browser.load(f"{server.base}/?table={table}&lang=de", width=390, height=844)
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    assert "Spielende" in browser.evaluate("document.getElementById('over').textContent")
    assert not overflows(browser)
    screenshot(browser, "over-390-de")
    for lang, word in (("pl", "Koniec gry"), ("fr", "Fin de la partie"), ("en", "Game over: ")):
        browser.evaluate(
            f"document.getElementById('lang').value = '{lang}';"
            "document.getElementById('lang').dispatchEvent(new Event('change'));"
        )
        assert word in browser.evaluate("document.getElementById('status').textContent")


def test_a_friend_joins_by_link(browser: Browser, server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base, timeout=10) as c:
        table = c.post("/api/tables", json={"players": 3, "bots": {"2": "random"}}).json()["table"]
        c.post(f"/api/tables/{table}/seats/0")
    browser.load(f"{server.base}/?table={table}&lang=fr", width=390, height=844)
    browser.wait_until("!document.getElementById('join').hidden")
    buttons = browser.evaluate(
        "[...document.querySelectorAll('#seat-buttons button')].map(b => b.textContent)"
    )
    assert buttons == ["Prendre la place 1"]
    screenshot(browser, "join-390-fr")
    click(browser, "document.querySelector('#seat-buttons button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    assert browser.evaluate("page.seat") == 1
    assert "(vous)" in browser.evaluate("document.getElementById('scores').textContent")
    screenshot(browser, "joined-390-fr")
    assert not overflows(browser)
