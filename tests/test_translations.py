"""The translations: the same page as the English one, in the page's own language.

Every translated page (``docs/i18n/<lang>/*.md``) must have its English page's
sections (the same headings, at the same levels, with the same anchors), pictures,
tables and examples (code blocks, equal but for their comments). The pictures of a
translation are drawn with that language's words (``render_svg(..., labels=lang)``)
and its option tables come from ``docs/i18n/options.<lang>.yml``.
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import attrs
import pytest

from allegra_rules import RuleConfig, new_game, render_svg
from allegra_rules.picture_labels import (
    PICTURE_LABELS,
    PLURAL_RULES,
    PictureLabels,
    picture_labels,
)

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
I18N = DOCS / "i18n"
LANGS = sorted(p.name.split(".")[1] for p in ROOT.glob("mkdocs.*.yml"))
PAGES = ("index.md", "how-to-play.md", "variants.md")
SVG = "{http://www.w3.org/2000/svg}"


@functools.cache
def gen() -> ModuleType:
    """``docs/generate.py``, loaded without running it."""
    name = "_allegra_docs_generate_translations"
    spec = importlib.util.spec_from_file_location(name, DOCS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------ page structure

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```$", re.M | re.S)


def _code(code: str) -> str:
    """A code block without its comments, which a translation translates."""
    lines = []
    for line in code.splitlines():
        line = re.sub(r"(^|\s+)#\s.*$", "", line).rstrip()
        if line:
            lines.append(line)
    return "\n".join(lines)


def skeleton(text: str) -> dict[str, object]:
    """What a translation keeps of its page: headings, pictures, tables and examples."""
    blocks = [(m.group(1), _code(m.group(2))) for m in _FENCE.finditer(text)]
    prose = _FENCE.sub("", text)
    headings = [
        (len(m.group(1)), m.group(3))
        for m in re.finditer(r"^(#{1,6}) .*?(\{#([\w-]+)\})?$", prose, re.M)
    ]
    tables = [
        len(block.splitlines()) for block in re.findall(r"(?:^\|.*\|\n)+", prose + "\n", re.M)
    ]
    return {
        "headings": headings,
        "figures": prose.count('<figure class="allegra-figure" markdown>'),
        "captions": prose.count("<figcaption markdown>"),
        "pictures": re.findall(r"\]\((_generated/img/[\w.-]+)\)", prose),
        "tables (rows)": tables,
        "code blocks": blocks,
        "includes": [
            re.sub(r"/snippets/[a-z]{2}/", "/snippets/", include)
            for include in re.findall(r'^--8<-- "([^"]+)"', prose, re.M)
        ],
    }


def test_the_skeleton_sees_headings_pictures_tables_and_code() -> None:
    text = (
        "# Title {#top}\n\nSome text.\n\n## Part {#part}\n\n"
        "![a picture](_generated/img/x.svg)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "```python\nx = 1  # a comment\n# a whole-line comment\nprint(x)\n```\n\n"
        "```sh\n# not a heading\nls\n```\n"
    )
    got = skeleton(text)
    assert got["headings"] == [(1, "top"), (2, "part")]
    assert got["pictures"] == ["_generated/img/x.svg"]
    assert got["tables (rows)"] == [3]
    assert got["code blocks"] == [("python", "x = 1\nprint(x)"), ("sh", "ls")]
    # A dropped section, picture, row or changed code is a difference.
    assert skeleton(text.replace("## Part {#part}", "### Part {#part}")) != got
    assert skeleton(text.replace("| 1 | 2 |\n", "")) != got
    assert skeleton(text.replace("print(x)", "print(x + 1)")) != got
    assert skeleton(text.replace("x = 1  # a comment", "x = 1  # ein Kommentar")) == got


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", PAGES)
def test_a_translated_page_has_the_english_sections_pictures_and_examples(
    lang: str, page: str
) -> None:
    english = skeleton((DOCS / page).read_text(encoding="utf-8"))
    translated = skeleton((I18N / lang / page).read_text(encoding="utf-8"))
    for key, value in english.items():
        assert translated[key] == value, f"docs/i18n/{lang}/{page}: {key} differ from docs/{page}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_has_its_picture_words_and_option_tables(lang: str) -> None:
    assert lang in PICTURE_LABELS
    assert (I18N / f"options.{lang}.yml").is_file()
    text = (I18N / lang / "variants.md").read_text(encoding="utf-8")
    for table in ("options-table.md", "presets-table.md"):
        assert f'--8<-- "docs/_generated/snippets/{lang}/{table}"' in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_guide_no_longer_apologises_for_english_pictures(lang: str) -> None:
    guide = (I18N / lang / "how-to-play.md").read_text(encoding="utf-8")
    for english in ("**draw**", "**discard**", "**holds**", "**knocked**", "(drawer)"):
        assert english not in guide


# ------------------------------------------------------------------- option tables


@pytest.mark.parametrize("lang", LANGS)
def test_option_tables_are_in_the_pages_language(lang: str) -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with the docs extra")
    words = yaml.safe_load((I18N / f"options.{lang}.yml").read_text(encoding="utf-8"))
    table = gen().options_table(lang)
    english = gen().options_table()
    header = table.splitlines()[0]
    assert header != english.splitlines()[0]
    assert all(h in header for h in words["headers"].values() if h in table.splitlines()[0])
    rows = {line.split(" | ")[0].strip("| `"): line for line in table.splitlines()[2:]}
    for field in attrs.fields(RuleConfig):
        row = rows[field.name]  # the option's name stays: it is the API
        explanation = words["options"][field.name]
        assert explanation in row and field.metadata["doc"] not in row, field.name
        # Every allowed value is named as it is, and explained where there is a choice.
        for choice in field.metadata.get("choices", ()):
            assert f"`{choice}`" in row
    presets = gen().presets_table(lang)
    assert words["headers"]["fingerprint"] in presets and "| none |" not in presets


def test_a_missing_option_text_stops_the_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("yaml", reason="PyYAML comes with the docs extra")
    source = (I18N / "options.de.yml").read_text(encoding="utf-8")
    broken = re.sub(r"^  knocking: .*\n", "", source, flags=re.M)
    assert broken != source
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "options.xx.yml").write_text(broken, encoding="utf-8")
    monkeypatch.setattr(gen(), "DOCS", tmp_path)
    monkeypatch.setattr(gen(), "ROOT", tmp_path.parent)
    with pytest.raises(SystemExit, match="missing \\['knocking'\\]"):
        gen().options_table("xx")


# ------------------------------------------------------------------------ pictures


def _texts(svg: str) -> list[str]:
    root = ET.fromstring(svg.encode("utf-8"))
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def _cards(svg: str) -> list[str]:
    return re.findall(r'<g class="[^"]*" data-seat="\d+" data-row="\d+" data-col="\d+"[^>]*>', svg)


ENGLISH_WORDS = {
    "draw", "discard", "holds", "drawer", "knocked", "replaced", "card", "cards",
    "also", "far", "left", "taken", "given", "play", "unseen", "seat", "sum",
}  # fmt: skip
"""Words of the English pictures that none of the other languages uses."""


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_the_pictures_of_a_translation_speak_its_language(lang: str) -> None:
    english = gen().pictures()
    translated = gen().pictures(lang)
    assert translated.keys() == english.keys()
    labels = picture_labels(lang)
    for name, svg in translated.items():
        # The same table, card for card; only the words differ.
        assert _cards(svg) == _cards(english[name]), name
        words = {w.lower() for text in _texts(svg) for w in re.findall(r"[^\W\d]+", text)}
        assert not words & ENGLISH_WORDS, (name, words & ENGLISH_WORDS)
    every = [text for svg in translated.values() for text in _texts(svg)]
    assert labels.column.format(col=3) in every and labels.row.format(row=2) in every
    for word in (labels.draw, labels.discard, labels.holds, labels.in_hand[0]):
        assert word in every, word
    assert any(labels.knocked.strip() in text for text in every)


def test_english_pictures_are_the_default_and_unchanged() -> None:
    state = new_game(3, seed=5)
    default = render_svg(state)
    assert render_svg(state, labels="en") == default
    assert render_svg(state, labels=PICTURE_LABELS["en"]) == default
    texts = _texts(default)
    assert {"Player 2", "1", "3", "draw", "discard", "piles"} <= set(texts)
    assert not {"c0", "r2", "seat 1"} & set(texts)  # counted from one, in players' words
    assert "Allegra, 3 players:" in default


@pytest.mark.parametrize("bad", ["xx", "DE", "", None, 3, ("de",)])
def test_an_unknown_language_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="language"):
        render_svg(new_game(2, seed=1), labels=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="language"):
        picture_labels(bad)  # type: ignore[arg-type]


def test_default_seat_names_and_zone_sums_are_translated() -> None:
    state = new_game(3, seed=5)
    german = _texts(render_svg(state, labels="de"))
    assert "Spieler 2" in german and "\u25b6 Spieler 1" in german
    assert any(t.startswith("Bereich 1 \u00b7 Summe ") for t in german)
    assert "Allegra, 3 Spieler:" in render_svg(state, labels="de")


def test_your_own_labels_draw_another_language() -> None:
    spanish = attrs.evolve(
        PICTURE_LABELS["en"], language="es", draw="robar", discard="descarte", piles="mazos"
    )
    texts = _texts(render_svg(new_game(2, seed=1), labels=spanish))
    assert {"robar", "descarte", "mazos"} <= set(texts) and "draw" not in texts


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"draw": 3}, "draw must be a str"),
        ({"column": "c{row}"}, "column"),
        ({"given_by": "by {nme}"}, "given_by"),
        ({"cards": ("{count} card",)}, "2 forms"),
        ({"plural": "dual"}, "plural must be one of"),
        ({"language": ""}, "language"),
        ({"wrap_named": "also in"}, "tuple of lines"),
        ({"holds": "{"}, "not a valid template"),
    ],
)
def test_bad_labels_are_value_errors(change: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        attrs.evolve(PICTURE_LABELS["en"], **change)


@pytest.mark.parametrize(
    ("lang", "counts"),
    [
        # Polish: 1 karta, 2-4 karty (but 12-14 kart), 5-21 kart, 22-24 karty.
        ("pl", {1: "karta", 2: "karty", 4: "karty", 5: "kart", 12: "kart", 14: "kart",
                21: "kart", 22: "karty", 0: "kart", 104: "karty", 111: "kart"}),
        # French: 0 and 1 are singular.
        ("fr", {0: "carte", 1: "carte", 2: "cartes", 83: "cartes"}),
        ("de", {0: "Karten", 1: "Karte", 2: "Karten"}),
        ("en", {0: "cards", 1: "card", 2: "cards"}),
    ],
)  # fmt: skip
def test_counted_words_take_the_languages_plural(lang: str, counts: dict[int, str]) -> None:
    labels = picture_labels(lang)
    for count, word in counts.items():
        assert labels.count("cards", count) == f"{count} {word}"
    assert PLURAL_RULES[labels.plural] == len(labels.cards)


def test_count_refuses_a_field_that_is_not_counted() -> None:
    with pytest.raises(ValueError, match="count"):
        picture_labels("de").count("draw", 2)


def test_every_built_in_language_fills_every_template() -> None:
    fields = [f.name for f in attrs.fields(PictureLabels) if f.name not in ("language", "plural")]
    for lang, labels in PICTURE_LABELS.items():
        assert labels.language == lang
        for name in fields:
            value = getattr(labels, name)
            for item in value if isinstance(value, tuple) else (value,):
                item.format(name="Ada", seat=1, zone=1, col=1, row=1, total=1, count=1, cards="x")


SEAT_LABEL = re.compile(
    r'<text x="([\d.]+)" y="([\d.]+)" font-size="([\d.]+)" text-anchor="middle"'
    r' fill="[^"]+" font-weight="bold">([^<]+)</text>'
)


@pytest.mark.parametrize("lang", sorted(PICTURE_LABELS))
def test_seat_labels_do_not_run_into_each_other(lang: str) -> None:
    """The longest marks ("· knocked", "(drawer)") still leave the labels apart."""
    pairs = 0
    for name, svg in gen().pictures(lang).items():
        if name.startswith(gen().NARROW):
            continue  # a phone's picture: one seat a block, each block its own row
        rows: dict[str, list[tuple[float, float, str]]] = {}
        for x, y, size, text in SEAT_LABEL.findall(svg):
            half = 0.62 * float(size) * len(text) / 2  # bold DejaVu Sans, about
            rows.setdefault(y, []).append((float(x) - half, float(x) + half, text))
        for labels in rows.values():
            labels.sort()
            for (_, right, a), (left, _, b) in itertools.pairwise(labels):
                assert right < left, (name, a, b)
                pairs += 1
    assert pairs > 20  # every picture shows two or three seat labels


# ------------------------------------------------------------- a native speaker's words


def _prose(text: str) -> str:
    """A page's words for its readers: not its code (fenced blocks, `inline code`: the
    API), its anchors (``{#presets}``, the same in every language) or its includes."""
    text = re.sub(r"^--8<-- .*$|\{#[\w-]+\}", "", _FENCE.sub("", text), flags=re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _words(path: Path) -> str:
    """The words a reader of ``path`` sees: a page's prose, an option file's values."""
    if path.suffix != ".yml":
        return _prose(path.read_text(encoding="utf-8"))
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with the docs extra")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))

    def values(node: object) -> list[str]:
        if isinstance(node, dict):
            return [v for item in node.values() for v in values(item)]
        return [str(node)]

    return _prose("\n".join(values(data)))


ENGINE = re.compile(r"\b(?:\w*engine\w*|silnik\w*|moteurs?)\b", re.IGNORECASE)
"""The library's word for itself, in any language: no players' page uses it."""


@pytest.mark.parametrize("lang", ["en", *LANGS])
@pytest.mark.parametrize("page", PAGES)
def test_the_players_pages_speak_of_the_game_never_of_an_engine(lang: str, page: str) -> None:
    path = DOCS / page if lang == "en" else I18N / lang / page
    text = path.read_text(encoding="utf-8")  # the whole source: anchors and comments too
    found = [m.group(0) for m in ENGINE.finditer(text)]
    assert not found, f"{path.relative_to(ROOT)} speaks of {found}"


UNIDIOMATIC = {
    # German: no anglicism for the named rule sets, no gender star, colon or capital I.
    "de": re.compile(r"\bPresets?\b|\w[*:_]innen\b|\w+Innen\b|Engine"),
    # Polish: "zestaw zasad", never "preset"/"presety".
    "pl": re.compile(r"\bpreset\w*", re.IGNORECASE),
}


@pytest.mark.parametrize("lang", sorted(UNIDIOMATIC))
def test_translations_use_their_own_words_for_presets_and_players(lang: str) -> None:
    sources = [I18N / lang / page for page in PAGES] + [I18N / f"options.{lang}.yml"]
    for path in sources:
        prose = _words(path)
        found = sorted({m.group(0) for m in UNIDIOMATIC[lang].finditer(prose)})
        assert not found, f"{path.relative_to(ROOT)}: {found}"


def test_the_word_checks_see_what_they_refuse() -> None:
    assert ENGINE.search("Die Regel-Engine") and ENGINE.search("le moteur de règles")
    assert ENGINE.search("silnika zasad") and ENGINE.search("{#engine}")
    assert not ENGINE.search("the game shows")
    german = UNIDIOMATIC["de"]
    for bad in ("die Presets", "ein Preset", "Spieler*innen", "Spieler:innen", "SpielerInnen"):
        assert german.search(bad), bad
    assert not german.search("Regelsätze für Spielerinnen und Spieler")
    assert not german.search(_prose("## Die Regelsätze {#presets}\n\nmit `--preset fr`"))
    assert UNIDIOMATIC["pl"].search("Presety łączą") and not UNIDIOMATIC["pl"].search("zestaw")


LOOKS_LIKE_A_DIGIT = re.compile(r"(?<![^\W\d_])[lI|O](?=\d)")
"""A lone letter that reads as a digit beside a number: l0 l1 l2 look like 10 11 12."""


@pytest.mark.parametrize("lang", sorted(PICTURE_LABELS))
def test_row_and_column_labels_cannot_be_read_as_numbers(lang: str) -> None:
    labels = picture_labels(lang)
    for n in range(4):
        for label in (labels.row.format(row=n), labels.column.format(col=n)):
            assert not LOOKS_LIKE_A_DIGIT.search(label), (lang, label)
    assert not LOOKS_LIKE_A_DIGIT.search(labels.ghost_column.format(seat=2))
    assert LOOKS_LIKE_A_DIGIT.search("l0") and not LOOKS_LIKE_A_DIGIT.search("L0 R0 r0 c0")


def test_the_french_pictures_have_no_l0() -> None:
    texts = [text for svg in gen().pictures("fr").values() for text in _texts(svg)]
    assert not [t for t in texts if re.search(r"\bl\d", t)]
    assert picture_labels("fr").row.format(row=0) in texts


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_the_built_translated_pages_have_no_english_theme_words(
    built_site: Path, lang: str
) -> None:
    """Material writes "Permanent link" (the heading links' tooltip) and "Made with" (the
    footer) in English whatever the site's language: the configs translate both."""
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with the docs extra")
    config = yaml.safe_load((ROOT / f"mkdocs.{lang}.yml").read_text(encoding="utf-8"))
    toc = next(
        e["toc"] for e in config["markdown_extensions"] if isinstance(e, dict) and "toc" in e
    )
    credit = str(config.get("copyright", "")).split("<", 1)[0].strip()
    for page in PAGES:
        folder = built_site / lang / ("" if page == "index.md" else page.removesuffix(".md"))
        html = (folder / "index.html").read_text(encoding="utf-8")
        for english in ("Permanent link", "Made with"):
            assert english not in html, f"/{lang}/{page}: {english!r}"
        assert f'title="{toc.get("permalink_title")}"' in html, f"/{lang}/{page}"
        footer = html.split('<div class="md-copyright">', 1)[1].split("</footer>", 1)[0]
        assert credit and credit in footer, f"/{lang}/{page}: the footer's line, in {lang}"
