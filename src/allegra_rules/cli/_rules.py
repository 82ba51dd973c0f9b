"""``allegra-rules rules``: the rule options and the released presets, as tables."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from typing import Any

import attrs

from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset, preset_ids

_NUMBERS = {"min_players": 2, "max_players": 1, "max_turns_per_round": 1}
"""The int options and their smallest allowed value."""


def _kind(name: str) -> str:
    if name == "deck":
        return "deck"
    return "int" if name in _NUMBERS else "choice"


def _value_text(name: str, value: Any) -> str:
    if name == "deck":
        cards = [card for card, _ in value]
        size = sum(copies for _, copies in value)
        return f"{size} cards, {min(cards)}..{max(cards)}"
    return str(value)


def _json_value(name: str, value: Any) -> Any:
    if name == "deck":
        return {str(card): copies for card, copies in value}
    return value


def _allowed_text(field: attrs.Attribute[Any]) -> str:
    choices = field.metadata.get("choices")
    if choices:
        return " | ".join(choices)
    if field.name == "deck":
        return "value:copies pairs"
    return f"int >= {_NUMBERS[field.name]}"


def _differences(config: RuleConfig, base: RuleConfig) -> dict[str, Any]:
    return {
        name: _json_value(name, ours)
        for name, (ours, _) in config.options_differing_from(base).items()
    }


def _difference_text(config: RuleConfig, base: RuleConfig) -> str:
    differ = config.options_differing_from(base)
    if not differ:
        return "(nothing)"
    return ", ".join(f"{name}={_value_text(name, ours)}" for name, (ours, _) in differ.items())


def _presets(pinned: str | None) -> list[str]:
    return [pinned] if pinned is not None else list(preset_ids())


def rules_data(pinned: str | None = None) -> dict[str, Any]:
    """The options and presets as JSON data (``allegra-rules rules --json``).

    Args:
        pinned: a pinned preset id such as ``"fr@1"``: every option also gets its
            ``value`` under that preset, and only that preset is listed.

    Returns:
        ``{"options": [...], "presets": [...]}`` (and ``"preset"`` when pinned).
    """
    base = RuleConfig()
    chosen = preset(pinned) if pinned is not None else None
    options = []
    for field in attrs.fields(RuleConfig):
        name = field.name
        entry: dict[str, Any] = {
            "name": name,
            "ambiguity": field.metadata["ambiguity"],
            "type": _kind(name),
            "choices": list(field.metadata["choices"]) if "choices" in field.metadata else None,
            "minimum": _NUMBERS.get(name),
            "default": _json_value(name, getattr(base, name)),
            "doc": field.metadata["doc"],
        }
        if chosen is not None:
            entry["value"] = _json_value(name, getattr(chosen, name))
        options.append(entry)
    presets = [
        {
            "id": pid,
            "fingerprint": preset(pid).fingerprint,
            "differs_from_seeds": _differences(preset(pid), base),
        }
        for pid in _presets(pinned)
    ]
    data: dict[str, Any] = {"options": options, "presets": presets}
    if pinned is not None:
        data["preset"] = pinned
    return data


def table_lines(
    header: Sequence[str], rows: Sequence[Sequence[str]], width: int, min_last: int = 36
) -> list[str]:
    r"""A plain-text table whose last column is wrapped to fit ``width`` characters.

    When fewer than ``min_last`` characters are left for the last column, each
    row's last cell goes under the row instead, indented by four spaces.

    Examples:
        >>> print("\n".join(table_lines(["a", "b"], [["x", "one two three"]], 12, 5)))
        a  b
        -  -------
        x  one two
           three
        >>> print("\n".join(table_lines(["a", "b"], [["x", "one two three"]], 12)))
        a
            b
        -
        x
            one two three
    """
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    indent = sum(widths) + 2 * len(widths)

    def line(cells: Sequence[str], tail: str) -> str:
        lead = "".join(cell.ljust(w) + "  " for cell, w in zip(cells, widths, strict=False))
        return (lead + tail).rstrip()

    room = width - indent
    if room < min_last:
        out = [line(header[:-1], ""), "    " + header[-1]]
        out.append(line(["-" * w for w in widths], ""))
        for row in rows:
            out.append(line(row[:-1], ""))
            out += ["    " + part for part in textwrap.wrap(row[-1], max(20, width - 4))]
        return out
    last = [textwrap.wrap(row[-1], room) or [""] for row in rows]
    last_width = max([len(header[-1]), *(len(part) for parts in last for part in parts)])
    out = [line(header[:-1], header[-1])]
    out.append(line(["-" * w for w in widths], "-" * last_width))
    for row, parts in zip(rows, last, strict=True):
        out.append(line(row[:-1], parts[0]))
        out += [line([""] * len(widths), part) for part in parts[1:]]
    return out


def rules_text(pinned: str | None = None, width: int | None = None) -> str:
    """The options table and the presets table as plain text.

    Args:
        pinned: a pinned preset id: adds a column with that preset's values (``*``
            marks a value that differs from seeds) and lists only that preset.
        width: the line width to wrap the last column to; ``None`` means the
            terminal's width (``COLUMNS``), 80 when unknown.

    Returns:
        The two tables with their titles, lines joined by newlines.
    """
    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns
    base = RuleConfig()
    chosen = preset(pinned) if pinned is not None else None
    header = ["option", "id", "allowed values", "default"]
    if pinned is not None:
        header.append(pinned)
    header.append("meaning")
    rows = []
    for field in attrs.fields(RuleConfig):
        name = field.name
        default = getattr(base, name)
        row = [name, field.metadata["ambiguity"], _allowed_text(field), _value_text(name, default)]
        if chosen is not None:
            value = getattr(chosen, name)
            mark = "*" if value != default else ""
            row.append(_value_text(name, value) + mark)
        row.append(field.metadata["doc"])
        rows.append(row)
    title = (
        "Rule options: one RuleConfig field per ambiguity of the rule texts (id: see "
        "docs/ambiguities.md); the default is the seeds preset's value."
    )
    if pinned is not None:
        title += f" Column {pinned}: the value under that preset; * marks a difference."
    lines = [*textwrap.wrap(title, width), ""]
    lines += table_lines(header, rows, width)
    presets_title = (
        "Presets: a released version never changes; a bare name (fr) means its newest "
        "version (fr@1)."
    )
    lines += ["", *textwrap.wrap(presets_title, width), ""]
    preset_rows = [
        [pid, preset(pid).fingerprint[:12], _difference_text(preset(pid), base)]
        for pid in _presets(pinned)
    ]
    lines += table_lines(["preset", "fingerprint", "differs from seeds in"], preset_rows, width)
    return "\n".join(lines)
