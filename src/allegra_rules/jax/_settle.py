"""The end of a turn in the batched engine: triples, the round's end and scoring, the next deal.

Plain functions of one table. Each takes the game's static
[`StaticTables`][allegra_rules.jax._tables.StaticTables] first and works on a dict of the state's
fields (``f``), which it updates in place or returns. ``_rules`` calls them when a step
settles the table.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allegra_rules.geometry import COLS, ROWS, SHARED_COL
from allegra_rules.jax._arrays import first_from, get, i8, shuffle
from allegra_rules.jax._by_kind import deal_defaults
from allegra_rules.jax._rare import rarely
from allegra_rules.jax._tables import (
    DRAW,
    GAP,
    I8,
    I16,
    I32,
    NONE,
    OVER,
    ROUNDS,
    SETUP,
    StaticTables,
)


def between_turns(n: int) -> dict[str, jax.Array]:
    """The fields of a turn in progress, as they are between two turns.

    Nothing held, no knockers, no exchange (the drawer and the final turns are the next
    turn's). As the scalar engine's ``transitions._NO_TURN``.
    """
    return {
        "_held": i8(GAP),
        "_hand_owner": i8(NONE),
        "_hand_card": i8(0),
        "_knockers": jnp.zeros(n, bool),
        "_knocker": i8(NONE),
        "_given_at": jnp.asarray(NONE, I16),
        "_taken_at": jnp.asarray(NONE, I16),
        "_held_was_face_down": jnp.asarray(False),
        "_hand_was_face_down": jnp.asarray(False),
    }


def no_turn(n: int) -> dict[str, jax.Array]:
    """The fields of a turn in progress, as they are when no turn is.

    After a deal and once the game is over: ``between_turns``, and no drawer and no final
    turns.
    """
    return {**between_turns(n), "_drawer": i8(NONE), "_final_due": jnp.zeros(n, bool)}


def deal_fields(t: StaticTables, order: jax.Array, round_number: jax.Array) -> dict[str, jax.Array]:
    """The fields of a freshly dealt round from the whole deck in ``order``."""
    n, c, d = t.n, t.num_cells, t.deck_size
    start = ((round_number - 1) % n).astype(I8)
    rest = d - c - 1
    draw = jnp.zeros(d, I8).at[:rest].set(order[c + 1 :])
    discard = jnp.zeros(d, I8).at[0].set(order[c])
    return {
        "_phase": i8(SETUP),
        "_round": round_number.astype(I8),
        "current_player": start,
        "_cells": order[:c],
        "_face_down": jnp.ones(c, bool),
        "_draw": draw,
        "_draw_len": jnp.asarray(rest, I16),
        "_discard": discard,
        "_discard_len": jnp.asarray(1, I16),
        "_out": jnp.zeros(d, I8),
        "_out_len": jnp.asarray(0, I16),
        "_start_seat": start,
        "_setup_reveals": i8(0),
        "_setup_sums": jnp.zeros(n, I32),
        "_setup_named": jnp.full(2 * n, NONE, I16),
        "_turns_played": jnp.asarray(0, I32),
        "_ender": i8(NONE),
        "_refills": jnp.asarray(0, I16),
        **no_turn(n),
        **deal_defaults(n, t.config),  # the fields held by their kind alone
    }


# ---------------------------------------------------------------------- triples


def triples(t: StaticTables, cells: jax.Array, up: jax.Array) -> jax.Array:
    """Every card in a triple on the whole table (bool per cell).

    Written with static slices and elementwise operations only: each of the five
    places of a zone row and each grid column is an ``(n, 3)`` or ``(n, 4)`` array,
    and the comparisons are unrolled in Python (small reductions over short axes
    are slow under ``vmap`` on a CPU). The zone rows are geometry's ``zone_rows``:
    the left neighbour's shared column rolled in front of the own columns
    (``StaticTables`` checks that this layout is geometry's).
    """
    n = t.n
    g = cells.reshape(n, ROWS, COLS)
    u = up.reshape(n, ROWS, COLS)
    # Zone row places: the left neighbour's column 3, then the own columns 0..3.
    zv = [jnp.roll(g[:, :, SHARED_COL], -1, axis=0)] + [g[:, :, j] for j in range(COLS)]
    zu = [jnp.roll(u[:, :, SHARED_COL], -1, axis=0)] + [u[:, :, j] for j in range(COLS)]
    if t.config.row_match == "anywhere":
        mark = []
        for j in range(5):
            count = sum(((zv[j] == zv[k]) & zu[k]).astype(I8) for k in range(5) if k != j)
            mark.append(zu[j] & (count >= 2))
    else:
        win = [
            zu[w] & zu[w + 1] & zu[w + 2] & (zv[w] == zv[w + 1]) & (zv[w + 1] == zv[w + 2])
            for w in range(3)
        ]
        mark = [
            win[0],
            win[0] | win[1],
            win[0] | win[1] | win[2],
            win[1] | win[2],
            win[2],
        ]
    col = (
        u[:, 0, :]
        & u[:, 1, :]
        & u[:, 2, :]
        & (g[:, 0, :] == g[:, 1, :])
        & (g[:, 1, :] == g[:, 2, :])
    )
    shared = jnp.roll(mark[0], 1, axis=0)
    grid = jnp.stack(
        [
            mark[1] | col[:, None, 0],
            mark[2] | col[:, None, 1],
            mark[3] | col[:, None, 2],
            mark[4] | shared | col[:, None, 3],
        ],
        axis=-1,
    )
    return grid.reshape(-1)


def push(pile: jax.Array, length: jax.Array, cards: jax.Array, mask: jax.Array) -> Any:
    """Append ``cards[mask]`` (in index order) to ``pile``."""
    pos = length + jnp.cumsum(mask) - 1
    pile = pile.at[jnp.where(mask, pos, pile.shape[0])].set(cards, mode="drop")
    return pile, (length + mask.sum()).astype(I16)


def take_away(t: StaticTables, f: dict[str, jax.Array], removed: jax.Array) -> None:
    """Empty the cells ``removed``; their cards go where ``removed_cards`` says."""
    pile = "_discard" if t.config.removed_cards == "discard" else "_out"
    f[pile], f[pile + "_len"] = push(f[pile], f[pile + "_len"], f["_cells"], removed)
    f["_cells"] = jnp.where(removed, i8(GAP), f["_cells"])


def settle_triples(t: StaticTables, f: dict[str, jax.Array]) -> None:
    """Take away the triples of face-up cards.

    Few tables make a triple in a step: under ``vmap`` only those pay for moving
    the cards to their pile (``rarely``).
    """
    up = (f["_cells"] != GAP) & ~f["_face_down"]
    removed = triples(t, f["_cells"], up)
    pile = "_discard" if t.config.removed_cards == "discard" else "_out"
    names = (pile, pile + "_len", "_cells")

    def take(x: dict[str, jax.Array]) -> dict[str, jax.Array]:
        g = dict(x)
        take_away(t, g, x["removed"])
        return g

    out = rarely(removed.any(), take, {**{k: f[k] for k in names}, "removed": removed}, 0.05)
    for name in names:
        f[name] = out[name]


# ---------------------------------------------------------------------- scoring


def zone_sums(t: StaticTables, cells: jax.Array) -> jax.Array:
    """Each seat's zone sum (int32): its own cards and its left neighbour's shared column."""
    n = t.n
    vals = jnp.where(cells != GAP, cells.astype(I32), 0).reshape(n, ROWS, COLS)
    own = vals.sum(axis=(1, 2))
    return own + jnp.roll(vals[:, :, SHARED_COL].sum(axis=1), -1)


def score_round(
    t: StaticTables, f: dict[str, jax.Array], ender: jax.Array, order: jax.Array
) -> None:
    """Score the round, then deal the next one or end the game (in ``f``)."""
    config, n, c = t.config, t.n, t.num_cells
    turned_up = f["_cells"]
    removed = jnp.zeros(c, bool)
    if config.scoring_triples == "removed":
        removed = triples(t, f["_cells"], f["_cells"] != GAP)
        take_away(t, f, removed)
    sums = zone_sums(t, f["_cells"])
    has_ender = ender >= 0
    e = jnp.maximum(ender, 0)
    mine = get(sums, e)
    best_other = jnp.min(jnp.where(jnp.arange(n) == e, np.iinfo(np.int32).max, sums))
    lowest = mine <= best_other if config.ender_tie == "not_doubled" else mine < best_other
    sign_ok = True if config.double_nonpositive == "yes" else mine > 0
    doubled = has_ender & ~lowest & sign_ok
    scores = jnp.where(doubled & (jnp.arange(n) == e), 2 * sums, sums)
    totals = f["_totals"] + scores
    rnd = f["_round"]
    f["_round_scores"] = jnp.where(
        (jnp.arange(ROUNDS) == rnd.astype(I32) - 1)[:, None], scores, f["_round_scores"]
    )
    f["_totals"] = totals
    f["_has_last"] = jnp.asarray(True)
    f["_last_round"] = rnd
    f["_last_cells"] = turned_up
    f["_last_sums"] = sums
    f["_last_ender"] = ender.astype(I8)
    f["_last_doubled"] = doubled
    f["_last_scores"] = scores
    f["_last_removed"] = removed
    f["rewards"] = (
        -(scores.astype(jnp.float32) - t.reward_mid) / t.reward_span * (2 / ROUNDS)
    ).astype(jnp.float32)
    last = rnd >= ROUNDS
    # The next round's deal, or the end of the game.
    deal = deal_fields(t, order, (rnd + 1).astype(I8))
    over = {
        "_phase": i8(OVER),
        "current_player": i8(NONE),
        "_face_down": jnp.zeros(c, bool),
        "_ender": ender.astype(I8),
        **no_turn(n),
    }
    for name, value in deal.items():
        if name in over:
            f[name] = jnp.where(last, over[name], value)
        else:
            f[name] = jnp.where(last, f[name], value)
    f["terminated"] = last


def scored(t: StaticTables, x: dict[str, Any]) -> dict[str, Any]:
    """``score_round`` of ``x["f"]``, the next deal shuffled from ``x["words"]``.

    ``x["f"]`` holds every data field and ``_score_ender``, the round's ender (or
    none when the turn cap ended it).
    """
    f = dict(x["f"])
    order = shuffle(x["words"], jnp.asarray(t.cards), t.deck_size)
    score_round(t, f, f["_score_ender"], order)
    return {"f": {name: f[name] for name in x["f"]}, "words": x["words"]}


# ---------------------------------------------------------------------- the turn's end


def end_turn(t: StaticTables, f: dict[str, jax.Array]) -> None:
    """At the end of the drawer's turn, triples settled: the round end, then pass on."""
    config, n = t.config, t.n
    drawer = f["_drawer"]
    ender = f["_ender"]
    due = f["_final_due"]
    seats = jnp.arange(n)
    had_ender = ender >= 0
    # A final turn is done.
    due_after = due & (seats != drawer)
    over = had_ender & ~due_after.any()
    # Otherwise check the round end (A22, A23).
    fd = f["_face_down"].reshape(n, ROWS, COLS)
    down = fd.any(axis=(1, 2))
    if config.round_end == "zone":
        down = down | jnp.roll(fd[:, :, SHARED_COL].any(axis=1), -1)
    done = ~down
    new_ender = jnp.where(get(done, drawer), drawer, first_from(done, drawer, n))
    triggered = ~had_ender & done.any()
    ender = jnp.where(triggered, new_ender, ender).astype(I8)
    due = jnp.where(had_ender, due_after, jnp.where(triggered, seats != ender, due))
    capped = f["_turns_played"] >= config.max_turns_per_round
    nxt = jnp.where(due.any(), first_from(due, (drawer + 1) % n, n), (drawer + 1) % n)
    nxt = nxt.astype(I8)
    # Pass on (the usual case).
    f["_phase"] = i8(DRAW)
    f["current_player"] = nxt
    f["_drawer"] = nxt
    f["_ender"] = ender
    f["_final_due"] = due
    f.update(between_turns(n))
    scoring = over | capped
    f["_scoring"] = scoring
    f["_score_ender"] = jnp.where(over, ender, i8(NONE))


def after_setup(t: StaticTables, f: dict[str, jax.Array], done: jax.Array) -> None:
    """After ``done`` setup reveals: the next seat to reveal, or the first turn (in ``f``)."""
    config, n = t.config, t.n
    start = f["_start_seat"]
    finished = done >= 2 * n
    if config.first_player == "rotate":
        first = start
    else:
        sums = f["_setup_sums"]
        first = first_from(sums == sums.max(), start, n)
    nxt = jnp.where(finished, first, (start + done // 2) % n).astype(I8)
    f["_phase"] = jnp.where(finished, i8(DRAW), i8(SETUP))
    f["current_player"] = nxt
    f["_setup_reveals"] = done.astype(I8)
    f["_drawer"] = jnp.where(finished, nxt, i8(NONE))
    f["_setup_named"] = jnp.full(2 * n, NONE, I16)


SETTLE_FIELDS = [
    "current_player",
    "_phase",
    "_cells",
    "_face_down",
    "_discard",
    "_discard_len",
    "_out",
    "_out_len",
    "_held",
    "_hand_owner",
    "_hand_card",
    "_start_seat",
    "_setup_reveals",
    "_setup_sums",
    "_setup_named",
    "_drawer",
    "_knockers",
    "_knocker",
    "_given_at",
    "_taken_at",
    "_held_was_face_down",
    "_hand_was_face_down",
    "_turns_played",
    "_ender",
    "_final_due",
]
"""The fields that settling a setup reveal or a turn's end reads or changes (``_rules.settle``);
scoring the round that it may end reads and changes them all (``scored``)."""

__all__ = [
    "SETTLE_FIELDS",
    "after_setup",
    "deal_fields",
    "end_turn",
    "no_turn",
    "push",
    "score_round",
    "scored",
    "settle_triples",
    "take_away",
    "triples",
    "zone_sums",
]
