"""The docs as a reader meets them: the rules page's order and sources, the built site.

The checks of the built site use the ``built_site`` fixture of ``tests/conftest.py``:
the site is generated and built once per run, shared with ``tests/test_docs_browser.py``.
They need the docs extra, not a browser.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import attrs
import pytest

from rule_markers import parse_clauses, traceability_markdown

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

SEED_FILE = re.compile(r"\d{3}_[0-9a-f]{16}(?:\.txt)?")
"""The shape of the rule texts' file names (a number and a hash): never shown to readers."""


def clause_key(clause_id: str) -> tuple[int, ...]:
    """``"R15.4"`` -> ``(15, 4)``: the numeric order of clause ids."""
    return tuple(int(part) for part in clause_id[1:].split("."))


def written_pages() -> list[Path]:
    """Every page written by hand, in every language (not the generated parts)."""
    skip = {DOCS / lang for lang in ("de", "pl", "fr", "_generated")}
    return sorted(
        p for p in DOCS.rglob("*.md") if not any(folder in p.parents for folder in skip)
    ) + [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]


# ---------------------------------------------------------------- the rules page


def test_the_rules_page_numbers_its_clauses_in_order() -> None:
    ids = list(parse_clauses())
    assert len(ids) > 50
    assert ids == sorted(ids, key=clause_key), "a clause stands out of numeric order"
    # Every clause of a section follows the one before it: 1, 2, 3 ...
    for before, after in itertools.pairwise(ids):
        b, a = clause_key(before), clause_key(after)
        assert a == (b[0], b[1] + 1) or a == (b[0] + 1, 1), f"{before} is followed by {after}"


def test_the_traceability_table_lists_the_clauses_in_order() -> None:
    table = traceability_markdown()
    listed = re.findall(r"^\| \[(R[\d.]+)\]", table, re.M)
    assert listed == sorted(listed, key=clause_key)
    assert len(listed) == len(parse_clauses())


def test_the_rule_texts_are_named_by_language_and_title_never_by_file_name() -> None:
    for page in written_pages():
        found = SEED_FILE.search(page.read_text(encoding="utf-8"))
        assert found is None, f"{page.relative_to(ROOT)} names {found.group(0)}"
    for page in ("rules.md", "ambiguities.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        for language in ("German", "Polish", "French"):
            assert language in text, f"{page} does not say which text is {language}"
        assert "*Allegra*" in text, f"{page} does not give the texts' title"


# ----------------------------------------------------------------- the built site


def site_files(built: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(p for p in built.rglob("*") if p.suffix in suffixes and p.is_file())


def test_no_rule_text_file_name_appears_on_the_site(built_site: Path) -> None:
    files = site_files(built_site, (".html", ".json", ".js", ".xml"))
    assert len(files) > 30
    for path in files:
        found = SEED_FILE.search(path.read_text(encoding="utf-8", errors="replace"))
        assert found is None, f"{path.relative_to(built_site)} shows {found.group(0)}"


NOTICE = re.compile(
    r"end of life|end-of-life|maintained successor|class=\"md-banner", re.IGNORECASE
)


def test_the_site_carries_none_of_the_docs_build_scripts(built_site: Path) -> None:
    """``docs/`` holds the build's Python and Node scripts: ``exclude_docs`` keeps them out."""
    scripts = [p.name for p in (ROOT / "docs").iterdir() if p.suffix in (".py", ".mjs")]
    assert "play_site.py" in scripts and "play_bytecode.mjs" in scripts
    assert [name for name in scripts if (built_site / name).exists()] == []


def test_no_page_shows_a_notice_of_the_theme(built_site: Path) -> None:
    """Material for MkDocs prints its end-of-life notice at every build; none reaches a page
    (nor an announcement banner). The contributing and changelog pages, which explain the
    docs toolchain to contributors, may name it in their text."""
    # The play page's table (_generated/play/) is the server's own page, not the theme's.
    play = built_site / "_generated" / "play"
    pages = [p for p in site_files(built_site, (".html",)) if play not in p.parents]
    assert len(pages) >= 30
    for path in pages:
        page = path.read_text(encoding="utf-8")
        assert 'data-md-component="announce"' in page  # the slot a banner would fill
        slot = page.split('data-md-component="announce"', 1)[1].split("</div>", 1)[0]
        assert slot.strip(" \n>") == "", f"{path.relative_to(built_site)}: {slot.strip()[:80]}"
        if path.parent.name in ("contributing", "changelog"):
            continue
        found = NOTICE.search(page)
        assert found is None, f"{path.relative_to(built_site)}: {found.group(0)}"


@pytest.mark.parametrize("page", ["rules", "traceability"])
def test_the_built_rules_pages_list_the_clauses_in_order(built_site: Path, page: str) -> None:
    html = (built_site / page / "index.html").read_text(encoding="utf-8")
    ids = re.findall(r'href="[^"]*#r(\d+)-(\d+)"', html) if page == "traceability" else []
    if page == "rules":
        ids = re.findall(r'<h3 id="r(\d+)-(\d+)"', html)
    keys = [(int(a), int(b)) for a, b in ids]
    assert len(keys) > 50
    assert keys == sorted(keys)


# ------------------------------------------------------------------ install lines

REPOSITORY = "git+https://github.com/allegra-rules/allegra-rules"
"""The repository, as pip names it in a direct reference."""

INSTALL = re.compile(r"pip install ([^`\n#&)]*)")
"""A ``pip install`` command, up to the end of its line, code span or comment."""


def install_sources() -> list[Path]:
    """Every file a reader or a contributor reads install lines in."""
    skip = {DOCS / lang for lang in ("de", "pl", "fr", "_generated")}
    pages = [p for p in DOCS.rglob("*.md") if not any(f in p.parents for f in skip)]
    code = list((ROOT / "src" / "allegra_rules").rglob("*.py"))  # the API reference
    return sorted(pages + code) + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]


def install_lines() -> list[tuple[str, str]]:
    """``(where, arguments)`` of every ``pip install`` in those files."""
    found = []
    for path in install_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in INSTALL.finditer(line):
                found.append((f"{path.relative_to(ROOT)}:{number}", match.group(1).strip()))
    return found


def project_extras() -> set[str]:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras: dict[str, list[str]] = data["project"]["optional-dependencies"]
    assert data["project"]["urls"]["Source"] == REPOSITORY.removeprefix("git+")
    return set(extras)


def requirements(arguments: str) -> list[str]:
    """The requirements of one ``pip install`` line (its options left out)."""
    import shlex

    words = shlex.split(arguments.replace("\\", ""))
    out, skip_next = [], False
    for word in words:
        if skip_next:
            skip_next = False
        elif word in ("--index-url", "-i", "--extra-index-url", "-r", "-c"):
            skip_next = True
        elif not word.startswith("-"):
            out.append(word)
    return out


def check_install_line(where: str, arguments: str, extras: set[str]) -> int:
    """Fail on a line that installs allegra-rules from the index or names an unknown
    extra; return how many requirements of the line are allegra-rules."""
    ours = 0
    for requirement in requirements(arguments):
        name, _, reference = (part.strip() for part in requirement.partition("@"))
        base, _, wanted = name.partition("[")
        named = {e.strip() for e in wanted.rstrip("]").split(",") if e.strip()}
        if base in (".", "./"):
            assert not reference, f"{where}: {requirement}"
        elif base.replace("_", "-").lower() == "allegra-rules":
            assert reference == REPOSITORY, (
                f"{where}: {requirement!r} installs from the package index, where "
                f"allegra-rules is not published; use a clone or {name} @ {REPOSITORY}"
            )
        else:
            continue  # another project, from the index
        ours += 1
        assert named <= extras, f"{where}: no extra {sorted(named - extras)} in pyproject"
    return ours


def test_every_install_line_installs_from_the_repository_with_real_extras() -> None:
    """allegra-rules is not on the Python Package Index: every documented line installs
    it from a clone (``.``, ``".[extra]"``) or from the repository by a direct reference,
    and every extra it names is one of pyproject's."""
    extras = project_extras()
    lines = install_lines()
    assert sum(check_install_line(where, arguments, extras) for where, arguments in lines) >= 10
    # Every language's home page gives the same install lines.
    homes = [DOCS / "index.md", *sorted((DOCS / "i18n").glob("*/index.md"))]
    shown = {
        tuple(a for w, a in lines if w.startswith(str(home.relative_to(ROOT)) + ":"))
        for home in homes
    }
    assert len(homes) == 4 and len(shown) == 1, f"the home pages' install lines differ: {shown}"


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ("allegra-rules", "package index"),
        ('"allegra-rules[cli]"', "package index"),
        ('-e ".[nope]"', "no extra ['nope']"),
        ('"allegra-rules[cli] @ git+https://example.org/x"', "package index"),
        ('"allegra-rules[cli,gym] @ git+https://github.com/allegra-rules/allegra-rules"', "gym"),
    ],
)
def test_the_install_line_check_refuses(arguments: str, problem: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(problem)):
        check_install_line("x", arguments, project_extras())
    assert check_install_line("x", 'torch "ray[rllib]" ".[cli]"', project_extras()) == 1


# ------------------------------------------------------------------ API reference


def test_every_module_has_an_api_page_of_modest_size_with_every_indexed_name(
    built_site: Path,
) -> None:
    """One page per public module; every name of the index links to an entry there."""
    api = built_site / "api"
    index = (api / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([\w.]+)/#(allegra_rules\.[\w.]+)"', index)
    assert len(links) > 120
    ids: dict[str, set[str]] = {}
    for page, anchor in links:
        if page not in ids:
            html = (api / page / "index.html").read_text(encoding="utf-8")
            ids[page] = set(re.findall(r'\sid="([^"]+)"', html))
        assert anchor in ids[page], f"api/{page}/ has no entry {anchor}"
    assert len(ids) >= 23
    assert "allegra_rules.serialize.action_from_dict" in ids["serialize"]
    for page in api.glob("*/index.html"):
        size = page.stat().st_size
        assert size < 200_000, f"{page.relative_to(built_site)} is {size // 1000} KB"


@pytest.mark.parametrize(
    ("page", "module"),
    [
        ("saved-games", "serialize"),
        ("saved-games", "views"),
        ("errors", "serialize"),
        ("errors", "invariants"),
        ("tutorial", "transitions"),
        ("tutorial", "bots"),
    ],
)
def test_the_pages_that_use_a_module_link_its_api_page(
    built_site: Path, page: str, module: str
) -> None:
    html = (built_site / page / "index.html").read_text(encoding="utf-8")
    assert f'href="../api/{module}/' in html


# ------------------------------------------------------------------------ replay


def generator() -> Any:
    import importlib.util
    import sys

    name = "_docs_generate_replay"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, DOCS / "generate.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_the_replay_is_played_by_searchbot_with_a_fixed_budget() -> None:
    from allegra_rules import SearchBot

    gen = generator()
    bot = gen.replay_bot(1)
    assert isinstance(bot, SearchBot)
    assert bot.simulations == gen.REPLAY_SIMULATIONS
    assert bot.time_limit is None
    assert bot.seed == 1


def test_the_replay_page_names_its_bot_and_the_bot_plays_every_move(built_site: Path) -> None:
    import json

    from allegra_rules import apply, describe_action, new_game
    from allegra_rules import preset as make_preset

    gen = generator()
    bot = type(gen.replay_bot(0)).__name__
    page = (built_site / "replay" / "index.html").read_text(encoding="utf-8")
    assert f"played by <code>{bot}</code>" in page
    steps = json.loads(re.search(r"allegra-replay__data\">(.*?)</script>", page, re.S).group(1))
    # The first moves of the page are the bot's own choices, replayed here.
    name, seats, seed = gen.REPLAY_GAME
    state = new_game(seats, config=make_preset(name), seed=seed)
    bots = [gen.replay_bot(seat) for seat in range(seats)]
    for step in steps[1:30]:
        action = bots[state.current_player].choose(state)
        assert step["text"].startswith(describe_action(state, action))
        state = apply(state, action)


def test_the_replay_page_narrates_every_move_of_the_committed_record(built_site: Path) -> None:
    import json

    from allegra_rules import apply, describe_action

    record = generator().replay_record()
    page = (built_site / "replay" / "index.html").read_text(encoding="utf-8")
    steps = json.loads(re.search(r"allegra-replay__data\">(.*?)</script>", page, re.S).group(1))
    state = record.initial_state()
    texts = iter(step["text"] for step in steps[1:])
    for action in record.actions:
        after = apply(state, action)
        assert next(texts).startswith(describe_action(state, action))
        if after.round != state.round and not after.is_terminal:
            assert next(texts).startswith(f"Round {after.round}")  # the next deal's frame
        state = after
    assert state.is_terminal and next(texts, None) is None


def test_check_replay_fails_when_the_bots_play_another_game(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gen = generator()
    record = gen.replay_record()
    committed = tmp_path / "replay-game.json"
    committed.write_bytes(gen.REPLAY_RECORD.read_bytes())
    monkeypatch.setattr(gen, "REPLAY_RECORD", committed)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    monkeypatch.setattr(gen, "play_replay_game", lambda: record)
    gen.write_replay_record(check=True)  # the same moves: passes
    shorter = attrs.evolve(record, actions=record.actions[:-1])
    monkeypatch.setattr(gen, "play_replay_game", lambda: shorter)
    with pytest.raises(SystemExit, match="--replay and commit it"):
        gen.write_replay_record(check=True)
    gen.write_replay_record()  # --replay writes what the bots play
    assert gen.replay_record() == shorter


@pytest.mark.slow
def test_the_committed_replay_is_what_the_bots_play_now() -> None:
    """Searches every move again (most of a minute); CI's docs step does the same."""
    generator().write_replay_record(check=True)
