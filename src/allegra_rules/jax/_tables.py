"""The batched engine's constants: codes, dtypes, and the static tables of one game.

The bottom of the package: every other module reads its constants from here, and this
module reads them from the scalar engine. Action ids come from ``allegra_rules.encoding``
(``action_id_layout``, the fixed ids, ``GAP_CODE``), the seats' zone and own-grid masks
from ``allegra_rules.geometry``, and the knock window (who is asked, in which order,
when it closes) from ``allegra_rules.knocking``. They are numpy arrays and Python
numbers, computed once per ``(num_players, config)`` and built into the compiled
program as constants when a function is traced.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jax.numpy as jnp
import numpy as np

from allegra_rules.config import RuleConfig
from allegra_rules.encoding import (
    DISCARD_ID,
    DRAW_DECK_ID,
    DRAW_DISCARD_ID,
    GAP_CODE,
    KNOCK_ID,
    PASS_ID,
    action_id_layout,
    legal_action_mask,
)
from allegra_rules.features import Encoder, round_score_bounds
from allegra_rules.geometry import CELLS_PER_SEAT, COLS, ROWS, SHARED_COL, geometry
from allegra_rules.knocking import first_asked, knocking_applies, next_asked
from allegra_rules.state import Phase
from allegra_rules.transitions import ROUNDS, new_game

# Phase codes: the position of each member in ``tuple(allegra_rules.Phase)``.
SETUP, DRAW, KNOCK, HOLD_DECK, HOLD_DISCARD, FLIP, KNOCKER_SWAP, TAKE, HOLD_TAKEN, OVER = range(10)
assert tuple(p.name for p in Phase) == (
    "SETUP",
    "DRAW",
    "KNOCK",
    "HOLD_DECK",
    "HOLD_DISCARD",
    "FLIP",
    "KNOCKER_SWAP",
    "TAKE",
    "HOLD_TAKEN",
    "OVER",
)
NUM_PHASES = len(Phase)
"""How many phases there are (the one-hot width of the phase in an observation)."""

NONE = -1
"""A seat or cell field that holds nothing (``None`` in a ``GameState``)."""

GAP = GAP_CODE
"""The int8 code of a gap (an empty cell): ``allegra_rules.encoding.GAP_CODE``."""

I8, I16, I32 = jnp.int8, jnp.int16, jnp.int32
F32 = jnp.float32

__all__ = [
    "DISCARD_ID",
    "DRAW",
    "DRAW_DECK_ID",
    "DRAW_DISCARD_ID",
    "F32",
    "FLIP",
    "GAP",
    "HOLD_DECK",
    "HOLD_DISCARD",
    "HOLD_TAKEN",
    "I8",
    "I16",
    "I32",
    "KNOCK",
    "KNOCKER_SWAP",
    "KNOCK_ID",
    "NONE",
    "NUM_PHASES",
    "OVER",
    "PASS_ID",
    "ROUNDS",
    "SETUP",
    "TAKE",
    "StaticTables",
    "tables",
]


def _check_zone_layout(num_players: int) -> None:
    """Check that geometry's zone rows are the batched engine's rolled layout.

    The engine reads a zone row of every seat at once as the left neighbour's shared
    column rolled one seat back, then the seat's own columns (static slices of the
    ``(n, ROWS, COLS)`` grid): fast under ``vmap``. This is geometry's ``zone_rows``.
    """
    grid = np.arange(num_players * CELLS_PER_SEAT).reshape(num_players, ROWS, COLS)
    shared = np.roll(grid[:, :, SHARED_COL], -1, axis=0)[:, :, None]
    rolled = np.concatenate([shared, grid], axis=-1).reshape(-1, COLS + 1)
    if rolled.tolist() != [list(r) for r in geometry(num_players).zone_rows]:
        raise AssertionError("the batched engine's zone layout is not geometry's zone rows")


def _bool_masks(masks: tuple[int, ...], cells: int) -> np.ndarray[Any, Any]:
    """Bit masks (one int per seat) as a bool ``(seats, cells)`` array."""
    return np.array([[(m >> i) & 1 for i in range(cells)] for m in masks], bool)


class StaticTables:
    """The static tables of one seat count and config: everything a traced step reads.

    Built once per ``(num_players, config)`` by [`tables`][allegra_rules.jax._tables.tables]
    and kept as the static part of every ``State`` of that game (its ``_spec``), so the
    observation of a state needs nothing else. Two tables of the same seat count and
    config are equal and hash alike.

    Attributes:
        config: the rules.
        num_players: the seat count (also ``n``).
        num_cells: cells on the table, ``12 * num_players``.
        deck_size: cards in the deck: the length of each pile array.
        num_actions: ``encoding.num_distinct_actions(num_players)``.
        ids: ``encoding.action_id_layout(num_players)``: the first id of each kind.
        cards: the config's deck, int8, in ascending order.
        zone, own: bool ``(n, cells)``: each seat's zone and own grid (``geometry``'s
            ``zone_masks`` and ``own_masks``).
        knock_window: whether a ``DrawDeck()`` opens a knock window
            (``knocking.knocking_applies``).
        first_asked: int8 ``(n,)``: by drawer, the seat asked first.
        after_pass, after_knock: int8 ``(n * n,)``: at ``drawer * n + asked``, the seat
            asked after ``asked`` passes (knocks), ``NONE`` when that closes the window
            (``knocking.next_asked``).
        fresh_mask: the legal-action mask of every new game (the scalar engine's).
        reward_mid, reward_span: the round-score bounds' middle and width, for rewards.
        values, copies: the deck's distinct values and their counts (the features').
        value_index: int32 ``(256,)``: at ``card + 128``, the card's place in ``values``.
        total_lo, total_span, setup_lo, setup_span: the features' scaling of totals and
            setup sums.
    """

    def __init__(self, num_players: int, config: RuleConfig) -> None:
        n = num_players
        geo = geometry(n)
        c = geo.num_cells
        _check_zone_layout(n)
        self.config = config
        self.num_players = n
        self.n = n
        self.num_cells = c
        self.deck_size = config.deck_size
        self.ids = action_id_layout(n)
        self.num_actions = self.ids.end
        self.cards = np.asarray(config.deck_cards(), np.int8)
        self.zone = _bool_masks(geo.area_masks("zone"), c)
        self.own = _bool_masks(geo.area_masks("own"), c)
        self.knock_window = knocking_applies(config, n)
        self.first_asked = np.array([first_asked(d, n) for d in range(n)], np.int8)

        def after(knocked: bool) -> np.ndarray[Any, Any]:
            out = np.full(n * n, NONE, np.int8)
            for d in range(n):
                for a in range(n):
                    if a != d:
                        nxt = next_asked(config, n, d, a, knocked)
                        out[d * n + a] = NONE if nxt is None else nxt
            return out

        self.after_pass = after(False)
        self.after_knock = after(True)
        self.fresh_mask = np.array(legal_action_mask(new_game(n, config=config)), bool)
        low, high = round_score_bounds(config)
        self.reward_mid = (low + high) / 2
        self.reward_span = float(high - low)
        enc = Encoder(config, n)
        self.values = np.asarray(enc.values)
        self.copies = np.asarray(enc.copies, np.float32)
        lookup = np.zeros(256, np.int32)
        for i, value in enumerate(self.values):
            lookup[int(value) - GAP] = i
        self.value_index = lookup
        self.total_lo, self.total_span = enc._total_lo, enc._total_span
        self.setup_lo, self.setup_span = enc._setup_lo, enc._setup_span
        self._key = (n, config)
        self._hash = hash(self._key)

    def area(self, which: str) -> np.ndarray[Any, Any]:
        """The bool ``(n, cells)`` masks of an area option's value, ``"zone"`` or ``"own"``."""
        if which == "zone":
            return self.zone
        if which == "own":
            return self.own
        raise ValueError(f'an area is "zone" or "own"; got {which!r}')

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, StaticTables) and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"tables({self.num_players}, config fingerprint {self.config.fingerprint[:12]})"


@cache
def tables(num_players: int, config: RuleConfig) -> StaticTables:
    """The ``StaticTables`` of ``num_players`` seats under ``config``.

    Built once per seat count and config (cached).
    """
    return StaticTables(num_players, config)
