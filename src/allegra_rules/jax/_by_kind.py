"""The fields the batched engine holds by their kind alone, in one array named after them.

The engine converts, deals and plays each field of ``BY_HAND`` in its own way. Every other
field of the declaration (``allegra_rules.fields``), such as a per-seat count added later,
is held in the array ``_<name>`` of ``State`` and handled here by its kind: converted both
ways (``to_array``, ``from_array``) and set to its declared default at every deal
(``deal_defaults``), as the scalar engine's deal, which leaves such a field out, sets it.
Its rule is the engine's to write (``allegra_rules.jax._rules``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from allegra_rules.fields import NO_DEFAULT, STATE_FIELDS, Kind, StateField

_LATER_BY_HAND: frozenset[str] = frozenset()
"""The fields added after schema version 2 that the engine handles by name all the same."""

BY_HAND: frozenset[str] = frozenset(f.name for f in STATE_FIELDS if f.added <= 2) | _LATER_BY_HAND
"""The fields that ``from_state``, ``to_state``, the deal and the rules handle by name: every
field of schema versions 1 and 2, when this module came, and ``_LATER_BY_HAND``."""

_KINDS: dict[Kind, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    Kind.PER_SEAT: (lambda v: np.array(v, np.int32), lambda a: tuple(int(x) for x in a)),
    Kind.FLAG: (np.bool_, lambda a: bool(a)),
}
"""Per kind: the array of a value, and the value of an array."""

BY_KIND: tuple[StateField, ...] = tuple(f for f in STATE_FIELDS if f.name not in BY_HAND)
"""The declared fields held by their kind (in ``_<name>``)."""

_unheld = [f"{f.name} ({f.kind.value})" for f in BY_KIND if f.kind not in _KINDS]
_undefaulted = [f.name for f in BY_KIND if f.default is NO_DEFAULT]
if _unheld or _undefaulted:  # pragma: no cover
    raise ImportError(
        "allegra_rules.jax._by_kind cannot hold the fields "
        f"{', '.join(_unheld + _undefaulted)}: a kind without an entry in _KINDS, or no "
        "default for a deal; convert such a field by hand (BY_HAND)"
    )


def to_array(field: StateField, value: object) -> Any:
    """The array of ``field``'s ``value`` (a ``GameState``'s)."""
    return _KINDS[field.kind][0](value)


def from_array(field: StateField, array: Any) -> Any:
    """The ``GameState`` value of ``field`` held in ``array``."""
    return _KINDS[field.kind][1](array)


def deal_defaults(num_players: int, config: object) -> dict[str, Any]:
    """The arrays of the ``BY_KIND`` fields at a deal: each one's declared default."""
    given = {"num_players": num_players, "config": config}
    return {f"_{f.name}": jnp.asarray(to_array(f, f.default_for(given))) for f in BY_KIND}
