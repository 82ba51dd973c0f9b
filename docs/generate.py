"""Write every part of the docs site that comes from the code; run it before each build.

    python docs/generate.py && mkdocs build --strict     # or mkdocs serve, gh-deploy

The site uses no MkDocs hook and no plugin but search and mkdocstrings, so that
Zensical (MkDocs' successor, which reads ``mkdocs.yml`` but has no plugin API) can
build it too. Everything computed from the code is written here as plain files into
git-ignored folders, and the pages include it:

``docs/_generated/snippets/*.md``
    Tables and page parts, included with ``pymdownx.snippets``
    (``--8<-- "docs/_generated/snippets/options-table.md"``): the option and preset
    tables (from ``RuleConfig`` and ``PRESETS``), one option table per ambiguity
    entry, the traceability table (from the tests' ``rule`` markers), the index of
    public names (``docs/api/index.md``; each module has its page, ``docs/api/<module>.md``,
    written by hand and checked by the tests against ``PUBLIC_MODULES``), and the
    replay viewer.
``docs/_generated/snippets/option-effects.md``, ``analysis-<preset>.md``, ``img/analysis/``
    The option-effects table of the variants page, the figures of the preset pages
    (``docs/presets/<preset>.md``) and their charts, drawn by ``docs/analysis_docs.py``
    from the committed ``allegra-rules analyze`` output in ``docs/assets/analysis/``.
``docs/_generated/img/*.svg``
    The pictures: ``render_svg`` drawings of the states of ``docs/scenes.py``; in
    ``img/narrow/`` each again for a phone (``render_svg_stacked``: the seats one under
    the other), and the narrow charts (``docs/charts.py``). The stylesheet shows them
    on a narrow screen in place of the wide ones (``narrow_css``).
``docs/_generated/replay/*.svg``
    The frames of the replay viewer: a game between the library's strongest bots
    (``replay_bot``), one frame per action. The game's moves are kept in
    ``docs/assets/replay-game.json`` (a game record), so that a build replays them
    instead of searching each move again: ``--replay`` plays the game again and writes
    that file, ``--check-replay`` plays it again and fails if the file differs (CI does).
``docs/_generated/assets/``
    The site's stylesheet and script (from ``docs/static/``), with the list of the
    pages each language has, for the language selector.
``docs/_generated/snippets/<lang>/*.md``
    The option and preset tables in each translation's language, their words from
    ``docs/i18n/options.<lang>.yml``.
``docs/_generated/play/``
    The play page's table: the server's page with the game in the browser (Pyodide
    and the wheels), written by ``docs/play_site.py`` (see there; it needs ``npm ci``).
``docs/i18n/<lang>/_generated/``
    The pictures, their words in the translation's language, and the assets again,
    for each translation (``mkdocs.<lang>.yml``).
``docs/<lang>/``
    Each translation's site, built here (in-process MkDocs, strict) so that the
    English build serves it at ``/<lang>/``: ``mkdocs build``, ``mkdocs serve`` and
    ``mkdocs gh-deploy`` of ``mkdocs.yml`` then carry every language. A translation
    with no page yet is not built (and its language is hidden from the selector).

A page that includes a missing snippet fails the build (``check_paths``), and so
does a link to a missing picture (strict mode). The folders are emptied first, so a
picture or table that is no longer generated cannot linger.

Options: ``--no-translations`` skips building the translations (quicker while
writing English pages); ``--lang de`` builds only that translation.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import json
import logging
import os
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
OUT = DOCS / "_generated"
SNIPPETS = OUT / "snippets"
ASSETS = DOCS / "static"
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))
if str(DOCS) not in sys.path:
    sys.path.insert(0, str(DOCS))

import analysis_docs  # noqa: E402
import attrs  # noqa: E402
import charts as charts_module  # noqa: E402
import play_site  # noqa: E402
import scenes  # noqa: E402

import allegra_rules  # noqa: E402
from allegra_rules import (  # noqa: E402
    PRESETS,
    Bot,
    GameState,
    Phase,
    RuleConfig,
    SearchBot,
    apply,
    describe_action,
    new_game,
    preset,
    render_svg,
)
from allegra_rules.records import GameRecord  # noqa: E402
from allegra_rules.render import describe_outcome  # noqa: E402
from allegra_rules.svg_layout import render_svg_stacked  # noqa: E402

PICTURE_STYLE = {"status": False, "legend": False, "text_scale": 1.5}
"""How every picture of the pages is drawn: the page text explains it."""

TRANSLATED_PAGES = ("index.md", "play.md", "how-to-play.md", "variants.md")
"""The pages every language has (``docs/<page>`` in English, ``docs/i18n/<lang>/<page>``)."""

REPLAY_GAME = ("seeds", 2, 11)
"""The game of the replay viewer: ``(preset, seats, seed)``; the seed deals the cards."""

REPLAY_SIMULATIONS = 48
"""``SearchBot``'s budget in the replay, in simulations a move: a fixed budget makes it
deterministic for its seed."""

REPLAY_RECORD = ROOT / "docs" / "assets" / "replay-game.json"
"""The replay's game record (``GameRecord`` JSON), written by ``--replay``: the moves
``replay_bot`` chose in ``REPLAY_GAME``. Replaying it takes a fraction of a second where
searching every move again takes most of a minute."""


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while building
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------ tables


def _cell(value: object) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        value = " ".join(f"{v}:{c}" for v, c in value)
    return f"`{value}`".replace("|", "\\|")


TABLE_WORDS_EN: dict[str, object] = {
    "headers": {
        "option": "option",
        "settles": "settles",
        "default": "default (`seeds`)",
        "allowed": "allowed values",
        "meaning": "meaning",
        "preset": "preset id",
        "fingerprint": "fingerprint (prefix)",
        "differing": "options differing from `seeds`",
    },
    "none": "none",
    "types": {},
    "options": {},
}
"""The English words of the option and preset tables (the options' texts are their docs)."""


def table_words(lang: str | None = None) -> dict[str, object]:
    """The words of the option and preset tables: English, or ``docs/i18n/options.<lang>.yml``.

    A translation must give every header, the word for "none", every type name the
    table shows and the explanation of every ``RuleConfig`` option (never an option
    that does not exist): a missing or extra one stops the generator.
    """
    if lang is None:
        return TABLE_WORDS_EN
    import yaml

    path = DOCS / "i18n" / f"options.{lang}.yml"
    if not path.is_file():
        raise SystemExit(f"{path.relative_to(ROOT)} is missing: the {lang} option tables")
    words: dict[str, object] = yaml.safe_load(path.read_text(encoding="utf-8"))
    where = path.relative_to(ROOT)
    headers = words.get("headers")
    wanted = set(TABLE_WORDS_EN["headers"])  # type: ignore[arg-type]
    if not isinstance(headers, dict) or set(headers) != wanted:
        raise SystemExit(f"{where}: headers must be exactly {sorted(wanted)}")
    if not isinstance(words.get("none"), str):
        raise SystemExit(f"{where}: none must be a string")
    fields = attrs.fields(RuleConfig)
    types = {type(f.default).__name__ for f in fields if not f.metadata.get("choices")}
    given = words.get("types")
    if not isinstance(given, dict) or set(given) != types:
        raise SystemExit(f"{where}: types must name exactly {sorted(types)}")
    options = words.get("options")
    names = {f.name for f in fields}
    if not isinstance(options, dict) or set(options) != names:
        have = set(options) if isinstance(options, dict) else set()
        raise SystemExit(
            f"{where}: options must explain every RuleConfig option and no other; "
            f"missing {sorted(names - have)}, unknown {sorted(have - names)}"
        )
    return words


def options_table(lang: str | None = None) -> str:
    """Markdown table of every RuleConfig field: name, ambiguity, default, choices, doc.

    With ``lang``, the headers, type names and explanations come from
    ``docs/i18n/options.<lang>.yml``; option names and values stay as they are (API).
    """
    words = table_words(lang)
    head: dict[str, str] = words["headers"]  # type: ignore[assignment]
    types: dict[str, str] = words["types"]  # type: ignore[assignment]
    docs: dict[str, str] = words["options"]  # type: ignore[assignment]
    rows = [
        f"| {head['option']} | {head['settles']} | {head['default']} | {head['allowed']} "
        f"| {head['meaning']} |",
        "|---|---|---|---|---|",
    ]
    for field in attrs.fields(RuleConfig):
        meta = field.metadata
        amb = meta.get("ambiguity", "")
        link = f"[{amb}](/ambiguities/#{amb.lower()})" if amb else ""
        choices = meta.get("choices")
        kind = type(field.default).__name__
        allowed = ", ".join(f"`{c}`" for c in choices) if choices else types.get(kind, kind)
        doc = docs.get(field.name, meta.get("doc", "")).replace("|", "\\|")
        rows.append(f"| `{field.name}` | {link} | {_cell(field.default)} | {allowed} | {doc} |")
    return "\n".join(rows) + "\n"


def presets_table(lang: str | None = None) -> str:
    """Markdown table of every released preset version: id, fingerprint, differences."""
    words = table_words(lang)
    head: dict[str, str] = words["headers"]  # type: ignore[assignment]
    seeds = RuleConfig()
    rows = [
        f"| {head['preset']} | {head['fingerprint']} | {head['differing']} |",
        "|---|---|---|",
    ]
    for name, versions in PRESETS.items():
        for number, config in enumerate(versions, start=1):
            diff = config.options_differing_from(seeds)
            shown = ", ".join(f"`{k}` = {_cell(v[0])}" for k, v in diff.items()) or words["none"]
            rows.append(f"| `{name}@{number}` | `{config.fingerprint[:12]}` | {shown} |")
    return "\n".join(rows) + "\n"


def ambiguity_options(ambiguity: str) -> str:
    """Markdown table of the options settling one ambiguity, with every preset's value.

    ``seeds@1`` is marked as the default: ``RuleConfig()`` equals ``preset("seeds")``.
    """
    fields = [f for f in attrs.fields(RuleConfig) if f.metadata.get("ambiguity") == ambiguity]
    if not fields:
        return "Option: none, a fixed reading (the same in every preset).\n"
    ids = [(f"{n}@{i}", c) for n, vs in PRESETS.items() for i, c in enumerate(vs, start=1)]
    # The default is the value of seeds (RuleConfig() == preset("seeds")), so its
    # column says so instead of repeating it.
    heads = [f"`{pid}`" + (" (default)" if pid == "seeds@1" else "") for pid, _ in ids]
    rows = ["| option | " + " | ".join(heads) + " |", "|---|" + "---|" * len(ids)]
    for field in fields:
        values = " | ".join(_cell(getattr(c, field.name)) for _, c in ids)
        rows.append(f"| `{field.name}` | {values} |")
    return "\n".join(rows) + "\n"


def ambiguity_ids() -> list[str]:
    """Every ambiguity id, from the entries of ``docs/ambiguities.md`` and the options."""
    text = (DOCS / "ambiguities.md").read_text(encoding="utf-8")
    found = {m.upper() for m in re.findall(r"\{#(a\d+)\}", text)}
    found |= {f.metadata["ambiguity"] for f in attrs.fields(RuleConfig)}
    return sorted(found, key=lambda a: int(a[1:]))


STATE_KEY_TYPES: dict[str, str] = {
    "config": "object",
    "seat_count": "integer",
    "seed": "integer",
    "round": "integer",
    "phase": "string",
    "seat": "integer",
    "opt_seat": "integer or null",
    "seats": "array of integer",
    "opt_cell": "integer or null",
    "cells": "array of integer",
    "table": "array of integer or null",
    "cell_mask": "array of boolean",
    "cards": "array of integer",
    "opt_card": "integer or null",
    "hand": 'array of `{"player", "card"}`',
    "reveals": "integer",
    "turns": "integer",
    "refills": "integer",
    "per_seat": "array of integer",
    "score_rows": "array of arrays",
    "flag": "boolean",
    "round_end": "object or null",
    "cell_set": "array of integer",
    "schema_version": "integer",
}
"""The JSON type of a state field of each kind (``Kind`` by value), in words."""


_IN_JSON: dict[str, str] = {
    "cell_mask": "per cell, whether its card lies face down (a gap never does).",
}
"""The meaning of a field of a kind whose JSON is not its Python value (``Kind`` by value)."""


def _attributes(doc: str) -> dict[str, str]:
    """The ``Attributes:`` entries of a Google-style docstring, each joined on one line."""
    entries: dict[str, str] = {}
    lines = doc.split("Attributes:\n", 1)[1].splitlines()
    indent = len(lines[0]) - len(lines[0].lstrip())
    name = None
    for line in lines:
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            break
        text = line.strip()
        if len(line) - len(line.lstrip()) == indent and ":" in text:
            name, _, text = text.partition(":")
            entries[name] = text.strip()
        elif name is not None and text:
            entries[name] += " " + text
    return entries


def state_keys_table() -> str:
    """The key table of a saved state (``docs/saved-games.md``), from the declaration.

    A row per field of ``STATE_FIELDS``: its JSON type by its kind, its meaning from
    ``GameState``'s docstring, and the schema version that added it; the schema version
    field is the header's ``schema_version``.

    Raises:
        KeyError: a kind without a JSON type in ``STATE_KEY_TYPES``, or a field without a
            line in ``GameState``'s docstring.
    """
    from allegra_rules.fields import ROUND_END_FIELDS, STATE_FIELDS, Kind
    from allegra_rules.serialize import SCHEMA_VERSION, SCHEMA_VERSIONS

    meanings = _attributes(GameState.__doc__ or "")
    versions = ", ".join(f"`{v}`" for v in SCHEMA_VERSIONS)
    rows = ["| Key | JSON type | Meaning |", "|---|---|---|"]
    for f in STATE_FIELDS:
        if f.kind is not Kind.SCHEMA_VERSION:
            continue
        rows.append(
            f"| `{f.name}` | {STATE_KEY_TYPES[f.kind.value]} | one of {versions}: "
            f"{meanings[f.name]} New games: `{SCHEMA_VERSION}`. |"
        )
    rows.append('| `kind` | string | `"state"` |')
    for f in STATE_FIELDS:
        if f.kind is Kind.SCHEMA_VERSION:
            continue
        meaning = _IN_JSON.get(f.kind.value, meanings[f.name])
        if f.kind is Kind.PHASE:
            meaning += " One of " + ", ".join(f"`{p.value}`" for p in Phase) + "."
        if f.kind is Kind.ROUND_END:
            first = [e.name for e in ROUND_END_FIELDS if e.added == 1]
            keys = ", ".join(f'"{k}"' for k in first)
            meaning += f" An object `{{{keys}}}`"
            later = [e for e in ROUND_END_FIELDS if e.added > 1]
            if later:
                meaning += (
                    " (" + "; ".join(f'version {e.added} adds `"{e.name}"`' for e in later) + ")"
                )
            meaning += "."
        if f.added > 1:
            meaning = f"From version {f.added} (older documents leave it out): {meaning}"
        rows.append(f"| `{f.name}` | {STATE_KEY_TYPES[f.kind.value]} | {meaning} |")
    text = "\n".join(rows) + "\n"
    for python, json_word in (("``None``", "`null`"), ("flat tuple", "array"), ("tuple", "array")):
        text = text.replace(python, json_word)
    return re.sub(r"``(.+?)``", r"`\1`", text)  # Markdown's code spans


def traceability_table() -> str:
    """The clause -> tests table, read statically from ``tests/`` (nothing is run)."""
    markers = _load(ROOT / "tests" / "rule_markers.py", "_allegra_rule_markers")
    table: str = markers.traceability_markdown()
    return table


PUBLIC_MODULES = (
    "transitions",
    "state",
    "invariants",
    "actions",
    "config",
    "presets",
    "geometry",
    "triples",
    "knocking",
    "fields",
    "scoring",
    "shuffle",
    "views",
    "determinize",
    "serialize",
    "records",
    "encoding",
    "features",
    "network_input",
    "render",
    "wording",
    "glossary",
    "hints",
    "svg",
    "svg_layout",
    "picture_labels",
    "bots",
    "bot_kinds",
    "search",
    "policy",
    "oracle",
    "simulate",
    "analysis",
    "tournament",
    "table_view",
    "browser_table",
    "adapters.features",
    "adapters.gymnasium",
    "adapters.pettingzoo",
    "adapters.openspiel",
    "server.app",
    "server.hosts",
    "server.tables",
    "server.refusals",
    "server.thinking",
    "server.store",
    "server.transport",
    "server.backends",
    "server.limits",
    "server.connections",
    "jax",
)
"""The public modules of ``allegra_rules``, in the order of the API reference (each has
its page ``docs/api/<module>.md`` and its entry in the ``nav`` of ``mkdocs.yml``)."""


def module_names(module: str) -> list[str]:
    """A module's public names, read statically (the adapters need extras to import).

    Its ``__all__`` if it has one, else every name it defines at the top level (a
    function, a class or an assignment) that does not start with ``_``: what the API
    reference shows of it.
    """
    import ast

    path = ROOT / "src" / "allegra_rules" / (module.replace(".", "/") + ".py")
    if not path.is_file():  # a subpackage: its names are those of its __init__
        path = path.with_suffix("") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if "__all__" in names and node.value is not None:
                listed: list[str] = ast.literal_eval(node.value)
                return listed
            defined += names
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.append(node.name)
    return [name for name in defined if not name.startswith("_")]


def api_index() -> str:
    """Markdown table: every public module, its names, which are importable from the top."""
    top = set(allegra_rules.__all__)
    rows = ["| module | names (**bold**: also importable from `allegra_rules`) |", "|---|---|"]
    for module in PUBLIC_MODULES:
        page = api_page(module)
        anchor = f"allegra_rules.{module}"
        links = []
        for name in module_names(module):
            link = f"[`{name}`]({page}#{anchor}.{name})"
            links.append(f"**{link}**" if name in top else link)
        shown = ", ".join(links)
        rows.append(f"| [`{anchor}`]({page}) | {shown} |")
    return "\n".join(rows) + "\n"


def api_page(module: str) -> str:
    """The API reference page of one public module, relative to ``docs/api/``."""
    return f"{module}.md"


# ---------------------------------------------------------------------- pictures


NARROW = "narrow/"
"""The folder, under ``_generated/img/``, of the pictures drawn for a phone."""

PHONE = "screen and (max-width: 44.9375em)"
"""Where the narrow pictures are shown: Material's phone layout (``docs/static/allegra.js``
has the same query)."""


def pictures(lang: str = "en") -> dict[str, str]:
    """Every picture of the pages, by file name: the scenes drawn without text.

    The few words left in a picture (column labels, notes, pile labels) are in the
    page's language ``lang`` (``render_svg``'s ``labels``); the seats' names are the
    same in every language. Each scene is drawn twice: ``<name>`` for a wide screen,
    the seats side by side, and ``narrow/<name>`` for a phone, the seats one under the
    other with the seat its caption is about on top (``render_svg_stacked``).
    """
    out: dict[str, str] = {}
    for scene in scenes.scenes():
        common = {
            "seats": scene.seats,
            "highlight": scene.highlight,
            "seat_names": scenes.NAMES,
            "piles": scene.piles,
            "zone_sums": scene.zone_sums,
            "labels": lang,
        }
        out[scene.name] = render_svg(scene.state, **common, **PICTURE_STYLE)  # type: ignore[arg-type]
        out[NARROW + scene.name] = render_svg_stacked(
            scene.state,
            first=scene.first,
            text_scale=PICTURE_STYLE["text_scale"],  # type: ignore[arg-type]
            **common,  # type: ignore[arg-type]
        )
    return out


def narrow_css(names: Sequence[str], charts: Sequence[str] = ()) -> str:
    """The stylesheet's rules that show each picture's narrow drawing on a phone.

    A rule per picture replaces, on a screen matching ``PHONE``, the image of an
    ``<img>`` whose source ends in ``_generated/img/<name>`` (or ``assets/<chart>``)
    with ``_generated/img/narrow/<name>`` (``content: url(...)``, resolved from the
    stylesheet in ``_generated/assets/``). It needs no script and no markup, so the
    pages stay plain Markdown and the first paint is already right; the ``src`` stays
    the wide picture, which the zoom (``docs/static/allegra.js``) shows full size.
    """
    rules = [
        f'  .md-typeset img[src$="_generated/img/{n}"] {{ content: url("../img/{NARROW}{n}"); }}'
        for n in names
    ]
    rules += [
        f'  .md-typeset img[src$="assets/{c}"] {{ content: url("../img/{NARROW}{c}"); }}'
        for c in charts
    ]
    return (
        "\n/* The pictures drawn for a phone (docs/generate.py, narrow_css). */\n"
        f"@media {PHONE} {{\n" + "\n".join(rules) + "\n}\n"
    )


# ------------------------------------------------------------------------ replay


@dataclass(frozen=True)
class Frame:
    """One step of the replay viewer: the picture's file name and what happened."""

    name: str
    svg: str
    text: str


def _deal_text(state: GameState) -> str:
    start = state.start_seat
    return (
        f"Round {state.round} is dealt: twelve face-down cards for every seat, one card "
        f"face up on the discard pile. Seat {start} starts the setup: every seat turns up "
        "two cards of its zone."
    )


def _round_text(state: GameState) -> str:
    last = state.last_round
    assert last is not None
    sums = ", ".join(f"seat {p} {s}" for p, s in enumerate(last.zone_sums))
    scores = ", ".join(f"seat {p} {s}" for p, s in enumerate(last.scores))
    if last.ender is None:
        ender = "The round reached its turn limit: nobody is doubled."
    elif last.doubled:
        ender = f"Seat {last.ender} ended the round without the lowest sum: its sum is doubled."
    else:
        ender = f"Seat {last.ender} ended the round with the lowest sum: no doubling."
    totals = ", ".join(f"seat {p} {t}" for p, t in enumerate(state.totals))
    text = (
        f"Round {last.round} is over. Every card is turned up and each zone is added up "
        f"(the shared columns count in two zones): {sums}. {ender} Scores: {scores}. "
        f"Totals: {totals}."
    )
    if state.is_terminal:
        winners = " and ".join(f"seat {w}" for w in state.winners)
        text += f" After three rounds the lowest total wins: {winners}."
    return text


def replay_bot(seat: int) -> Bot:
    """The bot that plays seat ``seat`` of the replay: the strongest the library has.

    ``SearchBot`` with the fixed budget ``REPLAY_SIMULATIONS`` (a fixed number of
    simulations, so no clock decides a move); seat ``p`` is seeded with ``p``, so the
    replay is the same at every build.
    """
    return SearchBot(seed=seat, simulations=REPLAY_SIMULATIONS)


def play_replay_game() -> GameRecord:
    """Play ``REPLAY_GAME`` with ``replay_bot`` at every seat: the record of its moves."""
    name, seats, seed = REPLAY_GAME
    bots = [replay_bot(seat) for seat in range(seats)]
    state = new_game(seats, config=preset(name), seed=seed)
    actions = []
    while not state.is_terminal:
        action = bots[state.current_player].choose(state)
        actions.append(action)
        state = apply(state, action)
    return GameRecord(
        num_players=seats, config=preset(name), seed=seed, actions=actions, preset=name
    )


def replay_record() -> GameRecord:
    """The committed record of the replay (``REPLAY_RECORD``), checked against ``REPLAY_GAME``.

    Raises:
        SystemExit: the file is missing or records another game than ``REPLAY_GAME``.
    """
    hint = "run python docs/generate.py --replay"
    if not REPLAY_RECORD.exists():
        raise SystemExit(f"{REPLAY_RECORD.relative_to(ROOT)} is missing: {hint}")
    record = GameRecord.from_json(REPLAY_RECORD.read_bytes())
    name, seats, seed = REPLAY_GAME
    game = (record.config.fingerprint, record.num_players, record.seed)
    if game != (preset(name).fingerprint, seats, seed):
        raise SystemExit(f"{REPLAY_RECORD.relative_to(ROOT)} is another game: {hint}")
    return record


def write_replay_record(*, check: bool = False) -> None:
    """Play the replay again; write its record, or with ``check`` fail if it differs.

    Raises:
        SystemExit: with ``check``, the committed record is not what the bots play now.
    """
    played = play_replay_game()
    if not check:
        _write(REPLAY_RECORD, played.to_json() + "\n")
        print(f"{REPLAY_RECORD.relative_to(ROOT)}: written")
    elif not REPLAY_RECORD.exists() or replay_record().actions != played.actions:
        # The moves decide: the committed record keeps the schema version it was written in.
        raise SystemExit(
            f"{REPLAY_RECORD.relative_to(ROOT)} is not the game replay_bot plays now: "
            "run python docs/generate.py --replay and commit it"
        )
    else:
        print(f"{REPLAY_RECORD.relative_to(ROOT)}: the bots play it move for move")


def replay_frames() -> list[Frame]:
    """The replay's record (``replay_record``) played out: a frame per action and round end."""
    record = replay_record()
    actions = iter(record.actions)
    state = record.initial_state()
    style = {"legend": False, "text_scale": 1.2}

    def frame(shown: GameState, text: str, **extra: bool) -> Frame:
        svg = render_svg(shown, **style, **extra)  # type: ignore[arg-type]
        return Frame(f"{len(frames):04d}.svg", svg, text)

    frames: list[Frame] = []
    frames.append(frame(state, _deal_text(state)))
    for action in actions:
        after = apply(state, action)
        text = " ".join([describe_action(state, action), *describe_outcome(state, action, after)])
        if after.round != state.round or after.is_terminal:
            table = scenes.round_end_table(after)
            frames.append(frame(table, f"{text} {_round_text(after)}", status=False, piles=False))
            if not after.is_terminal:
                frames.append(frame(after, _deal_text(after)))
        else:
            frames.append(frame(after, text))
        state = after
    return frames


def replay_snippet(frames: Sequence[Frame]) -> str:
    """The replay viewer's page part: the first frame and every step's narration.

    The first frame is a Markdown image, so MkDocs checks the file and writes its URL;
    ``docs/static/allegra.js`` builds the viewer (buttons, arrow keys, the narration
    beside the table) around it from the JSON list of steps.
    """
    name, seats, seed = REPLAY_GAME
    steps = [{"frame": f.name, "text": f.text} for f in frames]
    bot = type(replay_bot(0)).__name__
    budget = f" ({REPLAY_SIMULATIONS} simulations a move)" if bot == "SearchBot" else ""
    data = json.dumps(steps, ensure_ascii=False, separators=(",", ":"))
    data = data.replace("</", "<\\/")
    first = html.escape(frames[0].text, quote=True)
    return (
        f"Both seats are played by `{bot}`{budget}, the strongest bot of this version of "
        f"the library; preset `{name}`, {seats} players, seed {seed}.\n\n"
        f'<div class="allegra-replay" data-game="{name}-{seats}p-seed{seed}" '
        f'data-bot="{bot}" markdown>\n\n'
        f"![{first}](_generated/replay/{frames[0].name}){{ .allegra-replay__table }}\n\n"
        "</div>\n\n"
        f'<script type="application/json" class="allegra-replay__data">{data}</script>\n'
    )


# --------------------------------------------------------------------- languages


@dataclass(frozen=True)
class Translation:
    """One translated site: ``mkdocs.<lang>.yml`` and its pages."""

    lang: str
    config: Path
    docs_dir: Path
    site_dir: Path

    @property
    def pages(self) -> list[str]:
        """The Markdown pages of this language, relative to its docs folder."""
        if not self.docs_dir.is_dir():
            return []
        return sorted(p.name for p in self.docs_dir.glob("*.md"))


def translations() -> list[Translation]:
    """Every translation configured at the repository root (``mkdocs.<lang>.yml``)."""
    import yaml

    out = []
    for path in sorted(ROOT.glob("mkdocs.*.yml")):
        lang = path.name.split(".")[1]
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        out.append(
            Translation(
                lang=lang,
                config=path,
                docs_dir=ROOT / config["docs_dir"],
                site_dir=ROOT / config["site_dir"],
            )
        )
    return out


def english_pages() -> list[str]:
    """The Markdown pages of the English site (its top-level ``docs/*.md``)."""
    return sorted(p.name for p in DOCS.glob("*.md"))


def page_url(page: str) -> str:
    """A page's path under its language's root, with MkDocs' directory URLs."""
    return "" if page == "index.md" else page.removesuffix(".md") + "/"


def site_script(langs: Sequence[Translation]) -> str:
    """``docs/static/allegra.js`` preceded by the pages every language has."""
    pages = {"en": [page_url(p) for p in english_pages()]}
    for t in langs:
        pages[t.lang] = [page_url(p) for p in t.pages]
    data = json.dumps({"pages": pages}, sort_keys=True)
    script = (ASSETS / "allegra.js").read_text(encoding="utf-8")
    return f"window.allegraSite = {data};\n\n{script}"


def build_translation(t: Translation) -> None:
    """Build one translation's site into its ``site_dir`` (strict: warnings fail)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    t.site_dir.mkdir(parents=True, exist_ok=True)
    (t.site_dir / ".gitignore").write_text("# Built by docs/generate.py\n*\n", encoding="utf-8")
    logger = logging.getLogger("mkdocs")
    handler = logging.StreamHandler()
    handler.setLevel(logging.WARNING)
    logger.addHandler(handler)
    try:
        build(load_config(str(t.config)))
    finally:
        logger.removeHandler(handler)


# ------------------------------------------------------------------------- write


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _fresh(folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)


def check_pages() -> None:
    """Refuse page markers of the retired MkDocs hook, which would now render as nothing."""
    old = re.compile(r"<!-- (options-table|presets-table|ambiguity-options: A\d+) -->")
    for page in sorted(DOCS.rglob("*.md")):
        if OUT in page.parents:
            continue
        for match in old.finditer(page.read_text(encoding="utf-8")):
            raise SystemExit(
                f"{page.relative_to(ROOT)}: {match.group(0)} is no longer replaced; include "
                'the generated table instead, e.g. --8<-- "docs/_generated/snippets/'
                f'{_snippet_for(match.group(1))}"'
            )


def _snippet_for(marker: str) -> str:
    if marker.startswith("ambiguity-options: "):
        return f"ambiguity-{marker.split(': ')[1].lower()}.md"
    return f"{marker}.md"


def layers_svg() -> str:
    """The picture of the architecture page: the layers of ``pyproject.toml``, top first.

    It is drawn from the import-linter contract that CI checks (``lint-imports``), so the
    picture and the rule are one description. Narrow enough for a phone at full size.
    """
    import textwrap
    import tomllib
    from html import escape

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(
        c for c in config["tool"]["importlinter"]["contracts"] if c.get("type") == "layers"
    )
    width, pad, line, size = 360, 8, 17, 13
    rows: list[list[str]] = []
    for layer in contract["layers"]:
        names = [n.strip() for n in layer.replace(":", "|").split("|")]
        rows.append(textwrap.wrap(" · ".join(names), 42) or [""])
    height = sum(len(r) * line + 2 * pad for r in rows) + 4 * (len(rows) - 1) + 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="DejaVu Sans Mono, monospace" '
        f'font-size="{size}" role="img" aria-label="The layers of allegra_rules, top first">'
    ]
    y = 1
    for k, texts in enumerate(rows):
        h = len(texts) * line + 2 * pad
        shade = 245 - 6 * (k % 2)
        parts.append(
            f'<rect x="1" y="{y}" width="{width - 2}" height="{h}" rx="6" '
            f'fill="rgb({shade},{shade},250)" stroke="#5c6bc0"/>'
        )
        for j, text in enumerate(texts):
            parts.append(
                f'<text x="{width / 2}" y="{y + pad + (j + 1) * line - 4}" '
                f'text-anchor="middle" fill="#1a237e">{escape(text)}</text>'
            )
        y += h + 4
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# ------------------------------------------------------ "Play from here" (the play page)

PLAY_FROM_HERE = {
    "en": "Play from here",
    "de": "Von hier an spielen",
    "pl": "Zagraj od tego miejsca",
    "fr": "Jouer à partir d\u2019ici",
}
"""The link under each picture of a position that the play page can open, by language."""


def scene_records() -> dict[str, str]:
    """The game record (JSON) that reaches each picture's position, by picture name.

    Every scene of ``docs/scenes.py`` is a state reached from a stacked deal by legal
    actions; the scenes are played again here with ``new_game`` and ``apply`` traced,
    and each scene's chain of actions back to its deal becomes a
    [`GameRecord`][allegra_rules.records.GameRecord], checked to replay to the very
    state drawn. A scene drawn from a made-up table (the round's end, every card face
    up) gets the record of its ``play_from`` position instead (for the scoring
    picture, the next round's deal).
    """
    from allegra_rules.records import GameRecord, replay

    made: dict[int, tuple[GameState, GameState | None, object, GameRecord | None]] = {}
    real_apply, real_new_game = scenes.apply, scenes.new_game

    def traced_new_game(players: int, **options: Any) -> GameState:
        state = real_new_game(players, **options)
        start = GameRecord(
            num_players=players,
            config=options.get("config"),
            seed=options.get("seed"),
            deck=options.get("deck"),
        )
        made[id(state)] = (state, None, None, start)
        return state

    def traced_apply(state: GameState, action: Any, **options: Any) -> GameState:
        after = real_apply(state, action, **options)
        made[id(after)] = (after, state, action, None)
        return after

    for cached in (scenes.story, scenes.scoring, scenes.scenes):
        cached.cache_clear()
    scenes.apply, scenes.new_game = traced_apply, traced_new_game  # type: ignore[assignment]
    try:
        drawn = scenes.scenes()
    finally:
        scenes.apply, scenes.new_game = real_apply, real_new_game  # type: ignore[assignment]
    out: dict[str, str] = {}
    for scene in drawn:
        actions = []
        target = scene.state if scene.play_from is None else scene.play_from
        state: GameState | None = target
        start = None
        while state is not None and id(state) in made and made[id(state)][0] is state:
            _, before, action, start = made[id(state)]
            if before is None:
                break
            actions.append(action)
            state = before
        if start is None:
            continue
        record = start.with_actions(*reversed(actions))  # type: ignore[arg-type]
        if replay(record) != target or target.is_terminal:
            continue
        out[scene.name] = record.to_json()
    return out


def play_links_script(names: Sequence[str]) -> str:
    """The site script's part that puts a "Play from here" link under each scene picture.

    A picture of one of ``names`` gets, at the end of its caption, a link to the play
    page's table (``/_generated/play/``, under the English site's root) with
    ``#scene=<name>``: the page opens that position (``scenes.json`` there holds the
    records), in the page's language.
    """
    data = json.dumps({"scenes": sorted(names), "words": PLAY_FROM_HERE}, ensure_ascii=False)
    return f"""
// "Play from here" (docs/generate.py, play_links_script): the pictures of positions.
(function () {{
  const data = {data};
  function add() {{
    const english = document.querySelector('link[rel="alternate"][hreflang="en"]');
    const root = new URL(english ? english.getAttribute("href") : "/", location.href);
    const lang = (document.documentElement.lang || "en").slice(0, 2);
    const word = data.words[lang] || data.words.en;
    for (const figure of document.querySelectorAll("figure")) {{
      const img = figure.querySelector('img[src*="_generated/img/"]');
      const caption = figure.querySelector("figcaption");
      if (!img || !caption || caption.querySelector(".allegra-play-here")) continue;
      const name = img.getAttribute("src").split("/").pop();
      if (!data.scenes.includes(name)) continue;
      const link = document.createElement("a");
      link.className = "allegra-play-here";
      link.href = new URL(`_generated/play/index.html?lang=${{lang}}#scene=${{name}}`, root).href;
      link.textContent = `▶ ${{word}}`;
      caption.append(" ", link);
    }}
  }}
  if (window.document$ && typeof window.document$.subscribe === "function") {{
    window.document$.subscribe(add);
  }} else if (document.readyState === "loading") {{
    document.addEventListener("DOMContentLoaded", add);
  }} else {{
    add();
  }}
}})();
"""


def generate(*, build: bool = True, only: str | None = None) -> None:
    """Write everything into the generated folders, then build the translations."""
    os.chdir(ROOT)  # snippet paths and the configs' folders are relative to the root
    check_pages()
    langs = translations()
    if only is not None:
        langs = [t for t in langs if t.lang == only]
        if not langs:
            raise SystemExit(f"no mkdocs.{only}.yml at the repository root")
    _fresh(OUT)
    _write(SNIPPETS / "options-table.md", options_table())
    _write(SNIPPETS / "presets-table.md", presets_table())
    for amb in ambiguity_ids():
        _write(SNIPPETS / f"ambiguity-{amb.lower()}.md", ambiguity_options(amb))
    _write(SNIPPETS / "traceability.md", traceability_table())
    _write(SNIPPETS / "state-keys.md", state_keys_table())
    _write(SNIPPETS / "api-index.md", api_index())
    # ---- the preset pages and the option effects, from docs/assets/analysis/*.json
    _write(SNIPPETS / "option-effects.md", analysis_docs.effects_snippet())
    for name in analysis_docs.PRESET_PAGES:
        _write(SNIPPETS / f"analysis-{name}.md", analysis_docs.preset_snippet(name))
    for name, svg in analysis_docs.charts().items():
        _write(OUT / "img" / "analysis" / name, svg)
    _write(OUT / "img" / "layers.svg", layers_svg())
    drawn = pictures()
    for name, svg in drawn.items():
        _write(OUT / "img" / name, svg)
    frames = replay_frames()
    for f in frames:
        _write(OUT / "replay" / f.name, f.svg)
    _write(SNIPPETS / "replay.md", replay_snippet(frames))
    script = site_script(translations())
    charts = charts_module.narrow_charts()
    for name, svg in charts.items():
        _write(OUT / "img" / NARROW / name, svg)
    wide = [name for name in drawn if not name.startswith(NARROW)]
    css = (ASSETS / "allegra.css").read_text(encoding="utf-8") + narrow_css(wide, list(charts))
    # ---- the play page's table (docs/play_site.py): Pyodide, the wheels, the page
    play = play_site.build_play(OUT / "play")
    records = scene_records()
    _write(OUT / "play" / "scenes.json", json.dumps(records, sort_keys=True) + "\n")
    script += play_links_script(list(records))
    _write(OUT / "assets" / "allegra.js", script)
    _write(OUT / "assets" / "allegra.css", css)
    print(f"docs/_generated/play: {'with' if play else 'WITHOUT'} the game, {len(records)} scenes")
    print(
        f"docs/_generated: {len(drawn)} pictures, {len(frames)} replay frames "
        f"({type(replay_bot(0)).__name__}), "
        f"{len(list(SNIPPETS.iterdir()))} snippets"
    )
    for t in translations():
        # Every language's tables, so that a page never includes a missing snippet.
        _write(SNIPPETS / t.lang / "options-table.md", options_table(t.lang))
        _write(SNIPPETS / t.lang / "presets-table.md", presets_table(t.lang))
        _write(SNIPPETS / t.lang / "option-effects.md", analysis_docs.effects_link(t.lang))
    for t in langs:
        generated = t.docs_dir / "_generated"
        _fresh(generated)
        for name, svg in pictures(t.lang).items():
            _write(generated / "img" / name, svg)
        shutil.copytree(OUT / "assets", generated / "assets")
        if not build:
            continue
        if not t.pages:
            if t.site_dir.exists():
                shutil.rmtree(t.site_dir)
            print(f"{t.lang}: no page translated yet ({t.docs_dir.relative_to(ROOT)}), not built")
            continue
        build_translation(t)
        print(f"{t.lang}: built {len(t.pages)} pages into {t.site_dir.relative_to(ROOT)}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the generator (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="python docs/generate.py", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--no-translations", action="store_true", help="do not build the translated sites"
    )
    parser.add_argument("--lang", help="build only this translation (e.g. de)")
    replay = parser.add_mutually_exclusive_group()
    replay.add_argument(
        "--replay",
        action="store_true",
        help="play the replay's game again with replay_bot and write its record first",
    )
    replay.add_argument(
        "--check-replay",
        action="store_true",
        help="play the replay's game again and fail if its committed record differs",
    )
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    if args.replay or args.check_replay:
        write_replay_record(check=args.check_replay)
    generate(build=not args.no_translations, only=args.lang)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
