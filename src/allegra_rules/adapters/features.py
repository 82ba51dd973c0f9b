"""A fixed-length numeric observation built from a :class:`~allegra_rules.PlayerView` only.

The vector never uses hidden information: it is computed from
``observe(state, seat)``, so a face-down card, the draw pile's order, the seed and
cards hidden from the viewer never reach it. Pure Python (no numpy); the adapters
turn it into arrays.

Layout for ``n`` seats (``F = 4`` numbers per cell, ``12 n`` cells, in flat cell
order ``seat * 12 + row * 4 + col``), every part relative to nothing (absolute seats):

- per cell: ``[is_gap, is_face_down, is_face_up, value if face up else 0]``;
- ``viewer`` one-hot (``n``), ``current_player`` one-hot (``n``, all 0 when terminal);
- ``phase`` one-hot (one per :class:`~allegra_rules.Phase` member);
- ``[held is visible, held is hidden, held value or 0]``;
- ``[discard pile non-empty, discard top or 0, discard pile size, draw pile size]``;
- ``drawer`` one-hot (``n``), ``knockers`` indicator (``n``), ``knocker`` one-hot (``n``);
- ``[round, turns_played]`` and ``totals`` (``n``).
"""

from __future__ import annotations

from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.state import Phase
from allegra_rules.views import PlayerView

_PHASES: tuple[Phase, ...] = tuple(Phase)
_CELL_FEATURES = 4


def feature_size(num_players: int) -> int:
    """The length of :func:`view_features` for a table of ``num_players`` seats.

    >>> feature_size(2)
    127
    """
    n = num_players
    return _CELL_FEATURES * CELLS_PER_SEAT * n + 2 * n + len(_PHASES) + 3 + 4 + 3 * n + 2 + n


def _one_hot(index: int | None, size: int) -> list[float]:
    out = [0.0] * size
    if index is not None:
        out[index] = 1.0
    return out


def view_features(view: PlayerView) -> list[float]:
    """The observation vector of ``view`` (see the module docs for the layout).

    Args:
        view: what one seat may know, from :func:`allegra_rules.observe`.

    Returns:
        ``feature_size(view.num_players)`` floats.

    >>> from allegra_rules import new_game, observe
    >>> len(view_features(observe(new_game(2, seed=1), 0)))
    127
    """
    n = view.num_players
    out: list[float] = []
    for value, down in zip(view.cells, view.face_down, strict=True):
        if value is not None:
            out += (0.0, 0.0, 1.0, float(value))
        elif down:
            out += (0.0, 1.0, 0.0, 0.0)
        else:
            out += (1.0, 0.0, 0.0, 0.0)
    out += _one_hot(view.viewer, n)
    out += _one_hot(view.current_player, n)
    out += _one_hot(_PHASES.index(view.phase), len(_PHASES))
    held = view.held
    out += (float(held is not None), float(view.held_hidden), float(held or 0))
    top = view.discard_top
    out += (
        float(top is not None),
        float(top or 0),
        float(len(view.discard_pile)),
        float(view.draw_pile_size),
    )
    out += _one_hot(view.drawer, n)
    knockers = [0.0] * n
    for k in view.knockers:
        knockers[k] = 1.0
    out += knockers
    out += _one_hot(view.knocker, n)
    out += (float(view.round), float(view.turns_played))
    out += (float(t) for t in view.totals)
    return out
