"""``allegra-rules play`` asks before every move of the person's that ends the round.

Random games, biased towards knocks and gives, are searched for decisions where a move
ends the round, by every path: a reveal, a swap of a drawn or a discard-pile card, the
knocker's swap after a knock (which settles only after the drawer's exchange), the
drawer's swap after a take, and a discard that leaves only round-ending reveals. For
each, the truth is found by playing the move (and the rest of the exchange) on the real
state; the question must be asked, and a twin state that differs only in cards the seat
cannot see must get the same question, word for word.
"""

from __future__ import annotations

import io
import random

from allegra_rules import apply, legal_actions, new_game, observe
from allegra_rules.actions import Action, Discard, Give, Knock, Reveal, Swap
from allegra_rules.cli import _play
from allegra_rules.determinize import determinize
from allegra_rules.state import GameState, Phase


def _ends(state: GameState, action: Action) -> bool:
    """Whether ``action`` ends the round, whatever the others then do in the same turn."""
    after = apply(state, action)
    turn = state.turns_played
    for pick in range(3):  # a few continuations of the exchange, all must agree
        s = after
        rng = random.Random(pick)
        while s.round == state.round and s.ender is None and s.turns_played == turn:
            if s.phase is Phase.DRAW:
                break
            s = apply(s, rng.choice(legal_actions(s)))
        if s.round == state.round and s.ender is None:
            return False
        if s.round != state.round and s.ender is None and not s.is_terminal:
            # A capped round (A30) ends without an ender: no doubling to warn about.
            return False
    return True


def _path(state: GameState, action: Action) -> str | None:
    """The round-ending path ``action`` takes at ``state``, or ``None`` if it does not."""
    if isinstance(action, Discard):
        after = apply(state, action)
        following = legal_actions(after)
        same_turn = after.current_player == state.current_player and after.round == state.round
        if same_turn and following and all(_ends(after, move) for move in following):
            return "discard, then only round-ending reveals"
        return None
    if not isinstance(action, (Reveal, Swap)) or not _ends(state, action):
        return None
    if isinstance(action, Reveal):
        return "reveal"
    return f"swap in {state.phase.name}"


def _pick(state: GameState, rng: random.Random) -> Action:
    legal = legal_actions(state)
    eager = [a for a in legal if isinstance(a, (Knock, Give))]
    return rng.choice(eager) if eager and rng.random() < 0.7 else rng.choice(legal)


PATHS = {
    "reveal",
    "swap in HOLD_DECK",
    "swap in HOLD_DISCARD",
    "swap in KNOCKER_SWAP",
    "swap in HOLD_TAKEN",
    "discard, then only round-ending reveals",
}


def test_every_round_ending_move_asks_and_twins_get_the_same_question() -> None:
    found: dict[str, int] = {}
    for seed in range(40):
        rng = random.Random(seed)
        state = new_game(2 + seed % 2, seed=seed)
        while not state.is_terminal and state.round == 1:
            you = state.current_player
            assert you is not None
            legal = legal_actions(state)
            for action in legal:
                path = _path(state, action)
                if path is None or found.get(path, 0) >= 3:
                    continue
                warning = _play.round_end_warning(state, action, you)
                if all(_ends(state, a) for a in legal):
                    assert warning == []  # nothing to choose: the move that led here asked
                    continue
                assert warning, (path, action, state.phase)
                assert warning[0].startswith("Careful: ")
                twin = determinize(observe(state, you), random.Random(seed + 99))
                assert twin != state or not observe(state, you).unseen_cards()
                assert _play.round_end_warning(twin, action, you) == warning
                found[path] = found.get(path, 0) + 1
            state = apply(state, _pick(state, rng))
        if all(found.get(path, 0) >= 3 for path in PATHS):
            break
    assert set(found) == PATHS, found


def test_the_swap_after_a_knock_that_ends_the_round_asks_in_the_session() -> None:
    """The issue's doubled round: the knocker's last swap is now asked about."""
    for seed in range(80):
        rng = random.Random(seed)
        state = new_game(2, seed=seed)
        while not state.is_terminal and state.round == 1:
            you = state.current_player
            assert you is not None
            if state.phase is Phase.KNOCKER_SWAP:
                ending = [a for a in legal_actions(state) if _ends(state, a)]
                if ending and len(ending) < len(legal_actions(state)):
                    out = io.StringIO()
                    session = _play._Session(you, io.StringIO("n\n"), out, echo=True)
                    assert not session.confirm(state, ending[0])
                    text = out.getvalue()
                    assert "Careful: this move leaves every card of " in text
                    assert "Not played." in text
                    return
            state = apply(state, _pick(state, rng))
    raise AssertionError("no knocker's swap that ends the round was found")
