"""``play --resume``: the seats come from the save, and no bot is asked for a saved move."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from allegra_rules import apply, legal_actions, new_game
from allegra_rules.cli import _play
from allegra_rules.records import GameRecord, replay
from allegra_rules.search import SearchBot
from allegra_rules.serialize import SCHEMA_VERSION
from allegra_rules.state import Phase
from test_cli_commands import fails, ok


def _record(
    seats: tuple[str, ...] | None, moves: int = 120, schema_version: int | None = None
) -> GameRecord:
    state = new_game(3, seed=4, schema_version=schema_version)
    rng = random.Random(1)
    actions = []
    for _ in range(moves):
        action = rng.choice(legal_actions(state))
        actions.append(action)
        state = apply(state, action)
    while state.current_player != 1 or state.phase is not Phase.DRAW:  # the person's turn
        action = legal_actions(state)[0]
        actions.append(action)
        state = apply(state, action)
    return GameRecord(
        num_players=3, seed=4, actions=actions, seats=seats, schema_version=schema_version
    )


def test_a_record_without_seats_loads_and_writes_back_byte_for_byte() -> None:
    text = _record(None, 30).to_json()
    assert '"seats"' not in text
    loaded = GameRecord.from_json(text)
    assert loaded.seats is None and loaded.to_json() == text
    with_seats = _record(("greedy", "person", "search"), 30).to_json()
    assert GameRecord.from_json(with_seats).seats == ("greedy", "person", "search")
    assert GameRecord.from_json(with_seats).to_json() == with_seats


def test_seats_that_do_not_fit_the_table_are_refused() -> None:
    with pytest.raises(ValueError, match="seats must name who played each of the 3 seats"):
        GameRecord(num_players=3, seed=1, seats=("person", "greedy"))
    with pytest.raises(ValueError, match="seats must name"):
        GameRecord(num_players=3, seed=1, seats=("person", "greedy", "Not A Bot!"))


def test_resume_asks_no_search_bot_for_the_saved_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    record = _record(("search-hard", "person", "search-hard"))

    def never(self: SearchBot, state: object) -> object:
        raise AssertionError("a search bot was asked again for a saved move")

    monkeypatch.setattr(SearchBot, "choose", never)
    out = io.StringIO()
    result = _play.run_play(
        3, 1, "seeds", 4, ["search-hard", "search-hard"], io.StringIO("q\ny\n"), out,
        history=record.actions,
    )  # fmt: skip
    assert result.quit and result.actions == record.actions
    state = replay(record)
    assert f"round {state.round}, turn {state.turns_played + 1}." in " ".join(
        out.getvalue().split()
    )


def test_resume_takes_the_seat_and_the_bots_from_the_save(tmp_path: Path) -> None:
    path = tmp_path / "saved.json"
    path.write_text(_record(("random", "person", "greedy")).to_json() + "\n")
    out = ok("play", "--resume", str(path), stdin="q\n")
    assert "you are Player 2 of 3 (--seat 1)" in out
    assert "Player 1 (Random bot), Player 2 (you), Player 3 (Greedy bot)" in out
    assert f"Continue it with: allegra-rules play --resume {path}\n" in out
    message = fails(2, "play", "--resume", str(path), "--seat", "2", stdin="q\n")
    assert message.rstrip().endswith(
        "you played seat 1 of that game; leave out --seat to go on there"
    )
    # An old save without the seats: the options say, as before.
    old = tmp_path / "old.json"
    old.write_text(_record(None).to_json() + "\n")
    out = ok("play", "--resume", str(old), "--seat", "1", "--bots", "random", stdin="q\n")
    assert (
        "you are Player 2 of 3 (--seat 1)" in out
        and "Player 1 (Random bot), Player 2 (you), Player 3 (Random bot)" in out
    )


def test_a_resumed_game_keeps_the_schema_version_of_its_save(tmp_path: Path) -> None:
    # A game keeps the version it started in: saved again, an older save is written in
    # its own version, the moves played since included.
    for version in range(1, SCHEMA_VERSION + 1):
        saved = _record(("random", "person", "greedy"), 40, schema_version=version)
        path = tmp_path / f"saved-{version}.json"
        path.write_text(saved.to_json() + "\n")
        ok("play", "--resume", str(path), stdin="d\nq\n")
        again = GameRecord.from_json(path.read_text())
        assert again.schema_version == version
        assert len(again.actions) > len(saved.actions)
        assert again.actions[: len(saved.actions)] == saved.actions
        assert replay(again).schema_version == version
