"""An OpenSpiel Python game ``python_allegra`` (needs the ``openspiel`` extra).

Importing this module registers the game::

    import pyspiel
    import allegra_rules.adapters.openspiel  # registers "python_allegra"

    game = pyspiel.load_game("python_allegra", {"players": 2, "preset": "seeds"})

Parameters (all optional):

- ``players`` (int, default 2): seats, 2 to 6 with the default deck.
- ``preset`` (str, default ``"seeds"``): a preset name for :func:`allegra_rules.preset`.
- ``seed`` (int, default 0): the seed of every shuffle of the game.
- ``max_turns_per_round`` (int, default 0): when positive, overrides the preset's turn
  cap; small values keep searches such as MCTS fast.

Modelling choices:

- The deal is not a chance node: the shuffle is fixed by the ``seed`` parameter, so
  the game is declared ``DETERMINISTIC``. The players still do not see the cards
  (``IMPERFECT_INFORMATION``): observations and information states come only from
  :func:`allegra_rules.observe`. Algorithms that read the full state (``clone``,
  MCTS with rollouts) see the seeded deal; use a fresh ``seed`` per game.
- Actions are the ids of :mod:`allegra_rules.encoding`.
- Returns are given only at the end (``TERMINAL`` rewards): each player's return is
  minus its final total (lower totals win Allegra). The game is ``GENERAL_SUM``.
  ``min_utility`` / ``max_utility`` are true bounds: a round score is at most twice
  the sum of the 15 highest cards of the deck and at least twice the sum of the 15
  lowest (when negative), over three rounds.
- ``max_game_length``: per round ``2 n`` setup reveals plus at most
  ``max_turns_per_round`` turns of at most ``n + 4`` actions each (draw, ``n - 1``
  knock answers, then the longest exchange: give, knocker swap, take, swap).
- Observation string: :meth:`PlayerView.to_json` of ``observe(state, player)``.
  Observation tensor: :func:`allegra_rules.adapters.features.view_features` of the
  same view. Information-state string (perfect recall): the observation string
  followed by the action history; every Allegra action is a public move, so the
  history adds nothing hidden.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from allegra_rules.adapters.features import feature_size, view_features
from allegra_rules.config import RuleConfig
from allegra_rules.encoding import action_from_id, legal_action_ids, num_distinct_actions
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.presets import preset
from allegra_rules.render import render_table
from allegra_rules.state import GameState
from allegra_rules.transitions import ROUNDS, apply, new_game
from allegra_rules.views import observe

__all__ = ["GAME_TYPE", "AllegraGame", "AllegraObserver", "AllegraState", "game_config"]

_DEFAULT_PARAMS: dict[str, Any] = {
    "players": 2,
    "preset": "seeds",
    "seed": 0,
    "max_turns_per_round": 0,
}

GAME_TYPE = pyspiel.GameType(
    short_name="python_allegra",
    long_name="Python Allegra",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)
"""The registered game type of ``python_allegra``."""


def game_config(params: dict[str, Any]) -> RuleConfig:
    """The :class:`~allegra_rules.RuleConfig` that game parameters ``params`` select."""
    config = preset(str(params.get("preset", _DEFAULT_PARAMS["preset"])))
    cap = int(params.get("max_turns_per_round", 0))
    if cap > 0:
        config = RuleConfig.from_dict({**config.to_dict(), "max_turns_per_round": cap})
    return config


def _utility_bounds(config: RuleConfig) -> tuple[float, float]:
    cards = config.deck_cards()
    zone = 3 * (CELLS_PER_SEAT // 3 + 1)  # 15 cells per zone
    high = max(0, sum(cards[-zone:]))
    low = min(0, sum(cards[:zone]))
    return -float(2 * high * ROUNDS), -float(2 * low * ROUNDS)


class AllegraGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; build it with ``pyspiel.load_game("python_allegra", ...)``.

    Args:
        params: game parameters (see the module docs); missing ones take defaults.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        n = int(params["players"])
        self.config = game_config(params)
        self.seed = int(params["seed"])
        new_game(n, config=self.config, seed=self.seed)  # fail early on a bad table
        low, high = _utility_bounds(self.config)
        length = ROUNDS * (2 * n + self.config.max_turns_per_round * (n + 4))
        info = pyspiel.GameInfo(
            num_distinct_actions=num_distinct_actions(n),
            max_chance_outcomes=0,
            num_players=n,
            min_utility=low,
            max_utility=high,
            max_game_length=length,
        )
        super().__init__(GAME_TYPE, info, params)
        self.num_seats = n

    def new_initial_state(self) -> AllegraState:
        """The dealt game (seeded by the ``seed`` parameter)."""
        return AllegraState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> AllegraObserver:
        """An observer for observation or information-state strings and tensors."""
        return AllegraObserver(self.num_seats, iig_obs_type)


class AllegraState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_allegra``: wraps an immutable :class:`~allegra_rules.GameState`.

    Args:
        game: the :class:`AllegraGame` this state belongs to.
    """

    def __init__(self, game: AllegraGame) -> None:
        super().__init__(game)
        self.engine_state: GameState = new_game(game.num_seats, config=game.config, seed=game.seed)
        self.num_seats: int = game.num_seats

    def current_player(self) -> int:
        """The seat to act, or ``pyspiel.PlayerId.TERMINAL``."""
        player = self.engine_state.current_player
        return int(pyspiel.PlayerId.TERMINAL) if player is None else player

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.engine_state.current_player:
            return []
        return sorted(legal_action_ids(self.engine_state))

    def _apply_action(self, action: int) -> None:
        self.engine_state = apply(self.engine_state, action_from_id(int(action), self.num_seats))

    def _action_to_string(self, player: int, action: int) -> str:
        act = action_from_id(int(action), self.num_seats)
        return f"p{player}: {act!r}"

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.engine_state.is_terminal

    def returns(self) -> list[float]:
        """Minus each player's total once the game is over, else zeros."""
        if not self.engine_state.is_terminal:
            return [0.0] * self.num_seats
        return [-float(t) for t in self.engine_state.totals]

    def __str__(self) -> str:
        return render_table(self.engine_state, legend=False)


class AllegraObserver:
    """Observation and information-state strings and tensors from :func:`observe`.

    Args:
        num_players: seats of the game.
        iig_obs_type: ``pyspiel.IIGObservationType`` or ``None`` (the default
            observation); with ``perfect_recall`` the string also lists the public
            action history (the information state).
    """

    def __init__(self, num_players: int, iig_obs_type: Any = None) -> None:
        self.num_players = num_players
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(feature_size(num_players), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: AllegraState, player: int) -> None:
        """Fill ``self.tensor`` with ``player``'s view of ``state``."""
        self.tensor[:] = view_features(observe(state.engine_state, player))

    def string_from(self, state: AllegraState, player: int) -> str:
        """``player``'s view as JSON; with perfect recall, plus the action history."""
        text = observe(state.engine_state, player).to_json()
        if self.perfect_recall:
            history = " ".join(str(a) for a in state.history())
            text = f"{text}\nhistory: {history}"
        return text


pyspiel.register_game(GAME_TYPE, AllegraGame)
