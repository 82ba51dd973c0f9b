"""Triples: three or more equal face-up cards in a line are removed (A18, A19, A21).

A line is a zone row (5 cells: the left neighbour's column-3 cell and the own row) or
a grid column (3 cells). Only face-up cards count. With ``row_match="anywhere"`` any
three or more equal cards of a line form a triple and all cards of that value in the
line go; with ``"adjacent"`` a run of three or more equal cards side by side goes (a
gap or a face-down card breaks a run). In a 3-cell column both readings agree.
Removing cards only makes gaps, and gaps never complete a line, so one pass finds
everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from itertools import compress
from operator import and_, eq, itemgetter
from typing import Any

from allegra_rules.config import RuleConfig
from allegra_rules.geometry import CELLS_PER_SEAT, Geometry, geometry

_LineReader = tuple[tuple[int, ...], Callable[[tuple[int | None, ...]], tuple[int | None, ...]]]


@cache
def _lines_through(geo: Geometry) -> tuple[tuple[_LineReader, ...], ...]:
    """Per cell, each line through it with a function reading that line's values."""
    return tuple(tuple((line, itemgetter(*line)) for line in lines) for lines in geo.lines_through)


def _anywhere(line: tuple[int, ...], cells: tuple[int | None, ...], face_down: int) -> list[int]:
    seen: dict[int, list[int]] = {}
    for i in line:
        v = cells[i]
        if v is not None and not (face_down >> i) & 1:
            seen.setdefault(v, []).append(i)
    out: list[int] = []
    for where in seen.values():
        if len(where) >= 3:
            out.extend(where)
    return out


def _adjacent(line: tuple[int, ...], cells: tuple[int | None, ...], face_down: int) -> list[int]:
    out: list[int] = []
    run: list[int] = []
    run_value: int | None = None
    for i in line:
        v = cells[i]
        if v is None or (face_down >> i) & 1:
            v = None
        if v is not None and v == run_value:
            run.append(i)
            continue
        if len(run) >= 3:
            out.extend(run)
        run = [i] if v is not None else []
        run_value = v
    if len(run) >= 3:
        out.extend(run)
    return out


def find_triples(
    config: RuleConfig,
    cells: tuple[int | None, ...],
    face_down: int,
    lines: Iterable[tuple[int, ...]],
) -> list[int]:
    """The sorted flat indices of every card in a triple on the given lines."""
    match = _anywhere if config.row_match == "anywhere" else _adjacent
    found: set[int] = set()
    for line in lines:
        found.update(match(line, cells, face_down))
    return sorted(found)


@cache
def _line_tables(
    num_players: int,
) -> tuple[
    tuple[itemgetter[Any], itemgetter[Any], itemgetter[Any]],
    tuple[tuple[int, ...], ...],
    tuple[tuple[itemgetter[Any], tuple[int, ...]], ...],
]:
    """The table's lines, ready for a quick look.

    Readers of every column's top, middle and bottom cells (one value per column each), the
    columns, and per zone row a reader and the row.
    """
    lines = geometry(num_players).lines
    columns = tuple(line for line in lines if len(line) == 3)
    rows = tuple((itemgetter(*line), line) for line in lines if len(line) != 3)
    top, middle, bottom = (itemgetter(*cells) for cells in zip(*columns, strict=True))
    return (top, middle, bottom), columns, rows


def table_triples(config: RuleConfig, cells: tuple[int | None, ...], face_down: int) -> list[int]:
    """Every triple on the whole table: ``find_triples`` over every line, faster.

    A line can hold a triple only if three of its cards have one value, face up or not. The
    columns are compared element by element (all columns at once, at C speed); each zone
    row's cards are read at C speed. Only the lines that pass are looked at closely.
    """
    (top, middle, bottom), columns, rows = _line_tables(len(cells) // CELLS_PER_SEAT)
    mid = middle(cells)
    same = map(and_, map(eq, top(cells), mid), map(eq, mid, bottom(cells)))
    lines = [line for line in compress(columns, same) if cells[line[0]] is not None]
    lines += [line for read, line in rows if len(set(read(cells))) <= len(line) - 2]
    return find_triples(config, cells, face_down, lines) if lines else []


def new_triples(
    config: RuleConfig,
    geo: Geometry,
    cells: tuple[int | None, ...],
    face_down: int,
    touched: Iterable[int],
) -> list[int]:
    """The sorted indices of every triple through a ``touched`` cell.

    When no triple was on the table before, every new triple holds a touched cell and has that
    cell's value, so only lines through touched cells and only that value are looked at. Gives the
    same cells as [`find_triples`][allegra_rules.triples.find_triples] over those lines.
    """
    adjacent = config.row_match == "adjacent"
    lines_through = _lines_through(geo)
    found: set[int] = set()
    for i in touched:
        v = cells[i]
        if v is None or (face_down >> i) & 1:
            continue
        for line, read in lines_through[i]:
            if read(cells).count(v) < 3:
                # Fewer than three cards of this value in the line, face up or down.
                continue
            if adjacent:
                k = line.index(i)
                lo = k
                while lo > 0 and cells[j := line[lo - 1]] == v and not (face_down >> j) & 1:
                    lo -= 1
                hi = k
                last = len(line) - 1
                while hi < last and cells[j := line[hi + 1]] == v and not (face_down >> j) & 1:
                    hi += 1
                if hi - lo >= 2:
                    found.update(line[lo : hi + 1])
            else:
                same = [j for j in line if cells[j] == v and not (face_down >> j) & 1]
                if len(same) >= 3:
                    found.update(same)
    return sorted(found)
