"""A bot's move from a job, the same in any process: the worker side of the server's bots.

The table server (``allegra_rules.server.thinking``, which documents and re-exports these
names) sends each bot move to a worker process as a ``Job`` and has it run ``decide``.
They live here, apart from the server's package, so that a worker process imports the
engine and the bots alone: unpickling a job or a function of the server's package would
import the whole web application first (Starlette, uvicorn and the stores), about
twice a worker's start-up time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from typing import Any

import attrs

from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.bots import Bot
from allegra_rules.search import SearchBot
from allegra_rules.serialize import action_to_dict
from allegra_rules.state import GameState

__all__ = [
    "CHEAP",
    "EXPENSIVE_BOTS",
    "SEARCH",
    "Job",
    "build_bot",
    "decide",
    "lane_of",
    "move_seed",
]

CHEAP = "cheap"
"""The lane of the bots that answer in milliseconds (greedy, random, policy, stand-ins)."""

SEARCH = "search"
"""The lane of the searches (``EXPENSIVE_BOTS``)."""

EXPENSIVE_BOTS = frozenset(
    {"search", "search-easy", "search-medium", "search-hard", "search-guided"}
)
"""The bot names that think in the search lane; every other bot is cheap."""


def lane_of(bot: str) -> str:
    """The lane the bot ``bot`` thinks in: ``SEARCH`` for ``EXPENSIVE_BOTS``, else ``CHEAP``.

    Examples:
        >>> lane_of("search-hard"), lane_of("greedy")
        ('search', 'cheap')
    """
    return SEARCH if bot in EXPENSIVE_BOTS else CHEAP


def move_seed(seed: int, version: int) -> int:
    """The seed of the bot built to make the move at ``version``, from the bot's ``seed``.

    Examples:
        >>> move_seed(7, 3) == move_seed(7, 3) != move_seed(7, 4)
        True
    """
    digest = hashlib.sha256(f"allegra-bot:{seed}:{version}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@attrs.frozen
class Job:
    """What a worker process needs to make one bot move.

    The state travels pickled (about 1.4 kB for six seats, read back in 30 us; its JSON
    text takes five times as long to read).

    Attributes:
        bot: the bot's name (a key of ``BOT_KINDS``).
        seed: the bot's own seed (the table's, for a stand-in: its version).
        version: the table's version, the number of actions applied so far.
        state: the state the bot is to move in.
        budget: seconds a search may think (``None``: its level's simulations only).
    """

    bot: str
    seed: int
    version: int
    state: GameState
    budget: float | None = None

    @property
    def lane(self) -> str:
        """The lane this job is thought in (``lane_of(bot)``)."""
        return lane_of(self.bot)


def build_bot(name: str, seed: int, budget: float | None = None) -> Bot:
    """The bot ``BOT_KINDS[name](seed)``; a search also stops after ``budget`` seconds.

    Raises:
        KeyError: ``name`` is not a bot.
    """
    bot = BOT_KINDS[name](seed)
    if budget is not None and isinstance(bot, SearchBot):
        limit = budget if bot.time_limit is None else min(budget, bot.time_limit)
        bot = SearchBot(
            seed,
            simulations=bot.simulations,
            time_limit=limit,
            candidates=bot.candidates,
            guide=bot.guide,
        )
    return bot


def decide(job: Job) -> dict[str, Any]:
    """The move of ``job``'s bot, as ``action_to_dict`` data (what a worker process runs).

    The bot is built for this move alone, seeded with ``move_seed(job.seed, job.version)``.

    Raises:
        ValueError: the state is over.
    """
    bot = build_bot(job.bot, move_seed(job.seed, job.version), job.budget)
    return action_to_dict(bot.choose(job.state))


def _ready() -> None:
    """Nothing: a job that has a new worker process import this module (and the bots)."""


def _follow_parent(parent: int) -> None:
    """Exit as soon as the server process ``parent`` is gone (checked every second)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _worker_start(niceness: int, parent: int) -> None:
    """A worker process's initializer: run ``niceness`` lower, and end with the server.

    A server killed outright (SIGKILL) leaves its worker processes waiting for a job
    that never comes; each therefore watches its parent, the server ``parent`` (its
    process id, as the server gave it), and exits once it is gone. A worker whose
    server died while it was still starting exits here at once: it would otherwise
    take its new parent (``init``) for the server and wait forever.
    """
    if os.getppid() != parent:
        os._exit(0)
    if niceness and hasattr(os, "nice"):
        with contextlib.suppress(OSError):  # not allowed here: keep the priority
            os.nice(niceness)
    threading.Thread(
        target=_follow_parent, args=(parent,), name="allegra-parent", daemon=True
    ).start()
