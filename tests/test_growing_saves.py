"""A field added to the saved games as CONTRIBUTING's "Adding a field to the state" says.

The test copies the package into a temporary folder and adds, by the edits of ``EDITS``
(the whole hand-written part of the change), an always-present per-seat count: the knocks
each seat made this round, ``knocks_made``, raised when a seat knocks, in a new schema
version 3. It runs the generators in that copy, then checks in processes that import the
copy:

- every document of every compatibility corpus loads, is written back byte for byte,
  keeps its digest, and every record replays to its final state's digest
  (``tests/test_compat.py``, run against the copy);
- the declaration, the classes, the generated code and the regenerated JSON Schemas
  agree (``tests/test_fields.py`` and ``tests/test_schemas_generated.py``, against the
  copy);
- new games carry the field and version 3, the field counts the knocks, a game of an
  older version keeps it at its default and leaves it out of its documents, and the
  JSON Schema accepts the documents of every version (``CHECK`` below);
- the batched engine, edited alike, agrees with the scalar one on every field in
  lock-step (a few games; more in the thorough run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import thorough_run

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "allegra_rules"

EDITS: dict[str, list[tuple[str, str]]] = {
    # 1. The declaration: the field, its kind and range, its default in older games and
    #    the version that adds it, which becomes the newest.
    "fields.py": [
        ("NEWEST_VERSION = 2\n", "NEWEST_VERSION = 3\n"),
        (
            '    _F("schema_version", Kind.SCHEMA_VERSION, default=NEWEST_VERSION),\n',
            '    _F("schema_version", Kind.SCHEMA_VERSION, default=NEWEST_VERSION),\n'
            '    _F("knocks_made", Kind.PER_SEAT, bound=Bound.COUNT, default=one_per_seat(0),'
            " added=3),\n",
        ),
    ],
    # 2. The attribute of the state, with its line in the docstring.
    "state.py": [
        (
            '            its default (see ``allegra_rules.fields``).\n    """\n',
            "            its default (see ``allegra_rules.fields``).\n"
            '        knocks_made: the knocks each seat made this round.\n    """\n',
        ),
        (
            "    schema_version: int = NEWEST_VERSION\n",
            "    schema_version: int = NEWEST_VERSION\n"
            '    knocks_made: tuple[int, ...] = attribute_default("knocks_made")\n',
        ),
        (
            "from allegra_rules import _fast\n",
            "from allegra_rules import _fast\nfrom allegra_rules.fields import attribute_default\n",
        ),
    ],
    # 3. A public field: the same attribute on the view.
    "views.py": [
        (
            '            written in (``GameState.schema_version``).\n    """\n',
            "            written in (``GameState.schema_version``).\n"
            '        knocks_made: the knocks each seat made this round.\n    """\n',
        ),
        (
            "    schema_version: int = NEWEST_VERSION\n\n    def __attrs_post_init__",
            "    schema_version: int = NEWEST_VERSION\n"
            '    knocks_made: tuple[int, ...] = attribute_default("knocks_made")\n\n'
            "    def __attrs_post_init__",
        ),
        (
            "    FIELDS,\n    NEWEST_VERSION,\n",
            "    FIELDS,\n    NEWEST_VERSION,\n    attribute_default,\n",
        ),
    ],
    # 4. The rule: a knock raises the knocker's count; a deal starts the round at the
    #    default (one 0 per seat), which the deal gets by leaving the field out.
    "transitions.py": [
        (
            "def _apply_knock(s: GameState, action: Knock) -> GameState:\n"
            "    return _answer_knock(s, True)\n",
            "def _apply_knock(s: GameState, action: Knock) -> GameState:\n"
            "    seat = s.current_player\n"
            "    assert seat is not None\n"
            "    knocks = list(s.knocks_made)\n"
            "    knocks[seat] += 1\n"
            "    return _evolve(_answer_knock(s, True), knocks_made=tuple(knocks))\n",
        ),
    ],
    # 5. The batched engine: the field's array and its rule (in a game of version 3 and
    #    later, as the scalar engine's apply keeps it). Its conversion both ways and its
    #    value at a deal follow from its kind and its default (jax/_by_kind.py).
    "jax/_state.py": [
        (
            "    _schema_version: jax.Array\n",
            "    _schema_version: jax.Array\n    _knocks_made: jax.Array\n",
        ),
    ],
    "jax/_rules.py": [
        (
            '        "_knockers": knockers,\n'
            '        "current_player": jnp.where(closes, s._drawer, nxt),\n',
            '        "_knockers": knockers,\n'
            '        "_knocks_made": s._knocks_made\n'
            "        + (knocked & (s._schema_version >= 3) & (jnp.arange(n) == player))"
            ".astype(I32),\n"
            '        "current_player": jnp.where(closes, s._drawer, nxt),\n',
        ),
    ],
}
"""The hand-written change, as ``{file of the package: [(old text, new text), ...]}``."""

CHECK = r"""
import json, random, sys
import jsonschema
from allegra_rules import (
    GameRecord, Knock, apply, legal_actions, new_game, observe, replay, state_digest,
    state_from_json,
)
from allegra_rules.serialize import SCHEMA_VERSION, json_schema

assert SCHEMA_VERSION == 3
states = jsonschema.Draft202012Validator(json_schema("state"))
views = jsonschema.Draft202012Validator(json_schema("view"))
knocked = 0
for version in (1, 2, 3):
    rng = random.Random(version)
    state = new_game(4, seed=version, schema_version=version)
    counted = [0] * 4
    while not state.is_terminal:
        actions = legal_actions(state)
        action = Knock() if Knock() in actions else rng.choice(actions)
        before = state
        state = apply(state, action)
        if action == Knock():
            counted[before.current_player] += 1
            knocked += version == 3
        if state.round != before.round:
            counted = [0] * 4
        text = state.to_json()
        data = json.loads(text)
        assert data["schema_version"] == version
        assert ("knocks_made" in data) == (version == 3)
        want = tuple(counted) if version == 3 else (0,) * 4
        assert state.knocks_made == want, (version, state.knocks_made, want)
        assert state_from_json(text) == state and state_from_json(text).to_json() == text
        view = observe(state, None)
        assert view.knocks_made == want
        if rng.random() < 0.05:
            states.validate(data)
            views.validate(json.loads(view.to_json()))
    record = GameRecord(num_players=4, seed=version, schema_version=version)
    assert GameRecord.from_json(record.to_json()).schema_version == version
assert new_game(2).schema_version == 3 and new_game(2).knocks_made == (0, 0)
print("ok", knocked)
"""


def _copy_package(folder: Path) -> Path:
    """The package copied into ``folder/src`` with ``EDITS`` made; its ``src`` folder."""
    src = folder / "src"
    shutil.copytree(PACKAGE, src / "allegra_rules", ignore=shutil.ignore_patterns("__pycache__"))
    for name, edits in EDITS.items():
        path = src / "allegra_rules" / name
        text = path.read_text(encoding="utf-8")
        for old, new in edits:
            assert text.count(old) == 1, f"{name}: the text to edit is not there once: {old!r}"
            text = text.replace(old, new)
        path.write_text(text, encoding="utf-8")
    return src


def _run(src: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


@pytest.fixture(scope="module")
def grown(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The edited copy of the package, its generated code written; its ``src`` folder."""
    src = _copy_package(tmp_path_factory.mktemp("grown"))
    for generator in ("allegra_rules._generate_fast", "allegra_rules._generate_schemas"):
        done = _run(src, "-m", generator, "--write")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "wrote" in done.stdout, f"{generator} wrote nothing"
    return src


def test_the_change_edits_at_most_six_files_outside_the_tests() -> None:
    # Four in the scalar engine, two in the batched one (see CONTRIBUTING.md).
    assert len(EDITS) <= 6, sorted(EDITS)
    assert {f for f in EDITS if f.startswith("jax/")} == {"jax/_state.py", "jax/_rules.py"}


def test_the_copy_is_the_edited_package(grown: Path) -> None:
    done = _run(
        grown, "-c", "import allegra_rules.fields as f; print(f.__file__, f.NEWEST_VERSION)"
    )
    assert done.returncode == 0, done.stderr
    path, version = done.stdout.split()
    assert Path(path).is_relative_to(grown) and version == "3"


def test_every_stored_document_still_loads_and_keeps_its_text_and_digest(grown: Path) -> None:
    done = _run(
        grown, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-o", "addopts=",
        "-p", "xdist", "-p", "hypothesispytest", "tests/test_compat.py",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_the_declaration_the_classes_the_generated_code_and_schemas_agree(grown: Path) -> None:
    done = _run(
        grown, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-o", "addopts=",
        "-p", "xdist", "-p", "hypothesispytest",
        "tests/test_fields.py", "tests/test_schemas_generated.py",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_new_games_carry_the_field_and_older_ones_keep_its_default(grown: Path) -> None:
    pytest.importorskip("jsonschema")
    done = _run(grown, "-c", CHECK)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ok, knocks = done.stdout.split()
    assert ok == "ok" and int(knocks) > 0


def test_the_generators_refuse_a_field_newer_than_the_newest_version(tmp_path: Path) -> None:
    src = _copy_package(tmp_path)
    fields = src / "allegra_rules" / "fields.py"
    text = fields.read_text(encoding="utf-8").replace(
        "NEWEST_VERSION = 3\n", "NEWEST_VERSION = 2\n"
    )
    fields.write_text(text, encoding="utf-8")
    for generator in ("allegra_rules._generate_fast", "allegra_rules._generate_schemas"):
        done = _run(src, "-m", generator, "--write")
        assert done.returncode == 2, (generator, done.stdout, done.stderr)
        assert "state.knocks_made (added=3)" in done.stderr and "NEWEST_VERSION" in done.stderr
        assert "wrote" not in done.stdout


def test_the_batched_engine_agrees_on_the_field_in_lock_step(grown: Path) -> None:
    pytest.importorskip("jax")
    module = "tests/test_jax_engine.py"
    # One two-seat game by default; the whole lock-step suite in the thorough run.
    chosen = [module] if thorough_run() else [f"{module}::test_lockstep_seat_counts[2]"]
    done = _run(
        grown, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-o", "addopts=",
        "-p", "xdist", "-p", "hypothesispytest", *chosen, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


@pytest.mark.parametrize("state", ["missing", "conflicted"])
def test_the_generator_runs_from_no_generated_code_at_all(tmp_path: Path, state: str) -> None:
    # The generated modules deleted, or left unreadable by a merge: the package still
    # imports (a builder is a stand-in that says what to run, the codec takes its checked
    # paths), and the generator writes them again as they were.
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "allegra_rules", ignore=shutil.ignore_patterns("__pycache__"))
    generated = [src / "allegra_rules" / name for name in ("_fast_builders.py", "_fast_codec.py")]
    texts = [path.read_text(encoding="utf-8") for path in generated]
    for path, text in zip(generated, texts, strict=True):
        if state == "missing":
            path.unlink()
        else:
            lines = text.splitlines(keepends=True)
            half = len(lines) // 2
            conflict = ["<<<<<<< HEAD\n", *lines[half:], "=======\n", ">>>>>>> other\n"]
            path.write_text("".join([*lines[:half], *conflict]), encoding="utf-8")
    stale = _run(src, "-c", "import allegra_rules; allegra_rules.new_game(2)")
    assert stale.returncode != 0
    assert "run python -m allegra_rules._generate_fast --write" in stale.stderr
    schemas = _run(src, "-m", "allegra_rules._generate_schemas")  # runs from there too
    assert schemas.returncode == 0, schemas.stdout + schemas.stderr
    done = _run(src, "-m", "allegra_rules._generate_fast", "--write")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("wrote") == 2
    again = _run(
        src, "-c", "import allegra_rules as a; s = a.new_game(2); print(a.state_to_json(s)[:1])"
    )
    assert again.returncode == 0 and again.stdout == "{\n", again.stderr
    assert [path.read_text(encoding="utf-8") for path in generated] == texts


def test_a_wrong_field_name_is_named_not_sent_to_the_generator(tmp_path: Path) -> None:
    # "Run the generator" is said only where running it helps: a _copier call naming no
    # field stops the generator with the name, and its stand-in says the same.
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "allegra_rules", ignore=shutil.ignore_patterns("__pycache__"))
    transitions = src / "allegra_rules" / "transitions.py"
    text = transitions.read_text(encoding="utf-8")
    old = '_draw_discard = _copier("discard_pile", "held",'
    assert text.count(old) == 1
    transitions.write_text(text.replace(old, old.replace('"held"', '"helt"')), encoding="utf-8")
    done = _run(src, "-m", "allegra_rules._generate_fast", "--write")
    assert done.returncode == 2 and "['helt']" in done.stderr, done.stderr
    assert "not GameState fields" in done.stderr
    called = _run(src, "-c", "from allegra_rules import transitions as t; t._draw_discard(None)")
    assert "['helt'] are not GameState fields" in called.stderr, called.stderr
    assert "_generate_fast" not in called.stderr.splitlines()[-1]
