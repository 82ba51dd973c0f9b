"""Scoring a round and the game (A25-A28, A31).

At the round end every face-down card is turned up and counted. A player's round sum
is the sum of its zone, so a column-3 card counts in two zones (its owner's and the
right neighbour's). The player who ended the round has its sum doubled unless it is
the lowest: ``ender_tie`` says whether a tie for the lowest counts as lowest, and
``double_nonpositive`` whether a sum of zero or less is doubled at all. A round ended
by ``max_turns_per_round`` has no ender and doubles nobody.
"""

from __future__ import annotations

from functools import cache, partial
from operator import is_not, itemgetter

from allegra_rules.config import RuleConfig
from allegra_rules.geometry import Geometry


@cache
def _zone_readers(geo: Geometry) -> tuple[itemgetter[tuple[int | None, ...]], ...]:
    """Per seat, an ``itemgetter`` of the cells of its zone."""
    return tuple(itemgetter(*zone) for zone in geo.zone)


_not_none = partial(is_not, None)


def zone_sums(geo: Geometry, cells: tuple[int | None, ...]) -> tuple[int, ...]:
    """Each seat's zone sum (gaps count 0)."""
    return tuple(sum(filter(_not_none, read(cells))) for read in _zone_readers(geo))


def ender_doubled(config: RuleConfig, sums: tuple[int, ...], ender: int | None) -> bool:
    """Whether the round-ender's sum is doubled."""
    if ender is None:
        return False
    mine = sums[ender]
    best_other = min(s for seat, s in enumerate(sums) if seat != ender)
    if config.ender_tie == "not_doubled":
        lowest = mine <= best_other
    else:
        lowest = mine < best_other
    if lowest:
        return False
    return mine > 0 or config.double_nonpositive == "yes"


def round_scores(
    config: RuleConfig, sums: tuple[int, ...], ender: int | None
) -> tuple[tuple[int, ...], bool]:
    """The round's per-seat scores after doubling, and whether the ender was doubled."""
    doubled = ender_doubled(config, sums, ender)
    if not doubled:
        return sums, False
    assert ender is not None
    scores = list(sums)
    scores[ender] *= 2
    return tuple(scores), True


def winners(totals: tuple[int, ...]) -> tuple[int, ...]:
    """Every seat with the lowest total, ascending (ties share the win)."""
    best = min(totals)
    return tuple(seat for seat, total in enumerate(totals) if total == best)
