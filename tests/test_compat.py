"""The compatibility corpora: this release reads every document an earlier release wrote.

Each folder under ``tests/compat/`` (named by the version that wrote it, by
``tests/compat/make_corpus.py``) holds configs, saved states, player views (each seat's
and the spectator's), game records and actions, one canonical JSON document per line,
and a ``manifest.json`` with each document's sha256, config fingerprint and, for a
record, its final state's digest. Files added to a corpus later come with a manifest of
their own (``<name>.manifest.json``), so that no file of the corpus is ever edited.
Every document must load, mean the same (same fingerprint, same final state) and
re-serialize byte for byte: a game keeps the schema version it was written in, so a
release writes exactly the same document for it. A failure names the file and
line of every failing document.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import allegra_rules
from allegra_rules import (
    GameRecord,
    PlayerView,
    RuleConfig,
    action_from_json,
    action_to_json,
    preset,
    replay,
    state_digest,
    state_from_json,
    state_to_json,
)

COMPAT = Path(__file__).parent / "compat"
CORPORA = sorted(p for p in COMPAT.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
"""Every corpus folder (each must hold a ``manifest.json``)."""
KINDS = ("config", "state", "view", "record", "action")

Document = tuple[str, str, dict[str, Any]]
"""``(where, text, manifest entry)``; ``where`` reads ``0.1.0/states.jsonl:17``."""


def manifest_files(corpus: Path) -> list[Path]:
    """A corpus's manifests: ``manifest.json``, then each ``<name>.manifest.json`` that a
    later change added beside it with new files (a released manifest is never edited)."""
    return [corpus / "manifest.json", *sorted(corpus.glob("*.manifest.json"))]


@cache
def manifest(corpus: Path) -> dict[str, Any]:
    """The corpus's manifests as one: the version (all must name it) and every file."""
    data: dict[str, Any] = {"files": []}
    for path in manifest_files(corpus):
        part = json.loads(path.read_text(encoding="utf-8"))
        version = data.setdefault("allegra_rules_version", part["allegra_rules_version"])
        assert part["allegra_rules_version"] == version, f"{path.name} names another version"
        data["files"] += part["files"]
    return data


def lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n"), f"{path}: the last document must end with a newline"
    return text[:-1].split("\n")


def documents(corpus: Path, kind: str) -> Iterator[Document]:
    """Every document of ``kind`` in ``corpus`` with its manifest entry."""
    for listed in manifest(corpus)["files"]:
        if listed["kind"] == kind:
            texts = lines(corpus / listed["file"])
            for entry, text in zip(listed["documents"], texts, strict=True):
                yield f"{corpus.name}/{listed['file']}:{entry['line']}", text, entry


def same_text(text: str, again: str) -> None:
    """Fail unless ``again`` (a re-serialization) is ``text``, naming the keys that differ."""
    if again == text:
        return
    old, new = json.loads(text), json.loads(again)
    if not isinstance(old, dict) or not isinstance(new, dict):
        raise AssertionError(f"re-serialized as {again[:200]}")
    absent = "<absent>"
    changes = [
        f"{key}: {json.dumps(old.get(key, absent))[:80]} -> {json.dumps(new.get(key, absent))[:80]}"
        for key in sorted(old.keys() | new.keys())
        if old.get(key, absent) != new.get(key, absent)
    ]
    raise AssertionError("re-serialized differently: " + "; ".join(changes or ["key order"]))


Check = Callable[[str, dict[str, Any]], None]
"""A check of one document: ``check(text, manifest entry)`` raises when it fails."""


def check_each(corpus: Path, *checks: tuple[str, Check]) -> None:
    """Run every ``(kind, check)`` on every document of that kind; fail naming each bad one."""
    failures = []
    count = 0
    for kind, check in checks:
        found = 0
        for where, text, entry in documents(corpus, kind):
            found += 1
            try:
                check(text, entry)
            except Exception as exc:  # reported below with the document's place
                first = str(exc).split("\n")[0]
                failures.append(f"{where}: {type(exc).__name__}: {first}")
        assert found, f"{corpus.name} has no {kind} documents"
        count += found
    if failures:
        shown = "\n".join(failures[:25])
        more = f"\n... and {len(failures) - 25} more" if len(failures) > 25 else ""
        pytest.fail(f"{len(failures)} of {count} documents fail:\n{shown}{more}", False)


corpora = pytest.mark.parametrize("corpus", CORPORA, ids=[c.name for c in CORPORA])


def test_the_first_release_has_a_corpus() -> None:
    assert COMPAT / "0.1.0" in CORPORA


def test_the_corpus_of_this_version_holds_every_kind_of_document_it_writes() -> None:
    # What this version writes is stored already, released or not: each file the script
    # writes (records with seats and deal keys, spectator views, ...) is in this
    # version's folder, added beside the others by ``make_corpus.py --add``.
    folder = COMPAT / allegra_rules.__version__
    if not folder.is_dir():
        pytest.skip(f"no corpus of {allegra_rules.__version__} yet")
    spec = importlib.util.spec_from_file_location("make_corpus", COMPAT / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    missing = [name for name in script.FILES if not (folder / name).is_file()]
    assert not missing, f"run python tests/compat/make_corpus.py --add {folder}: {missing}"
    kinds = {f["file"]: f["kind"] for f in manifest(folder)["files"]}
    assert {name: kinds[name] for name in script.FILES} == script.FILES


@corpora
def test_the_manifest_lists_every_file_and_hashes_every_document(corpus: Path) -> None:
    data = manifest(corpus)
    assert data["allegra_rules_version"] == corpus.name, "a corpus folder is named by its version"
    listed = [f["file"] for f in data["files"]]
    manifests = {p.name for p in manifest_files(corpus)}
    on_disk = sorted(p.name for p in corpus.iterdir() if p.name not in manifests)
    assert sorted(listed) == on_disk, f"{corpus.name}: files and manifest differ"
    failures = []
    for f in data["files"]:
        assert f["kind"] in KINDS, f"{corpus.name}/{f['file']}: this test cannot load {f['kind']}"
        texts = lines(corpus / f["file"])
        entries = f["documents"]
        assert len(texts) == len(entries), (
            f"{corpus.name}/{f['file']}: {len(texts)} lines, the manifest lists {len(entries)}"
        )
        for number, (entry, text) in enumerate(zip(entries, texts, strict=True), 1):
            where = f"{corpus.name}/{f['file']}:{number}"
            if entry["line"] != number:
                failures.append(f"{where}: the manifest entry says line {entry['line']}")
            if hashlib.sha256(text.encode()).hexdigest() != entry["sha256"]:
                failures.append(f"{where}: the document differs from its manifest sha256")
    assert not failures, "a released corpus is never edited:\n" + "\n".join(failures)


@pytest.mark.rule("R19.2")
@corpora
def test_configs_load_and_keep_their_json_and_fingerprint(corpus: Path) -> None:
    def check(text: str, entry: dict[str, Any]) -> None:
        config = RuleConfig.from_json(text)
        same_text(text, config.to_json())
        assert config.fingerprint == entry["config_fingerprint"], "the fingerprint changed"

    check_each(corpus, ("config", check))


@pytest.mark.rule("R19.3")
@corpora
def test_every_preset_id_still_names_the_same_config(corpus: Path) -> None:
    def check_config(text: str, entry: dict[str, Any]) -> None:
        if entry["preset"] is not None:
            same_fingerprint(text, entry)
            differ = preset(entry["preset"]).options_differing_from(RuleConfig.from_json(text))
            assert not differ, f"{entry['preset']} now differs in {differ}"

    def same_fingerprint(text: str, entry: dict[str, Any]) -> None:
        if entry["preset"] is not None:
            now = preset(entry["preset"]).fingerprint
            assert now == entry["config_fingerprint"], f"{entry['preset']} has fingerprint {now}"

    check_each(corpus, ("config", check_config), ("record", same_fingerprint))


@corpora
def test_saved_states_load_and_reserialize_identically(corpus: Path) -> None:
    def check(text: str, entry: dict[str, Any]) -> None:
        state = state_from_json(text)
        same_text(text, state_to_json(state))
        assert state.phase.value == entry["phase"]
        assert state.config.fingerprint == entry["config_fingerprint"], "the config changed"

    check_each(corpus, ("state", check))


@corpora
def test_player_views_load_and_reserialize_identically(corpus: Path) -> None:
    def check(text: str, entry: dict[str, Any]) -> None:
        view = PlayerView.from_json(text)
        same_text(text, view.to_json())
        assert view.viewer == entry["viewer"]  # None: the spectator's
        assert view.config.fingerprint == entry["config_fingerprint"], "the config changed"

    check_each(corpus, ("view", check))


@pytest.mark.rule("R18.1", "R18.2")
@corpora
def test_game_records_replay_to_the_same_final_state(corpus: Path) -> None:
    def check(text: str, entry: dict[str, Any]) -> None:
        record = GameRecord.from_json(text)
        digest = state_digest(replay(record))
        assert digest == entry["final_state_digest"], f"replays to another state ({digest})"
        assert record.config_fingerprint == entry["config_fingerprint"], "the config changed"
        assert record.preset == entry["preset"]
        same_text(text, record.to_json())

    check_each(corpus, ("record", check))


@corpora
def test_actions_load_and_reserialize_identically(corpus: Path) -> None:
    def check(text: str, entry: dict[str, Any]) -> None:
        same_text(text, action_to_json(action_from_json(text)))

    check_each(corpus, ("action", check))
