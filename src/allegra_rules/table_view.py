"""What a table sends a seat: its view, the last moves worded for it, and the picture.

Both places a game is played from a page build the same document here: the table
server (``allegra_rules.server``) and the table that runs in the
browser ([`allegra_rules.browser_table`][allegra_rules.browser_table]). The page only
ever reads this document, so one front end serves both.

A seat only ever gets ``observe(state, seat)``; a spectator gets the public view,
``observe(state, None)`` (as data: [`public_view`][allegra_rules.table_view.public_view]),
what every seat knows. The log ([`worded`][allegra_rules.table_view.worded]) names only
what the reader may know: a card that moved face down is named only for the seat that
saw it, so a seat's document is the same for any two games it cannot tell apart.

Examples:
    >>> from allegra_rules import new_game
    >>> doc = seat_document(new_game(2, seed=1), 0, version=0, moves=[])
    >>> doc["viewer"], doc["version"], doc["log"]
    (0, 0, [])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from allegra_rules.actions import Action, Reveal, Swap, Take
from allegra_rules.geometry import Pos
from allegra_rules.hints import draw_reason, knock_reason
from allegra_rules.records import GameRecord
from allegra_rules.state import GameState, Phase
from allegra_rules.svg import render_svg
from allegra_rules.transitions import apply, legal_actions
from allegra_rules.views import observe, private_seats
from allegra_rules.wording import action_texts, fate, narrate, outcome, seat_name

__all__ = [
    "KEEP",
    "LANGUAGES",
    "Move",
    "discard_could_help",
    "knock_could_help",
    "picture_names",
    "public_view",
    "recent",
    "remember",
    "replay",
    "seat_document",
    "seat_svg",
    "worded",
]

LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("Player {}", "You"),
    "de": ("Spieler {}", "Du"),
    "pl": ("Gracz {}", "Ty"),
    "fr": ("Joueur {}", "Vous"),
}
"""The page's languages: how the table picture names a seat (counted from 1), and the
viewer's own seat."""

KEEP = 8
"""How many moves a table keeps for its log."""


@attrs.frozen
class Move:
    """One applied move: the seat that made it, the states around it and the action.

    Attributes:
        version: the table's version after the move (1 for the first move).
        seat: the seat that moved.
        before: the state the move was made in.
        action: the action.
        after: the state after it.
    """

    version: int
    seat: int
    before: GameState
    action: Action
    after: GameState
    texts: dict[tuple[int | None, str, tuple[str, ...] | None], str] = attrs.field(
        factory=dict, eq=False, repr=False, hash=False
    )
    """The move's log text per (reader, language, seat names), worded once (see ``worded``)."""


def remember(
    moves: list[Move], version: int, seat: int, before: GameState, action: Action, after: GameState
) -> None:
    """Add the move that made the table's version ``version`` to ``moves``; keep ``KEEP``."""
    moves.append(Move(version=version, seat=seat, before=before, action=action, after=after))
    del moves[:-KEEP]


def replay(record: GameRecord, version: int) -> list[Move]:
    """The last ``KEEP`` moves of a game, replayed from its record (``version`` actions)."""
    state = record.initial_state()
    moves: list[Move] = []
    first = version - KEEP
    for k, action in enumerate(record.actions[:version]):
        after = apply(state, action)
        if k >= first:
            seat = state.current_player
            assert seat is not None
            moves.append(Move(version=k + 1, seat=seat, before=state, action=action, after=after))
        state = after
    return moves


def recent(moves: list[Move], version: int, record: Callable[[], GameRecord]) -> list[Move]:
    """``moves`` as the last ``KEEP`` moves of a table at ``version``.

    A table loaded from the database starts with none: they are replayed once from its
    ``record`` and stored in ``moves``.
    """
    if len(moves) < min(KEEP, version) or (moves and moves[-1].version != version):
        moves[:] = replay(record(), version)
    return moves


def worded(
    moves: list[Move], viewer: int | None, lang: str, names: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The log entries of ``moves`` for seat ``viewer`` (``None``: a spectator), oldest first.

    Each entry is ``{"version": k, "seat": s, "round": r, "text": ...}``: the table's
    version after the move, the seat that moved, the round it was made in and what
    happened, in ``lang``. ``names``: each seat as the reader's page names it
    ([`picture_names`][allegra_rules.table_view.picture_names]); without them "You" and
    "Player N".
    """
    shown = None if names is None else tuple(names)
    out = []
    for move in moves:
        # A move is in a table's log for its next KEEP moves, and every view of those
        # carries it: it is worded once per reader, language and naming of the seats.
        key = (viewer, lang, shown)
        text = move.texts.get(key)
        if text is None:
            sentences = [narrate(move.before, move.action, viewer=viewer, lang=lang, names=shown)]
            sentences += fate(move.before, move.action, lang=lang, viewer=viewer, names=shown)
            sentences += outcome(
                move.before, move.action, move.after, lang=lang, viewer=viewer, names=shown
            )
            text = move.texts[key] = " ".join(sentences)
        out.append(
            {"version": move.version, "seat": move.seat, "round": move.before.round, "text": text}
        )
    return out


def public_view(state: GameState) -> dict[str, Any]:
    """The public view's data: ``observe(state, None).to_dict()`` without ``legal_actions``.

    The public view ([`observe`][allegra_rules.views.observe] with ``viewer`` ``None``) is
    what every seat sees; the server sends it, with no ``legal_actions`` key, to whoever
    has no token. Nothing here builds it another way.
    """
    data = observe(state, None).to_dict()
    data.pop("legal_actions", None)
    return data


def picture_names(
    num_players: int,
    viewer: int | None,
    lang: str,
    bots: Mapping[int, str] | None = None,
    names: Mapping[int, str] | None = None,
) -> list[str]:
    """How the table picture names each seat: as the page's seat badges do.

    [`seat_name`][allegra_rules.wording.seat_name]'s words: "You" for ``viewer``, a bot
    by its kind ("Greedy bot", "Search bot 3" when two seats have that kind), a person by
    the name given when claiming the seat (``names``), any other seat "Player N".

    Examples:
        >>> picture_names(3, 0, "de", {1: "greedy", 2: "search-easy"})
        ['Du', 'Gier-Bot', 'Such-Bot']
    """
    lang = lang if lang in LANGUAGES else "en"
    return [seat_name(p, viewer, bots=bots, names=names, lang=lang) for p in range(num_players)]


def knock_could_help(state: GameState, seat: int | None) -> bool:
    """Whether the card of the knock window that asks ``seat`` now could help it.

    ``True`` only while ``seat`` is asked whether to knock and
    [`knock_reason`][allegra_rules.hints.knock_reason] gives a reason; it reads only
    what every player sees (the drawn card and the face-up cards), so it tells the seat
    nothing hidden. The pages' setting "ask me only when the card could help me" passes
    for the seat when this is ``False`` and says so.

    Examples:
        >>> from allegra_rules import new_game
        >>> knock_could_help(new_game(2, seed=1), 0)
        False
    """
    if seat is None or state.phase is not Phase.KNOCK or state.current_player != seat:
        return False
    return knock_reason(state, seat) is not None


def discard_could_help(state: GameState, seat: int | None) -> bool:
    """Whether the discard pile's top card could help ``seat``, which is to draw now.

    ``True`` only while ``seat`` chooses a pile and
    [`draw_reason`][allegra_rules.hints.draw_reason] gives a reason (it reads only what
    the seat knows). With "ask me only when the card could help me" the pages draw from
    the draw pile for the seat when this is ``False`` and say so.

    Examples:
        >>> from allegra_rules import new_game
        >>> discard_could_help(new_game(2, seed=1), 0)
        False
    """
    if seat is None or state.phase is not Phase.DRAW or state.current_player != seat:
        return False
    return draw_reason(state, seat) is not None


def seat_svg(
    state: GameState,
    viewer: int | None,
    lang: str = "en",
    bots: Mapping[int, str] | None = None,
    names: Mapping[int, str] | None = None,
) -> str:
    """The table drawn with ``render_svg`` as seat ``viewer`` sees it (``None``: a spectator).

    The seats are named as the page's badges name them
    ([`picture_names`][allegra_rules.table_view.picture_names]; ``bots``: the bot seats,
    seat -> bot name; ``names``: the names people gave their seats).

    The cells the viewer may act on are outlined. A spectator's picture shows what the
    public view (``observe(state, None)``) shows: it is drawn as a seat that knows no
    private card. When every seat knows one (two seats: the drawer holds the card it
    took face down and the knocker the card it replaced face down), the held card is
    drawn as the knocker sees it and the knocker's hand card as the drawer sees it, both
    face down. The answer is never ``None``.
    """
    shown = picture_names(state.num_players, viewer, lang, bots, names)
    options: dict[str, Any] = {"status": False, "legend": False, "piles": False, "labels": lang}
    if viewer is None:
        private = private_seats(state)
        outsiders = [p for p in range(state.num_players) if p not in private]
        if outsiders:
            return render_svg(state, viewer=outsiders[0], seat_names=shown, **options)
        holder, knocker = state.current_player, state.knocker
        assert holder is not None and knocker is not None
        # The two pictures differ only in the held card (drawn before the hand card)
        # and the hand card, each with its notes: each part comes from the seat that
        # does not see that card.
        held_hidden = render_svg(state, viewer=knocker, seat_names=shown, **options)
        hand_hidden = render_svg(state, viewer=holder, seat_names=shown, **options)
        cut = '<g class="hand-card"'
        return held_hidden[: held_hidden.index(cut)] + hand_hidden[hand_hidden.index(cut) :]
    marked: list[Pos] = []
    if state.current_player == viewer:
        marked = [a.pos for a in legal_actions(state) if isinstance(a, (Reveal, Swap, Take))]
    return render_svg(state, viewer=viewer, highlight=marked, seat_names=shown, **options)


def seat_document(
    state: GameState,
    seat: int | None,
    *,
    version: int,
    moves: list[Move],
    svg: bool = False,
    lang: str = "en",
    bots: Mapping[int, str] | None = None,
    names: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """The view document of ``seat`` (``None``: public) plus ``version`` and ``log``.

    This is what a page gets after every move, from the server or from the table in the
    browser. ``log`` lists ``moves`` (the last ones, oldest first), each worded in
    ``lang`` for ``seat`` by [`worded`][allegra_rules.table_view.worded]: it names no card
    the seat has not seen. With ``svg`` (what the page asks for) also ``svg``, the table
    picture ([`seat_svg`][allegra_rules.table_view.seat_svg]), and for a seat
    ``action_texts``: each of its ``legal_actions`` worded in ``lang`` by
    [`action_texts`][allegra_rules.wording.action_texts], in the same order.

    Three fields help the page play the game as players do: ``knock_could_help``
    ([`knock_could_help`][allegra_rules.table_view.knock_could_help]: the seat is asked
    whether to knock and the card could help it), ``discard_could_help``
    ([`discard_could_help`][allegra_rules.table_view.discard_could_help]: the seat is to
    draw and the discard pile's top could help it) and ``zones`` (each seat's 15 zone
    cells as flat indices, the cells its round's sum counts).

    Args:
        state: the game's state (only ``seat``'s view of it is sent).
        seat: the reader's seat, or ``None`` for the public view.
        version: the number of actions applied so far.
        moves: the last moves, oldest first.
        svg: add the picture and the worded actions.
        lang: the page's language (``en``, ``de``, ``pl``, ``fr``).
        bots: the bot seats (seat -> bot name), which the picture names by their kind.
        names: the names people gave their seats (seat -> name), which the picture shows.

    Examples:
        >>> from allegra_rules import new_game
        >>> doc = seat_document(new_game(2, seed=1), 0, version=0, moves=[], svg=True)
        >>> "<svg" in doc["svg"], len(doc["action_texts"]) == len(doc["legal_actions"])
        (True, True)
    """
    data = observe(state, seat).to_dict() if seat is not None else public_view(state)
    data["version"] = version
    named = None
    if bots or names:  # the log names the seats as the badges and the picture do
        named = picture_names(state.num_players, seat, lang, bots, names)
    data["log"] = worded(moves, seat, lang, named)
    data["knock_could_help"] = knock_could_help(state, seat)
    data["discard_could_help"] = discard_could_help(state, seat)
    data["zones"] = [list(zone) for zone in state.geometry.zone]
    if svg:
        data["svg"] = seat_svg(state, seat, lang, bots, names)
        if seat is not None:
            data["action_texts"] = list(action_texts(state, seat, lang=lang))
    return data
