"""The server's page plays like a game: few clicks, seats and statuses in players' words.

A real server process on 127.0.0.1 (tests/server_process.py, SQLite: the page does not
depend on the store) and one headless Chromium (tests/cdp.py). A person plays a whole
two-seat game against the greedy bot as the issue counts it: draws from the draw pile,
swaps each drawn card for a face-down one and never knocks. With "ask me only when the
card could help me" (on by default) the knock windows whose card could not help are
passed for them, and the page says so. Also: the bots offered for each seat count, the
seats' names, the round's end (the zone summed, why it ended, nobody "to move" yet), and
the phone layout (nothing sideways, no label under 11 px, the main button on the first
screen). ``ALLEGRA_SCREENSHOTS=DIR`` saves screenshots.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")

from cdp import Browser, require_chromium, save_screenshot

CHROMIUM = require_chromium()
from server_process import ServerProcess

REVEAL_OPEN = "!document.getElementById('reveal').hidden"
CLICKABLE = "#actions button:not([disabled]), #picture g.card.highlighted"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("page-game")
    with ServerProcess(folder / "tables.db", log=folder / "server.log") as running:
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(CHROMIUM, tmp_path_factory.mktemp("profile")) as opened:
        yield opened


def click(browser: Browser, element: str) -> None:
    """A real mouse click (pressed and released) at the middle of the element."""
    x, y = browser.evaluate(
        f"(() => {{ const el = {element}; el.scrollIntoView({{block: 'center'}});"
        " const r = el.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    for kind in ("mousePressed", "mouseReleased"):
        browser.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
        )


def join(browser: Browser, server: ServerProcess, body: dict[str, Any], width: int) -> str:
    """A table made by the API with ``body``, joined at seat 0 on the page (not a game click)."""
    with httpx.Client(base_url=server.base, timeout=10) as c:
        table = str(c.post("/api/tables", json=body).json()["table"])
    browser.load(f"{server.base}/?table={table}&lang=en", width=width, height=800)
    browser.wait_until("!document.getElementById('join').hidden")
    browser.evaluate("localStorage.removeItem('allegra:askKnock')")
    click(browser, "document.querySelector('#seat-buttons button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    return table


def cell(pos: dict[str, int]) -> str:
    return (
        f'document.querySelector(\'#picture g.card[data-seat="{pos["player"]}"]'
        f'[data-row="{pos["row"]}"][data-col="{pos["col"]}"]\')'
    )


def next_click(view: dict[str, Any]) -> tuple[str, str]:
    """What the person of the issue clicks now, and the kind of click."""
    legal = view["legal_actions"]
    phase = view["phase"]
    if phase == "draw":
        return "document.querySelector('#actions button[data-action=\"draw_deck\"]')", "draw"
    if phase == "knock":
        return "document.querySelector('#actions button[data-action=\"pass\"]')", "knock"
    swaps = [a for a in legal if a.get("pos") is not None]
    if phase == "hold_deck":
        me = view["viewer"]
        # A face-down card, one's own first.
        face_down = [a for a in swaps if view["face_down"][index(a["pos"])]]
        face_down.sort(key=lambda a: a["pos"]["player"] != me)
        return cell((face_down or swaps)[0]["pos"]), "swap"
    assert swaps, f"nothing to click in phase {phase}"
    return cell(swaps[0]["pos"]), phase


def index(pos: dict[str, int]) -> int:
    return pos["player"] * 12 + pos["row"] * 4 + pos["col"]


def play_as_the_issue_counts(browser: Browser) -> dict[str, int]:
    """Draw, swap for a face-down card, never knock, Continue at each round's end."""
    seen = {"clicks": 0, "knock": 0, "draw": 0, "rounds": 0, "auto_notes": 0}
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        browser.wait_until(
            "!document.getElementById('over').hidden || "
            f"({REVEAL_OPEN} && !document.getElementById('reveal-continue').hidden) || "
            f"(!page.busy && page.autoVersion !== page.view.version"
            f" && document.querySelector('{CLICKABLE}') !== null)",
            timeout=15,
        )
        if not browser.evaluate("document.getElementById('over').hidden"):
            return seen
        if browser.evaluate(REVEAL_OPEN):
            check_round_end(browser)
            seen["rounds"] += 1
            click(browser, "document.getElementById('reveal-continue')")
            seen["clicks"] += 1
            browser.wait_until(f"!({REVEAL_OPEN})")
            continue
        if not browser.evaluate("document.getElementById('auto-note').hidden"):
            seen["auto_notes"] += 1
            note = browser.evaluate("document.getElementById('auto-note').textContent")
            assert note.startswith(("Passed for you: the ", "Drawn for you from the draw pile"))
            assert "could not help you" in note
        view = browser.evaluate("page.view")
        element, kind = next_click(view)
        if kind == "knock":
            seen["knock"] += 1
            assert view["knock_could_help"]  # only asked when the card could help
        if kind == "draw":
            seen["draw"] += 1
            assert view["discard_could_help"]
        click(browser, element)
        seen["clicks"] += 1
        assert seen["clicks"] < 150
        browser.wait_until(f"page.view.version > {view['version']} && !page.busy", timeout=15)


def check_round_end(browser: Browser) -> None:
    """The zone that was summed is shown, the headline says why, nobody is to move yet."""
    end = browser.evaluate("page.view.last_round")
    zones = browser.evaluate("page.view.zones")
    for seat, zone in enumerate(zones):
        shown = browser.evaluate(
            f'[...document.querySelectorAll(\'#reveal-grids figure[data-seat="{seat}"]'
            " .card-face')].map(c => Number(c.dataset.index))"
        )
        assert shown == zone  # 15 cells: the neighbour's column included
        assert len(shown) == 15
        values = [end["cells"][i] for i in zone if i not in (end.get("removed") or [])]
        if end["ender"] != seat or not end["doubled"]:
            assert sum(v for v in values if v is not None) == end["zone_sums"][seat]
    status = browser.evaluate("document.getElementById('status').textContent")
    if end["ender"] is None:
        assert "turn limit" in status and "every card" not in status
    else:
        assert "turned up every card" in status
    assert browser.evaluate("document.querySelector('#seats .badge-waiting')") is None


def test_a_greedy_game_takes_few_clicks_and_few_knock_prompts(
    browser: Browser, server: ServerProcess
) -> None:
    # The chosen seed also seeds the bot, so this is the same game in every run.
    join(browser, server, {"players": 2, "bots": {"1": "greedy"}, "seed": 55}, 1280)
    assert browser.evaluate("document.getElementById('ask-knock').checked")
    names = browser.evaluate(
        "[...document.querySelectorAll('#seats li > span:first-child')].map(s => s.textContent)"
    )
    assert names == ["You", "Greedy bot"]
    assert "Seat 0" not in browser.evaluate("document.body.textContent")
    save_screenshot(browser, "page-game-table-1280")
    seen = play_as_the_issue_counts(browser)
    print(f"\npage game: {seen}")
    assert seen["clicks"] <= 66
    assert seen["knock"] <= 4
    assert seen["auto_notes"] >= 1  # passes made for the person were said
    assert seen["rounds"] >= 1


def test_without_the_setting_every_knock_window_asks(
    browser: Browser, server: ServerProcess
) -> None:
    join(browser, server, {"players": 2, "bots": {"1": "greedy"}, "seed": 55}, 1280)
    browser.evaluate(
        "document.getElementById('ask-knock').click()"
    )  # off: remembered for this browser
    assert browser.evaluate("localStorage.getItem('allegra:askKnock')") == "off"
    deadline = time.monotonic() + 60
    while browser.evaluate("page.view.phase") != "knock":
        assert time.monotonic() < deadline
        browser.wait_until(f"!page.busy && document.querySelector('{CLICKABLE}') !== null")
        element, _ = next_click(browser.evaluate("page.view"))
        version = browser.evaluate("page.view.version")
        click(browser, element)
        browser.wait_until(f"page.view.version > {version} && !page.busy", timeout=15)
    # Asked even though the card could not help: Knock and Pass are offered.
    time.sleep(0.3)
    assert browser.evaluate("page.view.phase") == "knock"
    assert browser.evaluate(
        "document.querySelector('#actions button[data-action=\"knock\"]') !== null"
    )
    browser.evaluate("localStorage.removeItem('allegra:askKnock')")


def test_only_bots_that_can_play_are_offered(browser: Browser, server: ServerProcess) -> None:
    from allegra_rules.bot_kinds import unavailable
    from allegra_rules.presets import preset

    browser.load(f"{server.base}/?lang=en", width=390, height=800)
    for name in ("seeds", "published"):
        for n in range(2, 7):
            offered = browser.evaluate(
                f"document.getElementById('preset').value = '{name}';"
                f"document.getElementById('players').value = '{n}';"
                "document.getElementById('players').dispatchEvent(new Event('change'));"
                "[...document.querySelectorAll('#seat-1 option')].map(o => o.value)"
            )
            assert "greedy" in offered
            for bot in offered:
                if bot != "person":
                    assert unavailable(bot, preset(name), n) is None, (name, n, bot)
            with httpx.Client(base_url=server.base, timeout=10) as c:
                bots = {str(p): offered[-2] for p in range(1, n)}  # a bot other than greedy
                answer = c.post("/api/tables", json={"players": n, "preset": name, "bots": bots})
                assert answer.status_code == 201, answer.text
    # The shipped policy plays every table here; a bot the server's offers leave out of
    # a table (as they would weights without 3 seats) is not offered there.
    offers = browser.evaluate("JSON.parse(document.documentElement.dataset.offers)")
    assert "policy" in offers["seeds"]["3"]
    assert "policy" not in browser.evaluate(
        "page.botOffers.seeds['3'] = page.botOffers.seeds['3'].filter(b => b !== 'policy');"
        "document.getElementById('players').value = '3';"
        "document.getElementById('preset').value = 'seeds';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "[...document.querySelectorAll('#seat-1 option')].map(o => o.value)"
    )
    assert "policy" in browser.evaluate(
        "document.getElementById('players').value = '4';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "[...document.querySelectorAll('#seat-1 option')].map(o => o.value)"
    )
    # Presets by human name, with a link to the variants page.
    labels = browser.evaluate("[...document.querySelectorAll('#preset option')].map(o => o.text)")
    assert "seeds" not in labels and "published" not in labels
    assert browser.evaluate("document.getElementById('presets-link').href").endswith("variants/")
    # An error is on screen on a phone.
    browser.evaluate("showError('x'); window.scrollTo(0, 10000); showError('refused')")
    top = browser.evaluate("document.getElementById('error').getBoundingClientRect().top")
    assert top >= 0


def test_the_phone_layout_is_readable(browser: Browser, server: ServerProcess) -> None:
    browser.enable_touch()
    join(browser, server, {"players": 3, "bots": {"1": "greedy", "2": "greedy"}}, 390)
    browser.wait_until(f"!page.busy && document.querySelector('{CLICKABLE}') !== null")
    save_screenshot(browser, "page-game-table-390")
    browser.evaluate("window.scrollTo(0, 0)")
    assert not browser.evaluate(
        "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"
    )
    # No label under 11 px: the picture's words and the page's.
    smallest = browser.evaluate(
        "Math.min(...[...document.querySelectorAll('#picture text, #seats span, .pile span')]"
        ".filter(e => e.getBoundingClientRect().width > 0)"
        ".map(e => e.getBoundingClientRect().height || 99))"
    )
    assert smallest >= 11, smallest
    # The first thing to click is on the first screen.
    bottom = browser.evaluate(
        f"document.querySelector('{CLICKABLE}').getBoundingClientRect().bottom"
    )
    assert bottom <= 800


def test_the_seat_document_fields(tmp_path: Path) -> None:
    """``knock_could_help`` is true only in a window where the card could help the reader."""
    import random

    from allegra_rules import apply, legal_actions, new_game
    from allegra_rules.hints import knock_reason
    from allegra_rules.table_view import seat_document

    rng = random.Random(3)
    state = new_game(2, seed=3)
    windows = helped = 0
    for _ in range(400):
        if state.is_terminal:
            break
        for seat in range(2):
            doc = seat_document(state, seat, version=0, moves=[])
            expected = (
                state.phase.value == "knock"
                and state.current_player == seat
                and knock_reason(state, seat) is not None
            )
            assert doc["knock_could_help"] is expected
            helped += expected
            assert doc["zones"][seat][0] == ((seat + 1) % 2) * 12 + 3
        windows += state.phase.value == "knock"
        state = apply(state, rng.choice(legal_actions(state)))
    assert windows and helped < windows and json.dumps(doc)
