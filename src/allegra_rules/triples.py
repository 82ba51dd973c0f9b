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

from collections.abc import Iterable

from allegra_rules.config import RuleConfig


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
