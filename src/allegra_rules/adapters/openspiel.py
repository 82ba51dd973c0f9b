"""An OpenSpiel Python game ``python_allegra`` (needs the ``openspiel`` extra).

Importing this module registers the game::

    import pyspiel
    import allegra_rules.adapters.openspiel  # registers "python_allegra"

    game = pyspiel.load_game("python_allegra", {"players": 2, "preset": "seeds"})

Parameters (all optional):

- ``players`` (int, default 2): seats, 2 to 6 with the default deck.
- ``preset`` (str, default ``"seeds"``): a preset name for
  [`allegra_rules.preset`][allegra_rules.presets.preset].
- ``deck`` (str, default ``""``): when given, replaces the preset's deck, written
  ``"value:copies;value:copies;..."`` (for example ``"0:9;1:9;2:8"``, a small deck
  for algorithms that walk the whole tree).
- ``options`` (str, default ``""``): rule options that replace the preset's, written
  ``"option:value;option:value"`` (for example
  ``"setup_reveals:simultaneous;scoring_triples:removed"``).
- ``max_turns_per_round`` (int, default 0): when positive, overrides the config's
  turn cap; small values keep searches fast.
- ``deal`` (str, default ``"chance"``): ``"chance"`` deals through explicit chance
  nodes (below); ``"seeded"`` plays the one deal that ``seed`` shuffles, with no
  chance nodes, to reproduce a game of the engine.
- ``seed`` (str, default ``"0x0"``): the 64-bit seed of ``deal="seeded"``, in decimal
  or ``0x`` hex. It is a string because OpenSpiel's int parameters stop at 2^31 - 1;
  the game string writes it in hex, since OpenSpiel reads a bare number back as an
  int.
- ``rounds`` (int, default 3): the game ends after this many rounds. Allegra has 3;
  1 or 2 is a shortened game for algorithms that walk the whole tree.
- ``returns`` (str, default ``"points"``): ``"points"`` gives each player minus its
  total; ``"scaled"`` maps the total from the game's score bounds onto ``[-1, 1]``
  (+1 for the lowest total possible).

Modelling choices (``deal="chance"``, a *lazy deal*):

- A card holds no value until someone may see it. At that moment a chance node
  picks its value, with the probabilities of the cards nobody has seen (the deck
  minus every card some player has seen): the discard starter of each round, every
  setup and flip reveal, every draw from the draw pile (after a refill, from the
  known refilled cards), a face-down card that a knock exchange moves (the knocker's
  replaced card, seen by the knocker alone; a card the drawer takes, seen by the
  drawer alone), a face-down card swapped out onto the discard pile, and every card
  still face down when a round is scored. A node has at most one outcome per card
  value (13 for the default deck). Dealing the unseen cards one at a time from the
  unseen multiset is the same distribution as shuffling the deck first, because
  nobody's information can tell two unseen cards apart. The engine state inside the
  adapter holds placeholder values for unseen cards; a chance outcome swaps the
  chosen value into place, so the engine's own rules still apply unchanged.
- ``deal="seeded"`` has no chance nodes (``DETERMINISTIC`` in its game type): an
  algorithm that clones the state sees the seeded deal. It exists to replay a game.
- The game is ``IMPERFECT_INFORMATION``, ``GENERAL_SUM`` (lower totals win), with ``TERMINAL``
  returns. ``min_utility`` / ``max_utility`` are true bounds
  ([`allegra_rules.adapters.features.round_score_bounds`][allegra_rules.adapters.features.round_score_bounds]
  per round).
- ``max_game_length`` counts decisions: per round ``2 n`` setup reveals plus at most
  ``max_turns_per_round`` turns of at most ``n + 4`` actions each (draw, ``n - 1``
  knock answers, give, knocker swap, take, swap).
- Observations honour ``pyspiel.IIGObservationType``: public information is what
  every seat knows, read from the public view ``observe(state, None)`` (the same
  string and tensor for every seat); private information
  is what only the observing seat knows (a card it took face down, its replaced
  card); ``ALL_PLAYERS`` shows every such card. Nobody knows a face-down card, so no
  observation ever shows one. With ``perfect_recall`` the string adds the move
  history as that player saw it (a chance outcome seen by one player is ``c?`` for
  the others) and the tensor adds per-seat counts of this round's draws, knocks and
  discards. The tensors are the [`Encoder`][allegra_rules.adapters.features.Encoder]
  parts, seats absolute (origin seat 0), plus a one-hot of the observing seat when
  private information is asked for.
- ``str(state)`` is the whole state as JSON, hidden cards (and, in chance mode, the
  placeholders of unseen cards) included, so serialization checks compare it all.
  ``clone()`` shares the immutable engine state; it copies nothing.
- ``resample_from_infostate(player, sampler)`` keeps everything ``player`` knows and
  draws the rest with [`allegra_rules.determinize`][allegra_rules.determinize] (for ISMCTS).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from typing import Any

import attrs
import numpy as np
import pyspiel

from allegra_rules.actions import Action, DrawDeck, Reveal, Swap, Take, interned_actions
from allegra_rules.adapters.features import Encoder, round_score_bounds
from allegra_rules.config import OPTION_CHOICES, RuleConfig
from allegra_rules.determinize import determinize
from allegra_rules.encoding import (
    action_from_id,
    action_to_id,
    legal_action_ids,
    num_distinct_actions,
)
from allegra_rules.geometry import CELLS_PER_SEAT
from allegra_rules.presets import preset
from allegra_rules.serialize import state_to_dict
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS, _evolve, apply, new_game
from allegra_rules.views import (
    PRIVATE_CARD_FIELDS,
    PlayerView,
    observe,
    private_cards,
    private_namings,
)

__all__ = [
    "GAME_TYPE",
    "AllegraGame",
    "AllegraObserver",
    "AllegraState",
    "game_config",
]

_DEFAULT_PARAMS: dict[str, Any] = {
    "players": 2,
    "preset": "seeds",
    "deck": "",
    "options": "",
    "max_turns_per_round": 0,
    "deal": "chance",
    "seed": "0x0",
    "rounds": ROUNDS,
    "returns": "points",
}


def _game_type(chance_mode: pyspiel.GameType.ChanceMode) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name="python_allegra",
        long_name="Python Allegra",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULT_PARAMS,
    )


GAME_TYPE = _game_type(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)
"""The registered game type of ``python_allegra`` (the default ``deal="chance"``)."""

_SEEDED_TYPE = _game_type(pyspiel.GameType.ChanceMode.DETERMINISTIC)

_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_DRAW = -1
"""Chance slot: the card the drawer is about to draw from the draw pile."""
_STARTER = -2
"""Chance slot: the discard pile's starter card of a freshly dealt round."""
_COUNTED = ("DrawDeck", "DrawDiscard", "Knock", "Pass", "Discard")
"""Action kinds counted per seat and round in the information-state tensor."""
_PRIVATE_PIECES = ("private_held", "private_hand")
"""The ``ALL_PLAYERS`` tensor's one-hot of each private card (``PRIVATE_CARD_FIELDS``, in order)."""
_PRIVATE_LABELS = ("holding", "in hand")
"""How a seat's own private cards read in its observation string, in the same order."""
assert len(_PRIVATE_PIECES) == len(_PRIVATE_LABELS) == len(PRIVATE_CARD_FIELDS)


def game_config(params: dict[str, Any]) -> RuleConfig:
    """The [`RuleConfig`][allegra_rules.config.RuleConfig] that game parameters ``params`` select.

    ``options`` (``"option:value;..."``) replaces string options of the preset,
    ``deck`` (``"value:copies;..."``) its deck; a positive ``max_turns_per_round``
    replaces the turn cap.

    Raises:
        ValueError: an unknown preset, a malformed deck or a bad option value.

    Examples:
        >>> game_config({"deck": "0:9;1:9;2:8", "max_turns_per_round": 2}).deck
        ((0, 9), (1, 9), (2, 8))
    """
    config = preset(str(params.get("preset", "seeds")))
    options = str(params.get("options", "") or "")
    if options:
        changes: dict[str, Any] = {}
        for item in options.split(";"):
            name, sep, value = item.partition(":")
            if not sep or name not in OPTION_CHOICES:
                raise ValueError(
                    f"options must read 'option:value;...' with options of "
                    f"{sorted(OPTION_CHOICES)}; got {options!r}"
                )
            changes[name] = value
        config = attrs.evolve(config, **changes)
    text = str(params.get("deck", "") or "")
    if text:
        pairs = []
        for item in text.split(";"):
            value, sep, copies = item.partition(":")
            try:
                if not sep:
                    raise ValueError
                pairs.append((int(value), int(copies)))
            except ValueError:
                raise ValueError(
                    f"deck must read 'value:copies;value:copies;...'; got {text!r}"
                ) from None
        config = attrs.evolve(config, deck=pairs)
    cap = int(params.get("max_turns_per_round", 0))
    if cap > 0:
        config = attrs.evolve(config, max_turns_per_round=cap)
    return config


def _parse_seed(value: object) -> int:
    if not isinstance(value, str):
        raise ValueError(f"seed must be a string (decimal or 0x hex); got {value!r}")
    try:
        seed = int(value, 16) if value.lower().startswith("0x") else int(value, 10)
    except ValueError:
        raise ValueError(f"seed must be a decimal or 0x hex string; got {value!r}") from None
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must lie in 0..2**64 - 1; got {seed}")
    return seed


@attrs.frozen
class _Setup:
    """What every state of one game shares (immutable; never copied)."""

    config: RuleConfig
    num_players: int
    chance: bool
    rounds: int
    scaled: bool
    values: tuple[int, ...]
    encoder: Encoder = attrs.field(eq=False)
    total_lo: int
    total_hi: int

    def __deepcopy__(self, memo: dict[int, Any]) -> _Setup:
        return self


@attrs.frozen
class _Move:
    """One history entry: a player's action id, or a chance outcome (``player == -1``).

    ``seen_by`` is ``None`` for a public move, else the only seat that saw it.
    """

    player: int
    action: int
    seen_by: int | None = None


class _History:
    """The move history, flat: a list shared along one line of play, and its length here.

    Appending to the newest history of a line extends the shared list in place (the
    older histories keep their lengths); appending to an older one, when a clone plays
    on from an earlier node, copies its moves first. Nothing is nested, so pickling,
    copying and walking a history of any length never recurse.
    """

    __slots__ = ("_moves", "_size")

    def __init__(self, moves: list[_Move] | None = None, size: int | None = None) -> None:
        self._moves = [] if moves is None else moves
        self._size = len(self._moves) if size is None else size

    def __len__(self) -> int:
        return self._size

    def append(self, move: _Move) -> _History:
        """The history with ``move`` after these moves."""
        moves = self._moves
        if len(moves) != self._size:
            moves = moves[: self._size]
        moves.append(move)
        return _History(moves, self._size + 1)

    def moves(self) -> list[_Move]:
        """The moves, oldest first (a new list)."""
        return self._moves[: self._size]

    def __getstate__(self) -> dict[str, Any]:
        return {"moves": self.moves()}

    def __setstate__(self, data: dict[str, Any]) -> None:
        self._moves = list(data["moves"])
        self._size = len(self._moves)


class _Node:
    """Everything an [`AllegraState`][allegra_rules.adapters.openspiel.AllegraState] holds.

    Never changed once built, so clones share it (``outcomes`` only caches what the
    node implies).
    """

    __slots__ = ("counts", "engine", "moves", "outcomes", "over", "pending", "private_to", "queue")

    def __init__(
        self,
        engine: GameState,
        rounds: int,
        pending: int | None = None,
        queue: tuple[int, ...] = (),
        private_to: tuple[int | None, ...] = (),
        moves: _History | None = None,
        counts: tuple[int, ...] = (),
    ) -> None:
        self.engine = engine
        self.over = engine.is_terminal or len(engine.round_scores) >= rounds
        self.pending = pending
        """A player's action id that waits for the chance outcomes of ``queue``."""
        self.queue = queue
        """Places whose card chance decides next: a cell index, ``_DRAW`` or ``_STARTER``."""
        self.private_to = private_to
        """Per ``queue`` entry: the only seat that sees that card, or ``None`` (everyone)."""
        self.moves = _History() if moves is None else moves
        self.counts = counts
        """Per seat and counted action kind, this round (information-state tensor)."""
        self.outcomes: list[tuple[int, float]] | None = None

    def replace(self, rounds: int, **changes: Any) -> _Node:
        """A node like this one with ``changes``."""
        fields: dict[str, Any] = {
            "engine": self.engine,
            "pending": self.pending,
            "queue": self.queue,
            "private_to": self.private_to,
            "moves": self.moves,
            "counts": self.counts,
        }
        fields.update(changes)
        return _Node(rounds=rounds, **fields)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__ if name != "outcomes"}

    def __setstate__(self, data: dict[str, Any]) -> None:
        for name, value in data.items():
            setattr(self, name, value)
        self.outcomes = None


class AllegraGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; build it with ``pyspiel.load_game("python_allegra", ...)``.

    Args:
        params: game parameters (see the module docs); missing ones take defaults.

    Raises:
        ValueError: a parameter that cannot be played (bad seat count, preset,
            config, deal mode, seed, rounds or returns).
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_DEFAULT_PARAMS, **(params or {})}
        n = int(params["players"])
        config = game_config(params)
        deal = str(params["deal"])
        if deal not in ("chance", "seeded"):
            raise ValueError(f"deal must be 'chance' or 'seeded'; got {deal!r}")
        rounds = int(params["rounds"])
        if not 1 <= rounds <= ROUNDS:
            raise ValueError(f"rounds must be 1..{ROUNDS}; got {rounds}")
        kind = str(params["returns"])
        if kind not in ("points", "scaled"):
            raise ValueError(f"returns must be 'points' or 'scaled'; got {kind!r}")
        seed = _parse_seed(params["seed"])
        chance = deal == "chance"
        engine = new_game(n, config=config, seed=seed)
        lo, hi = round_score_bounds(config)
        self._setup = _Setup(
            config=config,
            num_players=n,
            chance=chance,
            rounds=rounds,
            scaled=kind == "scaled",
            values=tuple(v for v, _ in config.deck),
            encoder=Encoder(config, n),
            total_lo=rounds * lo,
            total_hi=rounds * hi,
        )
        counts = (0,) * (len(_COUNTED) * n)
        if chance:
            self._initial = _Node(
                engine, rounds, queue=(_STARTER,), private_to=(None,), counts=counts
            )
        else:
            self._initial = _Node(engine, rounds, counts=counts)
        self.num_seats = n
        self.config = config
        length = rounds * (2 * n + config.max_turns_per_round * (n + 4))
        self._max_chance = rounds * (2 * n + config.max_turns_per_round * 2 + 12 * n + 1)
        if kind == "scaled":
            low, high = -1.0, 1.0
        else:
            low, high = -float(rounds * hi), -float(rounds * lo)
        info = pyspiel.GameInfo(
            num_distinct_actions=num_distinct_actions(n),
            max_chance_outcomes=len(self._setup.values) if chance else 0,
            num_players=n,
            min_utility=low,
            max_utility=high,
            max_game_length=length,
        )
        params["seed"] = hex(seed)  # a bare number would come back as an int
        super().__init__(GAME_TYPE if chance else _SEEDED_TYPE, info, params)

    def new_initial_state(self) -> AllegraState:
        """The game's first state (a chance node for the discard starter, when dealt by chance)."""
        return AllegraState(self)

    def state_from_engine(self, engine: GameState, player: int | None = None) -> AllegraState:
        """A state of this game that continues ``engine`` (for example a server's game).

        Args:
            engine: a state of this game's config and seat count.
            player: when given, the cards this seat has not seen are first redrawn with
                [`allegra_rules.determinize`][allegra_rules.determinize], so a search from the
                result cannot read them. With ``deal="chance"`` every card nobody has seen is dealt
                by chance nodes anyway; ``player`` hides the others' private cards too.

        The result has no move history: its information-state strings and the
        per-round action counts start here.

        Raises:
            ValueError: ``engine`` belongs to another config or seat count.
        """
        if not isinstance(engine, GameState):
            raise ValueError(f"engine must be a GameState; got {type(engine).__name__}")
        if engine.config != self.config or engine.num_players != self.num_seats:
            raise ValueError("engine must have this game's config and seat count")
        if player is not None:
            view = observe(engine, player)
            # Seeded from what the seat knows, never from the hidden seed.
            digest = hashlib.sha256(view.to_json().encode()).digest()
            engine = determinize(view, random.Random(int.from_bytes(digest[:8], "big")))
        state = self.new_initial_state()
        state._node = _Node(engine, self._setup.rounds, counts=self._initial.counts)
        return state

    def max_chance_nodes_in_history(self) -> int:
        """An upper bound on the chance nodes of one game (0 with ``deal="seeded"``)."""
        return self._max_chance if self._setup.chance else 0

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> AllegraObserver:
        """An observer for observation or information-state strings and tensors.

        Args:
            iig_obs_type: a ``pyspiel.IIGObservationType``; ``None`` means the default
                observation (public and own private information, no recall).
            params: observer parameters; none are supported.

        Raises:
            ValueError: ``params`` is not empty.
        """
        if isinstance(iig_obs_type, dict):  # called as make_py_observer(params)
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"python_allegra observers take no parameters; got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        return AllegraObserver(self._setup, iig_obs_type)


def _unseen(engine: GameState, slot: int) -> list[int]:
    """The values chance may give the card at ``slot``: the cards nobody has seen.

    Before a refill the face-down cells and the draw pile are one pool. After a
    refill the draw pile holds known cards in an unknown order: a draw comes from the
    pile alone, a cell from the other face-down cells alone. A draw from an empty
    pile comes from the refill to be (the discard pile below its top). A round's
    discard starter comes from the whole fresh deal.
    """
    if slot == _DRAW:
        if not engine.draw_pile:
            return list(engine.discard_pile[:-1])
        if engine.refills:
            return list(engine.draw_pile)
    cells = engine.cells
    fd = engine.face_down
    out = [v for i, v in enumerate(cells) if v is not None and (fd >> i) & 1]
    if not engine.refills:
        out += engine.draw_pile
    if slot == _STARTER:
        out.append(engine.discard_pile[-1])
    return out


def _set_cell(engine: GameState, i: int, value: int) -> GameState:
    """``engine`` with face-down cell ``i`` holding ``value``, exchanged with an unseen card.

    The partner is the first face-down cell holding ``value``, else (before a refill)
    the draw pile's first such card, so the deck's cards stay exactly the same.
    """
    cells = list(engine.cells)
    old = cells[i]
    if old == value:
        return engine
    fd = engine.face_down
    for j, v in enumerate(cells):
        if v == value and (fd >> j) & 1 and j != i:
            cells[i], cells[j] = value, old
            return _evolve(engine, cells=tuple(cells))
    assert not engine.refills and old is not None
    draw = list(engine.draw_pile)
    j = draw.index(value)
    cells[i], draw[j] = value, old
    return _evolve(engine, cells=tuple(cells), draw_pile=tuple(draw))


def _set_held(engine: GameState, value: int) -> GameState:
    """``engine`` right after a draw, with the drawn card being ``value``."""
    old = engine.held
    assert old is not None
    if old == value:
        return engine
    draw = list(engine.draw_pile)
    if value in draw:
        j = draw.index(value)
        draw[j] = old
        return _evolve(engine, held=value, draw_pile=tuple(draw))
    assert not engine.refills
    cells = list(engine.cells)
    fd = engine.face_down
    j = next(j for j, v in enumerate(cells) if v == value and (fd >> j) & 1)
    cells[j] = old
    return _evolve(engine, held=value, cells=tuple(cells))


def _set_starter(engine: GameState, value: int) -> GameState:
    """``engine`` freshly dealt, with the discard starter being ``value``."""
    old = engine.discard_pile[-1]
    if old == value:
        return engine
    cells = list(engine.cells)
    if value in cells:
        j = cells.index(value)
        cells[j] = old
        return _evolve(engine, discard_pile=(value,), cells=tuple(cells))
    draw = list(engine.draw_pile)
    j = draw.index(value)
    draw[j] = old
    return _evolve(engine, discard_pile=(value,), draw_pile=tuple(draw))


class AllegraState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_allegra``: an immutable engine state plus the pending deal.

    Args:
        game: the [`AllegraGame`][allegra_rules.adapters.openspiel.AllegraGame] this state belongs
            to.
    """

    def __init__(self, game: AllegraGame) -> None:
        super().__init__(game)
        self._setup: _Setup = game._setup
        self._node: _Node = game._initial

    # ------------------------------------------------------------------ reading

    @property
    def engine_state(self) -> GameState:
        """The wrapped [`GameState`][allegra_rules.state.GameState].

        In chance mode the values of the cards nobody has seen yet are placeholders.
        """
        return self._node.engine

    def current_player(self) -> int:
        """The seat to act, ``PlayerId.CHANCE`` while a card is dealt, or ``TERMINAL``."""
        if self._node.over:
            return _TERMINAL
        if self._node.queue:
            return _CHANCE
        player = self._node.engine.current_player
        assert player is not None
        return player

    def is_terminal(self) -> bool:
        """Whether the game is over (after ``rounds`` rounds)."""
        return self._node.over

    def returns(self) -> list[float]:
        """Minus each total (or its ``[-1, 1]`` scaling) once over, else zeros."""
        n = self._setup.num_players
        if not self._node.over:
            return [0.0] * n
        totals = [sum(scores[p] for scores in self._node.engine.round_scores) for p in range(n)]
        if not self._setup.scaled:
            return [-float(t) for t in totals]
        lo, hi = self._setup.total_lo, self._setup.total_hi
        return [1.0 - 2.0 * (t - lo) / (hi - lo) for t in totals]

    def _legal_actions(self, player: int) -> list[int]:
        node = self._node
        if node.queue or player != node.engine.current_player:
            return []
        return sorted(legal_action_ids(node.engine))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The value of the next card to deal, weighted by the unseen cards."""
        node = self._node
        assert node.queue, "not a chance node"
        cached = node.outcomes
        if cached is None:
            counts = Counter(_unseen(node.engine, node.queue[0]))
            total = sum(counts.values())
            cached = [(i, counts[v] / total) for i, v in enumerate(self._setup.values) if counts[v]]
            node.outcomes = cached
        return list(cached)

    # ------------------------------------------------------------------ moving

    def _apply_action(self, action: int) -> None:
        node = self._node
        action = int(action)
        if node.queue:
            self._node = self._deal(node, action)
            return
        player = node.engine.current_player
        assert player is not None
        act = action_from_id(action, self._setup.num_players)
        engine = node.engine
        naming = engine.phase is Phase.SETUP and self._setup.config.setup_reveals == "simultaneous"
        moves = node.moves.append(_Move(player, action, player if naming else None))
        counts = self._count(node, player, act)
        rounds = self._setup.rounds
        if not self._setup.chance:
            self._node = self._settle(node.replace(rounds, moves=moves, counts=counts), None, act)
            return
        queue, private = self._reveals(node.engine, act)
        node = node.replace(rounds, moves=moves, counts=counts)
        if queue:
            self._node = node.replace(rounds, pending=action, queue=queue, private_to=private)
        else:
            self._node = self._settle(node, None, act)

    def _count(self, node: _Node, player: int, act: Action) -> tuple[int, ...]:
        kind = type(act).__name__
        if kind not in _COUNTED:
            return node.counts
        counts = list(node.counts)
        counts[player * len(_COUNTED) + _COUNTED.index(kind)] += 1
        return tuple(counts)

    def _reveals(
        self, engine: GameState, act: Action
    ) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
        """The cards ``act`` shows someone, in order, and who alone sees each."""
        fd = engine.face_down
        queue: list[int] = []
        private: list[int | None] = []
        phase = engine.phase
        if isinstance(act, DrawDeck):
            return (_DRAW,), (None,)
        if (
            isinstance(act, Reveal)
            and phase is Phase.SETUP
            and engine.config.setup_reveals == "simultaneous"
        ):
            # A36: a named cell stays face down until the last naming; then every
            # named cell turns up at once (a cell named twice turns up once).
            named = (*engine.setup_named, act.pos.index)
            if len(named) < 2 * engine.num_players:
                return (), ()
            cells = tuple(dict.fromkeys(named))
            return cells, (None,) * len(cells)
        if isinstance(act, (Reveal, Swap, Take)):
            i = act.pos.index
            if (fd >> i) & 1:
                queue.append(i)
                if isinstance(act, Take):
                    private.append(engine.drawer)
                elif phase is Phase.KNOCKER_SWAP:
                    private.append(engine.current_player)
                else:
                    private.append(None)
        if phase in (Phase.FLIP, Phase.HOLD_DECK, Phase.HOLD_DISCARD, Phase.HOLD_TAKEN):
            trial = apply(engine, act)
            if trial.is_terminal or trial.round != engine.round:
                # Scoring turns every face-down card up: chance deals them all now.
                for i in range(len(engine.cells)):
                    if (fd >> i) & 1 and i not in queue:
                        queue.append(i)
                        private.append(None)
        return tuple(queue), tuple(private)

    def _deal(self, node: _Node, outcome: int) -> _Node:
        """Apply one chance outcome: the next queued card becomes ``values[outcome]``."""
        value = self._setup.values[outcome]
        slot, rest = node.queue[0], node.queue[1:]
        seen_by, private_rest = node.private_to[0], node.private_to[1:]
        engine = node.engine
        rounds = self._setup.rounds
        moves = node.moves.append(_Move(_CHANCE, outcome, seen_by))
        if slot == _STARTER:
            engine = _set_starter(engine, value)
        elif slot >= 0:
            engine = _set_cell(engine, slot, value)
        if rest:
            return node.replace(
                rounds, engine=engine, queue=rest, private_to=private_rest, moves=moves
            )
        pending = node.pending
        node = node.replace(
            rounds, engine=engine, queue=(), private_to=(), moves=moves, pending=None
        )
        if pending is None:
            return node
        act = action_from_id(pending, self._setup.num_players)
        return self._settle(node, value if slot == _DRAW else None, act)

    def _settle(self, node: _Node, drawn: int | None, act: Action) -> _Node:
        """Apply ``act`` to the engine and store the result.

        ``drawn`` is the value chance gave a draw. A freshly dealt round first deals
        its discard starter.
        """
        before = node.engine
        engine = apply(before, act)
        if drawn is not None:
            engine = _set_held(engine, drawn)
        rounds = self._setup.rounds
        if engine.round != before.round and not engine.is_terminal:
            counts = (0,) * len(node.counts)
            if self._setup.chance and len(engine.round_scores) < rounds:
                return node.replace(
                    rounds, engine=engine, queue=(_STARTER,), private_to=(None,), counts=counts
                )
            return node.replace(rounds, engine=engine, counts=counts)
        return node.replace(rounds, engine=engine)

    # ------------------------------------------------------------------ text

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            return f"card {self._setup.values[int(action)]}"
        act = action_from_id(int(action), self._setup.num_players)
        return f"p{player}: {act!r}"

    def __str__(self) -> str:
        data = state_to_dict(self._node.engine)
        data["config"] = self._setup.config.fingerprint
        node = self._node
        data["pending"] = node.pending
        data["chance_queue"] = list(node.queue)
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    # ------------------------------------------------------------------ search

    def resample_from_infostate(self, player_id: int, probability_sampler: Any = None) -> Any:
        """A state that ``player_id`` cannot tell from this one, the rest drawn at random.

        Everything ``player_id`` knows stays; every card it has not seen (face-down cells, the draw
        pile's order, another player's private card) is drawn with
        [`allegra_rules.determinize`][allegra_rules.determinize]. In seeded mode the seed is drawn
        too, so the sampled future differs from the real one.

        Args:
            player_id: the seat whose information state is kept.
            probability_sampler: a ``pyspiel`` sampler (called once for a random
                seed), or ``None`` for a fixed one.
        """
        seed = 0 if probability_sampler is None else int(probability_sampler() * 2**53)
        rng = random.Random(seed)
        node = self._node
        view = observe(node.engine, player_id)
        engine = determinize(view, rng)
        moves = node.moves.moves()
        # The private cards that player_id did not see: their owners, and the sample's values.
        hidden = [
            (seat, new_card)
            for was, now in zip(private_cards(node.engine), private_cards(engine), strict=True)
            for (seat, _), (_, new_card) in zip(was, now, strict=True)
            if seat != player_id
        ]
        index = {v: i for i, v in enumerate(self._setup.values)}
        for seat, new_card in hidden:
            # The chance outcome that showed that card to its owner gets the new value.
            for j in range(len(moves) - 1, -1, -1):
                move = moves[j]
                if move.player == _CHANCE and move.seen_by == seat and new_card is not None:
                    moves[j] = attrs.evolve(move, action=index[new_card])
                    break
        clone = self.clone()
        named = private_namings(node.engine)
        if named:
            # The namings of this simultaneous setup are the last player moves; the
            # other seats' ones get the cells the sample drew for them.
            n = self._setup.num_players
            reveal = interned_actions(n).reveal
            places = [j for j, m in enumerate(moves) if m.player != _CHANCE][-len(named) :]
            for j, (_, cell) in zip(places, private_namings(engine), strict=True):
                if moves[j].player != player_id:
                    moves[j] = attrs.evolve(moves[j], action=action_to_id(reveal[cell], n))
        clone._node = node.replace(self._setup.rounds, engine=engine, moves=_History(moves))
        return clone


def _card_text(values: tuple[int, ...]) -> str:
    return ",".join(str(v) for v in values)


class AllegraObserver:
    """Observation and information-state strings and tensors (``pyspiel`` PyObserver).

    Args:
        setup: the game's shared settings.
        iig_obs_type: the ``pyspiel.IIGObservationType`` to honour (see the module docs).
    """

    def __init__(self, setup: _Setup, iig_obs_type: Any) -> None:
        self._setup = setup
        self.public_info = bool(iig_obs_type.public_info)
        private = iig_obs_type.private_info
        self.private = (
            "single"
            if private == pyspiel.PrivateInfoType.SINGLE_PLAYER
            else "all"
            if private == pyspiel.PrivateInfoType.ALL_PLAYERS
            else "none"
        )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        enc = setup.encoder
        n = setup.num_players
        k = len(setup.values)
        pieces: list[tuple[str, int]] = []
        if self.public_info:
            pieces.append(("public", enc.public_size))
        if self.private == "single":
            pieces.append(("player", n))
            pieces.append(("private", enc.private_size))
        elif self.private == "all":
            pieces.append(("private_held", 1 + k))
            pieces.append(("private_hand", 1 + k))
            pieces.append(("private_named", CELLS_PER_SEAT * n))
        if self.perfect_recall and self.public_info:
            pieces.append(("action_counts", len(_COUNTED) * n))
        size = sum(s for _, s in pieces)
        self.tensor: np.ndarray[Any, Any] = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        start = 0
        for name, s in pieces:
            self.dict[name] = self.tensor[start : start + s]
            start += s

    def set_from(self, state: AllegraState, player: int) -> None:
        """Fill ``self.tensor`` with what ``player`` observes of ``state``."""
        setup = self._setup
        enc = setup.encoder
        node = state._node
        engine = node.engine
        view = observe(engine, player)
        self.tensor.fill(0.0)
        if "public" in self.dict:
            self.dict["public"][:] = enc.public(observe(engine, None), 0)
        if "player" in self.dict:
            self.dict["player"][player] = 1.0
            self.dict["private"][:] = enc.private(view, 0)
        if "private_held" in self.dict:
            k = len(setup.values)
            for name, found in zip(_PRIVATE_PIECES, private_cards(engine), strict=True):
                if found:
                    part = self.dict[name]
                    part[0] = 1.0
                    part[1 + setup.values.index(found[0][1])] = 1.0
                    assert len(part) == 1 + k
            for _, cell in private_namings(engine):
                self.dict["private_named"][cell] = 1.0
        if "action_counts" in self.dict:
            cap = setup.config.max_turns_per_round
            self.dict["action_counts"][:] = [min(1.0, c / cap) for c in node.counts]

    def string_from(self, state: AllegraState, player: int) -> str:
        """What ``player`` observes of ``state`` as text (with the history when recalled)."""
        node = state._node
        engine = node.engine
        view = observe(engine, player)
        parts: list[str] = []
        if self.public_info:
            parts.append(self._public_text(observe(engine, None)))
        if self.private == "single":
            mine = [
                f"{label} {card}"
                for label, cards in zip(_PRIVATE_LABELS, view.own_private_cards(), strict=True)
                for card in cards
            ]
            if view.own_setup_named:
                mine.append(f"named {list(view.own_setup_named)}")
            parts.append(f"p{player} " + (" ".join(mine) or "-"))
        elif self.private == "all":
            held, hand = (found[0][1] if found else None for found in private_cards(engine))
            named = [cell for _, cell in private_namings(engine)]
            parts.append(f"private held={held} hand={hand} named={named}")
        if self.perfect_recall:
            parts.append(
                "history " + " ".join(self._move_text(m, player) for m in node.moves.moves())
            )
        return "\n".join(parts)

    def _move_text(self, move: _Move, player: int) -> str:
        if move.player != _CHANCE:
            if move.seen_by is None or self.private == "all":
                return f"{move.player}:{move.action}"
            if self.private == "single" and move.seen_by == player:
                return f"{move.player}:{move.action}"
            return f"{move.player}:?"
        if move.seen_by is None:
            return f"c{move.action}"
        if self.private == "all" or (self.private == "single" and move.seen_by == player):
            return f"c{move.action}@{move.seen_by}"
        return f"c?@{move.seen_by}"

    def _public_text(self, view: PlayerView) -> str:
        def cell(i: int) -> str:
            value = view.cells[i]
            if value is not None:
                return str(value)
            return "#" if view.face_down[i] else "."

        n = view.num_players
        grids = " | ".join(
            " ".join(cell(s * CELLS_PER_SEAT + j) for j in range(CELLS_PER_SEAT)) for s in range(n)
        )
        held = (
            "-"
            if view.held is None and not view.held_hidden
            else ("?" if view.held is None else str(view.held))
        )
        hand = " ".join(f"{p}:{'?' if c is None else c}" for p, c in view.in_hand) or "-"
        known = "?" if view.draw_pile_cards is None else _card_text(view.draw_pile_cards)
        return (
            f"round {view.round} {view.phase.value} to_act {view.current_player} "
            f"drawer {view.drawer} knockers {list(view.knockers)} knocker {view.knocker} "
            f"given {view.given_at} taken {view.taken_at} turns {view.turns_played} "
            f"start {view.start_seat} reveals {view.setup_reveals} "
            f"ender {view.ender} final {list(view.final_turns)}\n"
            f"cells {grids}\n"
            f"held {held} hand {hand} discard [{_card_text(view.discard_pile)}] "
            f"out [{_card_text(view.out_of_play)}] draw {view.draw_pile_size} [{known}] "
            f"totals {list(view.totals)} setup {list(view.setup_sums)}"
        )


pyspiel.register_game(GAME_TYPE, AllegraGame)
