"""The piles beside the table, as both pages (the server's and the play page) draw them.

``check_piles`` reads the draw and the discard pile of the page open in the browser and
checks that each is labelled by the glossary's noun alone ("Nachziehstapel", never a
verb such as "ziehen"), on a line of its own above its count or card, and that the two
piles are drawn apart, never run together ("83 Karten1 Karte"), with labels of 11 px
or more.
"""

from __future__ import annotations

import re
from typing import Any

from allegra_rules.glossary import GLOSSARY
from cdp import Browser

PILES = """(() => [...document.querySelectorAll('#piles .pile')]
  .filter((pile) => !pile.hidden && pile.getBoundingClientRect().width > 0)
  .map((pile) => {
    const name = pile.querySelector('.pile-name');
    const value = name.nextElementSibling;
    const box = (el) => { const r = el.getBoundingClientRect();
      return [r.left, r.top, r.right, r.bottom]; };
    return {name: name.textContent, value: value.textContent, text: pile.innerText,
      box: box(pile), nameBox: box(name), valueBox: box(value),
      font: parseFloat(getComputedStyle(name).fontSize), id: value.id};
  }))()"""


def _apart(a: list[float], b: list[float]) -> bool:
    """Whether two boxes (left, top, right, bottom) do not overlap."""
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


def check_piles(browser: Browser, lang: str) -> list[dict[str, Any]]:
    """Check the draw and discard piles of the page in ``lang``; their facts, for a message."""
    piles = {pile["id"]: pile for pile in browser.evaluate(PILES)}
    draw, discard = piles["draw-count"], piles["discard-top"]
    words = GLOSSARY[lang]
    for pile, concept in ((draw, "draw_pile"), (discard, "discard_pile")):
        noun = words[concept]
        # The label is the glossary's noun alone: no verb, nothing else.
        assert pile["name"].strip() == noun[:1].upper() + noun[1:], (lang, pile)
        # The label is a line of its own: the count or card is not glued to it.
        assert pile["text"].split("\n")[0].strip() == pile["name"].strip(), (lang, pile)
        assert _apart(pile["nameBox"], pile["valueBox"]), (lang, pile)
        assert pile["font"] >= 11, (lang, pile)
    assert _apart(draw["box"], discard["box"]), (lang, draw, discard)
    together = browser.evaluate("document.getElementById('piles').innerText")
    lines = [line.strip() for line in together.split("\n") if line.strip()]
    assert not re.search(r"[^\W\d_]\d", together), together  # never "Karten1 Karte"
    assert draw["value"].strip() in lines and discard["name"].strip() in lines, together
    assert re.search(r"\d", draw["value"]), draw  # the draw pile's count
    return [draw, discard]


def check_bot_named_as_its_badge(browser: Browser) -> None:
    """The picture names the bot at seat 1 as its badge does (not "Player 2"), once the
    page has drawn the picture in its language."""
    badge = browser.evaluate("seatName(1)")
    browser.wait_until(
        "[...document.querySelectorAll('#picture svg')].some((s) =>"
        f" s.textContent.includes({badge!r}))",
        timeout=30,
    )
    drawn = browser.evaluate(
        "[...document.querySelectorAll('#picture svg')].map((s) => s.textContent).join()"
    )
    assert badge in drawn and badge != browser.evaluate("t('playerN', {n: 2})"), badge
