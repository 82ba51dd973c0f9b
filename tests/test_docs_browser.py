"""The built site in a real browser (headless Chromium, driven over the DevTools protocol).

The site is generated and built once per test session (``docs/generate.py`` writes its
git-ignored folders in ``docs/``; the English site, which carries every translated one
at ``/<lang>/``, is built into a temporary folder), served on 127.0.0.1, and loaded in
one Chromium (``tests/cdp.py``). Skipped with a one-line reason when Chromium is not
installed, unless ``ALLEGRA_REQUIRE_BROWSER=1`` (as in CI).

Run it alone with
``ALLEGRA_REQUIRE_BROWSER=1 .venv/bin/python -m pytest tests/test_docs_browser.py``;
``ALLEGRA_SCREENSHOTS=DIR`` also saves screenshots into ``DIR``: every page of every
language at 390 and 1280 px wide, and the main pages again as they are checked.
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib.util
import json
import os
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install '.[docs]')")

ROOT = Path(__file__).resolve().parent.parent


from cdp import Browser, BrowserError, require_chromium, save_screenshot

CHROMIUM = require_chromium()
from helpers import thorough_run

GUIDE = "how-to-play/"
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`")


SEARCH_INDEX = "search/search_index.json"
"""Each language's search index (about 1.2 MB for English), below its site's root."""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """The built site, without a log, and without the search's index unless asked.

    Material builds the search's index (lunr, in a web worker) from ``SEARCH_INDEX`` on
    every page it loads: about half of the CPU a page load takes, and the browser tests
    load hundreds. Only ``test_the_search_finds_the_guide_in_every_language`` uses the
    search; the other tests get a 404 for the index, and the search stays empty.
    """

    search = threading.Event()
    """Set while the index is served."""

    def do_GET(self) -> None:
        if self.path.split("?")[0].endswith("/" + SEARCH_INDEX) and not self.search.is_set():
            self.send_error(404)
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "_docs_generate_site", ROOT / "docs" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return _generator()


@pytest.fixture(scope="module")
def built(built_site: Path) -> Path:
    """The whole site, generated and built once per run (``tests/conftest.py``)."""
    return built_site


@pytest.fixture(scope="module")
def site(built: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(built))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    with Browser(CHROMIUM, tmp_path_factory.mktemp("profile")) as opened:
        yield opened


screenshot = save_screenshot


def translated(generator: ModuleType) -> dict[str, bool]:
    """Every translation, and whether its guide is written."""
    return {t.lang: "how-to-play.md" in t.pages for t in generator.translations()}


# ------------------------------------------------------------------ every page


def pages(built: Path) -> list[Path]:
    return sorted(p for p in built.rglob("*.html") if "/_generated/" not in str(p))


def visible_text(page: str) -> str:
    """The text of a page outside its code blocks, scripts and tags."""
    page = re.sub(r"<(script|style|pre)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_no_sphinx_role_and_no_doctest_quote_on_any_page(built: Path) -> None:
    checked = pages(built)
    assert len(checked) >= 15
    api = "".join(p.read_text(encoding="utf-8") for p in (built / "api").rglob("index.html"))
    assert api.count('class="doc-section-title">Examples:') >= 20
    for path in checked:
        page = path.read_text(encoding="utf-8")
        text = visible_text(page)
        where = path.relative_to(built)
        assert not ROLE.search(text), f"{where}: {ROLE.search(text).group(0)}"  # type: ignore[union-attr]
        for quote in re.findall(r"<blockquote>.*?</blockquote>", page, re.S):
            assert "&gt;&gt;&gt;" not in quote, f"{where}: a doctest rendered as a quote"
        assert ">>>" not in text, f"{where}: a doctest outside a code block"


def test_every_link_from_the_root_reaches_a_page_and_its_anchor(built: Path) -> None:
    """Links written from the site's root (the translations' links to English pages, the
    generated options table) are not checked by MkDocs: check them on the built site."""
    ids: dict[str, set[str]] = {}
    for path in pages(built):
        url = "/" + path.relative_to(built).as_posix().removesuffix("index.html")
        ids[url] = set(re.findall(r'\sid="([^"]+)"', path.read_text(encoding="utf-8")))
    checked = 0
    for path in pages(built):
        page = path.read_text(encoding="utf-8")
        for href in re.findall(r'href="(/[^"/][^"]*)"', page):
            target, _, fragment = href.partition("#")
            target = target.removesuffix(".")  # the 404 page links the home page as "/."
            where = f"{path.relative_to(built)}: {href}"
            if not target.endswith("/"):  # a file: a picture, a script, a favicon
                assert (built / target.lstrip("/")).is_file(), f"{where}: no such file"
                continue
            assert target in ids, f"{where}: no such page"
            assert not fragment or fragment in ids[target], f"{where}: no such anchor"
            checked += 1
    assert checked >= 50


# -------------------------------------------------------------------- pictures


def figures(browser: Browser) -> list[dict[str, float]]:
    found: list[dict[str, float]] = browser.evaluate(
        """[...document.querySelectorAll('figure.allegra-figure img')].map(img => {
            const box = img.getBoundingClientRect();
            const scroll = img.closest('.allegra-scroll').getBoundingClientRect();
            return {left: box.left, right: box.right, width: box.width,
                    box_left: scroll.left, box_right: scroll.right, boxed: scroll.width,
                    natural: img.naturalWidth, complete: img.complete ? 1 : 0};
        })"""
    )
    return found


PICTURES_READY = """[...document.querySelectorAll('.md-typeset img')]
    .every(img => img.complete && (!/[.]svg$/.test(img.src) || img.dataset.readable === img.src))"""
"""True once every picture is loaded and sized (``docs/static/allegra.js``)."""


def test_guide_pictures_are_wide_on_a_desktop_and_fit_a_phone(
    browser: Browser, site: str, built: Path
) -> None:
    browser.load(site + GUIDE, width=1280, height=900)
    browser.wait_until(
        "[...document.querySelectorAll('figure.allegra-figure img')]"
        ".every(img => img.complete && img.naturalWidth > 0)"
    )
    wide = figures(browser)
    assert len(wide) >= 13
    for k, img in enumerate(wide):
        assert img["natural"] > 0, f"picture {k} did not load"
        assert img["width"] >= 600, f"picture {k} is {img['width']:.0f} px wide at 1280 px"
        assert img["boxed"] == img["width"], f"picture {k} scrolls on a desktop"
    # A desktop shows the wide drawings, the seats side by side.
    assert all("/narrow/" not in path for path, _ in browser.evaluate(SHOWN_PICTURES))
    screenshot(browser, "guide-1280")
    browser.load(site + GUIDE, width=390, height=844)
    browser.wait_until(PICTURES_READY)
    phone = figures(browser)
    inner = browser.evaluate("window.innerWidth")
    for k, img in enumerate(phone):
        # The picture fills its box, which fits the screen: nothing scrolls.
        assert img["box_left"] >= 0 and img["box_right"] <= inner, f"picture {k}'s box overflows"
        assert img["boxed"] >= 0.8 * inner, f"picture {k} uses too little of the screen"
        assert abs(img["width"] - img["boxed"]) < 1, f"picture {k} scrolls on a phone"
    # ... because a phone is shown the narrow drawings, the seats one under the other.
    shown = browser.evaluate(SHOWN_PICTURES)
    assert len(shown) == len(phone) and all("/_generated/img/narrow/" in p for p, _ in shown)
    for path, width in shown:
        viewbox, font = smallest_text(built / path.lstrip("/"))
        assert font * width / viewbox >= 11, f"{path}: text {font * width / viewbox:.1f} px"
    assert browser.evaluate("document.documentElement.scrollWidth") <= inner
    screenshot(browser, "guide-390")


def test_a_click_on_a_picture_opens_it_full_size(browser: Browser, site: str) -> None:
    browser.load(site + GUIDE, width=390, height=844)
    browser.evaluate("document.querySelector('figure.allegra-figure img').click()")
    browser.wait_until("document.querySelector('dialog.allegra-zoom[open] img')")
    width = browser.evaluate("document.querySelector('dialog.allegra-zoom img').width")
    assert width > 390, "the zoomed picture is larger than the phone's screen"
    browser.press("Escape")
    browser.wait_until("!document.querySelector('dialog.allegra-zoom[open]')")


@pytest.mark.parametrize("page", ["", "rules/"])
def test_pages_show_their_pictures(browser: Browser, site: str, page: str) -> None:
    browser.load(site + page, width=1280, height=900)
    sources = browser.evaluate(
        "[...document.querySelectorAll('figure.allegra-figure img')].map(i => i.src)"
    )
    assert sources and all("/_generated/img/" in s for s in sources)
    if page == "rules/":
        assert browser.evaluate("!!document.getElementById('r9-1')")
        for name in ("guide-knock", "guide-knock-step-1", "guide-knock-step-2"):
            assert any(s.endswith(f"/{name}.svg") for s in sources), name


# --------------------------------------------------------------- every page, phone

OVERFLOWING = """(() => {
    const W = window.innerWidth;
    // Inside a box that scrolls sideways and itself fits the screen: fine.
    const scrolls = el => {
        for (let a = el.parentElement; a; a = a.parentElement) {
            const x = getComputedStyle(a).overflowX;
            const fits = a.getBoundingClientRect().right <= W + 0.5;
            if ((x === 'auto' || x === 'scroll') && fits) return true;
        }
        return false;
    };
    return [...document.body.querySelectorAll('*')].filter(el => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.right > W + 0.5 && el.checkVisibility() && !scrolls(el);
    }).map(el => `${el.tagName.toLowerCase()}.${el.className} ends at ${Math.round(
        el.getBoundingClientRect().right)} px`);
})()"""
"""Every visible element that reaches past the window's right edge without scrolling."""

SHOWN_PICTURES = """[...document.querySelectorAll('.md-typeset img')]
    .filter(img => /[.]svg$/.test(img.src))
    .map(img => {
        // The drawing shown: the stylesheet's narrow one on a phone, else the source.
        const narrow = /^url\\("?(.*?)"?\\)$/.exec(getComputedStyle(img).content);
        const url = new URL(narrow ? narrow[1] : img.currentSrc || img.src, location.href);
        return [url.pathname, img.getBoundingClientRect().width];
    })"""
"""Each SVG picture of the page: the path of the drawing it shows, and its width in px."""


def smallest_text(svg: Path) -> tuple[float, float]:
    """An SVG picture's width (its viewBox) and its smallest font size, in its own units."""
    import xml.etree.ElementTree as ET

    root = ET.parse(svg).getroot()
    width = float(root.get("viewBox", "").split()[2])

    def size(element: ET.Element, inherited: float) -> float:
        style = re.search(r"font-size:\s*([\d.]+)", element.get("style", ""))
        found = style.group(1) if style else element.get("font-size")
        return float(found) if found else inherited

    def walk(element: ET.Element, inherited: float) -> float:
        own = size(element, inherited)
        least = own if element.tag.endswith("}text") else float("inf")
        return min([least, *(walk(child, own) for child in element)])

    return width, walk(root, 16.0)


def every_page(built: Path) -> list[str]:
    """The path of every page of every language, from the site's root."""
    found = []
    for path in pages(built):
        url = path.relative_to(built).as_posix()
        found.append(url.removesuffix("index.html"))
    return found


QUICK_API_PAGES = ("api/", "api/serialize/", "api/adapters.openspiel/")
"""The API pages the default run checks on a phone (``--thorough``: every one)."""


@pytest.fixture(scope="module")
def on_a_phone(browser: Browser, site: str, built: Path) -> dict[str, dict[str, Any]]:
    """Every page of every language loaded once at 390x844, and what the phone tests
    below read of it, by its path from the site's root.

    For each page: ``overflowing`` (``OVERFLOWING``), ``width`` (the document's scroll
    width), ``pictures`` (``SHOWN_PICTURES``), ``scrolling`` (``SCROLLING``) and
    ``stacked`` (the tables read row by row). The default run reads three of the API
    pages (``QUICK_API_PAGES``, all alike), ``--thorough`` every one.
    """
    urls = every_page(built)
    assert len(urls) >= 30
    if not thorough_run():
        urls = [u for u in urls if not u.startswith("api/") or u in QUICK_API_PAGES]
    assert set(PHONE_PAGES) <= set(urls)
    read: dict[str, dict[str, Any]] = {}
    took: dict[str, float] = {}
    for url in urls:
        began = time.monotonic()
        try:
            browser.load(site + url, width=390, height=844)
        except BrowserError as error:  # name the page; one more try, as a reader reloads
            print(f"{url}: {error} after {time.monotonic() - began:.0f} s; loading it again")
            browser.load(site + url, width=390, height=844)
        took[url] = time.monotonic() - began
        browser.wait_until(PICTURES_READY)
        read[url] = {
            "overflowing": browser.evaluate(OVERFLOWING),
            "width": browser.evaluate("document.documentElement.scrollWidth"),
            "pictures": browser.evaluate(SHOWN_PICTURES),
            "scrolling": browser.evaluate(SCROLLING),
            "stacked": browser.evaluate(
                "document.querySelectorAll('[data-allegra-stacked]').length"
            ),
        }
        screenshot(browser, (url.strip("/").replace("/", "-") or "home") + "-390")
        if os.environ.get("ALLEGRA_SCREENSHOTS"):
            browser.load(site + url, width=1280, height=900)
            browser.wait_until(PICTURES_READY)
            screenshot(browser, (url.strip("/").replace("/", "-") or "home") + "-1280")
    slowest = sorted(took.items(), key=lambda item: -item[1])[:3]
    print("slowest loads at 390 px:", ", ".join(f"{u or '/'} {t:.1f} s" for u, t in slowest))
    return read


def test_on_a_phone_nothing_overflows_and_picture_text_is_readable(
    on_a_phone: dict[str, dict[str, Any]], built: Path
) -> None:
    """At 390 px, on every page of every language: nothing is wider than the screen
    unless it scrolls in a box of its own, and no picture's text is under 11 px."""
    langs = {url.split("/")[0] for url in on_a_phone if url[:3] in ("de/", "pl/", "fr/")}
    assert langs == {"de", "pl", "fr"}
    pictures_seen = 0
    for url, read in on_a_phone.items():
        assert read["overflowing"] == [], url
        assert read["width"] <= 390, url
        for path, shown in read["pictures"]:
            width, font = smallest_text(built / path.lstrip("/"))
            assert font * shown / width >= 11, (
                f"{url}: {path}'s smallest text is {font * shown / width:.1f} px high"
            )
            pictures_seen += 1
    assert pictures_seen >= 4 * 13  # the guide's pictures in every language, at least


# ------------------------------------------------------- pictures and tables, phone

PHONE_PAGES = (
    *(lang + page for lang in ("", "de/", "pl/", "fr/") for page in ("", GUIDE, "variants/")),
    "bots/",
    "server/",
    "cli/",
    "integrations/",
    "presets/seeds/",
    "presets/published/",
)
"""The pages read on a phone most: the players' pages in every language, the bots',
the server's, the command line's, the integrations' (with the PPO curve) and two preset
pages (their figures' tables and charts)."""

SCROLLING = """(() => {
    const W = window.innerWidth;
    const out = [];
    const name = el => el.tagName.toLowerCase() + (el.querySelector('img, table') ?
        ' with ' + (el.querySelector('img') ? el.querySelector('img').getAttribute('src')
                   : 'table ' + el.querySelector('th, td').textContent.trim()) : '');
    for (const el of document.querySelectorAll('.md-content *')) {
        if (!el.checkVisibility() || el.closest('pre, code')) continue;
        const x = getComputedStyle(el).overflowX;
        if ((x === 'auto' || x === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
            out.push(`${name(el)} scrolls: ${el.scrollWidth} > ${el.clientWidth} px`);
        }
        if (/^(IMG|TABLE|svg)$/.test(el.tagName)) {
            const box = el.getBoundingClientRect();
            const parent = el.parentElement.getBoundingClientRect();
            if (box.right > W + 0.5 || box.left < -0.5 || box.right > parent.right + 0.5) {
                out.push(`${name(el.parentElement)}: ${el.tagName.toLowerCase()} ends at ` +
                         `${Math.round(box.right)} px, its box at ${Math.round(parent.right)}`);
            }
        }
    }
    return out;
})()"""
"""What scrolls sideways in a page's content (code aside), or a picture or table that
reaches past the screen or its box."""


def test_on_a_phone_no_picture_and_no_table_scrolls_sideways(
    browser: Browser, site: str, built: Path, on_a_phone: dict[str, dict[str, Any]]
) -> None:
    """At 390 px every picture and table of those pages fits the screen without a
    scroll bar (tables too wide for it are read row by row), and every picture's text
    is at least 11 px high; code blocks may still scroll. At 1280 px the pictures are
    the wide drawings, and no table is stacked."""
    tables = pictures = 0
    for url in PHONE_PAGES:
        read = on_a_phone[url]
        assert read["scrolling"] == [], f"{url or 'the home page'}: {read['scrolling']}"
        for path, shown in read["pictures"]:
            width, font = smallest_text(built / path.lstrip("/"))
            px = font * shown / width
            assert px >= 11, f"{url}: {path}'s smallest text is {px:.1f} px high"
            pictures += 1
        tables += read["stacked"]
    # The guide's and the home page's pictures in every language, and the two charts.
    assert pictures >= 4 * 14 + 2, pictures
    assert tables >= 20, tables  # the wide tables are read row by row
    for url in ("bots/", GUIDE):
        browser.load(site + url, width=1280, height=900)
        browser.wait_until(PICTURES_READY)
        assert browser.evaluate("document.querySelectorAll('[data-allegra-stacked]').length") == 0
        assert all("/narrow/" not in path for path, _ in browser.evaluate(SHOWN_PICTURES))
    for url in ("bots/", "server/", "cli/"):
        for width in (390, 1280):
            browser.load(site + url, width=width, height=844 if width == 390 else 900)
            browser.wait_until(PICTURES_READY)
            screenshot(browser, f"{url.strip('/')}-{width}")


# ---------------------------------------------------------------------- tables

WORDS_IN_CELLS = """[...document.querySelectorAll('.md-typeset table td code')]
    .filter(c => !/\\s/.test(c.textContent.trim()))
    .filter(c => c.getClientRects().length > 1)
    .map(c => c.textContent)"""


HYPHENATED_IN_CELLS = """[...document.querySelectorAll('.md-typeset table td code')]
    .filter(c => /^\\S+-\\S+$/.test(c.textContent.trim())).length"""
HYPHENATED = {"bots/": 10, "cli/": 10}


@pytest.mark.parametrize("page", ["ambiguities/", "variants/", "bots/", "cli/"])
@pytest.mark.parametrize("width", [1280, 390])
def test_tables_never_break_a_word(browser: Browser, site: str, page: str, width: int) -> None:
    browser.load(site + page, width=width, height=900)
    assert browser.evaluate("document.querySelectorAll('.md-typeset table td code').length") > 20
    # On the bots' and the command line's pages, names with hyphens (`search-hard`,
    # `--bots`) are among the words checked: a browser breaks a line after a hyphen.
    assert browser.evaluate(HYPHENATED_IN_CELLS) >= HYPHENATED.get(page, 0)
    assert browser.evaluate(WORDS_IN_CELLS) == []
    if width == 1280:
        screenshot(browser, page.strip("/"))


# ------------------------------------------------------------------- languages


def selector(browser: Browser) -> dict[str, dict[str, object]]:
    links: dict[str, dict[str, object]] = browser.evaluate(
        """Object.fromEntries([...document.querySelectorAll('a.md-select__link[hreflang]')]
            .map(a => [a.hreflang, {path: new URL(a.href).pathname + new URL(a.href).hash,
                                     hidden: !!a.closest('[hidden]')}]))"""
    )
    return links


def test_the_english_guide_selector_points_at_the_same_page(
    browser: Browser, site: str, generator: ModuleType
) -> None:
    browser.load(site + GUIDE + "#scoring", width=1280, height=900)
    links = selector(browser)
    assert links["en"] == {"path": "/how-to-play/#scoring", "hidden": False}
    for lang, done in translated(generator).items():
        if done:
            assert links[lang] == {"path": f"/{lang}/how-to-play/#scoring", "hidden": False}
        else:  # nothing to switch to yet: the language is not offered
            assert links[lang]["hidden"] is True, lang
    # A page that is in English only leads to the other languages' home pages.
    browser.load(site + "rules/", width=1280, height=900)
    for lang, done in translated(generator).items():
        if done:
            assert selector(browser)[lang]["path"] == f"/{lang}/"


@pytest.mark.parametrize("lang", ["de", "pl", "fr"])
def test_each_language_guide_loads_with_a_selector_to_the_same_page(
    browser: Browser, site: str, generator: ModuleType, lang: str
) -> None:
    done = translated(generator)
    if not done.get(lang):
        pytest.skip(f"the {lang} guide is not written yet (test_docs.py lists what is missing)")
    browser.load(f"{site}{lang}/{GUIDE}#knocking", width=1280, height=900)
    assert browser.evaluate("document.documentElement.lang") == lang
    assert browser.evaluate("!!document.getElementById('knocking')")
    assert len(figures(browser)) >= 13
    links = selector(browser)
    assert links["en"]["path"] == "/how-to-play/#knocking"
    for other, other_done in done.items():
        if other_done:
            assert links[other]["path"] == f"/{other}/how-to-play/#knocking"
    screenshot(browser, f"guide-{lang}")


# ---------------------------------------------------------------------- replay


def test_the_replay_viewer_steps_with_the_arrow_keys(
    browser: Browser, site: str, built: Path
) -> None:
    browser.load(site + "replay/", width=1280, height=900)
    browser.wait_until("document.querySelector('.allegra-replay__narration p')")
    steps = json.loads(
        browser.evaluate("document.querySelector('script.allegra-replay__data').textContent")
    )
    assert len(steps) > 100
    assert all((built / "_generated" / "replay" / s["frame"]).is_file() for s in steps)

    def shown() -> tuple[int, str, str]:
        state: list[str] = browser.evaluate(
            """[document.querySelector('.allegra-replay').dataset.step,
                document.querySelector('.allegra-replay__viewer img').src,
                document.querySelector('.allegra-replay__narration').textContent]"""
        )
        return int(state[0]), state[1].rsplit("/", 1)[1], state[2].strip()

    assert shown() == (0, steps[0]["frame"], steps[0]["text"])
    browser.press("ArrowRight")
    browser.press("ArrowRight")
    assert shown() == (2, steps[2]["frame"], steps[2]["text"])
    browser.press("ArrowLeft")
    assert shown()[0] == 1
    browser.evaluate(
        "document.querySelector('.allegra-replay__controls .md-button--primary').click()"
    )
    assert shown()[0] == 2
    browser.press("End")
    assert shown()[0] == len(steps) - 1
    assert "wins" in steps[-1]["text"]
    assert browser.evaluate("location.hash") == f"#step-{len(steps) - 1}"
    browser.wait_until("document.querySelector('.allegra-replay__viewer img').complete")
    screenshot(browser, "replay")


def test_screenshots_of_the_api_reference(browser: Browser, site: str) -> None:
    if not os.environ.get("ALLEGRA_SCREENSHOTS"):
        pytest.skip("ALLEGRA_SCREENSHOTS is not set")
    browser.load(site + "api/svg/#allegra_rules.svg.render_svg", width=1280, height=900)
    browser.screenshot(Path(os.environ["ALLEGRA_SCREENSHOTS"]) / "api.png")


# ------------------------------------------------------------ no other host


SEARCH_WORDS = {"": "knocking", "de/": "klopfen", "pl/": "pukanie", "fr/": "frapper"}
"""A word of each language's guide's section on knocking, for its search."""


def test_the_search_finds_the_guide_in_every_language(browser: Browser, site: str) -> None:
    """Each language's search reads its own index and finds its guide's knocking section."""
    _QuietHandler.search.set()
    try:
        for lang, word in SEARCH_WORDS.items():
            browser.load(f"{site}{lang}", width=1280, height=800)
            browser.evaluate(
                "(() => { const box = document.querySelector('.md-search__input');"
                f" box.focus(); box.value = {json.dumps(word)};"
                " box.dispatchEvent(new Event('input', {bubbles: true})); })()"
            )
            browser.wait_until(
                "document.querySelectorAll('.md-search-result__item').length > 0", timeout=30
            )
            links = browser.evaluate(
                "[...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)"
            )
            found = {urlsplit(link).path + "#" + urlsplit(link).fragment for link in links}
            assert f"/{lang}{GUIDE}#knocking" in found, (lang, sorted(found))
    finally:
        _QuietHandler.search.clear()


@pytest.mark.parametrize("lang", ["", "de/", "pl/", "fr/"])
def test_no_page_requests_another_host(browser: Browser, site: str, lang: str) -> None:
    """Every request of the home, guide and play pages goes to the site (the network log).

    Material's repository widget (``repo_url``) would ask api.github.com for the stars;
    the repository is linked from the footer instead, and the play page's frame loads
    its game from the site itself.
    """
    browser.send("Network.enable")
    try:
        for page in ("", "how-to-play/", "play/"):
            browser.requested.clear()
            browser.load(f"{site}{lang}{page}", width=390, height=844)
            if page == "play/":
                browser.wait_until(
                    "document.querySelector('iframe').contentDocument"
                    ".getElementById('loading').hidden",
                    timeout=90,
                )
            time.sleep(0.5)  # what the page's scripts ask for after the load event
            browser.evaluate("0")  # reads the events that arrived meanwhile
            hosts = {urlsplit(url).netloc for url in browser.requested}
            hosts -= {""}  # data: addresses
            assert hosts == {urlsplit(site).netloc}, (page, sorted(browser.requested))
            assert browser.evaluate(
                "[...document.querySelectorAll('.md-social a')]"
                ".some(a => a.href === 'https://github.com/allegra-rules/allegra-rules')"
            )
    finally:
        browser.send("Network.disable")


def test_the_play_page_shows_no_back_to_top_button_on_a_phone(browser: Browser, site: str) -> None:
    """Material's "Back to top" (navigation.top) would float over the table."""
    browser.load(f"{site}play/", width=390, height=844)
    browser.evaluate("window.scrollTo(0, 400); window.scrollTo(0, 200)")  # scrolling up shows it
    time.sleep(0.3)
    assert browser.evaluate(
        "getComputedStyle(document.querySelector('.md-top')).display === 'none'"
    )
    screenshot(browser, "play-page-390-top")
    # Elsewhere it is still offered.
    browser.load(f"{site}{GUIDE}", width=390, height=844)
    assert browser.evaluate(
        "getComputedStyle(document.querySelector('.md-top')).display !== 'none'"
    )
