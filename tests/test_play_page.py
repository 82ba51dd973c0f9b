"""The docs' play page in headless Chromium: a whole game against a bot, with no server.

The built site (``tests/conftest.py``'s ``built_site``, the same as
``tests/test_docs_browser.py``'s) is served on 127.0.0.1 by a plain static file
server that logs every request, and loaded cold (a fresh profile, the cache off) in
one Chromium (``tests/cdp.py``). The test prints the time until the table is shown
and the bytes the page transferred (speed is judged by ``benchmarks/play_page.py``,
not here), plays a whole game by clicks, downloads the game's record and replays it
with the library and the command line. Every request of the page goes to the site.
Python runs in the page's Web Worker: a PerformanceObserver of ``longtask`` entries
finds no task of the page's own thread over 200 ms while the game loads and plays.

Skipped when Chromium is not installed or the site was built without the game
(``npm ci`` not run: ``docs/play_site.py``), unless ``ALLEGRA_REQUIRE_BROWSER=1`` and
``ALLEGRA_REQUIRE_PLAY=1`` (as in CI). ``ALLEGRA_SCREENSHOTS=DIR`` saves screenshots;
``ALLEGRA_PLAY_SITE=DIR`` tests a site built before into ``DIR`` instead of building one.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import random
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")

pytestmark = pytest.mark.installed  # CI runs this module against the wheel too

from allegra_rules import GameRecord
from allegra_rules.records import replay
from cdp import Browser, BrowserError, require_chromium, save_screenshot

CHROMIUM = require_chromium()

ROOT = Path(__file__).resolve().parent.parent
PLAY = "_generated/play/"
CLICKABLE = "#actions button:not([disabled]), #picture g.card.highlighted"
REVEAL_OPEN = "!document.getElementById('reveal').hidden"


class _LoggingHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 - the base class's attribute, extended
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
    }
    requests: list[str]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        self.requests.append(self.path)
        return super().send_head()


@pytest.fixture(scope="module")
def built(request: pytest.FixtureRequest) -> Path:
    """The built site: ``ALLEGRA_PLAY_SITE`` (a folder built before), else built now."""
    given = os.environ.get("ALLEGRA_PLAY_SITE")
    if given:
        return Path(given)
    site: Path = request.getfixturevalue("built_site")
    return site


def _require_the_game(built_site: Path) -> None:
    """Skip (or in CI, fail) when the site was built without the game: no ``npm ci``."""
    if not (built_site / PLAY / "pyodide" / "pyodide.mjs").is_file():
        if os.environ.get("ALLEGRA_REQUIRE_PLAY") == "1":
            pytest.fail("ALLEGRA_REQUIRE_PLAY=1 but the site was built without the game")
        pytest.skip("the site was built without the game (run npm ci; see docs/play_site.py)")


@pytest.fixture(scope="module")
def site(built: Path) -> Iterator[tuple[str, list[str]]]:
    built_site = built
    _require_the_game(built_site)
    requests: list[str] = []
    handler = functools.partial(
        type("Handler", (_LoggingHandler,), {"requests": requests}), directory=str(built_site)
    )
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", requests
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(CHROMIUM, tmp_path_factory.mktemp("profile"), timeout=60) as opened:
        opened.send("Network.enable")
        opened.send("Network.setCacheDisabled", {"cacheDisabled": True})
        yield opened


LONG_TASKS = (
    "window.allegraLongTasks = [];"
    "new PerformanceObserver((list) => { for (const e of list.getEntries())"
    " allegraLongTasks.push(Math.round(e.duration)); })"
    ".observe({type: 'longtask', buffered: true});"
)
"""Collect every task of the page's thread over 50 ms (``longtask``), from the page's start."""


def report_long_tasks(browser: Browser) -> None:
    """Print the page thread's tasks over 50 ms so far (a figure to read, not a check:
    ``benchmarks/play_page.py`` measures it)."""
    tasks: list[int] = browser.evaluate("allegraLongTasks")
    print(f"play page: main-thread tasks over 50 ms: {tasks}")


PYTHON_ON_THE_PAGE_THREAD = (
    "((names) => [typeof globalThis.loadPyodide, typeof globalThis.pyodide,"
    " names.some((name) => name.endsWith('/app.js')),"
    " names.filter((name) => /pyodide|python_stdlib|\\.whl|\\.zip/.test(name))])"
    "(performance.getEntriesByType('resource').map((e) => e.name))"
)
"""What the page's own thread knows of Python: Pyodide's loader and interpreter (both
``undefined`` when Python runs in the worker), whether its timeline holds its own script
(it must, or the list after it proves nothing) and the Python files it fetched itself (a
worker's fetches are in the worker's own timeline, not the page's)."""


def assert_python_stays_in_the_worker(browser: Browser) -> None:
    """Python ran beside the page, never on its thread: the page loaded no Pyodide."""
    report_long_tasks(browser)
    assert browser.evaluate(PYTHON_ON_THE_PAGE_THREAD) == ["undefined", "undefined", True, []]


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


def play_to_the_end(browser: Browser, rng: random.Random) -> int:
    """Random clicks until the game is over (Continue at each round's end); the clicks."""
    clicks = missed = 0
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the game did not end in time"
        browser.wait_until(
            "!document.getElementById('over').hidden || "
            f"({REVEAL_OPEN} && !document.getElementById('reveal-continue').hidden) || "
            f"(!page.busy && document.querySelector('{CLICKABLE}'))",
            timeout=30,
        )
        if not browser.evaluate("document.getElementById('over').hidden"):
            return clicks
        if browser.evaluate(REVEAL_OPEN):
            click(browser, "document.getElementById('reveal-continue')")
            browser.wait_until(f"!({REVEAL_OPEN})")
            continue
        version = browser.evaluate("page.view.version")
        # Chosen and measured in one step: the page may answer for the person meanwhile,
        # and then there is nothing to click: look again.
        spot = browser.evaluate(
            f"(() => {{ const all = document.querySelectorAll('{CLICKABLE}');"
            " if (!all.length) return null;"
            f" const el = all[{rng.randrange(1 << 16)} % all.length];"
            " el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        if spot is None:
            continue
        for kind in ("mousePressed", "mouseReleased"):
            browser.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": spot[0], "y": spot[1], "button": "left", "clickCount": 1},
            )
        clicks += 1
        assert clicks < 300
        try:
            browser.wait_until(f"page.view.version > {version}", timeout=30)
        except BrowserError:
            # The page moved on between the measure and the press (a bot's move, or an
            # answer for the person), and the press met no button: look again.
            assert browser.evaluate("!page.busy"), "a move took more than 30 s"
            missed += 1
            assert missed <= 3


def test_a_whole_game_in_the_page_with_no_server(
    browser: Browser, site: tuple[str, list[str]], built: Path, tmp_path: Path
) -> None:
    base, requests = site
    requests.clear()
    browser.load(f"{base}{PLAY}index.html?lang=en", width=1280, height=900)
    browser.evaluate(LONG_TASKS)
    csp = browser.evaluate(
        "document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content"
    )
    assert "default-src 'self'" in csp and "connect-src 'self'" in csp
    assert browser.evaluate("document.documentElement.dataset.backend") == "browser"
    # A two-seat game, the other seat the learned bot (it runs in plain Python here: the
    # page has no NumPy), two turns a round (a short game).
    choices = browser.evaluate("local.ready.then(() => page.botChoices)")
    assert choices == ["greedy", "search-easy", "policy"]
    browser.evaluate(
        "document.getElementById('players').value = '2';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "document.getElementById('max-turns').value = '2';"
        "document.getElementById('seat-1').value = 'policy';"
    )
    click(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=60)
    shown = browser.evaluate("performance.now()") / 1000
    # The page's and its worker's files, as the test server sent them.
    files = {path.split("?")[0].split("#")[0] for path in requests}
    transferred = sum(
        (built / path.lstrip("/")).stat().st_size
        for path in files
        if (built / path.lstrip("/")).is_file()
    )
    print(f"\nplay page: table shown {shown:.2f} s after the navigation started (cold)")
    print(f"play page: {transferred / 1e6:.2f} MB of files (uncompressed, no gzip here)")
    # The worker fetches every file of the game, once.
    game_files = [path.split("?")[0] for path in requests if "/play/" in path]
    assert len(game_files) == len(set(game_files)), sorted(game_files)
    assert any(path.endswith("/play/play_worker.js") for path in game_files)
    assert browser.evaluate("document.getElementById('share').hidden")
    assert "You" in browser.evaluate("document.getElementById('seats').textContent")
    assert (
        browser.evaluate("localCall('info_json').then((info) => JSON.parse(info).seats[1].bot)")
        == "policy"
    )
    # Python ran beside the page: the page's thread loaded none of it.
    assert_python_stays_in_the_worker(browser)
    save_screenshot(browser, "play-table-1280")

    play_to_the_end(browser, random.Random(5))
    # ... and while the bots played: still none on the page's thread.
    assert_python_stays_in_the_worker(browser)
    over = browser.evaluate("document.getElementById('over').textContent")
    assert over.startswith("Game over: ") and "Download the game record" in over
    save_screenshot(browser, "play-over-1280")

    # The record, downloaded as a person would, replays with the library and the CLI.
    browser._call(
        "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)}
    )
    browser.wait_until("document.getElementById('record').href.startsWith('blob:')")
    click(browser, "document.getElementById('record')")
    deadline = time.monotonic() + 20
    while not list(tmp_path.glob("*.json")):
        assert time.monotonic() < deadline, "the record was not downloaded"
        time.sleep(0.1)
    (path,) = tmp_path.glob("*.json")
    time.sleep(0.2)  # the download's last write
    record = GameRecord.from_json(path.read_text(encoding="utf-8"))
    assert record.num_players == 2
    assert len(record.actions) == browser.evaluate("page.view.version")
    assert replay(record).is_terminal
    done = subprocess.run(
        [sys.executable, "-m", "allegra_rules", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    # Nothing left the site: every resource the page fetched is the site's.
    fetched = browser.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name).concat([location.href])"
    )
    assert fetched and all(url.startswith(base) or url.startswith("blob:") for url in fetched)
    assert any(path.endswith("pyodide.asm.wasm") for path in requests)
    assert any("/wheels/allegra_rules-" in path for path in requests)
    # The 2-seat table fetched one file of its own seat count's networks, and no other.
    weights = sorted(path.split("/play/")[1] for path in requests if "/weights/" in path)
    assert len(weights) == 1 and weights[0].startswith("weights/policy-2"), weights


COMPILED = """
import importlib.util, json, sys
std, from_source, ours, valid = [], [], [], 0
for name, module in sorted(sys.modules.items()):
    file = getattr(module, "__file__", None) or ""
    if file.startswith("/lib/python3") and module.__spec__.origin != "frozen":
        std.append(name)
        if not file.endswith(".pyc"):
            from_source.append(name)
    elif name.split(".")[0] in ("allegra_rules", "attr", "attrs") and file.endswith(".py"):
        ours.append(name)
        with open(module.__cached__, "rb") as f:
            pyc = f.read()
        with open(file, "rb") as f:
            # A checked hash-based .pyc (flags 3) made from this very source.
            valid += pyc[4] == 3 and pyc[8:16] == importlib.util.source_hash(f.read())
json.dumps({"std": std, "from_source": from_source, "ours": len(ours), "valid": valid})
"""
"""What the page's Python imported, and whether it ran compiled code (``docs/play_bytecode.py``)."""

PROBE = """
try:
    import numpy
    answer = "numpy"
except ModuleNotFoundError:
    answer = "no numpy"
answer
"""
"""An import of a module in neither part of the page's standard library."""

REST = """
import json, statistics, email.message, importlib.metadata, xml.dom.minidom
json.dumps([
    statistics.median([3, 1, 2]),
    type(email.message.EmailMessage()).__name__,
    callable(importlib.metadata.version),
    xml.dom.minidom.parseString("<a/>").documentElement.tagName,
])
"""
"""Imports of the standard library that a game never makes (``docs/play_stdlib_rest.py``):
a module, a package's module, and a module of a package the game imported."""


def test_the_page_runs_compiled_python_and_fetches_the_rest_of_the_stdlib_on_demand(
    browser: Browser, site: tuple[str, list[str]]
) -> None:
    base, requests = site
    requests.clear()
    browser.load(f"{base}{PLAY}index.html?lang=en", width=1280, height=900)
    browser.evaluate(
        "document.getElementById('players').value = '2';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
        "document.getElementById('max-turns').value = '2';"
        "document.getElementById('seat-1').value = 'search-easy';"
    )
    click(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=60)
    play_to_the_end(browser, random.Random(8))
    answer = json.loads(browser.evaluate(f"localPython({json.dumps(COMPILED)})"))
    # Pyodide's start, the engine and a game with a search bot: every module of the
    # standard library came compiled, and every module of the wheels from its .pyc.
    assert len(answer["std"]) > 100 and "json" in answer["std"] and "random" in answer["std"]
    assert answer["from_source"] == []
    assert answer["ours"] > 40 and answer["valid"] == answer["ours"]
    rest = [path for path in requests if path.endswith("/python_stdlib_rest.zip")]
    assert rest == [], "a game fetched the rest of the standard library"

    # A module in neither part fetches nothing; the rest is fetched once, on the first
    # import of one of its modules.
    assert browser.evaluate(f"localPython({json.dumps(PROBE)})") == "no numpy"
    assert not [path for path in requests if path.endswith("/python_stdlib_rest.zip")]
    answers = json.loads(browser.evaluate(f"localPython({json.dumps(REST)})"))
    assert answers == [2, "EmailMessage", True, "a"]
    assert browser.evaluate(f"localPython({json.dumps(REST)})") == json.dumps(answers)
    rest = [path for path in requests if path.endswith("/python_stdlib_rest.zip")]
    assert len(rest) == 1


def test_the_pages_standard_library_is_pyodides_split_in_two(built: Path) -> None:
    """Each file of Pyodide's ``python_stdlib.zip`` is in one part, a module compiled
    (``.pyc``) or as it was, and ``bytecode.zip`` holds compiled modules of the wheels."""
    original = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
    if not (built / PLAY / "pyodide" / "pyodide.mjs").is_file() or not original.is_file():
        pytest.skip("the site was built without the game (run npm ci; see docs/play_site.py)")
    folder = built / PLAY / "pyodide"
    with (
        zipfile.ZipFile(original) as source,
        zipfile.ZipFile(folder / "python_stdlib.zip") as core,
        zipfile.ZipFile(folder / "python_stdlib_rest.zip") as rest,
    ):
        wanted = set(source.namelist())
        in_core, in_rest = set(core.namelist()), set(rest.namelist())
        assert in_core.isdisjoint(in_rest)
        # The finder of the rest, and every other file a file of Pyodide's.
        assert "_allegra_stdlib_rest.pyc" in in_core
        in_core.discard("_allegra_stdlib_rest.pyc")
        compiled = {name for name in in_core if name.endswith(".pyc")}
        assert {name[:-1] for name in compiled} | (in_core - compiled) | in_rest == wanted
        assert not {name[:-1] for name in compiled} & (in_core | in_rest)
        assert len(compiled) > 100 and "json/__init__.pyc" in compiled
        assert "email/message.py" in in_rest and "statistics.py" in in_rest
        for name in in_core - compiled:
            assert core.read(name) == source.read(name)
        for name in in_rest:
            assert rest.read(name) == source.read(name)
        # A folder of a package that only the rest holds would make that package a
        # namespace package at start: every folder at start is one of a compiled package.
        for name in in_core:
            if name.endswith("/"):
                assert f"{name}__init__.pyc" in in_core or f"{name}__init__.py" in in_core
        for part in (core, rest):
            assert {info.date_time for info in part.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    sources: set[str] = set()
    for wheel in (built / PLAY / "wheels").glob("*.whl"):
        with zipfile.ZipFile(wheel) as opened:
            sources |= set(opened.namelist())
    with zipfile.ZipFile(built / PLAY / "wheels" / "bytecode.zip") as bytecode:
        names = bytecode.namelist()
    assert len(names) > 40
    assert any(name.startswith("allegra_rules/__pycache__/state.cpython-3") for name in names)
    for name in names:
        # allegra_rules/__pycache__/state.cpython-314.pyc <- allegra_rules/state.py
        folder, _, file = name.partition("/__pycache__/")
        assert file.endswith(".pyc") and f"{folder}/{file.split('.')[0]}.py" in sources, name


def _members(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as opened:
        return {name: opened.read(name) for name in opened.namelist()}


def test_the_page_installs_the_wheel_it_was_given(built: Path) -> None:
    """With ``ALLEGRA_PLAY_WHEEL`` (CI: the wheel its tests run against), the page's wheel is
    it, its weights files served apart in ``weights/`` (and their lines gone from RECORD)."""
    given = os.environ.get("ALLEGRA_PLAY_WHEEL")
    if not given:
        pytest.skip("ALLEGRA_PLAY_WHEEL is not set: the site holds a wheel built of this checkout")
    (wheel,) = sorted((built / PLAY / "wheels").glob("allegra_rules-*.whl"))
    page, original = _members(wheel), _members(Path(given))
    weights = {k: v for k, v in original.items() if k.startswith("allegra_rules/data/policy-")}
    assert weights and all(k.endswith(".npz") for k in weights)
    served = {p.name: p.read_bytes() for p in (built / PLAY / "weights").iterdir()}
    assert served == {k.rsplit("/", 1)[1]: v for k, v in weights.items()}
    (record,) = [k for k in page if k.endswith(".dist-info/RECORD")]
    assert page.pop(record) != original.pop(record)
    assert page == {k: v for k, v in original.items() if k not in weights}


def test_the_page_serves_each_seat_counts_weights_apart(built: Path) -> None:
    """The page's wheel holds the weights' index, no network; each file is at most 1 MB."""
    _require_the_game(built)
    (wheel,) = sorted((built / PLAY / "wheels").glob("allegra_rules-*.whl"))
    names = set(_members(wheel))
    assert "allegra_rules/data/policy.json" in names
    assert not [name for name in names if name.endswith(".npz")]
    index = json.loads(_members(wheel)["allegra_rules/data/policy.json"])
    served = {p.name: p.stat().st_size for p in (built / PLAY / "weights").iterdir()}
    listed = [e for files in index["networks"].values() for e in files]
    assert served == {e["file"]: e["bytes"] for e in listed}
    assert max(served.values()) <= 1_000_000


def test_the_page_speaks_the_chosen_language(browser: Browser, site: tuple[str, list[str]]) -> None:
    base, _ = site
    for lang, word in (("de", "Tisch eröffnen"), ("pl", "Załóż stół"), ("fr", "Créer la table")):
        browser.load(f"{base}{PLAY}index.html?lang={lang}", width=390, height=844)
        assert browser.evaluate("document.getElementById('create-button').textContent") == word
        browser.wait_until("document.getElementById('loading').hidden", timeout=60)
        options = browser.evaluate(
            "[...document.querySelectorAll('#seat-1 option')].map(o => o.value)"
        )
        assert options[:2] == ["greedy", "search-easy"]
        assert not browser.evaluate(
            "document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"
        )
    save_screenshot(browser, "play-lobby-390-fr")


def test_the_page_replays_a_record_it_is_handed_from_its_committed_deal(
    browser: Browser, site: tuple[str, list[str]]
) -> None:
    """``#verify=<record>&commitment=<hex>``: the engine in the page checks the whole game."""
    import base64

    from allegra_rules import apply, legal_actions
    from allegra_rules.records import commit_deal

    salt, commitment = commit_deal(77)
    record = GameRecord(num_players=2, seed=77, deal_commitment=commitment, deal_salt=salt.hex())
    state = record.initial_state()
    for _ in range(12):
        action = legal_actions(state)[0]
        record = record.with_actions(action)
        state = apply(state, action)
    text = record.to_json()

    def fragment(record_text: str, noted: str) -> str:
        packed = base64.urlsafe_b64encode(record_text.encode()).decode().rstrip("=")
        return f"#verify={packed}&commitment={noted}"

    base, _ = site
    result = "document.getElementById('verify-result').textContent"
    browser.load(f"{base}{PLAY}index.html?lang=en{fragment(text, commitment)}")
    browser.wait_until(f"{result}.startsWith('Checked in this page:')", timeout=60)
    assert "all 12 actions are legal" in browser.evaluate(result)
    assert browser.evaluate("document.getElementById('lobby').hidden")
    # Against another commitment than the one noted: not verified, and said loudly.
    other = commit_deal(78)[1]
    browser.load(f"{base}{PLAY}index.html?lang=en{fragment(text, other)}")
    browser.wait_until(f"{result}.startsWith('Not verified:')", timeout=60)
    assert "not the deal that was promised" in browser.evaluate(result)
    assert browser.evaluate("document.getElementById('verify').className") == "deal-warning"


def test_play_from_here_opens_the_position(
    browser: Browser, site: tuple[str, list[str]], built: Path
) -> None:
    """A record (``#record=``) or a picture (``#scene=``) opens that game's position."""
    import json
    from urllib.parse import quote

    from allegra_rules import apply, legal_actions

    record = GameRecord(num_players=3, seed=21)
    state = record.initial_state()
    for _ in range(4):
        action = legal_actions(state)[0]
        record = record.with_actions(action)
        state = apply(state, action)
    base, _ = site
    browser.load(f"{base}{PLAY}index.html?lang=en#record={quote(record.to_json())}")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=60)
    view = browser.evaluate("page.view")
    assert view["version"] >= 4
    assert view["viewer"] == state.current_player
    assert view["num_players"] == 3

    # A picture of the guide: its record is in scenes.json, written by the docs build.
    scenes = json.loads((built / PLAY / "scenes.json").read_text(encoding="utf-8"))
    shown = GameRecord.from_json(scenes["guide-knock.svg"])
    browser.load(f"{base}{PLAY}index.html?lang=de#scene=guide-knock.svg")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=60)
    view = browser.evaluate("page.view")
    assert view["version"] >= len(shown.actions)
    assert view["viewer"] == replay(shown).current_player


def test_the_pile_labels_are_two_nouns_apart_in_every_language(
    browser: Browser, site: tuple[str, list[str]]
) -> None:
    from pile_labels import check_bot_named_as_its_badge, check_piles

    base, _ = site
    browser.load(f"{base}{PLAY}index.html?lang=de", width=1280, height=900)
    browser.wait_until("document.getElementById('loading').hidden", timeout=60)
    browser.evaluate(
        "document.getElementById('players').value = '2';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
    )
    click(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=60)
    for width, height in ((1280, 900), (390, 844)):
        browser.resize(width, height)
        browser.wait_until(f"page.narrow.matches === {'true' if width < 600 else 'false'}")
        for lang in ("de", "en", "pl", "fr"):
            browser.evaluate(
                f"document.getElementById('lang').value = '{lang}';"
                "document.getElementById('lang').dispatchEvent(new Event('change'));"
            )
            check_piles(browser, lang)
            check_bot_named_as_its_badge(browser)
        save_screenshot(browser, f"play-piles-{width}-fr")


IN_VIEW = ("#status", "#seats", "#actions", "#picture svg", "#piles")
"""What a person needs at once: the status, the seats, the buttons, the table, the piles."""


@pytest.mark.parametrize("players", [2, 3, 4])
def test_at_1280x800_the_whole_table_is_in_view_without_scrolling(
    browser: Browser, site: tuple[str, list[str]], players: int
) -> None:
    """On the docs' play page, the frame and, inside it, every seat, your zone with its
    buttons and the piles fit a 1280x800 window together: nothing to scroll to play."""
    base, _ = site
    browser.load(f"{base}play/", width=1280, height=800)
    frame = "document.querySelector('.allegra-play iframe')"
    inner = f"{frame}.contentWindow"
    browser.wait_until(
        f"{frame}.contentDocument && {frame}.contentDocument.getElementById('loading')"
        f" && {frame}.contentDocument.getElementById('loading').hidden"
        f" && !{frame}.contentDocument.getElementById('create-button').disabled",
        timeout=90,
    )
    browser.evaluate(
        f"(() => {{ const d = {frame}.contentDocument;"
        f" d.getElementById('players').value = '{players}';"
        " d.getElementById('players').dispatchEvent(new Event('change'));"
        " d.getElementById('create-button').click(); })()"
    )
    browser.wait_until(
        f"{frame}.contentDocument.querySelector('#picture svg') !== null", timeout=60
    )
    # The picture is fitted to the window's height at the frame after it is drawn.
    browser.wait_until(
        f"{frame}.contentDocument.documentElement.style.getPropertyValue('--picture-top')"
    )
    # The page scrolled to the frame, just below the theme's header (which stays on top).
    browser.evaluate(
        f"window.scrollBy(0, {frame}.getBoundingClientRect().top"
        " - document.querySelector('.md-header').getBoundingClientRect().bottom)"
    )
    header = browser.evaluate("document.querySelector('.md-header').getBoundingClientRect().bottom")
    outer = browser.evaluate(
        f"(() => {{ const r = {frame}.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })()"
    )
    assert outer[0] >= -1 and outer[1] >= header - 1 and outer[2] <= 1281 and outer[3] <= 801, (
        outer,
        header,
    )
    # Past the setup (its cards are clicked in the picture), to a screen with buttons,
    # measured in the same step as the buttons are seen: the page may answer for the
    # person (or a bot move) a moment later.
    doc = f"{frame}.contentDocument"
    boxes = None
    deadline = time.monotonic() + 60
    while boxes is None:
        assert time.monotonic() < deadline, "no screen with buttons came"
        boxes = browser.evaluate(
            f"(() => {{ const d = {doc};"
            " if (d.querySelector('#actions button:not([disabled])') === null) {"
            " const c = d.querySelector('#picture g.card.highlighted');"
            " if (c) c.dispatchEvent(new MouseEvent('click', {bubbles: true}));"
            " return null; }"
            f" return {list(IN_VIEW)!r}.map(q => {{"
            " const r = d.querySelector(q).getBoundingClientRect();"
            " return [q, r.left, r.top, r.right, r.bottom, r.width * r.height]; }); })()"
        )
        if boxes is None:
            time.sleep(0.3)
    width, height, scrolled = browser.evaluate(
        f"[{inner}.innerWidth, {inner}.innerHeight, {inner}.scrollY]"
    )
    save_screenshot(browser, f"play-page-1280x800-{players}")
    assert scrolled == 0
    for name, left, top, right, bottom, area in boxes:
        assert area > 0, name
        assert left >= 0 and top >= 0 and right <= width + 1 and bottom <= height + 1, (
            name,
            [left, top, right, bottom],
            [width, height],
        )
    # Nothing inside scrolls sideways either.
    assert browser.evaluate(
        f"{inner}.document.documentElement.scrollWidth <= {inner}.innerWidth + 1"
    )


def test_on_a_phone_the_table_is_readable_and_its_first_move_on_the_first_screen(
    browser: Browser, site: tuple[str, list[str]]
) -> None:
    """At 390x844 the lobby's button and, in a game of three, the first thing to click
    are on the first screen; nothing scrolls sideways and no label is under 11 px."""
    base, _ = site
    browser.enable_touch()
    browser.load(f"{base}{PLAY}index.html?lang=en", width=390, height=844)
    browser.wait_until("document.getElementById('loading').hidden", timeout=60)
    button = "document.getElementById('create-button').getBoundingClientRect()"
    assert browser.evaluate(f"{button}.bottom") <= 844
    browser.evaluate(
        "document.getElementById('players').value = '3';"
        "document.getElementById('players').dispatchEvent(new Event('change'));"
    )
    click(browser, "document.getElementById('create-button')")
    browser.wait_until("document.querySelector('#picture svg') !== null", timeout=60)
    # Measured in one step with the element seen: the page may answer for the person.
    found = None
    deadline = time.monotonic() + 60
    while found is None:
        assert time.monotonic() < deadline, "nothing to click came"
        found = browser.evaluate(
            "(() => { window.scrollTo(0, 0);"
            # A picture's text is drawn at its font size times the picture's scale.
            " const scale = (l) => { const svg = l.closest('svg');"
            " const box = svg && svg.viewBox.baseVal;"
            " return box && box.width ? svg.getBoundingClientRect().width / box.width : 1; };"
            f" const e = document.querySelector('{CLICKABLE}');"
            " if (e === null || page.busy) return null;"
            " const labels = [...document.querySelectorAll("
            "'#picture text, #seats span, .pile span, #actions button, #status')]"
            ".filter(l => l.getBoundingClientRect().width > 0)"
            ".map(l => parseFloat(getComputedStyle(l).fontSize) * scale(l));"
            " return [e.getBoundingClientRect().bottom, Math.min(...labels),"
            " document.documentElement.scrollWidth - document.documentElement.clientWidth]; })()"
        )
        if found is None:
            time.sleep(0.3)
    save_screenshot(browser, "play-table-390-3")
    bottom, smallest, sideways = found
    assert bottom <= 844, bottom
    assert smallest >= 11, smallest
    assert sideways <= 1, sideways
