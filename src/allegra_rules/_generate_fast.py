"""Write the generated modules ``_fast_builders`` and ``_fast_codec`` from the declaration.

Run ``python -m allegra_rules._generate_fast --write`` after changing
``allegra_rules.fields``, the fields of ``GameState`` or ``PlayerView``, a ``_copier(...)``
call of ``allegra_rules.transitions`` or a kind's JSON in ``allegra_rules.state_codec``; without
``--write`` it exits 1 when the checked-in code is not current (``tests/test_fields.py`` checks
it). This is a tool for developers: no module of the
engine imports it.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import attrs

from allegra_rules.fields import (
    FIELDS,
    NEWEST_VERSION,
    NO_DEFAULT,
    ROUND_END_FIELDS,
    STATE_FIELDS,
    VIEW_FIELDS,
    VIEW_ONLY,
    Bound,
    DefaultFrom,
    Kind,
    Owner,
    Seen,
    StateField,
    ViewField,
    ViewKind,
    fields_after_newest,
)
from allegra_rules.state import GameState
from allegra_rules.state_codec import CODEC_FIELDS, HAND_KEYS, HEADER_KEYS, PUBLIC_FIELDS
from allegra_rules.views import PlayerView

__all__ = [
    "BUILDERS_HEAD",
    "OBSERVE_HELPERS",
    "NoTemplateError",
    "copier_specs",
    "generated",
    "generated_codec",
    "main",
    "observe_code",
]

SRC = Path(__file__).parent
FAST = SRC / "_fast_builders.py"
FAST_CODEC = SRC / "_fast_codec.py"
BUILDERS_HEAD = '''"""The builders of states and views, generated from the declaration.

Do not edit: ``python -m allegra_rules._generate_fast --write`` writes this whole module from
``allegra_rules.fields``, the slots of ``GameState`` and ``PlayerView`` and the ``_copier(...)``
calls of the transitions (a test fails when it is not current). ``allegra_rules._fast`` takes
every name; it builds each builder from its factory here only while ``GENERATED_FOR`` names the
classes' fields, and a stand-in that says to run the generator otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
{names}
]


'''
"""The start of ``_fast_builders.py``, before the generated code (``{names}``: its names)."""


def copier_specs() -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Each ``_copier(*changed, **fixed)`` call of transitions.py: its changed and fixed names."""
    tree = ast.parse((SRC / "transitions.py").read_text(encoding="utf-8"))
    # A ``**NAME`` of a call fixes the keys of the module's dict display ``NAME``.
    dicts: dict[str, ast.Dict] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
            if isinstance(target, ast.Name) and isinstance(statement.value, ast.Dict):
                dicts[target.id] = statement.value
    specs = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "_copier"
        ):
            changed = tuple(ast.literal_eval(arg) for arg in node.args)
            fixed: list[str] = []
            for k in node.keywords:
                if k.arg is not None:
                    fixed.append(k.arg)
                elif isinstance(k.value, ast.Name) and k.value.id in dicts:
                    keys = dicts[k.value.id].keys
                    fixed += [ast.literal_eval(key) for key in keys if key is not None]
                else:
                    raise NoTemplateError(f"a _copier call unpacks {ast.unparse(k.value)}")
            specs.append((changed, tuple(fixed)))
    return sorted(set(specs))


def _slots(cls: type) -> list[str]:
    return [f.name for f in attrs.fields(cls)]


def _init_fields() -> list[str]:
    return [f.name for f in attrs.fields(GameState) if f.init]


def _defaults() -> dict[str, str]:
    """The values of the slots that are no init argument (the legal-actions cache)."""
    return {f.name: repr(f.default) for f in attrs.fields(GameState) if not f.init}


def _def(name: str, head: list[str], params: list[str], returns: str, indent: str) -> list[str]:
    """A ``def`` line, its parameters one a line when they do not fit on one."""
    annotated = [*(f"{p}: Any" for p in head), *(["*"] if params else [])]
    for p in params:
        key, eq, default = p.partition("=")
        annotated.append(f"{key}: Any = {default}" if eq else f"{key}: Any")
    line = f"{indent}def {name}({', '.join(annotated)}) -> {returns}:"
    if len(line) <= 100:
        return [line]
    return [
        f"{indent}def {name}(",
        *(f"{indent}    {a}," for a in annotated),
        f"{indent}) -> {returns}:",
    ]


def _builder(
    name: str,
    doc: str,
    head: list[str],
    params: list[str],
    values: dict[str, str],
    slots: list[str],
) -> list[str]:
    """A factory's inner builder: ``o.<slot> = <value>`` for every slot, then the class switch."""
    return [
        *_def(name, head, params, "Any", "    "),
        f'        """{doc}"""',
        "        o: Any = new(twin)",
        *(_store(slot, values[slot]) for slot in slots),
        "        o.__class__ = cls",
        "        return o",
        "",
        f"    return {name}",
        "",
        "",
    ]


def _tuple(names: tuple[str, ...], indent: str) -> list[str]:
    """A tuple of strings as lines ending in a comma, one name a line when too long."""
    inner = ", ".join(f'"{n}"' for n in names) + ("," if len(names) == 1 else "")
    if len(indent) + len(inner) + 3 <= 100:
        return [f"{indent}({inner}),"]
    return [f"{indent}(", *(f'{indent}    "{n}",' for n in names), f"{indent}),"]


def _store(slot: str, value: str) -> str:
    line = f"        o.{slot} = {value}"
    if len(line) <= 100:
        return line
    return f"        o.{slot} = (\n            {value}\n        )"


def _factory(name: str, extra: list[str], doc: str) -> list[str]:
    params = ["cls: type", "twin: type", *(f"{e}: Any" for e in extra)]
    line = f"def {name}({', '.join(params)}) -> Callable[..., Any]:"
    return [
        *(
            [line]
            if len(line) <= 100
            else [f"def {name}(", *(f"    {p}," for p in params), ") -> Callable[..., Any]:"]
        ),
        f'    """{doc}"""',
        "    new = object.__new__",
        "",
    ]


def generated() -> str:
    """The whole of ``_fast_builders.py``: the builders' factories and what they are for."""
    out: list[str] = []
    out += [
        f"NEWEST_VERSION = {NEWEST_VERSION}",
        '"""``allegra_rules.fields.NEWEST_VERSION``, for the modules that play without the',
        'declaration (importing it costs a twentieth of ``import allegra_rules``)."""',
        "",
        "GENERATED_FOR: dict[str, tuple[str, ...]] = {",
        *(
            line
            for cls in (GameState, PlayerView)
            for line in (
                f'    "{cls.__name__}": (',
                *(f'        "{n}",' for n in _slots(cls)),
                "    ),",
            )
        ),
        "}",
        '"""The fields of each class the code below is generated for (see ``built``)."""',
        "",
        "",
    ]
    init = _init_fields()
    slots = _slots(GameState)
    fixed_slots = _defaults()

    # trusted_state: every init field by keyword; a field with a default for the games of
    # older versions may be omitted (a DefaultFrom is computed from the fields given), but
    # never the schema version.
    params, given = [], {}
    for name in init:
        default = FIELDS[name].default
        if default is NO_DEFAULT or FIELDS[name].kind is Kind.SCHEMA_VERSION:
            params.append(name)
            given[name] = name
        elif isinstance(default, DefaultFrom):
            params.append(f"{name}=missing")
            given[name] = f'{name} if {name} is not missing else later_default("{name}", locals())'
        else:
            params.append(f"{name}={default!r}")
            given[name] = name
    out += _factory(
        "make_trusted_state",
        ["missing", "later_default"],
        "``allegra_rules.state.trusted_state``: every field given.",
    )
    out += _builder(
        "trusted_state",
        "A GameState of the fields given, unchecked.",
        [],
        params,
        {**given, **fixed_slots},
        slots,
    )

    # trusted_evolve: a copy, any init field replaced.
    out += _factory(
        "make_trusted_evolve",
        ["missing"],
        "``allegra_rules.state.trusted_evolve``: a copy, the fields given replaced.",
    )
    out += _builder(
        "trusted_evolve",
        "A copy of ``s`` with the fields given replaced, unchecked.",
        ["s"],
        [f"{n}=missing" for n in init],
        {**{n: f"s.{n} if {n} is missing else {n}" for n in init}, **fixed_slots},
        slots,
    )

    # One copier per _copier(...) call of the transitions.
    table = []
    for k, (changed, fixed) in enumerate(copier_specs()):
        unknown = (set(changed) | set(fixed)) - set(init)
        if unknown:
            raise NoTemplateError(
                f"a _copier call of transitions.py names {sorted(unknown)}, which are not "
                "GameState fields: correct the call (or add the field to GameState)"
            )
        name = f"make_copier_{k}"
        key = [*_tuple(changed, "        "), *_tuple(fixed, "        ")]
        table += ["    (", *key, f"    ): {name},"]
        values = {n: f"s.{n}" for n in init}
        values.update({n: n for n in (*changed, *fixed)})
        values.update(fixed_slots)
        out += _factory(name, list(fixed), "A copier of the transitions (see ``COPIERS``).")
        out += _builder(
            "copy",
            "A copy of ``s``: the fields given replaced, the fixed ones set.",
            ["s"],
            list(changed),
            values,
            slots,
        )
    out += [
        "COPIERS: dict[tuple[tuple[str, ...], tuple[str, ...]], Callable[..., Any]] = {",
        *table,
        "}",
        '"""The copier factories by the names they change and fix (see ``state_builder``)."""',
        "",
        "",
    ]

    # The view of a state, and a state of a view (determinize).
    copied = [f.name for f in STATE_FIELDS if f.copied_to_view]
    view_slots = _slots(PlayerView)
    computed = [n for n in view_slots if n not in copied]
    assert set(VIEW_ONLY) <= set(computed)
    out += _factory(
        "make_view", [], "``observe``'s builder: the public fields copied, the others given."
    )
    out += _builder(
        "view",
        "A PlayerView of ``s``: every public field copied, the others given.",
        ["s"],
        computed,
        {n: n if n in computed else f"s.{n}" for n in view_slots},
        view_slots,
    )
    out += observe_code()
    hidden = [f.name for f in STATE_FIELDS if not f.copied_to_view]
    out += _factory(
        "make_state_of_view",
        [],
        "``determinize``'s builder: the public fields copied from a view, the others given.",
    )
    out += _builder(
        "state_of_view",
        "A GameState with view ``v``'s public fields and the others given, unchecked.",
        ["v"],
        hidden,
        {**{n: n if n in hidden else f"v.{n}" for n in init}, **fixed_slots},
        slots,
    )
    body = "\n".join(out).rstrip("\n") + "\n"
    names = re.findall(r"^(?:def )?([A-Za-z_]\w*)\b(?=[(:]| =)", body, re.MULTILINE)
    ordered = sorted(n for n in names if n.isupper()) + sorted(n for n in names if not n.isupper())
    return BUILDERS_HEAD.replace("{names}", "\n".join(f'    "{n}",' for n in ordered)) + body


CODEC_HEAD = '''"""The bulk paths of the state's JSON codec, generated from the declaration.

Do not edit: ``python -m allegra_rules._generate_fast --write`` writes this whole module from
``allegra_rules.fields`` (a test fails when it is not current). The canonical text writer of a
state (and of its ``RoundEnd``) and the bulk readers of a state document, of the part a view
shares with it and of a ``RoundEnd`` object are written out field by field from the fields'
kinds: a writer joins the sorted keys' texts in one ``"".join`` (numbers from a table of small
ints' texts, the config's and the round end's texts cached per object); a reader checks the types
of all numbers in one ``set(map(type, ...))`` pass and their ranges with ``min``/``max`` and set
membership, and answers ``None`` on any doubt, so that the checked decoders of
``allegra_rules.state_codec`` (which passes the helpers) name the bad field. Like
``allegra_rules._fast``, it imports nothing of the package: each is a factory of its helpers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["GENERATED_FOR"]


'''


def generated_codec() -> str:
    """The whole of ``_fast_codec.py``: the codec's generated writers and bulk readers."""
    out = ["GENERATED_FOR: dict[str, tuple[str, ...]] = {"]
    for what, keys in CODEC_FIELDS.items():
        out += [f'    "{what}": (', *(f'        "{k}",' for k in keys), "    ),"]
    out += [
        "}",
        '"""The keys of the documents the code below is generated for (see ``state_codec``)."""',
        "",
        "",
        *_writers(),
        *_readers(),
    ]
    return CODEC_HEAD + "\n".join(out).rstrip("\n") + "\n"


# ------------------------------------------------------------------ observe


class NoTemplateError(LookupError):
    """A rule of the declaration that the generator has no code template for."""


OBSERVE_HELPERS = ("hide", "legal", "not_a_seat")
"""The helpers that ``make_observe`` takes by keyword (others are ignored, so that a helper can be
passed before the code that uses it is generated): ``hide(mask, values, num_cells)`` (a
``Seen.FACE_UP`` field's flags and shown values), ``legal(state)`` (the legal actions) and
``not_a_seat(state, viewer)`` (raises: the viewer is neither ``None`` nor a seat)."""


@attrs.frozen
class _Context:
    """What a template may read besides its field: the declaration it is generated from."""

    fields: dict[str, StateField]
    seats: str
    """The state field of the seat count."""


_Template = Callable[[StateField, _Context], tuple[tuple[str, ...], list[str]]]
"""A state field's rule as code: the view slots it fills, and its lines in ``observe``'s body."""
_ViewTemplate = Callable[[ViewField, _Context], tuple[tuple[str, ...], list[str]]]
"""A view-only field's rule as code, alike."""

_IN = "        "
"""The indent of ``observe``'s body."""


def _copied(f: StateField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """A public field: copied as it is."""
    return (f.name,), [_store(f.name, f"s.{f.name}")]


def _face_up(f: StateField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """Seen.FACE_UP: the values hidden where the mask is set, the mask as bools."""
    (shown,) = f.view_fields
    (flags,) = ctx.fields[f.mask].view_fields
    v = f"v_{f.name}"
    return (shown, flags), [
        f"{_IN}{v} = s.{f.name}",
        f"{_IN}o.{flags}, o.{shown} = hide(s.{f.mask}, {v}, len({v}))",
    ]


def _seat_field(f: StateField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """Owner.SEAT_FIELD: while secret, the owner alone sees the value; others get the flag."""
    shown, hidden = f.view_fields
    v = f"v_{f.name}"
    secret = [f"s.{f.secret_when}"] if f.secret_when else []
    condition = " and ".join([f"{v} is not None", *secret, f"viewer != s.{f.owner_field}"])
    return (shown, hidden), [
        f"{_IN}{v} = s.{f.name}",
        f"{_IN}if {condition}:",
        f"{_IN}    o.{shown} = None",
        f"{_IN}    o.{hidden} = True",
        f"{_IN}else:",
        f"{_IN}    o.{shown} = {v}",
        f"{_IN}    o.{hidden} = False",
    ]


def _pair_seat(f: StateField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """Owner.PAIR_SEAT: while secret, each pair's card is shown to the pair's seat alone."""
    (shown,) = f.view_fields
    v = f"v_{f.name}"
    secret = f" and s.{f.secret_when}" if f.secret_when else ""
    return (shown,), [
        f"{_IN}{v} = s.{f.name}",
        f"{_IN}if {v}{secret}:",
        f"{_IN}    {v} = tuple((p, c if viewer == p else None) for p, c in {v})",
        f"{_IN}o.{shown} = {v}",
    ]


def _naming_pairs(f: StateField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """Owner.NAMING_PAIRS: item ``k`` is seat ``(owner_field + k // 2) % n``'s; the viewer's own."""
    (shown,) = f.view_fields
    v = f"v_{f.name}"
    return (shown,), [
        f"{_IN}{v} = s.{f.name}",
        f"{_IN}if {v} and viewer is not None:",
        f"{_IN}    first, n = s.{f.owner_field}, s.{ctx.seats}",
        f"{_IN}    o.{shown} = tuple(",
        f"{_IN}        x for k, x in enumerate({v}) if (first + k // 2) % n == viewer",
        f"{_IN}    )",
        f"{_IN}else:",
        f"{_IN}    o.{shown} = ()",
    ]


def _pile(f: StateField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """A Seen.NOBODY pile: its size, and its cards sorted while ``known_when`` is non-zero."""
    size, cards = f.view_fields
    v = f"v_{f.name}"
    known = f"tuple(sorted({v})) if s.{f.known_when} else None" if f.known_when else "None"
    return (size, cards), [
        f"{_IN}{v} = s.{f.name}",
        _store(size, f"len({v})"),
        _store(cards, known),
    ]


def _viewer(f: ViewField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """ViewKind.VIEWER: the viewing seat, ``None`` or a seat of the game (else ``not_a_seat``)."""
    if not ctx.seats:
        raise NoTemplateError(f"the viewer's check ({f.name!r}) needs a Kind.SEAT_COUNT field")
    seat = f"type(viewer) is not int or not 0 <= viewer < s.{ctx.seats}"
    return (f.name,), [
        f"{_IN}if viewer is not None and ({seat}):",
        f"{_IN}    not_a_seat(s, viewer)",
        _store(f.name, "viewer"),
    ]


def _to_act(f: ViewField, ctx: _Context) -> tuple[tuple[str, ...], list[str]]:
    """ViewKind.ACTIONS: the legal actions, for the seat of ``shown_to`` alone."""
    return (f.name,), [
        f"{_IN}if viewer is not None and viewer == s.{f.shown_to}:",
        f"{_IN}    o.{f.name} = legal(s)",
        f"{_IN}else:",
        f"{_IN}    o.{f.name} = ()",
    ]


_OWNER_TEMPLATES: dict[Owner, _Template] = {
    Owner.SEAT_FIELD: _seat_field,
    Owner.PAIR_SEAT: _pair_seat,
    Owner.NAMING_PAIRS: _naming_pairs,
}
_NOBODY_TEMPLATES: dict[Kind, _Template] = {Kind.CARDS: _pile}
"""Per kind, the template of a ``Seen.NOBODY`` field that a view shows something of."""
_VIEW_ONLY_TEMPLATES: dict[ViewKind, _ViewTemplate] = {
    ViewKind.VIEWER: _viewer,
    ViewKind.ACTIONS: _to_act,
}
"""The rules mirror ``observe``'s generic plan in ``allegra_rules.views`` (``_plan_masks``)."""


def _no_template(rule: object, table: str, field: str) -> NoTemplateError:
    return NoTemplateError(
        f"no observe template for {rule} (field {field!r}): add one to {table} in "
        "allegra_rules._generate_fast, and the rule to observe's plan in allegra_rules.views"
    )


def _rule_of(f: StateField, ctx: _Context, masks: frozenset[str]) -> _Template | None:
    """The template of state field ``f``'s rule (``None``: a view shows nothing of it)."""
    if f.copied_to_view:
        return _copied
    if f.seen is Seen.FACE_UP:
        return _face_up
    if f.seen is Seen.OWNER:
        template = _OWNER_TEMPLATES.get(f.owned_by)  # type: ignore[arg-type]
        if template is None:
            raise _no_template(f"owned_by={f.owned_by!r}", "_OWNER_TEMPLATES", f.name)
        return template
    if f.seen is Seen.NOBODY:
        if not f.view:
            return None
        template = _NOBODY_TEMPLATES.get(f.kind)
        if template is None:
            raise _no_template(f"a Seen.NOBODY field of {f.kind!r}", "_NOBODY_TEMPLATES", f.name)
        return template
    if f.seen is Seen.EVERYONE and f.name in masks:
        return None  # shown by the Seen.FACE_UP field it masks
    raise _no_template(f"seen={f.seen!r} with view={f.view!r}", "_rule_of", f.name)


def observe_code(
    fields: tuple[StateField, ...] = STATE_FIELDS,
    view_fields: tuple[ViewField, ...] = VIEW_FIELDS,
    slots: tuple[str, ...] | None = None,
) -> list[str]:
    """``make_observe``: one straight-line ``observe`` with each field's declared rule inline.

    Each rule (``Seen``, ``Owner``, a ``Seen.NOBODY`` field's kind, a view-only field's
    ``ViewKind``) has one small template above; a rule without one raises ``NoTemplateError``.
    The view's slots (``slots``, by default ``PlayerView``'s) are filled as ``make_view`` fills
    them, each exactly once.

    Raises:
        NoTemplateError: a declared rule has no template.
    """
    by_name = {f.name: f for f in fields}
    seats = [f.name for f in fields if f.kind is Kind.SEAT_COUNT]
    ctx = _Context(by_name, seats[0] if seats else "")
    masks = frozenset(f.mask for f in fields if f.seen is Seen.FACE_UP)
    blocks: list[tuple[tuple[str, ...], list[str]]] = []
    for view_field in view_fields:
        if view_field.shows:
            continue
        view_template = _VIEW_ONLY_TEMPLATES.get(view_field.kind)
        if view_template is None:
            raise _no_template(
                f"a view-only field of {view_field.kind!r}", "_VIEW_ONLY_TEMPLATES", view_field.name
            )
        blocks.append(view_template(view_field, ctx))
    for field in fields:
        template = _rule_of(field, ctx, masks)
        if template is not None:
            blocks.append(template(field, ctx))
    order = list(_slots(PlayerView)) if slots is None else list(slots)
    filled = [slot for filled_slots, _ in blocks for slot in filled_slots]
    if sorted(filled) != sorted(order):
        raise NoTemplateError(
            f"the rules fill the view slots {sorted(set(filled) - set(order))} that the view "
            f"lacks, miss {sorted(set(order) - set(filled))} or fill one twice"
        )
    blocks.sort(key=lambda block: min(order.index(slot) for slot in block[0]))
    long = [line for _, lines in blocks for line in lines if len(line) > 100]
    if long:
        raise NoTemplateError(f"a template wrote a line over 100 characters: {long[0].strip()}")
    return [
        "def make_observe(cls: type, twin: type, **helpers: Any) -> Callable[..., Any]:",
        '    """``observe``\'s body: each declared rule inline, the view\'s slots filled."""',
        "    new = object.__new__",
        *(f'    {h} = helpers["{h}"]' for h in OBSERVE_HELPERS),
        "",
        "    def observe(s: Any, viewer: Any) -> Any:",
        '        """The view of ``s`` for seat ``viewer`` (``None``: public); ``s`` unchecked."""',
        "        o: Any = new(twin)",
        *(line for _, lines in blocks for line in lines),
        "        o.__class__ = cls",
        "        return o",
        "",
        "    return observe",
        "",
        "",
    ]


# ------------------------------------------------------------------ the JSON codec

_WRITE_HELPERS = (
    "number",
    "array",
    "scalar",
    "bool_text",
    "phase_text",
    "cached",
    "config_texts",
    "cells_per_seat",
)
_READ_HELPERS = (
    "rounds",
    "phases",
    "int_only",
    "bool_only",
    "list_only",
    "chain",
    "compress",
    "not_none",
    "are_cards_or_null",
    "seats_of",
    "face_down_mask",
    "hand_keys",
    "min_seed",
    "max_seed",
    "read_round_end",
)
_SCALAR_TEXT = {
    Kind.SEED,
    Kind.ROUND,
    Kind.SEAT,
    Kind.REVEALS,
    Kind.TURNS,
    Kind.REFILLS,
}
_OPTIONAL = {Kind.OPT_SEAT, Kind.OPT_CELL, Kind.OPT_CARD}
_INT_LISTS = {Kind.SEATS, Kind.CELLS, Kind.CARDS, Kind.PER_SEAT, Kind.CELL_SET}
_LISTS = _INT_LISTS | {Kind.TABLE, Kind.CELL_MASK, Kind.HAND, Kind.SCORE_ROWS}
_INT_RANGE = {
    Kind.SEED: "min_seed <= {v} <= max_seed",
    Kind.ROUND: "1 <= {v} <= rounds",
    Kind.SEAT: "0 <= {v} < n",
    Kind.REVEALS: "0 <= {v} <= 2 * n",
    Kind.TURNS: "0 <= {v} <= config.max_turns_per_round",
}
"""Per int kind of a bulk reader, its range check (``REFILLS``: at most the turns played)."""

_STAND_IN = {
    **dict.fromkeys((Kind.SEATS, Kind.CELLS, Kind.CARDS, Kind.CELL_SET, Kind.HAND), "[]"),
    Kind.SCORE_ROWS: "[]",
    Kind.PER_SEAT: "[0] * n",
    **dict.fromkeys((Kind.OPT_SEAT, Kind.OPT_CELL, Kind.OPT_CARD), "None"),
    Kind.FLAG: "False",
    **dict.fromkeys((Kind.SEAT, Kind.REVEALS, Kind.TURNS, Kind.REFILLS, Kind.SEED), "0"),
    Kind.ROUND: "1",
}
"""Per kind, a value that passes a bulk reader's checks: the stand-in of a later field
that an older document lacks (the reader's caller puts the field's default in its place)."""


def _codec_factory(name: str, helpers: tuple[str, ...], doc: str) -> list[str]:
    return [
        f"def {name}(",
        "    *,",
        *(f"    {h}: Any," for h in helpers),
        ") -> Callable[..., Any]:",
        f'    """{doc}"""',
        "",
    ]


def _one(fields: tuple[StateField, ...], kind: Kind) -> StateField:
    (found,) = (f for f in fields if f.kind is kind)
    return found


def _text(f: StateField, obj: str) -> list[tuple[bool, str]]:
    """The parts of a field's JSON text after its key: (literal?, text)."""
    v = f"{obj}.{f.name}"
    k = f.kind
    if k is Kind.CONFIG:
        return [(False, "config_text")]
    if k is Kind.SEAT_COUNT:
        return [(False, "scalar(n)")]
    if k in _SCALAR_TEXT:
        return [(False, f"scalar({v})")]
    if k in _OPTIONAL:
        return [(False, f"number({v}) or scalar({v})")]
    if k is Kind.FLAG:
        return [(False, f"bool_text({v})")]
    if k is Kind.PHASE:
        return [(False, f"phase_text[{v}]")]
    if k in _INT_LISTS or k is Kind.TABLE:
        return [(False, f"array({v})")]
    if k is Kind.CELL_MASK:
        return [(True, "["), (False, 'bits.replace("1", "true,").replace("0", "false,")[:-1]')]
        # the closing bracket follows (see _writer)
    if k is Kind.HAND:
        seat_key, card_key = HAND_KEYS
        pair = {seat_key: "scalar(p)", card_key: "scalar(c)"}
        parts = " + ".join(
            f"'{'{' if i == 0 else ','}\"{key}\":' + {pair[key]}"
            for i, key in enumerate(sorted(pair))
        )
        joined = (
            f'",".join(\n                    [{parts} + "}}" for p, c in {v}]\n                )'
        )
        return [(True, "["), (False, joined)]
    if k is Kind.SCORE_ROWS:
        return [(True, "["), (False, f'",".join(map(array, {v}))')]
    if k is Kind.ROUND_END:
        return [(False, f'"null" if {v} is None else cached({v}, version, round_end_text)')]
    if k is Kind.SCHEMA_VERSION:
        return [(False, "str(version)")]
    raise NoTemplateError(f"the kind {k} of field {f.name!r} has no JSON text in _text")


_CLOSED = {Kind.CELL_MASK, Kind.HAND, Kind.SCORE_ROWS}


def _writer(name: str, fields: tuple[StateField, ...], obj: str, header: bool) -> list[str]:
    """The body of a canonical JSON writer: every key sorted, one ``"".join`` of the parts."""
    by_key: dict[str, StateField | None] = {f.name: f for f in fields}
    if header:
        by_key.update(dict.fromkeys(HEADER_KEYS))
    parts: list[tuple[bool, str]] = []
    first = True
    for key in sorted(by_key):
        f = by_key[key]
        lead = ("{" if first else ",") + json.dumps(key) + ":"
        first = False
        if f is None:
            text = '"state"' if key == HEADER_KEYS[1] else "str(version)"
            parts += (
                [(True, lead + text)] if key == HEADER_KEYS[1] else [(True, lead), (False, text)]
            )
            continue
        body = _text(f, obj)
        if f.added > 1:
            assert len(body) == 1 and not body[0][0], f"{f.name}: a later field is one expression"
            parts.append((False, f'({_lit(lead)} + {body[0][1]}) if version >= {f.added} else ""'))
            continue
        parts.append((True, lead))
        parts += body
        if f.kind in _CLOSED:
            parts.append((True, "]"))
    parts.append((True, "}"))
    merged: list[tuple[bool, str]] = []
    for literal, text in parts:
        if literal and merged and merged[-1][0]:
            merged[-1] = (True, merged[-1][1] + text)
        else:
            merged.append((literal, text))
    return [f"                {_lit(text) if literal else text}," for literal, text in merged]


def _lit(text: str) -> str:
    """A string literal as the formatter writes it: double quotes unless the text holds one."""
    return repr(text) if '"' in text and "'" not in text else json.dumps(text)


def _writers() -> list[str]:
    out = _codec_factory(
        "make_state_json",
        (*_WRITE_HELPERS, "round_end_text"),
        "``allegra_rules.state_codec.state_json``: a state's canonical JSON text.",
    )
    mask = _one(STATE_FIELDS, Kind.CELL_MASK).name
    seats = _one(STATE_FIELDS, Kind.SEAT_COUNT).name
    config = _one(STATE_FIELDS, Kind.CONFIG).name
    version = _one(STATE_FIELDS, Kind.SCHEMA_VERSION).name
    out += [
        "    def state_json(s: Any) -> str:",
        '        """The text of ``dumps(state_to_dict(s))``, written directly."""',
        f"        n = s.{seats}",
        "        top = 1 << (n * cells_per_seat)",
        f'        bits = format(s.{mask} & (top - 1) | top, "b")[:0:-1]  # bit i is character i',
        f"        config_text = cached(s.{config}, 0, config_texts)",
        f"        version = s.{version}",
        '        return "".join(',
        "            (",
        *_writer("state_json", STATE_FIELDS, "s", True),
        "            )",
        "        )",
        "",
        "    return state_json",
        "",
        "",
    ]
    out += _codec_factory(
        "make_round_end_json",
        _WRITE_HELPERS,
        "The canonical JSON text of a ``RoundEnd`` in a document of a schema version.",
    )
    out += [
        "    def round_end_json(e: Any, version: int) -> str:",
        '        """The text of ``dumps(round_end_to_dict(e, version))``, written directly."""',
        '        return "".join(',
        "            (",
        *_writer("round_end_json", ROUND_END_FIELDS, "e", False),
        "            )",
        "        )",
        "",
        "    return round_end_json",
        "",
        "",
    ]
    return out


_BOUNDS = {
    Bound.SETUP_SUM: ("-valid.setup_bound", "valid.setup_bound"),
    Bound.SCORE: ("-valid.score_bound", "valid.score_bound"),
    Bound.TOTAL: ("-rounds * valid.score_bound", "rounds * valid.score_bound"),
    Bound.COUNT: ("0", "config.max_turns_per_round"),
    None: ("-valid.score_bound", "valid.score_bound"),
}
"""A ``PER_SEAT`` number's lowest and highest value in a bulk reader, by its ``Bound``
(the same as ``state_checks.per_seat_range``)."""


def _and(conditions: list[str], indent: str) -> list[str]:
    """``if not (c1 and c2 ...): return None``: on one line if it fits, else one per line."""
    if not conditions:
        return []
    line = f"{indent}if not ({' and '.join(conditions)}):"
    if len(line) <= 100:
        return [line, f"{indent}    return None"]
    return [
        f"{indent}if not (",
        *(
            f"{indent}    {c}" if i == 0 else f"{indent}    and {c}"
            for i, c in enumerate(conditions)
        ),
        f"{indent}):",
        f"{indent}    return None",
    ]


def _items(names: list[str]) -> str:
    """A tuple display of ``names``, as the formatter writes it on one line."""
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _used(assignment: str, lines: list[str]) -> bool:
    """Whether the variable that ``assignment`` sets is read in ``lines``."""
    name = assignment.split("=")[0].strip()
    return any(re.search(rf"\b{name}\b", line) for line in lines)


def _set_of_types(names: list[str], only: str) -> list[str]:
    """``if {type(a), ...} != only: return None``, one name a line."""
    return [
        "        if {",
        *(f"            type({v})," for v in names),
        f"        }} != {only}:",
        "            return None",
    ]


def _reader(name: str, fields: tuple[StateField, ...], doc: str) -> list[str]:
    """A bulk reader of ``fields``: every check of the checked decoders, at C speed."""
    own = [f for f in fields if f.kind not in (Kind.CONFIG, Kind.SEAT_COUNT, Kind.SCHEMA_VERSION)]
    var = {f.name: f"v_{f.name}" for f in fields}
    preamble = [
        "        n = valid.seat_count",
        "        num_cells = valid.num_cells",
        "        values = valid.values",
        "        config = valid.rule_config",
        "        version = valid.version",
        "        seats = seats_of(n)",
    ]
    body: list[str] = []
    for f in own:
        if f.added > 1:
            # An older document lacks it: a stand-in that passes the checks below, which
            # the caller replaces with the field's default.
            if f.kind not in _STAND_IN:
                raise NoTemplateError(
                    f"a field of kind {f.kind} added after version 1 ({f.name!r}) has no "
                    "stand-in for older documents in _STAND_IN"
                )
            stand_in = _STAND_IN[f.kind]
            body.append(
                f'        {var[f.name]} = data["{f.name}"] if version >= {f.added} else {stand_in}'
            )
        else:
            body.append(f'        {var[f.name]} = data["{f.name}"]')
    of = {k: [f for f in own if f.kind is k] for k in Kind}
    # Ints: their types in one set, then their ranges.
    ints = [f for f in own if f.kind in _SCALAR_TEXT]
    if ints:
        body += _set_of_types([var[f.name] for f in ints], "int_only")
        ranges = []
        for f in ints:
            v = var[f.name]
            if f.kind not in _INT_RANGE and f.kind is not Kind.REFILLS:
                raise NoTemplateError(f"the int kind {f.kind} ({f.name!r}) has no range check")
            ranges.append(
                _INT_RANGE[f.kind].format(v=v)
                if f.kind is not Kind.REFILLS
                else f"0 <= {v} <= {var[_one(tuple(own), Kind.TURNS).name]}"
            )
        body += _and(ranges, "        ")
    for f in of[Kind.PHASE]:
        v = var[f.name]
        body += [
            f"        {v} = phases.get({v}) if type({v}) is str else None",
            f"        if {v} is None:",
            "            return None",
        ]
    for f in of[Kind.FLAG]:
        body += [f"        if type({var[f.name]}) is not bool:", "            return None"]
    if of[Kind.OPT_SEAT]:
        listed = _items([var[f.name] for f in of[Kind.OPT_SEAT]])
        body += [
            f"        optional = list(filter(not_none, {listed}))",
            "        if not set(map(type, optional)) <= int_only"
            " or not seats.issuperset(optional):",
            "            return None",
        ]
    if of[Kind.OPT_CELL]:
        listed = _items([var[f.name] for f in of[Kind.OPT_CELL]])
        body += [
            f"        at = list(filter(not_none, {listed}))",
            "        if at and not (set(map(type, at)) <= int_only"
            " and min(at) >= 0 and max(at) < num_cells):",
            "            return None",
        ]
    for f in of[Kind.OPT_CARD]:
        v = var[f.name]
        body += _and([f"{v} is None or (type({v}) is int and {v} in values)"], "        ")
    lists = [f for f in own if f.kind in _LISTS]
    if lists:
        body += _set_of_types([var[f.name] for f in lists], "list_only")
    for f in of[Kind.SCORE_ROWS]:
        body += [
            f"        if not set(map(type, {var[f.name]})) <= list_only:",
            "            return None",
        ]
    int_lists = [var[f.name] for f in own if f.kind in _INT_LISTS]
    int_lists += [f"*{var[f.name]}" for f in of[Kind.SCORE_ROWS]]
    if int_lists:
        body += [
            "        numbers = (",
            *(f"            {v}," for v in int_lists),
            "        )",
            "        if not set(map(type, chain(*numbers))) <= int_only:",
            "            return None",
        ]
    checks = []
    for f in lists:
        v = var[f.name]
        k = f.kind
        if k is Kind.CARDS:
            checks += [f"len({v}) <= config.deck_size", f"values.issuperset({v})"]
        elif k is Kind.PER_SEAT:
            if f.bound not in _BOUNDS:
                raise NoTemplateError(f"the bound {f.bound} of {f.name!r} has no range in _BOUNDS")
            low, high = _BOUNDS[f.bound]
            checks += [f"len({v}) == n", f"{low} <= min({v})", f"max({v}) <= {high}"]
        elif k is Kind.SEATS:
            checks += [f"seats.issuperset({v})", f"len(set({v})) == len({v})"]
        elif k is Kind.CELLS:
            checks += [
                f"len({v}) <= 2 * n",
                f"(not {v} or (min({v}) >= 0 and max({v}) < num_cells))",
            ]
        elif k is Kind.CELL_SET:
            checks += [
                f"len({v}) <= num_cells",
                f"{v} == sorted(set({v}))",
                f"(not {v} or ({v}[0] >= 0 and {v}[-1] < num_cells))",
            ]
        elif k is Kind.TABLE:
            checks += [f"len({v}) == num_cells", f"are_cards_or_null({v}, values)"]
        elif k is Kind.CELL_MASK:
            table = var[_one(tuple(own), Kind.TABLE).name]
            checks += [
                f"len({v}) == num_cells",
                f"set(map(type, {v})) <= bool_only",
                f"None not in compress({table}, {v})",
            ]
        elif k is Kind.HAND:
            checks += [f"len({v}) <= 1"]
        elif k is Kind.SCORE_ROWS:
            checks += [f"len({v}) <= rounds"]
        else:
            raise NoTemplateError(f"the list kind {k} ({f.name!r}) has no range check in _reader")
    body += _and(checks, "        ")
    for f in of[Kind.SCORE_ROWS]:
        v = var[f.name]
        body += [
            f"        if {v}:",
            f"            if set(map(len, {v})) != {{n}}:",
            "                return None",
            f"            scores = list(chain(*{v}))",
            "            bound = valid.score_bound",
            "            if not (-bound <= min(scores) and max(scores) <= bound):",
            "                return None",
        ]
    out_value: dict[str, str] = {}
    for f in of[Kind.HAND]:
        v = var[f.name]
        seat_key, card_key = HAND_KEYS
        body += [
            f"        if {v}:",
            f"            entry = {v}[0]",
            "            if type(entry) is not dict or entry.keys() != hand_keys:",
            "                return None",
            f'            p, c = entry["{seat_key}"], entry["{card_key}"]',
            "            if not (type(p) is int and 0 <= p < n"
            " and type(c) is int and c in values):",
            "                return None",
            f"            {v} = ((p, c),)",
            "        else:",
            f"            {v} = ()",
        ]
    for f in of[Kind.ROUND_END]:
        v = var[f.name]
        body += [
            f"        if {v} is not None:",
            f"            {v} = read_round_end({v}, valid)",
            f"            if {v} is None:",
            "                return None",
        ]
    for f in fields:
        v = var[f.name]
        k = f.kind
        if k is Kind.CONFIG:
            out_value[f.name] = "config"
        elif k is Kind.SCHEMA_VERSION:
            out_value[f.name] = "version"
        elif k is Kind.SEAT_COUNT:
            out_value[f.name] = "n"
        elif k in _INT_LISTS or k is Kind.TABLE:
            out_value[f.name] = f"tuple({v})"
        elif k is Kind.CELL_MASK:
            out_value[f.name] = f"face_down_mask({v})"
        elif k is Kind.SCORE_ROWS:
            out_value[f.name] = f"tuple(map(tuple, {v}))"
        else:
            out_value[f.name] = v
    return [
        *_codec_factory(f"make_{name}", _READ_HELPERS, doc),
        "    def read(data: Any, valid: Any) -> Any:",
        '        """The fields checked in bulk, by name; ``None`` on any doubt."""',
        *(line for line in preamble if _used(line, [*body, *out_value.values()])),
        *body,
        "        return {",
        *(f'            "{n}": {e},' for n, e in out_value.items()),
        "        }",
        "",
        "    return read",
        "",
        "",
    ]


def _readers() -> list[str]:
    return [
        *_reader(
            "read_state",
            STATE_FIELDS,
            "``allegra_rules.state_codec.read_state_fast``: every field of a state document.",
        ),
        *_reader(
            "read_public",
            PUBLIC_FIELDS,
            "``allegra_rules.state_codec.public_fast``: the fields a state and a view share.",
        ),
        *_reader(
            "read_round_end",
            ROUND_END_FIELDS,
            "The fields of a ``RoundEnd`` object (its keys already checked).",
        ),
    ]


def current_text() -> str:
    """``_fast_builders.py`` as it should read (``generated()``)."""
    return generated()


def current_texts() -> dict[Path, str]:
    """Each generated file as it should read: ``_fast_builders.py`` and ``_fast_codec.py``."""
    return {FAST: current_text(), FAST_CODEC: generated_codec()}


def main(argv: list[str] | None = None) -> int:
    """Check (exit 1 when stale) or ``--write`` ``_fast_builders.py`` and ``_fast_codec.py``.

    Exits 2, writing nothing, when a declared rule has no template (``NoTemplateError``)
    or a field is added after ``NEWEST_VERSION``.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated modules")
    args = parser.parse_args(argv)
    too_new = fields_after_newest()
    if too_new:
        print(f"cannot generate {FAST.name}: {too_new}", file=sys.stderr)
        return 2
    try:
        wanted = current_texts()
    except NoTemplateError as exc:
        print(f"cannot generate {FAST.name}: {exc}", file=sys.stderr)
        return 2
    stale = [
        path
        for path, want in wanted.items()
        if not path.exists() or path.read_text(encoding="utf-8") != want
    ]
    if not stale:
        return 0
    if args.write:
        for path in stale:
            path.write_text(wanted[path], encoding="utf-8")
            print(f"wrote {path}")
        return 0
    for path in stale:
        print(f"{path} is not current: run python -m allegra_rules._generate_fast --write")
    return 1


if __name__ == "__main__":
    sys.exit(main())
