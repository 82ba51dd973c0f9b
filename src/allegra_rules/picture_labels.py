"""The words drawn in the SVG pictures, in English, German, Polish and French.

[`render_svg`][allegra_rules.svg.render_svg] writes a few words into a picture: the
seat labels' marks (who drew, who knocked), the column and row labels, the note on the
wrapped column, the zone sums, the notes beside a held or hand card and the pile
labels. ``render_svg(state, labels="de")`` draws them in German;
[`PICTURE_LABELS`][allegra_rules.picture_labels.PICTURE_LABELS] holds every built-in
language and [`picture_labels`][allegra_rules.picture_labels.picture_labels] looks one
up. A [`PictureLabels`][allegra_rules.picture_labels.PictureLabels] of your own draws
the pictures in another language.

The status line and the legend (``status=True``, ``legend=True``) come from the text
rendering and stay in English; a page that explains its pictures in its own language
draws them with ``status=False, legend=False``, as the hosted documentation does.

Templates name what they are filled with in braces: ``{name}`` a seat's name,
``{seat}``, ``{zone}``, ``{col}``, ``{row}``, ``{total}`` and ``{count}`` numbers,
``{cards}`` an already counted number of cards. The words avoid inflecting a seat's
name (``"von {name} genommen"``, ``"od: {name}"``), so any name fits.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

__all__ = ["PICTURE_LABELS", "PLURAL_RULES", "PictureLabels", "picture_labels"]

PLURAL_RULES: Mapping[str, int] = MappingProxyType({"one": 2, "zero_or_one": 2, "slavic": 3})
"""How a language picks the form of a counted word, with the number of forms it needs.

* ``one``: the first form for 1, the second for every other count (English, German).
* ``zero_or_one``: the first form for 0 and 1, the second for more (French).
* ``slavic``: the first form for 1; the second for counts ending in 2, 3 or 4 except
  12 to 14; the third for the others (Polish: 1 karta, 2 karty, 5 kart, 22 karty).
"""

_FIELDS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "seat": frozenset({"seat"}),
        "drawer": frozenset(),
        "knocked": frozenset(),
        "column": frozenset({"col"}),
        "row": frozenset({"row"}),
        "ghost_column": frozenset({"seat"}),
        "wrap_named": frozenset({"name"}),
        "wrap_numbered": frozenset({"zone"}),
        "zone_named": frozenset({"name", "total"}),
        "zone_numbered": frozenset({"zone", "total"}),
        "face_down": frozenset({"count"}),
        "holds": frozenset(),
        "given_by": frozenset({"name"}),
        "taken_from": frozenset({"name"}),
        "from_discard": frozenset(),
        "from_draw": frozenset(),
        "holds_unseen": frozenset(),
        "unseen_by": frozenset({"name"}),
        "lay_face_down": frozenset(),
        "in_hand": frozenset(),
        "in_hand_unseen": frozenset(),
        "piles": frozenset(),
        "draw": frozenset(),
        "discard": frozenset(),
        "cards": frozenset({"count"}),
        "out_of_play": frozenset({"cards"}),
        "title": frozenset({"count"}),
    }
)
"""Every template field and the placeholders it may use."""

_COUNTED = ("face_down", "cards", "title")
"""The fields that hold one form per plural form (see ``PLURAL_RULES``)."""


def _placeholders(template: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as exc:
        raise ValueError(f"{template!r} is not a valid template: {exc}") from None


def _check_text(instance: PictureLabels, attribute: attrs.Attribute[Any], value: Any) -> None:
    """A template, or a tuple of them, using only the placeholders its field allows."""
    name = attribute.name
    items = value if isinstance(value, tuple) else (value,)
    if not items or not all(type(item) is str for item in items):
        raise ValueError(f"PictureLabels.{name} must be a str or a tuple of str; got {value!r}")
    allowed = _FIELDS[name]
    for item in items:
        unknown = _placeholders(item) - allowed
        if unknown:
            raise ValueError(
                f"PictureLabels.{name}: {item!r} uses {sorted(unknown)}; "
                f"allowed: {sorted(allowed) or 'no placeholder'}"
            )


def _check_plural(instance: PictureLabels, attribute: attrs.Attribute[Any], value: Any) -> None:
    if value not in PLURAL_RULES:
        raise ValueError(
            f"PictureLabels.plural must be one of {sorted(PLURAL_RULES)}; got {value!r}"
        )


def _check_language(instance: PictureLabels, attribute: attrs.Attribute[Any], value: Any) -> None:
    if type(value) is not str or not value.strip():
        raise ValueError(f"PictureLabels.language must be a non-empty str; got {value!r}")


@attrs.frozen(kw_only=True)
class PictureLabels:
    """The words of one language's pictures: templates filled in by ``render_svg``.

    Every field but ``language`` and ``plural`` is a template (a ``str``, or a tuple of
    lines where the picture writes several) using only its own placeholders; the
    counted fields ``face_down``, ``cards`` and ``title`` hold one template per form of
    the language's ``plural`` rule. A wrong type, an unknown placeholder or a wrong
    number of forms raises ``ValueError``.

    Examples:
        >>> from allegra_rules.picture_labels import picture_labels
        >>> picture_labels("pl").count("cards", 22), picture_labels("en").count("cards", 1)
        ('22 karty', '1 card')
    """

    language: str = attrs.field(validator=_check_language)
    """The language's code (``en``, ``de``, ...)."""
    plural: str = attrs.field(validator=_check_plural)
    """The language's plural rule, a key of ``PLURAL_RULES``."""
    seat: str = attrs.field(validator=_check_text)
    """A seat's label when no names are given (``Player {seat}``, counted from one)."""
    drawer: str = attrs.field(validator=_check_text)
    """Added to the label of the seat that drew (`` (drawer)``)."""
    knocked: str = attrs.field(validator=_check_text)
    """Added to the label of a seat that knocked (`` · knocked``)."""
    column: str = attrs.field(validator=_check_text)
    """A column's label (``{col}``: 1 to 4, as players count them)."""
    row: str = attrs.field(validator=_check_text)
    """A row's label (``{row}``: 1 to 3 from the top)."""
    ghost_column: str = attrs.field(validator=_check_text)
    """The faded column's label when no names are given (its seat, ``Player {seat}``)."""
    wrap_named: tuple[str, ...] = attrs.field(validator=_check_text)
    """The lines beside seat 0's column 3, saying which zone it also counts in."""
    wrap_numbered: tuple[str, ...] = attrs.field(validator=_check_text)
    """The same, when no names are given."""
    zone_named: str = attrs.field(validator=_check_text)
    """A zone's sum (``{name}: {total}``)."""
    zone_numbered: str = attrs.field(validator=_check_text)
    """A zone's sum when no names are given (``zone {zone} · sum {total}``)."""
    face_down: tuple[str, ...] = attrs.field(validator=_check_text)
    """Added to a zone's sum: how many of its cards are face down, one form per plural."""
    holds: str = attrs.field(validator=_check_text)
    """The first note beside a held card."""
    given_by: str = attrs.field(validator=_check_text)
    """Where a held card came from: the drawer who gave it."""
    taken_from: str = attrs.field(validator=_check_text)
    """Where a held card came from: the knocker's zone it was taken from."""
    from_discard: str = attrs.field(validator=_check_text)
    """Where a held card came from: the discard pile."""
    from_draw: str = attrs.field(validator=_check_text)
    """Where a held card came from: the draw pile."""
    holds_unseen: str = attrs.field(validator=_check_text)
    """The first note beside a held card the viewer has not seen."""
    unseen_by: str = attrs.field(validator=_check_text)
    """Which seat has not seen a held or hand card."""
    lay_face_down: str = attrs.field(validator=_check_text)
    """A held or hand card that lay face down."""
    in_hand: tuple[str, ...] = attrs.field(validator=_check_text)
    """The notes beside a knocker's hand card."""
    in_hand_unseen: tuple[str, ...] = attrs.field(validator=_check_text)
    """The notes beside a knocker's hand card the viewer has not seen."""
    piles: str = attrs.field(validator=_check_text)
    """The label over the piles."""
    draw: str = attrs.field(validator=_check_text)
    """The label under the draw pile."""
    discard: str = attrs.field(validator=_check_text)
    """The label under the discard pile."""
    cards: tuple[str, ...] = attrs.field(validator=_check_text)
    """A number of cards, one form per plural."""
    out_of_play: str = attrs.field(validator=_check_text)
    """The cards out of play (``out of play: {cards}``)."""
    title: tuple[str, ...] = attrs.field(validator=_check_text)
    """The start of the picture's ``<title>`` (``Allegra, {count} players``)."""

    def __attrs_post_init__(self) -> None:
        """Check that each counted field has one form per form of the plural rule."""
        forms = PLURAL_RULES[self.plural]
        for name in _COUNTED:
            value = getattr(self, name)
            if not isinstance(value, tuple) or len(value) != forms:
                raise ValueError(
                    f"PictureLabels.{name} must be a tuple of {forms} forms for the "
                    f"plural rule {self.plural!r}; got {value!r}"
                )
        for name in ("wrap_named", "wrap_numbered", "in_hand", "in_hand_unseen"):
            if not isinstance(getattr(self, name), tuple):
                raise ValueError(f"PictureLabels.{name} must be a tuple of lines")

    def form(self, count: int) -> int:
        """Which form of a counted word goes with ``count`` (an index into its tuple)."""
        if self.plural == "slavic":
            if count == 1:
                return 0
            if count % 10 in (2, 3, 4) and count % 100 not in (12, 13, 14):
                return 1
            return 2
        if self.plural == "zero_or_one":
            return 0 if count in (0, 1) else 1
        return 0 if count == 1 else 1

    def count(self, field: str, count: int) -> str:
        """The counted field ``field`` (``cards``, ``face_down``, ``title``) for ``count``."""
        if field not in _COUNTED:
            raise ValueError(f"count() takes one of {list(_COUNTED)}; got {field!r}")
        forms: tuple[str, ...] = getattr(self, field)
        return forms[self.form(count)].format(count=count)


ENGLISH = PictureLabels(
    language="en",
    plural="one",
    seat="Player {seat}",
    drawer=" (drawer)",
    knocked=" \u00b7 knocked",
    column="{col}",
    row="{row}",
    ghost_column="Player {seat}",
    wrap_named=("also in", "{name}'s zone", "(far left)"),
    wrap_numbered=("also in", "zone {zone}", "(far left)"),
    zone_named="{name}: {total}",
    zone_numbered="zone {zone} \u00b7 sum {total}",
    face_down=("+ {count} face-down", "+ {count} face-down"),
    holds="holds",
    given_by="given by {name}",
    taken_from="taken from {name}",
    from_discard="from the discard pile",
    from_draw="from the draw pile",
    holds_unseen="holds a card",
    unseen_by="unseen by {name}",
    lay_face_down="(it lay face down)",
    in_hand=("in hand:", "the replaced card"),
    in_hand_unseen=("in hand: a", "replaced card,"),
    piles="piles",
    draw="draw",
    discard="discard",
    cards=("{count} card", "{count} cards"),
    out_of_play="out of play: {cards}",
    title=("Allegra, {count} player", "Allegra, {count} players"),
)
"""The English words, the default."""

_GERMAN = PictureLabels(
    language="de",
    plural="one",
    seat="Spieler {seat}",
    drawer=" (zieht)",
    knocked=" \u00b7 klopft",
    column="{col}",
    row="{row}",
    ghost_column="Spieler {seat}",
    wrap_named=("zählt auch", "für {name}", "(ganz links)"),
    wrap_numbered=("zählt auch", "für Bereich {zone}", "(ganz links)"),
    zone_named="{name}: {total}",
    zone_numbered="Bereich {zone} \u00b7 Summe {total}",
    face_down=("+ {count} verdeckte", "+ {count} verdeckte"),
    holds="hält",
    given_by="von {name} bekommen",
    taken_from="von {name} genommen",
    from_discard="vom Ablagestapel",
    from_draw="vom Nachziehstapel",
    holds_unseen="hält eine Karte",
    unseen_by="{name} kennt sie nicht",
    lay_face_down="(lag verdeckt)",
    in_hand=("auf der Hand:", "die ersetzte Karte"),
    in_hand_unseen=("auf der Hand: die", "ersetzte Karte,"),
    piles="Stapel",
    draw="ziehen",
    discard="Ablage",
    cards=("{count} Karte", "{count} Karten"),
    out_of_play="aus dem Spiel: {cards}",
    title=("Allegra, {count} Spieler", "Allegra, {count} Spieler"),
)

_POLISH = PictureLabels(
    language="pl",
    plural="slavic",
    seat="Gracz {seat}",
    drawer=" (dobiera)",
    knocked=" \u00b7 puka",
    column="{col}",
    row="{row}",
    ghost_column="Gracz {seat}",
    wrap_named=("też strefa:", "{name}", "(po lewej)"),
    wrap_numbered=("też w", "strefie {zone}", "(po lewej)"),
    zone_named="{name}: {total}",
    zone_numbered="strefa {zone} \u00b7 suma {total}",
    face_down=("+ {count} zakryta", "+ {count} zakryte", "+ {count} zakrytych"),
    holds="trzyma",
    given_by="oddana przez: {name}",
    taken_from="wzięta od: {name}",
    from_discard="ze stosu odrzuconych",
    from_draw="z talii",
    holds_unseen="trzyma kartę",
    unseen_by="{name} jej nie zna",
    lay_face_down="(leżała zakryta)",
    in_hand=("w ręce:", "zastąpiona karta"),
    in_hand_unseen=("w ręce:", "zastąpiona karta,"),
    piles="stosy",
    draw="talia",
    discard="odrzucone",
    cards=("{count} karta", "{count} karty", "{count} kart"),
    out_of_play="poza grą: {cards}",
    title=("Allegra, {count} gracz", "Allegra, {count} graczy", "Allegra, {count} graczy"),
)

_FRENCH = PictureLabels(
    language="fr",
    plural="zero_or_one",
    seat="Joueur {seat}",
    drawer=" (a tiré)",
    knocked=" \u00b7 a frappé",
    column="{col}",
    row="{row}",
    ghost_column="Joueur {seat}",
    wrap_named=("aussi pour", "{name}", "(à gauche)"),
    wrap_numbered=("aussi dans", "la zone {zone}", "(à gauche)"),
    zone_named="{name} : {total}",
    zone_numbered="zone {zone} \u00b7 somme {total}",
    face_down=("+ {count} cachée", "+ {count} cachées"),
    holds="tient",
    given_by="donnée par {name}",
    taken_from="prise chez {name}",
    from_discard="de la défausse",
    from_draw="de la pioche",
    holds_unseen="tient une carte",
    unseen_by="non vue par {name}",
    lay_face_down="(elle était cachée)",
    in_hand=("en main :", "la carte remplacée"),
    in_hand_unseen=("en main : la", "carte remplacée,"),
    piles="piles",
    draw="pioche",
    discard="défausse",
    cards=("{count} carte", "{count} cartes"),
    out_of_play="hors jeu : {cards}",
    title=("Allegra, {count} joueur", "Allegra, {count} joueurs"),
)

PICTURE_LABELS: Mapping[str, PictureLabels] = MappingProxyType(
    {labels.language: labels for labels in (ENGLISH, _GERMAN, _POLISH, _FRENCH)}
)
"""The built-in languages by code: ``en`` (the default), ``de``, ``pl`` and ``fr``."""


def picture_labels(language: str) -> PictureLabels:
    """The built-in words of ``language`` (``en``, ``de``, ``pl`` or ``fr``).

    Raises:
        ValueError: ``language`` is not one of them.

    Examples:
        >>> picture_labels("fr").draw, picture_labels("de").column.format(col=2)
        ('pioche', '2')
    """
    if type(language) is not str or language not in PICTURE_LABELS:
        raise ValueError(
            f"the pictures' language must be one of {sorted(PICTURE_LABELS)}; got {language!r}"
        )
    return PICTURE_LABELS[language]
