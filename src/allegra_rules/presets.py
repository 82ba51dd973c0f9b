"""Named, versioned rule presets. A released preset version never changes.

``preset("fr")`` is the newest version of ``fr``; ``preset("fr@1")`` pins version 1.
A changed reading is released as a new version; old versions stay loadable so that
saved games replay under the rules they were played with.
"""

from __future__ import annotations

import re

from allegra_rules.config import RuleConfig

_VERSION = re.compile(r"[1-9][0-9]*", re.ASCII)

_SEEDS_1 = RuleConfig()

PRESETS: dict[str, tuple[RuleConfig, ...]] = {
    # The majority or literal reading of the three texts; where all are silent, what
    # Golf players expect.
    "seeds": (_SEEDS_1,),
    # German text read literally: its differences (A4, A11) are fixed readings.
    "de": (_SEEDS_1,),
    # Polish text read literally: no option differs from seeds.
    "pl": (_SEEDS_1,),
    # French text read literally: the discard-pile card may be thrown back (A9) and
    # removed triples go to the discard pile (A20).
    "fr": (RuleConfig(discard_draw="may_discard", removed_cards="discard"),),
    # The published game as reviews describe it: only positive sums are doubled (A28)
    # and knocking needs three or more players (A12).
    "published": (RuleConfig(double_nonpositive="no", knocking="three_or_more"),),
}
"""Every released version of every preset: ``PRESETS[name][version - 1]``."""


def preset_names() -> tuple[str, ...]:
    """The names of all presets."""
    return tuple(PRESETS)


def _parse(name: str) -> tuple[str, int]:
    if not isinstance(name, str):
        shown = repr(name)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ValueError(f"preset name must be a str; got {shown} ({type(name).__name__})")
    base, sep, version_text = name.partition("@")
    if base not in PRESETS:
        shown = repr(name) if len(name) <= 60 else repr(name[:57]) + "..."
        raise ValueError(
            f"unknown preset {shown}; known presets: {', '.join(PRESETS)} "
            "(optionally pinned as name@version)"
        )
    versions = PRESETS[base]
    if not sep:
        return base, len(versions)
    # ASCII digits without leading zeros: "fr@1", never "fr@01" or "fr@\u0661".
    if (
        len(version_text) > 6
        or not _VERSION.fullmatch(version_text)
        or not 1 <= int(version_text) <= len(versions)
    ):
        shown = repr(version_text) if len(version_text) <= 20 else repr(version_text[:17]) + "..."
        raise ValueError(
            f"unknown version {shown} of preset {base!r}: a version is written in ASCII "
            f"digits without leading zeros; released versions are 1..{len(versions)}"
        )
    return base, int(version_text)


def preset(name: str) -> RuleConfig:
    """The config of preset ``name`` (``"fr"``) or of a pinned version (``"fr@1"``).

    Examples:
        >>> preset("fr@1").discard_draw
        'may_discard'
        >>> preset("seeds") == RuleConfig()
        True
    """
    base, version = _parse(name)
    return PRESETS[base][version - 1]


def preset_id(name: str) -> str:
    """The pinned id of a preset name: ``preset_id("fr") == "fr@1"`` today."""
    base, version = _parse(name)
    return f"{base}@{version}"


def preset_ids() -> tuple[str, ...]:
    """Every released preset version as ``name@version``."""
    return tuple(
        f"{name}@{v}" for name, versions in PRESETS.items() for v in range(1, len(versions) + 1)
    )
