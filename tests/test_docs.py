"""The docs: what the generator writes, the pictures, the languages and the examples.

``docs/generate.py`` writes every table, picture and page part that comes from the
code before each build; its functions are checked here without writing anything.
Every ```python block of the pages (every language's) and of ``README.md`` runs, and
the output block right after it (```text title="Output"```) must be what it prints.
A block right after a ``<!-- no-test -->`` line is skipped.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import attrs
import pytest

from allegra_rules import PRESETS, Phase, Pos, RuleConfig

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
I18N = DOCS / "i18n"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@functools.cache
def gen() -> ModuleType:
    """``docs/generate.py`` (imports only the engine; nothing is written)."""
    return _load("_allegra_docs_generate", DOCS / "generate.py")


def scenes() -> ModuleType:
    gen()
    return sys.modules["scenes"]


@functools.cache
def yaml_config(path: Path) -> dict[str, object]:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with the docs extra")
    data: dict[str, object] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


LANGS = sorted(p.name.split(".")[1] for p in ROOT.glob("mkdocs.*.yml"))
FIELDS = [f.name for f in attrs.fields(RuleConfig)]
PRESET_IDS = [f"{name}@{v}" for name, vs in PRESETS.items() for v in range(1, len(vs) + 1)]


def page_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# ------------------------------------------------------------- generated tables


@pytest.mark.parametrize("name", FIELDS)
def test_options_table_lists_every_field(name: str) -> None:
    assert f"| `{name}` |" in gen().options_table()


@pytest.mark.parametrize("pid", PRESET_IDS)
def test_presets_table_lists_every_preset(pid: str) -> None:
    base, _, version = pid.partition("@")
    config = PRESETS[base][int(version) - 1]
    row = next(r for r in gen().presets_table().splitlines() if r.startswith(f"| `{pid}` |"))
    assert config.fingerprint[:12] in row
    for option in config.options_differing_from(RuleConfig()):
        assert f"`{option}`" in row


def test_every_field_settles_an_ambiguity_shown_on_the_ambiguities_page() -> None:
    text = page_text(DOCS / "ambiguities.md")
    ids = gen().ambiguity_ids()
    for field in attrs.fields(RuleConfig):
        amb = field.metadata["ambiguity"]
        assert amb in ids
        table = gen().ambiguity_options(amb)
        assert f"| `{field.name}` |" in table
        for pid in PRESET_IDS:
            assert f"`{pid}`" in table
        assert f"{{#{amb.lower()}}}" in text


def test_ambiguities_page_quotes_three_texts_with_english_and_includes_each_table() -> None:
    text = page_text(DOCS / "ambiguities.md")
    anchors = re.findall(r"\{#(a\d+)\}", text)
    assert anchors == [f"a{n}" for n in range(1, len(anchors) + 1)]
    for anchor in anchors:
        section = text.split(f"{{#{anchor}}}", 1)[1].split("\n## ", 1)[0]
        assert "| | DE | PL | FR |" in section, anchor
        quotes = re.search(r"^\| text \|(.*)\|$", section, re.M)
        english = re.search(r"^\| English \|(.*)\|$", section, re.M)
        assert quotes, f"{anchor}: a row of quotes"
        originals = [q.strip() for q in quotes.group(1).split("|")]
        if originals == ["(silent)"] * 3:
            assert not english, f"{anchor}: nothing to translate"
            continue
        assert english, f"{anchor}: the quotes in English, in a row under them"
        translations = [t.strip() for t in english.group(1).split("|")]
        for original, translated in zip(originals, translations, strict=True):
            assert translated, f"{anchor}: {original} is not translated"
            assert (original == "(silent)") == (translated == "(silent)"), anchor
        include = f'--8<-- "docs/_generated/snippets/ambiguity-{anchor}.md"'
        assert include in section, anchor


def test_traceability_table_is_the_markers_table() -> None:
    markers = _load("_rule_markers_for_docs", ROOT / "tests" / "rule_markers.py")
    assert gen().traceability_table() == markers.traceability_markdown()


def test_api_index_names_every_public_module_and_marks_the_top_level_names() -> None:
    import allegra_rules

    index = gen().api_index()
    pages = sorted(p.stem for p in (DOCS / "api").glob("*.md") if p.stem != "index")
    assert sorted(gen().PUBLIC_MODULES) == pages, "one page per public module, no other"
    nav = yaml_config(ROOT / "mkdocs.yml")["nav"]
    listed = re.findall(r"api/([\w.]+)\.md", str(nav))
    assert listed == ["index", *gen().PUBLIC_MODULES], "the nav lists every module page"
    for module in gen().PUBLIC_MODULES:
        assert f"[`allegra_rules.{module}`]({module}.md)" in index
        page = page_text(DOCS / "api" / f"{module}.md")
        assert re.search(rf"^::: allegra_rules\.{re.escape(module)}$", page, re.M), module
    for name in allegra_rules.__all__:
        if name != "__version__":
            assert re.search(rf"\*\*\[`{name}`\]\(\w[\w.]*\.md#allegra_rules\.", index), name
    assert "[`find_triples`](triples.md#allegra_rules.triples.find_triples)" in index
    assert "**[`find_triples`]" not in index


def test_retired_hook_markers_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gen().check_pages()  # the real pages use none
    page = tmp_path / "docs" / "x.md"
    page.parent.mkdir()
    page.write_text("# X\n\n<!-- ambiguity-options: A35 -->\n", encoding="utf-8")
    monkeypatch.setattr(gen(), "DOCS", tmp_path / "docs")
    monkeypatch.setattr(gen(), "ROOT", tmp_path)
    with pytest.raises(SystemExit, match=r"ambiguity-a35\.md"):
        gen().check_pages()


# ---------------------------------------------------------------- page includes


def all_pages() -> list[Path]:
    pages = sorted(DOCS.glob("*.md")) + sorted((DOCS / "presets").glob("*.md"))
    for lang in LANGS:
        pages += sorted((I18N / lang).glob("*.md"))
    return pages


TRANSLATED_SNIPPETS = {"options-table.md", "presets-table.md", "option-effects.md"}
"""The snippets the generator also writes in every translation's language."""


def snippet_names() -> set[str]:
    names = {"options-table.md", "presets-table.md", "traceability.md", "api-index.md"}
    names |= {"state-keys.md"}
    names |= {f"ambiguity-{a.lower()}.md" for a in gen().ambiguity_ids()}
    names |= {"option-effects.md"} | {f"analysis-{p}.md" for p in PRESETS}
    return names | {"replay.md"}


@pytest.mark.parametrize("page", all_pages(), ids=lambda p: str(p.relative_to(DOCS)))
def test_includes_and_pictures_are_ones_the_generator_writes(page: Path) -> None:
    text = page_text(page)
    for include in re.findall(r'^--8<-- "([^"]+)"', text, re.M):
        if include.startswith("docs/_generated/"):
            assert include.startswith("docs/_generated/snippets/"), include
            name = include.removeprefix("docs/_generated/snippets/")
            lang, _, rest = name.partition("/")
            if rest:  # a translation's own table: docs/_generated/snippets/<lang>/...
                assert lang in LANGS and rest in TRANSLATED_SNIPPETS, include
            else:
                assert name in snippet_names(), include
        else:
            assert (ROOT / include).is_file(), include
    pictures = {s.name for s in scenes().scenes()} | {"layers.svg"}  # + the architecture's
    for picture in re.findall(r"\]\(_generated/img/([\w.-]+)\)", text):
        assert picture in pictures, picture
    assert "](img/" not in text, "the pictures are in _generated/img/ now"


def test_the_saved_games_key_table_has_a_row_per_declared_field() -> None:
    import unittest.mock

    from allegra_rules.fields import STATE_FIELDS, Kind
    from allegra_rules.state_codec import HEADER_KEYS

    table = gen().state_keys_table()
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \| (.*) \|$", table, re.M)
    keys = [key for key, _, _ in rows]
    fields = [f for f in STATE_FIELDS if f.kind is not Kind.SCHEMA_VERSION]
    assert keys == [*HEADER_KEYS, *(f.name for f in fields)]
    meaning = {key: text for key, _, text in rows}
    for f in fields:
        assert ("From version" in meaning[f.name]) == (f.added > 1), f.name
    assert "``" not in table and "None" not in table  # JSON words, Markdown code
    assert '--8<-- "docs/_generated/snippets/state-keys.md"' in page_text(DOCS / "saved-games.md")
    # A kind without a JSON type in words stops the generator.
    types = dict(gen().STATE_KEY_TYPES)
    del types[Kind.FLAG.value]
    with (
        unittest.mock.patch.object(gen(), "STATE_KEY_TYPES", types),
        pytest.raises(KeyError, match="flag"),
    ):
        gen().state_keys_table()


def test_every_picture_of_the_guide_and_the_rules_can_be_played_from() -> None:
    """Each position picture of "How to play" and of the rules opens on the play page."""
    from allegra_rules.records import GameRecord, replay

    records = gen().scene_records()
    for page in ("how-to-play.md", "rules.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        for picture in re.findall(r"\]\(_generated/img/(guide-[\w.-]+)\)", text):
            assert picture in records, (page, picture)
    scored = next(s for s in scenes().scenes() if s.name == "guide-scoring.svg")
    assert scored.play_from is not None
    assert replay(GameRecord.from_json(records["guide-scoring.svg"])) == scored.play_from


def test_the_layers_picture_is_the_contract_ci_checks() -> None:
    """The architecture page's picture names every layer of pyproject.toml's contract."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    svg = gen().layers_svg()
    assert svg.count("<rect ") == len(layers)
    text = " ".join(re.findall(r">([^<]+)</text>", svg))
    for layer in layers:
        for name in layer.replace(":", "|").split("|"):
            assert name.strip() in text, name


def test_every_picture_is_shown_on_a_page() -> None:
    used = "".join(page_text(p) for p in DOCS.glob("*.md"))
    for scene in scenes().scenes():
        assert f"(_generated/img/{scene.name})" in used, scene.name


def test_the_guide_has_a_picture_for_every_step() -> None:
    guide = page_text(DOCS / "how-to-play.md")
    sections = re.split(r"^## ", guide, flags=re.M)[1:]
    stepped = [s for s in sections if not s.startswith(("What you need", "Three rounds", "Where"))]
    assert len(stepped) == 7
    for section in stepped:
        assert '<figure class="allegra-figure" markdown>' in section, section.splitlines()[0]
        assert "<figcaption markdown>" in section, section.splitlines()[0]
    # The knock exchange is numbered as rules R9.2 to R9.4 number it.
    exchange = guide.split("{#knock-exchange}", 1)[1].split("\n## ", 1)[0]
    for step, clause in ((1, "r9-2"), (2, "r9-3"), (3, "r9-4")):
        assert re.search(
            rf"^{step}\. \*\*.*\(\[R9\.{step + 1}\]\(rules\.md#{clause}\)\)", exchange, re.M
        )
    rules = page_text(DOCS / "rules.md")
    for step, clause in ((1, "R9.2"), (2, "R9.3"), (3, "R9.4")):
        assert f"### {clause} Step {step}:" in rules


# ------------------------------------------------------------------- the pictures


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def test_pictures_have_no_text_but_the_table() -> None:
    for name, svg in gen().pictures().items():
        root = parse(svg)
        for cls in ("status", "legend", "caption"):
            assert f'class="{cls}"' not in svg, (name, cls)
        assert root.get("viewBox"), name


def scene(name: str) -> object:
    return next(s for s in scenes().scenes() if s.name == name)


def test_the_story_pictures_show_what_the_guide_says() -> None:
    s = scenes().story()
    ada, ben = 0, 1
    # Setup: Ada turned up a 4 in Ben's column 3, Cleo a 5 in Ada's column 3.
    assert s.set_up.card(Pos(ben, 0, 3)) == 4 and s.set_up.is_face_up(Pos(ben, 0, 3))
    assert s.set_up.card(Pos(ada, 1, 3)) == 5 and s.set_up.is_face_up(Pos(ada, 1, 3))
    # Ada took the 1 from the discard pile and put it on her face-down 9.
    assert s.ada_swapped.card(Pos(ada, 0, 0)) == 1 and s.ada_swapped.discard_top == 9
    assert s.ben_holds.held == 10 and s.ben_holds.phase is Phase.HOLD_DECK
    assert s.ben_turned_up.discard_top == 10 and s.ben_turned_up.card(Pos(ben, 0, 0)) == 5
    # The knock exchange: the -1 for Ben's 5, Ada takes Ben's 0 and discards her 8.
    assert s.knock.held == -1 and s.knock.knockers == (ben,)
    assert s.step_1.card(Pos(ben, 0, 0)) == -1 and s.step_1.in_hand == ((ben, 5),)
    assert s.step_2.held == 0 and s.step_2.card(Pos(ben, 1, 1)) is None
    assert s.step_3.card(Pos(ada, 0, 3)) == 0 and s.step_3.discard_top == 8
    assert s.step_3.card(Pos(ben, 1, 1)) == 5 and s.step_3.is_face_up(Pos(ben, 1, 1))
    # The triple: Ben's 4, a face-down card, Ada's 4 in her zone's top row; then holes.
    row = [s.ada_holds_4.card(p) for p in s.ada_holds_4.zone(ada)[:5]]
    assert row[0] == 4 and row[3] == 4 and not s.ada_holds_4.is_face_up(Pos(ada, 0, 1))
    assert s.ada_holds_4.held == 4
    holes = scene("guide-triple-gaps.svg").highlight  # type: ignore[attr-defined]
    assert all(s.triple_gone.is_gap(p) for p in holes) and s.triple_gone.out_of_play == (4,) * 3


def table_numbers(text: str) -> list[list[int]]:
    """The rows of numbers of the table after ``<!-- scoring-example -->``."""
    table = text.split("<!-- scoring-example -->", 1)[1].strip().split("\n\n", 1)[0]
    rows = [line.split("|")[2:-1] for line in table.splitlines()[2:]]
    return [[int(re.search(r"-?\d+", cell).group(0)) for cell in row] for row in rows]  # type: ignore[union-attr]


def test_the_scoring_example_is_the_engines_scoring() -> None:
    g = scenes().scoring()
    assert g.ended.ender == 0 and g.ended.final_turns == (1, 2)
    assert all(g.ended.is_face_up(Pos(0, r, c)) for r in range(3) for c in range(4))
    last = g.scored.last_round
    own = [sum(last.cells[p * 12 : p * 12 + 12]) for p in range(3)]
    column = [sum(last.cells[q * 12 + r * 4 + 3] for r in range(3)) for q in (1, 2, 0)]
    expected = [own, column, list(last.zone_sums), list(last.scores)]
    assert [o + c for o, c in zip(own, column, strict=True)] == list(last.zone_sums)
    assert last.ender == 0 and last.doubled and last.scores[0] == 2 * last.zone_sums[0]
    for page in [DOCS / "how-to-play.md", *(I18N / lang / "how-to-play.md" for lang in LANGS)]:
        if page.exists():
            assert table_numbers(page_text(page)) == expected, page


# -------------------------------------------------------------------- languages


def test_every_page_exists_in_every_language() -> None:
    """The home page, the guide and the variants overview are in every language."""
    pages = set(gen().TRANSLATED_PAGES)
    for page in pages:
        assert (DOCS / page).is_file(), page
    missing = [
        f"docs/i18n/{lang}/{page}"
        for lang in LANGS
        for page in sorted(pages)
        if not (I18N / lang / page).is_file()
    ]
    extra = [
        f"docs/i18n/{lang}/{p.name}"
        for lang in LANGS
        for p in sorted((I18N / lang).glob("*.md"))
        if p.name not in pages
    ]
    assert not extra, f"pages that exist in one language only: {extra}"
    assert not missing, f"pages not translated yet: {missing}"


def anchors(text: str) -> list[str]:
    return re.findall(r"\{#([\w-]+)\}", text)


def structure(text: str) -> dict[str, object]:
    """What must be the same in every language: ids, clause links, pictures, includes."""
    return {
        "anchors": anchors(text),
        "clauses": sorted(set(re.findall(r"(?:rules\.md|/rules/)#(r\d+-\d+)", text))),
        "ambiguities": sorted(set(re.findall(r"(?:ambiguities\.md|/ambiguities/)#(a\d+)", text))),
        "pictures": re.findall(r"\]\((_generated/img/[\w.-]+)\)", text),
        # A translation includes its own language's tables (snippets/<lang>/...).
        "includes": [
            re.sub(r"/snippets/(?:" + "|".join(LANGS) + ")/", "/snippets/", include)
            for include in re.findall(r'^--8<-- "([^"]+)"', text, re.M)
        ],
        "python": len(re.findall(r"^```python$", text, re.M)),
    }


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("page", ["index.md", "how-to-play.md", "variants.md"])
def test_translations_keep_every_id_link_and_picture(lang: str, page: str) -> None:
    path = I18N / lang / page
    if not path.exists():
        pytest.skip(f"{path.relative_to(ROOT)} is not written yet (see the test above)")
    assert structure(page_text(path)) == structure(page_text(DOCS / page))


def test_the_guide_ids_are_stable() -> None:
    assert anchors(page_text(DOCS / "how-to-play.md")) == [
        "how-to-play",
        "what-you-need",
        "the-table",
        "setup",
        "a-turn",
        "take-the-discard",
        "draw-from-the-pile",
        "knocking",
        "knock-exchange",
        "triples",
        "round-end",
        "scoring",
        "three-rounds",
        "variants",
    ]


SHARED_SETTINGS = (
    "site_name",
    "strict",
    "theme",
    "extra",
    "extra_css",
    "extra_javascript",
    "markdown_extensions",
)


def _without_own_words(key: str, value: object) -> object:
    """A shared setting less the words a language writes in its own tongue.

    Material writes two English phrases whatever the theme's language: the heading links'
    tooltip (``toc``'s ``permalink_title``, "Permanent link") and the footer's "Made
    with Material for MkDocs" (hidden by ``extra.generator: false``; the language's own
    line is ``copyright``). A translation sets both; all else is the English config's.
    """
    if key == "extra":
        return {k: v for k, v in value.items() if k != "generator"}  # type: ignore[attr-defined]
    if key == "markdown_extensions":
        return [
            {"toc": {k: v for k, v in ext["toc"].items() if k != "permalink_title"}}
            if isinstance(ext, dict) and "toc" in ext
            else ext
            for ext in value  # type: ignore[attr-defined]
        ]
    return value


def _toc(config: dict[str, object]) -> dict[str, object]:
    extensions = config["markdown_extensions"]
    return next(e["toc"] for e in extensions if isinstance(e, dict) and "toc" in e)  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_config_matches_the_english_one(lang: str) -> None:
    english = yaml_config(ROOT / "mkdocs.yml")
    config = yaml_config(ROOT / f"mkdocs.{lang}.yml")
    # No repository widget (it would ask another host for the stars): a footer link.
    assert "repo_url" not in config and "repo_url" not in english
    assert config["extra"]["social"] == english["extra"]["social"]  # type: ignore[index]
    for key in SHARED_SETTINGS:
        if key == "theme":
            assert {**config[key], "language": "en"} == english[key]  # type: ignore[dict-item]
            assert config[key]["language"] == lang  # type: ignore[index]
        else:
            assert _without_own_words(key, config[key]) == english[key], key
    # The theme's English words, in the language: the heading links' tooltip and the
    # footer (the English site keeps Material's defaults).
    title = _toc(config).get("permalink_title")
    assert isinstance(title, str) and title and title != "Permanent link", title
    assert "permalink_title" not in _toc(english)
    assert config["extra"].get("generator") is False  # type: ignore[attr-defined]
    assert "Made with" not in str(config.get("copyright")) and config.get("copyright")
    assert "copyright" not in english and "generator" not in english["extra"]  # type: ignore[operator]
    assert config["site_url"] == f"{english['site_url']}{lang}/"
    assert config["docs_dir"] == f"docs/i18n/{lang}"
    assert config["site_dir"] == f"docs/{lang}"
    assert config["plugins"] == ["search"]
    nav_pages = [next(iter(item.values())) for item in config["nav"]]  # type: ignore[union-attr]
    assert [p for p in nav_pages if isinstance(p, str)] == list(gen().TRANSLATED_PAGES)
    links = {item["lang"]: item["link"] for item in english["extra"]["alternate"]}  # type: ignore[index]
    assert links == {"en": "/", **{code: f"/{code}/" for code in LANGS}}


ZENSICAL_PLUGINS = {"search", "mkdocstrings"}
STANDARD_EXTENSIONS = {"admonition", "attr_list", "md_in_html", "tables", "toc", "footnotes"}


@pytest.mark.parametrize("config", ["mkdocs.yml", *(f"mkdocs.{lang}.yml" for lang in LANGS)])
def test_configs_hold_nothing_zensical_cannot_read(config: str) -> None:
    data = yaml_config(ROOT / config)
    for key in ("hooks", "remote_branch", "remote_name"):
        assert key not in data, f"{config}: Zensical cannot read {key!r}"
    plugins = {p if isinstance(p, str) else next(iter(p)) for p in data["plugins"]}  # type: ignore[union-attr]
    assert plugins <= ZENSICAL_PLUGINS, plugins - ZENSICAL_PLUGINS
    for ext in data["markdown_extensions"]:  # type: ignore[union-attr]
        name = ext if isinstance(ext, str) else next(iter(ext))
        assert name in STANDARD_EXTENSIONS or name.startswith("pymdownx."), name


# ---------------------------------------------------------------- code examples

OPTIONAL_MODULES = {
    "jsonschema",
    "pettingzoo",
    "gymnasium",
    "numpy",
    "pyspiel",
    "open_spiel",
    "ray",
    "torch",
    "supersuit",
    "jax",
}
"""Modules of optional extras: an example needing one is skipped when it is absent."""

_BLOCK = re.compile(r"^```python\n(.*?)^```\n", re.M | re.S)
_OUTPUT = re.compile(r'\s*```text title="Output"\n(.*?)^```\n', re.M | re.S)


def python_blocks(path: Path) -> list[tuple[str, str, str | None]]:
    """``(where, code, expected output or None)`` of every runnable block of a page."""
    out: list[tuple[str, str, str | None]] = []
    text = page_text(path)
    for m in _BLOCK.finditer(text):
        before = text[: m.start()].rstrip().splitlines()
        if before and before[-1].strip() == "<!-- no-test -->":
            continue
        line = text[: m.start()].count("\n") + 2
        output = _OUTPUT.match(text, m.end())
        out.append((f"{path.name}:{line}", m.group(1), output.group(1) if output else None))
    return out


PAGES = [*all_pages(), ROOT / "README.md"]
PAGES_WITH_CODE = [p for p in PAGES if python_blocks(p)]


def test_the_tutorial_and_variants_pages_have_examples() -> None:
    names = {p.name for p in PAGES_WITH_CODE}
    assert {"tutorial.md", "variants.md", "README.md"} <= names


def test_every_tutorial_block_shows_its_output() -> None:
    for where, _, output in python_blocks(DOCS / "tutorial.md"):
        assert output is not None, f'{where}: add a ```text title="Output" block after it'


@pytest.mark.parametrize(
    "page", PAGES_WITH_CODE, ids=[str(p.relative_to(ROOT)) for p in PAGES_WITH_CODE]
)
def test_python_blocks_run_and_print_their_output(page: Path) -> None:
    """The blocks of one page run in order in one namespace, like a reader would."""
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for where, code, expected in python_blocks(page):
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                exec(compile(code, where, "exec"), namespace)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] in OPTIONAL_MODULES:
                pytest.skip(f"{where}: optional dependency {error.name} is not installed")
            raise
        if expected is not None:
            assert printed.getvalue() == expected, f"{where} printed something else"


def test_every_picture_and_chart_has_a_narrow_drawing_readable_on_a_phone() -> None:
    """A 390 px phone shows a picture 358 px wide: there the narrow drawings' smallest
    text is at least 11 px high, and the stylesheet shows each in its wide one's place."""
    narrow = gen().NARROW
    drawn = gen().pictures()
    charts = gen().charts_module.narrow_charts()
    names = [scene.name for scene in scenes().scenes()]
    assert sorted(drawn) == sorted([*names, *(narrow + name for name in names)])
    # Every chart of the pages (docs/assets/*.svg) has its narrow drawing.
    assets = gen().charts_module.ASSETS
    assert sorted(charts) == sorted(p.name for p in assets.glob("*.svg"))
    css = gen().narrow_css(names, list(charts))
    shown = [(name, drawn[narrow + name]) for name in names] + list(charts.items())
    for name, svg in shown:
        assert f'url("../img/{narrow}{name}")' in css, name
        root = parse(svg)
        width = float(root.get("viewBox", "").split()[2])
        sizes = [float(el.get("font-size", "0")) for el in root.iter() if el.get("font-size")]
        assert min(sizes) * 358 / width >= 11, name


def test_the_readme_links_pages_that_exist_and_names_every_search_level() -> None:
    from allegra_rules.bot_kinds import BOT_KINDS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\[([^\]]+)\]\(https://allegra-rules\.readthedocs\.io/([\w/-]*)\)", readme)
    assert links
    for text, address in links:
        page = DOCS / (address.strip("/") or "index")
        source = page.with_suffix(".md") if page.with_suffix(".md").exists() else page / "index.md"
        assert source.exists(), (text, address)
        title = source.read_text(encoding="utf-8").split("\n", 1)[0].removeprefix("# ")
        assert text == title, (text, title)  # a link names the page by its title
    # Every search bot the command line knows is named; no count of levels goes stale.
    searches = [name for name in BOT_KINDS if name.startswith("search")]
    assert len(searches) == 5
    for name in searches:
        assert f"`{name}`" in readme, name
    joined = " ".join(readme.split()).lower()
    assert not re.search(r"\b(two|three|four) (search )?levels\b", joined)


# ------------------------------------------------------------ what the variants do


def analysis() -> ModuleType:
    gen()  # puts docs/ on the path
    return _load("_allegra_docs_analysis", DOCS / "analysis_docs.py")


def test_every_preset_has_a_page_drawn_from_committed_json_of_its_own_rules() -> None:
    from allegra_rules import preset

    a = analysis()
    assert sorted(a.PRESET_PAGES) == sorted(PRESETS)
    nav = str(yaml_config(ROOT / "mkdocs.yml")["nav"])
    for name in a.PRESET_PAGES:
        page = page_text(DOCS / "presets" / f"{name}.md")
        assert f'--8<-- "docs/_generated/snippets/analysis-{name}.md"' in page
        assert f"presets/{name}.md" in nav
        data = a.load(a.data_for(name))
        # The committed figures were made with the preset's rules as they are today.
        for table in data["tables"]:
            assert table["rules"]["config_fingerprint"] == preset(name).fingerprint
            assert table["report"]["games"] == data["games"]
        assert [t["rules"]["players"] for t in data["tables"]] == [2, 3, 4, 5, 6]
        snippet = a.preset_snippet(name)
        # The page names the command, the seed and the game count that made it.
        assert f"`{data['command']}`" in snippet
        assert f"--seed {data['seed']}" in data["command"]
        assert f"--games {data['games']}" in data["command"]
        assert f"seed {data['seed']}, {data['games']:,} games per table" in snippet
        assert "GreedyBot" in snippet


def test_the_option_effects_table_has_a_row_per_alternative_of_every_option() -> None:
    from allegra_rules import preset
    from allegra_rules.analysis import holm, option_variants

    a = analysis()
    data = a.load("options")
    options = data["options"]
    expected = [(o, v) for o, v, _ in option_variants(preset("published"))]
    assert [(v["option"], v["value"]) for v in options["variants"]] == expected
    assert options["base"]["config_fingerprint"] == preset("published").fingerprint
    rows = options["comparisons"]
    assert [r["p_holm"] for r in rows] == pytest.approx(holm([r["p"] for r in rows]), rel=1e-4)
    table = a.effects_snippet()
    body = [line for line in table.splitlines() if line.startswith("| [`")]
    assert len(body) == len(expected)
    for (option, value), line in zip(expected, body, strict=True):
        assert line.startswith(f"| [`{option}`](#options) |") and str(value) in line
        found = [r for r in rows if (r["option"], r["value"]) == (option, value)]
        significant = [r for r in found if r["significant"]]
        assert ("no significant change" in line) == (not significant), line
        for r in significant:
            assert r["words"] in line
    assert f"`{data['command']}`" in table and "Holm" in table
    assert "--options" in data["command"]


def test_every_language_links_its_variants_page_to_the_option_effects() -> None:
    a = analysis()
    english = page_text(DOCS / "variants.md")
    assert '--8<-- "docs/_generated/snippets/option-effects.md"' in english
    assert "variants.md#what-each-option-does" in page_text(DOCS / "how-to-play.md")
    for lang in LANGS:
        page = page_text(I18N / lang / "variants.md")
        assert f'--8<-- "docs/_generated/snippets/{lang}/option-effects.md"' in page
        assert "variants.md#what-each-option-does" in page_text(I18N / lang / "how-to-play.md")
        link = a.effects_link(lang)
        assert "/variants/#what-each-option-does" in link
        for name in a.PRESET_PAGES:
            assert f"(/presets/{name}/)" in link


def test_the_analysis_charts_read_on_a_phone() -> None:
    """Drawn 360 units wide, shown at most 358 px wide on a 390 px phone: the smallest
    text is at least 11 px high there, as the narrow drawings' is."""
    a = analysis()
    charts = a.charts()
    assert sorted(charts) == sorted(
        f"{kind}-{name}.svg" for name in a.data_files() for kind in ("flow", "seats")
    )
    for name, svg in charts.items():
        root = parse(svg)
        width = float(root.get("viewBox", "").split()[2])
        sizes = [float(el.get("font-size", "0")) for el in root.iter() if el.get("font-size")]
        assert width == 360 and min(sizes) * 358 / width >= 11, name
        assert f"_generated/img/analysis/{name}" in "".join(
            a.preset_snippet(p) for p in a.PRESET_PAGES
        )
