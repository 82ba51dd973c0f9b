"""Hypothesis property tests: invariants of every rule config along random legal play.

Configs are drawn with one ``st.sampled_from`` per option of
:data:`allegra_rules.config.OPTION_CHOICES` (every value of every option), sometimes a
small ``max_turns_per_round`` and sometimes a small custom deck of few values (many
triples, gaps and draw-pile refills); tables have 2 to 6 seats. After every action:

- the cards are exactly the config's deck (R2.2);
- zones overlap as documented and zone sums add up (R1.4, R15.1);
- no settled line holds a triple (R10.4, R11.1);
- within a round face-up cards never turn face down, and gaps are never refilled
  except the knock gap (R10.6, R9.4);
- ``legal_actions`` is empty exactly at the end, every listed action applies, unlisted
  ones raise ``IllegalActionError`` and leave the state unchanged (R17.1, R17.2);
- ``apply`` is pure and deterministic (R17.2, R18.2).

Whole games end within the turn cap of every round, replay from their seed and
actions, score as the rules say and name the lowest totals as winners.

The ``ci`` Hypothesis profile (tests/conftest.py) keeps this file well under a minute.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allegra_rules import (
    ROUNDS,
    Action,
    DrawDeck,
    DrawDiscard,
    GameState,
    IllegalActionError,
    Phase,
    Pos,
    RuleConfig,
    apply,
    legal_actions,
    new_game,
)
from allegra_rules.invariants import check_state
from allegra_rules.triples import find_triples
from helpers import all_actions, cards_of, snapshot, thorough_run
from random_games import tables

SETTLED = (Phase.SETUP, Phase.DRAW)
# Actions per example of the invariant test; mutation testing lowers it (CONTRIBUTING.md).
STEPS_PER_EXAMPLE = int(os.environ.get("ALLEGRA_PROPERTY_STEPS", "300"))
UNLISTED_PER_STEP = 2
# The invariant test is the longest of the default run (each example plays up to 300
# actions and applies every legal one twice): it runs 30 examples there, the other
# profiles' own number otherwise (2,000 in the thorough run).
INVARIANT_EXAMPLES = (
    settings.default.max_examples if thorough_run() else min(settings.default.max_examples, 30)
)


# ------------------------------------------------------------------- strategies


# --------------------------------------------------------------------- checks


def check_zones(state: GameState) -> None:
    n = state.num_players
    holders: Counter[Pos] = Counter()
    for p in range(n):
        zone = state.zone(p)
        own = [Pos(p, r, c) for r in range(3) for c in range(4)]
        assert len(zone) == len(set(zone)) == 15
        assert set(zone) == set(own) | {Pos((p + 1) % n, r, 3) for r in range(3)}
        holders.update(zone)
    for pos, count in holders.items():
        assert count == (2 if pos.col == 3 else 1), pos
    assert len(holders) == 12 * n
    grid = [state.card(Pos(p, r, c)) or 0 for p in range(n) for r in range(3) for c in range(4)]
    col3 = [state.card(Pos(p, r, 3)) or 0 for p in range(n) for r in range(3)]
    assert sum(state.zone_sum(p) for p in range(n)) == sum(grid) + sum(col3)


def check_step(before: GameState, after: GameState, deck: Counter[int]) -> None:
    """Invariants between two consecutive states.

    ``check_state`` is the library's one definition of a valid state (the loader uses
    it too); the assertions after it restate a few rules independently of it.
    """
    check_state(after)
    assert cards_of(after) == deck
    check_zones(after)
    if after.phase in SETTLED:
        assert not find_triples(after.config, after.cells, after.face_down, after.geometry.lines)
    if after.round != before.round:
        assert after.phase is Phase.SETUP and after.face_down == (1 << len(after.cells)) - 1
        return
    for i, (old, new) in enumerate(zip(before.cells, after.cells, strict=True)):
        was_up = old is not None and not (before.face_down >> i) & 1
        is_down = new is not None and (after.face_down >> i) & 1
        assert not (was_up and is_down), f"a face-up card at cell {i} turned face down"
        if old is None and new is not None:
            # Only the knock gap is ever refilled, by the drawer's swap ending the exchange.
            assert before.phase is Phase.HOLD_TAKEN and before.taken_at == i, i
    assert after.turns_played <= after.config.max_turns_per_round


def check_legality(state: GameState, data: st.DataObject, universe: list[Action]) -> None:
    legal = legal_actions(state)
    assert (legal == ()) == state.is_terminal == (state.current_player is None)
    assert len(set(legal)) == len(legal)
    before = snapshot(state)
    for action in legal:
        first = apply(state, action)
        assert first == apply(state, action)  # deterministic
    listed = set(legal)
    for _ in range(UNLISTED_PER_STEP):
        action = data.draw(st.sampled_from(universe), label="unlisted action")
        if action in listed:
            continue
        with pytest.raises(IllegalActionError):
            apply(state, action)
    assert snapshot(state) == before  # apply never changes its argument


# ---------------------------------------------------------------------- tests


@pytest.mark.rule(
    "R1.4", "R2.2", "R9.4", "R10.4", "R10.6", "R11.1", "R15.1", "R17.1", "R17.2", "R18.2"
)
@settings(max_examples=INVARIANT_EXAMPLES)
@given(table=tables(), data=st.data())
def test_invariants_hold_after_every_action(
    table: tuple[RuleConfig, int, int], data: st.DataObject
) -> None:
    config, n, seed = table
    deck = Counter(config.deck_cards())
    universe = all_actions(n)
    state = new_game(n, config=config, seed=seed)
    assert cards_of(state) == deck
    check_zones(state)
    for _ in range(STEPS_PER_EXAMPLE):
        check_legality(state, data, universe)
        if state.is_terminal:
            break
        legal = legal_actions(state)
        action = legal[data.draw(st.integers(0, len(legal) - 1), label="action index")]
        after = apply(state, action)
        check_step(state, after, deck)
        state = after


def expected_scores(
    config: RuleConfig, sums: tuple[int, ...], ender: int | None
) -> tuple[tuple[int, ...], bool]:
    """R15.2 written out independently of the engine: the scores and whether doubled."""
    if ender is None:
        return sums, False
    others = [s for seat, s in enumerate(sums) if seat != ender]
    mine = sums[ender]
    lowest = mine <= min(others) if config.ender_tie == "not_doubled" else mine < min(others)
    if lowest or (mine <= 0 and config.double_nonpositive == "no"):
        return sums, False
    scores = list(sums)
    scores[ender] *= 2
    return tuple(scores), True


def check_turn_end(before: GameState, after: GameState) -> None:
    """R13.1-R13.3 and R5.1 written out: who ends the round, who plays next."""
    n = after.num_players
    drawer = before.drawer
    assert drawer is not None
    geo = after.geometry
    area = geo.own if after.config.round_end == "own_grid" else geo.zone
    done = [p for p in range(n) if not any((after.face_down >> i) & 1 for i in area[p])]
    if before.ender is None:
        if done:
            ender = drawer if drawer in done else min(done, key=lambda p: (p - drawer) % n)
            assert after.ender == ender
            order = [(drawer + j) % n for j in range(1, n + 1)]
            assert after.final_turns == tuple(p for p in order if p != ender)
        else:
            assert after.ender is None and after.final_turns == ()
    else:
        assert after.ender == before.ender
        assert after.final_turns == before.final_turns[1:]
    if after.ender is None:
        assert after.current_player == (drawer + 1) % n
    else:
        assert after.current_player == after.final_turns[0]
    assert after.turns_played == before.turns_played


@pytest.mark.rule(
    "R5.1", "R13.1", "R13.2", "R13.3", "R14.1", "R15.1", "R15.2", "R15.3", "R16.1", "R16.2", "R18.2"
)
@given(table=tables(small_cap=True), picks=st.integers(0, 2**32))
def test_whole_games_end_within_the_cap_replay_and_score_by_the_rules(
    table: tuple[RuleConfig, int, int], picks: int
) -> None:
    config, n, seed = table
    rng = random.Random(picks)
    state = new_game(n, config=config, seed=seed)
    played: list[Action] = []
    turns = 0
    turns_per_round: list[int] = []
    ended_rounds: list[tuple[int | None, int]] = []
    while not state.is_terminal:
        action = rng.choice(legal_actions(state))
        if isinstance(action, DrawDeck | DrawDiscard):
            turns += 1
        before = state
        state = apply(state, action)
        played.append(action)
        if before.phase is not Phase.SETUP and state.phase is Phase.DRAW:
            check_turn_end(before, state)
        if state.round != before.round or state.is_terminal:
            turns_per_round.append(turns)
            turns = 0
            result = state.last_round
            assert result is not None and result.round == before.round
            ended_rounds.append((result.ender, turns_per_round[-1]))
            geo = state.geometry
            # A35: with scoring_triples="removed" the triples of the turned-up table leave.
            removed = []
            if config.scoring_triples == "removed":
                removed = find_triples(config, result.cells, 0, geo.lines)
            assert list(result.removed) == removed
            scored = [None if i in removed else v for i, v in enumerate(result.cells)]
            sums = tuple(
                sum(v for i in geo.zone[p] if (v := scored[i]) is not None) for p in range(n)
            )
            assert result.zone_sums == sums
            assert (result.scores, result.doubled) == expected_scores(config, sums, result.ender)
            if result.ender is not None:
                # A round that ended by itself: its ender was fixed and every final turn played.
                assert result.ender == before.ender and before.final_turns[1:] == ()
    assert len(turns_per_round) == ROUNDS
    assert all(t <= config.max_turns_per_round for t in turns_per_round)
    for (ender, turns_in_round), scores in zip(ended_rounds, state.round_scores, strict=True):
        assert len(scores) == n
        if ender is None:
            assert turns_in_round == config.max_turns_per_round  # only the cap ends it
    assert state.round == ROUNDS and state.current_player is None
    assert state.face_down == 0  # every card is shown at the end
    assert state.totals == tuple(map(sum, zip(*state.round_scores, strict=True)))
    assert state.winners == tuple(p for p, t in enumerate(state.totals) if t == min(state.totals))
    replay = new_game(n, config=config, seed=seed)
    for action in played:
        replay = apply(replay, action)
    assert replay == state
