"""The server's page in headless Chromium: a person plays whole games against a bot.

A real server process on 127.0.0.1 (tests/server_process.py, on SQLite and on PostgreSQL)
and one Chromium (tests/cdp.py). One game at 1280 px by mouse clicks, one at 390 px (a
phone: mobile emulation, taps): the own grid first and whole with cards of 44 px or more, the end of
each round (every card turned up, the scores and why, until Continue), the knock
window's sentence said once, the last moves, the seats' badges, and the server's
messages in the page's language. Skipped when Chromium is not installed, unless
``ALLEGRA_REQUIRE_BROWSER=1`` (as in CI). ``ALLEGRA_SCREENSHOTS=DIR`` saves screenshots
at 1280 and 390 px into ``DIR``.
"""

from __future__ import annotations

import base64
import random
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")
pytest.importorskip("uvicorn", reason="the server extra is not installed")
httpx = pytest.importorskip("httpx")

from allegra_rules import GameRecord
from cdp import Browser, BrowserError, require_chromium, save_screenshot

CHROMIUM = require_chromium()
from server_process import Databases, ServerProcess

CLICKABLE = "#actions button:not([disabled]), #picture g.card.highlighted"
REVEAL_OPEN = "!document.getElementById('reveal').hidden"


@pytest.fixture(scope="module")
def server(databases: Databases) -> Iterator[ServerProcess]:
    """The page's server, on SQLite and on PostgreSQL (``databases``, tests/conftest.py)."""
    with databases.server(databases.new()) as running:
        yield running


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(CHROMIUM, tmp_path_factory.mktemp("profile")) as opened:
        yield opened


def screenshot(browser: Browser, name: str) -> None:
    save_screenshot(browser, f"server-{name}")


def c_record_text(server: ServerProcess, table: str) -> str:
    """The finished table's record, as the server sends it."""
    with httpx.Client(base_url=server.base, timeout=10) as c:
        answer = c.get(f"/api/tables/{table}/record")
        assert answer.status_code == 200, answer.text
        return answer.text


def middle(browser: Browser, element: str) -> list[float]:
    """The middle of an element (scrolled into view), in window coordinates."""
    point: list[float] = browser.evaluate(
        f"(() => {{ const el = {element}; el.scrollIntoView({{block: 'center'}});"
        " const r = el.getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    return point


def click(browser: Browser, element: str) -> None:
    """A real mouse click (pressed and released) at the middle of the element."""
    press_at(browser, 1280, middle(browser, element))


def tap(browser: Browser, element: str) -> None:
    """A finger's tap at the middle of the element."""
    browser.tap(*middle(browser, element))


def press_at(browser: Browser, width: int, point: list[float]) -> None:
    """A tap below 600 px, else a mouse click, at a point in window coordinates."""
    x, y = point
    if width < 600:
        browser.tap(x, y)
        return
    for kind in ("mousePressed", "mouseReleased"):
        browser.send(
            "Input.dispatchMouseEvent",
            {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
        )


def overflows(browser: Browser) -> bool:
    return bool(
        browser.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"
        )
    )


def create_table(browser: Browser, server: ServerProcess, width: int) -> str:
    """Create a two-seat game (seat 1 a bot, two turns a round) from the lobby."""
    browser.load(f"{server.base}/?lang=en", width=width, height=900 if width > 600 else 844)
    assert not browser.evaluate("document.getElementById('lobby').hidden")
    browser.evaluate(
        "document.getElementById('players').value = '2';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "document.getElementById('max-turns').value = '2';"
    )
    screenshot(browser, f"lobby-{width}")
    press = tap if width < 600 else click
    press(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    link = browser.evaluate("document.getElementById('share-link').value")
    assert link.startswith(f"{server.base}/?table=")
    screenshot(browser, f"table-{width}")
    return str(link.rsplit("=", 1)[1])


def check_reveal(browser: Browser) -> None:
    """The end of a round: every card turned up, the scores, the reason, a Continue button."""
    cards = browser.evaluate(
        "[...document.querySelectorAll('#reveal-grids .card-face')].map(c => c.textContent)"
    )
    assert len(cards) == 2 * 15  # each seat's zone: its 12 cards and the neighbour's column
    end = browser.evaluate("page.view.last_round")
    zones = browser.evaluate("page.view.zones")
    assert cards == [
        "" if end["cells"][i] is None else str(end["cells"][i]) for z in zones for i in z
    ]
    assert browser.evaluate("document.querySelectorAll('#reveal-grids .back').length") == 0
    scores = browser.evaluate("document.getElementById('reveal-scores').textContent")
    assert all(str(s) in scores for s in end["scores"])
    reason = browser.evaluate("document.getElementById('reveal-reason').textContent")
    assert "ended the round" in reason or "turn limit" in reason
    assert browser.evaluate("document.getElementById('board').hidden")


def play_game(browser: Browser, width: int, rng: random.Random) -> dict[str, int]:
    """Play to the end by random clicks (taps below 600 px); returns what was seen."""
    press = tap if width < 600 else click
    seen = {"clicks": 0, "knock": 0, "reveals": 0, "log": 0, "missed": 0}
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        browser.wait_until(
            "!document.getElementById('over').hidden || "
            f"({REVEAL_OPEN} && !document.getElementById('reveal-continue').hidden) || "
            f"document.querySelector('{CLICKABLE}')",
            timeout=15,
        )
        if not browser.evaluate("document.getElementById('over').hidden"):
            return seen
        if browser.evaluate(REVEAL_OPEN):
            # The round is over: the page stays on its end until Continue.
            check_reveal(browser)
            if not seen["reveals"]:
                screenshot(browser, f"round-end-{width}")
                time.sleep(0.5)
                assert browser.evaluate(REVEAL_OPEN)  # it stays, though bots may move on
            seen["reveals"] += 1
            press(browser, "document.getElementById('reveal-continue')")
            browser.wait_until(f"!({REVEAL_OPEN})")
            assert not browser.evaluate("document.getElementById('board').hidden")
            continue
        if browser.evaluate("document.querySelectorAll('#log li').length"):
            seen["log"] += 1
        # The knock window (Knock and Pass, the sentence said once), read in one step: the
        # page may answer it for the person a moment later.
        window = browser.evaluate(
            "document.querySelector('#actions button[data-action=\"knock\"]') === null ? null"
            " : [document.getElementById('status').textContent,"
            " document.getElementById('knock').textContent]"
        )
        if not seen["knock"] and window is not None:
            seen["knock"] += 1
            status, banner = window
            assert "may knock" not in banner and "drew the" in status
            screenshot(browser, f"knock-window-{width}")
        version = browser.evaluate("page.view.version")
        # One of the clickable things, chosen and measured in one step: the page may answer
        # for the person (it says so) at any moment, so an empty choice means look again.
        pick = rng.randrange(1 << 16)
        spot = browser.evaluate(
            f"(() => {{ const all = document.querySelectorAll('{CLICKABLE}');"
            " if (!all.length) return null;"
            f" const el = all[{pick} % all.length]; el.scrollIntoView({{block: 'center'}});"
            " const r = el.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        if spot is None:
            continue
        press_at(browser, width, spot)
        seen["clicks"] += 1
        assert seen["clicks"] < 200
        try:
            browser.wait_until(f"page.view.version > {version} && !page.busy", timeout=15)
        except BrowserError:
            # The page moved on between the measure and the press (a bot's move, or an
            # answer for the person), and the press met no button: look again.
            assert browser.evaluate("!page.busy"), "a move took more than 15 s"
            seen["missed"] += 1
            assert seen["missed"] <= 3


@pytest.mark.installed
def test_a_whole_game_against_a_bot_by_clicks(browser: Browser, server: ServerProcess) -> None:
    table = create_table(browser, server, 1280)
    seen = play_game(browser, 1280, random.Random(2))
    assert seen["clicks"] >= 6  # two setup reveals and at least one turn in each of three rounds
    assert seen["reveals"] == 2  # rounds 1 and 2 end with a Continue; round 3 ends the game
    assert seen["log"] > 0
    over = browser.evaluate("document.getElementById('over').textContent")
    assert over.startswith("Game over: ") and "Download the game record" in over
    check_reveal(browser)  # the last round's end stays with the result
    assert browser.evaluate("document.getElementById('reveal-continue').hidden")
    rows = browser.evaluate("document.querySelectorAll('#scores tr').length")
    assert rows == 1 + 3 + 1  # header, three rounds, total
    screenshot(browser, "over-1280")
    assert not overflows(browser)

    record = GameRecord.from_json(httpx.get(f"{server.base}/api/tables/{table}/record").text)
    assert record.initial_state().num_players == 2
    assert len(record.actions) == browser.evaluate("page.view.version")

    # The deal's commitment, shown from the start, is checked in the page at the end.
    assert record.deal_commitment is not None
    assert record.deal_commitment in browser.evaluate("document.getElementById('deal').textContent")
    browser.wait_until("document.querySelector('#deal-check p') !== null", timeout=10)
    check = browser.evaluate("document.getElementById('deal-check').textContent")
    assert "The deal was fixed before the game: checked." in check
    assert "noted when it joined" in check
    assert (
        f"allegra-rules verify allegra-{table}.json --commitment {record.deal_commitment}" in check
    )
    # And a link to the play page, which replays the record in the browser: the record
    # and the noted commitment ride in the fragment, which no server sees.
    link = browser.evaluate("document.getElementById('verify-link').href")
    play, _, fragment = link.partition("#")
    assert play == "https://allegra-rules.readthedocs.io/play/"
    fields = dict(part.split("=", 1) for part in fragment.split("&"))
    sent = base64.urlsafe_b64decode(fields["verify"] + "=" * (-len(fields["verify"]) % 4))
    assert sent.decode() == c_record_text(server, table)
    assert fields["commitment"] == record.deal_commitment

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

    # A commitment noted at the start that the revealed deal does not hash to: a loud warning.
    key = f"allegra:{table}"
    browser.evaluate(
        f"localStorage.setItem('{key}', JSON.stringify(Object.assign("
        f"JSON.parse(localStorage.getItem('{key}')), {{commitment: '{'0' * 64}'}})))"
    )
    browser.load(f"{server.base}/?table={table}&lang=en")
    browser.wait_until("document.querySelector('#deal-check p') !== null", timeout=15)
    assert browser.evaluate("document.getElementById('deal-check').className") == "deal-warning"
    warning = browser.evaluate("document.getElementById('deal-check').textContent")
    assert "does NOT match the commitment shown at the start" in warning


def test_a_whole_game_on_a_phone_by_taps(browser: Browser, server: ServerProcess) -> None:
    browser.enable_touch()
    create_table(browser, server, 390)
    # The own grid comes first, whole and as wide as the screen, with cards of 44 px or more.
    first = browser.evaluate("document.querySelector('#picture .crop').dataset.seat")
    assert first == "0"
    cards = browser.evaluate(
        "(() => { const crop = document.querySelector('#picture .crop.wide svg');"
        " const box = crop.getBoundingClientRect();"
        " return [...crop.querySelectorAll('g.card[data-seat=\"0\"] > rect:first-child')]"
        ".map(r => r.getBoundingClientRect())"
        ".filter(r => r.left + r.width / 2 > box.left && r.left + r.width / 2 < box.right)"
        ".map(r => [r.left, r.right, r.width]); })()"
    )
    assert len(cards) == 12  # the whole own grid, inside the screen
    assert min(w for _, _, w in cards) >= 44
    assert min(left for left, _, _ in cards) >= 0 and max(right for _, right, _ in cards) <= 390
    badges = browser.evaluate("document.getElementById('seats').textContent")
    assert "You" in badges and "bot" in badges
    assert not overflows(browser)
    seen = play_game(browser, 390, random.Random(5))
    assert seen["reveals"] == 2 and seen["clicks"] >= 6
    assert "Game over: " in browser.evaluate("document.getElementById('over').textContent")
    screenshot(browser, "over-390")
    assert not overflows(browser)


def test_server_messages_are_shown_in_the_pages_language(
    browser: Browser, server: ServerProcess
) -> None:
    browser.load(f"{server.base}/?table=no-such-table&lang=pl", width=390, height=844)
    browser.wait_until("!document.getElementById('error').hidden")
    assert browser.evaluate("document.getElementById('error').textContent") == (
        "Nie ma takiego stołu."
    )
    # A network failure: the page says, in its language, that it keeps trying.
    text = browser.evaluate(
        "(async () => { const real = window.fetch;"
        " window.fetch = () => Promise.reject(new TypeError('Failed to fetch'));"
        " try { await api('POST', '/api/tables', {}); } catch (e) { return errorText(e); }"
        " finally { window.fetch = real; } })()"
    )
    assert text == "Brak połączenia z serwerem; ponawiam…"
    for lang, code in (("de", "not_your_turn"), ("fr", "seat_taken"), ("en", "stale_version")):
        browser.evaluate(f"page.lang = '{lang}'")
        assert browser.evaluate(f"errorText({{code: '{code}'}})") == browser.evaluate(
            f"ERRORS['{lang}']['{code}']"
        )
    browser.evaluate("page.lang = 'en'")
    assert "(some_new_code)" in browser.evaluate("errorText({code: 'some_new_code'})")


def test_a_friend_joins_by_link(browser: Browser, server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base, timeout=10) as c:
        table = c.post("/api/tables", json={"players": 3, "bots": {"2": "random"}}).json()["table"]
        first = c.post(f"/api/tables/{table}/seats/0").json()["token"]
    browser.load(f"{server.base}/?table={table}&lang=fr", width=390, height=844)
    browser.wait_until("!document.getElementById('join').hidden")
    buttons = browser.evaluate(
        "[...document.querySelectorAll('#seat-buttons button')].map(b => b.textContent)"
    )
    assert buttons == ["Prendre la place 2"]
    # A name, given when joining: markup in it is only ever text.
    name = "<i>Léa</i> & co"
    browser.evaluate(f"document.getElementById('join-name').value = {name!r}")
    screenshot(browser, "join-390-fr")
    click(browser, "document.querySelector('#seat-buttons button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    assert browser.evaluate("page.seat") == 1
    assert "Vous" in browser.evaluate("document.getElementById('scores').textContent")
    screenshot(browser, "joined-390-fr")
    assert not overflows(browser)
    # Everyone else sees the name in place of "Joueur 2": on the badges, the scores and
    # the picture, as text.
    info = httpx.get(f"{server.base}/api/tables/{table}").json()
    assert info["seats"][1]["name"] == name
    browser.evaluate(
        f"localStorage.setItem('allegra:{table}', JSON.stringify({{seat: 0, token: {first!r}}}))"
    )
    browser.load(f"{server.base}/?table={table}&lang=fr", width=1280, height=900)
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    assert browser.evaluate("page.seat") == 0
    assert browser.evaluate("seatName(1)") == name
    for box in ("seats", "scores", "picture"):
        assert name in browser.evaluate(f"document.getElementById('{box}').textContent"), box
    assert browser.evaluate("document.querySelector('#seats i, #scores i, #picture i') === null")
    assert "Joueur 2" not in browser.evaluate("document.getElementById('seats').textContent")
    screenshot(browser, "named-1280-fr")


def test_the_creator_frees_seats_and_gives_them_to_bots(
    browser: Browser, server: ServerProcess
) -> None:
    browser.load(f"{server.base}/?lang=en", width=1280, height=900)
    browser.evaluate(
        "document.getElementById('players').value = '3';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "document.getElementById('seat-1').value = 'person';"
        "document.getElementById('seat-2').value = 'person';"
    )
    click(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
    table = browser.evaluate("page.table")
    assert browser.evaluate(f"localStorage.getItem('allegra:{table}:creator')")
    with httpx.Client(base_url=server.base, timeout=10) as c:
        friend = c.post(f"/api/tables/{table}/seats/1").json()["token"]
        # The creator's page hears of the claim without a move.
        browser.wait_until(
            "document.querySelector('#seats li[data-seat=\"1\"] .badge-person') !== null",
            timeout=10,
        )
        assert browser.evaluate("page.view.version") == 0
        buttons = browser.evaluate(
            "[...document.querySelectorAll('#creator button')].map(b => b.textContent)"
        )
        assert buttons == [
            "Free seat 2",
            "Give seat 2 to a bot",
            "Give seat 3 to a bot",
        ]
        click(browser, "document.querySelector('#creator button[data-seat=\"1\"]')")
        browser.wait_until("page.info.seats[1].taken === false", timeout=10)
        headers = {"Authorization": f"Bearer {friend}"}
        assert c.get(f"/api/tables/{table}/view", headers=headers).status_code == 403
        click(browser, "[...document.querySelectorAll('#creator button')][0]")  # seat 1: a bot
        browser.wait_until("page.info.seats[1].bot === 'greedy'", timeout=10)
        # The creator's own seat token is lost: the page drops it (4401), keeps the
        # creator's token, and offers to free that seat.
        browser.evaluate(
            f"localStorage.setItem('allegra:{table}', JSON.stringify({{seat: 0, token: 'lost'}}))"
        )
        browser.load(f"{server.base}/?table={table}&lang=en", width=1280, height=900)
        browser.wait_until("!document.getElementById('join').hidden", timeout=15)
        click(browser, "document.querySelector('#seat-buttons button.creator[data-seat=\"0\"]')")
        browser.wait_until(
            "[...document.querySelectorAll('#seat-buttons button')]"
            ".some(b => b.textContent === 'Take seat 1')",
            timeout=10,
        )
        assert c.get(f"/api/tables/{table}").json()["seats"][0]["taken"] is False


def test_the_pile_labels_are_two_nouns_apart_in_every_language(
    browser: Browser, server: ServerProcess
) -> None:
    from pile_labels import check_bot_named_as_its_badge, check_piles

    table = create_table(browser, server, 1280)
    for width, height in ((1280, 900), (390, 844)):
        for lang in ("de", "en", "pl", "fr"):
            browser.load(f"{server.base}/?table={table}&lang={lang}", width=width, height=height)
            browser.wait_until("document.querySelector('#picture svg') !== null", timeout=15)
            check_piles(browser, lang)
            check_bot_named_as_its_badge(browser)
        screenshot(browser, f"piles-{width}-fr")
