"""Sampling full states from what a player knows, for search bots.

Information-set search (for example information-set Monte Carlo tree search) needs full states that
agree with everything a player knows. [`determinize`][allegra_rules.determinize.determinize] builds
one from a [`PlayerView`][allegra_rules.views.PlayerView]: every public fact is kept and every
hidden card is drawn at random from [`unseen_cards`][allegra_rules.views.PlayerView.unseen_cards],
the config's deck minus every card the view shows or names.
"""

from __future__ import annotations

import random

from allegra_rules.geometry import geometry
from allegra_rules.state import GameState, Phase, trusted_state
from allegra_rules.views import PlayerView


def determinize(view: PlayerView, rng: random.Random) -> GameState:
    """A full state consistent with ``view``, its hidden cards drawn from ``rng``.

    The unseen cards ([`PlayerView.unseen_cards`][allegra_rules.views.PlayerView.unseen_cards]) are
    shuffled uniformly and dealt to the hidden places: the face-down cells in flat index order, then
    a hidden held card, then a hidden in-hand card, then the draw pile (top first) unless its cards
    are known, in which case only their order is shuffled. The seed, which decides every later
    shuffle, is drawn from ``rng`` too (64 bits). Each arrangement of the unseen cards is equally
    likely; nothing is inferred from how the players behaved. In a simultaneous setup
    (``setup_reveals= "simultaneous"``) the cells that other seats have named are hidden too: each
    is drawn uniformly from that seat's reveal area (two distinct cells per seat), after the cards
    are dealt.

    ``observe(determinize(view, rng), view.viewer) == view`` always holds, and the result passes the
    saved-game checks of [`allegra_rules.state_from_json`][allegra_rules.serialize.state_from_json].
    The same view and the same ``rng`` state give the same result.

    Args:
        view: what a player knows (from [`allegra_rules.observe`][allegra_rules.views.observe]).
        rng: the random source; it is advanced.

    Raises:
        ValueError: ``view`` is not a ``PlayerView``, ``rng`` is not a
            ``random.Random``, or the view is inconsistent (it shows more copies of
            a card than the deck holds, hides a different number of cards than
            are unseen, or lists other than the viewer's own setup namings so far).

    Examples:
        >>> import random
        >>> from allegra_rules import new_game, observe
        >>> view = observe(new_game(3, seed=9), 1)
        >>> sample = determinize(view, random.Random(4))
        >>> observe(sample, 1) == view
        True
    """
    if not isinstance(view, PlayerView):
        raise ValueError(f"view must be a PlayerView; got {type(view).__name__}")
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random; got {type(rng).__name__}")
    unseen = list(view.unseen_cards())
    hidden_cells = [i for i, down in enumerate(view.face_down) if down]
    hidden_hand = sum(1 for _, card in view.in_hand if card is None)
    draw_known = view.draw_pile_cards is not None
    slots = (
        len(hidden_cells)
        + int(view.held_hidden)
        + hidden_hand
        + (0 if draw_known else view.draw_pile_size)
    )
    if len(unseen) != slots:
        raise ValueError(
            f"the view hides {slots} card(s), but {len(unseen)} card(s) of the deck are unseen"
        )
    rng.shuffle(unseen)
    deal = iter(unseen)
    cells = list(view.cells)
    for i in hidden_cells:
        cells[i] = next(deal)
    held = next(deal) if view.held_hidden else view.held
    in_hand = tuple((p, next(deal) if card is None else card) for p, card in view.in_hand)
    if view.draw_pile_cards is not None:
        pile = list(view.draw_pile_cards)
        rng.shuffle(pile)
        draw = tuple(pile)
    else:
        draw = tuple(deal)
    return trusted_state(
        setup_named=_namings(view, rng),
        config=view.config,
        num_players=view.num_players,
        seed=rng.getrandbits(64),
        round=view.round,
        phase=view.phase,
        current_player=view.current_player,
        cells=tuple(cells),
        face_down=sum(1 << i for i in hidden_cells),
        draw_pile=draw,
        discard_pile=view.discard_pile,
        held=held,
        in_hand=in_hand,
        out_of_play=view.out_of_play,
        start_seat=view.start_seat,
        setup_reveals=view.setup_reveals,
        setup_sums=view.setup_sums,
        drawer=view.drawer,
        knockers=view.knockers,
        knocker=view.knocker,
        given_at=view.given_at,
        taken_at=view.taken_at,
        held_was_face_down=view.held_was_face_down,
        hand_was_face_down=view.hand_was_face_down,
        turns_played=view.turns_played,
        ender=view.ender,
        final_turns=view.final_turns,
        refills=view.refills,
        totals=view.totals,
        round_scores=view.round_scores,
        winners=view.winners,
        last_round=view.last_round,
    )


def _namings(view: PlayerView, rng: random.Random) -> tuple[int, ...]:
    """The cells named so far in a simultaneous setup: the viewer's, others drawn."""
    if view.config.setup_reveals != "simultaneous" or view.phase is not Phase.SETUP:
        return ()
    geo = geometry(view.num_players)
    seats = [(view.start_seat + k // 2) % view.num_players for k in range(view.setup_reveals)]
    own = seats.count(view.viewer)
    if len(view.own_setup_named) != own:
        raise ValueError(
            f"own_setup_named must hold the {own} cells the viewer has named so far; "
            f"got {len(view.own_setup_named)}"
        )
    mine = iter(view.own_setup_named)
    named: list[int] = []
    for k, seat in enumerate(seats):
        if seat == view.viewer:
            named.append(next(mine))
            continue
        area = geo.zone_sorted[seat] if view.config.reveal_area == "zone" else geo.own[seat]
        choices = [i for i in area if view.face_down[i] and not (k % 2 and i == named[-1])]
        if not choices:
            raise ValueError(f"seat {seat} has no face-down card of its area left to name")
        named.append(rng.choice(choices))
    return tuple(named)
