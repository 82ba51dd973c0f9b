"""``allegra-rules tournament``: round robins between bots, a table of pairs and ratings.

The entrants are the bots of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] (``policy``
and ``search-guided`` where NumPy, the extra ``policy``, and the shipped weights are
installed) and two from optional extras: ``ismcts`` (OpenSpiel's information-set MCTS through the
``python_allegra`` adapter, extra ``openspiel``) and ``ppo`` (a MaskablePPO model saved by
benchmarks/train_maskable_ppo.py, extra ``train``, given with ``--ppo-model``). An entrant
whose extra is missing is listed as unavailable, never played.

Ratings: openskill's Plackett-Luce model (extra ``ladder``). It is maintained, has no
dependency beyond the standard library, rates games of any number of seats from their
ranks, and gives every bot a mean and an uncertainty; the table shows its ordinal,
``mu - 3 sigma``, a conservative rating. Games are rated in an interleaved order (the
first game of every pair, then the second, ...), so that no pair's games all come last.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from allegra_rules.actions import Action
from allegra_rules.bots import Bot
from allegra_rules.cli._common import load_config
from allegra_rules.state import GameState
from allegra_rules.tournament import PairResult, TournamentGame, pair_results
from allegra_rules.transitions import legal_actions

ISMCTS_SIMULATIONS = 32
"""Simulations per decision of the ``ismcts`` entrant (random rollouts, UCT constant 2)."""


class IsmctsBot:
    """OpenSpiel's ``ISMCTSBot`` through the ``python_allegra`` adapter, as a ``Bot``.

    Every decision starts a fresh search from ``state_from_engine(state, player=seat)``
    on the ``deal="chance"`` game, so it cannot read the cards the seat has not seen.
    """

    def __init__(self, seed: int, *, players: int, preset: str) -> None:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        import allegra_rules.adapters.openspiel  # noqa: F401  (registers the game)

        self._game = pyspiel.load_game(
            "python_allegra", {"players": players, "preset": preset, "deal": "chance"}
        )
        rng = np.random.RandomState(seed % 2**32)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
        self._bot = ismcts.ISMCTSBot(
            self._game,
            evaluator,
            uct_c=2.0,
            max_simulations=ISMCTS_SIMULATIONS,
            random_state=rng,
        )

    def choose(self, state: GameState) -> Action:
        """The search's choice for ``state.current_player``."""
        from allegra_rules.encoding import action_from_id

        legal = legal_actions(state)
        if len(legal) == 1:
            return legal[0]
        root = self._game.state_from_engine(state, player=state.current_player)
        return action_from_id(int(self._bot.step(root)), state.num_players)


class PpoBot:
    """A saved MaskablePPO policy (its most likely legal action) as a ``Bot``."""

    def __init__(self, seed: int, *, model: str, players: int, preset: str) -> None:
        from sb3_contrib import MaskablePPO

        from allegra_rules.adapters.features import Encoder
        from allegra_rules.presets import preset as load_preset

        del seed  # the policy is played deterministically
        self._model = MaskablePPO.load(model)
        self._encoder = Encoder(load_preset(preset), players)

    def choose(self, state: GameState) -> Action:
        """The policy's most likely legal action for ``state.current_player``."""
        import numpy as np

        from allegra_rules.encoding import action_from_id, legal_action_mask
        from allegra_rules.views import observe

        seat = state.current_player
        assert seat is not None
        features = self._encoder.features(observe(state, seat))
        obs = np.asarray(features, dtype=np.float32)
        mask = np.asarray(legal_action_mask(state), dtype=bool)
        action, _ = self._model.predict(obs, action_masks=mask, deterministic=True)
        return action_from_id(int(action), state.num_players)


def _have(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def entrants(
    players: int, preset: str, ppo_model: Path | None
) -> tuple[dict[str, Callable[[int], Bot]], dict[str, str]]:
    """The bots a tournament may seat, and the unavailable ones with the reason."""
    from allegra_rules.bot_kinds import BOT_KINDS

    makers: dict[str, Callable[[int], Bot]] = dict(BOT_KINDS)
    missing: dict[str, str] = {}
    from allegra_rules.bot_kinds import unavailable

    config = load_config(preset)
    for name in list(makers):
        why = unavailable(name, config, players)
        if why is not None:
            del makers[name]
            missing[name] = why
    if _have("pyspiel") and _have("numpy"):
        makers["ismcts"] = functools.partial(IsmctsBot, players=players, preset=preset)
    else:
        missing["ismcts"] = "needs open_spiel (in a clone: pip install '.[openspiel]')"
    if not (_have("sb3_contrib") and _have("torch")):
        missing["ppo"] = "needs sb3-contrib and torch (in a clone: pip install '.[sb3]')"
    elif ppo_model is None:
        missing["ppo"] = "needs a saved model: --ppo-model FILE"
    elif not ppo_model.is_file():
        missing["ppo"] = f"no model file at {str(ppo_model)!r}"
    else:
        makers["ppo"] = functools.partial(
            PpoBot, model=str(ppo_model), players=players, preset=preset
        )
    return makers, missing


# ------------------------------------------------------------------ ratings


def ratings(games: Sequence[TournamentGame], bots: Sequence[str]) -> dict[str, dict[str, float]]:
    """Every bot's openskill Plackett-Luce rating: ``mu``, ``sigma`` and ``ordinal``.

    A game with several seats of one bot ranks that bot by its best seat (lowest
    total), so each game is a match between the two bots that played it.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in bots}
    count: dict[frozenset[str], int] = {}
    order: list[tuple[int, int, TournamentGame]] = []
    for k, game in enumerate(games):
        pair = frozenset(game.bots)
        position = count.get(pair, 0)
        count[pair] = position + 1
        order.append((position, k, game))
    for _, _, game in sorted(order, key=lambda item: (item[0], item[1])):
        names = list(dict.fromkeys(game.bots))
        best = [
            min(t for t, n in zip(game.totals, game.bots, strict=True) if n == name)
            for name in names
        ]
        teams = [[current[name]] for name in names]
        rated = model.rate(teams, ranks=[float(b) for b in best])
        for name, (rating,) in zip(names, rated, strict=True):
            current[name] = rating
    return {
        name: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()} for name, r in current.items()
    }


def overall(games: Sequence[TournamentGame], bots: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per bot: games played, mean share of the win and mean margin over all its games."""
    out = {}
    for name in bots:
        mine = [g for g in games if name in g.bots]
        n = len(mine)
        out[name] = {
            "games": n,
            "share": sum(g.share(name) for g in mine) / n if n else 0.0,
            "margin": sum(g.margin(name) for g in mine) / n if n else 0.0,
        }
    return out


# ------------------------------------------------------------------- output


def report(
    games: Sequence[TournamentGame],
    bots: Sequence[str],
    missing: Mapping[str, str],
    settings: Mapping[str, Any],
) -> dict[str, Any]:
    """The tournament's results as JSON-ready data."""
    totals = overall(games, bots)
    if _have("openskill"):
        rated = ratings(games, bots)
        model = "openskill PlackettLuce (ordinal = mu - 3 sigma)"
    else:
        rated = {name: {} for name in bots}
        model = "none: ratings need openskill (in a clone: pip install '.[ladder]')"
    ladder = sorted(
        bots, key=lambda name: (-rated[name].get("ordinal", 0.0), -totals[name]["share"])
    )
    return {
        "settings": dict(settings),
        "bots": [{"bot": name, **totals[name], **rated[name]} for name in ladder],
        "pairs": [pair.to_dict() for pair in pair_results(games)],
        "unavailable": dict(missing),
        "rating_model": model,
    }


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def _pair_rows(pairs: Sequence[PairResult]) -> list[list[str]]:
    return [
        [
            p.a,
            p.b,
            str(p.games),
            _pct(p.share),
            f"{100 * p.low:.1f}-{100 * p.high:.1f} %",
            f"{p.margin:+.1f}",
        ]
        for p in pairs
    ]


def write_text(data: Mapping[str, Any], out: TextIO) -> None:
    """The tables: the bots by rating, then every pair; rich's tables when installed."""
    bot_header = ["bot", "rating", "mu", "sigma", "games", "win share", "mean margin"]
    bot_rows = [
        [
            b["bot"],
            f"{b['ordinal']:.1f}" if "ordinal" in b else "-",
            f"{b['mu']:.1f}" if "mu" in b else "-",
            f"{b['sigma']:.1f}" if "sigma" in b else "-",
            str(b["games"]),
            _pct(b["share"]),
            f"{b['margin']:+.1f}",
        ]
        for b in data["bots"]
    ]
    pairs = [PairResult(**p) for p in data["pairs"]]
    pair_header = ["bot A", "bot B", "games", "A's win share", "95 % interval", "A's margin"]
    pair_rows = _pair_rows(pairs)
    settings = data["settings"]
    title = (
        f"Round robin: {settings['players']} players, preset {settings['preset']}, "
        f"{settings['deals']} deals per pair, seed {settings['seed']}, "
        f"{settings['games']} games"
    )
    out.write(title + "\n")
    out.write(f"Ratings: {data['rating_model']}\n")
    if _have("rich"):
        _rich_tables(
            out,
            [
                ("Bots, by rating", bot_header, bot_rows, 1),
                ("Pairs (A's share of the wins; ties count half)", pair_header, pair_rows, 2),
            ],
        )
    else:
        out.write("\n")
        for header, rows in ((bot_header, bot_rows), (pair_header, pair_rows)):
            widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
            for row in [header, *rows]:
                out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + "\n")
            out.write("\n")
    for name, why in data["unavailable"].items():
        out.write(f"unavailable: {name} ({why})\n")


def _rich_tables(
    out: TextIO, tables: Sequence[tuple[str, list[str], list[list[str]], int]]
) -> None:
    """``tables`` (title, header, rows, text columns on the left) as rich tables."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out)
    for heading, header, rows, text_columns in tables:
        table = Table(title=heading, title_justify="left")
        for k, column in enumerate(header):
            table.add_column(column, justify="left" if k < text_columns else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)


def write_json(data: Mapping[str, Any], path: Path) -> None:
    """``data`` as indented JSON at ``path`` (``-`` is standard output)."""
    text = json.dumps(data, indent=2) + "\n"
    if str(path) == "-":
        import sys

        sys.stdout.write(text)
    else:
        path.write_text(text, encoding="utf-8")
