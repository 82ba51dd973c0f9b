"""The batched engine: ``Env``, its ``init``, ``step`` and ``observe``, written in JAX.

Every function here works on one table with static shapes and no Python branching on
traced values, so ``jax.jit`` compiles it once per ``Env`` and ``jax.vmap`` batches it.
The rule options are read in Python when the program is traced: one compiled program
per rule config and seat count.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from allegra_rules.adapters.features import Encoder, round_score_bounds
from allegra_rules.config import RuleConfig
from allegra_rules.encoding import legal_action_mask, num_distinct_actions
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.jax._rare import rarely
from allegra_rules.jax._state import (
    DRAW,
    FLIP,
    HOLD_DECK,
    HOLD_DISCARD,
    HOLD_TAKEN,
    KNOCK,
    KNOCKER_SWAP,
    NONE,
    OVER,
    SETUP,
    TAKE,
    State,
)
from allegra_rules.presets import preset
from allegra_rules.transitions import ROUNDS, new_game

I8, I16, I32 = jnp.int8, jnp.int16, jnp.int32


def _i8(x: Any) -> jax.Array:
    return jnp.asarray(x, I8)


def _get(arr: jax.Array, i: jax.Array) -> jax.Array:
    """``arr[i]`` by a select over the whole vector (no gather: fast under vmap on a CPU)."""
    hit = jnp.arange(arr.shape[0]) == i
    if arr.dtype == jnp.bool_:
        return (arr & hit).any()
    return jnp.sum(jnp.where(hit, arr, 0), dtype=arr.dtype)


def _set(arr: jax.Array, i: jax.Array | int, value: Any) -> jax.Array:
    """``arr`` with ``arr[i] = value``, by a select (no scatter)."""
    return jnp.where(jnp.arange(arr.shape[0]) == i, jnp.asarray(value, arr.dtype), arr)


def _row(table: jax.Array, p: jax.Array) -> jax.Array:
    """Row ``p`` of a bool ``(n, cells)`` table, by a select."""
    return (table & (jnp.arange(table.shape[0]) == p)[:, None]).any(axis=0)


def _no_turn(n: int) -> dict[str, jax.Array]:
    """The fields of a turn in progress, as they are when no turn is.

    After a deal and once the game is over: nothing held, no drawer, no knockers, no
    exchange, no final turns.
    """
    return {
        "_held": _i8(_GAP),
        "_hand_owner": _i8(NONE),
        "_hand_card": _i8(0),
        "_drawer": _i8(NONE),
        "_knockers": jnp.zeros(n, bool),
        "_knocker": _i8(NONE),
        "_given_at": jnp.asarray(NONE, I16),
        "_taken_at": jnp.asarray(NONE, I16),
        "_held_was_face_down": jnp.asarray(False),
        "_hand_was_face_down": jnp.asarray(False),
        "_final_due": jnp.zeros(n, bool),
    }


def _mix(h: jax.Array) -> jax.Array:
    """MurmurHash3's 32-bit finalizer."""
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def _key_words(key: jax.Array) -> jax.Array:
    """The raw uint32 words of a PRNG key (typed or a legacy uint32 key)."""
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    return key.reshape(-1).astype(jnp.uint32)


def _unmix(h: jax.Array) -> jax.Array:
    """The inverse of ``_mix`` (each of its steps is a bijection of the uint32 values)."""
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x7ED1B41D)  # the inverse of 0xC2B2AE35 modulo 2**32
    h = h ^ (h >> 13) ^ (h >> 26)
    h = h * jnp.uint32(0xA5CB9243)  # the inverse of 0x85EBCA6B
    return h ^ (h >> 16)


_PHI = 0x9E3779B9
_PHI_INVERSE = 0x144CBC89
"""``_PHI``'s inverse modulo 2**32."""


def _sort_keys(words: jax.Array, d: int) -> jax.Array:
    """A 32-bit sort key per position ``0..d-1``, all distinct (a bijection of the index)."""
    h = jnp.arange(d, dtype=jnp.uint32) * jnp.uint32(_PHI) ^ words[0]
    return _mix(_mix(h) ^ words[-1])


def _shuffle_one(words: jax.Array, src: jax.Array, length: jax.Array | int) -> jax.Array:
    """``src[:length]`` in a uniformly random order drawn from the key ``words``.

    Each card gets a distinct 32-bit sort key, a bijective hash of its position and the
    key's words, and the cards go in the order of their keys; the cards past ``length``
    stay behind in their order. For a whole deck (``length`` the static size) the keys
    are sorted alone and the positions read back by inverting the hash, which gives the
    same order several times faster than sorting the positions along.
    """
    d = src.shape[0]
    keys = _sort_keys(words, d)
    if isinstance(length, int) and length == d:
        order = _unmix(_unmix(jnp.sort(keys)) ^ words[-1]) ^ words[0]
        return src[(order * jnp.uint32(_PHI_INVERSE)).astype(jnp.int32)]
    keys = jnp.where(jnp.arange(d) < length, keys, jnp.uint32(0xFFFFFFFF))
    return src[jnp.argsort(keys, stable=True)]


def _refill(x: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """The discard pile but its top, shuffled from ``x["words"]`` (a refill)."""
    return {**x, "pile": _shuffle_one(x["words"], x["pile"], x["length"])}


def _first_from(members: jax.Array, origin: jax.Array, n: int) -> jax.Array:
    """The first seat of the bool set ``members`` clockwise from ``origin`` (itself first)."""
    key = jnp.where(members, (jnp.arange(n) - origin) % n, n + 1)
    return jnp.argmin(key).astype(I8)


class Env:
    """The game for ``num_players`` seats under ``config``, as pure JAX functions.

    Args:
        num_players: the seat count, within the config's ``min_players`` to
            ``most_players()``.
        config: the rules; ``None`` means ``preset("seeds")``.

    Raises:
        ValueError: a seat count or config that cannot be played.

    ``init``, ``step`` and ``observe`` are pure functions of arrays: wrap them in
    ``jax.jit`` and ``jax.vmap`` as you like (each ``Env`` compiles its own program).
    """

    def __init__(self, num_players: int, config: RuleConfig | None = None) -> None:
        if config is None:
            config = preset("seeds")
        if not isinstance(config, RuleConfig):
            raise ValueError(f"config must be a RuleConfig or None; got {type(config).__name__}")
        if type(num_players) is not int:
            raise ValueError(f"num_players must be an int; got {num_players!r}")
        most = config.most_players()
        if not config.min_players <= num_players <= most:
            raise ValueError(
                f"num_players must be {config.min_players}..{most} for this config "
                f"(min_players..most_players()); got {num_players}"
            )
        cards = config.deck_cards()
        if cards[0] < -127 or cards[-1] > 127:
            raise ValueError(
                "the batched engine stores cards as int8: card values must be -127..127; "
                f"RuleConfig.deck has {cards[0]}..{cards[-1]}"
            )
        self.config = config
        """The rules."""
        self.num_players = num_players
        """The seat count."""
        n = num_players
        self.num_cells = CELLS_PER_SEAT * n
        """Cells on the table: ``12 * num_players``."""
        self.deck_size = config.deck_size
        """Cards in the deck (the length of each pile array)."""
        self.num_actions = num_distinct_actions(n)
        """Action ids: ``allegra_rules.encoding.num_distinct_actions(num_players)``."""
        self._spec = (n, config)
        self._cards = np.asarray(cards, np.int8)
        low, high = round_score_bounds(config)
        self._reward_mid = (low + high) / 2
        self._reward_span = float(high - low)
        self._encoder = Encoder(config, n)
        c = self.num_cells
        zone = np.zeros((n, c), bool)
        own = np.zeros((n, c), bool)
        for p in range(n):
            own[p, p * 12 : p * 12 + 12] = True
            zone[p] = own[p]
            left = (p + 1) % n
            for r in range(3):
                zone[p, left * 12 + r * 4 + 3] = True
        self._zone = zone
        self._own = own
        # Every new game's first mask: seat 0 reveals, every card face down.
        self._fresh_mask = np.array(legal_action_mask(new_game(n, config=config)), bool)
        self._jit_observe = jax.jit(self.observe)
        _ENVS[self._spec] = self

    def __repr__(self) -> str:
        return f"Env({self.num_players}, config fingerprint {self.config.fingerprint[:12]})"

    # ------------------------------------------------------------------ tables

    def _area(self, which: str) -> jax.Array:
        return jnp.asarray(self._zone if which == "zone" else self._own)

    @property
    def _knocking(self) -> bool:
        k = self.config.knocking
        return k == "always" or (k == "three_or_more" and self.num_players >= 3)

    def _ids(self) -> tuple[int, int, int, int]:
        n = self.num_players
        give = 5
        reveal = 5 + n
        swap = reveal + self.num_cells
        take = swap + self.num_cells
        return give, reveal, swap, take

    # ------------------------------------------------------------------ deal

    def _deal_fields(self, order: jax.Array, round_number: jax.Array) -> dict[str, jax.Array]:
        """The fields of a freshly dealt round from the whole deck in ``order``."""
        n, c, d = self.num_players, self.num_cells, self.deck_size
        start = ((round_number - 1) % n).astype(I8)
        rest = d - c - 1
        draw = jnp.zeros(d, I8).at[:rest].set(order[c + 1 :])
        discard = jnp.zeros(d, I8).at[0].set(order[c])
        return {
            "_phase": _i8(SETUP),
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
            "_setup_reveals": _i8(0),
            "_setup_sums": jnp.zeros(n, I32),
            "_setup_named": jnp.full(2 * n, NONE, I16),
            "_turns_played": jnp.asarray(0, I32),
            "_ender": _i8(NONE),
            "_refills": jnp.asarray(0, I16),
            **_no_turn(n),
        }

    def init(self, key: jax.Array) -> State:
        """Deal round 1 of a new game, shuffled from ``key``."""
        return self._fresh(_shuffle_one(_key_words(key), jnp.asarray(self._cards), self.deck_size))

    def _fresh(self, order: jax.Array) -> State:
        """A new game dealt from the whole deck in ``order``."""
        n, c = self.num_players, self.num_cells
        fields = self._deal_fields(order, jnp.asarray(1, I8))
        state = State(
            legal_action_mask=jnp.asarray(self._fresh_mask),
            rewards=jnp.zeros(n, jnp.float32),
            terminated=jnp.asarray(False),
            truncated=jnp.asarray(False),
            _totals=jnp.zeros(n, I32),
            _round_scores=jnp.zeros((ROUNDS, n), I32),
            _has_last=jnp.asarray(False),
            _last_round=_i8(0),
            _last_cells=jnp.zeros(c, I8),
            _last_sums=jnp.zeros(n, I32),
            _last_ender=_i8(NONE),
            _last_doubled=jnp.asarray(False),
            _last_scores=jnp.zeros(n, I32),
            _last_removed=jnp.zeros(c, bool),
            _seed=jnp.zeros(4, jnp.uint32),
            _illegal=jnp.asarray(False),
            _spec=self._spec,
            **fields,
        )
        return state

    # ------------------------------------------------------------------ triples

    def _triples(self, cells: jax.Array, up: jax.Array) -> jax.Array:
        """Every card in a triple on the whole table (bool per cell).

        Written with static slices and elementwise operations only: each of the five
        places of a zone row and each grid column is an ``(n, 3)`` or ``(n, 4)`` array,
        and the comparisons are unrolled in Python (small reductions over short axes
        are slow under ``vmap`` on a CPU).
        """
        n = self.num_players
        g = cells.reshape(n, 3, 4)
        u = up.reshape(n, 3, 4)
        # Zone row places: the left neighbour's column 3, then the own columns 0..3.
        zv = [jnp.roll(g[:, :, 3], -1, axis=0)] + [g[:, :, j] for j in range(4)]
        zu = [jnp.roll(u[:, :, 3], -1, axis=0)] + [u[:, :, j] for j in range(4)]
        if self.config.row_match == "anywhere":
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

    @staticmethod
    def _push(pile: jax.Array, length: jax.Array, cards: jax.Array, mask: jax.Array) -> Any:
        """Append ``cards[mask]`` (in index order) to ``pile``."""
        pos = length + jnp.cumsum(mask) - 1
        pile = pile.at[jnp.where(mask, pos, pile.shape[0])].set(cards, mode="drop")
        return pile, (length + mask.sum()).astype(I16)

    def _take_away(self, f: dict[str, jax.Array], removed: jax.Array) -> None:
        """Empty the cells ``removed``; their cards go where ``removed_cards`` says."""
        pile = "_discard" if self.config.removed_cards == "discard" else "_out"
        f[pile], f[pile + "_len"] = self._push(f[pile], f[pile + "_len"], f["_cells"], removed)
        f["_cells"] = jnp.where(removed, _i8(_GAP), f["_cells"])

    def _settle_triples(self, f: dict[str, jax.Array]) -> None:
        """Take away the triples of face-up cards.

        Few tables make a triple in a step: under ``vmap`` only those pay for moving
        the cards to their pile (``rarely``).
        """
        up = (f["_cells"] != _GAP) & ~f["_face_down"]
        removed = self._triples(f["_cells"], up)
        pile = "_discard" if self.config.removed_cards == "discard" else "_out"
        names = (pile, pile + "_len", "_cells")

        def take(x: dict[str, jax.Array]) -> dict[str, jax.Array]:
            g = dict(x)
            self._take_away(g, x["removed"])
            return g

        out = rarely(removed.any(), take, {**{k: f[k] for k in names}, "removed": removed}, 0.05)
        for name in names:
            f[name] = out[name]

    # ------------------------------------------------------------------ scoring

    def _zone_sums(self, cells: jax.Array) -> jax.Array:
        n = self.num_players
        vals = jnp.where(cells != _GAP, cells.astype(I32), 0).reshape(n, 3, 4)
        own = vals.sum(axis=(1, 2))
        return own + jnp.roll(vals[:, :, 3].sum(axis=1), -1)

    def _score_round(self, f: dict[str, jax.Array], ender: jax.Array, order: jax.Array) -> None:
        """Score the round, then deal the next one or end the game (in ``f``)."""
        config, n, c = self.config, self.num_players, self.num_cells
        turned_up = f["_cells"]
        removed = jnp.zeros(c, bool)
        if config.scoring_triples == "removed":
            removed = self._triples(f["_cells"], f["_cells"] != _GAP)
            self._take_away(f, removed)
        sums = self._zone_sums(f["_cells"])
        has_ender = ender >= 0
        e = jnp.maximum(ender, 0)
        mine = _get(sums, e)
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
            -(scores.astype(jnp.float32) - self._reward_mid) / self._reward_span * (2 / ROUNDS)
        ).astype(jnp.float32)
        last = rnd >= ROUNDS
        # The next round's deal, or the end of the game.
        deal = self._deal_fields(order, (rnd + 1).astype(I8))
        over = {
            "_phase": _i8(OVER),
            "current_player": _i8(NONE),
            "_face_down": jnp.zeros(c, bool),
            "_ender": ender.astype(I8),
            **_no_turn(n),
        }
        for name, value in deal.items():
            if name in over:
                f[name] = jnp.where(last, over[name], value)
            else:
                f[name] = jnp.where(last, f[name], value)
        f["terminated"] = last

    def _scored(self, x: dict[str, Any]) -> dict[str, Any]:
        """``_score_round`` of ``x["f"]``, the next deal shuffled from ``x["words"]``.

        ``x["f"]`` holds every data field and ``_score_ender``, the round's ender (or
        none when the turn cap ended it).
        """
        f = dict(x["f"])
        order = _shuffle_one(x["words"], jnp.asarray(self._cards), self.deck_size)
        self._score_round(f, f["_score_ender"], order)
        return {"f": {name: f[name] for name in x["f"]}, "words": x["words"]}

    # ------------------------------------------------------------------ steps

    def _end_turn(self, f: dict[str, jax.Array]) -> None:
        """At the end of the drawer's turn, triples settled: the round end, then pass on."""
        config, n = self.config, self.num_players
        drawer = f["_drawer"]
        ender = f["_ender"]
        due = f["_final_due"]
        seats = jnp.arange(n)
        had_ender = ender >= 0
        # A final turn is done.
        due_after = due & (seats != drawer)
        over = had_ender & ~due_after.any()
        # Otherwise check the round end (A22, A23).
        fd = f["_face_down"].reshape(n, 3, 4)
        down = fd.any(axis=(1, 2))
        if config.round_end == "zone":
            down = down | jnp.roll(fd[:, :, 3].any(axis=1), -1)
        done = ~down
        new_ender = jnp.where(_get(done, drawer), drawer, _first_from(done, drawer, n))
        triggered = ~had_ender & done.any()
        ender = jnp.where(triggered, new_ender, ender).astype(I8)
        due = jnp.where(had_ender, due_after, jnp.where(triggered, seats != ender, due))
        capped = f["_turns_played"] >= config.max_turns_per_round
        nxt = jnp.where(due.any(), _first_from(due, (drawer + 1) % n, n), (drawer + 1) % n)
        nxt = nxt.astype(I8)
        # Pass on (the usual case).
        f["_phase"] = _i8(DRAW)
        f["current_player"] = nxt
        f["_drawer"] = nxt
        f["_ender"] = ender
        f["_final_due"] = due
        f["_held"] = _i8(_GAP)
        f["_hand_owner"] = _i8(NONE)
        f["_hand_card"] = _i8(0)
        f["_knockers"] = jnp.zeros(n, bool)
        f["_knocker"] = _i8(NONE)
        f["_given_at"] = jnp.asarray(NONE, I16)
        f["_taken_at"] = jnp.asarray(NONE, I16)
        f["_held_was_face_down"] = jnp.asarray(False)
        f["_hand_was_face_down"] = jnp.asarray(False)
        scoring = over | capped
        f["_scoring"] = scoring
        f["_score_ender"] = jnp.where(over, ender, _i8(NONE))

    def _after_setup(self, f: dict[str, jax.Array], done: jax.Array) -> None:
        config, n = self.config, self.num_players
        start = f["_start_seat"]
        finished = done >= 2 * n
        if config.first_player == "rotate":
            first = start
        else:
            sums = f["_setup_sums"]
            first = _first_from(sums == sums.max(), start, n)
        nxt = jnp.where(finished, first, (start + done // 2) % n).astype(I8)
        f["_phase"] = jnp.where(finished, _i8(DRAW), _i8(SETUP))
        f["current_player"] = nxt
        f["_setup_reveals"] = done.astype(I8)
        f["_drawer"] = jnp.where(finished, nxt, _i8(NONE))
        f["_setup_named"] = jnp.full(2 * n, NONE, I16)

    def _step_fields(self, s: State, action: jax.Array, key: jax.Array) -> dict[str, Any]:
        """Every field after the legal ``action`` (without the legal-action mask)."""
        config, n, c = self.config, self.num_players, self.num_cells
        give0, reveal0, swap0, take0 = self._ids()
        f: dict[str, Any] = {name: getattr(s, name) for name in _DATA_FIELDS}
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
        old = _get(s._cells, cell)
        old_down = _get(s._face_down, cell)
        swapped_cells = _set(s._cells, cell, s._held)

        # Each kind of action, as a dict of the fields it changes (or None).
        branches: list[tuple[jax.Array, dict[str, Any]]] = []

        # DrawDeck (A29: refill from the discard pile but its top when empty).
        words = _key_words(key)
        empty = s._draw_len == 0
        refill_len = s._discard_len - 1
        drawing = (phase == DRAW) & (a == 0)
        shuffled = rarely(
            drawing & empty,
            _refill,
            {"words": words, "pile": s._discard, "length": refill_len.astype(I32)},
            0.0,
        )["pile"]
        top = _get(s._discard, s._discard_len - 1)
        draw = jnp.where(empty, shuffled, s._draw)
        draw_len = jnp.where(empty, refill_len, s._draw_len)
        knock = self._knocking
        dd: dict[str, Any] = {
            "_draw": draw,
            "_draw_len": (draw_len - 1).astype(I16),
            "_held": _get(draw, draw_len - 1),
            "_discard": jnp.where(empty, _set(s._discard, 0, top), s._discard),
            "_discard_len": jnp.where(empty, 1, s._discard_len).astype(I16),
            "_refills": (s._refills + empty).astype(I16),
            "_turns_played": s._turns_played + 1,
            "_phase": _i8(KNOCK if knock else HOLD_DECK),
            "current_player": ((player + 1) % n).astype(I8) if knock else player,
        }
        branches.append(((phase == DRAW) & (a == 0), dd))

        # DrawDiscard.
        ddc: dict[str, Any] = {
            "_discard_len": (s._discard_len - 1).astype(I16),
            "_held": top,
            "_turns_played": s._turns_played + 1,
            "_phase": _i8(HOLD_DISCARD),
        }
        branches.append(((phase == DRAW) & (a == 1), ddc))

        # Knock / Pass.
        knocked = a == 2
        knockers = s._knockers | (knocked & (jnp.arange(n) == player))
        nxt = ((player + 1) % n).astype(I8)
        closes = nxt == s._drawer
        if config.knock_winner == "first_clockwise":
            closes = closes | knocked
        kp: dict[str, Any] = {
            "_knockers": knockers,
            "current_player": jnp.where(closes, s._drawer, nxt),
            "_phase": jnp.where(closes, _i8(HOLD_DECK), _i8(KNOCK)),
        }
        branches.append(((phase == KNOCK) & ((a == 2) | (a == 3)), kp))

        # Give(k).
        k = (a - give0).astype(I8)
        gv: dict[str, Any] = {"_phase": _i8(KNOCKER_SWAP), "current_player": k, "_knocker": k}
        branches.append((is_give, gv))

        # Take(t).
        tk: dict[str, Any] = {
            "_phase": _i8(HOLD_TAKEN),
            "_cells": _set(s._cells, cell, _GAP),
            "_face_down": _set(s._face_down, cell, False),
            "_held": old,
            "_taken_at": cell.astype(I16),
            "_held_was_face_down": old_down,
        }
        branches.append((is_take, tk))

        # The knocker's Swap: the replaced card goes to its hand.
        ks: dict[str, Any] = {
            "_phase": _i8(TAKE),
            "current_player": s._drawer,
            "_cells": swapped_cells,
            "_face_down": _set(s._face_down, cell, False),
            "_held": _i8(_GAP),
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
                "_setup_named": _set(s._setup_named, named_count - 1, cell.astype(I16)),
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
        discard = a == 4
        reveal_area = self._area(config.reveal_area)
        can_flip = (s._face_down & _row(reveal_area, player)).any()
        flip_reveal = is_reveal & (phase == FLIP)
        ends_turn = turn_end_swap | taken_swap | flip_reveal | (discard & ~can_flip)

        # Discard with a face-down card left: the flip comes first.
        to_flip = discard & can_flip
        f["_discard"] = jnp.where(to_flip, _set(s._discard, s._discard_len, s._held), f["_discard"])
        f["_discard_len"] = jnp.where(to_flip, s._discard_len + 1, f["_discard_len"]).astype(I16)
        f["_held"] = jnp.where(to_flip, _i8(_GAP), f["_held"])
        f["_phase"] = jnp.where(to_flip, _i8(FLIP), f["_phase"])

        # A setup reveal or a turn's end settles the table (for about one table in three
        # in a step; under vmap only those pay, and only for the fields a settling may
        # change). The branches above leave such a table's fields as they were, so
        # ``_settle`` reads the state before the action from ``f``.
        settling = {name: f[name] for name in _SETTLE_FIELDS}
        settling["_scoring"] = jnp.asarray(False)
        settling["_score_ender"] = _i8(NONE)
        operand: dict[str, Any] = {"f": settling, "a": a, "cell": cell}
        settled: dict[str, Any] = rarely(setup_settle | ends_turn, self._settle, operand, 0.3)["f"]
        scoring = settled.pop("_scoring")
        f.update(settled)
        # Scoring, and the next round's deal: only the tables whose round ends pay.
        out: dict[str, Any] = rarely(scoring, self._scored, {"f": f, "words": words}, 0.01)
        return {name: out["f"][name] for name in _DATA_FIELDS}

    def _settle(self, x: dict[str, Any]) -> dict[str, Any]:
        """The fields after a setup reveal, or after an action that ends a turn.

        ``x["f"]`` holds the ``_SETTLE_FIELDS`` before the action ``x["a"]`` on
        ``x["cell"]``, and ``_scoring`` (False) and ``_score_ender``: they come back set
        when the turn ended the round (``_step_fields`` then scores it). The other
        tables' results are dropped (``rarely``).
        """
        config, n, c = self.config, self.num_players, self.num_cells
        _, reveal0, swap0, take0 = self._ids()
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
        discard = a == 4
        cells = f["_cells"]
        face_down = f["_face_down"]
        old = _get(cells, cell)
        swapped_cells = _set(cells, cell, f["_held"])

        g: dict[str, Any] = dict(f)
        # Setup reveal(s).
        if config.setup_reveals == "simultaneous":
            named = _set(f["_setup_named"], 2 * n - 1, cell.astype(I16))
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
        hand_fill = _set(swapped_cells, f["_taken_at"], f["_hand_card"])
        te_cells = jnp.where(taken_swap, hand_fill, jnp.where(turn_end_swap, swapped_cells, cells))
        te_fd = jnp.where(
            turn_end_swap | taken_swap | flip_reveal, _set(face_down, cell, False), face_down
        )
        push_old = turn_end_swap | taken_swap
        push_card = jnp.where(push_old, old, f["_held"])
        push = push_old | discard
        te_discard = jnp.where(
            push, _set(f["_discard"], f["_discard_len"], push_card), f["_discard"]
        )
        te_discard_len = (f["_discard_len"] + push).astype(I16)

        g["_cells"] = jnp.where(setup_settle, cells, te_cells)
        g["_face_down"] = jnp.where(setup_settle, setup_fd, te_fd)
        g["_discard"] = jnp.where(setup_settle, f["_discard"], te_discard)
        g["_discard_len"] = jnp.where(setup_settle, f["_discard_len"], te_discard_len)
        g["_setup_sums"] = jnp.where(setup_settle, sums, f["_setup_sums"])
        self._settle_triples(g)
        h = dict(g)
        self._after_setup(g, f["_setup_reveals"].astype(I32) + 1)
        self._end_turn(h)
        out = {name: jnp.where(setup_settle, g[name], h[name]) for name in f}
        return {**x, "f": out}

    # ------------------------------------------------------------------ legal actions

    def _legal_mask(self, s: State) -> jax.Array:
        config, n, c = self.config, self.num_players, self.num_cells
        phase = s._phase
        player = jnp.maximum(s.current_player, 0)
        present = _present_of(s)
        fd = s._face_down
        swap_area = self._area(config.swap_area)
        reveal_area = self._area(config.reveal_area)

        # Reveal.
        reveal_ok = fd & _row(reveal_area, player)
        if config.setup_reveals == "simultaneous":
            last = _get(s._setup_named, s._setup_reveals.astype(I32) - 1)
            odd = (phase == SETUP) & (s._setup_reveals % 2 == 1)
            reveal_ok = reveal_ok & ~(odd & (jnp.arange(c) == last))
        reveal_ok = reveal_ok & ((phase == SETUP) | (phase == FLIP))
        # Draws.
        deck_ok = (s._draw_len > 0) | (s._discard_len >= 2)
        own_swap = _row(swap_area, player) & present
        target = own_swap.any() | (config.discard_draw == "may_discard")
        discard_ok = (s._discard_len > 0) & target
        in_draw = phase == DRAW
        # Swaps of the acting player (drawer holding a card).
        swap_ok = own_swap & (
            (phase == HOLD_DECK) | (phase == HOLD_DISCARD) | (phase == HOLD_TAKEN)
        )
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
        exchange = rarely(opens | (phase == TAKE), self._exchange_mask, exchange, 0.15)

        may = config.discard_draw == "may_discard"
        fixed = jnp.stack(
            [
                in_draw & deck_ok,
                in_draw & discard_ok,
                phase == KNOCK,
                phase == KNOCK,
                (phase == HOLD_DECK) | ((phase == HOLD_DISCARD) & may),
            ]
        )
        return jnp.concatenate(
            [
                fixed,
                exchange["can_give"],
                reveal_ok,
                swap_ok | exchange["knocker_swap"],
                exchange["take"],
            ]
        )

    def _exchange_mask(self, x: dict[str, jax.Array]) -> dict[str, jax.Array]:
        """The legal Give, the knocker's Swap and the Take of a table (``_legal_mask``)."""
        config, n, c = self.config, self.num_players, self.num_cells
        phase = x["phase"]
        drawer = jnp.maximum(x["drawer"], 0)
        present = x["cells"] != _GAP
        swap_area = self._area(config.swap_area)
        take_area = self._area(config.take_area)
        forbidden = config.take_given_card == "forbidden"
        # What the drawer could take from each knocker.
        drawer_area = _row(swap_area, drawer)
        targets_left = (drawer_area & present).sum()
        takeable = take_area & present[None, :] & ((targets_left - drawer_area) >= 1)[None, :]
        num_take = takeable.sum(axis=1)
        first_take = jnp.argmax(takeable, axis=1)
        blocked = (num_take == 1) if forbidden else jnp.zeros(n, bool)
        kswaps = swap_area & present[None, :] & (num_take > 0)[:, None]
        kswaps = kswaps & ~(blocked[:, None] & (jnp.arange(c)[None, :] == first_take[:, None]))
        can_give = x["knockers"] & kswaps.any(axis=1) & (phase == HOLD_DECK)
        knocker = jnp.maximum(x["knocker"], 0)
        kswap_ok = _row(kswaps, knocker) & (phase == KNOCKER_SWAP)
        take_ok = _row(takeable, knocker)
        if forbidden:
            take_ok = take_ok & (jnp.arange(c) != x["given_at"])
        take_ok = take_ok & (phase == TAKE)
        return {**x, "can_give": can_give, "knocker_swap": kswap_ok, "take": take_ok}

    # ------------------------------------------------------------------ public

    def step(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """The state after ``action`` (an action id); chance draws from ``key``.

        A step on a terminated state returns it unchanged with zero rewards. An
        illegal action ends the game: the actor's rewards of the game so far become
        -1 in all (the worst, as the PettingZoo env pays it), the others get 0.
        """
        action = jnp.asarray(action, I32)
        in_range = (action >= 0) & (action < self.num_actions)
        legal = in_range & _get(state.legal_action_mask, action)
        fields = self._step_fields(state, action, key)
        new = state.replace(**fields)
        new = new.replace(legal_action_mask=self._legal_mask(new))
        # An illegal action, or a step on a finished game (rare: only those tables pay).
        checked = {"before": state, "after": new}
        checked = rarely(~legal | state.terminated, self._refused, checked, 0.0)
        out: State = checked["after"]
        return out

    def _refused(self, x: dict[str, State]) -> dict[str, State]:
        """``step``'s result for an illegal action, or on a game that is over."""
        n = self.num_players
        state = x["before"]
        seats = jnp.arange(n)
        earned = jnp.where(
            jnp.arange(ROUNDS)[:, None] < (state._round.astype(I32) - 1),
            -(state._round_scores.astype(jnp.float32) - self._reward_mid)
            / self._reward_span
            * (2 / ROUNDS),
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
        after: State = jax.tree_util.tree_map(
            lambda d, b: jnp.where(state.terminated, d, b), done, bad
        )
        return {"before": state, "after": after}

    def step_auto_reset(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """``step``; when that ends the game, a new game dealt from ``key`` instead.

        The new game keeps the final step's ``rewards`` (its ``terminated`` is False), so
        a learner sees the last round's rewards and play goes on at once. It is pgx's
        auto-reset, but under ``vmap`` only the tables whose game ended pay for the deal
        (``jax.lax.cond`` inside ``vmap`` would deal for every table at every step).
        """
        after = self.step(state, action, key)

        def deal(x: dict[str, Any]) -> dict[str, Any]:
            words = x["words"] ^ jnp.uint32(0x5BD1E995)
            fresh = self._fresh(_shuffle_one(words, jnp.asarray(self._cards), self.deck_size))
            return {"state": fresh.replace(rewards=x["state"].rewards), "words": x["words"]}

        operand: dict[str, Any] = {"state": after, "words": _key_words(key)}
        out: State = rarely(after.terminated, deal, operand, 0.0)["state"]
        return out

    def observe(self, state: State, player: jax.Array | int) -> jax.Array:
        """float32 features of ``player``'s view: ``Encoder.features(observe(...))``.

        Raises:
            ValueError: ``player`` is a Python int (or bool) that is not a seat. A traced
                ``player`` is not checked.
        """
        from allegra_rules.jax._features import features

        if isinstance(player, (int, np.integer)) and (
            isinstance(player, bool) or not 0 <= int(player) < self.num_players
        ):
            raise ValueError(f"player must be a seat 0..{self.num_players - 1}; got {player!r}")

        return features(self, state, jnp.asarray(player, I32))

    def from_state(self, state: Any) -> State:
        """The batched engine's state of the ``GameState`` ``state`` (on the host, exact)."""
        from allegra_rules.jax._convert import from_state

        return from_state(self, state)

    def to_state(self, state: State) -> Any:
        """The ``GameState`` of one table ``state`` (on the host, exact)."""
        from allegra_rules.jax._convert import to_state

        return to_state(self, state)


def _present_of(s: State) -> jax.Array:
    """Which cells hold a card: stored as the cells whose value is not the gap code."""
    return s._cells != _GAP


_GAP = -128
"""The int8 code of a gap (an empty cell): no card value is -128."""

_DATA_FIELDS = [
    name for name in State.__dataclass_fields__ if name not in ("_spec", "legal_action_mask")
]

_SETTLE_FIELDS = [
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
"""The fields that settling a setup reveal or a turn's end reads or changes (``_settle``);
scoring the round that it may end reads and changes them all (``_scored``)."""

_ENVS: dict[tuple[int, RuleConfig], Env] = {}


def env_for(spec: tuple[int, RuleConfig]) -> Env:
    """The ``Env`` of a state's ``(num_players, config)`` (the latest one built for it)."""
    return _ENVS.get(spec) or Env(*spec)


def observe_current(state: State) -> jax.Array:
    """The observation of ``state.current_player`` (seat 0 when over), batched or not."""
    env = env_for(state._spec)
    extra = state.current_player.ndim

    def one(s: State) -> jax.Array:
        out: jax.Array = env._jit_observe(s, jnp.maximum(s.current_player, 0))
        return out

    fn: Any = one
    for _ in range(extra):
        fn = jax.vmap(fn)
    result: jax.Array = fn(state)
    return result
