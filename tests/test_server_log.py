"""The views' move log and the spectator's picture, without a server process.

* ``log``: each entry is worded for its reader and names no card the reader has not
  seen: for two games the seat cannot tell apart (a state drawn from its view, the
  same action, the same view afterwards) the text is the same.
* A table loaded from the database replays its last moves for the log.
* The spectator's picture is never ``None`` and never shows a private card, also when
  every seat of a two-seat game holds one (the drawer's taken card, the knocker's hand
  card).
"""

from __future__ import annotations

import random
import re

import pytest

pytest.importorskip("starlette", reason="the server extra is not installed")

from allegra_rules.actions import Action
from allegra_rules.determinize import determinize
from allegra_rules.presets import preset
from allegra_rules.records import GameRecord
from allegra_rules.server.log import KEEP, Move, recent, remember, replay, worded
from allegra_rules.server.tables import seat_svg
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import IllegalActionError, apply, legal_actions, new_game
from allegra_rules.views import observe, private_seats

PRESETS = ("seeds", "de", "pl", "fr", "published")


def games(count: int, players: int, seed: int) -> list[list[tuple[GameState, Action]]]:
    """``count`` random games: each a list of (state, action) pairs, the action applied."""
    out = []
    for k in range(count):
        rng = random.Random(seed * 1000 + k)
        state = new_game(players, config=preset(PRESETS[k % len(PRESETS)]), seed=seed + k)
        steps = []
        while not state.is_terminal:
            action = rng.choice(legal_actions(state))
            steps.append((state, action))
            state = apply(state, action)
        out.append(steps)
    return out


@pytest.mark.parametrize("players", [2, 3])
def test_a_log_entry_names_no_card_its_reader_has_not_seen(players: int) -> None:
    rng = random.Random(players)
    compared = hidden = 0
    exchange = (Phase.TAKE, Phase.KNOCKER_SWAP, Phase.HOLD_TAKEN)
    for steps in games(4, players, seed=players):
        for k, (before, action) in enumerate(steps):
            if k % 3 and before.phase not in exchange:
                continue
            after = apply(before, action)
            move = Move(1, before.current_player or 0, before, action, after)
            for seat in [*range(players), None]:
                text = worded([move], seat, "en")[0]["text"]
                other = determinize(observe(before, seat), rng)
                try:
                    other_after = apply(other, action)
                except IllegalActionError:  # an action this other game does not allow
                    continue
                if observe(other_after, seat) != observe(after, seat):
                    continue  # the move itself shows the difference (a drawn card)
                twin = Move(1, move.seat, other, action, other_after)
                for lang in ("en", "de"):
                    assert worded([twin], seat, lang) == worded([move], seat, lang), (text, seat)
                compared += 1
                hidden += before.phase in exchange
    assert compared > 100 and hidden > 10


def test_the_log_keeps_the_last_moves_and_replays_them_for_a_loaded_table() -> None:
    config = preset("seeds")
    state = new_game(3, config=config, seed=4)
    rng = random.Random(4)
    moves: list[Move] = []
    actions = []
    for version in range(1, 21):
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        remember(moves, version, state.current_player or 0, state, action, after)
        actions.append(action)
        state = after
    assert [m.version for m in moves] == list(range(21 - KEEP, 21))
    record = GameRecord(num_players=3, config=config, seed=4, actions=tuple(actions))
    assert replay(record, 20) == moves
    loaded: list[Move] = []
    assert recent(loaded, 20, lambda: record) == moves and loaded == moves
    entries = worded(moves, 1, "fr")
    assert [e["version"] for e in entries] == list(range(21 - KEEP, 21))
    assert all(e["text"].endswith(".") and e["round"] >= 1 for e in entries)
    assert recent([], 0, lambda: record) == []


def test_the_spectators_picture_is_never_none_and_shows_no_private_card() -> None:
    both_private = 0
    for steps in games(12, 2, seed=7):
        for state, _ in steps:
            if state.phase is not Phase.HOLD_TAKEN:
                continue
            svg = seat_svg(state, None, "en")
            assert svg.startswith("<?xml") and svg.count("<g") == svg.count("</g>")
            values = dict(
                re.findall(r'class="(held-card|hand-card)"(?: data-value="(-?\d+)")?', svg)
            )
            if state.held_was_face_down:
                assert values["held-card"] == ""
            if state.hand_was_face_down:
                assert values["hand-card"] == ""
            if len(private_seats(state)) == 2:
                both_private += 1
    assert both_private > 0


def test_the_log_names_the_seats_as_the_badges_do() -> None:
    """A bot by its kind, a person by the name given at joining, the reader as "You"."""
    from allegra_rules.table_view import picture_names, seat_document

    state, moves = new_game(3, seed=4), []
    for version in range(1, 10):
        action = legal_actions(state)[0]
        after = apply(state, action)
        remember(moves, version, state.current_player or 0, state, action, after)
        state = after
    bots, names = {1: "greedy"}, {2: "Léa"}
    for lang in ("en", "de", "fr", "pl"):
        shown = picture_names(3, 0, lang, bots, names)
        log = seat_document(state, 0, version=9, moves=moves, lang=lang, bots=bots, names=names)
        plain = seat_document(state, 0, version=9, moves=moves, lang=lang)
        for named, entry in zip(log["log"], plain["log"], strict=True):
            if entry["seat"] in (1, 2):
                assert named["text"].startswith(shown[entry["seat"]]), named
            else:  # the reader's own moves read as before
                assert named["text"] == entry["text"]
        assert {e["seat"] for e in log["log"]} >= {0, 1, 2}
