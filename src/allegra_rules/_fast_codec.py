"""The bulk paths of the state's JSON codec, generated from the declaration.

Do not edit: ``python -m allegra_rules._generate_fast --write`` writes this whole module from
``allegra_rules.fields`` (a test fails when it is not current). The canonical text writer of a
state (and of its ``RoundEnd``) and the bulk readers of a state document, of the part a view
shares with it and of a ``RoundEnd`` object are written out field by field from the fields'
kinds: a writer joins the sorted keys' texts in one ``"".join`` (numbers from a table of small
ints' texts, the config's and the round end's texts cached per object); a reader checks the types
of all numbers in one ``set(map(type, ...))`` pass and their ranges with ``min``/``max`` and set
membership, and answers ``None`` on any doubt, so that the checked decoders of
``allegra_rules.state_codec`` (which passes the helpers) name the bad field. Like
``allegra_rules._fast``, it imports nothing of the package: each is a factory of its helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["GENERATED_FOR"]


GENERATED_FOR: dict[str, tuple[str, ...]] = {
    "state": (
        "config",
        "num_players",
        "seed",
        "round",
        "phase",
        "current_player",
        "cells",
        "face_down",
        "draw_pile",
        "discard_pile",
        "held",
        "in_hand",
        "out_of_play",
        "start_seat",
        "setup_reveals",
        "setup_sums",
        "drawer",
        "knockers",
        "knocker",
        "given_at",
        "taken_at",
        "held_was_face_down",
        "hand_was_face_down",
        "turns_played",
        "ender",
        "final_turns",
        "refills",
        "totals",
        "round_scores",
        "winners",
        "last_round",
        "setup_named",
    ),
    "round_end": (
        "round",
        "cells",
        "zone_sums",
        "ender",
        "doubled",
        "scores",
        "removed",
    ),
}
"""The keys of the documents the code below is generated for (see ``state_codec``)."""


def make_state_json(
    *,
    number: Any,
    array: Any,
    scalar: Any,
    bool_text: Any,
    phase_text: Any,
    cached: Any,
    config_texts: Any,
    cells_per_seat: Any,
    round_end_text: Any,
) -> Callable[..., Any]:
    """``allegra_rules.state_codec.state_json``: a state's canonical JSON text."""

    def state_json(s: Any) -> str:
        """The text of ``dumps(state_to_dict(s))``, written directly."""
        n = s.num_players
        top = 1 << (n * cells_per_seat)
        bits = format(s.face_down & (top - 1) | top, "b")[:0:-1]  # bit i is character i
        config_text = cached(s.config, 0, config_texts)
        version = s.schema_version
        return "".join(
            (
                '{"cells":',
                array(s.cells),
                ',"config":',
                config_text,
                ',"current_player":',
                number(s.current_player) or scalar(s.current_player),
                ',"discard_pile":',
                array(s.discard_pile),
                ',"draw_pile":',
                array(s.draw_pile),
                ',"drawer":',
                number(s.drawer) or scalar(s.drawer),
                ',"ender":',
                number(s.ender) or scalar(s.ender),
                ',"face_down":[',
                bits.replace("1", "true,").replace("0", "false,")[:-1],
                '],"final_turns":',
                array(s.final_turns),
                ',"given_at":',
                number(s.given_at) or scalar(s.given_at),
                ',"hand_was_face_down":',
                bool_text(s.hand_was_face_down),
                ',"held":',
                number(s.held) or scalar(s.held),
                ',"held_was_face_down":',
                bool_text(s.held_was_face_down),
                ',"in_hand":[',
                ",".join(
                    ['{"card":' + scalar(c) + ',"player":' + scalar(p) + "}" for p, c in s.in_hand]
                ),
                '],"kind":"state","knocker":',
                number(s.knocker) or scalar(s.knocker),
                ',"knockers":',
                array(s.knockers),
                ',"last_round":',
                "null" if s.last_round is None else cached(s.last_round, version, round_end_text),
                ',"num_players":',
                scalar(n),
                ',"out_of_play":',
                array(s.out_of_play),
                ',"phase":',
                phase_text[s.phase],
                ',"refills":',
                scalar(s.refills),
                ',"round":',
                scalar(s.round),
                ',"round_scores":[',
                ",".join(map(array, s.round_scores)),
                '],"schema_version":',
                str(version),
                ',"seed":',
                scalar(s.seed),
                (',"setup_named":' + array(s.setup_named)) if version >= 2 else "",
                ',"setup_reveals":',
                scalar(s.setup_reveals),
                ',"setup_sums":',
                array(s.setup_sums),
                ',"start_seat":',
                scalar(s.start_seat),
                ',"taken_at":',
                number(s.taken_at) or scalar(s.taken_at),
                ',"totals":',
                array(s.totals),
                ',"turns_played":',
                scalar(s.turns_played),
                ',"winners":',
                array(s.winners),
                "}",
            )
        )

    return state_json


def make_round_end_json(
    *,
    number: Any,
    array: Any,
    scalar: Any,
    bool_text: Any,
    phase_text: Any,
    cached: Any,
    config_texts: Any,
    cells_per_seat: Any,
) -> Callable[..., Any]:
    """The canonical JSON text of a ``RoundEnd`` in a document of a schema version."""

    def round_end_json(e: Any, version: int) -> str:
        """The text of ``dumps(round_end_to_dict(e, version))``, written directly."""
        return "".join(
            (
                '{"cells":',
                array(e.cells),
                ',"doubled":',
                bool_text(e.doubled),
                ',"ender":',
                number(e.ender) or scalar(e.ender),
                (',"removed":' + array(e.removed)) if version >= 2 else "",
                ',"round":',
                scalar(e.round),
                ',"scores":',
                array(e.scores),
                ',"zone_sums":',
                array(e.zone_sums),
                "}",
            )
        )

    return round_end_json


def make_read_state(
    *,
    rounds: Any,
    phases: Any,
    int_only: Any,
    bool_only: Any,
    list_only: Any,
    chain: Any,
    compress: Any,
    not_none: Any,
    are_cards_or_null: Any,
    seats_of: Any,
    face_down_mask: Any,
    hand_keys: Any,
    min_seed: Any,
    max_seed: Any,
    read_round_end: Any,
) -> Callable[..., Any]:
    """``allegra_rules.state_codec.read_state_fast``: every field of a state document."""

    def read(data: Any, valid: Any) -> Any:
        """The fields checked in bulk, by name; ``None`` on any doubt."""
        n = valid.seat_count
        num_cells = valid.num_cells
        values = valid.values
        config = valid.rule_config
        version = valid.version
        seats = seats_of(n)
        v_seed = data["seed"]
        v_round = data["round"]
        v_phase = data["phase"]
        v_current_player = data["current_player"]
        v_cells = data["cells"]
        v_face_down = data["face_down"]
        v_draw_pile = data["draw_pile"]
        v_discard_pile = data["discard_pile"]
        v_held = data["held"]
        v_in_hand = data["in_hand"]
        v_out_of_play = data["out_of_play"]
        v_start_seat = data["start_seat"]
        v_setup_reveals = data["setup_reveals"]
        v_setup_sums = data["setup_sums"]
        v_drawer = data["drawer"]
        v_knockers = data["knockers"]
        v_knocker = data["knocker"]
        v_given_at = data["given_at"]
        v_taken_at = data["taken_at"]
        v_held_was_face_down = data["held_was_face_down"]
        v_hand_was_face_down = data["hand_was_face_down"]
        v_turns_played = data["turns_played"]
        v_ender = data["ender"]
        v_final_turns = data["final_turns"]
        v_refills = data["refills"]
        v_totals = data["totals"]
        v_round_scores = data["round_scores"]
        v_winners = data["winners"]
        v_last_round = data["last_round"]
        v_setup_named = data["setup_named"] if version >= 2 else []
        if {
            type(v_seed),
            type(v_round),
            type(v_start_seat),
            type(v_setup_reveals),
            type(v_turns_played),
            type(v_refills),
        } != int_only:
            return None
        if not (
            min_seed <= v_seed <= max_seed
            and 1 <= v_round <= rounds
            and 0 <= v_start_seat < n
            and 0 <= v_setup_reveals <= 2 * n
            and 0 <= v_turns_played <= config.max_turns_per_round
            and 0 <= v_refills <= v_turns_played
        ):
            return None
        v_phase = phases.get(v_phase) if type(v_phase) is str else None
        if v_phase is None:
            return None
        if type(v_held_was_face_down) is not bool:
            return None
        if type(v_hand_was_face_down) is not bool:
            return None
        optional = list(filter(not_none, (v_current_player, v_drawer, v_knocker, v_ender)))
        if not set(map(type, optional)) <= int_only or not seats.issuperset(optional):
            return None
        at = list(filter(not_none, (v_given_at, v_taken_at)))
        if at and not (set(map(type, at)) <= int_only and min(at) >= 0 and max(at) < num_cells):
            return None
        if not (v_held is None or (type(v_held) is int and v_held in values)):
            return None
        if {
            type(v_cells),
            type(v_face_down),
            type(v_draw_pile),
            type(v_discard_pile),
            type(v_in_hand),
            type(v_out_of_play),
            type(v_setup_sums),
            type(v_knockers),
            type(v_final_turns),
            type(v_totals),
            type(v_round_scores),
            type(v_winners),
            type(v_setup_named),
        } != list_only:
            return None
        if not set(map(type, v_round_scores)) <= list_only:
            return None
        numbers = (
            v_draw_pile,
            v_discard_pile,
            v_out_of_play,
            v_setup_sums,
            v_knockers,
            v_final_turns,
            v_totals,
            v_winners,
            v_setup_named,
            *v_round_scores,
        )
        if not set(map(type, chain(*numbers))) <= int_only:
            return None
        if not (
            len(v_cells) == num_cells
            and are_cards_or_null(v_cells, values)
            and len(v_face_down) == num_cells
            and set(map(type, v_face_down)) <= bool_only
            and None not in compress(v_cells, v_face_down)
            and len(v_draw_pile) <= config.deck_size
            and values.issuperset(v_draw_pile)
            and len(v_discard_pile) <= config.deck_size
            and values.issuperset(v_discard_pile)
            and len(v_in_hand) <= 1
            and len(v_out_of_play) <= config.deck_size
            and values.issuperset(v_out_of_play)
            and len(v_setup_sums) == n
            and -valid.setup_bound <= min(v_setup_sums)
            and max(v_setup_sums) <= valid.setup_bound
            and seats.issuperset(v_knockers)
            and len(set(v_knockers)) == len(v_knockers)
            and seats.issuperset(v_final_turns)
            and len(set(v_final_turns)) == len(v_final_turns)
            and len(v_totals) == n
            and -rounds * valid.score_bound <= min(v_totals)
            and max(v_totals) <= rounds * valid.score_bound
            and len(v_round_scores) <= rounds
            and seats.issuperset(v_winners)
            and len(set(v_winners)) == len(v_winners)
            and len(v_setup_named) <= 2 * n
            and (not v_setup_named or (min(v_setup_named) >= 0 and max(v_setup_named) < num_cells))
        ):
            return None
        if v_round_scores:
            if set(map(len, v_round_scores)) != {n}:
                return None
            scores = list(chain(*v_round_scores))
            bound = valid.score_bound
            if not (-bound <= min(scores) and max(scores) <= bound):
                return None
        if v_in_hand:
            entry = v_in_hand[0]
            if type(entry) is not dict or entry.keys() != hand_keys:
                return None
            p, c = entry["player"], entry["card"]
            if not (type(p) is int and 0 <= p < n and type(c) is int and c in values):
                return None
            v_in_hand = ((p, c),)
        else:
            v_in_hand = ()
        if v_last_round is not None:
            v_last_round = read_round_end(v_last_round, valid)
            if v_last_round is None:
                return None
        return {
            "config": config,
            "num_players": n,
            "seed": v_seed,
            "round": v_round,
            "phase": v_phase,
            "current_player": v_current_player,
            "cells": tuple(v_cells),
            "face_down": face_down_mask(v_face_down),
            "draw_pile": tuple(v_draw_pile),
            "discard_pile": tuple(v_discard_pile),
            "held": v_held,
            "in_hand": v_in_hand,
            "out_of_play": tuple(v_out_of_play),
            "start_seat": v_start_seat,
            "setup_reveals": v_setup_reveals,
            "setup_sums": tuple(v_setup_sums),
            "drawer": v_drawer,
            "knockers": tuple(v_knockers),
            "knocker": v_knocker,
            "given_at": v_given_at,
            "taken_at": v_taken_at,
            "held_was_face_down": v_held_was_face_down,
            "hand_was_face_down": v_hand_was_face_down,
            "turns_played": v_turns_played,
            "ender": v_ender,
            "final_turns": tuple(v_final_turns),
            "refills": v_refills,
            "totals": tuple(v_totals),
            "round_scores": tuple(map(tuple, v_round_scores)),
            "winners": tuple(v_winners),
            "last_round": v_last_round,
            "setup_named": tuple(v_setup_named),
            "schema_version": version,
        }

    return read


def make_read_public(
    *,
    rounds: Any,
    phases: Any,
    int_only: Any,
    bool_only: Any,
    list_only: Any,
    chain: Any,
    compress: Any,
    not_none: Any,
    are_cards_or_null: Any,
    seats_of: Any,
    face_down_mask: Any,
    hand_keys: Any,
    min_seed: Any,
    max_seed: Any,
    read_round_end: Any,
) -> Callable[..., Any]:
    """``allegra_rules.state_codec.public_fast``: the fields a state and a view share."""

    def read(data: Any, valid: Any) -> Any:
        """The fields checked in bulk, by name; ``None`` on any doubt."""
        n = valid.seat_count
        num_cells = valid.num_cells
        values = valid.values
        config = valid.rule_config
        seats = seats_of(n)
        v_round = data["round"]
        v_phase = data["phase"]
        v_current_player = data["current_player"]
        v_discard_pile = data["discard_pile"]
        v_out_of_play = data["out_of_play"]
        v_start_seat = data["start_seat"]
        v_setup_reveals = data["setup_reveals"]
        v_setup_sums = data["setup_sums"]
        v_drawer = data["drawer"]
        v_knockers = data["knockers"]
        v_knocker = data["knocker"]
        v_given_at = data["given_at"]
        v_taken_at = data["taken_at"]
        v_held_was_face_down = data["held_was_face_down"]
        v_hand_was_face_down = data["hand_was_face_down"]
        v_turns_played = data["turns_played"]
        v_ender = data["ender"]
        v_final_turns = data["final_turns"]
        v_refills = data["refills"]
        v_totals = data["totals"]
        v_round_scores = data["round_scores"]
        v_winners = data["winners"]
        v_last_round = data["last_round"]
        if {
            type(v_round),
            type(v_start_seat),
            type(v_setup_reveals),
            type(v_turns_played),
            type(v_refills),
        } != int_only:
            return None
        if not (
            1 <= v_round <= rounds
            and 0 <= v_start_seat < n
            and 0 <= v_setup_reveals <= 2 * n
            and 0 <= v_turns_played <= config.max_turns_per_round
            and 0 <= v_refills <= v_turns_played
        ):
            return None
        v_phase = phases.get(v_phase) if type(v_phase) is str else None
        if v_phase is None:
            return None
        if type(v_held_was_face_down) is not bool:
            return None
        if type(v_hand_was_face_down) is not bool:
            return None
        optional = list(filter(not_none, (v_current_player, v_drawer, v_knocker, v_ender)))
        if not set(map(type, optional)) <= int_only or not seats.issuperset(optional):
            return None
        at = list(filter(not_none, (v_given_at, v_taken_at)))
        if at and not (set(map(type, at)) <= int_only and min(at) >= 0 and max(at) < num_cells):
            return None
        if {
            type(v_discard_pile),
            type(v_out_of_play),
            type(v_setup_sums),
            type(v_knockers),
            type(v_final_turns),
            type(v_totals),
            type(v_round_scores),
            type(v_winners),
        } != list_only:
            return None
        if not set(map(type, v_round_scores)) <= list_only:
            return None
        numbers = (
            v_discard_pile,
            v_out_of_play,
            v_setup_sums,
            v_knockers,
            v_final_turns,
            v_totals,
            v_winners,
            *v_round_scores,
        )
        if not set(map(type, chain(*numbers))) <= int_only:
            return None
        if not (
            len(v_discard_pile) <= config.deck_size
            and values.issuperset(v_discard_pile)
            and len(v_out_of_play) <= config.deck_size
            and values.issuperset(v_out_of_play)
            and len(v_setup_sums) == n
            and -valid.setup_bound <= min(v_setup_sums)
            and max(v_setup_sums) <= valid.setup_bound
            and seats.issuperset(v_knockers)
            and len(set(v_knockers)) == len(v_knockers)
            and seats.issuperset(v_final_turns)
            and len(set(v_final_turns)) == len(v_final_turns)
            and len(v_totals) == n
            and -rounds * valid.score_bound <= min(v_totals)
            and max(v_totals) <= rounds * valid.score_bound
            and len(v_round_scores) <= rounds
            and seats.issuperset(v_winners)
            and len(set(v_winners)) == len(v_winners)
        ):
            return None
        if v_round_scores:
            if set(map(len, v_round_scores)) != {n}:
                return None
            scores = list(chain(*v_round_scores))
            bound = valid.score_bound
            if not (-bound <= min(scores) and max(scores) <= bound):
                return None
        if v_last_round is not None:
            v_last_round = read_round_end(v_last_round, valid)
            if v_last_round is None:
                return None
        return {
            "round": v_round,
            "phase": v_phase,
            "current_player": v_current_player,
            "discard_pile": tuple(v_discard_pile),
            "out_of_play": tuple(v_out_of_play),
            "start_seat": v_start_seat,
            "setup_reveals": v_setup_reveals,
            "setup_sums": tuple(v_setup_sums),
            "drawer": v_drawer,
            "knockers": tuple(v_knockers),
            "knocker": v_knocker,
            "given_at": v_given_at,
            "taken_at": v_taken_at,
            "held_was_face_down": v_held_was_face_down,
            "hand_was_face_down": v_hand_was_face_down,
            "turns_played": v_turns_played,
            "ender": v_ender,
            "final_turns": tuple(v_final_turns),
            "refills": v_refills,
            "totals": tuple(v_totals),
            "round_scores": tuple(map(tuple, v_round_scores)),
            "winners": tuple(v_winners),
            "last_round": v_last_round,
        }

    return read


def make_read_round_end(
    *,
    rounds: Any,
    phases: Any,
    int_only: Any,
    bool_only: Any,
    list_only: Any,
    chain: Any,
    compress: Any,
    not_none: Any,
    are_cards_or_null: Any,
    seats_of: Any,
    face_down_mask: Any,
    hand_keys: Any,
    min_seed: Any,
    max_seed: Any,
    read_round_end: Any,
) -> Callable[..., Any]:
    """The fields of a ``RoundEnd`` object (its keys already checked)."""

    def read(data: Any, valid: Any) -> Any:
        """The fields checked in bulk, by name; ``None`` on any doubt."""
        n = valid.seat_count
        num_cells = valid.num_cells
        values = valid.values
        version = valid.version
        seats = seats_of(n)
        v_round = data["round"]
        v_cells = data["cells"]
        v_zone_sums = data["zone_sums"]
        v_ender = data["ender"]
        v_doubled = data["doubled"]
        v_scores = data["scores"]
        v_removed = data["removed"] if version >= 2 else []
        if {
            type(v_round),
        } != int_only:
            return None
        if not (1 <= v_round <= rounds):
            return None
        if type(v_doubled) is not bool:
            return None
        optional = list(filter(not_none, (v_ender,)))
        if not set(map(type, optional)) <= int_only or not seats.issuperset(optional):
            return None
        if {
            type(v_cells),
            type(v_zone_sums),
            type(v_scores),
            type(v_removed),
        } != list_only:
            return None
        numbers = (
            v_zone_sums,
            v_scores,
            v_removed,
        )
        if not set(map(type, chain(*numbers))) <= int_only:
            return None
        if not (
            len(v_cells) == num_cells
            and are_cards_or_null(v_cells, values)
            and len(v_zone_sums) == n
            and -valid.score_bound <= min(v_zone_sums)
            and max(v_zone_sums) <= valid.score_bound
            and len(v_scores) == n
            and -valid.score_bound <= min(v_scores)
            and max(v_scores) <= valid.score_bound
            and len(v_removed) <= num_cells
            and v_removed == sorted(set(v_removed))
            and (not v_removed or (v_removed[0] >= 0 and v_removed[-1] < num_cells))
        ):
            return None
        return {
            "round": v_round,
            "cells": tuple(v_cells),
            "zone_sums": tuple(v_zone_sums),
            "ender": v_ender,
            "doubled": v_doubled,
            "scores": tuple(v_scores),
            "removed": tuple(v_removed),
        }

    return read
