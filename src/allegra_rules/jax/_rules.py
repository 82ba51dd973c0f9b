"""The rules of the batched engine: ``init``, ``step``, the legal-action mask, ``observe``.

Plain functions of one table, pgx's split between a game's rules and its ``Env``: each
takes the game's static [`StaticTables`][allegra_rules.jax._tables.StaticTables] first (the rule
options are read in Python when the program is traced: one compiled program per rule
config and seat count), works with static shapes and never branches in Python on a
traced value, so ``jax.jit`` compiles it and ``jax.vmap`` batches it. ``Env`` binds the
tables and calls them.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from allegra_rules.fields import NEWEST_VERSION
from allegra_rules.jax._arrays import get, i8, key_words, put, row, shuffle
from allegra_rules.jax._rare import rarely
from allegra_rules.jax._settle import (
    SETTLE_FIELDS,
    after_setup,
    deal_fields,
    end_turn,
    scored,
    settle_triples,
)
from allegra_rules.jax._state import State, observe
from allegra_rules.jax._tables import (
    DISCARD_ID,
    DRAW,
    DRAW_DECK_ID,
    DRAW_DISCARD_ID,
    FLIP,
    GAP,
    HOLD_DECK,
    HOLD_DISCARD,
    HOLD_TAKEN,
    I8,
    I16,
    I32,
    KNOCK,
    KNOCK_ID,
    KNOCKER_SWAP,
    NONE,
    PASS_ID,
    ROUNDS,
    SETUP,
    TAKE,
    StaticTables,
)

DATA_FIELDS = [
    name for name in State.__dataclass_fields__ if name not in ("_spec", "legal_action_mask")
]
"""Every array field of ``State`` but the legal-action mask (a step computes it last)."""


def present_of(s: State) -> jax.Array:
    """Which cells hold a card: stored as the cells whose value is not the gap code."""
    return s._cells != GAP


def _refill(x: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """The discard pile but its top, shuffled from ``x["words"]`` (a refill)."""
    return {**x, "pile": shuffle(x["words"], x["pile"], x["length"])}


def init(t: StaticTables, key: jax.Array) -> State:
    """Deal round 1 of a new game, shuffled from ``key``."""
    return fresh(t, shuffle(key_words(key), jnp.asarray(t.cards), t.deck_size))


def fresh(t: StaticTables, order: jax.Array) -> State:
    """A new game dealt from the whole deck in ``order``."""
    n, c = t.n, t.num_cells
    fields = deal_fields(t, order, jnp.asarray(1, I8))
    state = State(
        legal_action_mask=jnp.asarray(t.fresh_mask),
        rewards=jnp.zeros(n, jnp.float32),
        terminated=jnp.asarray(False),
        truncated=jnp.asarray(False),
        _totals=jnp.zeros(n, I32),
        _round_scores=jnp.zeros((ROUNDS, n), I32),
        _has_last=jnp.asarray(False),
        _last_round=i8(0),
        _last_cells=jnp.zeros(c, I8),
        _last_sums=jnp.zeros(n, I32),
        _last_ender=i8(NONE),
        _last_doubled=jnp.asarray(False),
        _last_scores=jnp.zeros(n, I32),
        _last_removed=jnp.zeros(c, bool),
        _seed=jnp.zeros(4, jnp.uint32),
        _schema_version=i8(NEWEST_VERSION),  # a new game: the newest
        _illegal=jnp.asarray(False),
        _spec=t,
        **fields,
    )
    return state


def step_fields(t: StaticTables, s: State, action: jax.Array, key: jax.Array) -> dict[str, Any]:
    """Every field after the legal ``action`` (without the legal-action mask)."""
    config, n, c = t.config, t.n, t.num_cells
    give0, reveal0, swap0, take0 = t.ids.give, t.ids.reveal, t.ids.swap, t.ids.take
    f: dict[str, Any] = {name: getattr(s, name) for name in DATA_FIELDS}
    f["rewards"] = jnp.zeros(n, jnp.float32)
    phase = s._phase
    player = s.current_player
    a = action.astype(I32)
    cell = jnp.clip(
        jnp.where(a >= take0, a - take0, jnp.where(a >= swap0, a - swap0, a - reveal0)),
        0,
        c - 1,
    )
    is_reveal = (a >= reveal0) & (a < swap0)
    is_swap = (a >= swap0) & (a < take0)
    is_take = a >= take0
    is_give = (a >= give0) & (a < reveal0)
    old = get(s._cells, cell)
    old_down = get(s._face_down, cell)
    swapped_cells = put(s._cells, cell, s._held)

    # Each kind of action, as a dict of the fields it changes (or None).
    branches: list[tuple[jax.Array, dict[str, Any]]] = []

    # DrawDeck (A29: refill from the discard pile but its top when empty).
    words = key_words(key)
    empty = s._draw_len == 0
    refill_len = s._discard_len - 1
    drawing = (phase == DRAW) & (a == DRAW_DECK_ID)
    shuffled = rarely(
        drawing & empty,
        _refill,
        {"words": words, "pile": s._discard, "length": refill_len.astype(I32)},
        0.0,
    )["pile"]
    top = get(s._discard, s._discard_len - 1)
    draw = jnp.where(empty, shuffled, s._draw)
    draw_len = jnp.where(empty, refill_len, s._draw_len)
    # With a knock window (``knocking.knocking_applies``) the drawer's left is asked first.
    knock = t.knock_window
    dd: dict[str, Any] = {
        "_draw": draw,
        "_draw_len": (draw_len - 1).astype(I16),
        "_held": get(draw, draw_len - 1),
        "_discard": jnp.where(empty, put(s._discard, 0, top), s._discard),
        "_discard_len": jnp.where(empty, 1, s._discard_len).astype(I16),
        "_refills": (s._refills + empty).astype(I16),
        "_turns_played": s._turns_played + 1,
        "_phase": i8(KNOCK if knock else HOLD_DECK),
        "current_player": get(jnp.asarray(t.first_asked), player) if knock else player,
    }
    branches.append((drawing, dd))

    # DrawDiscard.
    ddc: dict[str, Any] = {
        "_discard_len": (s._discard_len - 1).astype(I16),
        "_held": top,
        "_turns_played": s._turns_played + 1,
        "_phase": i8(HOLD_DISCARD),
    }
    branches.append(((phase == DRAW) & (a == DRAW_DISCARD_ID), ddc))

    # Knock / Pass: the next seat asked, or back to the drawer when the answer closes
    # the window (the tables of ``knocking.next_asked``, by drawer and asked seat).
    knocked = a == KNOCK_ID
    knockers = s._knockers | (knocked & (jnp.arange(n) == player))
    after = jnp.where(knocked, jnp.asarray(t.after_knock), jnp.asarray(t.after_pass))
    nxt = get(after, s._drawer.astype(I32) * n + player)
    closes = nxt < 0
    kp: dict[str, Any] = {
        "_knockers": knockers,
        "current_player": jnp.where(closes, s._drawer, nxt),
        "_phase": jnp.where(closes, i8(HOLD_DECK), i8(KNOCK)),
    }
    branches.append(((phase == KNOCK) & ((a == KNOCK_ID) | (a == PASS_ID)), kp))

    # Give(k).
    k = (a - give0).astype(I8)
    gv: dict[str, Any] = {"_phase": i8(KNOCKER_SWAP), "current_player": k, "_knocker": k}
    branches.append((is_give, gv))

    # Take(t).
    tk: dict[str, Any] = {
        "_phase": i8(HOLD_TAKEN),
        "_cells": put(s._cells, cell, GAP),
        "_face_down": put(s._face_down, cell, False),
        "_held": old,
        "_taken_at": cell.astype(I16),
        "_held_was_face_down": old_down,
    }
    branches.append((is_take, tk))

    # The knocker's Swap: the replaced card goes to its hand.
    ks: dict[str, Any] = {
        "_phase": i8(TAKE),
        "current_player": s._drawer,
        "_cells": swapped_cells,
        "_face_down": put(s._face_down, cell, False),
        "_held": i8(GAP),
        "_hand_owner": player,
        "_hand_card": old,
        "_given_at": cell.astype(I16),
        "_hand_was_face_down": old_down,
    }
    branches.append((is_swap & (phase == KNOCKER_SWAP), ks))

    # A simultaneous setup naming that is not the last one.
    named_count = s._setup_reveals.astype(I32) + 1
    simultaneous = config.setup_reveals == "simultaneous"
    if simultaneous:
        nm: dict[str, Any] = {
            "_setup_named": put(s._setup_named, named_count - 1, cell.astype(I16)),
            "current_player": ((s._start_seat + named_count // 2) % n).astype(I8),
            "_setup_reveals": named_count.astype(I8),
        }
        branches.append((is_reveal & (phase == SETUP) & (named_count < 2 * n), nm))

    for pred, changes in branches:
        for name, value in changes.items():
            f[name] = jnp.where(pred, value, f[name])

    # Actions that settle: a setup reveal (or the last naming), or a turn's end.
    setup_settle = is_reveal & (phase == SETUP)
    if simultaneous:
        setup_settle = setup_settle & (named_count >= 2 * n)
    turn_end_swap = is_swap & ((phase == HOLD_DECK) | (phase == HOLD_DISCARD))
    taken_swap = is_swap & (phase == HOLD_TAKEN)
    discard = a == DISCARD_ID
    reveal_area = jnp.asarray(t.area(config.reveal_area))
    can_flip = (s._face_down & row(reveal_area, player)).any()
    flip_reveal = is_reveal & (phase == FLIP)
    ends_turn = turn_end_swap | taken_swap | flip_reveal | (discard & ~can_flip)

    # Discard with a face-down card left: the flip comes first.
    to_flip = discard & can_flip
    f["_discard"] = jnp.where(to_flip, put(s._discard, s._discard_len, s._held), f["_discard"])
    f["_discard_len"] = jnp.where(to_flip, s._discard_len + 1, f["_discard_len"]).astype(I16)
    f["_held"] = jnp.where(to_flip, i8(GAP), f["_held"])
    f["_phase"] = jnp.where(to_flip, i8(FLIP), f["_phase"])

    # A setup reveal or a turn's end settles the table (for about one table in three
    # in a step; under vmap only those pay, and only for the fields a settling may
    # change). The branches above leave such a table's fields as they were, so
    # ``settle`` reads the state before the action from ``f``.
    settling = {name: f[name] for name in SETTLE_FIELDS}
    settling["_scoring"] = jnp.asarray(False)
    settling["_score_ender"] = i8(NONE)
    operand: dict[str, Any] = {"f": settling, "a": a, "cell": cell}
    settles = setup_settle | ends_turn
    settled: dict[str, Any] = rarely(settles, partial(settle, t), operand, 0.3)["f"]
    scoring = settled.pop("_scoring")
    f.update(settled)
    # Scoring, and the next round's deal: only the tables whose round ends pay.
    out: dict[str, Any] = rarely(scoring, partial(scored, t), {"f": f, "words": words}, 0.01)
    return {name: out["f"][name] for name in DATA_FIELDS}


def settle(t: StaticTables, x: dict[str, Any]) -> dict[str, Any]:
    """The fields after a setup reveal, or after an action that ends a turn.

    ``x["f"]`` holds the ``SETTLE_FIELDS`` before the action ``x["a"]`` on
    ``x["cell"]``, and ``_scoring`` (False) and ``_score_ender``: they come back set
    when the turn ended the round (``step_fields`` then scores it). The other
    tables' results are dropped (``rarely``).
    """
    config, n, c = t.config, t.n, t.num_cells
    reveal0, swap0, take0 = t.ids.reveal, t.ids.swap, t.ids.take
    f: dict[str, Any] = x["f"]
    a, cell = x["a"], x["cell"]
    phase = f["_phase"]
    player = f["current_player"]
    is_reveal = (a >= reveal0) & (a < swap0)
    is_swap = (a >= swap0) & (a < take0)
    setup_settle = is_reveal & (phase == SETUP)
    turn_end_swap = is_swap & ((phase == HOLD_DECK) | (phase == HOLD_DISCARD))
    taken_swap = is_swap & (phase == HOLD_TAKEN)
    flip_reveal = is_reveal & (phase == FLIP)
    discard = a == DISCARD_ID
    cells = f["_cells"]
    face_down = f["_face_down"]
    old = get(cells, cell)
    swapped_cells = put(cells, cell, f["_held"])

    g: dict[str, Any] = dict(f)
    # Setup reveal(s).
    if config.setup_reveals == "simultaneous":
        named = put(f["_setup_named"], 2 * n - 1, cell.astype(I16))
        namer = (f["_start_seat"] + jnp.arange(2 * n) // 2) % n
        hit = (
            (namer[:, None, None] == jnp.arange(n)[None, :, None])
            & (named[:, None, None] == jnp.arange(c)[None, None, :])
        ).any(axis=0)
        turned = hit.any(axis=0)
        sums = f["_setup_sums"] + jnp.where(hit, cells.astype(I32), 0).sum(axis=1)
    else:
        turned = jnp.arange(c) == cell
        sums = f["_setup_sums"] + jnp.where(jnp.arange(n) == player, old.astype(I32), 0)
    setup_fd = face_down & ~turned
    # Turn ends: swap (drawer's), the exchange's last swap, discard, flip.
    hand_fill = put(swapped_cells, f["_taken_at"], f["_hand_card"])
    te_cells = jnp.where(taken_swap, hand_fill, jnp.where(turn_end_swap, swapped_cells, cells))
    te_fd = jnp.where(
        turn_end_swap | taken_swap | flip_reveal, put(face_down, cell, False), face_down
    )
    push_old = turn_end_swap | taken_swap
    push_card = jnp.where(push_old, old, f["_held"])
    push = push_old | discard
    te_discard = jnp.where(push, put(f["_discard"], f["_discard_len"], push_card), f["_discard"])
    te_discard_len = (f["_discard_len"] + push).astype(I16)

    g["_cells"] = jnp.where(setup_settle, cells, te_cells)
    g["_face_down"] = jnp.where(setup_settle, setup_fd, te_fd)
    g["_discard"] = jnp.where(setup_settle, f["_discard"], te_discard)
    g["_discard_len"] = jnp.where(setup_settle, f["_discard_len"], te_discard_len)
    g["_setup_sums"] = jnp.where(setup_settle, sums, f["_setup_sums"])
    settle_triples(t, g)
    h = dict(g)
    after_setup(t, g, f["_setup_reveals"].astype(I32) + 1)
    end_turn(t, h)
    out = {name: jnp.where(setup_settle, g[name], h[name]) for name in f}
    return {**x, "f": out}


def legal_action_mask(t: StaticTables, s: State) -> jax.Array:
    """The legal-action mask of ``s`` (bool over the action ids of ``allegra_rules.encoding``)."""
    config, n, c = t.config, t.n, t.num_cells
    phase = s._phase
    player = jnp.maximum(s.current_player, 0)
    present = present_of(s)
    fd = s._face_down
    swap_area = jnp.asarray(t.area(config.swap_area))
    reveal_area = jnp.asarray(t.area(config.reveal_area))

    # Reveal.
    reveal_ok = fd & row(reveal_area, player)
    if config.setup_reveals == "simultaneous":
        last = get(s._setup_named, s._setup_reveals.astype(I32) - 1)
        odd = (phase == SETUP) & (s._setup_reveals % 2 == 1)
        reveal_ok = reveal_ok & ~(odd & (jnp.arange(c) == last))
    reveal_ok = reveal_ok & ((phase == SETUP) | (phase == FLIP))
    # Draws.
    deck_ok = (s._draw_len > 0) | (s._discard_len >= 2)
    own_swap = row(swap_area, player) & present
    target = own_swap.any() | (config.discard_draw == "may_discard")
    discard_ok = (s._discard_len > 0) & target
    in_draw = phase == DRAW
    # Swaps of the acting player (drawer holding a card).
    swap_ok = own_swap & ((phase == HOLD_DECK) | (phase == HOLD_DISCARD) | (phase == HOLD_TAKEN))
    # The exchange (A14-A16): only the tables in it, or about to open it, pay.
    exchange = {
        "cells": s._cells,
        "drawer": s._drawer,
        "knockers": s._knockers,
        "knocker": s._knocker,
        "given_at": s._given_at,
        "phase": phase,
        "can_give": jnp.zeros(n, bool),
        "knocker_swap": jnp.zeros(c, bool),
        "take": jnp.zeros(c, bool),
    }
    opens = ((phase == HOLD_DECK) & s._knockers.any()) | (phase == KNOCKER_SWAP)
    exchange = rarely(opens | (phase == TAKE), partial(exchange_mask, t), exchange, 0.15)

    may = config.discard_draw == "may_discard"
    fixed_ok = {
        DRAW_DECK_ID: in_draw & deck_ok,
        DRAW_DISCARD_ID: in_draw & discard_ok,
        KNOCK_ID: phase == KNOCK,
        PASS_ID: phase == KNOCK,
        DISCARD_ID: (phase == HOLD_DECK) | ((phase == HOLD_DISCARD) & may),
    }
    # The ids below ``Give(0)``'s in id order, then each group in encoding's layout order.
    fixed = jnp.stack([fixed_ok[i] for i in range(t.ids.give)])
    return jnp.concatenate(
        [
            fixed,
            exchange["can_give"],
            reveal_ok,
            swap_ok | exchange["knocker_swap"],
            exchange["take"],
        ]
    )


def exchange_mask(t: StaticTables, x: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """The legal Give, the knocker's Swap and the Take of a table (``legal_action_mask``)."""
    config, n, c = t.config, t.n, t.num_cells
    phase = x["phase"]
    drawer = jnp.maximum(x["drawer"], 0)
    present = x["cells"] != GAP
    swap_area = jnp.asarray(t.area(config.swap_area))
    take_area = jnp.asarray(t.area(config.take_area))
    forbidden = config.take_given_card == "forbidden"
    # What the drawer could take from each knocker.
    drawer_area = row(swap_area, drawer)
    targets_left = (drawer_area & present).sum()
    takeable = take_area & present[None, :] & ((targets_left - drawer_area) >= 1)[None, :]
    num_take = takeable.sum(axis=1)
    first_take = jnp.argmax(takeable, axis=1)
    blocked = (num_take == 1) if forbidden else jnp.zeros(n, bool)
    kswaps = swap_area & present[None, :] & (num_take > 0)[:, None]
    kswaps = kswaps & ~(blocked[:, None] & (jnp.arange(c)[None, :] == first_take[:, None]))
    can_give = x["knockers"] & kswaps.any(axis=1) & (phase == HOLD_DECK)
    knocker = jnp.maximum(x["knocker"], 0)
    kswap_ok = row(kswaps, knocker) & (phase == KNOCKER_SWAP)
    take_ok = row(takeable, knocker)
    if forbidden:
        take_ok = take_ok & (jnp.arange(c) != x["given_at"])
    take_ok = take_ok & (phase == TAKE)
    return {**x, "can_give": can_give, "knocker_swap": kswap_ok, "take": take_ok}


def step(t: StaticTables, state: State, action: jax.Array, key: jax.Array) -> State:
    """The state after ``action`` (an action id); chance draws from ``key``.

    A step on a terminated state returns it unchanged with zero rewards. An
    illegal action ends the game: the actor's rewards of the game so far become
    -1 in all (the worst, as the PettingZoo env pays it), the others get 0.
    """
    action = jnp.asarray(action, I32)
    in_range = (action >= 0) & (action < t.num_actions)
    legal = in_range & get(state.legal_action_mask, action)
    fields = step_fields(t, state, action, key)
    new = state.replace(**fields)
    new = new.replace(legal_action_mask=legal_action_mask(t, new))
    # An illegal action, or a step on a finished game: a few operations a table, so every
    # table computes it and a select keeps it (cheaper to compile than ``rarely``, which
    # would move the state's every array both ways).
    refuse = ~legal | state.terminated
    out: State = jax.tree_util.tree_map(
        lambda r, a: jnp.where(refuse, r, a), refused(t, state), new
    )
    return out


def refused(t: StaticTables, state: State) -> State:
    """``step``'s result from ``state`` for an illegal action, or on a game that is over."""
    n = t.n
    seats = jnp.arange(n)
    earned = jnp.where(
        jnp.arange(ROUNDS)[:, None] < (state._round.astype(I32) - 1),
        -(state._round_scores.astype(jnp.float32) - t.reward_mid) / t.reward_span * (2 / ROUNDS),
        0.0,
    ).sum(axis=0)
    actor = jnp.maximum(state.current_player, 0)
    penalty = jnp.where(seats == actor, -1.0 - earned, 0.0).astype(jnp.float32)
    bad = state.replace(
        terminated=jnp.asarray(True),
        rewards=penalty,
        legal_action_mask=jnp.zeros_like(state.legal_action_mask),
        _illegal=jnp.asarray(True),
    )
    done = state.replace(rewards=jnp.zeros(n, jnp.float32))
    after: State = jax.tree_util.tree_map(lambda d, b: jnp.where(state.terminated, d, b), done, bad)
    return after


def step_auto_reset(t: StaticTables, state: State, action: jax.Array, key: jax.Array) -> State:
    """``step``; when that ends the game, a new game dealt from ``key`` instead.

    The new game keeps the final step's ``rewards`` (its ``terminated`` is False), so
    a learner sees the last round's rewards and play goes on at once. It is pgx's
    auto-reset, but under ``vmap`` only the tables whose game ended pay for the deal
    (``jax.lax.cond`` inside ``vmap`` would deal for every table at every step).
    """
    after = step(t, state, action, key)

    def deal(x: dict[str, Any]) -> dict[str, Any]:
        words = x["words"] ^ jnp.uint32(0x5BD1E995)
        new = fresh(t, shuffle(words, jnp.asarray(t.cards), t.deck_size))
        return {"state": new.replace(rewards=x["state"].rewards), "words": x["words"]}

    operand: dict[str, Any] = {"state": after, "words": key_words(key)}
    out: State = rarely(after.terminated, deal, operand, 0.0)["state"]
    return out


__all__ = [
    "DATA_FIELDS",
    "exchange_mask",
    "fresh",
    "init",
    "legal_action_mask",
    "observe",
    "present_of",
    "refused",
    "settle",
    "step",
    "step_auto_reset",
    "step_fields",
]
