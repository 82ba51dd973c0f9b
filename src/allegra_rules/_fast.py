"""The engine's speed tricks, in one place: twin-class builders and per-config caches.

**Builders.** ``GameState`` and ``PlayerView`` are frozen slotted attrs classes: attrs' frozen
``__init__`` stores each field with one ``object.__setattr__`` call, about 2.7 us for a state,
against 4.6 us for a whole transition. The builders below instead fill the slots of an
*unfrozen twin* (a plain class with the same ``__slots__``, such as
``allegra_rules.state._UnfrozenState``) with plain attribute stores, then switch the object's
``__class__`` to the frozen class (CPython allows it: the two layouts are identical); a state
costs about 0.5 us. Nothing is checked: the callers (the transitions, the loader once it has
checked every field, ``observe``, ``determinize``) vouch for the values. A twin never leaves the
engine.

The builders are generated, as the checked-in module ``allegra_rules._fast_builders`` (whose
names this module takes), from the declaration of the fields (``allegra_rules.fields``), the
classes' slots and the ``_copier(...)`` calls of the transitions, by
``python -m allegra_rules._generate_fast --write``; a test fails when it is not current. Each is a
factory that takes the frozen class and its twin (and a copier's fixed values) and returns the
builder, so that these modules import nothing else of the package and both the state layer and
the views can use them.

**Observe.** ``make_observe`` is ``observe`` written out from the declaration: each public field
copied with one store, each secret field's rule (``Seen``, ``Owner``, ``mask``, ``known_when``)
inline, about 1.07x the speed of the hand-written function it replaced (the generic plan that
``allegra_rules.views`` keeps as the reference, a function call per rule, took twice as long).

The JSON codec's bulk paths are generated the same way, into ``allegra_rules._fast_codec``.

**Per-config caches.** [`per_config`][allegra_rules._fast.per_config] remembers a function of a
``RuleConfig`` by the config's identity: configs are frozen, and hashing one (an attrs tuple of
every option) costs more than most of the lookups it would save.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "REGENERATE",
    "built",
    "current",
    "per_config",
    "stand_in",
]

_K = TypeVar("_K")
_T = TypeVar("_T")


def per_config(make: Callable[[_K], _T], size: int = 64) -> Callable[[_K], _T]:
    """``make``, remembered for the last ``size`` arguments by identity.

    For functions of a frozen ``RuleConfig``. The cache holds each argument, so that its
    ``id`` cannot be reused while it is remembered; it is emptied when full.

    Examples:
        >>> calls = []
        >>> twice = per_config(lambda x: calls.append(x) or 2 * len(x))
        >>> key = (1, 2)
        >>> twice(key), twice(key), len(calls)
        (4, 4, 1)
    """
    store: dict[int, tuple[_K, _T]] = {}

    def remembered(key: _K) -> _T:
        known = store.get(id(key))
        if known is not None and known[0] is key:
            return known[1]
        made = make(key)
        if len(store) >= size:
            store.clear()
        store[id(key)] = (key, made)
        return made

    remembered.__doc__ = make.__doc__
    return remembered


REGENERATE = "run python -m allegra_rules._generate_fast --write"
"""What fixes generated code that is not current (or is missing a copier)."""


def stand_in(what: str, wrong: str = "") -> Callable[..., Any]:
    """A stand-in for a generated builder that is missing or not current.

    It raises when called, saying what to run. Importing the package never calls a
    builder, so the generators can import it to write the code again. With ``wrong``
    (what is wrong with the builder's request, which running the generator would not
    fix), it says that instead.
    """
    message = f"{what}: {wrong}" if wrong else f"the generated {what} is not current: {REGENERATE}"

    def stale(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(message)

    return stale


def current(cls: type) -> bool:
    """Whether the builders were generated for the fields ``cls`` has (``GENERATED_FOR``)."""
    names = tuple(a.name for a in getattr(cls, "__attrs_attrs__", ()))
    generated: dict[str, tuple[str, ...]] = globals().get("GENERATED_FOR", {})
    return generated.get(cls.__name__) == names


def built(
    cls: type, twin: type, make: str, *args: Any, reads: type | None = None, **kwargs: Any
) -> Callable[..., Any]:
    """The builder that factory ``make`` (below) makes for ``cls``.

    ``reads`` is the class of the objects it reads, if another. When the code below was
    generated for other fields of either class (see ``current``), a ``stand_in``.
    """
    factory = globals().get(make)
    if factory is None or not current(cls) or (reads is not None and not current(reads)):
        return stand_in(f"{make} of allegra_rules._fast for {cls.__name__}")
    builder: Callable[..., Any] = factory(cls, twin, *args, **kwargs)
    return builder


# The generated builders. Missing or unreadable (emptied, or left with a merge's conflict
# markers), the package still imports: each builder is then a stand-in that says to run
# ``python -m allegra_rules._generate_fast --write``, which writes them again.
with contextlib.suppress(ImportError, SyntaxError):
    from allegra_rules._fast_builders import *  # noqa: F403
