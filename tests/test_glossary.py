"""One glossary per language: the table's words are the guide's.

Every concept of ``allegra_rules.glossary`` is said in the guide of its language, and
no sentence of the narration or label of the pictures uses a word the glossary avoids.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from allegra_rules._sentences import WORDS
from allegra_rules.glossary import AVOID, CONCEPTS, GLOSSARY, term
from allegra_rules.picture_labels import PICTURE_LABELS

DOCS = Path(__file__).resolve().parent.parent / "docs"
GUIDES = {
    "en": DOCS / "how-to-play.md",
    "de": DOCS / "i18n" / "de" / "how-to-play.md",
    "pl": DOCS / "i18n" / "pl" / "how-to-play.md",
    "fr": DOCS / "i18n" / "fr" / "how-to-play.md",
}
# Words of the table (names of seats and bots) that the rules guide has no reason to say.
NOT_IN_GUIDE = {"cell", "you", "player", "greedy_bot", "search_bot", "learned_bot", "random_bot"}


def _stems(word: str) -> list[str]:
    """The part of each word that every inflection keeps (Polish and German decline nouns)."""
    return [part[: max(3, len(part) - 2)] for part in word.lower().split()]


@pytest.mark.parametrize("lang", sorted(GUIDES))
def test_the_guide_says_every_word_of_its_glossary(lang: str) -> None:
    guide = GUIDES[lang].read_text(encoding="utf-8").lower()
    assert set(GLOSSARY[lang]) == set(CONCEPTS)
    missing = [
        (concept, word)
        for concept, word in GLOSSARY[lang].items()
        if concept not in NOT_IN_GUIDE and not all(stem in guide for stem in _stems(word))
    ]
    assert not missing, missing


@pytest.mark.parametrize("lang", sorted(GUIDES))
def test_the_narration_and_the_pictures_avoid_what_the_glossary_avoids(lang: str) -> None:
    labels = PICTURE_LABELS[lang]
    texts = list(WORDS[lang].values())
    for field in ("seat", "column", "row", "ghost_column", "zone_numbered", "draw", "discard"):
        value = getattr(labels, field)
        texts += list(value) if isinstance(value, tuple) else [value]
    # A placeholder such as {zone} is not a word shown; an avoided word may name one.
    bare = [re.sub(r"\{[a-z_]+\}", "", text).lower() for text in texts]
    found = [
        (concept, word, text)
        for concept, words in AVOID[lang].items()
        for word in words
        for raw, text in zip(texts, bare, strict=True)
        if word.lower() in (raw.lower() if "{" in word else text)
    ]
    assert not found, found


def test_the_narration_uses_the_glossarys_words() -> None:
    assert "Drei gleiche Karten" in WORDS["de"]["o_triple_out"]
    assert term("triple", "fr") in WORDS["fr"]["o_triple_out"].lower()
    assert term("grid", "pl")[:5] in WORDS["pl"]["o_ender_grid"]
    assert "Bereich" in WORDS["de"]["o_ender_zone"]
    assert term("hole") in WORDS["en"]["n_taken_swap"]
    with pytest.raises(ValueError, match="lang"):
        term("zone", "xx")
    with pytest.raises(ValueError, match="glossary"):
        term("meeple")


APP_JS = Path(__file__).resolve().parent.parent / "src/allegra_rules/server/static/app.js"


def _page_texts() -> dict[str, dict[str, str]]:
    """The server page's (and the play page's) TEXT table: per language, key -> text."""
    source = APP_JS.read_text(encoding="utf-8")
    body = source[source.index("const TEXT = {") :]
    blocks = re.split(r"^  (en|de|pl|fr): \{$", body, flags=re.M)
    texts: dict[str, dict[str, str]] = {}
    for lang, block in zip(blocks[1::2], blocks[2::2], strict=True):
        if lang in texts:
            break  # the next table of the file
        pairs = re.findall(r'(?:"([\w-]+)"|(\w+)): "((?:[^"\\]|\\.)*)"', block.split("\n  },")[0])
        texts[lang] = {quoted or bare: text for quoted, bare, text in pairs}
    return texts


@pytest.mark.parametrize("lang", sorted(GUIDES))
def test_the_pages_name_seats_and_bots_with_the_glossarys_words(lang: str) -> None:
    # The badges (seatName in app.js) and the table picture (wording.seat_name) name a
    # seat alike: the same words for "You", "Player N" and each kind of bot.
    texts = _page_texts()[lang]
    words = GLOSSARY[lang]
    assert texts["youName"] == words["you"]
    assert texts["playerN"] == words["player"]
    for key, concept in (
        ("greedyName", "greedy_bot"),
        ("searchName", "search_bot"),
        ("search-easyName", "search_bot"),
        ("policyName", "learned_bot"),
        ("randomName", "random_bot"),
    ):
        assert texts[key] == words[concept], (key, texts[key])
    shown = " ".join(texts.values()).lower()
    avoided = [word for words_ in AVOID[lang].values() for word in words_ if "{" not in word]
    assert not [word for word in avoided if word.lower() in shown]
