"""The engine's contract: API names, input errors, immutability, determinism, legality."""

from __future__ import annotations

import random
from collections import Counter

import attrs
import pytest

import allegra_rules as ar
from allegra_rules import (
    DrawDeck,
    GameState,
    Give,
    IllegalActionError,
    Knock,
    Pass,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    Swap,
    Take,
    apply,
    legal_actions,
    new_game,
    preset,
)
from helpers import all_actions, cards_of, snapshot

API_NAMES = [
    "RuleConfig",
    "preset",
    "new_game",
    "legal_actions",
    "apply",
    "IllegalActionError",
    "GameState",
    "Pos",
    "Reveal",
    "DrawDeck",
    "DrawDiscard",
    "Knock",
    "Pass",
    "Give",
    "Swap",
    "Discard",
    "Take",
]


@pytest.mark.rule("R17.1", "R17.2")
def test_api_names_are_exported() -> None:
    for name in API_NAMES:
        assert hasattr(ar, name), name
        assert name in ar.__all__, name
    assert issubclass(IllegalActionError, ValueError)


def random_states(n: int, seed: int, limit: int = 400) -> list[GameState]:
    rng = random.Random(seed)
    state = new_game(n, seed=seed)
    out = [state]
    while not state.is_terminal and len(out) < limit:
        state = apply(state, rng.choice(legal_actions(state)))
        out.append(state)
    return out


# ----------------------------------------------------------------- bad input


@pytest.mark.rule("R1.2")
@pytest.mark.parametrize("n", [0, 1, 7, 10, -2])
def test_new_game_rejects_seat_counts_the_config_does_not_allow(n: int) -> None:
    with pytest.raises(ValueError, match=r"num_players must be 2\.\.6") as info:
        new_game(n)
    assert "min_players..max_players" in str(info.value)


@pytest.mark.rule("R1.2")
def test_new_game_rejects_seat_counts_the_deck_cannot_deal() -> None:
    small = RuleConfig(deck={1: 20, 2: 20}, max_players=6)
    new_game(3, config=small)  # 38 cards are enough for 3
    with pytest.raises(ValueError, match="needs a deck of at least 50 cards") as info:
        new_game(4, config=small)
    assert "RuleConfig.deck has 40" in str(info.value)


@pytest.mark.rule("R1.2")
@pytest.mark.parametrize("bad", [True, 2.0, "3", None])
def test_new_game_rejects_non_int_seat_counts(bad: object) -> None:
    with pytest.raises(ValueError, match="num_players must be an int"):
        new_game(bad)  # type: ignore[arg-type]


@pytest.mark.rule("R3.2")
def test_new_game_rejects_bad_seed_and_config() -> None:
    with pytest.raises(ValueError, match="seed must be an int"):
        new_game(3, seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an int"):
        new_game(3, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="config must be a RuleConfig"):
        new_game(3, config={"knocking": "never"})  # type: ignore[arg-type]


@pytest.mark.rule("R3.3")
def test_new_game_rejects_a_deck_that_is_not_the_configs_cards() -> None:
    config = RuleConfig()
    deck = list(config.deck_cards())
    with pytest.raises(ValueError, match=r"it has 119 \(missing 1x 11\)"):
        new_game(3, deck=deck[:-1])
    with pytest.raises(ValueError, match=r"extra 1x 5; missing 1x 11"):
        new_game(3, deck=[*deck[:-1], 5])
    with pytest.raises(ValueError, match="must hold int card values"):
        new_game(3, deck=[*deck[:-1], "11"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="list or tuple of card values"):
        new_game(3, deck="1234")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="list or tuple of card values"):
        new_game(3, deck=Counter(deck))  # type: ignore[arg-type]


@pytest.mark.rule("R1.3")
def test_pos_validation() -> None:
    with pytest.raises(ValueError, match=r"Pos.row must be 0..2; got 3"):
        Pos(0, 3, 0)
    with pytest.raises(ValueError, match=r"Pos.col must be 0..3; got -1"):
        Pos(0, 0, -1)
    with pytest.raises(ValueError, match=r"Pos.player must be 0..63; got -1"):
        Pos(-1, 0, 0)
    with pytest.raises(ValueError, match=r"Pos\.row must be an int 0..2; got 1.0 \(float\)"):
        Pos(0, 1.0, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"Pos\.player must be an int 0..63; got True \(bool\)"):
        Pos(True, 0, 0)
    assert sorted([Pos(1, 0, 0), Pos(0, 2, 3), Pos(0, 2, 1)]) == [
        Pos(0, 2, 1),
        Pos(0, 2, 3),
        Pos(1, 0, 0),
    ]
    assert hash(Pos(1, 2, 3)) == hash(Pos(1, 2, 3))


# ---------------------------------------------------- immutability, determinism


@pytest.mark.rule("R17.2")
def test_states_are_frozen() -> None:
    state = new_game(3)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.round = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        state.extra = 1  # type: ignore[attr-defined]


@pytest.mark.rule("R17.2")
@pytest.mark.parametrize("n", [2, 4, 6])
def test_apply_never_changes_its_argument(n: int) -> None:
    rng = random.Random(n)
    state = new_game(n, seed=n)
    while not state.is_terminal:
        before = snapshot(state)
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        assert snapshot(state) == before
        assert after is not state
        assert after.all_cards() == cards_of(after)
        state = after


@pytest.mark.rule("R18.1", "R3.2")
def test_same_arguments_same_game_and_no_global_random_state() -> None:
    def run(seed: int) -> GameState:
        rng = random.Random(99)
        state = new_game(4, seed=seed)
        while not state.is_terminal:
            random.seed(rng.random())  # disturbing the global generator changes nothing
            state = apply(state, rng.choice(legal_actions(state)))
        return state

    assert run(5) == run(5)
    assert run(5) != run(6)
    assert new_game(4, seed=5) == new_game(4, seed=5)
    assert new_game(4, seed=5).cells != new_game(4, seed=6).cells
    assert new_game(4) == new_game(4, seed=0)


@pytest.mark.rule("R3.1", "R3.2", "R18.1")
def test_explicit_deck_without_seed_is_deterministic() -> None:
    deck = list(RuleConfig().deck_cards())
    random.Random(3).shuffle(deck)
    a = new_game(3, deck=deck)
    b = new_game(3, deck=list(deck))
    assert a == b
    assert a.cells == tuple(deck[:36])
    assert a.discard_pile == (deck[36],)
    assert a.draw_pile == tuple(deck[37:])
    other = list(deck)
    other[-1], other[-2] = other[-2], other[-1]
    if other != deck:
        assert new_game(3, deck=other).seed != a.seed


# ------------------------------------------------------------------- legality


@pytest.mark.rule("R17.1", "R17.2")
@pytest.mark.parametrize(("n", "seed"), [(2, 1), (3, 2), (5, 3)])
def test_exactly_the_listed_actions_apply(n: int, seed: int) -> None:
    universe = all_actions(n)
    for state in random_states(n, seed, limit=150):
        legal = legal_actions(state)
        assert len(set(legal)) == len(legal)
        for action in universe:
            before = snapshot(state)
            if action in legal:
                apply(state, action)
            else:
                with pytest.raises(IllegalActionError) as info:
                    apply(state, action)
                assert info.value.action == action
                assert repr(action) in str(info.value)
                assert info.value.reason
            assert snapshot(state) == before


@pytest.mark.rule("R17.1")
def test_hand_built_actions_equal_interned_ones() -> None:
    state = new_game(3)
    built = Reveal(Pos(0, 1, 2))
    assert built in legal_actions(state)
    assert apply(state, built) == apply(state, legal_actions(state)[6])


@pytest.mark.rule("R17.2")
def test_illegal_action_messages_say_why() -> None:
    state = new_game(3, seed=4)
    with pytest.raises(IllegalActionError, match="phase 'setup' expects Reveal"):
        apply(state, DrawDeck())
    with pytest.raises(IllegalActionError, match="not in seat 0's zone"):
        apply(state, Reveal(Pos(2, 0, 0)))
    with pytest.raises(IllegalActionError, match="names seat 5"):
        apply(state, Reveal(Pos(5, 0, 0)))
    after = apply(state, Reveal(Pos(0, 0, 0)))
    with pytest.raises(IllegalActionError, match="already face up"):
        apply(after, Reveal(Pos(0, 0, 0)))
    with pytest.raises(IllegalActionError, match="not an allegra_rules action"):
        apply(state, "reveal")  # type: ignore[arg-type]


@pytest.mark.rule("R17.1", "R16.2")
def test_legal_actions_empty_exactly_at_terminal() -> None:
    for state in random_states(3, 11, limit=100_000):
        assert (legal_actions(state) == ()) == state.is_terminal
        assert (state.current_player is None) == state.is_terminal
    assert state.is_terminal
    assert state.phase is Phase.OVER
    with pytest.raises(IllegalActionError, match="the game is over"):
        apply(state, DrawDeck())


@pytest.mark.rule("R19.3")
def test_the_published_preset_plays() -> None:
    state = new_game(2, config=preset("published"), seed=3)
    state = apply(state, legal_actions(state)[0])
    assert state.config == preset("published@1")


@pytest.mark.rule("R9.2", "R9.3")
def test_knock_exchange_remembers_which_moved_cards_were_face_down() -> None:
    from helpers import game, play, setup_reveals

    state = setup_reveals(game(3, draw=[4]))
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1)])
    assert not state.hand_was_face_down
    up = Pos(1, 2, 0)  # revealed in setup
    state = play(state, [Swap(up)])
    assert state.in_hand[0][0] == 1
    assert not state.hand_was_face_down
    state = play(state, [Take(Pos(1, 0, 0))])  # face down until now
    assert state.held_was_face_down
    assert state.held is not None
    state = play(state, [Swap(Pos(0, 0, 0))])
    assert not state.held_was_face_down
    assert not state.hand_was_face_down

    state = setup_reveals(game(3, draw=[4]))
    state = play(state, [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 1, 1))])
    assert state.hand_was_face_down
    state = play(state, [Take(Pos(1, 2, 1))])  # face up since setup
    assert not state.held_was_face_down
    assert state.hand_was_face_down
