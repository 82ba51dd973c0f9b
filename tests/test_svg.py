"""The SVG pictures of ``allegra_rules.svg``.

Pictures are read back as XML: every grid cell is a ``<g class="card ...">`` with
``data-seat``, ``data-row`` and ``data-col``; zone bands are ``<rect
class="zone-band">``. Hidden values are checked against every text node of the
picture, with card values no real deck has (97, 98) so that a hit cannot be a
coincidence.
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from allegra_rules import (
    DEFAULT_DECK,
    DrawDeck,
    GameState,
    Give,
    Knock,
    Pass,
    Phase,
    Pos,
    RuleConfig,
    Swap,
    Take,
    new_game,
    render_svg,
    zone_positions,
)
from allegra_rules.svg import docs_pictures, main
from helpers import game, play, setup_reveals

SVG = "{http://www.w3.org/2000/svg}"
NAMES = [
    "table-4p.svg",
    "knock-1.svg",
    "knock-2.svg",
    "knock-3.svg",
    "knock-4.svg",
    "triple-cross-zone.svg",
    "triple-after.svg",
]


@pytest.fixture(scope="module")
def pictures() -> dict[str, str]:
    return docs_pictures()


def parse(text: str) -> ET.Element:
    return ET.fromstring(text.encode("utf-8"))


def classes(el: ET.Element) -> list[str]:
    return el.get("class", "").split()


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [el for el in root.iter() if cls in classes(el)]


def cards(root: ET.Element) -> dict[Pos, ET.Element]:
    out: dict[Pos, ET.Element] = {}
    for el in groups(root, "card"):
        pos = Pos(
            int(el.get("data-seat", "")), int(el.get("data-row", "")), int(el.get("data-col", ""))
        )
        assert pos not in out, pos
        out[pos] = el
    return out


def kind(el: ET.Element) -> str:
    (found,) = {"face-up", "face-down", "gap"} & set(classes(el))
    return found


def value(el: ET.Element) -> int | None:
    raw = el.get("data-value")
    return None if raw is None else int(raw)


def texts(root: ET.Element) -> list[str]:
    out = []
    for el in root.iter():
        out += [t for t in (el.text, el.tail) if t and t.strip()]
    return out


def mentions(root: ET.Element, number: int) -> bool:
    """Whether a text node or a data-value attribute shows ``number``."""
    pattern = re.compile(rf"(?<![\d-]){number}(?!\d)")
    if any(pattern.search(t) for t in texts(root)):
        return True
    return any(el.get("data-value") == str(number) for el in root.iter())


def caption_text(root: ET.Element) -> str:
    return " ".join(el.text or "" for el in groups(root, "caption"))


def first_rect(el: ET.Element) -> ET.Element:
    rect = el.find(f"{SVG}rect")
    assert rect is not None
    return rect


# ------------------------------------------------------------------ structure


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_document_shape_and_one_card_per_cell(n: int) -> None:
    text = render_svg(new_game(n, seed=n), caption="dealt")
    root = parse(text)
    assert root.tag == f"{SVG}svg"
    assert 'xmlns="http://www.w3.org/2000/svg"' in text
    assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox", ""))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    title = root.find(f"{SVG}title")
    assert title is not None and title.text and "dealt" in title.text
    found = cards(root)
    assert len(groups(root, "card")) == 12 * n
    assert set(found) == {Pos(p, r, c) for p in range(n) for r in range(3) for c in range(4)}
    assert all(kind(el) == "face-down" for el in found.values())


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_zone_bands_span_their_five_columns(n: int) -> None:
    root = parse(render_svg(new_game(n, seed=1)))
    bands = groups(root, "zone-band")
    assert sorted(int(b.get("data-zone", "")) for b in bands) == list(range(n))
    columns = [*groups(root, "card"), *groups(root, "ghost")]

    def inside(band: ET.Element) -> set[tuple[int, int, bool]]:
        lo = float(band.get("x", ""))
        hi = lo + float(band.get("width", ""))
        out = set()
        for el in columns:
            rect = first_rect(el)
            x = float(rect.get("x", ""))
            if lo <= x and x + float(rect.get("width", "")) <= hi:
                out.add(
                    (
                        int(el.get("data-seat", "")),
                        int(el.get("data-col", "")),
                        "ghost" in classes(el),
                    )
                )
        return out

    spans = {int(b.get("data-zone", "")): inside(b) for b in bands}
    for p in range(n):
        left = (p + 1) % n
        assert {(s, c) for s, c, _ in spans[p]} == {(left, 3), *((p, c) for c in range(4))}
        # Only zone n-1 reaches seat 0's column 3 through the repeated (ghost) column.
        assert any(ghost for *_, ghost in spans[p]) == (p == n - 1)
    # Each real column 3 lies in two bands, except seat 0's, whose second zone (n-1)
    # holds its ghost.
    for s in range(n):
        holders = {p for p, span in spans.items() if (s, 3, False) in span}
        assert holders == ({0} if s == 0 else {s, s - 1})
    assert len(groups(root, "ghost")) == 3
    assert groups(root, "wrap-marker")


# ------------------------------------------------------------ hidden values

ODD_CONFIG = RuleConfig(deck=(*DEFAULT_DECK, (97, 6), (98, 6)))
# Seat 1 keeps 97s and 98s face down; nothing else on the table or the piles is 97/98.
ODD_GRIDS = {
    0: ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 0)),
    1: ((97, 98, 98, 2), (3, 4, 97, 5), (6, 97, 8, 9)),
    2: ((3, 4, 5, 6), (7, 8, 9, 10), (11, 0, -1, 1)),
}
ODD_SETUP = {
    0: (Pos(0, 2, 0), Pos(0, 2, 1)),
    1: (Pos(1, 0, 3), Pos(1, 1, 0)),
    2: (Pos(2, 2, 0), Pos(2, 2, 1)),
}


def odd_game() -> GameState:
    state = game(3, ODD_GRIDS, config=ODD_CONFIG, discard=3, draw=[0])
    return setup_reveals(state, ODD_SETUP)


def odd_exchange() -> GameState:
    """Seat 0 gives its drawn 0 to knocker seat 1, who swaps it in for a face-down 98;
    seat 0 then takes seat 1's face-down 97 at (1, 2) and holds it."""
    state = play(odd_game(), [DrawDeck(), Knock(), Pass(), Give(1), Swap(Pos(1, 0, 1))])
    state = play(state, [Take(Pos(1, 1, 2))])
    assert state.phase is Phase.HOLD_TAKEN and state.held == 97 and state.in_hand == ((1, 98),)
    assert state.held_was_face_down and state.hand_was_face_down
    return state


@pytest.mark.parametrize("viewer", [None, 0, 1, 2])
def test_face_down_values_never_drawn(viewer: int | None) -> None:
    state = odd_game()
    assert 97 in state.cells and 98 in state.cells
    root = parse(render_svg(state, viewer=viewer))
    assert not mentions(root, 97)
    assert not mentions(root, 98)
    assert value(cards(root)[Pos(0, 2, 1)]) == 10  # face-up cards are drawn


def test_reveal_shows_face_down_values() -> None:
    state = odd_game()
    root = parse(render_svg(state, reveal=True))
    found = cards(root)
    assert mentions(root, 97) and mentions(root, 98)
    for pos, el in found.items():
        assert value(el) == state.card(pos)
        if not state.is_face_up(pos):
            assert {"face-down", "revealed"} <= set(classes(el))


@pytest.mark.parametrize(
    ("viewer", "sees_held", "sees_hand"),
    [(None, True, True), (0, True, False), (1, False, True), (2, False, False)],
)
def test_knock_exchange_cards_shown_only_to_who_saw_them(
    viewer: int | None, sees_held: bool, sees_hand: bool
) -> None:
    root = parse(render_svg(odd_exchange(), viewer=viewer))
    (held,) = groups(root, "held-card")
    (hand,) = groups(root, "hand-card")
    assert value(held) == (97 if sees_held else None)
    assert value(hand) == (98 if sees_hand else None)
    assert mentions(root, 97) == sees_held
    assert mentions(root, 98) == sees_hand
    assert len([el for el in cards(root).values() if kind(el) == "gap"]) == 1


def test_bad_arguments_are_refused() -> None:
    state = new_game(3, seed=1)
    with pytest.raises(ValueError, match="viewer"):
        render_svg(state, viewer=3)
    with pytest.raises(ValueError, match="reveal"):
        render_svg(state, viewer=0, reveal=True)
    with pytest.raises(ValueError, match="seat 3"):
        render_svg(state, highlight=[Pos(3, 0, 0)])


# ------------------------------------------------------------------ drawing


def test_highlighted_cells_are_marked() -> None:
    state = odd_game()
    marked = {Pos(0, 1, 2), Pos(2, 0, 3), Pos(1, 2, 1)}
    root = parse(render_svg(state, highlight=marked))
    found = cards(root)
    assert {pos for pos, el in found.items() if "highlighted" in classes(el)} == marked
    for pos in marked:
        assert [r for r in found[pos] if "highlight" in classes(r)]
    assert len(groups(root, "highlight")) == 3
    assert not groups(parse(render_svg(state)), "highlight")


def test_card_faces_backs_and_gaps_look_different() -> None:
    root = parse(render_svg(odd_exchange()))
    found = cards(root)
    gap = first_rect(found[Pos(1, 1, 2)])
    back = first_rect(found[Pos(1, 2, 1)])
    assert gap.get("stroke-dasharray") and gap.get("fill") != back.get("fill")
    assert back.get("fill") == "url(#allegra-back)"
    every = game(
        2, {0: ((-1, 0, 1, 2), (3, 4, 5, 6), (7, 8, 9, 10)), 1: ((11,) * 4, (1,) * 4, (2,) * 4)}
    )
    fills: dict[int | None, set[str | None]] = {}
    for el in cards(parse(render_svg(every, reveal=True))).values():
        fills.setdefault(value(el), set()).add(first_rect(el).get("fill"))
    assert set(fills) == set(range(-1, 12))
    assert all(len(f) == 1 for f in fills.values())
    bands = [[-1, 0], [1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11]]
    colours = [{fill for v in band for fill in fills[v]} for band in bands]
    assert all(len(c) == 1 for c in colours)
    assert len(set.union(*colours)) == 4


def test_piles_shown() -> None:
    state = odd_game()
    root = parse(render_svg(state))
    (top,) = groups(root, "discard-pile")
    assert value(top) == state.discard_top == 3
    (count,) = groups(root, "draw-count")
    assert count.text == f"{len(state.draw_pile)} cards"
    assert not groups(root, "held-card")


def test_text_is_escaped() -> None:
    caption = "A <b>bold</b> & \"quoted\" 'caption'"
    root = parse(render_svg(new_game(2, seed=1), caption=caption))
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == f"Allegra, 2 players: {caption}"
    assert caption_text(root) == caption
    assert not root.findall(f".//{SVG}b")


def test_output_is_deterministic(pictures: dict[str, str]) -> None:
    a = render_svg(odd_exchange(), highlight=[Pos(0, 0, 0), Pos(1, 1, 1)], caption="x")
    b = render_svg(odd_exchange(), highlight=[Pos(1, 1, 1), Pos(0, 0, 0)], caption="x")
    assert a == b
    assert render_svg(new_game(5, seed=9)) == render_svg(new_game(5, seed=9))
    assert render_svg(new_game(5, seed=9)) != render_svg(new_game(5, seed=10))
    assert docs_pictures() == pictures


# ------------------------------------------------------------- doc pictures


def test_docs_picture_names(pictures: dict[str, str]) -> None:
    assert list(pictures) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_docs_picture_is_valid_and_captioned(pictures: dict[str, str], name: str) -> None:
    root = parse(pictures[name])
    n = 4 if name == "table-4p.svg" else 3
    assert len(groups(root, "card")) == 12 * n
    assert len(groups(root, "zone-band")) == n
    assert len(caption_text(root)) > 60


def by_kind(root: ET.Element, wanted: str) -> set[Pos]:
    return {pos for pos, el in cards(root).items() if kind(el) == wanted}


def highlighted(root: ET.Element) -> set[Pos]:
    return {pos for pos, el in cards(root).items() if "highlighted" in classes(el)}


def test_table_picture(pictures: dict[str, str]) -> None:
    root = parse(pictures["table-4p.svg"])
    assert by_kind(root, "gap") == {Pos(2, r, 1) for r in range(3)}
    assert len(by_kind(root, "face-up")) >= 10
    assert len(by_kind(root, "face-down")) >= 10
    assert value(cards(root)[Pos(0, 1, 3)]) == 8  # seat 3 swapped it into its zone
    caption = caption_text(root)  # the example's caption, in the players' words
    assert "Player 1 to draw" in caption and "at Player 1's row 2, column 4" in caption
    assert root.find(f"{SVG}desc").text.endswith("Player 1 to draw")  # type: ignore[union-attr]
    assert groups(root, "out-of-play")[0].text == "out of play: 3 cards"


def test_knock_pictures(pictures: dict[str, str]) -> None:
    one, two, three, four = (parse(pictures[f"knock-{k}.svg"]) for k in range(1, 5))
    # 1: seat 0 holds the drawn -1; seat 1 knocked.
    assert [value(el) for el in groups(one, "held-card")] == [-1]
    assert not groups(one, "hand-card")
    assert any("Player 2 \u00b7 knocked" in t for t in texts(one))
    assert not by_kind(one, "gap")
    before = cards(one)
    assert value(before[Pos(1, 0, 1)]) == 9 and value(before[Pos(1, 1, 1)]) == 0
    assert value(before[Pos(0, 0, 0)]) == 8
    # 2: the -1 lies at seat 1's (0, 1); the 9 is in seat 1's hand.
    assert highlighted(two) == {Pos(1, 0, 1)}
    assert value(cards(two)[Pos(1, 0, 1)]) == -1
    assert [value(el) for el in groups(two, "hand-card")] == [9]
    assert not groups(two, "held-card")
    # 3: exactly one gap, where the 0 was taken; seat 0 holds the 0.
    assert by_kind(three, "gap") == {Pos(1, 1, 1)} == highlighted(three)
    assert [value(el) for el in groups(three, "held-card")] == [0]
    assert [value(el) for el in groups(three, "hand-card")] == [9]
    # 4: the 0 is at seat 0's (0, 0), the 9 filled the gap, the 8 is discarded.
    after = cards(four)
    assert not by_kind(four, "gap")
    assert value(after[Pos(0, 0, 0)]) == 0 and value(after[Pos(1, 1, 1)]) == 9
    assert highlighted(four) == {Pos(0, 0, 0), Pos(1, 1, 1)}
    assert value(groups(four, "discard-pile")[0]) == 8
    assert not groups(four, "held-card") and not groups(four, "hand-card")
    assert "Player 2 to draw" in four.find(f"{SVG}desc").text  # type: ignore[union-attr, operator]


def test_triple_pictures(pictures: dict[str, str]) -> None:
    before = parse(pictures["triple-cross-zone.svg"])
    after = parse(pictures["triple-after.svg"])
    triple = highlighted(before)
    assert len(triple) == 3
    assert {value(cards(before)[pos]) for pos in triple} == {4}
    assert all(kind(cards(before)[pos]) == "face-up" for pos in triple)
    # One zone row of seat 0 holds all three, the left neighbour's column 3 among them.
    row0 = set(zone_positions(0, 3)[:5])
    assert triple <= row0 and Pos(1, 0, 3) in triple
    assert not by_kind(before, "gap")
    assert by_kind(after, "gap") == triple == highlighted(after)
    assert groups(after, "out-of-play")[0].text == "out of play: 3 cards"
    assert "three face-up 4s" in caption_text(before)


def test_command_writes_every_picture(tmp_path: Path, pictures: dict[str, str]) -> None:
    out = tmp_path / "made" / "here"
    assert main([str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(NAMES)
    for name, text in pictures.items():
        assert (out / name).read_text(encoding="utf-8") == text


def test_command_line_runs_cleanly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "allegra_rules.svg", str(tmp_path / "pics")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr == ""
    assert len(list((tmp_path / "pics").glob("*.svg"))) == len(NAMES)


# ------------------------------------------------- cropping and text options


def font_sizes(root: ET.Element, text: str) -> set[float]:
    return {
        float(el.get("font-size", ""))
        for el in root.iter(f"{SVG}text")
        if el.text is not None and text in el.text
    }


@pytest.mark.parametrize(
    ("n", "seats", "order"),
    [(3, (1, 0), (1, 0)), (3, [0, 1], (1, 0)), (4, (0, 3), (0, 3)), (4, (3, 0, 2), (0, 3, 2))],
)
def test_cropped_drawing_shows_only_those_seats_with_whole_zones(
    n: int, seats: tuple[int, ...], order: tuple[int, ...]
) -> None:
    root = parse(render_svg(new_game(n, seed=1), seats=seats))
    found = cards(root)
    assert {pos.player for pos in found} == set(order)
    assert len(found) == 12 * len(order)
    # Drawn left to right in the given order: the first seat's grid is leftmost.
    left_edges = {
        p: min(float(first_rect(el).get("x", "")) for pos, el in found.items() if pos.player == p)
        for p in order
    }
    assert sorted(order, key=left_edges.__getitem__) == list(order)
    # The column 3 of the first seat's left neighbour closes its zone at the far left.
    ghosts = groups(root, "ghost")
    assert {(int(g.get("data-seat", "")), int(g.get("data-col", ""))) for g in ghosts} == {
        ((order[0] + 1) % n, 3)
    }
    assert len(ghosts) == 3
    assert sorted(int(b.get("data-zone", "")) for b in groups(root, "zone-band")) == sorted(order)
    assert not groups(root, "wrap-marker")


def test_every_seat_cropped_is_the_whole_table() -> None:
    state = new_game(3, seed=4)
    assert render_svg(state, seats=(0, 1, 2)) == render_svg(state)
    assert groups(parse(render_svg(state)), "wrap-marker")


def test_a_cropped_drawing_never_shows_a_hidden_value() -> None:
    root = parse(render_svg(odd_exchange(), seats=(1, 0), viewer=0))
    assert not mentions(root, 98)  # seat 1's replaced card, face down: only seat 1 saw it
    assert mentions(root, 97)  # the card seat 0 took face down: seat 0 saw it
    ghost_values = {g.get("data-value") for g in groups(root, "ghost")}
    assert ghost_values <= {None}  # seat 2's column 3 lies face down


def test_cropping_drops_cards_held_by_seats_not_drawn() -> None:
    state = odd_exchange()  # seat 0 holds the taken 97, seat 1 has the 98 in hand
    only_zero = parse(render_svg(state, seats=(0,), reveal=True))
    assert [value(el) for el in groups(only_zero, "held-card")] == [97]
    assert not groups(only_zero, "hand-card")
    both = parse(render_svg(state, seats=(1, 0), reveal=True))
    assert groups(both, "held-card") and groups(both, "hand-card")


def test_a_ghost_cell_can_be_highlighted_in_a_crop_but_not_an_undrawn_one() -> None:
    state = new_game(3, seed=2)
    root = parse(render_svg(state, seats=(1, 0), highlight=[Pos(2, 1, 3)]))
    (marked,) = [g for g in groups(root, "ghost") if "highlighted" in classes(g)]
    assert marked.get("data-row") == "1"
    with pytest.raises(ValueError, match="not drawn"):
        render_svg(state, seats=(1, 0), highlight=[Pos(2, 1, 2)])


@pytest.mark.parametrize(
    "seats",
    [(), (0, 2), (0, 0), (5,), (-1,), ("0",), (True,), "01", 0, (1, 3)],
)
def test_bad_seat_crops_are_refused(seats: object) -> None:
    with pytest.raises(ValueError, match="seats"):
        render_svg(new_game(4, seed=1), seats=seats)  # type: ignore[arg-type]


def test_seat_names_label_the_grids_and_the_notes() -> None:
    names = ["Ada", "Ben", "Cleo"]
    root = parse(render_svg(odd_exchange(), seat_names=names, status=False, legend=False))
    shown = [el.text or "" for el in root.iter(f"{SVG}text")]
    assert "\u25b6 Ada (drawer)" in shown
    assert "Ben \u00b7 knocked" in shown
    assert "Cleo" in shown
    assert "taken from Ben" in shown
    assert not any("seat" in t for t in shown)  # (the status line would name seats)
    notes = [t for t in shown if t.startswith(("Ada:", "Ben:", "Cleo:"))]
    assert len(notes) == 3
    for bad in (["Ada", "Ben"], ["Ada", "", "Cleo"], "ABC", [1, 2, 3]):
        with pytest.raises(ValueError, match="seat_names"):
            render_svg(odd_exchange(), seat_names=bad)  # type: ignore[arg-type]


def test_status_legend_piles_and_zone_sums_can_be_left_out() -> None:
    state = odd_game()
    full = parse(render_svg(state, caption="Setup done"))
    assert groups(full, "status") and groups(full, "legend") and groups(full, "caption")
    assert groups(full, "discard-pile") and groups(full, "zone-bracket")
    bare = parse(render_svg(state, status=False, legend=False, piles=False, zone_sums=False))
    for cls in ("status", "legend", "caption", "discard-pile", "draw-pile", "zone-bracket"):
        assert not groups(bare, cls), cls
    assert len(groups(bare, "card")) == 36
    # What the game waits for is still in the title and the description.
    status = full.find(f"{SVG}desc").text  # type: ignore[union-attr]
    assert bare.find(f"{SVG}desc").text == status  # type: ignore[union-attr]
    assert float(bare.get("width", "")) < float(full.get("width", ""))
    assert float(bare.get("height", "")) < float(full.get("height", ""))
    for flag in ("status", "legend", "piles", "zone_sums", "reveal"):
        with pytest.raises(ValueError, match=flag):
            render_svg(state, **{flag: 1})  # type: ignore[arg-type]


def test_the_picture_counts_rows_and_columns_from_one() -> None:
    root = parse(render_svg(odd_exchange()))
    labels = [t for t in texts(root) if t.strip()]
    assert not any(re.fullmatch(r"[crsCRSLkmP]\d( [cCSk]\d)?", t) for t in labels), labels
    # Column labels 1-4 above each seat's grid, row labels 1-3, seats counted from one.
    assert {"1", "2", "3", "4"} <= set(labels) and "Player 1" in " ".join(labels)
    german = parse(render_svg(odd_exchange(), labels="de"))
    assert any(t.startswith("Spieler 1") for t in texts(german))


@pytest.mark.parametrize("scale", [0.5, 1.4, 2, 3.0])
def test_text_scale_scales_the_texts_not_the_cards(scale: float) -> None:
    state = odd_exchange()
    plain = parse(render_svg(state, caption="c"))
    big = parse(render_svg(state, caption="c", text_scale=scale))
    assert font_sizes(big, "Player 3") == {round(15 * scale, 1)}
    assert font_sizes(big, "Player 1") == {round(15 * scale, 1), round(10 * scale, 1)}
    captions = {float(el.get("font-size", "")) for el in groups(big, "caption")}
    assert captions == {round(14 * scale, 1)}
    for pos, el in cards(plain).items():
        assert first_rect(cards(big)[pos]).get("width") == first_rect(el).get("width")
    # The grid starts lower with bigger labels, but no text runs off the picture.
    height = float(big.get("height", ""))
    assert all(0 < float(el.get("y", "")) < height for el in big.iter(f"{SVG}text"))


@pytest.mark.parametrize("scale", [0.49, 3.01, "1", True, None])
def test_text_scale_out_of_range_is_refused(scale: object) -> None:
    with pytest.raises(ValueError, match="text_scale"):
        render_svg(new_game(2, seed=1), text_scale=scale)  # type: ignore[arg-type]


def test_the_picture_shows_itself_in_a_notebook() -> None:
    state = odd_game()
    picture = render_svg(state)
    assert isinstance(picture, str)
    svg = picture._repr_svg_()  # what Jupyter shows for a cell ending in render_svg(state)
    assert svg.startswith("<svg ") and svg.endswith("</svg>\n")
    assert "<?xml" not in svg
    assert picture.endswith(svg)
    # The state no longer draws itself: it would import the picture, a layer above it.
    assert not hasattr(state, "_repr_svg_")
    root = parse(svg)
    assert len(groups(root, "card")) == 36
    assert not mentions(root, 97)


def test_huge_or_endless_seat_arguments_are_refused_without_reading_them() -> None:
    # A thorough bad-input run once grew to 24 GB reading a huge sequence of seat names.
    import itertools

    state = new_game(3, seed=1)
    for kwargs in (
        {"seats": itertools.count()},
        {"seats": range(10**18)},
        {"seat_names": range(10**30)},
        {"seat_names": ["Ada"] * 10**6},
    ):
        with pytest.raises(ValueError, match="more"):
            render_svg(state, **kwargs)  # type: ignore[arg-type]


# ------------------------------------------------------------ the stacked layout


def test_the_stacked_picture_draws_each_zone_in_a_block_the_first_seat_on_top() -> None:
    from allegra_rules.svg_layout import render_svg_stacked

    state = new_game(3, seed=1)
    wide = parse(render_svg(state, status=False, legend=False))
    stacked = render_svg_stacked(state, first=1, highlight=[Pos(2, 0, 3)], zone_sums=True)
    root = parse(stacked)
    blocks = groups(root, "seat-block")
    assert [b.get("data-seat") for b in blocks] == ["1", "2", "0"]  # first, then in play order
    # Every cell once in its own block, and the left neighbour's column 3 again, faded.
    assert cards(root).keys() == cards(wide).keys()
    for block in blocks:
        seat = int(block.get("data-seat", ""))
        (ghost,) = {g.get("data-seat") for g in groups(block, "ghost")}
        assert ghost == str((seat + 1) % 3)
        assert len(groups(block, "zone-band")) == len(groups(block, "zone-bracket")) == 1
    # A highlighted column 3 is outlined in both its places: its grid and its zone's block.
    assert len(groups(root, "highlighted")) == 2
    width = float(root.get("viewBox", "").split()[2])
    assert width < 360 < float(wide.get("viewBox", "").split()[2])
    assert render_svg_stacked(state, first=1, highlight=[Pos(2, 0, 3)], zone_sums=True) == stacked


def test_the_stacked_picture_refuses_a_first_seat_that_is_not_drawn() -> None:
    from allegra_rules.svg_layout import render_svg_stacked

    with pytest.raises(ValueError, match="first"):
        render_svg_stacked(new_game(3, seed=1), seats=(1, 0), first=2)
    with pytest.raises(ValueError, match="seats"):
        render_svg_stacked(new_game(3, seed=1), seats=(2, 0, 5))


def test_the_table_picture_names_bot_seats_as_the_badges_do() -> None:
    import json

    from allegra_rules.browser_table import BrowserTable
    from allegra_rules.table_view import picture_names, seat_document
    from allegra_rules.wording import seat_name

    state = new_game(4, seed=3)
    bots = {1: "greedy", 2: "greedy", 3: "search-easy"}
    for lang in ("en", "de", "pl", "fr"):
        for viewer in (0, None):
            names = picture_names(4, viewer, lang, bots)
            assert names == [seat_name(p, viewer, bots=bots, lang=lang) for p in range(4)]
            picture = seat_document(
                state, viewer, version=0, moves=[], svg=True, lang=lang, bots=bots
            )["svg"]
            for name in names:
                assert f">{name}<" in picture, (lang, name)
    en = picture_names(4, 0, "en", bots)
    assert en == ["You", "Greedy bot 2", "Greedy bot 3", "Search bot"]
    picture = seat_document(state, 0, version=0, moves=[], svg=True, bots=bots)["svg"]
    assert ">Player 2<" not in picture and ">Player 4<" not in picture
    # The play page's table: its bots are named in its picture too.
    table = BrowserTable.create(
        json.dumps({"players": 3, "preset": "seeds", "bots": {"1": "greedy", "2": "search-easy"}})
    )
    shown = json.loads(table.view_json("de"))["svg"]
    assert ">Gier-Bot<" in shown and ">Such-Bot<" in shown and ">Spieler 2<" not in shown


def test_the_example_pictures_speak_the_players_words(pictures: dict[str, str]) -> None:
    # What the example pictures show a reader (caption, status line, labels) names seats
    # "Player N" and cells "row R, column C", counted from one (the zones' labels too):
    # never "seat 0", "(1, 3)" or "zone 0" (the API's numbers).
    for name, text in pictures.items():
        root = parse(text)
        shown = " ".join(texts(root))
        assert shown.strip(), name
        found = re.findall(r"\b[Ss]eats? \d|\(\d, \d\)|\b(?:zone|column|row) 0\b", shown)
        assert not found, (name, found)
    assert "Player 2's row 2, column 2" in caption_text(parse(pictures["knock-3.svg"]))


@pytest.mark.parametrize("lang", ["en", "de", "pl", "fr"])
@pytest.mark.parametrize("n", [2, 3, 6])
def test_the_note_beside_the_wrapping_column_stays_inside_the_picture(lang: str, n: int) -> None:
    """However long the last seat's name, its "also in ...'s zone" note is not cut off."""
    from allegra_rules.svg_positions import WRAP_NOTE_SIZE, text_width

    names = [f"Player {p + 1}" for p in range(n - 1)] + ["Greedy bot with a long name"]
    root = parse(render_svg(new_game(n, seed=1), seat_names=names, labels=lang))
    width = float(root.get("viewBox", "0 0 0 0").split()[2])
    notes = [el for el in root.iter(f"{SVG}text") if "wrap-note" in (el.get("class") or "")]
    assert len(notes) == 3 and any(names[-1] in (el.text or "") for el in notes)
    for el in notes:
        right = float(el.get("x", "0")) + text_width(el.text or "", WRAP_NOTE_SIZE)
        assert right <= width, (el.text, right, width)
