"""GreedyBot's rule as a pure JAX function of one table: training's opponent at batch speed.

[`greedy_scores`][allegra_rules.train._greedy.greedy_scores] gives every action id the
score that [`GreedyBot.score`][allegra_rules.bots.GreedyBot.score] gives it, computed from
what the acting seat may see (face-up cards, which cells are face down, the discard pile,
the cards out of play and the held card); the draw pile and every face-down card are never
read. [`greedy_action`][allegra_rules.train._greedy.greedy_action] plays the best legal
one, ties broken uniformly by a key (GreedyBot breaks them with its own generator).

The rules are mirrored exactly, with two differences of arithmetic only: the scores are
float32 (GreedyBot's are float64) and two scores within ``TIE`` of the best count as tied
(GreedyBot's margin is 1e-9). The option values of the config are read when the function
is traced; the options ``swap_area``, ``take_area``, ``reveal_area``, ``round_end``,
``discard_draw``, ``row_match`` (``"anywhere"``: three equal cards of a line;
``"adjacent"``: a run of three or more side by side) and ``double_nonpositive`` are
followed.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allegra_rules.bots import GreedyBot
from allegra_rules.encoding import (
    DISCARD_ID,
    DRAW_DECK_ID,
    DRAW_DISCARD_ID,
    KNOCK_ID,
    PASS_ID,
)
from allegra_rules.geometry import geometry
from allegra_rules.jax import State
from allegra_rules.jax._tables import GAP, KNOCK, SETUP, StaticTables

F32 = jnp.float32
TIE = 1e-4
"""Two scores closer than this count as tied (float32 arithmetic)."""
HINT_CLIP = GreedyBot.HINT_CLIP
"""The greedy hint's scores are clipped to plus or minus this many points."""
HINT_SCALE = GreedyBot.HINT_SCALE
"""... and then divided by this many points (``GreedyBot.hint``)."""
_NEG = -1e9


@cache
def _lines(num_players: int) -> np.ndarray[Any, Any]:
    """int32 ``(cells, L, 5)``: the lines through each cell, padded with ``cells``."""
    geo = geometry(num_players)
    c = geo.num_cells
    most = max(len(lines) for lines in geo.lines_through)
    out = np.full((c, most, 5), c, np.int32)
    for i, lines in enumerate(geo.lines_through):
        for k, line in enumerate(lines):
            out[i, k, : len(line)] = line
    return out


@cache
def _members(num_players: int) -> np.ndarray[Any, Any]:
    """float32 ``(cells, L, cells + 1)``: whether a cell lies on each line through a cell."""
    lines = _lines(num_players)
    c = lines.shape[0]
    out = np.zeros((c, lines.shape[1], c + 1), np.float32)
    for i in range(c):
        for k in range(lines.shape[1]):
            out[i, k, lines[i, k]] = 1.0
    out[:, :, c] = 0.0
    return out


@cache
def _places(num_players: int) -> np.ndarray[Any, Any]:
    """float32 ``(cells, L, 5, cells + 1)``: the cell at each place of each line through a cell."""
    lines = _lines(num_players)
    c = lines.shape[0]
    out = np.zeros((*lines.shape, c + 1), np.float32)
    for i, k, p in np.ndindex(*lines.shape):
        out[i, k, p, lines[i, k, p]] = 1.0
    out[..., c] = 0.0
    return out


def _runs(lines: jax.Array, line_k: jax.Array, k_count: int) -> jax.Array:
    """Where the run of value ``k`` through the cell lies: bool ``(c, L, 5, K)``.

    The cell counts as ``k``; the run reaches from it left and right over the line's
    face-up cards of value ``k`` (``row_match="adjacent"``).
    """
    c = lines.shape[0]
    is_self = lines == jnp.arange(c)[:, None, None]  # (c, L, 5): the cell's place in each line
    eq = ((line_k[..., None] == jnp.arange(k_count)) | is_self[..., None]).astype(jnp.int32)
    from_self = jnp.cumsum(is_self, axis=2) >= 1  # places at or after the cell
    to_self = jnp.cumsum(is_self[:, :, ::-1], axis=2)[:, :, ::-1] >= 1  # at or before it
    right = jnp.cumprod(jnp.where(from_self[..., None], eq, 1), axis=2) > 0
    left = jnp.cumprod(jnp.where(to_self[..., None], eq, 1)[:, :, ::-1], axis=2)[:, :, ::-1] > 0
    out: jax.Array = (right & from_self[..., None]) | (left & to_self[..., None])
    return out


@cache
def _overlapping(num_players: int) -> bool:
    """Whether two lines through some cell share another cell (the two-seat table)."""
    geo = geometry(num_players)
    return any(
        (set(a) & set(b)) - {i}
        for i, lines in enumerate(geo.lines_through)
        for x, a in enumerate(lines)
        for b in lines[x + 1 :]
    )


def greedy_scores(t: StaticTables, s: State) -> jax.Array:
    """float32 ``(num_actions,)``: GreedyBot's score of every action id of one table.

    Illegal ids score ``-1e9``; in the knock window ``Knock`` scores 1 or -1 and ``Pass``
    0, as GreedyBot decides. Only what the acting seat may see is read.
    """
    config = t.config
    n, c = t.num_players, t.num_cells
    ids = t.ids
    values = jnp.asarray(t.values, F32)  # (K,)
    k_count = values.shape[0]
    vindex = jnp.asarray(t.value_index)
    copies = jnp.asarray(t.copies)
    seat = jnp.maximum(s.current_player.astype(jnp.int32), 0)

    cells = s._cells
    present = cells != GAP
    hidden = present & s._face_down
    up = present & ~s._face_down
    value_of = cells.astype(F32)
    cell_k = vindex[cells.astype(jnp.int32) - GAP]

    def counts(pile: jax.Array, length: jax.Array) -> jax.Array:
        valid = jnp.arange(pile.shape[0]) < length
        hot = jax.nn.one_hot(vindex[pile.astype(jnp.int32) - GAP], k_count, dtype=F32)
        return (hot * valid[:, None]).sum(axis=0)

    held_present = s._held != GAP
    held_k = vindex[s._held.astype(jnp.int32) - GAP]
    seen = (
        (jax.nn.one_hot(cell_k, k_count, dtype=F32) * up[:, None]).sum(axis=0)
        + counts(s._discard, s._discard_len)
        + counts(s._out, s._out_len)
        + jax.nn.one_hot(held_k, k_count, dtype=F32) * held_present
    )
    unseen = jnp.maximum(copies - seen, 0.0)
    unseen = jnp.where(unseen.sum() > 0, unseen, copies)
    dist = unseen / unseen.sum()
    mean = (dist * values).sum()
    est = jnp.where(up, value_of, jnp.where(hidden, mean, 0.0))

    zone = jnp.asarray(t.zone)
    own = jnp.asarray(t.own)
    my_zone = zone[seat]
    sums = (zone * est[None, :]).sum(axis=1)
    my_sum = sums[seat]
    best_other = jnp.where(jnp.arange(n) == seat, jnp.inf, sums).min()
    end_area = (own if config.round_end == "own_grid" else zone)[seat]
    swap_area = (zone if config.swap_area == "zone" else own)[seat]
    reveal_area = (zone if config.reveal_area == "zone" else own)[seat]
    take_area_all = zone if config.take_area == "zone" else own
    down_left = (hidden & end_area).sum()
    may_end = (s._ender < 0) & (s._phase != SETUP)
    doubles = config.double_nonpositive == "yes"

    # Triples: per cell i and value k, how many cells of my zone a k at i would remove.
    lines = jnp.asarray(_lines(n))  # (c, L, 5), padded with c
    known_k = jnp.where(up, cell_k, -1)
    known_pad = jnp.concatenate([known_k, jnp.full((1,), -1, known_k.dtype)])
    mine_pad = jnp.concatenate([my_zone, jnp.zeros((1,), bool)])
    line_k = known_pad[lines]  # (c, L, 5)
    not_self = lines != jnp.arange(c)[:, None, None]
    if config.row_match == "adjacent":
        # A run of three or more side by side through the cell, the cell counted as k.
        run = _runs(lines, line_k, k_count)  # (c, L, 5, K)
        qualifies = run.sum(axis=2) >= 3  # (c, L, K)
        match = run & not_self[..., None]
    else:
        match = (line_k[..., None] == jnp.arange(k_count)) & not_self[..., None]  # (c, L, 5, K)
        qualifies = match.sum(axis=2) >= 2  # (c, L, K): two more of k in the line
    mine_hits = (match & mine_pad[lines][..., None]).sum(axis=2)  # (c, L, K)
    if _overlapping(n) and config.row_match == "adjacent":
        # Two lines through a cell share another cell (two seats): count a cell once.
        removed = match & qualifies[:, :, None, :]  # (c, L, 5, K)
        places = jnp.asarray(_places(n))  # (c, L, 5, c + 1)
        in_run = jnp.einsum("ilpk,ilpj->ikj", removed.astype(F32), places) > 0  # (c, K, c+1)
        removed_mine = (in_run & mine_pad[None, None, :]).sum(axis=2) + (
            my_zone[:, None] & qualifies.any(axis=1)
        )
    elif _overlapping(n):
        # Two lines through a cell share another cell (two seats): count a cell once.
        member = jnp.asarray(_members(n))  # (c, L, c + 1)
        in_line = jnp.einsum("ilk,ilj->ikj", qualifies.astype(F32), member) > 0  # (c, K, c+1)
        is_k = (known_pad[None, :] == jnp.arange(k_count)[:, None])[None] | (
            jnp.arange(c + 1)[None, None, :] == jnp.arange(c)[:, None, None]
        )
        removed_mine = (in_line & is_k & mine_pad[None, None, :]).sum(axis=2)
    else:
        removed_mine = (mine_hits * qualifies).sum(axis=1) + (
            my_zone[:, None] & qualifies.any(axis=1)
        )  # (c, K)
    triple_gain = removed_mine * values[None, :]  # (c, K)

    def end_value(flips: jax.Array, gain: jax.Array) -> jax.Array:
        applies = may_end & (down_left > 0) & (down_left - flips <= 0)
        mine = my_sum - gain
        extra = jnp.where((mine > 0) | doubles, mine, 0.0)
        weight = jnp.where(mine >= best_other, 1.0, 0.5)
        risk = jnp.where(mine <= best_other - 3, 1.0, -weight * extra)
        return jnp.where(applies, risk, 0.0)

    flips_at = (hidden & end_area).astype(jnp.int32)  # (c,)
    base = jnp.where(my_zone[:, None], est[:, None] - values[None, :], 0.0)  # (c, K)
    gain = base + triple_gain
    place = gain + end_value(flips_at[:, None], gain)  # (c, K): place_score
    filled = present
    targets = swap_area & filled

    def best_place(exclude: jax.Array) -> jax.Array:
        """(K,): the best place_score of each value over the swap area minus ``exclude``."""
        ok = targets & (jnp.arange(c) != exclude)
        best = jnp.where(ok[:, None], place, -jnp.inf).max(axis=0)
        return jnp.where(ok.any(), best, 0.0)

    best_all = best_place(jnp.asarray(-1))
    expected = (dist[None, :] * gain).sum(axis=1)  # (c,)
    reveal = expected + end_value(flips_at, expected)  # (c,)
    can_reveal = reveal_area & hidden
    flip = jnp.where(can_reveal.any(), jnp.where(can_reveal, reveal, -jnp.inf).max(), 0.0)

    scores = jnp.full((t.num_actions,), _NEG, F32)
    scores = scores.at[ids.reveal : ids.reveal + c].set(reveal)
    top = s._discard[jnp.maximum(s._discard_len.astype(jnp.int32) - 1, 0)]
    top_k = vindex[top.astype(jnp.int32) - GAP]
    draw_discard = best_all[top_k]
    if config.discard_draw == "may_discard":
        draw_discard = jnp.maximum(draw_discard, flip)
    scores = scores.at[DRAW_DISCARD_ID].set(draw_discard)
    scores = scores.at[DRAW_DECK_ID].set((dist * jnp.maximum(best_all, flip)).sum())
    scores = scores.at[ids.swap : ids.swap + c].set(place[:, held_k])
    scores = scores.at[DISCARD_ID].set(flip)
    # Give: the best placement of a face-up card of the knocker's area, outside my zone.
    give_ok = take_area_all & up[None, :] & ~my_zone[None, :]  # (n, c)
    give_best = jnp.where(give_ok, best_all[cell_k][None, :], -jnp.inf).max(axis=1)
    scores = scores.at[ids.give : ids.give + n].set(give_best - GreedyBot.GIVE_MARGIN)
    # Take: a face-down card is worth the mean (no triple), a face-up one its best place.
    excl = jax.vmap(best_place)(jnp.arange(c))  # (c, K)
    take_up = excl[jnp.arange(c), cell_k] + jnp.where(my_zone, value_of - mean, 0.0)
    plain = jnp.where(my_zone, est - mean, 0.0)  # place_gain(mean, i, exact=False)
    others = targets[None, :] & ~jnp.eye(c, dtype=bool)
    take_down = jnp.where(others.any(axis=1), jnp.where(others, plain, -jnp.inf).max(axis=1), 0.0)
    scores = scores.at[ids.take : ids.take + c].set(jnp.where(up, take_up, take_down))
    # The knock window.
    knock_area = swap_area & up & (value_of >= GreedyBot.KNOCK_HIGH_CARD)
    wants = held_present & (s._held <= GreedyBot.KNOCK_AT_MOST) & knock_area.any()
    in_window = s._phase == KNOCK
    scores = jnp.where(in_window, _NEG, scores)
    scores = scores.at[KNOCK_ID].set(jnp.where(in_window, jnp.where(wants, 1.0, -1.0), _NEG))
    scores = scores.at[PASS_ID].set(jnp.where(in_window, 0.0, scores[PASS_ID]))
    out: jax.Array = jnp.where(s.legal_action_mask, scores, _NEG)
    return out


def hint_of(scores: jax.Array, mask: jax.Array) -> jax.Array:
    """The greedy hint from one table's ``greedy_scores`` and legal mask (``greedy_hint``)."""
    clipped = jnp.clip(scores, -HINT_CLIP, HINT_CLIP) / HINT_SCALE
    out: jax.Array = jnp.where(mask, clipped, 0.0)
    return out


def greedy_hint(t: StaticTables, s: State) -> jax.Array:
    """float32 ``(num_actions,)``: GreedyBot's score of each legal id as the network reads it.

    Each legal id's score clipped to ``HINT_CLIP`` points either way and divided by
    ``HINT_SCALE``; 0 at every illegal id. The same vector as
    [`GreedyBot.hint`][allegra_rules.bots.GreedyBot.hint] of the scalar engine (within
    float32's precision).
    """
    return hint_of(greedy_scores(t, s), s.legal_action_mask)


def choice_of(scores: jax.Array, mask: jax.Array, key: jax.Array) -> jax.Array:
    """GreedyBot's choice from one table's ``greedy_scores`` and legal mask (``greedy_action``).

    Training computes the scores once a step and reads both the hint and the greedy
    opponents' moves from them; this gives the same move as ``greedy_action`` for a key.
    """
    best = scores.max()
    ties = mask & (scores >= best - TIE)
    noise = jax.random.uniform(key, scores.shape)
    out: jax.Array = jnp.argmax(jnp.where(ties, noise, -1.0)).astype(jnp.int32)
    return out


def greedy_action(t: StaticTables, s: State, key: jax.Array) -> jax.Array:
    """GreedyBot's choice of one table: a best-scoring legal id, ties broken by ``key``."""
    return choice_of(greedy_scores(t, s), s.legal_action_mask, key)


__all__ = [
    "HINT_CLIP",
    "HINT_SCALE",
    "TIE",
    "choice_of",
    "greedy_action",
    "greedy_hint",
    "greedy_scores",
    "hint_of",
]
