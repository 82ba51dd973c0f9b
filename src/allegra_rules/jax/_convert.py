"""Moving one table between the two engines, on the host: exact both ways."""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from allegra_rules.encoding import legal_action_mask
from allegra_rules.fields import STATE_FIELDS
from allegra_rules.jax._by_kind import BY_KIND, from_array, to_array
from allegra_rules.jax._state import State
from allegra_rules.jax._tables import GAP, NONE, OVER, StaticTables
from allegra_rules.state import GameState, Phase, RoundEnd
from allegra_rules.transitions import ROUNDS

_PHASES = tuple(Phase)
_SEED_BITS = 128
_HOLDING = frozenset(
    {Phase.KNOCK, Phase.HOLD_DECK, Phase.HOLD_DISCARD, Phase.KNOCKER_SWAP, Phase.HOLD_TAKEN}
)


_OWN_ARRAYS: dict[str, tuple[str, ...]] = {
    "config": (),  # the Env's: one config per Env
    "num_players": (),  # the Env's
    "phase": ("_phase", "terminated"),
    "current_player": ("current_player",),  # pgx's name
    "draw_pile": ("_draw", "_draw_len"),
    "discard_pile": ("_discard", "_discard_len"),
    "in_hand": ("_hand_owner", "_hand_card"),
    "out_of_play": ("_out", "_out_len"),
    "final_turns": ("_final_due",),
    "winners": (),  # the seats of the lowest total once the game is over
    "last_round": (
        "_has_last",
        "_last_round",
        "_last_cells",
        "_last_sums",
        "_last_ender",
        "_last_doubled",
        "_last_scores",
        "_last_removed",
    ),
}
"""The fields of a ``GameState`` that ``State`` holds otherwise than in one array named
after the field with a leading ``_`` (``round`` in ``_round``)."""

STATE_ARRAYS: dict[str, tuple[str, ...]] = {
    f.name: _OWN_ARRAYS.get(f.name, (f"_{f.name}",)) for f in STATE_FIELDS
}
"""For each field of a ``GameState`` (``allegra_rules.fields``), the arrays of ``State`` that
hold it (empty: the Env's, or derived from other fields), derived from the declaration. A
field added to the declaration needs its arrays in ``State`` (the import fails until they
are there), and its conversion in ``from_state`` and ``to_state``."""

_MISSING = sorted(
    {a for arrays in STATE_ARRAYS.values() for a in arrays} - set(State.__dataclass_fields__)
)
if _MISSING:  # pragma: no cover
    raise ImportError(
        f"allegra_rules.jax._state.State lacks the arrays {', '.join(_MISSING)} of fields of "
        "allegra_rules.fields.STATE_FIELDS: add them (see allegra_rules.jax._convert)"
    )


def _opt(value: int | None) -> int:
    return NONE if value is None else value


def _seat_order(seats: Any, origin: int, n: int) -> tuple[int, ...]:
    """The seats of a bool vector in clockwise order from ``origin``."""
    chosen = [p for p in range(n) if seats[p]]
    return tuple(sorted(chosen, key=lambda p: (p - origin) % n))


def _seed_words(seed: int) -> np.ndarray[Any, Any]:
    if not -(1 << (_SEED_BITS - 1)) <= seed < (1 << (_SEED_BITS - 1)):
        raise ValueError(
            f"the batched engine keeps a game's seed in {_SEED_BITS} bits: the seed must be "
            f"-2**{_SEED_BITS - 1}..2**{_SEED_BITS - 1}-1; got {seed}"
        )
    unsigned = seed % (1 << _SEED_BITS)
    return np.array([(unsigned >> (32 * k)) & 0xFFFFFFFF for k in range(4)], np.uint32)


def _seed_of(words: Any) -> int:
    unsigned = sum(int(w) << (32 * k) for k, w in enumerate(words))
    return unsigned - (1 << _SEED_BITS) if unsigned >> (_SEED_BITS - 1) else unsigned


@jax.jit
def _on_device(fields: dict[str, Any]) -> dict[str, Any]:
    """The arrays of ``fields`` on the default device.

    What ``jax.device_put`` does, in a fifth of its time: a compiled program's arguments
    are moved by JAX's C++ dispatch (0.16 ms for a state's 46 arrays, 0.85 ms with
    ``device_put``), and lock-step checks convert a state at every step.
    """
    return fields


def from_state(env: StaticTables, s: object) -> State:
    """The batched state of the ``GameState`` ``s`` (see ``Env.from_state``)."""
    if not isinstance(s, GameState):
        raise ValueError(f"state must be a GameState; got {type(s).__name__}")
    if s.num_players != env.num_players or s.config != env.config:
        raise ValueError(
            f"the state is a {s.num_players}-player game under config "
            f"{s.config.fingerprint[:12]}; this Env plays {env.num_players} players under "
            f"{env.config.fingerprint[:12]}"
        )
    n, c, d = env.num_players, env.num_cells, env.deck_size
    drawer = s.drawer
    origin = 0 if drawer is None else drawer
    knockers = np.zeros(n, bool)
    knockers[list(s.knockers)] = True
    due = np.zeros(n, bool)
    due[list(s.final_turns)] = True
    problems = []
    if _seat_order(knockers, (origin + 1) % n, n) != s.knockers:
        problems.append(f"knockers {s.knockers} are not clockwise from the drawer")
    if _seat_order(due, origin, n) != s.final_turns:
        problems.append(f"final_turns {s.final_turns} are not clockwise from the drawer")
    finished = ROUNDS if s.phase is Phase.OVER else s.round - 1
    if len(s.round_scores) != finished:
        problems.append(f"{len(s.round_scores)} round scores in round {s.round}")
    if len(s.in_hand) > 1:
        problems.append(f"in_hand holds {len(s.in_hand)} cards")
    if (s.held is not None) != (s.phase in _HOLDING):
        problems.append(f"held is {s.held!r} in phase {s.phase.value!r}")
    if problems:
        raise ValueError("the batched engine cannot hold this state: " + "; ".join(problems))

    def pile(cards: tuple[int, ...]) -> np.ndarray[Any, Any]:
        out = np.zeros(d, np.int8)
        out[: len(cards)] = cards
        return out

    scores = np.zeros((ROUNDS, n), np.int32)
    for r, row in enumerate(s.round_scores):
        scores[r] = row
    named = np.full(2 * n, NONE, np.int16)
    named[: len(s.setup_named)] = s.setup_named
    last = s.last_round
    hand = s.in_hand[0] if s.in_hand else (NONE, 0)
    fields: dict[str, Any] = {
        "current_player": np.int8(_opt(s.current_player)),
        "rewards": np.zeros(n, np.float32),
        "terminated": np.bool_(s.is_terminal),
        "truncated": np.bool_(False),
        "_phase": np.int8(_PHASES.index(s.phase)),
        "_round": np.int8(s.round),
        "_cells": np.array([GAP if v is None else v for v in s.cells], np.int8),
        "_face_down": np.array([(s.face_down >> i) & 1 for i in range(c)], bool),
        "_draw": pile(s.draw_pile[::-1]),
        "_draw_len": np.int16(len(s.draw_pile)),
        "_discard": pile(s.discard_pile),
        "_discard_len": np.int16(len(s.discard_pile)),
        "_out": pile(s.out_of_play),
        "_out_len": np.int16(len(s.out_of_play)),
        "_held": np.int8(GAP if s.held is None else s.held),
        "_hand_owner": np.int8(hand[0]),
        "_hand_card": np.int8(hand[1]),
        "_start_seat": np.int8(s.start_seat),
        "_setup_reveals": np.int8(s.setup_reveals),
        "_setup_sums": np.array(s.setup_sums, np.int32),
        "_setup_named": named,
        "_drawer": np.int8(_opt(drawer)),
        "_knockers": knockers,
        "_knocker": np.int8(_opt(s.knocker)),
        "_given_at": np.int16(_opt(s.given_at)),
        "_taken_at": np.int16(_opt(s.taken_at)),
        "_held_was_face_down": np.bool_(s.held_was_face_down),
        "_hand_was_face_down": np.bool_(s.hand_was_face_down),
        "_turns_played": np.int32(s.turns_played),
        "_ender": np.int8(_opt(s.ender)),
        "_final_due": due,
        "_refills": np.int16(s.refills),
        "_totals": np.array(s.totals, np.int32),
        "_round_scores": scores,
        "_has_last": np.bool_(last is not None),
        "_last_round": np.int8(0 if last is None else last.round),
        "_last_cells": np.array(
            [0] * c if last is None else [GAP if v is None else v for v in last.cells], np.int8
        ),
        "_last_sums": np.array((0,) * n if last is None else last.zone_sums, np.int32),
        "_last_ender": np.int8(NONE if last is None else _opt(last.ender)),
        "_last_doubled": np.bool_(last is not None and last.doubled),
        "_last_scores": np.array((0,) * n if last is None else last.scores, np.int32),
        "_last_removed": np.isin(np.arange(c), () if last is None else last.removed),
        "_seed": _seed_words(s.seed),
        "_schema_version": np.int8(s.schema_version),
        "_illegal": np.bool_(False),
    }
    for f in BY_KIND:  # the fields held by their kind alone
        fields[f"_{f.name}"] = to_array(f, getattr(s, f.name))
    # The scalar engine's mask: exact by definition, and no compiled program needed here.
    fields["legal_action_mask"] = np.array(legal_action_mask(s), bool)
    assert {a for arrays in STATE_ARRAYS.values() for a in arrays} <= set(fields)
    arrays = _on_device(fields)
    return State(_spec=env, **arrays)


def to_state(env: StaticTables, state: State) -> GameState:
    """The ``GameState`` of the single table ``state`` (see ``Env.to_state``)."""
    if not isinstance(state, State):
        raise ValueError(f"state must be an allegra_rules.jax.State; got {type(state).__name__}")
    if np.ndim(state.current_player) != 0:
        raise ValueError(
            "to_state converts one table; index a batch first, e.g. "
            "jax.tree_util.tree_map(lambda x: x[i], states)"
        )
    if state._spec != env:
        raise ValueError("the state belongs to another Env (seat count or config)")
    v = {
        name: np.asarray(getattr(state, name))
        for name in State.__dataclass_fields__
        if name != "_spec"
    }
    if bool(v["_illegal"]):
        raise ValueError("the game ended on an illegal action: no GameState corresponds to it")
    n, c = env.num_players, env.num_cells

    def opt(x: Any) -> int | None:
        return None if int(x) < 0 else int(x)

    def cards(arr: Any, length: Any) -> tuple[int, ...]:
        return tuple(int(x) for x in arr[: int(length)])

    phase = _PHASES[int(v["_phase"])]
    drawer = opt(v["_drawer"])
    origin = 0 if drawer is None else drawer
    cells = tuple(None if int(x) == GAP else int(x) for x in v["_cells"])
    face_down = sum(1 << i for i in range(c) if v["_face_down"][i])
    finished = ROUNDS if int(v["_phase"]) == OVER else int(v["_round"]) - 1
    round_scores = tuple(tuple(int(x) for x in v["_round_scores"][r]) for r in range(finished))
    totals = tuple(int(x) for x in v["_totals"])
    winners: tuple[int, ...] = ()
    if phase is Phase.OVER:
        best = min(totals)
        winners = tuple(p for p in range(n) if totals[p] == best)
    last = None
    if bool(v["_has_last"]):
        last = RoundEnd(
            round=int(v["_last_round"]),
            cells=tuple(None if int(x) == GAP else int(x) for x in v["_last_cells"]),
            zone_sums=tuple(int(x) for x in v["_last_sums"]),
            ender=opt(v["_last_ender"]),
            doubled=bool(v["_last_doubled"]),
            scores=tuple(int(x) for x in v["_last_scores"]),
            removed=tuple(int(i) for i in np.flatnonzero(v["_last_removed"])),
        )
    hand_owner = opt(v["_hand_owner"])
    return GameState(
        config=env.config,
        num_players=n,
        seed=_seed_of(v["_seed"]),
        round=int(v["_round"]),
        phase=phase,
        current_player=opt(v["current_player"]),
        cells=cells,
        face_down=face_down,
        draw_pile=cards(v["_draw"], v["_draw_len"])[::-1],
        discard_pile=cards(v["_discard"], v["_discard_len"]),
        held=None if int(v["_held"]) == GAP else int(v["_held"]),
        in_hand=() if hand_owner is None else ((hand_owner, int(v["_hand_card"])),),
        out_of_play=cards(v["_out"], v["_out_len"]),
        start_seat=int(v["_start_seat"]),
        setup_reveals=int(v["_setup_reveals"]),
        setup_sums=tuple(int(x) for x in v["_setup_sums"]),
        drawer=drawer,
        knockers=_seat_order(v["_knockers"], (origin + 1) % n, n),
        knocker=opt(v["_knocker"]),
        given_at=opt(v["_given_at"]),
        taken_at=opt(v["_taken_at"]),
        held_was_face_down=bool(v["_held_was_face_down"]),
        hand_was_face_down=bool(v["_hand_was_face_down"]),
        turns_played=int(v["_turns_played"]),
        ender=opt(v["_ender"]),
        final_turns=_seat_order(v["_final_due"], origin, n),
        refills=int(v["_refills"]),
        totals=totals,
        round_scores=round_scores,
        winners=winners,
        last_round=last,
        setup_named=tuple(int(x) for x in v["_setup_named"][: len(v["_setup_named"])] if x >= 0)
        if int(v["_phase"]) == 0
        else (),
        schema_version=int(v["_schema_version"]),
        **{f.name: from_array(f, v[f"_{f.name}"]) for f in BY_KIND},
    )
