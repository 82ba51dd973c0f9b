"""No bad input gets past the edges: every public name answers junk with ``ValueError``.

api.md, "Bad input": every public function, constructor and loader answers bad input
of any type or value with a ``ValueError`` (or a subclass such as
``IllegalActionError`` or ``SaveFormatError``) naming what was wrong; no other
exception type escapes for a bad argument, and nothing bad is ever stored in a state.

The fuzz test below calls every public callable of ``allegra_rules`` (and the public
methods of its classes) with arguments drawn, one by one, either from a pool of valid
values for that parameter or from arbitrary junk: ``st.from_type(object)``, nested
lists and dicts, huge integers, booleans, floats, strings, other actions. A call may
return, or raise a ``ValueError``; whatever state it returns must pass
``check_state``. The regression tests pin the reported cases.
"""

from __future__ import annotations

import inspect
import json
import os
import random
from collections.abc import Callable
from functools import cache
from importlib.util import find_spec
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import allegra_rules as ar
from allegra_rules import (
    Discard,
    DrawDeck,
    GameRecord,
    GameState,
    Give,
    IllegalActionError,
    Knock,
    Pos,
    Reveal,
    RuleConfig,
    Swap,
    Take,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
)
from allegra_rules.invariants import check_state, check_types
from helpers import thorough_run
from random_games import exchange_states, play

# ------------------------------------------------------------------ the reported


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: Give(True), "Give.player must be an int seat"),
        (lambda: Give(1.0), "Give.player must be an int seat"),
        (lambda: Give(-1), "Give.player must be an int seat"),
        (lambda: Pos(True, 0, 0), "Pos.player must be an int"),
        (lambda: Pos(0, False, 0), "Pos.row must be an int"),
        (lambda: Pos(0, 0, 2.0), "Pos.col must be an int"),
        (lambda: Reveal((0, 0, 0)), "Reveal.pos must be a Pos"),
        (lambda: Reveal("x"), "Reveal.pos must be a Pos"),
        (lambda: Reveal(None), "Reveal.pos must be a Pos"),
        (lambda: Swap("x"), "Swap.pos must be a Pos"),
        (lambda: Take(7), "Take.pos must be a Pos"),
        (lambda: RuleConfig(deck=None), "RuleConfig.deck must be"),
        (lambda: RuleConfig(deck=5), "RuleConfig.deck must be"),
        (lambda: RuleConfig(min_players=True), "RuleConfig.min_players"),
        (lambda: RuleConfig(max_turns_per_round=2.5), "RuleConfig.max_turns_per_round"),
        (lambda: RuleConfig.from_json(123), "must be a str or bytes"),
        (lambda: RuleConfig.from_json("[" * 100_000), "does not parse"),
        (lambda: preset("fr@01"), "without leading zeros"),
        (lambda: preset("seeds@001"), "without leading zeros"),
        (lambda: preset("fr@\u0661"), "ASCII digits"),
        (lambda: preset("fr@\u00b9"), "ASCII digits"),
        (lambda: preset(None), "preset name must be a str"),
    ],
)
def test_reported_bad_input_raises_value_error(build: Callable[[], object], words: str) -> None:
    with pytest.raises(ValueError, match=words) as info:
        build()
    assert type(info.value) is ValueError or isinstance(info.value, ValueError)


def test_apply_accepts_only_an_equal_action_of_the_same_type() -> None:
    state = play(preset("seeds@1"), 3, seed=1, steps=6)
    for junk in ((0, 0, 0), "x", None, 1, DrawDeck, Reveal, object()):
        with pytest.raises(IllegalActionError, match="not an allegra_rules action"):
            apply(state, junk)  # type: ignore[arg-type]
    # An action of another class with the same fields is not the legal one.

    @attrsish
    class Lookalike:
        pass

    with pytest.raises(IllegalActionError):
        apply(state, Lookalike())  # type: ignore[arg-type]


def attrsish(cls: type) -> type:
    """A class that claims equality with every action (it must still be refused)."""

    def eq(self: object, other: object) -> bool:
        return True

    cls.__eq__ = eq  # type: ignore[method-assign,assignment]
    cls.__hash__ = lambda self: 0  # type: ignore[method-assign,assignment]
    return cls


def test_give_to_a_knocker_by_a_bool_is_refused_before_it_reaches_a_state() -> None:
    state = next(s for s in exchange_states(seed=3) if s.knockers)
    with pytest.raises(ValueError, match=r"Give\.player"):
        apply(state, Give(True))  # type: ignore[arg-type]


# -------------------------------------------------------------- the fuzz test

JUNK = st.deferred(
    lambda: st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(2**200), 2**200),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=8),
        st.binary(max_size=8),
        st.sampled_from([DrawDeck(), Discard(), Knock(), Give(1), Reveal(Pos(0, 0, 0))]),
        st.sampled_from([Pos(0, 1, 2), Pos(5, 2, 3), RuleConfig(), random.Random(1)]),
        st.lists(JUNK, max_size=3),
        st.lists(JUNK, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=4), JUNK, max_size=3),
        st.from_type(object),
    )
)


@cache
def sample_states() -> tuple[GameState, ...]:
    config = RuleConfig(max_turns_per_round=6)
    out = [new_game(2, seed=1), play(preset("fr@1"), 3, seed=2, steps=40)]
    out.append(exchange_states(seed=3)[0])
    out.append(play(config, 2, seed=4, steps=10_000))
    out.append(play(RuleConfig(setup_reveals="simultaneous"), 3, seed=5, steps=3))
    return tuple(out)


def _field_values(objects: list[Any]) -> dict[str, tuple[Any, ...]]:
    """Every init field's values over ``objects`` (attrs classes), for the pools."""
    out: dict[str, list[Any]] = {}
    for obj in objects:
        for field in attrs.fields(type(obj)):
            if field.init:
                out.setdefault(field.name, []).append(getattr(obj, field.name))
    return {name: tuple(values) for name, values in out.items()}


@cache
def valid_values() -> dict[str, tuple[Any, ...]]:
    states = sample_states()
    mid = states[1]
    views = [observe(s, 0) for s in states]
    ends = [s.last_round for s in states if s.last_round is not None]
    fields = {**_field_values(ends), **_field_values(views), **_field_values(list(states))}
    record = GameRecord(num_players=2, seed=3).with_actions(*legal_actions(states[0])[:1])
    return {
        **fields,
        "state": states,
        "action": tuple(legal_actions(mid)) + (DrawDeck(),),
        "config": (RuleConfig(), preset("fr@1"), None),
        "num_players": (2, 3, 4, 6),
        "player": (0, 1, 2),
        "viewer": (0, 1, None),
        "seed": (0, 7, 2**70),
        "deck": (None, list(RuleConfig().deck_cards())),
        "name": ("fr@1", "seeds", "published"),
        "text": (mid.to_json(), RuleConfig().to_json(), ar.action_to_json(DrawDeck())),
        "data": (ar.state_to_dict(mid), {"type": "draw_deck"}, RuleConfig().to_dict()),
        "path": ("$",),
        "view": (observe(mid, 0), observe(states[2], 1)),
        "rng": (random.Random(0),),
        "record": (record,),
        "kind": ("state", "view", "action", "record"),
        "action_id": (0, 5, 30),
        "pos": (Pos(0, 1, 2), Pos(1, 2, 3)),
        "highlight": ((), (Pos(0, 0, 0),)),
        "caption": (None, "a caption"),
        "reveal": (False, True),
        "legend": (True, False),
        "max_bytes": (1 << 20,),
        "actions": ((), legal_actions(states[0])[:1]),
        "other": (RuleConfig(), preset("fr@1")),
        "reason": ("because",),
    }


# Names whose calls are not about input validation.
NOT_FUZZED = {
    "Bot": "a typing.Protocol: it cannot be instantiated",
    "Phase": "an Enum: Phase(value) raises ValueError by itself",
    "IllegalActionError": "an exception class: it takes any action and reason",
    "SaveFormatError": "an exception class: it takes any path and reason",
    "InvalidStateError": "an exception class: it takes any path and reason",
}


def _callables() -> list[tuple[str, Callable[..., Any]]]:
    out: list[tuple[str, Callable[..., Any]]] = []
    for name in ar.__all__:
        obj = getattr(ar, name)
        if not callable(obj) or name in NOT_FUZZED or name == "Action":
            continue
        out.append((name, obj))
    return out


METHODS: dict[str, Callable[[Any], Callable[..., Any]]] = {
    "GameState.card": lambda s: s.card,
    "GameState.is_face_up": lambda s: s.is_face_up,
    "GameState.is_gap": lambda s: s.is_gap,
    "GameState.zone": lambda s: s.zone,
    "GameState.zone_sum": lambda s: s.zone_sum,
    "GameState.from_json": lambda s: GameState.from_json,
    "PlayerView.card": lambda s: observe(s, 0).card,
    "PlayerView.is_hidden": lambda s: observe(s, 0).is_hidden,
    "PlayerView.from_json": lambda s: ar.PlayerView.from_json,
    "PlayerView.from_dict": lambda s: ar.PlayerView.from_dict,
    "RuleConfig.from_json": lambda s: RuleConfig.from_json,
    "RuleConfig.from_dict": lambda s: RuleConfig.from_dict,
    "RuleConfig.options_differing_from": lambda s: s.config.options_differing_from,
    "GameRecord.from_json": lambda s: GameRecord.from_json,
    "GameRecord.with_actions": lambda s: GameRecord(num_players=2).with_actions,
    "RandomBot.choose": lambda s: ar.RandomBot(1).choose,
    "GreedyBot.choose": lambda s: ar.GreedyBot(1).choose,
}


def _constant(obj: Callable[..., Any]) -> Callable[[GameState], Callable[..., Any]]:
    return lambda state: obj


TARGETS: dict[str, Callable[[GameState], Callable[..., Any]]] = {
    **{name: _constant(obj) for name, obj in _callables()},
    **METHODS,
}


def _returned_states(result: object) -> list[GameState]:
    if isinstance(result, GameState):
        return [result]
    if isinstance(result, tuple):
        return [x for x in result if isinstance(x, GameState)]
    return []


# About a hundred public names: 30 examples each in the default run, the profile's own
# number otherwise (2,000 each in the thorough run).
JUNK_EXAMPLES = (
    settings.default.max_examples if thorough_run() else min(settings.default.max_examples, 30)
)


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=JUNK_EXAMPLES)
@given(data=st.data())
def test_every_public_name_answers_junk_with_value_error(target: str, data: st.DataObject) -> None:
    state = data.draw(st.sampled_from(sample_states()), label="state")
    func = TARGETS[target](state)
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):  # pragma: no cover - every public callable has one
        pytest.skip(f"{target} has no signature")
    pools = valid_values()
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            if data.draw(st.booleans(), label=f"{param.name}?"):
                args.append(data.draw(JUNK, label=param.name))
            continue
        optional = param.default is not param.empty
        if optional and data.draw(st.booleans(), label=f"omit {param.name}"):
            continue
        pool = pools.get(param.name)
        junk = pool is None or data.draw(st.booleans(), label=f"junk {param.name}")
        value = data.draw(JUNK if junk else st.sampled_from(pool), label=param.name)
        if param.kind is param.KEYWORD_ONLY:
            kwargs[param.name] = value
        else:
            args.append(value)
    try:
        result = func(*args, **kwargs)
    except ValueError:
        return
    except ModuleNotFoundError as error:
        # Without the policy extra, PolicyBot says which install it needs, whatever it is given.
        if target == "PolicyBot" and error.name == "numpy" and find_spec("numpy") is None:
            return
        raise AssertionError(f"{target} raised {error!r}") from error
    except OSError as error:
        # A weights path that names no readable file: the operating system's own error, as
        # open() raises it, naming the path. Only where a path was asked for.
        path = kwargs.get("weights")
        named = isinstance(path, (str, os.PathLike)) and error.filename == os.fspath(path)
        if target == "PolicyBot" and named:
            return
        raise AssertionError(
            f"{target}(*{args!r:.300}, **{kwargs!r:.300}) raised {type(error).__name__}: {error}"
        ) from error
    except Exception as error:
        raise AssertionError(
            f"{target}(*{args!r:.300}, **{kwargs!r:.300}) raised {type(error).__name__}: {error}"
        ) from error
    for produced in _returned_states(result):
        if target == "GameState":
            check_types(produced)  # built by hand: well formed, not necessarily reachable
        else:
            check_state(produced)
    if isinstance(result, dict):
        json.dumps(result)  # a returned document is plain JSON data


def test_the_fuzz_test_covers_every_public_callable() -> None:
    names = {name for name in ar.__all__ if callable(getattr(ar, name)) and name != "Action"}
    assert names - set(TARGETS) == set(NOT_FUZZED)
