"""The words for an action: what a legal action would do, for the seat that chooses it.

This is the one place that words a player's options. The terminal game's menu
(``allegra-rules play``) and the table server's page (its buttons, sent with each view:
see [`action_texts`][allegra_rules.wording.action_texts]) both read their sentences
from here, in English and in the page's languages (``de``, ``pl``, ``fr``).

Public names:

* [`LANGUAGES`][allegra_rules.wording.LANGUAGES]: the languages an action is worded in.
* [`action_text`][allegra_rules.wording.action_text]: one action, as an imperative sentence.
* [`action_texts`][allegra_rules.wording.action_texts]: every legal action of a seat, in order.
* [`cell_text`][allegra_rules.wording.cell_text]: a cell as the seat reads it, ``(row, col)``.

A sentence names no card the seat may not see: a face-down card is "the face-down card";
the card a draw from the draw pile will turn up is not named. (The narration of what
*happened*, third person and naming the card a draw turned up, is
[`describe_action`][allegra_rules.render.describe_action].)

Examples:
    >>> from allegra_rules import DrawDeck, new_game, Pos, Reveal
    >>> state = new_game(2, seed=1)
    >>> action_text(state, Reveal(Pos(0, 1, 2)), 0)
    'Reveal the card at (1, 2).'
    >>> action_text(state, Reveal(Pos(0, 1, 2)), 0, lang="de")
    'Die Karte bei (1, 2) aufdecken.'
"""

from __future__ import annotations

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
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import apply, legal_actions

__all__ = ["LANGUAGES", "action_text", "action_texts", "cell_text"]

LANGUAGES: tuple[str, ...] = ("en", "de", "pl", "fr")
"""The languages of the wording: English and the table server page's languages."""

# Per language, the template of each sentence. {v}: a card value, {held}: the held
# card, {cell}: a cell (cell_text), {old}: the card a swap replaces (the "old" templates),
# {k}: a seat, {n}: the draw pile's size, {then}: what follows a discard.
_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "own_cell": "({row}, {col})",
        "other_cell": "seat {p}'s ({row}, {col})",
        "reveal": "Reveal the card at {cell}.",
        "turn_up": "Turn up the card at {cell}.",
        "draw_refill": "Draw (the empty draw pile is refilled from the discard pile first).",
        "draw": "Draw the top card of the draw pile ({n} left).",
        "draw_discard": "Take the {v} from the discard pile.",
        "knock": "Knock for the {held}.",
        "pass": "Do not knock.",
        "give": "Give the {held} to seat {k}, who knocked.",
        "then_flip": ", then turn up a face-down card",
        "then_none": " (you have no face-down card left to turn up)",
        "put_back": "Put the {held} back on the discard pile{then}.",
        "discard": "Discard the {held}{then}.",
        "take": "Take the {v} from {cell}.",
        "take_down": "Take the face-down card at {cell}.",
        "old": "the {v}",
        "old_down": "the face-down card there",
        "knocker_swap": "Swap the {held} in at {cell}, taking {old} into your hand.",
        "swap": "Swap the {held} in at {cell}, discarding {old}.",
    },
    "de": {
        "own_cell": "({row}, {col})",
        "other_cell": "({row}, {col}) von Platz {p}",
        "reveal": "Die Karte bei {cell} aufdecken.",
        "turn_up": "Die verdeckte Karte bei {cell} aufdecken.",
        "draw_refill": "Ziehen (der leere Nachziehstapel wird zuerst aus dem Ablagestapel"
        " aufgefüllt).",
        "draw": "Die oberste Karte des Nachziehstapels ziehen (noch {n}).",
        "draw_discard": "Die {v} vom Ablagestapel nehmen.",
        "knock": "Um die {held} klopfen.",
        "pass": "Nicht klopfen.",
        "give": "Die {held} Platz {k} geben, der geklopft hat.",
        "then_flip": ", dann eine verdeckte Karte aufdecken",
        "then_none": " (du hast keine verdeckte Karte mehr zum Aufdecken)",
        "put_back": "Die {held} zurück auf den Ablagestapel legen{then}.",
        "discard": "Die {held} ablegen{then}.",
        "take": "Die {v} von {cell} nehmen.",
        "take_down": "Die verdeckte Karte bei {cell} nehmen.",
        "old": "die {v}",
        "old_down": "die verdeckte Karte dort",
        "knocker_swap": "Die {held} bei {cell} einsetzen und {old} auf die Hand nehmen.",
        "swap": "Die {held} bei {cell} einsetzen und {old} ablegen.",
    },
    "pl": {
        "own_cell": "({row}, {col})",
        "other_cell": "({row}, {col}) miejsca {p}",
        "reveal": "Odkryj kartę na polu {cell}.",
        "turn_up": "Odwróć zakrytą kartę na polu {cell}.",
        "draw_refill": "Dobierz (pusta talia zostanie najpierw uzupełniona ze stosu odrzuconych).",
        "draw": "Dobierz wierzchnią kartę z talii (zostało {n}).",
        "draw_discard": "Weź {v} ze stosu odrzuconych.",
        "knock": "Zapukaj o {held}.",
        "pass": "Nie pukaj.",
        "give": "Oddaj {held} miejscu {k}, które zapukało.",
        "then_flip": ", potem odkryj zakrytą kartę",
        "then_none": " (nie masz już zakrytej karty do odkrycia)",
        "put_back": "Odłóż {held} z powrotem na stos odrzuconych{then}.",
        "discard": "Odrzuć {held}{then}.",
        "take": "Weź {v} z pola {cell}.",
        "take_down": "Weź zakrytą kartę z pola {cell}.",
        "old": "{v}",
        "old_down": "leżącą tam zakrytą kartę",
        "knocker_swap": "Wstaw {held} na pole {cell}, biorąc {old} na rękę.",
        "swap": "Wstaw {held} na pole {cell}, odrzucając {old}.",
    },
    "fr": {
        "own_cell": "({row}, {col})",
        "other_cell": "({row}, {col}) de la place {p}",
        "reveal": "Révéler la carte en {cell}.",
        "turn_up": "Retourner la carte face cachée en {cell}.",
        "draw_refill": "Piocher (la pioche vide est d'abord refaite avec la défausse).",
        "draw": "Piocher la carte du dessus de la pioche ({n} restantes).",
        "draw_discard": "Prendre le {v} de la défausse.",
        "knock": "Frapper pour le {held}.",
        "pass": "Ne pas frapper.",
        "give": "Donner le {held} à la place {k}, qui a frappé.",
        "then_flip": ", puis retourner une carte face cachée",
        "then_none": " (il ne vous reste aucune carte face cachée à retourner)",
        "put_back": "Remettre le {held} sur la défausse{then}.",
        "discard": "Défausser le {held}{then}.",
        "take": "Prendre le {v} en {cell}.",
        "take_down": "Prendre la carte face cachée en {cell}.",
        "old": "le {v}",
        "old_down": "la carte face cachée qui s'y trouve",
        "knocker_swap": "Placer le {held} en {cell} et prendre {old} en main.",
        "swap": "Placer le {held} en {cell} et défausser {old}.",
    },
}


def _words(lang: object) -> dict[str, str]:
    if not isinstance(lang, str) or lang not in _WORDS:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}; got {lang!r}")
    return _WORDS[lang]


def cell_text(pos: Pos, viewer: int | None, lang: str = "en") -> str:
    """A cell as seat ``viewer`` reads it: ``(row, col)`` of its own grid, else with its seat.

    Raises:
        ValueError: ``lang`` is not one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].

    Examples:
        >>> cell_text(Pos(1, 2, 3), 0), cell_text(Pos(1, 2, 3), 1)
        ("seat 1's (2, 3)", '(2, 3)')
    """
    words = _words(lang)
    key = "own_cell" if pos.player == viewer else "other_cell"
    return words[key].format(row=pos.row, col=pos.col, p=pos.player)


def action_text(state: GameState, action: Action, viewer: int, *, lang: str = "en") -> str:
    """What a legal action of seat ``viewer`` would do, as one imperative sentence.

    It names only what ``viewer`` may see now: never a face-down card, nor the card a
    draw from the draw pile will turn up (unlike
    [`describe_action`][allegra_rules.render.describe_action], which narrates a move once
    made).

    Args:
        state: a state where ``viewer`` is to act.
        action: one of its legal actions.
        viewer: the seat choosing (its own cells read ``(row, col)``).
        lang: one of [`LANGUAGES`][allegra_rules.wording.LANGUAGES].

    Returns:
        A sentence such as ``"Swap the 3 in at (1, 2), discarding the 9."``.

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
    held = state.held
    if isinstance(action, Reveal):
        key = "reveal" if state.phase is Phase.SETUP else "turn_up"
        return words[key].format(cell=cell_text(action.pos, viewer, lang))
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
        return words["give"].format(held=held, k=action.player)
    if isinstance(action, Discard):
        flips = apply(state, action).phase is Phase.FLIP
        then = words["then_flip" if flips else "then_none"]
        key = "put_back" if state.phase is Phase.HOLD_DISCARD else "discard"
        return words[key].format(held=held, then=then)
    if isinstance(action, Take):
        pos = action.pos
        cell = cell_text(pos, viewer, lang)
        if state.is_face_up(pos):
            return words["take"].format(v=state.card(pos), cell=cell)
        return words["take_down"].format(cell=cell)
    assert isinstance(action, Swap)
    pos = action.pos
    old = words["old"].format(v=state.card(pos)) if state.is_face_up(pos) else words["old_down"]
    key = "knocker_swap" if state.phase is Phase.KNOCKER_SWAP else "swap"
    return words[key].format(held=held, cell=cell_text(pos, viewer, lang), old=old)


def action_texts(state: GameState, viewer: int, *, lang: str = "en") -> tuple[str, ...]:
    """[`action_text`][allegra_rules.wording.action_text] of each legal action, in their order.

    Empty unless ``viewer`` is the seat to act. The table server sends this list with a
    seat's view (``action_texts``, beside ``legal_actions``) for its page.

    Raises:
        ValueError: ``lang`` is not a known language.
    """
    _words(lang)
    if state.current_player != viewer:
        return ()
    return tuple(action_text(state, a, viewer, lang=lang) for a in legal_actions(state))
