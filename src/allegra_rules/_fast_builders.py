"""The builders of states and views, generated from the declaration.

Do not edit: ``python -m allegra_rules._generate_fast --write`` writes this whole module from
``allegra_rules.fields``, the slots of ``GameState`` and ``PlayerView`` and the ``_copier(...)``
calls of the transitions (a test fails when it is not current). ``allegra_rules._fast`` takes
every name; it builds each builder from its factory here only while ``GENERATED_FOR`` names the
classes' fields, and a stand-in that says to run the generator otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "COPIERS",
    "GENERATED_FOR",
    "NEWEST_VERSION",
    "make_copier_0",
    "make_copier_1",
    "make_copier_2",
    "make_copier_3",
    "make_copier_4",
    "make_observe",
    "make_state_of_view",
    "make_trusted_evolve",
    "make_trusted_state",
    "make_view",
]


NEWEST_VERSION = 2
"""``allegra_rules.fields.NEWEST_VERSION``, for the modules that play without the
declaration (importing it costs a twentieth of ``import allegra_rules``)."""

GENERATED_FOR: dict[str, tuple[str, ...]] = {
    "GameState": (
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
        "schema_version",
        "_legal",
    ),
    "PlayerView": (
        "viewer",
        "config",
        "num_players",
        "round",
        "phase",
        "current_player",
        "cells",
        "face_down",
        "draw_pile_size",
        "draw_pile_cards",
        "discard_pile",
        "held",
        "held_hidden",
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
        "legal_actions",
        "own_setup_named",
        "schema_version",
    ),
}
"""The fields of each class the code below is generated for (see ``built``)."""


def make_trusted_state(
    cls: type,
    twin: type,
    missing: Any,
    later_default: Any,
) -> Callable[..., Any]:
    """``allegra_rules.state.trusted_state``: every field given."""
    new = object.__new__

    def trusted_state(
        *,
        config: Any,
        num_players: Any,
        seed: Any,
        round: Any,
        phase: Any,
        current_player: Any,
        cells: Any,
        face_down: Any,
        draw_pile: Any,
        discard_pile: Any,
        held: Any,
        in_hand: Any,
        out_of_play: Any,
        start_seat: Any,
        setup_reveals: Any,
        setup_sums: Any,
        drawer: Any,
        knockers: Any,
        knocker: Any,
        given_at: Any,
        taken_at: Any,
        held_was_face_down: Any,
        hand_was_face_down: Any,
        turns_played: Any,
        ender: Any,
        final_turns: Any,
        refills: Any,
        totals: Any,
        round_scores: Any,
        winners: Any,
        last_round: Any,
        setup_named: Any = (),
        schema_version: Any,
    ) -> Any:
        """A GameState of the fields given, unchecked."""
        o: Any = new(twin)
        o.config = config
        o.num_players = num_players
        o.seed = seed
        o.round = round
        o.phase = phase
        o.current_player = current_player
        o.cells = cells
        o.face_down = face_down
        o.draw_pile = draw_pile
        o.discard_pile = discard_pile
        o.held = held
        o.in_hand = in_hand
        o.out_of_play = out_of_play
        o.start_seat = start_seat
        o.setup_reveals = setup_reveals
        o.setup_sums = setup_sums
        o.drawer = drawer
        o.knockers = knockers
        o.knocker = knocker
        o.given_at = given_at
        o.taken_at = taken_at
        o.held_was_face_down = held_was_face_down
        o.hand_was_face_down = hand_was_face_down
        o.turns_played = turns_played
        o.ender = ender
        o.final_turns = final_turns
        o.refills = refills
        o.totals = totals
        o.round_scores = round_scores
        o.winners = winners
        o.last_round = last_round
        o.setup_named = setup_named
        o.schema_version = schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return trusted_state


def make_trusted_evolve(cls: type, twin: type, missing: Any) -> Callable[..., Any]:
    """``allegra_rules.state.trusted_evolve``: a copy, the fields given replaced."""
    new = object.__new__

    def trusted_evolve(
        s: Any,
        *,
        config: Any = missing,
        num_players: Any = missing,
        seed: Any = missing,
        round: Any = missing,
        phase: Any = missing,
        current_player: Any = missing,
        cells: Any = missing,
        face_down: Any = missing,
        draw_pile: Any = missing,
        discard_pile: Any = missing,
        held: Any = missing,
        in_hand: Any = missing,
        out_of_play: Any = missing,
        start_seat: Any = missing,
        setup_reveals: Any = missing,
        setup_sums: Any = missing,
        drawer: Any = missing,
        knockers: Any = missing,
        knocker: Any = missing,
        given_at: Any = missing,
        taken_at: Any = missing,
        held_was_face_down: Any = missing,
        hand_was_face_down: Any = missing,
        turns_played: Any = missing,
        ender: Any = missing,
        final_turns: Any = missing,
        refills: Any = missing,
        totals: Any = missing,
        round_scores: Any = missing,
        winners: Any = missing,
        last_round: Any = missing,
        setup_named: Any = missing,
        schema_version: Any = missing,
    ) -> Any:
        """A copy of ``s`` with the fields given replaced, unchecked."""
        o: Any = new(twin)
        o.config = s.config if config is missing else config
        o.num_players = s.num_players if num_players is missing else num_players
        o.seed = s.seed if seed is missing else seed
        o.round = s.round if round is missing else round
        o.phase = s.phase if phase is missing else phase
        o.current_player = s.current_player if current_player is missing else current_player
        o.cells = s.cells if cells is missing else cells
        o.face_down = s.face_down if face_down is missing else face_down
        o.draw_pile = s.draw_pile if draw_pile is missing else draw_pile
        o.discard_pile = s.discard_pile if discard_pile is missing else discard_pile
        o.held = s.held if held is missing else held
        o.in_hand = s.in_hand if in_hand is missing else in_hand
        o.out_of_play = s.out_of_play if out_of_play is missing else out_of_play
        o.start_seat = s.start_seat if start_seat is missing else start_seat
        o.setup_reveals = s.setup_reveals if setup_reveals is missing else setup_reveals
        o.setup_sums = s.setup_sums if setup_sums is missing else setup_sums
        o.drawer = s.drawer if drawer is missing else drawer
        o.knockers = s.knockers if knockers is missing else knockers
        o.knocker = s.knocker if knocker is missing else knocker
        o.given_at = s.given_at if given_at is missing else given_at
        o.taken_at = s.taken_at if taken_at is missing else taken_at
        o.held_was_face_down = (
            s.held_was_face_down if held_was_face_down is missing else held_was_face_down
        )
        o.hand_was_face_down = (
            s.hand_was_face_down if hand_was_face_down is missing else hand_was_face_down
        )
        o.turns_played = s.turns_played if turns_played is missing else turns_played
        o.ender = s.ender if ender is missing else ender
        o.final_turns = s.final_turns if final_turns is missing else final_turns
        o.refills = s.refills if refills is missing else refills
        o.totals = s.totals if totals is missing else totals
        o.round_scores = s.round_scores if round_scores is missing else round_scores
        o.winners = s.winners if winners is missing else winners
        o.last_round = s.last_round if last_round is missing else last_round
        o.setup_named = s.setup_named if setup_named is missing else setup_named
        o.schema_version = s.schema_version if schema_version is missing else schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return trusted_evolve


def make_copier_0(
    cls: type,
    twin: type,
    phase: Any,
    held: Any,
    in_hand: Any,
    knockers: Any,
    knocker: Any,
    given_at: Any,
    taken_at: Any,
    held_was_face_down: Any,
    hand_was_face_down: Any,
) -> Callable[..., Any]:
    """A copier of the transitions (see ``COPIERS``)."""
    new = object.__new__

    def copy(
        s: Any,
        *,
        current_player: Any,
        cells: Any,
        face_down: Any,
        discard_pile: Any,
        out_of_play: Any,
        drawer: Any,
        ender: Any,
        final_turns: Any,
    ) -> Any:
        """A copy of ``s``: the fields given replaced, the fixed ones set."""
        o: Any = new(twin)
        o.config = s.config
        o.num_players = s.num_players
        o.seed = s.seed
        o.round = s.round
        o.phase = phase
        o.current_player = current_player
        o.cells = cells
        o.face_down = face_down
        o.draw_pile = s.draw_pile
        o.discard_pile = discard_pile
        o.held = held
        o.in_hand = in_hand
        o.out_of_play = out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = drawer
        o.knockers = knockers
        o.knocker = knocker
        o.given_at = given_at
        o.taken_at = taken_at
        o.held_was_face_down = held_was_face_down
        o.hand_was_face_down = hand_was_face_down
        o.turns_played = s.turns_played
        o.ender = ender
        o.final_turns = final_turns
        o.refills = s.refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        o.setup_named = s.setup_named
        o.schema_version = s.schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return copy


def make_copier_1(cls: type, twin: type) -> Callable[..., Any]:
    """A copier of the transitions (see ``COPIERS``)."""
    new = object.__new__

    def copy(s: Any, *, current_player: Any, knockers: Any) -> Any:
        """A copy of ``s``: the fields given replaced, the fixed ones set."""
        o: Any = new(twin)
        o.config = s.config
        o.num_players = s.num_players
        o.seed = s.seed
        o.round = s.round
        o.phase = s.phase
        o.current_player = current_player
        o.cells = s.cells
        o.face_down = s.face_down
        o.draw_pile = s.draw_pile
        o.discard_pile = s.discard_pile
        o.held = s.held
        o.in_hand = s.in_hand
        o.out_of_play = s.out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = s.drawer
        o.knockers = knockers
        o.knocker = s.knocker
        o.given_at = s.given_at
        o.taken_at = s.taken_at
        o.held_was_face_down = s.held_was_face_down
        o.hand_was_face_down = s.hand_was_face_down
        o.turns_played = s.turns_played
        o.ender = s.ender
        o.final_turns = s.final_turns
        o.refills = s.refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        o.setup_named = s.setup_named
        o.schema_version = s.schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return copy


def make_copier_2(cls: type, twin: type, phase: Any) -> Callable[..., Any]:
    """A copier of the transitions (see ``COPIERS``)."""
    new = object.__new__

    def copy(s: Any, *, current_player: Any, knockers: Any) -> Any:
        """A copy of ``s``: the fields given replaced, the fixed ones set."""
        o: Any = new(twin)
        o.config = s.config
        o.num_players = s.num_players
        o.seed = s.seed
        o.round = s.round
        o.phase = phase
        o.current_player = current_player
        o.cells = s.cells
        o.face_down = s.face_down
        o.draw_pile = s.draw_pile
        o.discard_pile = s.discard_pile
        o.held = s.held
        o.in_hand = s.in_hand
        o.out_of_play = s.out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = s.drawer
        o.knockers = knockers
        o.knocker = s.knocker
        o.given_at = s.given_at
        o.taken_at = s.taken_at
        o.held_was_face_down = s.held_was_face_down
        o.hand_was_face_down = s.hand_was_face_down
        o.turns_played = s.turns_played
        o.ender = s.ender
        o.final_turns = s.final_turns
        o.refills = s.refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        o.setup_named = s.setup_named
        o.schema_version = s.schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return copy


def make_copier_3(cls: type, twin: type, phase: Any) -> Callable[..., Any]:
    """A copier of the transitions (see ``COPIERS``)."""
    new = object.__new__

    def copy(s: Any, *, discard_pile: Any, held: Any, turns_played: Any) -> Any:
        """A copy of ``s``: the fields given replaced, the fixed ones set."""
        o: Any = new(twin)
        o.config = s.config
        o.num_players = s.num_players
        o.seed = s.seed
        o.round = s.round
        o.phase = phase
        o.current_player = s.current_player
        o.cells = s.cells
        o.face_down = s.face_down
        o.draw_pile = s.draw_pile
        o.discard_pile = discard_pile
        o.held = held
        o.in_hand = s.in_hand
        o.out_of_play = s.out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = s.drawer
        o.knockers = s.knockers
        o.knocker = s.knocker
        o.given_at = s.given_at
        o.taken_at = s.taken_at
        o.held_was_face_down = s.held_was_face_down
        o.hand_was_face_down = s.hand_was_face_down
        o.turns_played = turns_played
        o.ender = s.ender
        o.final_turns = s.final_turns
        o.refills = s.refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        o.setup_named = s.setup_named
        o.schema_version = s.schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return copy


def make_copier_4(cls: type, twin: type) -> Callable[..., Any]:
    """A copier of the transitions (see ``COPIERS``)."""
    new = object.__new__

    def copy(
        s: Any,
        *,
        phase: Any,
        current_player: Any,
        draw_pile: Any,
        discard_pile: Any,
        held: Any,
        turns_played: Any,
        refills: Any,
    ) -> Any:
        """A copy of ``s``: the fields given replaced, the fixed ones set."""
        o: Any = new(twin)
        o.config = s.config
        o.num_players = s.num_players
        o.seed = s.seed
        o.round = s.round
        o.phase = phase
        o.current_player = current_player
        o.cells = s.cells
        o.face_down = s.face_down
        o.draw_pile = draw_pile
        o.discard_pile = discard_pile
        o.held = held
        o.in_hand = s.in_hand
        o.out_of_play = s.out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = s.drawer
        o.knockers = s.knockers
        o.knocker = s.knocker
        o.given_at = s.given_at
        o.taken_at = s.taken_at
        o.held_was_face_down = s.held_was_face_down
        o.hand_was_face_down = s.hand_was_face_down
        o.turns_played = turns_played
        o.ender = s.ender
        o.final_turns = s.final_turns
        o.refills = refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        o.setup_named = s.setup_named
        o.schema_version = s.schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return copy


COPIERS: dict[tuple[tuple[str, ...], tuple[str, ...]], Callable[..., Any]] = {
    (
        (
            "current_player",
            "cells",
            "face_down",
            "discard_pile",
            "out_of_play",
            "drawer",
            "ender",
            "final_turns",
        ),
        (
            "phase",
            "held",
            "in_hand",
            "knockers",
            "knocker",
            "given_at",
            "taken_at",
            "held_was_face_down",
            "hand_was_face_down",
        ),
    ): make_copier_0,
    (
        ("current_player", "knockers"),
        (),
    ): make_copier_1,
    (
        ("current_player", "knockers"),
        ("phase",),
    ): make_copier_2,
    (
        ("discard_pile", "held", "turns_played"),
        ("phase",),
    ): make_copier_3,
    (
        ("phase", "current_player", "draw_pile", "discard_pile", "held", "turns_played", "refills"),
        (),
    ): make_copier_4,
}
"""The copier factories by the names they change and fix (see ``state_builder``)."""


def make_view(cls: type, twin: type) -> Callable[..., Any]:
    """``observe``'s builder: the public fields copied, the others given."""
    new = object.__new__

    def view(
        s: Any,
        *,
        viewer: Any,
        cells: Any,
        face_down: Any,
        draw_pile_size: Any,
        draw_pile_cards: Any,
        held: Any,
        held_hidden: Any,
        in_hand: Any,
        legal_actions: Any,
        own_setup_named: Any,
    ) -> Any:
        """A PlayerView of ``s``: every public field copied, the others given."""
        o: Any = new(twin)
        o.viewer = viewer
        o.config = s.config
        o.num_players = s.num_players
        o.round = s.round
        o.phase = s.phase
        o.current_player = s.current_player
        o.cells = cells
        o.face_down = face_down
        o.draw_pile_size = draw_pile_size
        o.draw_pile_cards = draw_pile_cards
        o.discard_pile = s.discard_pile
        o.held = held
        o.held_hidden = held_hidden
        o.in_hand = in_hand
        o.out_of_play = s.out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = s.drawer
        o.knockers = s.knockers
        o.knocker = s.knocker
        o.given_at = s.given_at
        o.taken_at = s.taken_at
        o.held_was_face_down = s.held_was_face_down
        o.hand_was_face_down = s.hand_was_face_down
        o.turns_played = s.turns_played
        o.ender = s.ender
        o.final_turns = s.final_turns
        o.refills = s.refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        o.legal_actions = legal_actions
        o.own_setup_named = own_setup_named
        o.schema_version = s.schema_version
        o.__class__ = cls
        return o

    return view


def make_observe(cls: type, twin: type, **helpers: Any) -> Callable[..., Any]:
    """``observe``'s body: each declared rule inline, the view's slots filled."""
    new = object.__new__
    hide = helpers["hide"]
    legal = helpers["legal"]
    not_a_seat = helpers["not_a_seat"]

    def observe(s: Any, viewer: Any) -> Any:
        """The view of ``s`` for seat ``viewer`` (``None``: public); ``s`` unchecked."""
        o: Any = new(twin)
        if viewer is not None and (type(viewer) is not int or not 0 <= viewer < s.num_players):
            not_a_seat(s, viewer)
        o.viewer = viewer
        o.config = s.config
        o.num_players = s.num_players
        o.round = s.round
        o.phase = s.phase
        o.current_player = s.current_player
        v_cells = s.cells
        o.face_down, o.cells = hide(s.face_down, v_cells, len(v_cells))
        v_draw_pile = s.draw_pile
        o.draw_pile_size = len(v_draw_pile)
        o.draw_pile_cards = tuple(sorted(v_draw_pile)) if s.refills else None
        o.discard_pile = s.discard_pile
        v_held = s.held
        if v_held is not None and s.held_was_face_down and viewer != s.drawer:
            o.held = None
            o.held_hidden = True
        else:
            o.held = v_held
            o.held_hidden = False
        v_in_hand = s.in_hand
        if v_in_hand and s.hand_was_face_down:
            v_in_hand = tuple((p, c if viewer == p else None) for p, c in v_in_hand)
        o.in_hand = v_in_hand
        o.out_of_play = s.out_of_play
        o.start_seat = s.start_seat
        o.setup_reveals = s.setup_reveals
        o.setup_sums = s.setup_sums
        o.drawer = s.drawer
        o.knockers = s.knockers
        o.knocker = s.knocker
        o.given_at = s.given_at
        o.taken_at = s.taken_at
        o.held_was_face_down = s.held_was_face_down
        o.hand_was_face_down = s.hand_was_face_down
        o.turns_played = s.turns_played
        o.ender = s.ender
        o.final_turns = s.final_turns
        o.refills = s.refills
        o.totals = s.totals
        o.round_scores = s.round_scores
        o.winners = s.winners
        o.last_round = s.last_round
        if viewer is not None and viewer == s.current_player:
            o.legal_actions = legal(s)
        else:
            o.legal_actions = ()
        v_setup_named = s.setup_named
        if v_setup_named and viewer is not None:
            first, n = s.start_seat, s.num_players
            o.own_setup_named = tuple(
                x for k, x in enumerate(v_setup_named) if (first + k // 2) % n == viewer
            )
        else:
            o.own_setup_named = ()
        o.schema_version = s.schema_version
        o.__class__ = cls
        return o

    return observe


def make_state_of_view(cls: type, twin: type) -> Callable[..., Any]:
    """``determinize``'s builder: the public fields copied from a view, the others given."""
    new = object.__new__

    def state_of_view(
        v: Any,
        *,
        seed: Any,
        cells: Any,
        face_down: Any,
        draw_pile: Any,
        held: Any,
        in_hand: Any,
        setup_named: Any,
    ) -> Any:
        """A GameState with view ``v``'s public fields and the others given, unchecked."""
        o: Any = new(twin)
        o.config = v.config
        o.num_players = v.num_players
        o.seed = seed
        o.round = v.round
        o.phase = v.phase
        o.current_player = v.current_player
        o.cells = cells
        o.face_down = face_down
        o.draw_pile = draw_pile
        o.discard_pile = v.discard_pile
        o.held = held
        o.in_hand = in_hand
        o.out_of_play = v.out_of_play
        o.start_seat = v.start_seat
        o.setup_reveals = v.setup_reveals
        o.setup_sums = v.setup_sums
        o.drawer = v.drawer
        o.knockers = v.knockers
        o.knocker = v.knocker
        o.given_at = v.given_at
        o.taken_at = v.taken_at
        o.held_was_face_down = v.held_was_face_down
        o.hand_was_face_down = v.hand_was_face_down
        o.turns_played = v.turns_played
        o.ender = v.ender
        o.final_turns = v.final_turns
        o.refills = v.refills
        o.totals = v.totals
        o.round_scores = v.round_scores
        o.winners = v.winners
        o.last_round = v.last_round
        o.setup_named = setup_named
        o.schema_version = v.schema_version
        o._legal = None
        o.__class__ = cls
        return o

    return state_of_view
