"""allegra_rules: the reference rules engine for the card game Allegra.

>>> from allegra_rules import new_game, legal_actions, apply
>>> state = new_game(3, seed=42)
>>> while not state.is_terminal:
...     state = apply(state, legal_actions(state)[0])
>>> len(state.round_scores), state.winners != ()
(3, True)
"""

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

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_DECK",
    "OPTION_CHOICES",
    "PRESETS",
    "ROUNDS",
    "Action",
    "Discard",
    "DrawDeck",
    "DrawDiscard",
    "GameState",
    "Give",
    "IllegalActionError",
    "Knock",
    "Pass",
    "Phase",
    "Pos",
    "Reveal",
    "RoundEnd",
    "RuleConfig",
    "Swap",
    "Take",
    "__version__",
    "apply",
    "left",
    "legal_actions",
    "new_game",
    "preset",
    "preset_id",
    "preset_ids",
    "preset_names",
    "right",
    "zone_positions",
]
