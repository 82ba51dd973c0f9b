"""Round robins (``allegra_rules.tournament``) and ``allegra-rules tournament``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from allegra_rules import preset
from allegra_rules.cli import main
from allegra_rules.simulate import game_seed
from allegra_rules.tournament import (
    MAX_CHUNK,
    Fixture,
    TournamentGame,
    deal_out,
    pair_results,
    round_robin,
    schedule,
    wilson_interval,
)

SEEDS = preset("seeds")


def test_schedule_heads_up_swaps_seats_on_the_same_deals() -> None:
    fixtures = schedule(["a", "b", "c"], num_players=2, deals=3, seed=9)
    assert len(fixtures) == 3 * 3 * 2  # pairs x deals x seatings
    assert [f.index for f in fixtures] == list(range(len(fixtures)))
    ab = [f for f in fixtures if set(f.bots) == {"a", "b"}]
    assert [f.seed for f in ab] == [game_seed(9, d) for d in range(3) for _ in range(2)]
    assert [f.bots for f in ab[:2]] == [("a", "b"), ("b", "a")]


def test_schedule_at_four_seats_puts_each_bot_alone_at_every_seat() -> None:
    fixtures = schedule(["x", "y"], num_players=4, deals=1, seed=0)
    assert len(fixtures) == 8
    for lone in ("x", "y"):
        seats = [f.bots.index(lone) for f in fixtures if f.bots.count(lone) == 1]
        assert sorted(seats) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("bots", "kwargs", "message"),
    [
        (["a"], {}, "two or more"),
        (["a", "a"], {}, "two or more"),
        (["a", "b"], {"num_players": 1}, "num_players"),
        (["a", "b"], {"deals": 0}, "deals"),
        (["a", "b"], {"deals": 1.5}, "deals"),
    ],
)
def test_schedule_refuses_bad_arguments(
    bots: list[str], kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"num_players": 2, "deals": 1, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        schedule(bots, **args)  # type: ignore[arg-type]


def test_round_robin_refuses_unknown_bots_and_bad_jobs() -> None:
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        round_robin(["greedy", "nobody"], config=SEEDS, deals=1, seed=0)
    with pytest.raises(ValueError, match="jobs"):
        round_robin(["greedy", "random"], config=SEEDS, deals=1, seed=0, jobs=0)


def test_round_robin_is_the_same_with_workers() -> None:
    one = round_robin(["random", "greedy"], config=SEEDS, deals=2, seed=4, num_players=3)
    two = round_robin(["random", "greedy"], config=SEEDS, deals=2, seed=4, num_players=3, jobs=2)
    assert one == two
    assert len(one) == 2 * 2 * 3


@pytest.mark.parametrize("jobs", [1, 2, 3, 8, 50])
@pytest.mark.parametrize("deals", [1, 2, 7])
def test_deal_out_shares_every_pair_among_the_tasks(jobs: int, deals: int) -> None:
    bots = ["random", "greedy", "search-easy", "search", "search-hard"]
    fixtures = schedule(bots, num_players=2, deals=deals, seed=0)
    tasks = deal_out(fixtures, jobs)
    dealt = sorted(f.index for task in tasks for f in task)
    assert dealt == list(range(len(fixtures)))
    assert len(tasks) >= min(len(fixtures), 2 * jobs)
    assert all(1 <= len(task) <= MAX_CHUNK for task in tasks)
    assert max(map(len, tasks)) - min(map(len, tasks)) <= 1
    # The last pair (two search bots, the slowest games) is not left to one task.
    last = {
        f.index
        for f in fixtures
        if f.bots in {("search", "search-hard"), ("search-hard", "search")}
    }
    holding = [task for task in tasks if last & {f.index for f in task}]
    assert len(holding) == min(len(last), len(tasks))


def test_deal_out_refuses_bad_jobs() -> None:
    with pytest.raises(ValueError, match="jobs"):
        deal_out(schedule(["a", "b"], num_players=2, deals=1, seed=0), 0)


def test_round_robin_through_a_runner_returns_the_schedule_order() -> None:
    tasks_seen: list[int] = []

    def runner(function, tasks):  # type: ignore[no-untyped-def]
        tasks_seen.append(len(tasks))
        return [function(task) for task in tasks]

    # Six games in four tasks ([0, 4], [1, 5], [2], [3]): they come back out of order.
    kwargs = {"config": SEEDS, "deals": 3, "seed": 5, "num_players": 2}
    bots = ["random", "greedy"]
    here = round_robin(bots, **kwargs)  # type: ignore[arg-type]
    there = round_robin(bots, jobs=2, runner=runner, **kwargs)  # type: ignore[arg-type]
    assert tasks_seen == [4]
    assert [g.index for g in there] == list(range(len(here)))
    assert there == here


def test_shares_and_margins_by_hand() -> None:
    games = [
        TournamentGame(0, 1, ("a", "b"), (10, 20), (0,)),  # a wins by 10
        TournamentGame(1, 1, ("b", "a"), (30, 30), (0, 1)),  # a tie: half each
        TournamentGame(2, 2, ("a", "b", "b"), (40, 10, 20), (1,)),  # b wins; a 25 behind
    ]
    (pair,) = pair_results(games)
    assert (pair.a, pair.b, pair.games) == ("a", "b", 3)
    assert pair.share == pytest.approx((1 + 0.5 + 0) / 3)
    assert pair.margin == pytest.approx((10 + 0 - 25) / 3)
    assert pair.low < pair.share < pair.high


def test_wilson_interval_closed_forms() -> None:
    z = 1.959963984540054
    # No successes: the upper end is z^2 / (n + z^2); all successes mirror it.
    assert wilson_interval(0, 10) == pytest.approx((0.0, z * z / (10 + z * z)))
    assert wilson_interval(10, 10) == pytest.approx((10 / (10 + z * z), 1.0))
    # Half: symmetric around 1/2.
    low, high = wilson_interval(50, 100)
    assert low + high == pytest.approx(1.0)
    assert high - 0.5 == pytest.approx(
        z * math.sqrt(0.25 / 100 + z * z / 40000) / (1 + z * z / 100)
    )
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_cli_tournament_json_and_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openskill", reason="ratings need the ladder extra")
    out = tmp_path / "ladder.json"
    argv = ["tournament", "--bots", "random,greedy,ppo", "--deals", "2", "--json", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["settings"]["games"] == 4
    names = [b["bot"] for b in data["bots"]]
    assert sorted(names) == ["greedy", "random"]
    # greedy beats random on these deals (it wins by over 100 points a game on average).
    assert names[0] == "greedy"
    assert data["bots"][0]["ordinal"] > data["bots"][1]["ordinal"]
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"], pair["games"]) == ("random", "greedy", 4)
    assert "ppo" in data["unavailable"]
    assert "unavailable: ppo" in text
    assert "greedy" in text and "95 % interval" in text


def test_cli_tournament_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "random,greedy", "--deals", "1", "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pairs"][0]["games"] == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "greedy,nobody"], "unknown bot 'nobody'"),
        (["--bots", "greedy"], "two or more"),
        (["--deals", "0"], "--deals"),
        (["--jobs", "-1"], "--jobs"),
        (["--players", "9"], "--players"),
    ],
)
def test_cli_tournament_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", *argv]) == 2
    assert message in capsys.readouterr().err


def test_fixture_is_plain_data() -> None:
    assert Fixture(0, 5, ("a", "b")) == Fixture(0, 5, ("a", "b"))


def test_the_ismcts_entrant_answers_legally_from_the_view() -> None:
    pytest.importorskip("pyspiel")
    from allegra_rules import GreedyBot, Phase, apply, legal_actions, new_game
    from allegra_rules.cli._tournament import IsmctsBot, entrants

    makers, missing = entrants(2, "seeds", None)
    assert "ismcts" in makers and "ismcts" not in missing
    assert "ppo" in makers or "ppo" in missing
    state = new_game(2, seed=4)
    while state.phase is Phase.SETUP:
        state = apply(state, GreedyBot(0).choose(state))
    bot = IsmctsBot(3, players=2, preset="seeds")
    assert bot.choose(state) in legal_actions(state)


def test_the_ppo_entrant_plays_the_models_masked_choice(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The ``ppo`` entrant: a saved model is loaded, given the view's features and mask.

    A stand-in for ``sb3_contrib.MaskablePPO`` records what it is given and picks the
    legal action with the highest id, so the test needs neither torch nor a trained model.
    """
    import importlib.machinery
    import sys
    import types

    np = pytest.importorskip("numpy")
    from allegra_rules import apply, legal_actions, new_game, observe
    from allegra_rules.adapters.features import Encoder
    from allegra_rules.cli._tournament import entrants
    from allegra_rules.encoding import action_to_id

    seen: list[tuple[object, ...]] = []

    class StandIn:
        @classmethod
        def load(cls, path: str) -> StandIn:
            seen.append(("load", path))
            return cls()

        def predict(self, obs: object, *, action_masks: object, deterministic: bool) -> object:
            seen.append(("predict", obs, action_masks, deterministic))
            return int(np.flatnonzero(action_masks)[-1]), None

    for name in ("sb3_contrib", "torch"):
        module = types.ModuleType(name)
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)
        module.MaskablePPO = StandIn  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, name, module)
    _, missing = entrants(2, "seeds", None)
    assert "--ppo-model" in missing["ppo"]
    _, missing = entrants(2, "seeds", tmp_path / "absent.zip")
    assert "no model file" in missing["ppo"]
    model = tmp_path / "model.zip"
    model.write_bytes(b"stand-in")
    makers, missing = entrants(2, "seeds", model)
    assert "ppo" not in missing
    bot = makers["ppo"](0)
    assert seen == [("load", str(model))]
    state = new_game(2, seed=4)
    for _ in range(6):
        legal = legal_actions(state)
        action = bot.choose(state)
        assert action_to_id(action, 2) == max(action_to_id(a, 2) for a in legal)
        _, obs, mask, deterministic = seen[-1]
        want = Encoder(SEEDS, 2).features(observe(state, state.current_player or 0))
        np.testing.assert_allclose(obs, want)
        assert obs.dtype == np.float32 and deterministic is True
        assert sorted(np.flatnonzero(mask)) == sorted(action_to_id(a, 2) for a in legal)
        state = apply(state, action)


def test_bots_that_cannot_play_the_table_are_listed_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import allegra_rules.bot_kinds as kinds
    from allegra_rules.cli._tournament import entrants

    monkeypatch.setattr(kinds, "cannot_play", lambda config, n: None if n == 2 else f"not {n}")
    makers, missing = entrants(2, "seeds", None)
    assert {"policy", "search-guided"} <= set(makers)
    makers, missing = entrants(3, "seeds", None)
    assert missing["policy"] == missing["search-guided"] == "not 3"
    assert not {"policy", "search-guided"} & set(makers) and "greedy" in makers
