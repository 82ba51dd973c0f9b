"""How ``determinize`` draws a full state from a view: one sampler per declared rule.

[`determinize`][allegra_rules.determinize.determinize] (and ``allegra_rules.views``, which checks
a loaded view by sampling one) checks its arguments and calls
[`sample_state`][allegra_rules.sampling.sample_state]. The samplers are chosen from the
declaration of the fields (``allegra_rules.fields``) by each hidden field's ``Seen``, ``Owner``
or kind, so no field is named here. This module sits below the views: it reads a view through
the declared attribute names and its ``unseen_cards``, and builds the state with the generated
builder of ``allegra_rules._fast``.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterator
from operator import attrgetter, itemgetter
from typing import Any, cast

from allegra_rules import _fast
from allegra_rules.config import RuleConfig
from allegra_rules.fields import FIELDS, STATE_FIELDS, Kind, Owner, Seen, StateField
from allegra_rules.geometry import geometry
from allegra_rules.state import GameState, _UnfrozenState

__all__ = ["sample_state"]


def the_field(kind: Kind) -> str:
    """The name of the one state field of ``kind``."""
    (name,) = (f.name for f in STATE_FIELDS if f.kind is kind)
    return name


config_of = cast(Callable[[Any], RuleConfig], attrgetter(the_field(Kind.CONFIG)))
"""The config of a state, view, ``ValidValues`` or ``TableSize``."""
seats_of = cast(Callable[[Any], int], attrgetter(the_field(Kind.SEAT_COUNT)))
"""The seat count of a state, view or ``ValidValues``."""


def plain(value: object) -> object:
    """An enum member's value, anything else as it is (to compare with a declared value)."""
    return value.value if isinstance(value, enum.Enum) else value


def mask_view_of(field: StateField) -> str:
    """The view field of a ``Seen.FACE_UP`` field's mask."""
    (name,) = FIELDS[field.mask].view_fields
    return name


FACE_UP = tuple(f for f in STATE_FIELDS if f.seen is Seen.FACE_UP)
"""The ``Seen.FACE_UP`` fields."""


_Count = Callable[[Any], int]
"""``count(view)``: how many cards of a state field the view hides."""
_Sample = Callable[[Any, random.Random, Iterator[int], dict[str, Any]], None]
"""``sample(view, rng, deal, out)``: put into ``out`` a value of a state field, its hidden
cards taken from ``deal`` (the unseen cards, shuffled)."""


def _none_hidden(view: Any) -> int:
    return 0


def _sample_face_up(field: StateField) -> tuple[_Count, _Sample]:
    """Each masked value dealt, in index order; the mask rebuilt from the view's bools."""
    (shown,) = field.view_fields
    shown_of, flags_of = attrgetter(shown), attrgetter(mask_view_of(field))
    name, mask_name = field.name, field.mask

    def count(view: Any) -> int:
        return sum(flags_of(view))

    def sample(view: Any, rng: random.Random, deal: Iterator[int], out: dict[str, Any]) -> None:
        hidden = [i for i, down in enumerate(flags_of(view)) if down]
        values = list(shown_of(view))
        for i in hidden:
            values[i] = next(deal)
        out[name] = tuple(values)
        out[mask_name] = sum(1 << i for i in hidden)

    return count, sample


def _sample_seat_field(field: StateField) -> tuple[_Count, _Sample]:
    """The value, or a dealt card where the view's hidden flag is set."""
    shown, hidden = field.view_fields
    shown_of, hidden_of = attrgetter(shown), attrgetter(hidden)
    name = field.name

    def count(view: Any) -> int:
        return int(hidden_of(view))

    def sample(view: Any, rng: random.Random, deal: Iterator[int], out: dict[str, Any]) -> None:
        out[name] = next(deal) if hidden_of(view) else shown_of(view)

    return count, sample


def _sample_pair_seat(field: StateField) -> tuple[_Count, _Sample]:
    """Each ``(seat, card)`` pair, a hidden card dealt."""
    (shown,) = field.view_fields
    pairs_of = attrgetter(shown)
    name = field.name

    def count(view: Any) -> int:
        return sum(1 for _, card in pairs_of(view) if card is None)

    def sample(view: Any, rng: random.Random, deal: Iterator[int], out: dict[str, Any]) -> None:
        out[name] = tuple((p, next(deal) if card is None else card) for p, card in pairs_of(view))

    return count, sample


def _sample_pile(field: StateField) -> tuple[_Count, _Sample]:
    """A pile of known cards shuffled, else every card still undealt (top first)."""
    size_of, cards_of = (attrgetter(v) for v in field.view_fields)
    name = field.name

    def count(view: Any) -> int:
        return 0 if cards_of(view) is not None else int(size_of(view))

    def sample(view: Any, rng: random.Random, deal: Iterator[int], out: dict[str, Any]) -> None:
        known = cards_of(view)
        if known is not None:
            pile = list(known)
            rng.shuffle(pile)
            out[name] = tuple(pile)
        else:
            out[name] = tuple(deal)

    return count, sample


def _sample_seed(field: StateField) -> tuple[_Count, _Sample]:
    """A fresh 64-bit seed."""
    name = field.name

    def sample(view: Any, rng: random.Random, deal: Iterator[int], out: dict[str, Any]) -> None:
        out[name] = rng.getrandbits(64)

    return _none_hidden, sample


def _sample_namings(field: StateField) -> tuple[_Count, _Sample]:
    """Items named two per seat, while the field's ``live_while`` conditions hold (else none).

    The viewer's own are kept; each other seat's is drawn uniformly from the masked cells of
    its reveal area (a pair's two cells distinct).
    """
    (shown,) = field.view_fields
    own_of, first_of, count_of = (
        attrgetter(shown),
        attrgetter(field.owner_field),
        attrgetter(field.count_field),
    )
    live = tuple((attrgetter(path), want) for path, want in field.live_while)
    (face_up,) = FACE_UP
    flags_of = attrgetter(mask_view_of(face_up))
    name = field.name

    def sample(view: Any, rng: random.Random, deal: Iterator[int], out: dict[str, Any]) -> None:
        if not all(plain(get(view)) == want for get, want in live):
            out[name] = ()
            return
        n = seats_of(view)
        geo = geometry(n)
        first = first_of(view)
        seats = [(first + k // 2) % n for k in range(count_of(view))]
        own = 0 if view.viewer is None else seats.count(view.viewer)
        own_items = own_of(view)
        if len(own_items) != own:
            raise ValueError(
                f"{shown} must hold the {own} cells the viewer has named so far; "
                f"got {len(own_items)}"
            )
        mine = iter(own_items)
        flags = flags_of(view)
        zone = config_of(view).reveal_area == "zone"
        named: list[int] = []
        for k, seat in enumerate(seats):
            if seat == view.viewer:
                named.append(next(mine))
                continue
            area = geo.zone_sorted[seat] if zone else geo.own[seat]
            choices = [i for i in area if flags[i] and not (k % 2 and i == named[-1])]
            if not choices:
                raise ValueError(f"seat {seat} has no face-down card of its area left to name")
            named.append(rng.choice(choices))
        out[name] = tuple(named)

    return _none_hidden, sample


_Sampler = Callable[[StateField], tuple[_Count, _Sample]]
_OWNER_SAMPLES: dict[Owner, tuple[int, _Sampler]] = {
    Owner.SEAT_FIELD: (0, _sample_seat_field),
    Owner.PAIR_SEAT: (0, _sample_pair_seat),
    Owner.NAMING_PAIRS: (2, _sample_namings),
}
_NOBODY_SAMPLES: dict[Kind, tuple[int, _Sampler]] = {
    Kind.CARDS: (1, _sample_pile),
    Kind.SEED: (3, _sample_seed),
}
"""Per rule: its stage and sampler. The stages order the draws from ``rng``: the hidden cards are
dealt (stage 0) before a pile takes the rest (1); then the namings (2) and the seed (3)."""


def _plan_samples(
    fields: tuple[StateField, ...] = STATE_FIELDS,
) -> tuple[tuple[_Count, ...], tuple[_Sample, ...]]:
    """``determinize``'s plan: per field not copied from a view, its count and sampler.

    In stage order, then the declaration's.
    """
    staged: list[tuple[int, int, tuple[_Count, _Sample]]] = []
    for k, field in enumerate(fields):
        if field.seen is Seen.FACE_UP:
            staged.append((0, k, _sample_face_up(field)))
        elif field.seen is Seen.OWNER:
            assert field.owned_by is not None, field.name
            stage, make = _OWNER_SAMPLES[field.owned_by]
            staged.append((stage, k, make(field)))
        elif field.seen is Seen.NOBODY:
            stage, make = _NOBODY_SAMPLES[field.kind]
            staged.append((stage, k, make(field)))
    staged.sort(key=itemgetter(0, 1))
    return (
        tuple(count for _, _, (count, _) in staged),
        tuple(sample for _, _, (_, sample) in staged),
    )


_HIDDEN_COUNTS, _SAMPLES = _plan_samples()


def sample_state(view: Any, rng: random.Random) -> GameState:
    """A full state consistent with ``view`` (see ``determinize``), its hidden cards from ``rng``.

    Raises:
        ValueError: the view hides another number of cards than are unseen, or its setup
            namings are not the viewer's own so far.
    """
    unseen = list(view.unseen_cards())
    slots = sum(count(view) for count in _HIDDEN_COUNTS)
    if len(unseen) != slots:
        raise ValueError(
            f"the view hides {slots} card(s), but {len(unseen)} card(s) of the deck are unseen"
        )
    rng.shuffle(unseen)
    deal = iter(unseen)
    out: dict[str, Any] = {}
    for sample in _SAMPLES:
        sample(view, rng, deal, out)
    # Every field everyone may see is copied from the view (see allegra_rules.fields).
    return _state_of_view(view, **out)


_state_of_view: Callable[..., GameState] = _fast.built(
    GameState, _UnfrozenState, "make_state_of_view"
)
"""``_state_of_view(view, **<the fields not everyone may see>)``, unchecked (``_fast``)."""
