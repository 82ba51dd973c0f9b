"""The checks of a state that need no rules: types, cards, rounds, setup, turns, the table.

Everything ``allegra_rules.invariants.check_state`` checks but one: that a state which is
not over has a legal action, a question for the rules (``legal_actions``), which sit above
the state. These checks read the declared fields of any object that carries them (a
``GameState``, a state under construction), so this module sits below the state: a
``GameState`` built by hand runs them itself (``check_without_rules``). See
``allegra_rules.invariants`` for what each part checks.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from operator import is_not
from typing import Any, NamedTuple, TypeAlias, cast

import attrs

from allegra_rules._fast import per_config
from allegra_rules.config import RuleConfig
from allegra_rules.config_codec import schema_version_for
from allegra_rules.fields import (
    NEWEST_VERSION,
    STATE_FIELDS,
    Bound,
    Kind,
    StateField,
    later_fields,
)
from allegra_rules.geometry import CELLS_PER_SEAT, MAX_SEATS, ROWS, geometry
from allegra_rules.jsondoc import JsonPath, get_card, get_cards, get_int, get_opt_int
from allegra_rules.knocking import (
    asked_before,
    closes_at_first_knock,
    in_asked_order,
    knocking_applies,
)
from allegra_rules.round_end import ROUNDS, Phase, RoundEnd, check_round_end_types
from allegra_rules.scoring import round_scores, winners, zone_sums
from allegra_rules.shuffle import MAX_SEED, MIN_SEED
from allegra_rules.triples import table_triples
from allegra_rules.value_checks import (
    _bool,
    _card,
    _cards,
    _int,
    _ints,
    _opt_cards,
    _opt_int,
    _short,
    _tuple,
    invalid,
    key_path,
)

__all__ = [
    "State",
    "ValidValues",
    "check_counts",
    "check_fields",
    "check_structure",
    "check_types",
    "check_without_rules",
]

State: TypeAlias = Any
"""A ``GameState``, or any object with its declared fields (``allegra_rules.fields``)."""

_not_none = partial(is_not, None)


def deck_counts(config: RuleConfig) -> dict[int, int]:
    """The config's deck as ``{value: copies}`` (never expanded card by card)."""
    return dict(config.deck)


def _make_deck_counter(config: RuleConfig) -> Counter[int]:
    """``deck_counts`` as a Counter, remembered per config."""
    return Counter(deck_counts(config))


_deck_counter = per_config(_make_deck_counter)


def _bounds_of(config: RuleConfig) -> tuple[int, int]:
    """The largest absolute setup sum (two cards) and round score (a zone, doubled).

    The loader bounds the same numbers with these values. Remembered per config.
    """
    biggest = max(abs(value) for value, _ in config.deck)
    return 2 * biggest, 2 * (CELLS_PER_SEAT + ROWS) * biggest


bounds = per_config(_bounds_of)
"""The largest absolute setup sum (two cards) and round score (a zone, doubled), per config.

The loader bounds the same numbers with these values (remembered by ``_fast.per_config``).
"""


def per_seat_range(bound: Bound | None, config: RuleConfig) -> tuple[int, int]:
    """The lowest and highest number of a ``PER_SEAT`` field of ``bound`` under ``config``.

    Raises:
        KeyError: a bound this function does not know (every ``Bound`` has its range).
    """
    setup_bound, score_bound = bounds(config)
    return {
        Bound.SETUP_SUM: (-setup_bound, setup_bound),
        Bound.SCORE: (-score_bound, score_bound),
        None: (-score_bound, score_bound),
        Bound.TOTAL: (-ROUNDS * score_bound, ROUNDS * score_bound),
        Bound.COUNT: (0, config.max_turns_per_round),
    }[bound]


def _count_difference(found: Counter[int], want: Mapping[int, int]) -> str:
    extra = sorted((v, found[v] - want.get(v, 0)) for v in found if found[v] > want.get(v, 0))
    missing = sorted((v, want[v] - found[v]) for v in want if found[v] < want[v])
    parts = []
    if extra:
        parts.append("extra " + ", ".join(f"{k}x {v}" for v, k in extra[:10]))
    if missing:
        parts.append("missing " + ", ".join(f"{k}x {v}" for v, k in missing[:10]))
    return "; ".join(parts)


def check_conservation(path: str, found: Counter[int], config: RuleConfig, where: str) -> None:
    """Fail unless ``found`` is exactly the config's deck as a multiset."""
    # dict equality (C speed): neither side holds a zero count.
    if not dict.__eq__(found, _deck_counter(config)):
        want = deck_counts(config)
        invalid(
            path,
            f"the cards in {where} must be exactly the config's deck of {config.deck_size} "
            f"cards; found {found.total()} ({_count_difference(found, want)})",
        )


_HOLDING = frozenset(
    {Phase.KNOCK, Phase.HOLD_DECK, Phase.HOLD_DISCARD, Phase.KNOCKER_SWAP, Phase.HOLD_TAKEN}
)
_EXCHANGE = frozenset({Phase.KNOCKER_SWAP, Phase.TAKE, Phase.HOLD_TAKEN})
_MAY_HAVE_KNOCKERS = frozenset(
    {Phase.KNOCK, Phase.HOLD_DECK, Phase.FLIP, Phase.KNOCKER_SWAP, Phase.TAKE, Phase.HOLD_TAKEN}
)


def _area(n: int, player: int, which: str) -> frozenset[int]:
    geo = geometry(n)
    return geo.zone_set[player] if which == "zone" else geo.own_set[player]


def _first_player(state: State) -> int:
    """The seat that took (or takes) the first turn of the current round."""
    n: int = state.num_players
    start: int = state.start_seat
    if state.config.first_player == "rotate":
        return start
    sums = state.setup_sums
    return max(range(n), key=lambda p: (sums[p], -((p - start) % n)))


def check_structure(state: State, path: str = "$") -> None:
    """The checks of the cards, rounds, setup, turn, knock exchange and settled table.

    The first half of ``allegra_rules.invariants.check_consistency``, which then checks
    that a live state has a legal action (the rules' question) and then ``check_counts``.

    Raises:
        InvalidStateError: the first contradiction found.
    """
    # Structure first, then the counts that only bound what turns can have done.
    _check_cards(state, path)
    _check_rounds(state, path)
    _check_setup(state, path)
    _check_turn(state, path)
    _check_exchange(state, path)
    _check_settled(state, path)


def check_counts(state: State, path: str = "$") -> None:
    """The checks of the gaps, the progress of the round and the setup sums.

    Raises:
        InvalidStateError: the first contradiction found.
    """
    _check_gaps(state, path)
    _check_progress(state, path)
    _check_setup_sums(state, path)


def check_without_rules(state: State, path: str = "$") -> None:
    """Every check of ``check_state`` but one: "a live state has a legal action".

    The types of every field, then ``check_structure`` and ``check_counts``. This is what a
    ``State`` built by hand (``State(...)``, ``attrs.evolve``) or loaded with
    ``State.from_json`` runs: the legal actions are the rules', a layer above the state.

    Raises:
        InvalidStateError: the first contradiction found.
    """
    check_types(state, path)
    check_structure(state, path)
    check_counts(state, path)


def _settled_table(s: State) -> tuple[tuple[int | None, ...], int]:
    """The table play last settled on: the current one, or the one before the exchange.

    In the phases ``take`` and ``hold_taken`` the knocker's swap (and the drawer's
    take) have changed the table since: they are undone from ``in_hand`` and
    ``held``, which hold the cards that left it.
    """
    if s.phase not in (Phase.TAKE, Phase.HOLD_TAKEN):
        return s.cells, s.face_down
    cells = list(s.cells)
    face_down = s.face_down
    given = s.given_at
    assert given is not None
    taken = s.taken_at
    if s.phase is Phase.HOLD_TAKEN and taken is not None and taken != given:
        cells[taken] = s.held
        face_down |= int(s.held_was_face_down) << taken
    cells[given] = s.in_hand[0][1]
    face_down = (face_down & ~(1 << given)) | (int(s.hand_was_face_down) << given)
    return tuple(cells), face_down


def _check_settled(s: State, path: str) -> None:
    """A settled table holds no triple; nobody's cards are all up unless it ended the round.

    The ender's cards are all face up (or gaps): no action turns a card face down.
    """
    if s.phase is Phase.OVER:
        return
    geo = geometry(s.num_players)
    cells, face_down = _settled_table(s)
    found = table_triples(s.config, cells, face_down)
    if found:
        when = "when play last settled"
        if cells is not s.cells:
            when = "before this knock exchange"
        invalid(
            key_path(key_path(path, "cells"), found[0]),
            f"a triple through this cell would have been removed {when} (phase {s.phase.value!r})",
        )
    masks = geo.own_masks if s.config.round_end == "own_grid" else geo.zone_masks
    if s.ender is not None:
        if s.face_down & masks[s.ender]:
            invalid(
                key_path(path, "ender"),
                f"seat {s.ender} ended the round, but cards of its "
                f"{'own grid' if s.config.round_end == 'own_grid' else 'zone'} lie face down "
                f"(round_end={s.config.round_end!r})",
            )
        return
    if s.phase is Phase.SETUP:
        return  # the round end is not checked during setup (R4.3)
    for seat, mask in enumerate(masks):
        if not face_down & mask:
            invalid(
                key_path(path, "ender"),
                f"seat {seat} has no face-down card left (round_end="
                f"{s.config.round_end!r}), so the round would have an ender",
            )


def _lines_of_gaps(s: State) -> frozenset[int]:
    """The cells that a triple could have emptied: on a line with three or more gaps.

    With ``row_match="adjacent"`` the gaps must be side by side (a removed run).
    """
    geo = geometry(s.num_players)
    cells = s.cells
    adjacent = s.config.row_match == "adjacent"
    explained: set[int] = set()
    through = geo.lines_through
    lines = {line for i, v in enumerate(cells) if v is None for line in through[i]}
    for line in lines:
        empty = [i for i in line if cells[i] is None]
        if len(empty) < 3:
            continue
        if not adjacent or len(line) == 3:
            explained.update(empty)
            continue
        run: list[int] = []
        for i in line:
            if cells[i] is None:
                run.append(i)
                continue
            if len(run) >= 3:
                explained.update(run)
            run = []
        if len(run) >= 3:
            explained.update(run)
    return frozenset(explained)


def _check_gaps(s: State, path: str) -> None:
    """Gaps lie face up, and each lies on a line that a removed triple emptied."""
    if None not in s.cells:
        return
    gaps = [i for i, v in enumerate(s.cells) if v is None]
    for i in gaps:
        if (s.face_down >> i) & 1:
            invalid(key_path(key_path(path, "face_down"), i), "a gap cannot lie face down")
    knock_gap = s.taken_at if s.phase is Phase.HOLD_TAKEN else None
    triple_gaps = [i for i in gaps if i != knock_gap]
    if not triple_gaps:
        return
    explained = _lines_of_gaps(s)
    for i in triple_gaps:
        if i not in explained:
            invalid(
                key_path(key_path(path, "cells"), i),
                "a gap is left only by a removed triple, but no line through this cell "
                f"holds three gaps (row_match={s.config.row_match!r})",
            )


def _check_progress(s: State, path: str) -> None:
    """No more cards can be up, and no more can have left the draw pile, than turns allow.

    Each turn turns up at most three cells (a knock exchange: the knocker's swap, the
    take and the drawer's swap) and draws at most one card from the draw pile.
    """
    if s.phase in (Phase.SETUP, Phase.OVER):
        return
    n = s.num_players
    ncells = n * CELLS_PER_SEAT
    shown = ncells - s.face_down.bit_count()
    completed = s.turns_played if s.phase is Phase.DRAW else s.turns_played - 1
    extra = {Phase.TAKE: 1, Phase.HOLD_TAKEN: 2}.get(s.phase, 0)
    most = 2 * n + 3 * completed + extra
    if shown > most:
        invalid(
            key_path(path, "face_down"),
            f"{shown} cells are face up or gaps, but after the setup and "
            f"{s.turns_played} turn(s) at most {most} can be",
        )
    if (
        s.phase is Phase.DRAW
        and s.turns_played == 0
        and s.config.setup_reveals == "in_turn"
        and shown != 2 * n
    ):
        invalid(
            key_path(path, "face_down"),
            f"right after the setup exactly {2 * n} cells are face up or gaps; got {shown}",
        )
    if s.refills == 0:
        full = s.config.deck_size - ncells - 1
        drawn = full - len(s.draw_pile)
        if not 0 <= drawn <= s.turns_played:
            invalid(
                key_path(path, "draw_pile"),
                f"holds {len(s.draw_pile)} cards: with no refill this round, {s.turns_played} "
                f"turn(s) leave {full - s.turns_played} to {full}",
            )


def _check_cards(s: State, path: str) -> None:
    shown = cast(Iterable[int], filter(_not_none, s.cells))
    cards = [*shown, *s.draw_pile, *s.discard_pile, *s.out_of_play]
    cards += [card for _, card in s.in_hand]
    if s.held is not None:
        cards.append(s.held)
    cards.sort()
    if tuple(cards) != s.config.deck_cards():  # at C speed; count them only to report
        check_conservation(
            path,
            Counter(cards),
            s.config,
            "cells, draw_pile, discard_pile, held, in_hand and out_of_play",
        )
    gaps = s.cells.count(None)
    removed = gaps - (1 if s.phase is Phase.HOLD_TAKEN else 0)
    if s.config.removed_cards == "discard":
        if s.out_of_play:
            invalid(key_path(path, "out_of_play"), 'must be empty with removed_cards="discard"')
    elif len(s.out_of_play) != removed:
        invalid(
            key_path(path, "out_of_play"),
            f"holds {len(s.out_of_play)} cards, but {removed} cells were emptied by "
            'triples (removed_cards="out_of_play")',
        )
    if s.out_of_play:
        for card, copies in sorted(Counter(s.out_of_play).items()):
            if copies < 3:
                invalid(
                    key_path(path, "out_of_play"),
                    f"holds {copies} card(s) {card}: triples remove at least 3 equal cards",
                )
    if not s.discard_pile and s.phase is not Phase.HOLD_DISCARD:
        invalid(key_path(path, "discard_pile"), f"cannot be empty in phase {s.phase.value!r}")


def _check_rounds(s: State, path: str) -> None:
    n = s.num_players
    # Earlier rounds' scores cannot be recomputed, but none can exceed a doubled zone.
    _, bound = bounds(s.config)
    played = s.round_scores
    if played and not -bound <= min(map(min, played)) <= max(map(max, played)) <= bound:
        for i, row in enumerate(played):
            for seat, score in enumerate(row):
                if not -bound <= score <= bound:
                    invalid(
                        key_path(key_path(key_path(path, "round_scores"), i), seat),
                        f"must be in {-bound}..{bound}; got {score}",
                    )
    over = s.phase is Phase.OVER
    if over and s.round != ROUNDS:
        invalid(
            key_path(path, "round"),
            f"a finished game stays at its last round {ROUNDS}; got {s.round}",
        )
    finished = ROUNDS if over else s.round - 1
    if len(s.round_scores) != finished:
        invalid(
            key_path(path, "round_scores"),
            f"round {s.round} in phase {s.phase.value!r} follows {finished} finished "
            f"round(s); got {len(s.round_scores)}",
        )
    want = tuple(map(sum, zip(*s.round_scores, strict=True))) if s.round_scores else (0,) * n
    if s.totals != want:
        invalid(
            key_path(path, "totals"), f"must be the per-seat sums of round_scores, {list(want)}"
        )
    best = winners(s.totals) if over else ()
    if s.winners != best:
        invalid(
            key_path(path, "winners"),
            f"must be {list(best)}: the lowest totals once the game is over, else empty",
        )
    last = s.last_round
    where = key_path(path, "last_round")
    if last is None:
        if s.round_scores:
            invalid(where, "must describe the latest finished round")
        return
    if not s.round_scores:
        invalid(where, "must be null before any round has finished")
    if last.round != len(s.round_scores):
        invalid(key_path(where, "round"), f"the latest finished round is {len(s.round_scores)}")
    found: Counter[Any] = Counter(last.cells)
    found.pop(None, None)
    deck = _deck_counter(s.config)
    if any(copies > deck[card] for card, copies in found.items()):
        invalid(key_path(where, "cells"), "holds more copies of a card than the config's deck")
    geo = geometry(n)
    want_removed: tuple[int, ...] = ()
    if s.config.scoring_triples == "removed":
        want_removed = tuple(table_triples(s.config, last.cells, 0))
    if last.removed != want_removed:
        invalid(
            key_path(where, "removed"),
            f"scoring_triples={s.config.scoring_triples!r}: the triples removed at scoring "
            f"are {list(want_removed)}",
        )
    scored = list(last.cells)
    for i in last.removed:
        scored[i] = None
    sums = zone_sums(geo, tuple(scored))
    if last.zone_sums != sums:
        invalid(key_path(where, "zone_sums"), f"the zone sums of these cells are {list(sums)}")
    scores, doubled = round_scores(s.config, sums, last.ender)
    if last.doubled != doubled:
        invalid(key_path(where, "doubled"), f"the rules say {str(doubled).lower()} for this round")
    if last.scores != scores:
        invalid(key_path(where, "scores"), f"the rules score this round {list(scores)}")
    if last.scores != s.round_scores[-1]:
        invalid(key_path(path, "round_scores"), "the last entry must equal last_round.scores")
    if over:
        if s.cells != tuple(scored):
            invalid(
                key_path(path, "cells"),
                "a finished game shows the table its last round was scored on",
            )
        if s.ender != last.ender:
            invalid(key_path(path, "ender"), "a finished game keeps its last round's ender")


def _check_setup(s: State, path: str) -> None:
    n = s.num_players
    start = (s.round - 1) % n
    if s.start_seat != start:
        invalid(key_path(path, "start_seat"), f"round {s.round} starts at seat {start}")
    reveals = s.setup_reveals
    simultaneous = s.config.setup_reveals == "simultaneous"
    named_path = key_path(path, "setup_named")
    if s.setup_named and (not simultaneous or s.phase is not Phase.SETUP):
        why = "the setup is over" if simultaneous else 'only setup_reveals="simultaneous" names'
        invalid(named_path, f"must be empty: {why}")
    if s.phase is not Phase.SETUP:
        if reveals != 2 * n:
            invalid(key_path(path, "setup_reveals"), f"setup is over: must be {2 * n}")
        return
    if reveals >= 2 * n:
        invalid(key_path(path, "setup_reveals"), f"setup ends after {2 * n} reveals; got {reveals}")
    seat = (start + reveals // 2) % n
    if s.current_player != seat:
        invalid(
            key_path(path, "current_player"),
            f"after {reveals} setup reveals seat {seat} reveals next; got {s.current_player}",
        )
    for j in range(n):
        who = (start + j) % n
        unrevealed = j > reveals // 2 or (j == reveals // 2 and reveals % 2 == 0)
        if (unrevealed or simultaneous) and s.setup_sums[who] != 0:
            invalid(
                key_path(key_path(path, "setup_sums"), who),
                f"seat {who} has not revealed yet: must be 0",
            )
    shown = sum(1 for i in range(len(s.cells)) if not (s.face_down >> i) & 1)
    if simultaneous:
        # A36: named cells stay face down until the last one is named.
        if shown:
            invalid(
                key_path(path, "face_down"), "no card turns up before every player has named two"
            )
        if len(s.setup_named) != reveals:
            invalid(named_path, f"must list the {reveals} cells named so far")
        for k, cell in enumerate(s.setup_named):
            seat = (start + k // 2) % n
            if cell not in _area(n, seat, s.config.reveal_area):
                invalid(
                    key_path(named_path, k),
                    f"seat {seat} may only name cells of its reveal area "
                    f"(reveal_area={s.config.reveal_area!r})",
                )
            if k % 2 and cell == s.setup_named[k - 1]:
                invalid(key_path(named_path, k), f"seat {seat} cannot name the same cell twice")
    elif shown != reveals:
        invalid(
            key_path(path, "face_down"),
            f"after {reveals} setup reveals exactly {reveals} cells are face up or gaps; "
            f"got {shown}",
        )
    want_draw = s.config.deck_size - CELLS_PER_SEAT * n - 1
    if len(s.draw_pile) != want_draw:
        invalid(key_path(path, "draw_pile"), f"nobody has drawn yet: must hold {want_draw} cards")
    for key in ("turns_played", "refills"):
        if getattr(s, key) != 0:
            invalid(key_path(path, key), "must be 0 during setup")
    if s.ender is not None:
        invalid(key_path(path, "ender"), "must be null during setup")


def _removed_this_round(s: State) -> tuple[int, ...]:
    """The cards that triples removed this round, while nothing else left the table.

    Only valid until the first turn: then the discard pile holds the starter card and,
    with ``removed_cards="discard"``, the removed cards after it.
    """
    removed: tuple[int, ...] = (
        s.discard_pile[1:] if s.config.removed_cards == "discard" else s.out_of_play
    )
    return removed


def _check_setup_sums(s: State, path: str) -> None:
    """The setup sums lie in range, and agree with the revealed cards while they show.

    In the setup and right after it, the sums and the revealed cards must be the work of
    the seats that revealed (see ``_check_setup_reveals``).
    """
    two, _ = bounds(s.config)
    if not -two <= min(s.setup_sums) <= max(s.setup_sums) <= two:
        for seat, value in enumerate(s.setup_sums):
            if not -two <= value <= two:
                invalid(
                    key_path(key_path(path, "setup_sums"), seat),
                    f"must be in {-two}..{two}; got {value}",
                )
    if s.phase is Phase.SETUP or (s.phase is Phase.DRAW and s.turns_played == 0):
        _check_setup_reveals(s, path)


def _setup_counts(s: State) -> list[tuple[int, int]]:
    """``(seat, cards it has revealed or named)`` in setup order, from the start seat."""
    n = s.num_players
    done = s.setup_reveals if s.phase is Phase.SETUP else 2 * n
    return [((s.start_seat + j) % n, min(2, max(0, done - 2 * j))) for j in range(n)]


def _gap_values(s: State, gaps: list[int]) -> list[dict[int, int]]:
    """Every way the cards that left the table this round can have lain in its gaps.

    Each gap must then lie on a line with at least two other gaps of its value: the
    cards of a removed triple were equal.
    """
    removed = _removed_this_round(s)
    if len(removed) != len(gaps):
        return []
    through = geometry(s.num_players).lines_through
    found: list[dict[int, int]] = []
    for values in sorted(set(itertools.permutations(removed))):
        placed = dict(zip(gaps, values, strict=True))
        if all(
            any(sum(1 for j in line if placed.get(j) == placed[i]) >= 3 for line in through[i])
            for i in gaps
        ):
            found.append(placed)
        if len(found) >= 64:
            break
    return found


def _setup_assignable(
    counts: list[tuple[int, int]],
    shown: frozenset[int],
    value: Callable[[int], int],
    sums: tuple[int, ...],
    areas: list[frozenset[int]],
    shared: bool,
) -> bool:
    """Whether the seats can have revealed exactly ``shown`` with these sums.

    Each seat revealed (or named) its count of distinct cells of its area, summing to its
    setup sum; together they revealed every shown cell. With ``shared`` (a simultaneous
    setup) two seats may have named the same cell; otherwise every cell was revealed once.
    """

    def search(j: int, covered: frozenset[int]) -> bool:
        if j == len(counts):
            return covered == shown
        seat, count = counts[j]
        pool = sorted(shown & areas[seat] if shared else (shown & areas[seat]) - covered)
        for picked in itertools.combinations(pool, count):
            if sum(map(value, picked)) == sums[seat] and search(j + 1, covered.union(picked)):
                return True
        return False

    return search(0, frozenset())


def _check_setup_reveals(s: State, path: str) -> None:
    """Check that the setup so far is one that the seats can have made.

    In the setup and before the round's first draw, the face-up cards and gaps are the
    cards the seats that have revealed (two each, in setup order) can have revealed, each
    in its own reveal area, and each seat's setup sum is the sum of its cards.

    A simultaneous setup shows nothing until every seat has named two cells; then every
    named cell is up (or was removed in a triple), and a cell may count for two seats.
    """
    simultaneous = s.config.setup_reveals == "simultaneous"
    if simultaneous and s.phase is Phase.SETUP:
        return  # nothing is up yet; _check_setup checks the named cells
    n = s.num_players
    cells = s.cells
    down = s.face_down
    shown = frozenset(i for i in range(len(cells)) if not (down >> i) & 1)
    counts = _setup_counts(s)
    areas = [_area(n, seat, s.config.reveal_area) for seat in range(n)]
    reach = frozenset().union(*(areas[seat] for seat, count in counts if count))
    for i in sorted(shown - reach):
        what = "a gap" if cells[i] is None else "face up"
        invalid(
            key_path(key_path(path, "face_down"), i),
            f"cell {i} is {what}, but no seat that has revealed in this setup could have "
            f"revealed it (reveal_area={s.config.reveal_area!r})",
        )
    gaps = sorted(i for i in shown if cells[i] is None)
    placements = _gap_values(s, gaps) if gaps else [{}]
    if not placements:
        invalid(
            key_path(path, "cells"),
            "the gaps of the table do not hold the cards that setup triples removed",
        )
    if not simultaneous:
        revealed_sum = sum(v for i in shown if (v := cells[i]) is not None)
        revealed_sum += sum(_removed_this_round(s))
        if sum(s.setup_sums) != revealed_sum:
            invalid(
                key_path(path, "setup_sums"),
                f"add up to {sum(s.setup_sums)}, but the cards revealed in this setup add "
                f"up to {revealed_sum}",
            )
    for placed in placements:

        def value(i: int, placed: dict[int, int] = placed) -> int:
            v = cells[i]
            return placed[i] if v is None else v

        if _setup_assignable(counts, shown, value, s.setup_sums, areas, simultaneous):
            return
    revealed = ", ".join(f"seat {seat}: {count}" for seat, count in counts)
    invalid(
        key_path(path, "setup_sums"),
        f"no seat-by-seat setup gives these face-up cards and sums {list(s.setup_sums)} "
        f"(cells revealed so far, {revealed}; each in its reveal area, "
        f"reveal_area={s.config.reveal_area!r})",
    )


def _check_turn(s: State, path: str) -> None:
    n = s.num_players
    phase = s.phase
    cap = s.config.max_turns_per_round
    if phase is Phase.OVER:
        if s.current_player is not None:
            invalid(key_path(path, "current_player"), "must be null once the game is over")
        if s.face_down:
            invalid(key_path(path, "face_down"), "every card is face up once the game is over")
    elif s.current_player is None:
        invalid(key_path(path, "current_player"), f"phase {phase.value!r} needs a current player")
    if phase in (Phase.SETUP, Phase.OVER):
        for key in ("drawer", "knocker", "given_at", "taken_at", "held"):
            if getattr(s, key) is not None:
                invalid(key_path(path, key), f"must be null in phase {phase.value!r}")
        if s.final_turns:
            invalid(key_path(path, "final_turns"), f"must be empty in phase {phase.value!r}")
        return
    drawer = s.drawer
    if drawer is None:
        invalid(key_path(path, "drawer"), f"phase {phase.value!r} needs a drawer")
    if phase is Phase.DRAW:
        if not 0 <= s.turns_played < cap:
            invalid(
                key_path(path, "turns_played"),
                f"must be below max_turns_per_round ({cap}) between turns",
            )
    elif s.turns_played < 1:
        invalid(key_path(path, "turns_played"), "a turn has started: must be at least 1")
    expected_current = {Phase.KNOCK: None, Phase.KNOCKER_SWAP: s.knocker}.get(phase, drawer)
    if phase is Phase.KNOCK:
        if s.current_player == drawer:
            invalid(key_path(path, "current_player"), "the drawer is not asked whether to knock")
    elif s.current_player != expected_current:
        who = "the knocker" if phase is Phase.KNOCKER_SWAP else "the drawer"
        invalid(
            key_path(path, "current_player"),
            f"in phase {phase.value!r} {who} (seat {expected_current}) acts; "
            f"got {s.current_player}",
        )
    completed = s.turns_played if phase is Phase.DRAW else s.turns_played - 1
    first = _first_player(s)
    if s.ender is None:
        if s.final_turns:
            invalid(key_path(path, "final_turns"), "must be empty while nobody has ended the round")
        want = (first + completed) % n
        if drawer != want:
            invalid(
                key_path(path, "drawer"),
                f"turns pass clockwise from seat {first}: after {completed} completed "
                f"turn(s) seat {want} draws; got {drawer}",
            )
        return
    ft = s.final_turns
    if not ft:
        invalid(key_path(path, "final_turns"), "the round has an ender: a final turn must be due")
    if s.ender in ft:
        invalid(key_path(path, "final_turns"), "the round's ender gets no final turn")
    done = n - 1 - len(ft)
    ending_turn = completed - done
    if ending_turn < 1:
        invalid(
            key_path(path, "final_turns"), f"too many final turns for {completed} completed turn(s)"
        )
    d0 = (first + ending_turn - 1) % n
    full = tuple((d0 + j) % n for j in range(1, n + 1) if (d0 + j) % n != s.ender)
    if ft != full[done:]:
        invalid(
            key_path(path, "final_turns"),
            f"seat {s.ender} ended the round on turn {ending_turn}: the final turns left "
            f"are {list(full[done:])}",
        )
    if drawer != ft[0]:
        invalid(key_path(path, "drawer"), f"the next final turn is seat {ft[0]}'s")


def _check_exchange(s: State, path: str) -> None:
    n = s.num_players
    phase = s.phase
    config = s.config
    if phase in _HOLDING:
        if s.held is None:
            invalid(key_path(path, "held"), f"phase {phase.value!r} needs a held card")
    elif s.held is not None:
        invalid(key_path(path, "held"), f"must be null in phase {phase.value!r}")
    knocking = knocking_applies(config, n)
    if phase is Phase.KNOCK and not knocking:
        invalid(
            key_path(path, "phase"),
            f"knocking={config.knocking!r} allows no knock window with {n} players",
        )
    knockers = s.knockers
    if knockers:
        where = key_path(path, "knockers")
        drawer = s.drawer
        if phase not in _MAY_HAVE_KNOCKERS or drawer is None:
            invalid(where, f"must be empty in phase {phase.value!r}")
        if not knocking:
            invalid(where, f"knocking={config.knocking!r}: nobody may knock with {n} players")
        if not in_asked_order(knockers, drawer, n):
            invalid(where, f"knockers are other seats, in clockwise order from the drawer {drawer}")
        if closes_at_first_knock(config) and (len(knockers) > 1 or phase is Phase.KNOCK):
            invalid(where, 'knock_winner="first_clockwise" closes the window at the first knock')
        if phase is Phase.KNOCK:
            asked = s.current_player
            if asked is None:
                invalid(key_path(path, "current_player"), "the knock window needs a seat to ask")
            if not set(knockers) <= set(asked_before(drawer, asked, n)):
                invalid(where, f"only seats asked before seat {asked} can have knocked")
    exchange = phase in _EXCHANGE
    knocker = s.knocker
    if not exchange:
        for key in ("knocker", "given_at", "taken_at"):
            if getattr(s, key) is not None:
                invalid(key_path(path, key), f"must be null in phase {phase.value!r}")
        if s.in_hand:
            invalid(key_path(path, "in_hand"), f"must be empty in phase {phase.value!r}")
        for key in ("held_was_face_down", "hand_was_face_down"):
            if getattr(s, key):
                invalid(key_path(path, key), f"must be false in phase {phase.value!r}")
        return
    if knocker is None or knocker not in knockers:
        invalid(
            key_path(path, "knocker"),
            f"phase {phase.value!r} needs the knocker, one of the knockers",
        )
    if phase is Phase.KNOCKER_SWAP:
        for key in ("given_at", "taken_at"):
            if getattr(s, key) is not None:
                invalid(key_path(path, key), "must be null before the knocker swaps")
        if s.in_hand:
            invalid(key_path(path, "in_hand"), "must be empty before the knocker swaps")
        for key in ("held_was_face_down", "hand_was_face_down"):
            if getattr(s, key):
                invalid(key_path(path, key), "must be false before the knocker swaps")
        return
    if len(s.in_hand) != 1 or s.in_hand[0][0] != knocker:
        invalid(
            key_path(path, "in_hand"),
            f"must hold exactly the knocker's (seat {knocker}) replaced card",
        )
    given = s.given_at
    taken = s.taken_at
    if given is None or given not in _area(n, knocker, config.swap_area):
        invalid(
            key_path(path, "given_at"),
            f"must be a cell of the knocker's swap area (swap_area={config.swap_area!r})",
        )
    if given != taken and (s.cells[given] is None or (s.face_down >> given) & 1):
        invalid(key_path(path, "given_at"), "the given card lies face up where the knocker put it")
    if phase is Phase.TAKE:
        if taken is not None:
            invalid(key_path(path, "taken_at"), "must be null before the drawer takes")
        if s.held_was_face_down:
            invalid(key_path(path, "held_was_face_down"), "must be false before the drawer takes")
        return
    if taken is None or taken not in _area(n, knocker, config.take_area):
        invalid(
            key_path(path, "taken_at"),
            f"must be a cell of the knocker's area (take_area={config.take_area!r})",
        )
    if s.cells[taken] is not None:
        invalid(key_path(path, "taken_at"), "the cell the drawer took from must be a gap")
    if taken == given and config.take_given_card == "forbidden":
        invalid(
            key_path(path, "taken_at"),
            'take_given_card="forbidden": the given card cannot be taken',
        )
    if taken == given and s.held_was_face_down:
        invalid(key_path(path, "held_was_face_down"), "the given card lay face up")


# ------------------------------------------------------------------------- types


class TableSize(NamedTuple):
    """What the range of a field depends on: the config, the seat count and what follows."""

    config: RuleConfig
    n: int
    ncells: int
    values: frozenset[int]


def check_table_size(obj: Any, path: str = "$") -> TableSize:
    """Check the ``config`` and ``num_players`` of a state or view; the sizes they imply.

    Raises:
        InvalidStateError: either field is of a wrong type or range.
    """
    config = obj.config
    if not isinstance(config, RuleConfig):
        invalid(key_path(path, "config"), f"must be a RuleConfig; got {type(config).__name__}")
    n = _int(
        obj.num_players, key_path(path, "num_players"), config.min_players, config.most_players()
    )
    if n > MAX_SEATS:
        invalid(key_path(path, "num_players"), f"must be at most {MAX_SEATS}")
    return TableSize(config, n, n * CELLS_PER_SEAT, frozenset(v for v, _ in config.deck))


def _check_hand(value: object, path: str, obj: Any, t: TableSize) -> None:
    for i, entry in enumerate(_tuple(value, path, most=1)):
        where = key_path(path, i)
        pair = _tuple(entry, where, length=2)
        _int(pair[0], key_path(where, 0), 0, t.n - 1)
        _card(pair[1], key_path(where, 1), t.values)


def _check_score_rows(value: object, path: str, obj: Any, t: TableSize) -> None:
    for i, row in enumerate(_tuple(value, path, most=ROUNDS)):
        _ints(row, key_path(path, i), length=t.n)


def _check_phase(value: object, path: str, obj: Any, t: TableSize) -> None:
    if not isinstance(value, Phase):
        invalid(path, f"must be a Phase; got {_short(value)}")


def _check_last_round(value: object, path: str, obj: Any, t: TableSize) -> None:
    if value is None:
        return
    if not isinstance(value, RoundEnd):
        invalid(path, f"must be a RoundEnd or None; got {type(value).__name__}")
    check_round_end_types(value, path, t.n)
    _opt_cards(value.cells, key_path(path, "cells"), t.values, t.ncells)


_KindCheck = Callable[..., object]
"""``(value, path, obj, table size)``, and the field for a kind of ``_BY_FIELD``."""


def _check_version(v: object, p: str, o: Any, t: TableSize) -> None:
    """A schema version that can hold the config; a field added after it holds its default."""
    _int(v, p, schema_version_for(t.config), NEWEST_VERSION)
    assert isinstance(v, int)
    for field in later_fields(STATE_FIELDS, v):
        value = getattr(o, field.name, None)
        if value is not None and value != field.default_of(o):
            invalid(
                key_path(p.rpartition(".")[0] or "$", field.name),
                f"a schema version {v} game holds {field.default!r} here: the field is "
                f"added in version {field.added}",
            )


_KIND_CHECKS: dict[Kind, _KindCheck] = {
    Kind.SEED: lambda v, p, o, t: _int(v, p, MIN_SEED, MAX_SEED),
    Kind.ROUND: lambda v, p, o, t: _int(v, p, 1, ROUNDS),
    Kind.PHASE: _check_phase,
    Kind.SEAT: lambda v, p, o, t: _int(v, p, 0, t.n - 1),
    Kind.OPT_SEAT: lambda v, p, o, t: _opt_int(v, p, 0, t.n - 1),
    Kind.SEATS: lambda v, p, o, t: _ints(v, p, 0, t.n - 1, most=t.n),
    Kind.OPT_CELL: lambda v, p, o, t: _opt_int(v, p, 0, t.ncells - 1),
    Kind.CELLS: lambda v, p, o, t: _ints(v, p, 0, t.ncells - 1, most=2 * t.n),
    Kind.TABLE: lambda v, p, o, t: _opt_cards(v, p, t.values, t.ncells),
    Kind.CELL_MASK: lambda v, p, o, t: _int(v, p, 0, (1 << t.ncells) - 1),
    Kind.CARDS: lambda v, p, o, t: _cards(v, p, t.values, t.config.deck_size),
    Kind.OPT_CARD: lambda v, p, o, t: None if v is None else _card(v, p, t.values),
    Kind.HAND: _check_hand,
    Kind.REVEALS: lambda v, p, o, t: _int(v, p, 0, 2 * t.n),
    Kind.TURNS: lambda v, p, o, t: _int(v, p, 0, t.config.max_turns_per_round),
    Kind.REFILLS: lambda v, p, o, t: _int(v, p, 0, o.turns_played),
    Kind.PER_SEAT: lambda v, p, o, t, f: _ints(
        v, p, *per_seat_range(f.bound, t.config), length=t.n
    ),
    Kind.SCORE_ROWS: _check_score_rows,
    Kind.FLAG: lambda v, p, o, t: _bool(v, p),
    Kind.ROUND_END: _check_last_round,
    Kind.CELL_SET: lambda v, p, o, t: _ints(v, p, 0, t.ncells - 1, most=t.ncells),
    Kind.SCHEMA_VERSION: _check_version,
}
"""How a field of each kind is checked (``CONFIG`` and ``SEAT_COUNT``: ``check_table_size``).
``tests/test_fields.py`` checks that every other kind has its entry."""

_CHECKED_BY_SIZE = frozenset({Kind.CONFIG, Kind.SEAT_COUNT})
"""The kinds ``check_table_size`` checks."""

_BY_FIELD = frozenset({Kind.PER_SEAT})
"""The kinds whose check also takes the field (its ``bound``)."""


def check_fields(obj: Any, fields: Iterable[StateField], size: TableSize, path: str = "$") -> None:
    """Check the type, size and range of each of ``fields`` of ``obj`` by its kind.

    ``obj`` is a state, or a view for the fields it copies from the state; ``size`` is
    what ``check_table_size(obj)`` gave (a field of kind ``CONFIG`` or ``SEAT_COUNT`` is
    skipped: that checked it).

    Raises:
        InvalidStateError: the first field of a wrong type, size or range.
    """
    for field in fields:
        if field.kind not in _CHECKED_BY_SIZE:
            check = _KIND_CHECKS[field.kind]
            value, where = getattr(obj, field.name), key_path(path, field.name)
            if field.kind in _BY_FIELD:
                check(value, where, obj, size, field)
            else:
                check(value, where, obj, size)


def check_types(s: State, path: str = "$") -> None:
    """Check the type, size and range of every field of ``s`` (not their agreement).

    Each field is checked by its kind, as ``allegra_rules.fields`` declares it.

    Raises:
        InvalidStateError: the first field of a wrong type, size or range.
    """
    check_fields(s, STATE_FIELDS, check_table_size(s, path), path)


# ------------------------------------------------------------------ valid values


@attrs.frozen(slots=True)
class ValidValues:
    """The valid values of a document's fields, as its config and seat count imply them.

    The readers of saved games and views check every field against one of these (the card
    values of the deck, the seats, the cells, the bounds of sums and scores);
    ``allegra_rules.state_codec.read_table`` makes one per (config, seat count, schema
    version) and reuses it.

    Attributes:
        version: the document's schema version.
        config: the loaded config.
        num_players: the loaded seat count.
        values: the card values of the config's deck.
        setup_bound: no setup sum can be larger in absolute value.
        score_bound: no round score can be larger in absolute value.
    """

    version: int
    config: RuleConfig
    num_players: int
    values: frozenset[int]
    setup_bound: int
    score_bound: int

    @property
    def num_cells(self) -> int:
        """Cells on the table: ``12 * num_players``."""
        return self.num_players * CELLS_PER_SEAT

    @property
    def seat_count(self) -> int:
        """``num_players``, under the name the codec of the fields reads."""
        return self.num_players

    @property
    def rule_config(self) -> RuleConfig:
        """``config``, under the name the codec of the fields reads."""
        return self.config

    def card(self, value: object, path: JsonPath) -> int:
        """``value`` as a card of the deck."""
        return get_card(value, path, self.values)

    def card_or_null(self, value: object, path: JsonPath) -> int | None:
        """``value`` as null or a card of the deck."""
        return None if value is None else get_card(value, path, self.values)

    def cards(self, value: object, path: JsonPath) -> tuple[int, ...]:
        """``value`` as an array of cards of the deck."""
        return get_cards(value, path, self.values, self.config.deck_size)

    def seat(self, value: object, path: JsonPath) -> int:
        """``value`` as a seat."""
        return get_int(value, path, 0, self.num_players - 1)

    def seat_or_null(self, value: object, path: JsonPath) -> int | None:
        """``value`` as null or a seat."""
        return get_opt_int(value, path, 0, self.num_players - 1)
