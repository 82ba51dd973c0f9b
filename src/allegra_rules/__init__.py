"""allegra_rules: the reference rules engine for the card game Allegra.

Examples:
    >>> from allegra_rules import new_game, legal_actions, apply
    >>> state = new_game(3, seed=42)
    >>> while not state.is_terminal:
    ...     state = apply(state, legal_actions(state)[0])
    >>> len(state.round_scores), state.winners != ()
    (3, True)
"""

from typing import TYPE_CHECKING

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
from allegra_rules.config import DEFAULT_DECK, OPTION_CHOICES, RuleConfig
from allegra_rules.geometry import Pos, left, right, zone_positions
from allegra_rules.presets import PRESETS, preset, preset_id, preset_ids, preset_names
from allegra_rules.state import GameState, Phase, RoundEnd
from allegra_rules.transitions import (
    ROUNDS,
    IllegalActionError,
    apply,
    legal_actions,
    new_game,
)

if TYPE_CHECKING:
    from allegra_rules.bots import Bot, GreedyBot, RandomBot
    from allegra_rules.determinize import determinize
    from allegra_rules.encoding import (
        action_from_id,
        action_to_id,
        legal_action_ids,
        legal_action_mask,
        num_distinct_actions,
    )
    from allegra_rules.invariants import InvalidStateError, check_state
    from allegra_rules.policy import PolicyBot
    from allegra_rules.records import GameRecord, preset_id_of, replay, state_digest
    from allegra_rules.render import describe_action, render_table
    from allegra_rules.search import SearchBot
    from allegra_rules.serialize import (
        MAX_DOCUMENT_BYTES,
        SCHEMA_VERSION,
        SCHEMA_VERSIONS,
        SaveFormatError,
        action_from_dict,
        action_from_json,
        action_to_dict,
        action_to_json,
        json_schema,
        schema_version_for,
        state_from_dict,
        state_from_json,
        state_to_dict,
        state_to_json,
    )
    from allegra_rules.svg import render_svg
    from allegra_rules.views import PlayerView, observe


# The names above that are only imported for type checkers are loaded on first use
# (PEP 562), so that ``import allegra_rules`` costs only the rules engine itself.
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Bot", "GreedyBot", "RandomBot"), "bots"),
    "determinize": "determinize",
    **dict.fromkeys(
        (
            "action_from_id",
            "action_to_id",
            "legal_action_ids",
            "legal_action_mask",
            "num_distinct_actions",
        ),
        "encoding",
    ),
    **dict.fromkeys(("InvalidStateError", "check_state"), "invariants"),
    **dict.fromkeys(("GameRecord", "preset_id_of", "replay", "state_digest"), "records"),
    **dict.fromkeys(("describe_action", "render_table"), "render"),
    "SearchBot": "search",
    "PolicyBot": "policy",
    **dict.fromkeys(
        (
            "MAX_DOCUMENT_BYTES",
            "SCHEMA_VERSION",
            "SCHEMA_VERSIONS",
            "SaveFormatError",
            "action_from_dict",
            "action_from_json",
            "action_to_dict",
            "action_to_json",
            "json_schema",
            "schema_version_for",
            "state_from_dict",
            "state_from_json",
            "state_to_dict",
            "state_to_json",
        ),
        "serialize",
    ),
    "render_svg": "svg",
    **dict.fromkeys(("PlayerView", "observe"), "views"),
}

_LAZY_MODULES = frozenset(_LAZY.values())
"""The submodules the package used to import eagerly and now loads on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above instead
    import sys as _sys

    def __getattr__(name: str) -> object:
        from importlib import import_module

        module = _LAZY.get(name)
        if module is None:
            if name in _LAZY_MODULES:  # ``allegra_rules.svg`` without importing it first
                return import_module(f"allegra_rules.{name}")
            raise AttributeError(f"module 'allegra_rules' has no attribute {name!r}")
        value = getattr(import_module(f"allegra_rules.{module}"), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_LAZY})

    def _shadow_free(name: str) -> None:
        """Register the submodule ``name``, to be loaded on first use, under its full name.

        Importing a submodule for the first time makes it an attribute of its package, so
        ``import allegra_rules.determinize`` would hide the function ``determinize``. A
        submodule already in ``sys.modules`` is not set again: registered here (not yet
        executed, see ``importlib.util.LazyLoader``), ``allegra_rules.determinize`` stays
        the function, which ``__getattr__`` loads from it on first use.
        """
        from importlib.util import LazyLoader, find_spec, module_from_spec

        spec = find_spec(f"{__name__}.{name}")
        assert spec is not None and spec.loader is not None
        spec.loader = LazyLoader(spec.loader)
        module = module_from_spec(spec)
        _sys.modules[spec.name] = module
        spec.loader.exec_module(module)

    # Only one submodule is named like one of the package's names.
    for _name in sorted(_LAZY_MODULES & _LAZY.keys()):
        _shadow_free(_name)


__version__ = "0.2.0"

__all__ = [
    "DEFAULT_DECK",
    "MAX_DOCUMENT_BYTES",
    "OPTION_CHOICES",
    "PRESETS",
    "ROUNDS",
    "SCHEMA_VERSION",
    "SCHEMA_VERSIONS",
    "Action",
    "Bot",
    "Discard",
    "DrawDeck",
    "DrawDiscard",
    "GameRecord",
    "GameState",
    "Give",
    "GreedyBot",
    "IllegalActionError",
    "InvalidStateError",
    "Knock",
    "Pass",
    "Phase",
    "PlayerView",
    "PolicyBot",
    "Pos",
    "RandomBot",
    "Reveal",
    "RoundEnd",
    "RuleConfig",
    "SaveFormatError",
    "SearchBot",
    "Swap",
    "Take",
    "__version__",
    "action_from_dict",
    "action_from_id",
    "action_from_json",
    "action_to_dict",
    "action_to_id",
    "action_to_json",
    "apply",
    "check_state",
    "describe_action",
    "determinize",
    "json_schema",
    "left",
    "legal_action_ids",
    "legal_action_mask",
    "legal_actions",
    "new_game",
    "num_distinct_actions",
    "observe",
    "preset",
    "preset_id",
    "preset_id_of",
    "preset_ids",
    "preset_names",
    "render_svg",
    "render_table",
    "replay",
    "right",
    "schema_version_for",
    "state_digest",
    "state_from_dict",
    "state_from_json",
    "state_to_dict",
    "state_to_json",
    "zone_positions",
]
