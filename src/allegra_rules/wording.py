"""The words for an action: every sentence the package says about one, in each language.

This is the one place where an action is worded. Each sentence has a template per
language (English and the table server page's languages, ``de``, ``pl``, ``fr``), all in
one table with the same keys and the same ``{placeholders}``; the functions below choose
the template and its values from the state and the action. Who reads them:

* the options a seat may choose, as imperative sentences: the terminal game's menu
  (``allegra-rules play``) and the table server's page (its buttons, sent with each
  view: see [`action_texts`][allegra_rules.wording.action_texts]);
* the narration of a move once made, third person: the narrated games
  (``allegra-rules demo`` and ``play``), through
  [`describe_action`][allegra_rules.render.describe_action] and
  [`describe_outcome`][allegra_rules.render.describe_outcome], which are English
  [`narrate`][allegra_rules.wording.narrate] and
  [`outcome`][allegra_rules.wording.outcome];
* the one-line turns of ``play``:
  [`narrate_brief`][allegra_rules.wording.narrate_brief] and
  [`outcome_brief`][allegra_rules.wording.outcome_brief].

The terminal writes English only; the other languages are for the server's page and
the docs.

Public names:

* [`LANGUAGES`][allegra_rules.wording.LANGUAGES]: the languages an action is worded in.
* [`action_text`][allegra_rules.wording.action_text]: one option, as an imperative sentence.
* [`action_texts`][allegra_rules.wording.action_texts]: every legal action of a seat, in order.
* [`cell_text`][allegra_rules.wording.cell_text]: a cell as the seat says it: "row 2, column 4",
  counted from one.
* [`seat_name`][allegra_rules.wording.seat_name]: a seat as people call it ("You",
  "Greedy bot", a given name, "Player 2").
* [`card_text`][allegra_rules.wording.card_text]: a card value with its article.
* [`narrate`][allegra_rules.wording.narrate]: what an action does, one full sentence.
* [`narrate_brief`][allegra_rules.wording.narrate_brief]: what an action does, as the
  clause of a one-line turn.
* [`outcome`][allegra_rules.wording.outcome]: what settling an action did by itself.
* [`outcome_brief`][allegra_rules.wording.outcome_brief]: the same, as clauses of a
  one-line turn.
* [`fate`][allegra_rules.wording.fate]: what became of a drawn card that others knocked for.

Secrecy. An option names no card its seat may not see: a face-down card is "the
face-down card"; the card a draw from the draw pile will turn up is not named. A
narration names only what the action shows to everyone (a card drawn, revealed or swapped
out onto the discard pile, face-up cards), plus, for the seat it is written for
(``viewer``), a face-down card that only this seat has seen.

Examples:
    >>> from allegra_rules import DrawDeck, new_game, Pos, Reveal
    >>> state = new_game(2, seed=1)
    >>> action_text(state, Reveal(Pos(0, 1, 2)), 0)
    'Reveal the card at row 2, column 3.'
    >>> action_text(state, Reveal(Pos(0, 1, 2)), 0, lang="de")
    'Die Karte in Reihe 2, Spalte 3 aufdecken.'
    >>> narrate(state, Reveal(Pos(0, 1, 2)), lang="fr")
    'Joueur 1 révèle un 2 en ligne 2, colonne 3.'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce

from allegra_rules._sentences import WORDS
from allegra_rules.actions import (
    Action,
    Discard,
    DrawDeck,
    DrawDiscard,
    Give,
    Knock,
    Pass,
    Reveal,
    Swap,
    Take,
)
from allegra_rules.geometry import Pos
from allegra_rules.glossary import GLOSSARY
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import apply, legal_actions

__all__ = [
    "LANGUAGES",
    "action_text",
    "action_texts",
    "card_text",
    "cell_text",
    "fate",
    "narrate",
    "narrate_brief",
    "outcome",
    "outcome_brief",
    "seat_name",
]

LANGUAGES: tuple[str, ...] = ("en", "de", "pl", "fr")
"""The languages of the wording: English and the table server page's languages."""

_WORDS = WORDS  # the templates of each sentence, per language (allegra_rules._sentences)


def _words(lang: object) -> dict[str, str]:
    if not isinstance(lang, str) or lang not in _WORDS:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}; got {lang!r}")
    return _WORDS[lang]


def _check_viewer(state: GameState, viewer: object) -> int | None:
    """``viewer`` if it is ``None`` or a seat of ``state``, else ``ValueError``."""
    if viewer is None:
        return None
    n = state.num_players
    if type(viewer) is not int or not 0 <= viewer < n:
        raise ValueError(f"viewer must be None or a seat 0..{n - 1}; got {viewer!r}")
    return viewer


def _article(words: dict[str, str], value: int) -> str:
    text = str(value)
    spoken_with_vowel = text.startswith("8") or text in ("11", "18")
    return words["an_card" if spoken_with_vowel else "a_card"].format(v=value)


def _and(words: dict[str, str], items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` (with the language's "and")."""
    if len(items) <= 1:
        return "".join(items)
    return words["and"].format(first=", ".join(items[:-1]), last=items[-1])


def _own_cell(words: dict[str, str], pos: Pos) -> str:
    return words["own_cell"].format(row=pos.row + 1, col=pos.col + 1)


def card_text(value: int, *, lang: str = "en") -> str:
    """A card value with its indefinite article: ``"a 7"``, ``"an 8"``, ``"an 11"``.

    Raises:
        ValueError: ``lang`` is not one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].

    Examples:
        >>> card_text(8), card_text(8, lang="de"), card_text(8, lang="fr")
        ('an 8', 'eine 8', 'un 8')
    """
    return _article(_words(lang), value)


def _bot_concept(kind: str) -> str:
    """The glossary concept naming a bot of kind ``kind`` (a ``BOT_KINDS`` name)."""
    if kind in ("policy",):
        return "learned_bot"
    if kind.startswith("search"):
        return "search_bot"
    if kind == "random":
        return "random_bot"
    return "greedy_bot" if kind == "greedy" else ""


def _entry(table: Mapping[int, str | None] | Sequence[str | None] | None, seat: int) -> str | None:
    """``table[seat]``, or ``None`` where ``table`` has no entry for ``seat``."""
    if table is None:
        return None
    if isinstance(table, Mapping):
        return table.get(seat)
    return table[seat] if 0 <= seat < len(table) else None


def _seats_of(table: Mapping[int, str | None] | Sequence[str | None] | None) -> list[int]:
    if table is None:
        return []
    return list(table) if isinstance(table, Mapping) else list(range(len(table)))


def seat_name(
    seat: int,
    viewer: int | None = None,
    *,
    bots: Mapping[int, str | None] | Sequence[str | None] | None = None,
    names: Mapping[int, str | None] | Sequence[str | None] | None = None,
    lang: str = "en",
) -> str:
    """A seat as people at the table call it: "You", "Greedy bot", a given name, "Player 2".

    The reader's own seat (``viewer``) is "You"; a bot is named by its kind ("Greedy bot",
    "Search bot" for every search level, "Learned bot", "Random bot"), with its seat
    counted from one after it when another seat has a bot of the same kind ("Greedy bot 3");
    a person by the name given when joining, if any; any other seat is "Player N", counted
    from one. The words are the [`glossary`][allegra_rules.glossary]'s. Seats themselves are
    numbered from 0 everywhere else (records, the API): only the name counts from one.

    Args:
        seat: the seat to name (0-based).
        viewer: the reader's seat, or ``None`` for a spectator.
        bots: per seat (a sequence by seat, or a mapping from seat), the bot kind playing
            it (a [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] name), ``None`` or
            absent for a person.
        names: per seat, the name given when joining, ``None``, empty or absent for none.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].

    Returns:
        The name, capitalized as at the start of a sentence.

    Raises:
        ValueError: ``lang`` is not a known language, or ``seat`` is negative.

    Examples:
        >>> seat_name(0, 0), seat_name(1, 0), seat_name(1, 0, bots=[None, "greedy"])
        ('You', 'Player 2', 'Greedy bot')
        >>> seat_name(2, None, bots={1: "search-hard", 2: "search"}, lang="de")
        'Such-Bot 3'
        >>> seat_name(1, 0, names=["Ada", "Ben"], lang="fr")
        'Ben'
    """
    _words(lang)
    if type(seat) is not int or seat < 0:
        raise ValueError(f"seat must be a seat number from 0; got {seat!r}")
    words = GLOSSARY[lang]
    if seat == viewer:
        return words["you"]
    kind = _entry(bots, seat)
    if kind:
        concept = _bot_concept(kind)
        if not concept:
            return f"{kind} bot"
        same = [s for s in _seats_of(bots) if _bot_concept(_entry(bots, s) or "") == concept]
        return words[concept] if len(same) <= 1 else f"{words[concept]} {seat + 1}"
    given = _entry(names, seat)
    if given and given.strip():
        return given.strip()
    return words["player"].format(n=seat + 1)


def cell_text(
    pos: Pos, viewer: int | None, lang: str = "en", *, names: Sequence[str] | None = None
) -> str:
    """A cell as seat ``viewer`` says it: "row 2, column 4", counted from one.

    Rows count 1 to 3 from the top and columns 1 to 4 from the left of the seat's own
    grid, as players say them. A cell of ``viewer``'s own grid is just that; another
    seat's cell says whose ("Player 2's row 1, column 4"). The words are the
    [`glossary`][allegra_rules.glossary]'s (in German "Reihe 2, Spalte 4", in French
    "ligne 2, colonne 4"; Polish says where: "w rzędzie 2, kolumnie 4").

    Args:
        pos: the cell.
        viewer: the reader's seat, or ``None`` for a spectator.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        names: the seats' names by seat, as [`seat_name`][allegra_rules.wording.seat_name]
            gives them for this reader; by default "Player N".

    Raises:
        ValueError: ``lang`` is not one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].

    Examples:
        >>> cell_text(Pos(1, 2, 3), 1), cell_text(Pos(1, 0, 3), 0)
        ('row 3, column 4', "Player 2's row 1, column 4")
        >>> cell_text(Pos(1, 0, 3), 0, "de", names=["Du", "Gier-Bot"])
        'Reihe 1, Spalte 4 bei Gier-Bot'
    """
    words = _words(lang)
    if pos.player == viewer:
        return _own_cell(words, pos)
    return _other_cell(words, pos, _name(lang, pos.player, viewer, names))


def _name(lang: str, seat: int, viewer: int | None, names: Sequence[str] | None) -> str:
    """Seat ``seat``'s name from ``names``, else as [`seat_name`] says it with no bots."""
    if names is not None and 0 <= seat < len(names):
        return names[seat]
    return seat_name(seat, viewer, lang=lang)


def _other_cell(words: dict[str, str], pos: Pos, name: str) -> str:
    return words["other_cell"].format(row=pos.row + 1, col=pos.col + 1, name=name)


def _names(
    state: GameState, viewer: int | None, lang: str, names: Sequence[str] | None
) -> list[str]:
    """Every seat's name for the reader ``viewer``: ``names`` where given, else by default."""
    n = state.num_players
    if names is not None:
        if len(names) != n or not all(isinstance(name, str) and name for name in names):
            raise ValueError(f"names must give a name to each of the {n} seats; got {names!r}")
        return list(names)
    return [seat_name(seat, viewer, lang=lang) for seat in range(n)]


def _cell_group(words: dict[str, str], cells: Sequence[Pos]) -> str:
    """Cells of one seat's grid: "row 1, columns 1, 2 and 3", or each cell in turn."""
    if len(cells) == 1:
        return _own_cell(words, cells[0])
    rows = {pos.row for pos in cells}
    cols = {pos.col for pos in cells}
    if len(rows) == 1:
        numbers = [str(pos.col + 1) for pos in sorted(cells, key=lambda p: p.col)]
        return words["o_cells_row"].format(row=cells[0].row + 1, cols=_and(words, numbers))
    if len(cols) == 1:
        numbers = [str(pos.row + 1) for pos in sorted(cells, key=lambda p: p.row)]
        return words["o_cells_column"].format(col=cells[0].col + 1, rows=_and(words, numbers))
    return _and(words, [_own_cell(words, pos) for pos in cells])


# --------------------------------------------------------------------- options


def action_text(
    state: GameState,
    action: Action,
    viewer: int,
    *,
    lang: str = "en",
    names: Sequence[str] | None = None,
) -> str:
    """What a legal action of seat ``viewer`` would do, as one imperative sentence.

    It names only what ``viewer`` may see now: never a face-down card, nor the card a
    draw from the draw pile will turn up (unlike
    [`narrate`][allegra_rules.wording.narrate], which narrates a move once made).

    Args:
        state: a state where ``viewer`` is to act.
        action: one of its legal actions.
        viewer: the seat choosing (its own cells read "row 2, column 4").
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        names: every seat's name for this reader, by seat, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them; by default "You"
            and "Player N".

    Returns:
        A sentence such as ``"Swap the 3 in at row 2, column 3, discarding the 9."``.

    Raises:
        ValueError: ``lang`` is not a known language, or ``viewer`` is not the seat to
            act (only that seat's options are worded: a held card it sees may be hidden
            from the others).

    Examples:
        >>> from allegra_rules import DrawDeck, new_game
        >>> state = new_game(2, seed=1)
        >>> action_text(state, DrawDeck(), 0, lang="fr")
        'Piocher la carte du dessus de la pioche (95 restantes).'
    """
    words = _words(lang)
    if viewer != state.current_player:
        raise ValueError(
            f"only the seat to act ({state.current_player}) has options to word; got {viewer!r}"
        )
    nm = _names(state, viewer, lang, names)
    held = state.held
    if isinstance(action, Reveal):
        key = "reveal" if state.phase is Phase.SETUP else "turn_up"
        return words[key].format(cell=cell_text(action.pos, viewer, lang, names=nm))
    if isinstance(action, DrawDeck):
        size = len(state.draw_pile)
        return words["draw"].format(n=size) if size else words["draw_refill"]
    if isinstance(action, DrawDiscard):
        return words["draw_discard"].format(v=state.discard_top)
    if isinstance(action, Knock):
        return words["knock"].format(held=held)
    if isinstance(action, Pass):
        return words["pass"]
    if isinstance(action, Give):
        return words["give"].format(held=held, k=nm[action.player])
    if isinstance(action, Discard):
        flips = apply(state, action).phase is Phase.FLIP
        then = words["then_flip" if flips else "then_none"]
        key = "put_back" if state.phase is Phase.HOLD_DISCARD else "discard"
        return words[key].format(held=held, then=then)
    if isinstance(action, Take):
        pos = action.pos
        cell = cell_text(pos, viewer, lang, names=nm)
        if state.is_face_up(pos):
            return words["take"].format(v=state.card(pos), cell=cell)
        return words["take_down"].format(cell=cell)
    assert isinstance(action, Swap)
    pos = action.pos
    old = words["old"].format(v=state.card(pos)) if state.is_face_up(pos) else words["old_down"]
    key = "knocker_swap" if state.phase is Phase.KNOCKER_SWAP else "swap"
    return words[key].format(held=held, cell=cell_text(pos, viewer, lang, names=nm), old=old)


def action_texts(
    state: GameState, viewer: int, *, lang: str = "en", names: Sequence[str] | None = None
) -> tuple[str, ...]:
    """[`action_text`][allegra_rules.wording.action_text] of each legal action, in their order.

    Empty unless ``viewer`` is the seat to act. The table server sends this list with a
    seat's view (``action_texts``, beside ``legal_actions``) for its page.

    Raises:
        ValueError: ``lang`` is not a known language, or ``names`` does not name each seat.
    """
    _words(lang)
    if state.current_player != viewer:
        return ()
    return tuple(
        action_text(state, a, viewer, lang=lang, names=names) for a in legal_actions(state)
    )


# ------------------------------------------------------------------- narration


def _simultaneous_setup(state: GameState) -> bool:
    """Whether setup cells are named face down and turn up together (A36)."""
    return bool(getattr(state.config, "setup_reveals", "in_turn") == "simultaneous")


def narrate(
    state: GameState,
    action: Action,
    *,
    viewer: int | None = None,
    lang: str = "en",
    names: Sequence[str] | None = None,
) -> str:
    """One sentence saying what ``action`` does in ``state``, before it happens.

    Only what the rules show to everyone is named: a card drawn from the draw pile, the discard
    pile's cards, face-up cards, a card a setup or flip reveal turns up, and a card swapped out onto
    the discard pile. A face-down card that moves without being shown (a knocker's replaced card, a
    card the drawer takes) is called "the face-down card", and the sentence says who alone sees it
    (A37); the sentence for that seat (``viewer``) also names it. With
    ``setup_reveals="simultaneous"`` (A36) a setup cell is *named*, face down: only its namer is
    told which cell, and the values come with [`outcome`][allegra_rules.wording.outcome] when the
    last cell is named.

    Seats are named as [`seat_name`][allegra_rules.wording.seat_name] names them: the reader's
    own moves are said to "you" ("You draw a 7."), and cells are said from one as players say
    them ("row 2, column 4").

    Args:
        state: the state the action is taken in.
        action: a legal action of ``state``.
        viewer: the seat the sentence is written for (it may name a card only that
            seat has seen), or ``None`` for a spectator.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        names: every seat's name for this reader, by seat, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them; by default "You"
            and "Player N".

    Returns:
        The sentence, starting with the acting seat and ending with a full stop.

    Raises:
        IllegalActionError: ``action`` is not legal in ``state``.
        ValueError: ``viewer`` is not ``None`` or a seat, ``lang`` is not a known
            language, or ``names`` does not name each seat.

    Examples:
        >>> from allegra_rules import new_game, Pos, Reveal
        >>> narrate(new_game(2, seed=1), Reveal(Pos(0, 1, 2)), lang="de")
        'Spieler 1 deckt eine 2 in Reihe 2, Spalte 3 auf.'
        >>> narrate(new_game(2, seed=1), Reveal(Pos(0, 1, 2)), viewer=0)
        'You reveal a 2 at row 2, column 3.'
    """
    words = _words(lang)
    after = apply(state, action)  # validates the action; shows what a draw turns up
    viewer = _check_viewer(state, viewer)
    nm = _names(state, viewer, lang, names)
    who = state.current_player
    assert who is not None
    held = state.held
    simultaneous = state.phase is Phase.SETUP and _simultaneous_setup(state)
    if viewer == who and not (isinstance(action, Reveal) and simultaneous):
        clause = _brief_action(words, state, action, after, viewer, nm)
        return clause[:1].upper() + clause[1:] + "."

    def say(key: str, **values: object) -> str:
        return words[key].format(k=nm[who], **values)

    def at(pos: Pos) -> str:
        return _at(words, viewer, pos, who, nm)

    def seen(value: int | None) -> str:
        """The face-down card, named for the one seat that has seen it."""
        return words["n_seen"].format(a_v=_article(words, value or 0)) if viewer == who else ""

    if isinstance(action, Reveal):
        cell = at(action.pos)
        if simultaneous:
            return words["n_name_you"].format(cell=cell) if viewer == who else say("n_name")
        value = state.card(action.pos)
        assert value is not None
        key = "n_reveal" if state.phase is Phase.SETUP else "n_turn_up"
        return say(key, a_v=_article(words, value), cell=cell)
    if isinstance(action, DrawDeck):
        drawn = after.held
        assert drawn is not None
        key = "n_draw" if state.draw_pile else "n_draw_refill"
        return say(key, a_v=_article(words, drawn))
    if isinstance(action, DrawDiscard):
        return say("n_draw_discard", v=state.discard_top)
    if isinstance(action, Knock):
        return say("n_knock", held=held)
    if isinstance(action, Pass):
        return say("n_pass")
    if isinstance(action, Give):
        if action.player == viewer:
            clause = words["b_give_reader"].format(k=nm[who], held=held)
            return clause[:1].upper() + clause[1:] + "."
        return say("n_give", held=held, p=nm[action.player])
    if isinstance(action, Discard):
        key = "n_put_back" if state.phase is Phase.HOLD_DISCARD else "n_discard"
        then = words["n_then_flip" if after.phase is Phase.FLIP else "n_then_none"]
        return say(key, held=held, then=then)
    if isinstance(action, Take):
        cell = at(action.pos)
        if state.is_face_up(action.pos):
            return say("n_take", v=state.card(action.pos), cell=cell)
        return say("n_take_down", cell=cell, seen=seen(state.card(action.pos)))
    assert isinstance(action, Swap)
    old = state.card(action.pos)
    cell = at(action.pos)
    # A swap is worded once, by the clause of the one-line turn (``b_swap``,
    # ``b_knocker_swap``): the sentence is that clause, with what only it adds.
    if state.phase is Phase.KNOCKER_SWAP:
        if state.is_face_up(action.pos):
            return say("b_knocker_swap", held=held, cell=cell, old=old) + "."
        swap = say("b_knocker_swap_down", held=held, cell=cell)
        return say("n_knocker_swap_down", swap=swap)
    swap = say("b_swap", held=held, cell=cell, old=old)
    if state.phase is Phase.HOLD_TAKEN:
        knocker = state.knocker
        gap = state.taken_at
        assert knocker is not None and gap is not None and held is not None
        hole = state.geometry.positions[gap]
        filler = state.in_hand[0][1]
        if knocker == viewer:
            fill = words["b_fill_you"].format(
                hole=_at(words, viewer, hole, knocker, nm), filler=filler
            )
            return swap + "; " + fill + "."
        if hole.player == knocker:
            hole_text = words["n_its_cell"].format(row=hole.row + 1, col=hole.col + 1)
        else:
            hole_text = _at(words, viewer, hole, knocker, nm)
        return say("n_taken_swap", swap=swap, p=nm[knocker], hole=hole_text, filler=filler)
    return swap + "."


def fate(
    state: GameState,
    action: Action,
    *,
    plain: bool = False,
    lang: str = "en",
    viewer: int | None = None,
    names: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """What became of a drawn card that others knocked for, when the drawer keeps it.

    A give says so itself; a swap or a discard after knocks gets a sentence saying that
    the knockers do not get the card: it stays with the drawer, or goes onto the discard
    pile (``plain``: the sentence is not capitalized). Other actions get none.

    Args:
        state: the state the action is taken in.
        action: the drawer's action.
        plain: leave the sentence's first letter as it is.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        viewer: the reader's seat ("you"), or ``None`` for a spectator.
        names: every seat's name for this reader, by seat, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them.

    Raises:
        ValueError: ``lang`` is not one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES],
            ``viewer`` is not ``None`` or a seat, or ``names`` does not name each seat.
    """
    words = _words(lang)
    viewer = _check_viewer(state, viewer)
    if state.phase is not Phase.HOLD_DECK or not state.knockers:
        return ()
    if not isinstance(action, (Swap, Discard)):
        return ()
    nm = _names(state, viewer, lang, names)
    # The reader first: "You and Player 3 knocked".
    knockers = sorted(state.knockers, key=lambda seat: seat != viewer)
    seats = _and(words, [nm[seat] for seat in knockers])
    drawer = state.drawer
    assert drawer is not None
    d = words["f_reader"] if drawer == viewer else nm[drawer]
    key = "f_keep" if isinstance(action, Swap) else "f_discard"
    text = words[key].format(seats=seats, held=state.held, d=d)
    return (text,) if plain else (text[:1].upper() + text[1:],)


def _settled_cells(state: GameState, action: Action) -> list[int | None]:
    """The table right after ``action`` placed its cards, before triples are removed."""
    cells = list(state.cells)
    if isinstance(action, Swap) and state.phase is not Phase.KNOCKER_SWAP:
        cells[action.pos.index] = state.held
        if state.phase is Phase.HOLD_TAKEN:
            gap = state.taken_at
            assert gap is not None
            cells[gap] = state.in_hand[0][1]
    return cells


def _turned_up(state: GameState, after: GameState) -> list[int]:
    """The cells (flat indices) that were face down in ``state`` and are face up in ``after``."""
    return [
        i
        for i in range(len(state.cells))
        if state.face_down >> i & 1 and not after.face_down >> i & 1
    ]


def _removed_cards(state: GameState, action: Action, after: GameState) -> list[tuple[int, int]]:
    """The cells (flat indices) and values of the triples that settling ``action`` removed."""
    round_over = after.round != state.round or after.is_terminal
    settled = round_over or after.phase in (Phase.DRAW, Phase.SETUP)
    if not isinstance(action, (Reveal, Swap, Discard)) or not settled:
        return []
    end_cells = after.last_round.cells if round_over and after.last_round else after.cells
    before = _settled_cells(state, action)
    return [
        (i, value) for i, value in enumerate(before) if value is not None and end_cells[i] is None
    ]


def _shown_setup(state: GameState, action: Action, after: GameState) -> dict[int, list[int]]:
    """Per seat, the cells a simultaneous setup turned up together (A36), else nothing."""
    if not (
        isinstance(action, Reveal)
        and state.phase is Phase.SETUP
        and after.round == state.round
        and _simultaneous_setup(state)
    ):
        return {}
    positions = state.geometry.positions
    by_seat: dict[int, list[int]] = {}
    for i in sorted(_turned_up(state, after)):
        by_seat.setdefault(positions[i].player, []).append(i)
    return by_seat


def outcome(
    state: GameState,
    action: Action,
    after: GameState,
    *,
    lang: str = "en",
    viewer: int | None = None,
    names: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """Sentences for what happened by itself when ``action`` took ``state`` to ``after``.

    These are the engine's own steps, not a player's choice: the cards of a simultaneous
    setup turning up, the cards of triples removed while settling (with where they went), a
    draw pile refilled from the discard pile, a player whose cards are now all face up
    triggering the round end, and a round stopped at its turn limit.

    Args:
        state: the state before the action.
        action: the action that was applied.
        after: ``apply(state, action)``.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        viewer: the reader's seat ("you"), or ``None`` for a spectator.
        names: every seat's name for this reader, by seat, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them.

    Returns:
        Zero or more sentences, in the order they happened.

    Raises:
        ValueError: ``lang`` is not a known language, ``viewer`` is not ``None`` or a
            seat, or ``names`` does not name each seat.
    """
    words = _words(lang)
    viewer = _check_viewer(state, viewer)
    nm = _names(state, viewer, lang, names)
    positions = state.geometry.positions
    out: list[str] = []
    shown = _shown_setup(state, action, after)
    if shown:
        seats = []
        for seat, cells in shown.items():
            items = []
            for i in cells:
                value = state.cells[i]
                assert value is not None
                pos = positions[i]
                items.append(
                    words["o_card_at"].format(
                        a_v=_article(words, value), row=pos.row + 1, col=pos.col + 1
                    )
                )
            seats.append(words["o_seat_cards"].format(p=nm[seat], items=_and(words, items)))
        out.append(words["o_shown"].format(cards="; ".join(seats)))
    if isinstance(action, DrawDeck) and after.refills > state.refills:
        out.append(words["o_refill"])
    round_over = after.round != state.round or after.is_terminal
    removed = _removed_cards(state, action, after)
    if removed:
        counts: dict[int, int] = {}
        for _, value in removed:
            counts[value] = counts.get(value, 0) + 1
        kinds = [
            words.get(f"o_kind_{count}", words["o_kind"]).format(count=count, v=value)
            for value, count in sorted(counts.items())
        ]
        by_seat: dict[int, list[Pos]] = {}
        for i, _ in removed:
            by_seat.setdefault(positions[i].player, []).append(positions[i])
        where = _and(
            words,
            [
                words["o_your_cells" if seat == viewer else "o_seat_cells"].format(
                    p=nm[seat], cells=_cell_group(words, cells)
                )
                for seat, cells in by_seat.items()
            ],
        )
        key = "o_triple_out" if state.config.removed_cards == "out_of_play" else "o_triple_discard"
        joined = reduce(lambda a, b: words["and"].format(first=a, last=b), kinds)
        out.append(words[key].format(kinds=joined, where=where))
    if after.round == state.round and state.ender is None and after.ender is not None:
        key = "o_ender_grid" if state.config.round_end == "own_grid" else "o_ender_zone"
        key += "_you" if after.ender == viewer else ""
        out.append(words[key].format(k=nm[after.ender]))
    if round_over and after.last_round is not None and after.last_round.ender is None:
        out.append(words["o_turn_limit"])
    return tuple(out)


def _subject(
    words: dict[str, str],
    you: int | None,
    seat: int,
    key: str,
    names: Sequence[str],
    **values: object,
) -> str:
    """Template ``key`` with ``seat`` as its subject: its ``_you`` form for the reader's seat."""
    if seat == you:
        return words[key + "_you"].format(**values)
    return words[key].format(k=names[seat], **values)


def _at(words: dict[str, str], you: int | None, pos: Pos, actor: int, names: Sequence[str]) -> str:
    """A cell as seat ``actor`` does something at it: its own, the reader's, another's."""
    if pos.player == actor:
        return _own_cell(words, pos)
    if pos.player == you:
        return words["b_your_cell"].format(row=pos.row + 1, col=pos.col + 1)
    return _other_cell(words, pos, names[pos.player])


def narrate_brief(
    state: GameState,
    action: Action,
    *,
    viewer: int | None = None,
    lang: str = "en",
    names: Sequence[str] | None = None,
) -> str:
    """What ``action`` does in ``state``, as the clause of a one-line turn.

    The clause starts with its subject: the acting seat or, for the reader's own seat
    ``viewer``, "you". A card is named wherever [`narrate`][allegra_rules.wording.narrate]
    for ``viewer`` names it: a face-down card that a knock exchange moves is named only to
    the seat that sees it. What settling did follows in
    [`outcome_brief`][allegra_rules.wording.outcome_brief].

    Args:
        state: the state the action is taken in.
        action: a legal action of ``state``.
        viewer: the reader's seat (called "you"), or ``None`` for a spectator.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        names: every seat's name for this reader, by seat, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them; by default "You"
            and "Player N".

    Returns:
        The clause, lower case and without a full stop (the clauses of a turn are
        joined with ``"; "``).

    Raises:
        IllegalActionError: ``action`` is not legal in ``state``.
        ValueError: ``viewer`` is not ``None`` or a seat, or ``lang`` is not a known
            language.

    Examples:
        >>> from allegra_rules import new_game, Pos, Reveal
        >>> narrate_brief(new_game(2, seed=1), Reveal(Pos(0, 1, 2)), viewer=0)
        'you reveal a 2 at row 2, column 3'
    """
    words = _words(lang)
    after = apply(state, action)  # validates the action; shows what a draw turns up
    you = _check_viewer(state, viewer)
    return _brief_action(words, state, action, after, you, _names(state, you, lang, names))


def outcome_brief(
    state: GameState,
    action: Action,
    after: GameState,
    *,
    viewer: int | None = None,
    lang: str = "en",
    names: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """What settling ``action`` did by itself, as clauses of a one-line turn.

    The clauses of [`outcome`][allegra_rules.wording.outcome]'s events (a simultaneous
    setup turning up, triples removed, the round end triggered, the turn limit), each
    starting with its subject; the reader's own seat ``viewer`` is "you".

    Args:
        state: the state before the action.
        action: the action that was applied.
        after: ``apply(state, action)``.
        viewer: the reader's seat (called "you"), or ``None`` for a spectator.
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].
        names: every seat's name for this reader, by seat, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them.

    Returns:
        Zero or more clauses, lower case and without a full stop, in the order they
        happened.

    Raises:
        ValueError: ``viewer`` is not ``None`` or a seat, or ``lang`` is not a known
            language.
    """
    words = _words(lang)
    you = _check_viewer(state, viewer)
    nm = _names(state, you, lang, names)
    positions = state.geometry.positions

    def subject(seat: int, key: str, **values: object) -> str:
        return _subject(words, you, seat, key, nm, **values)

    def at(pos: Pos, actor: int) -> str:
        return _at(words, you, pos, actor, nm)

    clauses: list[str] = []
    for seat, shown in _shown_setup(state, action, after).items():
        cards = []
        for i in shown:
            value = state.cells[i]
            assert value is not None
            cell = at(positions[i], seat)
            cards.append(words["b_card_at"].format(a_v=_article(words, value), cell=cell))
        clauses.append(subject(seat, "b_show", cards=_and(words, cards)))
    removed = _removed_cards(state, action, after)
    if removed:
        values = sorted({value for _, value in removed})
        where: dict[int, list[Pos]] = {}
        for i, _ in removed:
            where.setdefault(positions[i].player, []).append(positions[i])
        places_text = _and(
            words,
            [
                words["b_your_cells" if seat == you else "b_seat_cells"].format(
                    p=nm[seat], cells=_cell_group(words, places)
                )
                for seat, places in where.items()
            ],
        )
        dest = "out" if state.config.removed_cards == "out_of_play" else "discard"
        if len(removed) == 3:
            clauses.append(words[f"b_triple_{dest}"].format(v=values[0], cells=places_text))
        else:
            plural = _and(words, [words["b_values"].format(v=v) for v in values])
            clauses.append(words[f"b_triples_{dest}"].format(values=plural, cells=places_text))
    if after.round == state.round and state.ender is None and after.ender is not None:
        key = "b_ender_grid" if state.config.round_end == "own_grid" else "b_ender_zone"
        clauses.append(subject(after.ender, key))
    round_over = after.round != state.round or after.is_terminal
    if round_over and after.last_round is not None and after.last_round.ender is None:
        clauses.append(words["b_turn_limit"])
    return tuple(clauses)


def _brief_action(
    words: dict[str, str],
    state: GameState,
    action: Action,
    after: GameState,
    you: int | None,
    nm: Sequence[str],
) -> str:
    """The clause of one action for ``narrate_brief``."""
    who = state.current_player
    assert who is not None

    def subject(seat: int, key: str, **values: object) -> str:
        return _subject(words, you, seat, key, nm, **values)

    def at(pos: Pos, actor: int) -> str:
        return _at(words, you, pos, actor, nm)

    held = state.held
    phase = state.phase

    def say(key: str, **values: object) -> str:
        return subject(who, key, **values)

    if isinstance(action, Reveal):
        cell = at(action.pos, who)
        if phase is Phase.SETUP and _simultaneous_setup(state):
            return say("b_name", cell=cell)
        value = state.card(action.pos)
        assert value is not None
        key = "b_reveal" if phase is Phase.SETUP else "b_turn_up"
        return say(key, a_v=_article(words, value), cell=cell)
    if isinstance(action, DrawDeck):
        drawn = after.held
        assert drawn is not None
        key = "b_draw" if state.draw_pile else "b_draw_refill"
        return say(key, a_v=_article(words, drawn))
    if isinstance(action, DrawDiscard):
        return say("b_draw_discard", v=state.discard_top)
    if isinstance(action, Knock):
        return say("b_knock")
    if isinstance(action, Pass):
        return say("b_pass")
    if isinstance(action, Give):
        if action.player == you:
            return words["b_give_reader"].format(k=nm[who], held=held)
        return say("b_give", held=held, p=nm[action.player])
    if isinstance(action, Discard):
        key = "b_put_back" if phase is Phase.HOLD_DISCARD else "b_discard"
        then = "" if after.phase is Phase.FLIP else words["b_then_none"]
        return say(key, held=held, then=then)
    if isinstance(action, Take):
        cell = at(action.pos, who)
        value = state.card(action.pos)
        assert value is not None
        key = "b_take" if state.is_face_up(action.pos) else "b_take_down"
        return say(key, v=value, cell=cell)
    assert isinstance(action, Swap)
    cell = at(action.pos, who)
    old = state.card(action.pos)
    assert old is not None
    if phase is Phase.KNOCKER_SWAP:
        key = "b_knocker_swap" if state.is_face_up(action.pos) else "b_knocker_swap_down"
        return say(key, held=held, cell=cell, old=old)
    if phase is Phase.HOLD_TAKEN:
        knocker = state.knocker
        gap = state.taken_at
        assert knocker is not None and gap is not None
        hole = at(state.geometry.positions[gap], knocker)
        fill = subject(knocker, "b_fill", hole=hole, filler=state.in_hand[0][1])
        return say("b_swap", held=held, cell=cell, old=old) + "; " + fill
    return say("b_swap", held=held, cell=cell, old=old)
