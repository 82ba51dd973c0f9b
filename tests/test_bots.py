"""The computer players of ``allegra_rules.bots``.

Legality, determinism per seed, never reading hidden information (a choice must not
change when only cards the seat cannot see change), a few hand-worked heuristic
choices on stacked decks, and GreedyBot beating RandomBot.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from allegra_rules import (
    Action,
    DrawDeck,
    DrawDiscard,
    GameState,
    Give,
    Knock,
    Pass,
    Phase,
    Pos,
    Reveal,
    RuleConfig,
    Swap,
    apply,
    legal_actions,
    new_game,
    preset,
)
from allegra_rules.bots import Bot, GreedyBot, RandomBot
from helpers import Grid, forged, game, play, setup_reveals

G0: Grid = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 0))
G1: Grid = ((2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 0, -1))
G2: Grid = ((3, 4, 5, 6), (7, 8, 9, 10), (11, 0, -1, 1))
T3 = {0: G0, 1: G1, 2: G2}

BotMaker = Callable[[int], Bot]


def play_game(
    n: int, seed: int, makers: Sequence[BotMaker], config: RuleConfig | None = None
) -> tuple[GameState, list[Action]]:
    """One game, seat p played by ``makers[p](seed * 10 + p)``; checks every choice is legal."""
    bots = [make(seed * 10 + seat) for seat, make in enumerate(makers)]
    state = new_game(n, config=config, seed=seed)
    actions: list[Action] = []
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        action = bots[seat].choose(state)
        assert action in legal_actions(state), (action, state.phase)
        actions.append(action)
        state = apply(state, action)
    return state, actions


# ------------------------------------------------------------ basics, legality


def test_bots_follow_the_protocol() -> None:
    assert isinstance(RandomBot(1), Bot)
    assert isinstance(GreedyBot(1), Bot)
    assert repr(GreedyBot(4)) == "GreedyBot(seed=4)"
    assert repr(RandomBot(5)) == "RandomBot(seed=5)"


@pytest.mark.parametrize("preset_name", ["seeds", "fr", "published"])
@pytest.mark.parametrize("n", [2, 3, 6])
def test_bots_only_choose_legal_actions_and_finish_games(preset_name: str, n: int) -> None:
    makers: list[BotMaker] = [GreedyBot if seat % 2 == 0 else RandomBot for seat in range(n)]
    state, actions = play_game(n, 7, makers, preset(preset_name))
    assert state.is_terminal
    assert len(state.round_scores) == 3
    assert len(actions) > 20 * n


def test_bots_refuse_a_finished_game() -> None:
    state, _ = play_game(2, 1, [GreedyBot, GreedyBot])
    for bot in (RandomBot(0), GreedyBot(0)):
        with pytest.raises(ValueError, match="the game is over"):
            bot.choose(state)


def test_random_bot_is_uniform_over_the_legal_actions() -> None:
    state = new_game(3, seed=2)
    legal = legal_actions(state)
    bot = RandomBot(9)
    counts = dict.fromkeys(legal, 0)
    for _ in range(1200):
        counts[bot.choose(state)] += 1
    assert len(legal) == 15
    assert min(counts.values()) > 40  # 80 expected per action


# --------------------------------------------------------------- determinism


@pytest.mark.parametrize("maker", [RandomBot, GreedyBot])
def test_same_seed_same_choices_other_seed_other_choices(maker: BotMaker) -> None:
    first = play_game(3, 4, [maker] * 3)
    again = play_game(3, 4, [maker] * 3)
    assert first == again

    def reseeded(seed: int) -> Bot:
        return maker(seed + 1)

    assert play_game(3, 4, [reseeded] * 3)[1] != first[1]


def test_bots_never_touch_the_global_random_generator() -> None:
    random.seed(123)
    before = random.getstate()
    play_game(3, 5, [GreedyBot, RandomBot, GreedyBot])
    assert random.getstate() == before


# ---------------------------------------------------------- hidden information


def _down(state: GameState, seats: set[int]) -> list[int]:
    return [
        i
        for i, v in enumerate(state.cells)
        if v is not None and state.face_down >> i & 1 and i // 12 in seats
    ]


def _exchange(state: GameState, cells: list[int]) -> GameState | None:
    """Two of ``cells`` (face down, different values) trade places."""
    for a in cells:
        for b in cells:
            if state.cells[a] != state.cells[b]:
                grid = list(state.cells)
                grid[a], grid[b] = grid[b], grid[a]
                return forged(state, cells=tuple(grid))
    return None


def hidden_variants(state: GameState) -> list[GameState]:
    """States the current player cannot tell from ``state``, every card conserved."""
    seat = state.current_player
    assert seat is not None
    others = set(range(state.num_players)) - {seat}
    out: list[GameState] = []
    for seats in (others, set(range(state.num_players))):
        variant = _exchange(state, _down(state, seats))
        if variant is not None:
            out.append(variant)
    if len(set(state.draw_pile)) > 1:
        out.append(forged(state, draw_pile=state.draw_pile[::-1]))
    down = _down(state, others)
    if down and state.draw_pile and state.cells[down[0]] != state.draw_pile[0]:
        grid = list(state.cells)
        pile = list(state.draw_pile)
        hidden = grid[down[0]]
        assert hidden is not None
        grid[down[0]], pile[0] = pile[0], hidden
        out.append(forged(state, cells=tuple(grid), draw_pile=tuple(pile)))
    for variant in out:
        assert variant.all_cards() == state.all_cards()
        assert variant != state
    return out


def _sample_states(count: int) -> list[GameState]:
    """States from random-play games (random play reaches every phase), every phase."""
    out: list[GameState] = []
    for n, seed in ((3, 31), (4, 32), (2, 33), (5, 34)):
        rng = random.Random(seed)
        state = new_game(n, seed=seed)
        while not state.is_terminal:
            out.append(state)
            state = apply(state, rng.choice(legal_actions(state)))
    return out[:: max(1, len(out) // count)]


def _uses_only_visible_information(make: BotMaker, states: list[GameState]) -> bool:
    for state in states:
        for variant in hidden_variants(state):
            if make(3).choose(variant) != make(3).choose(state):
                return False
    return True


@pytest.mark.parametrize("count", [250, pytest.param(700, marks=pytest.mark.slow)])
def test_greedy_bot_never_reads_face_down_cards_or_the_draw_pile(count: int) -> None:
    states = _sample_states(count)
    phases = {state.phase for state in states}
    assert phases >= set(Phase) - {Phase.OVER}
    assert _uses_only_visible_information(GreedyBot, states)


class PeekingBot:
    """A cheater: reveals its lowest face-down card, reading the hidden values."""

    def choose(self, state: GameState) -> Action:
        legal = legal_actions(state)
        reveals = [a for a in legal if isinstance(a, Reveal)]
        if reveals:
            return min(reveals, key=lambda a: (state.card(a.pos) or 0, a.pos))
        return legal[0]


def test_the_hidden_information_check_catches_a_cheater() -> None:
    states = [s for s in _sample_states(700) if s.phase in (Phase.SETUP, Phase.FLIP)]
    assert not _uses_only_visible_information(lambda _: PeekingBot(), states)


# ---------------------------------------------------------- heuristic choices


def test_greedy_takes_a_low_discard_and_puts_it_on_its_highest_card() -> None:
    state = game(3, T3, discard=-1, draw=[7])
    state = setup_reveals(state, {0: (Pos(0, 2, 2), Pos(0, 0, 0))})  # an 11 and a 1
    bot = GreedyBot(0)
    assert bot.choose(state) == DrawDiscard()
    state = play(state, [DrawDiscard()])
    assert bot.choose(state) == Swap(Pos(0, 2, 2))


def test_greedy_draws_from_the_pile_when_the_discard_is_high() -> None:
    state = setup_reveals(game(3, T3, discard=11, draw=[7]))
    assert GreedyBot(0).choose(state) == DrawDeck()


def test_greedy_completes_a_triple_of_a_high_value() -> None:
    grids = {0: ((9, 9, 1, 2), (3, 4, 6, 7), (8, 10, 11, 0)), 1: G1, 2: G2}
    state = game(3, grids, discard=9, draw=[7])
    state = setup_reveals(state, {0: (Pos(0, 0, 0), Pos(0, 0, 1))})
    bot = GreedyBot(0)
    assert bot.choose(state) == DrawDiscard()
    state = play(state, [DrawDiscard()])
    choice = bot.choose(state)
    # Any face-down cell of zone row 0 completes the row: seat 1's (0, 3) or own (0, 2/3).
    assert choice in {Swap(Pos(1, 0, 3)), Swap(Pos(0, 0, 2)), Swap(Pos(0, 0, 3))}
    after = apply(state, choice)
    assert after.card(Pos(0, 0, 0)) is None and after.card(Pos(0, 0, 1)) is None


@pytest.mark.parametrize(("drawn", "expected"), [(1, Knock()), (2, Knock()), (6, Pass())])
def test_greedy_knocks_for_a_low_card_when_it_shows_a_high_one(
    drawn: int, expected: Action
) -> None:
    state = setup_reveals(game(3, T3, discard=3, draw=[drawn]))
    state = play(state, [DrawDeck()])
    assert state.current_player == 1  # seat 1 shows its 10 and 11
    assert GreedyBot(0).choose(state) == expected


def test_greedy_does_not_knock_without_a_high_card() -> None:
    state = game(3, T3, discard=3, draw=[1])
    state = setup_reveals(state, {1: (Pos(1, 0, 0), Pos(1, 0, 1))})  # seat 1 shows 2 and 3
    state = play(state, [DrawDeck()])
    assert GreedyBot(0).choose(state) == Pass()


@pytest.mark.parametrize(("drawn", "gives"), [(6, True), (1, False)])
def test_greedy_gives_only_for_a_clearly_better_card(drawn: int, gives: bool) -> None:
    state = game(3, T3, discard=3, draw=[drawn])
    picks = {0: (Pos(0, 2, 2), Pos(0, 2, 1)), 1: (Pos(1, 2, 2), Pos(1, 2, 0))}
    state = setup_reveals(state, picks)  # seat 0 shows 11 and 10; seat 1 shows a 0
    state = play(state, [DrawDeck(), Knock(), Pass()])
    choice = GreedyBot(0).choose(state)
    if gives:
        # Keeping the 6 gains 5 (on the 11); taking seat 1's 0 gains 11.
        assert choice == Give(1)
    else:
        assert choice == Swap(Pos(0, 2, 2))


# ------------------------------------------------------------ playing strength


@pytest.mark.parametrize(
    ("games", "least_wins"), [(12, 10), pytest.param(30, 25, marks=pytest.mark.slow)]
)
def test_greedy_beats_random_in_three_player_games(games: int, least_wins: int) -> None:
    greedy_totals: list[int] = []
    random_totals: list[int] = []
    for seed in range(games):
        greedy_seat = seed % 3
        makers: list[BotMaker] = [
            GreedyBot if seat == greedy_seat else RandomBot for seat in range(3)
        ]
        state, _ = play_game(3, 100 + seed, makers)
        for seat, total in enumerate(state.totals):
            (greedy_totals if seat == greedy_seat else random_totals).append(total)
    greedy_mean = sum(greedy_totals) / len(greedy_totals)
    random_mean = sum(random_totals) / len(random_totals)
    assert greedy_mean < random_mean / 2, (greedy_mean, random_mean)
    pairs = zip(random_totals[::2], random_totals[1::2], strict=True)
    wins = sum(g < min(r) for g, r in zip(greedy_totals, pairs, strict=True))
    assert wins >= least_wins
