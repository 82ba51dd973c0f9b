"""The game states that the pictures of the guide and the rules pages show.

Every picture is a real engine state: a game dealt from a stacked deck
(``new_game(3, deck=...)``) and played with legal actions. Two games are played:

* the *story game*, followed through the guide from the deal to a triple: Ada
  (seat 0), Ben (seat 1) and Cleo (seat 2) set up, take turns, knock and exchange;
* the *scoring game*, another round, played until Ada turns up her last card, the
  others take their last turns and the round is scored.

``docs/generate.py`` draws each scene with ``render_svg`` (no status line, legend or
caption inside the picture: the page text explains it) and ``tests/test_docs.py``
checks that each scene shows what the guide says it shows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from allegra_rules import (
    Action,
    Discard,
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
    Take,
    apply,
    legal_actions,
    new_game,
)
from allegra_rules.state import trusted_evolve

NAMES = ("Ada", "Ben", "Cleo")
"""The players of both games, seats 0, 1 and 2 (Ben is Ada's left neighbour)."""

ADA, BEN, CLEO = 0, 1, 2

Grid = Sequence[Sequence[int]]


@dataclass(frozen=True)
class Scene:
    """One picture: a state and how to draw it."""

    name: str
    state: GameState
    seats: tuple[int, ...] | None = (BEN, ADA)
    highlight: tuple[Pos, ...] = ()
    zone_sums: bool = False
    piles: bool = True
    facts: Mapping[str, object] = field(default_factory=dict)
    """Numbers the guide's text states about this picture (checked by the tests)."""
    first: int = ADA
    """The seat drawn on top in the picture for narrow screens: the one its caption is about."""
    play_from: GameState | None = None
    """Where the picture's "Play from here" opens the play page when the picture is not
    itself a position of a game (None: ``state``): the scoring picture's finished table,
    every card face up, goes on from the next round's deal."""


def stacked_deck(
    grids: Mapping[int, Grid], *, discard: int, draw: Sequence[int], config: RuleConfig
) -> list[int]:
    """A whole deck in deal order: the grids row by row, the discard, the draw pile's top.

    The rest of the draw pile holds the remaining cards in ascending order.
    """
    pool = Counter(config.deck_cards())
    deck: list[int] = []
    for seat in sorted(grids):
        deck.extend(card for row in grids[seat] for card in row)
    deck.append(discard)
    deck.extend(draw)
    pool.subtract(deck)
    if any(count < 0 for count in pool.values()):
        raise ValueError(f"the stacked cards are not in the deck: {-pool}")
    return deck + sorted(pool.elements())


def play(state: GameState, actions: Iterable[Action]) -> GameState:
    """Apply each action, checking that the engine lists it as legal."""
    for action in actions:
        if action not in legal_actions(state):
            raise ValueError(f"{action!r} is not legal in phase {state.phase.value}")
        state = apply(state, action)
    return state


def nobody_knocks(state: GameState) -> GameState:
    """Everyone asked in the knock window passes."""
    while state.phase is Phase.KNOCK:
        state = apply(state, Pass())
    return state


# ----------------------------------------------------------------- the story game

STORY_GRIDS: dict[int, Grid] = {
    ADA: ((9, 7, 4, 8), (6, 3, 11, 5), (10, 1, 2, 0)),
    BEN: ((5, 10, 6, 4), (8, 0, 7, 3), (2, 11, 9, 6)),
    CLEO: ((3, 8, 1, 7), (11, 5, 2, 9), (6, 4, 10, 1)),
}
STORY_DISCARD = 1
STORY_DRAWS = (10, 8, -1, 11, 9, 4)
"""The draw pile's top cards: Ben's 10, Cleo's 8, Ada's -1, Ben's 11, Cleo's 9, Ada's 4."""


@dataclass(frozen=True)
class Story:
    """The states of the story game at every moment the guide shows."""

    dealt: GameState
    set_up: GameState
    ada_swapped: GameState
    ben_holds: GameState
    ben_turned_up: GameState
    knock: GameState
    step_1: GameState
    step_2: GameState
    step_3: GameState
    ada_holds_4: GameState
    triple_gone: GameState


@cache
def story() -> Story:
    """Play the story game."""
    config = RuleConfig()
    deck = stacked_deck(STORY_GRIDS, discard=STORY_DISCARD, draw=STORY_DRAWS, config=config)
    dealt = new_game(3, config=config, deck=deck, seed=2024)
    set_up = play(
        dealt,
        [
            # Ada turns up her 4 and, in her zone, Ben's 4 in his column 3.
            Reveal(Pos(ADA, 0, 2)), Reveal(Pos(BEN, 0, 3)),
            Reveal(Pos(BEN, 1, 1)), Reveal(Pos(BEN, 2, 0)),
            # Cleo turns up her 3 and, in her zone, Ada's 5 in Ada's column 3.
            Reveal(Pos(CLEO, 0, 0)), Reveal(Pos(ADA, 1, 3)),
        ],
    )  # fmt: skip
    # Turn 1, Ada: the 1 from the discard pile onto her face-down 9.
    ada_swapped = play(set_up, [DrawDiscard(), Swap(Pos(ADA, 0, 0))])
    # Turn 2, Ben: a 10 from the draw pile; nobody knocks; he discards it and turns
    # up his 5.
    ben_holds = nobody_knocks(play(ada_swapped, [DrawDeck()]))
    ben_turned_up = play(ben_holds, [Discard(), Reveal(Pos(BEN, 0, 0))])
    # Turn 3, Cleo: an 8 onto her face-down 11.
    cleo_done = play(nobody_knocks(play(ben_turned_up, [DrawDeck()])), [Swap(Pos(CLEO, 1, 0))])
    # Turn 4, Ada draws a -1; Ben knocks, Cleo does not.
    knock = play(cleo_done, [DrawDeck(), Knock(), Pass()])
    # Step 1: Ben puts the -1 on his 5 and takes the 5 into his hand.
    step_1 = play(knock, [Give(BEN), Swap(Pos(BEN, 0, 0))])
    # Step 2: Ada takes Ben's 0 ...
    step_2 = play(step_1, [Take(Pos(BEN, 1, 1))])
    # ... and swaps it for her face-down 8; step 3: Ben's 5 fills the hole.
    step_3 = play(step_2, [Swap(Pos(ADA, 0, 3))])
    # Turns 5 and 6: Ben and Cleo discard what they draw and turn up a card each.
    later = play(nobody_knocks(play(step_3, [DrawDeck()])), [Discard(), Reveal(Pos(BEN, 0, 1))])
    later = play(nobody_knocks(play(later, [DrawDeck()])), [Discard(), Reveal(Pos(CLEO, 2, 0))])
    # Turn 7: Ada draws a 4; her swap onto her face-down 7 makes three 4s in her row.
    ada_holds_4 = nobody_knocks(play(later, [DrawDeck()]))
    triple_gone = play(ada_holds_4, [Swap(Pos(ADA, 0, 1))])
    return Story(
        dealt=dealt,
        set_up=set_up,
        ada_swapped=ada_swapped,
        ben_holds=ben_holds,
        ben_turned_up=ben_turned_up,
        knock=knock,
        step_1=step_1,
        step_2=step_2,
        step_3=step_3,
        ada_holds_4=ada_holds_4,
        triple_gone=triple_gone,
    )


# --------------------------------------------------------------- the scoring game

SCORING_GRIDS: dict[int, Grid] = {
    ADA: ((3, 7, 1, 4), (8, 2, 6, 0), (5, 9, 2, 3)),
    BEN: ((1, 4, 0, 2), (6, 3, 5, -1), (2, 0, 4, 1)),
    CLEO: ((7, 5, 9, 3), (4, 8, 1, 6), (0, 6, 3, 10)),
}
SCORING_DISCARD = 11
"""Every card drawn is discarded: the grids stay as dealt until they are all face up."""

_CELL_ORDER = [(r, c) for r in range(3) for c in range(4)]


@dataclass(frozen=True)
class Scoring:
    """The states of the scoring game the guide shows."""

    ended: GameState
    """Ada has just turned up her last card: she ends the round."""
    last_cell: Pos
    scored: GameState
    """The next round's deal: ``scored.last_round`` is how the round ended."""


def _turn_up_next(state: GameState) -> GameState:
    """The drawer draws, nobody knocks, it discards and turns up its next own card."""
    seat = state.current_player
    assert seat is not None
    state = play(nobody_knocks(play(state, [DrawDeck()])), [Discard()])
    if state.phase is Phase.FLIP:
        target = next(
            Pos(seat, r, c) for r, c in _CELL_ORDER if not state.is_face_up(Pos(seat, r, c))
        )
        state = play(state, [Reveal(target)])
    return state


@cache
def scoring() -> Scoring:
    """Play the scoring game: everyone turns up one own card per turn, in reading order."""
    config = RuleConfig()
    deck = stacked_deck(SCORING_GRIDS, discard=SCORING_DISCARD, draw=(), config=config)
    state = new_game(3, config=config, deck=deck, seed=7)
    while state.phase is Phase.SETUP:
        seat = state.current_player
        assert seat is not None
        r, c = _CELL_ORDER[state.setup_reveals % 2]
        state = play(state, [Reveal(Pos(seat, r, c))])
    while state.ender is None:
        before = state
        state = _turn_up_next(state)
    last_cell = next(
        pos
        for pos in (Pos(ADA, r, c) for r, c in _CELL_ORDER)
        if state.is_face_up(pos) and not before.is_face_up(pos)
    )
    ended = state
    while state.round == 1:
        state = _turn_up_next(state)
    return Scoring(ended=ended, last_cell=last_cell, scored=state)


def round_end_table(state: GameState) -> GameState:
    """The table of the round that just ended, every card face up, for drawing only.

    After a round's last turn the engine deals the next round at once; the finished
    table is kept in ``state.last_round``. This copy puts it back on the table (no
    piles, nothing held) so that ``render_svg`` can draw it; it is never played, and no
    game reaches it, so it is built without the state checks.
    """
    last = state.last_round
    assert last is not None
    return trusted_evolve(
        state,
        cells=last.cells,
        face_down=0,
        held=None,
        in_hand=(),
        phase=Phase.DRAW,
        drawer=None,
        current_player=None,
    )


# --------------------------------------------------------------------- the scenes


@cache
def scenes() -> tuple[Scene, ...]:
    """Every picture of the guide (and of the rules page), in page order."""
    s = story()
    g = scoring()
    last = g.scored.last_round
    assert last is not None
    triple = (Pos(BEN, 0, 3), Pos(ADA, 0, 1), Pos(ADA, 0, 2))
    return (
        Scene("table.svg", s.triple_gone, seats=None, highlight=triple),
        Scene("guide-table.svg", s.dealt, seats=None),
        Scene(
            "guide-setup.svg",
            s.set_up,
            seats=None,
            highlight=tuple(
                Pos(p, r, c)
                for p, r, c in ((0, 0, 2), (1, 0, 3), (1, 1, 1), (1, 2, 0), (2, 0, 0), (0, 1, 3))
            ),
        ),
        Scene(
            "guide-turn-swap.svg",
            s.ada_swapped,
            highlight=(Pos(ADA, 0, 0),),
            facts={"taken": STORY_DISCARD, "replaced": 9},
        ),
        Scene("guide-turn-draw.svg", s.ben_holds, facts={"drawn": STORY_DRAWS[0]}, first=BEN),
        Scene(
            "guide-turn-discard.svg",
            s.ben_turned_up,
            highlight=(Pos(BEN, 0, 0),),
            facts={"discarded": STORY_DRAWS[0], "turned_up": 5},
            first=BEN,
        ),
        Scene("guide-knock.svg", s.knock, piles=False, facts={"drawn": STORY_DRAWS[2]}),
        Scene(
            "guide-knock-step-1.svg",
            s.step_1,
            highlight=(Pos(BEN, 0, 0),),
            piles=False,
            first=BEN,
        ),
        Scene("guide-knock-step-2.svg", s.step_2, highlight=(Pos(BEN, 1, 1),), piles=False),
        Scene(
            "guide-knock-step-3.svg",
            s.step_3,
            highlight=(Pos(ADA, 0, 3), Pos(BEN, 1, 1)),
            piles=False,
        ),
        Scene(
            "guide-triple.svg",
            s.ada_holds_4,
            highlight=(Pos(BEN, 0, 3), Pos(ADA, 0, 1), Pos(ADA, 0, 2)),
            piles=False,
        ),
        Scene("guide-triple-gaps.svg", s.triple_gone, highlight=triple, piles=False),
        Scene("guide-round-end.svg", g.ended, highlight=(g.last_cell,), piles=False),
        Scene(
            "guide-scoring.svg",
            round_end_table(g.scored),
            play_from=g.scored,
            seats=None,
            zone_sums=True,
            piles=False,
            facts={
                "zone_sums": last.zone_sums,
                "ender": last.ender,
                "doubled": last.doubled,
                "scores": last.scores,
            },
        ),
    )
