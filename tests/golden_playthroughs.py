"""Golden playthroughs: seeded whole games written out as readable text.

Each game is played from ``new_game(n, config=preset(name), seed=seed)`` with actions
picked by ``random.Random(seed)`` (first an action kind, then one action of that kind,
so that discards, reveals and knock exchanges all show up), and written to
``tests/golden/playthroughs/<preset>-<n>p-seed<seed>.txt``: every action and the table
after it. ``tests/test_golden_playthroughs.py`` replays every game and compares.

A change of the rules or of the shuffle shows up as a diff of these files. When a
change is intended, regenerate them on purpose and review the diff:

    python tests/golden_playthroughs.py --regenerate

``python tests/golden_playthroughs.py --check`` compares without writing (exit 1 on
a difference). The text format is defined here and nowhere else (it does not use
``allegra_rules.render``), so that the files only change when the game does.
"""

from __future__ import annotations

import difflib
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from allegra_rules import Action, GameState, Phase, apply, legal_actions, new_game, preset

GOLDEN_DIR = Path(__file__).resolve().parent / "golden" / "playthroughs"

GAMES: tuple[tuple[str, int, int], ...] = (
    ("seeds", 2, 11),
    ("seeds", 3, 12),
    ("de", 2, 21),
    ("de", 3, 22),
    ("pl", 2, 31),
    ("pl", 3, 32),
    ("fr", 2, 41),
    ("fr", 3, 42),
    ("published", 2, 51),
    ("published", 3, 52),
)
"""``(preset, seats, seed)`` of every golden game."""

LEGEND = """\
Legend: each cell is its value; [ 5] lies face down, ' 5 ' lies face up, ' .  ' is a
gap. Rows r0..r2 show every seat's grid side by side (columns 0..3, column 3 is
shared with the right neighbour's zone). 'draw' is the draw pile (count and top card,
listed in full after every deal and refill, top first); 'discard' the discard pile
(count and up to its last 6 cards, top last)."""


def path_for(name: str, n: int, seed: int) -> Path:
    """The golden file of one game."""
    return GOLDEN_DIR / f"{name}-{n}p-seed{seed}.txt"


def _cell(state: GameState, i: int) -> str:
    value = state.cells[i]
    if value is None:
        return "  . "
    if (state.face_down >> i) & 1:
        return f"[{value:2d}]"
    return f" {value:2d} "


def _cards(cards: Sequence[int]) -> str:
    return " ".join(str(c) for c in cards) if cards else "-"


def format_table(state: GameState, *, full_draw: bool = False) -> list[str]:
    """The table as text lines: grids, piles, held and hand cards, totals."""
    n = state.num_players
    header = "      " + " | ".join(f"seat {p}".ljust(16) for p in range(n))
    lines = [header.rstrip()]
    for r in range(3):
        seats = []
        for p in range(n):
            seats.append("".join(_cell(state, p * 12 + r * 4 + c) for c in range(4)))
        lines.append(f"  r{r}  " + " | ".join(seats))
    draw = state.draw_pile
    top = f" (top {draw[0]})" if draw else ""
    discard = state.discard_pile
    shown = ("... " if len(discard) > 6 else "") + _cards(discard[-6:])
    held = "-" if state.held is None else str(state.held)
    hand = ", ".join(f"seat {p}: {c}" for p, c in state.in_hand) or "-"
    lines.append(
        f"      draw {len(draw)}{top} | discard {len(discard)}: {shown} | held {held}"
        f" | hand {hand} | out {_cards(state.out_of_play)}"
    )
    if full_draw:
        lines.append(f"      draw pile, top first: {_cards(draw)}")
    return lines


def _status(state: GameState) -> str:
    if state.is_terminal:
        return "game over"
    extra = ""
    if state.ender is not None:
        extra = f"; ender {state.ender}, final turns {list(state.final_turns)}"
    return (
        f"round {state.round}, {state.phase.value}, seat {state.current_player} to act, "
        f"turn {state.turns_played}{extra}"
    )


def _round_result(state: GameState) -> list[str]:
    result = state.last_round
    assert result is not None
    ender = "none (turn cap)" if result.ender is None else f"seat {result.ender}"
    return [
        f"== round {result.round} scored: zone sums {list(result.zone_sums)}, ender {ender}, "
        f"doubled {'yes' if result.doubled else 'no'}, scores {list(result.scores)}, "
        f"totals {list(state.totals)}"
    ]


def pick(rng: random.Random, legal: Sequence[Action]) -> Action:
    """An action kind uniformly, then one action of that kind uniformly."""
    kinds = sorted({type(a).__name__ for a in legal})
    kind = rng.choice(kinds)
    return rng.choice([a for a in legal if type(a).__name__ == kind])


def transcript(name: str, n: int, seed: int) -> str:
    """The whole text of one golden game."""
    config = preset(name)
    rng = random.Random(seed)
    state = new_game(n, config=config, seed=seed)
    lines = [
        f"Golden playthrough: preset {name!r} ({config.fingerprint[:16]}), {n} seats, seed {seed}",
        "Actions picked by random.Random(seed): an action kind, then an action of that kind.",
        "Regenerate on purpose with: python tests/golden_playthroughs.py --regenerate",
        "",
        LEGEND,
        "",
        f"-- deal of round 1: {_status(state)}",
        *format_table(state, full_draw=True),
    ]
    step = 0
    while not state.is_terminal:
        actor = state.current_player
        action = pick(rng, legal_actions(state))
        before = state
        state = apply(state, action)
        step += 1
        lines.append("")
        lines.append(f"#{step} seat {actor}: {action!r} -> {_status(state)}")
        new_round = state.round != before.round or state.is_terminal
        if new_round:
            lines.extend(_round_result(state))
            if not state.is_terminal:
                lines.append(f"-- deal of round {state.round}:")
        refilled = state.refills != before.refills and state.round == before.round
        lines.extend(
            format_table(state, full_draw=refilled or (new_round and not state.is_terminal))
        )
    lines.append("")
    lines.append(
        f"== game over after {step} actions: totals {list(state.totals)}, "
        f"round scores {[list(s) for s in state.round_scores]}, winners {list(state.winners)}"
    )
    assert state.phase is Phase.OVER
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> int:
    """``--regenerate`` writes every golden file; ``--check`` compares them."""
    if list(argv) not in (["--regenerate"], ["--check"]):
        print("usage: python tests/golden_playthroughs.py --regenerate | --check")
        return 2
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    status = 0
    for name, n, seed in GAMES:
        path = path_for(name, n, seed)
        text = transcript(name, n, seed)
        if argv[0] == "--regenerate":
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(GOLDEN_DIR.parent.parent.parent)} ({len(text)} bytes)")
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            old = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
            diff = difflib.unified_diff(old, text.splitlines(), str(path), "now", lineterm="")
            print("\n".join(list(diff)[:40]))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
