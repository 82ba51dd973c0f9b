"""The errors of a state check and the checks of single values, below the state.

[`InvalidStateError`][allegra_rules.invariants.InvalidStateError] (re-exported by
``allegra_rules.invariants``, where it is documented) and the checks of one value's type,
size and range that the field checks of ``allegra_rules.state_checks`` and
``allegra_rules.views`` are made of. This module imports nothing of the package.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["InvalidStateError", "invalid", "key_path"]


class InvalidStateError(ValueError):
    """A state that no game can reach: some field contradicts another or the rules.

    The message reads ``"<path>: <reason>"``, the path naming the field in the saved
    form of the state (``$.cells[14]``, ``$.ender``, ``$.last_round.scores``).

    Attributes:
        path: where the contradiction is.
        reason: what is wrong there.
    """

    # Documented, and re-exported, by allegra_rules.invariants: tracebacks name it there.
    __module__ = "allegra_rules.invariants"

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def invalid(path: str, reason: str) -> NoReturn:
    """Raise ``InvalidStateError`` at ``path``."""
    raise InvalidStateError(path, reason)


def key_path(path: str, key: str | int) -> str:
    """The path of ``key`` inside ``path``: ``$.cells`` + ``3`` gives ``$.cells[3]``."""
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: object, path: str, low: int | None = None, high: int | None = None) -> int:
    if type(value) is not int:
        invalid(path, f"must be an int; got {_short(value)} ({type(value).__name__})")
    if (low is not None and value < low) or (high is not None and value > high):
        invalid(path, f"must be in {low}..{high}; got {_short(value)}")
    return value


def _opt_int(value: object, path: str, low: int, high: int) -> None:
    if value is not None:
        _int(value, path, low, high)


def _bool(value: object, path: str) -> None:
    if type(value) is not bool:
        invalid(path, f"must be a bool; got {_short(value)} ({type(value).__name__})")


def _tuple(
    value: object, path: str, length: int | None = None, most: int | None = None
) -> tuple[Any, ...]:
    if type(value) is not tuple:
        invalid(path, f"must be a tuple; got {_short(value)} ({type(value).__name__})")
    if length is not None and len(value) != length:
        invalid(path, f"must hold {length} items; got {len(value)}")
    if most is not None and len(value) > most:
        invalid(path, f"must hold at most {most} items; got {len(value)}")
    return value


def _ints(
    value: object, path: str, low: int | None = None, high: int | None = None, **size: int
) -> tuple[int, ...]:
    items = _tuple(value, path, **size)
    for i, item in enumerate(items):
        _int(item, key_path(path, i), low, high)
    return items


def _cards(value: object, path: str, values: frozenset[int], most: int) -> tuple[int, ...]:
    items = _tuple(value, path, most=most)
    for i, item in enumerate(items):
        _card(item, key_path(path, i), values)
    return items


def _card(value: object, path: str, values: frozenset[int]) -> None:
    _int(value, path)
    if value not in values:
        invalid(path, f"{_short(value)} is not a card value of the config's deck")


def _opt_cards(value: object, path: str, values: frozenset[int], length: int) -> None:
    items = _tuple(value, path, length=length)
    for i, item in enumerate(items):
        if item is not None:
            _card(item, key_path(path, i), values)
