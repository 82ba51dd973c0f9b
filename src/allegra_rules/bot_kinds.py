"""The bots by name: the one registry the command line, the server and tournaments read.

It sits beside the bots and above them: [`bots`][allegra_rules.bots] defines the simple
players, [`search`][allegra_rules.search] the search player built on them,
[`policy`][allegra_rules.policy] the learned player (and the search it guides), and this module
names each of them, so that neither of those imports the other's users (nothing here is
imported by ``bots`` or ``search``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from allegra_rules.bots import Bot, GreedyBot, RandomBot
from allegra_rules.config import RuleConfig
from allegra_rules.policy import PolicyBot, cannot_play, guided_search
from allegra_rules.search import search_level

__all__ = ["BOT_KINDS", "unavailable"]

BOT_KINDS: dict[str, Callable[[int], Bot]] = {
    "greedy": GreedyBot,
    "random": RandomBot,
    "search": functools.partial(search_level, "medium"),
    "search-easy": functools.partial(search_level, "easy"),
    "search-medium": functools.partial(search_level, "medium"),
    "search-hard": functools.partial(search_level, "hard"),
    "policy": PolicyBot,
    "search-guided": guided_search,
}
"""The registry of bot names (as ``--bots``, the server and tournaments take them).

Each name maps to a constructor taking a seed: ``BOT_KINDS[name](seed)``. ``search`` is
[`SearchBot`][allegra_rules.search.SearchBot]'s default level, the same as
``search-medium``; ``search-easy`` and ``search-hard`` are its other levels
([`SEARCH_LEVELS`][allegra_rules.search.SEARCH_LEVELS]). ``policy`` is
[`PolicyBot`][allegra_rules.policy.PolicyBot] with the shipped weights and ``search-guided``
the search led by it ([`guided_search`][allegra_rules.policy.guided_search]); both need NumPy
(the extra ``policy``) when they are built, not before. Every constructor can be
pickled, so worker processes can build it. ``allegra_rules.simulate.BOT_KINDS`` is this
same object.

Examples:
    >>> sorted(BOT_KINDS)[:3]
    ['greedy', 'policy', 'random']
    >>> BOT_KINDS["search-easy"](3).choose is not None
    True
"""


POLICY_BOTS = ("policy", "search-guided")
"""The bot names that play the shipped policy (they need NumPy and the weights)."""


def unavailable(name: str, config: RuleConfig, num_players: int) -> str | None:
    """Why the bot ``name`` cannot play a game of ``num_players`` under ``config``, or None.

    Every bot can play every game but those of the shipped policy, which need NumPy, the
    weights, the rules they were trained for and a network for the seat count
    ([`cannot_play`][allegra_rules.policy.cannot_play]). The server and the command line
    ask before they seat a bot.

    Raises:
        KeyError: ``name`` is not in ``BOT_KINDS``.

    Examples:
        >>> from allegra_rules import preset
        >>> unavailable("greedy", preset("seeds"), 6) is None
        True
    """
    if name not in BOT_KINDS:
        raise KeyError(name)
    return cannot_play(config, num_players) if name in POLICY_BOTS else None
