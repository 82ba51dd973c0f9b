"""The game's words, one per concept and language: what the guide, the pages and the terminal say.

Every surface that names a thing of the game (the players' guide in ``docs/`` and its
translations, the narration of [`wording`][allegra_rules.wording], the picture's labels,
the table server's page and the terminal) takes the word from here, so that a player who
read the guide finds the same word at the table. The words are those of the guide in each
language (``docs/how-to-play.md`` and ``docs/i18n/<lang>/how-to-play.md``);
``tests/test_glossary.py`` checks that the guide uses each of them and that no surface uses
a word listed in [`AVOID`][allegra_rules.glossary.AVOID] instead.

Public names:

* [`GLOSSARY`][allegra_rules.glossary.GLOSSARY]: per language, the word of each concept.
* [`AVOID`][allegra_rules.glossary.AVOID]: per language, words once used for a concept
  that the guide does not use; a surface must not show them.
* [`term`][allegra_rules.glossary.term]: one concept's word in one language.

Examples:
    >>> term("zone", "de"), term("triple", "fr"), term("grid", "pl")
    ('Bereich', 'brelan', 'siatka')
"""

from __future__ import annotations

__all__ = ["AVOID", "CONCEPTS", "GLOSSARY", "term"]

CONCEPTS: tuple[str, ...] = (
    "zone",
    "grid",
    "row",
    "column",
    "cell",
    "hole",
    "triple",
    "knock",
    "draw_pile",
    "discard_pile",
    "hand",
    "round",
    "turn",
    "face_up",
    "face_down",
    "you",
    "player",
    "greedy_bot",
    "search_bot",
    "learned_bot",
    "random_bot",
)
"""The concepts of the glossary, in the order of its tables."""

GLOSSARY: dict[str, dict[str, str]] = {
    "en": {
        "zone": "zone",
        "grid": "grid",
        "row": "row",
        "column": "column",
        "cell": "cell",
        "hole": "hole",
        "triple": "triple",
        "knock": "knock",
        "draw_pile": "draw pile",
        "discard_pile": "discard pile",
        "hand": "hand",
        "round": "round",
        "turn": "turn",
        "face_up": "face up",
        "face_down": "face down",
        "you": "You",
        "player": "Player {n}",
        "greedy_bot": "Greedy bot",
        "search_bot": "Search bot",
        "learned_bot": "Learned bot",
        "random_bot": "Random bot",
    },
    "de": {
        "zone": "Bereich",
        "grid": "Auslage",
        "row": "Reihe",
        "column": "Spalte",
        "cell": "Feld",
        "hole": "Lücke",
        "triple": "drei gleiche Karten",
        "knock": "klopfen",
        "draw_pile": "Nachziehstapel",
        "discard_pile": "Ablagestapel",
        "hand": "Hand",
        "round": "Runde",
        "turn": "Zug",
        "face_up": "offen",
        "face_down": "verdeckt",
        "you": "Du",
        "player": "Spieler {n}",
        "greedy_bot": "Gier-Bot",
        "search_bot": "Such-Bot",
        "learned_bot": "Trainierter Bot",
        "random_bot": "Zufalls-Bot",
    },
    "pl": {
        "zone": "strefa",
        "grid": "siatka",
        "row": "rząd",
        "column": "kolumna",
        "cell": "pole",
        "hole": "puste miejsce",
        "triple": "trójka",
        "knock": "pukać",
        "draw_pile": "talia",
        "discard_pile": "stos odrzuconych",
        "hand": "ręka",
        "round": "runda",
        "turn": "tura",
        "face_up": "odkryta",
        "face_down": "zakryta",
        "you": "Ty",
        "player": "Gracz {n}",
        "greedy_bot": "Bot zachłanny",
        "search_bot": "Bot szukający",
        "learned_bot": "Bot wytrenowany",
        "random_bot": "Bot losowy",
    },
    "fr": {
        "zone": "zone",
        "grid": "grille",
        "row": "ligne",
        "column": "colonne",
        "cell": "case",
        "hole": "trou",
        "triple": "brelan",
        "knock": "frapper",
        "draw_pile": "pioche",
        "discard_pile": "défausse",
        "hand": "main",
        "round": "manche",
        "turn": "tour",
        "face_up": "face visible",
        "face_down": "face cachée",
        "you": "Vous",
        "player": "Joueur {n}",
        "greedy_bot": "Bot glouton",
        "search_bot": "Bot chercheur",
        "learned_bot": "Bot entraîné",
        "random_bot": "Bot aléatoire",
    },
}
"""Per language (``en``, ``de``, ``pl``, ``fr``), the word of each concept of
[`CONCEPTS`][allegra_rules.glossary.CONCEPTS]: the guide's word. ``player`` has the
placeholder ``{n}``: the seat counted from one."""

AVOID: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "hole": ("gap",),
        "player": ("seat {k}", "seat {p}"),
    },
    "de": {
        "zone": ("Zone", "Zonensumme"),
        "grid": ("Raster",),
        "triple": ("Drilling",),
        "player": ("Platz {k}", "Platz {p}"),
        "greedy_bot": ("gieriger Bot",),
        "learned_bot": ("gelernter Bot",),
    },
    "pl": {
        "grid": ("układ",),
        "hole": ("luk",),
        "player": ("miejsce {k}", "miejsce {p}", "miejsca {p}"),
    },
    "fr": {
        "triple": ("triplet",),
        "player": ("la place {k}", "la place {p}"),
        "learned_bot": ("bot appris",),
    },
}
"""Per language, per concept, words a surface must not show for it (matched without
regard to case; one with a ``{placeholder}`` is matched in a template as written): words
once used at the table that the guide does not use."""


def term(concept: str, lang: str = "en") -> str:
    """The word of ``concept`` in ``lang``, as the guide says it.

    Raises:
        ValueError: ``lang`` or ``concept`` is not in the glossary.

    Examples:
        >>> term("discard_pile"), term("player", "fr").format(n=2)
        ('discard pile', 'Joueur 2')
    """
    if lang not in GLOSSARY:
        raise ValueError(f"lang must be one of {', '.join(GLOSSARY)}; got {lang!r}")
    if concept not in CONCEPTS:
        raise ValueError(f"no glossary word for {concept!r}")
    return GLOSSARY[lang][concept]
