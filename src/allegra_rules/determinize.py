"""Sampling full states from what a player knows, for search bots.

Information-set search (for example information-set Monte Carlo tree search) needs full states that
agree with everything a player knows. [`determinize`][allegra_rules.determinize.determinize] builds
one from a [`PlayerView`][allegra_rules.views.PlayerView]: every public fact is kept and every
hidden card is drawn at random from [`unseen_cards`][allegra_rules.views.PlayerView.unseen_cards],
the config's deck minus every card the view shows or names.
"""

from __future__ import annotations

import random

from allegra_rules.sampling import sample_state
from allegra_rules.state import GameState
from allegra_rules.views import PlayerView

__all__ = ["determinize"]


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
    return sample_state(view, rng)
