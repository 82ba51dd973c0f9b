"""The help texts of ``allegra-rules play``: ``h``, ``h moves`` and ``h options``.

Each text fits one 80x24 screen. ``h options`` is written from the game's own
[`RuleConfig`][allegra_rules.config.RuleConfig], so it always tells the rules being played.
"""

from __future__ import annotations

import textwrap
from typing import Any

import attrs

from allegra_rules.config import RuleConfig

TOPICS = ("moves", "options")
"""The topics ``h TOPIC`` knows (``h`` alone gives the rules summary)."""


def summary_text(config: RuleConfig) -> str:
    """``h``: a turn, knocking, triples and the round end, on one screen."""
    knock = {
        "always": "the others are asked in turn, clockwise,",
        "three_or_more": "(with 3 or more players) the others are asked in turn",
        "never": "(never in this game) the others would be asked",
    }[config.knocking]
    whole = "grid" if config.round_end == "own_grid" else "zone (with the neighbour's column)"
    paragraphs = [
        "Allegra in one screen (h moves: how to type; h options: this game's rules)",
        "The lowest total after 3 rounds wins. Your zone: your 3x4 grid plus column 3 of "
        "your left neighbour (the next seat clockwise). ## is a face-down card.",
        "A TURN: draw from the draw pile (d) or take the discard pile's top (p). Swap the "
        "card in at a card of your zone (s ROW COL), which goes onto the discard pile; or, "
        "with a card from the draw pile, discard it (p) and turn up a card (r ROW COL).",
        f"KNOCKING: after a draw from the draw pile {knock} whether they want the card (k "
        "knock, x pass). The drawer may give it (g SEAT) to a knocker, who swaps it in, "
        "keeping the old card in hand; the drawer takes a card of the knocker's zone (t ROW "
        "COL) and swaps it into its own zone; the hand card fills the hole. A face-down card "
        "that moves is seen only by the player holding it, until it lies face up.",
        "TRIPLES: three equal face-up cards in a zone row (5 cards) or a grid column leave "
        "the table at once; the gaps stay empty.",
        f"ROUND END: when a player's whole {whole} is face up, every other player has one "
        "more turn. Then all cards turn up and each zone is summed (a shared column counts "
        "twice). The round-ender's sum is doubled unless it is the lowest; play asks before "
        "a move of yours ends the round. Another player's move that turns up your last "
        "face-down card (a swap into your column 3, an exchange) makes you the ender.",
    ]
    lines: list[str] = []
    for paragraph in paragraphs:
        lines += textwrap.wrap(paragraph, 80, subsequent_indent="  ")
    return "\n".join(lines) + "\n"


def moves_text() -> str:
    """``h moves``: the grammar of a typed move."""
    return """\
How to type a move (a cell is RC: its row then its column, counted from one):
  d            draw the top card of the draw pile
  p            take the discard pile's top card, or discard the card you drew
  k  /  x      knock for the drawn card  /  do not knock
  g WHO        give the drawn card to a player who knocked (g alone: the one)
  r RC         turn up a face-down card (in the setup, and after a discard)
  s RC         swap the card you hold in at that cell
  t RC         take a card from the knocker's zone (in a knock exchange)
A cell is one number: the row (1-3 from the top) then the column (1-4 from the
left) of your own grid, so 24 is row 2, column 4. For another player's grid put
the player first: pN (p2 is Player 2), or left / right for your neighbours
(after t the grid is the knocker's unless you name one).
Examples: r 31   s 24   s left 14   t p3 12   g p2
Or type a move's number (l lists them). The numbers never change: a grid's
cells are 1-12 row by row (1-4 the top row) and its left neighbour's column 4
is 13-15; d and k are 1, p and x are 2, discarding a drawn card 16, giving it
17 (18, ... for later knockers).
p RC does two moves in one line: take the discard pile's top and swap it in
there, or discard the card you drew and turn up that cell.
Other keys: h help, h moves, h options, l the numbered list, v the table with
its legend, m every action since your last move, a "ask me only when the
card could help me" on/off (said each time it answers for you), q quit.
With --save, q and the end of input (Ctrl-D) save the game.
"""


_OPTION_TEXT: dict[str, dict[str, str]] = {
    "reveal_area": {
        "zone": "Setup and discard reveals may turn up any face-down card of your zone.",
        "own": "Setup and discard reveals turn up a card of your own grid only.",
    },
    "first_player": {
        "rotate": "The first turn goes to the seat that started the setup (it rotates).",
        "highest_reveal": "The first turn goes to the highest sum of two setup cards.",
    },
    "discard_draw": {
        "must_swap": "A card taken from the discard pile must be swapped in.",
        "may_discard": "A card taken from the discard pile may be put back (then reveal).",
    },
    "swap_area": {
        "zone": "You may swap onto any card of your zone, the neighbour's column too.",
        "own": "You may swap only onto cards of your own grid.",
    },
    "knocking": {
        "always": "Players may knock for a card drawn from the draw pile.",
        "three_or_more": "Players may knock only when 3 or more play.",
        "never": "Nobody knocks.",
    },
    "knock_winner": {
        "drawer_chooses": "Everyone is asked; the drawer picks which knocker gets the card.",
        "first_clockwise": "Asking stops at the first knocker clockwise: only it can get the card.",
    },
    "take_given_card": {
        "allowed": "The drawer may take back the very card it gave.",
        "forbidden": "The drawer may not take back the card it gave.",
    },
    "take_area": {
        "zone": "The drawer takes from the knocker's whole zone.",
        "own": "The drawer takes from the knocker's own grid only.",
    },
    "row_match": {
        "anywhere": "Three equal face-up cards anywhere in a row or column make a triple.",
        "adjacent": "A triple in a row must be three equal cards side by side.",
    },
    "removed_cards": {
        "out_of_play": "Cards of a triple leave the game for the round.",
        "discard": "Cards of a triple go onto the discard pile.",
    },
    "round_end": {
        "own_grid": "The round ends when a player's own 12 cards are all face up.",
        "zone": "The round ends when all 15 cards of a player's zone are face up.",
    },
    "ender_tie": {
        "not_doubled": "A round-ender tied for the lowest sum is not doubled.",
        "doubled": "A round-ender must be strictly lowest, or it is doubled.",
    },
    "double_nonpositive": {
        "yes": "A round-ender's sum is doubled even when it is 0 or less.",
        "no": "A sum of 0 or less is never doubled.",
    },
    "scoring_triples": {
        "kept": "Triples that appear when the cards turn up at scoring still count.",
        "removed": "Triples that appear when the cards turn up at scoring are removed first.",
    },
    "setup_reveals": {
        "in_turn": "Setup cards are revealed one after another; everyone sees each one.",
        "simultaneous": "Setup cells are named face down and all turn up after the last.",
    },
}
"""What each value of each string option means at the table, in one line."""


def options_text(config: RuleConfig) -> str:
    """``h options``: every rule choice of this game, one line each."""
    lines = ["The rules of this game (allegra-rules rules lists every option):"]
    for field in attrs.fields(RuleConfig):
        name = field.name
        value: Any = getattr(config, name)
        if name in ("deck", "min_players", "max_players"):
            continue
        if name == "max_turns_per_round":
            lines.append(f"  A round stops after {value} turns if nobody ends it (nobody doubled).")
            continue
        sentence = _OPTION_TEXT.get(name, {}).get(str(value))
        if sentence is None:
            sentence = f"{field.metadata.get('doc', name)} Here: {value}."
        lines.append(f"  {sentence}")
    cards = sorted(card for card, _ in config.deck)
    lines.append(f"  The deck has {config.deck_size} cards from {cards[0]} to {cards[-1]}.")
    return "\n".join(lines) + "\n"
