"""Sampling full states from what a player knows, for search bots.

Information-set search (for example information-set Monte Carlo tree search) needs full states that
agree with everything a player knows. [`determinize`][allegra_rules.determinize.determinize] builds
one from a [`PlayerView`][allegra_rules.views.PlayerView]: every public fact is kept and every
hidden card is drawn at random from [`unseen_cards`][allegra_rules.views.PlayerView.unseen_cards],
the config's deck minus every card the view shows or names.
"""

from __future__ import annotations

from allegra_rules.views import determinize

__all__ = ["determinize"]
