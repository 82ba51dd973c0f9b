"""The table of the play page (``allegra_rules.browser_table``), in Python, no browser.

- The person's seat gets only its view: two states it cannot tell apart (the real one
  and a ``determinize`` twin of its view) give the same document, byte for byte, and
  no answer the page reads names the deal's seed.
- It answers with the server's document (``allegra_rules.table_view.seat_document``).
- A whole game against each bot the page offers ends, and its record replays with the
  library and with ``allegra-rules replay``.
- It refuses what the server refuses, with the server's error codes.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from allegra_rules import GameRecord
from allegra_rules.browser_table import BrowserTable, TableError, bot_choices
from allegra_rules.determinize import determinize
from allegra_rules.records import replay
from allegra_rules.table_view import seat_document
from allegra_rules.views import observe


def new_table(seed: int, bots: dict[str, str] | None = None, players: int = 2) -> BrowserTable:
    request = {"players": players, "preset": "seeds", "bots": bots or {}, "seed": seed}
    return BrowserTable.create(json.dumps(request))


def person_moves(table: BrowserTable, rng: random.Random, count: int) -> None:
    """Up to ``count`` random moves of the person, the bots answering after each."""
    for _ in range(count):
        while table.bot_move():
            pass
        if table.state.is_terminal:
            return
        view = json.loads(table.view_json())
        action = rng.choice(view["legal_actions"])
        table.move_json(json.dumps(action), view["version"])


@pytest.mark.parametrize("seed", range(12))
def test_two_states_the_person_cannot_tell_apart_give_the_same_document(seed: int) -> None:
    rng = random.Random(seed)
    table = new_table(seed, players=2 + seed % 3)
    person_moves(table, rng, rng.randrange(1, 40))
    real = table.state
    twin = determinize(observe(real, table.seat), random.Random(seed + 1000))
    assert observe(twin, table.seat) == observe(real, table.seat)
    assert twin != real  # another deal: other hidden cards, another seed
    table._moves.clear()  # the log's secrecy is tested in tests/test_server_log.py
    seen = table.view_json("de")
    table.state = twin
    assert table.view_json("de") == seen


def test_the_document_is_the_servers_and_names_no_seed() -> None:
    seed = 987_654_321_123
    table = new_table(seed, {"1": "search-easy"})
    person_moves(table, random.Random(1), 5)
    doc = json.loads(table.view_json("fr"))
    expected = seat_document(
        table.state,
        0,
        version=table.version,
        moves=table._moves,
        svg=True,
        lang="fr",
        bots=table.bots,
    )
    assert doc == {**json.loads(json.dumps(expected)), "stand_in": []}
    assert "state" not in doc and "deck" not in doc
    for text in (table.view_json(), table.info_json()):
        assert str(seed) not in text
    with pytest.raises(TableError) as refused:
        table.record_json()
    assert refused.value.code == "game_not_over"


@pytest.mark.parametrize("bot", bot_choices())
def test_a_whole_game_against_each_bot_replays(bot: str, tmp_path: Path) -> None:
    table = new_table(7, {"1": bot}, players=2)
    info = json.loads(table.info_json())
    assert [s["bot"] for s in info["seats"]] == [None, bot]
    person_moves(table, random.Random(3), 400)
    assert table.state.is_terminal
    record = GameRecord.from_json(table.record_json())
    assert replay(record) == table.state
    assert len(record.actions) == json.loads(table.view_json())["version"]
    path = tmp_path / "game.json"
    path.write_text(table.record_json(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "allegra_rules", "replay", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_table_from_a_record_continues_at_the_seat_to_move() -> None:
    played = new_table(11, {"1": "greedy", "2": "greedy"}, players=3)
    person_moves(played, random.Random(4), 6)
    partial = played.record
    table = BrowserTable.create(json.dumps({"record": partial.to_json(), "seed": 1}))
    assert table.state == played.state
    assert table.seat == played.state.current_player
    assert json.loads(table.view_json())["viewer"] == table.seat


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        ({"players": 9}, "invalid_table"),
        ({"players": 2, "preset": "nonsense"}, "invalid_table"),
        ({"players": 2, "bots": {"1": "mystery"}}, "invalid_table"),
        ({"players": 2, "bots": {"0": "greedy"}}, "invalid_table"),
        ({"players": 2, "max_turns": 0}, "invalid_table"),
        ({"players": 2, "seed": -1}, "invalid_table"),
    ],
)
def test_a_request_for_no_valid_game_is_refused(request_: dict[str, object], code: str) -> None:
    with pytest.raises(TableError) as refused:
        BrowserTable.create(json.dumps(request_))
    assert refused.value.code == code


def test_a_bot_that_cannot_play_the_table_is_refused_before_the_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The shipped policy plays every table, so weights that lack 3 seats stand in for a
    # bot that cannot play one: it is refused up front, with the reason (where it runs
    # at all; elsewhere it is not one of the page's bots).
    import allegra_rules.bot_kinds as kinds

    monkeypatch.setattr(
        kinds, "cannot_play", lambda config, n: None if n != 3 else "it plays 2, 4 seats, not 3"
    )
    request_ = {"players": 3, "bots": {"1": "policy", "2": "greedy"}}
    with pytest.raises(TableError) as refused:
        BrowserTable.create(json.dumps(request_))
    assert refused.value.code == "invalid_table"
    if "policy" in bot_choices():
        assert "cannot play here" in str(refused.value) and "3" in str(refused.value)
        table = BrowserTable.create(json.dumps({**request_, "players": 2, "bots": {"1": "policy"}}))
        assert table.bots == {1: "policy"}


def test_moves_are_checked_like_the_servers() -> None:
    table = new_table(5, {"1": "greedy"})
    view = json.loads(table.view_json())
    action = json.dumps(view["legal_actions"][0])
    with pytest.raises(TableError) as stale:
        table.move_json(action, view["version"] + 1)
    assert stale.value.code == "stale_version"
    with pytest.raises(TableError) as bad:
        table.move_json(json.dumps({"type": "nonsense"}), view["version"])
    assert bad.value.code == "invalid_action"
    table.move_json(action, view["version"])
    while not table.bot_to_move():
        view = json.loads(table.view_json())
        table.move_json(json.dumps(view["legal_actions"][0]), view["version"])
    view = json.loads(table.view_json())
    with pytest.raises(TableError) as turn:
        table.move_json(action, view["version"])
    assert turn.value.code in {"not_your_turn", "invalid_action"}


@pytest.mark.installed
def test_the_page_imports_no_module_it_does_not_use() -> None:
    # The play page pays for every module at its first load, compiled in the browser:
    # the command line's argparse and the html module's table of every named entity
    # cost it a fifth of a second there and are used by nothing it runs.
    code = (
        "import sys, allegra_rules.browser_table;"
        "print(sorted(m for m in ('argparse', 'html', 'gettext') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
