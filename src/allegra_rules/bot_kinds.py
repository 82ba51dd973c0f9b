"""The bots by name: the one registry the command line, the server and tournaments read.

It sits beside the bots and above them: [`bots`][allegra_rules.bots] defines the simple
players, [`search`][allegra_rules.search] the search player built on them, and this module
names each of them, so that neither of those imports the other's users (nothing here is
imported by ``bots`` or ``search``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from allegra_rules.bots import Bot, GreedyBot, RandomBot
from allegra_rules.search import search_level

__all__ = ["BOT_KINDS"]

BOT_KINDS: dict[str, Callable[[int], Bot]] = {
    "greedy": GreedyBot,
    "random": RandomBot,
    "search": functools.partial(search_level, "medium"),
    "search-easy": functools.partial(search_level, "easy"),
    "search-medium": functools.partial(search_level, "medium"),
    "search-hard": functools.partial(search_level, "hard"),
}
"""The registry of bot names (as ``--bots``, the server and tournaments take them).

Each name maps to a constructor taking a seed: ``BOT_KINDS[name](seed)``. ``search`` is
[`SearchBot`][allegra_rules.search.SearchBot]'s default level, the same as
``search-medium``; ``search-easy`` and ``search-hard`` are its other levels
([`SEARCH_LEVELS`][allegra_rules.search.SEARCH_LEVELS]). Every constructor can be
pickled, so worker processes can build it. ``allegra_rules.simulate.BOT_KINDS`` is this
same object.

Examples:
    >>> sorted(BOT_KINDS)[:2]
    ['greedy', 'random']
    >>> BOT_KINDS["search-easy"](3).choose is not None
    True
"""
