"""``allegra_rules.analysis``: every counter against games counted by hand, the intervals
against simulated samples of known rates, and the same figures for any ``--jobs``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import attrs
import pytest

from allegra_rules import preset
from allegra_rules.actions import DrawDeck, Give, Knock, Take
from allegra_rules.analysis import (
    SHARE,
    TURN_CAP_ABOVE,
    TURN_CAP_BELOW,
    Tally,
    analyze,
    compare,
    holm,
    mean_interval,
    measure_game,
    option_variants,
    report,
    t_quantile,
    wilson,
)
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.cli import main
from allegra_rules.config import OPTION_CHOICES, RuleConfig
from allegra_rules.simulate import bot_seed, game_seed, play_game
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import apply, legal_actions, new_game
from allegra_rules.views import observe


def played(num_players: int, config: RuleConfig, seed: int, bots: list[str]) -> list[Any]:
    """Every ``(state, action, next state)`` of the game ``measure_game`` plays."""
    players = [BOT_KINDS[name](bot_seed(seed, seat)) for seat, name in enumerate(bots)]
    state = new_game(num_players, config=config, seed=seed)
    steps = []
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        action = players[seat].choose(state)
        after = apply(state, action)
        steps.append((state, action, after))
        state = after
    return steps


def gaps(cells: tuple[int | None, ...]) -> int:
    return sum(1 for value in cells if value is None)


@pytest.mark.parametrize(
    ("players", "name", "seed"), [(4, "seeds", 3), (3, "published", 11), (5, "fr", 2)]
)
def test_every_counter_matches_the_game_counted_by_hand(players: int, name: str, seed: int) -> None:
    config = preset(name)
    bots = ["greedy"] * players
    steps = played(players, config, seed, bots)
    tally = measure_game(players, config, seed, bots)
    s = tally.sums
    # Counted here from the moves, one rule at a time.
    asks = sum(1 for state, _, _ in steps if state.phase is Phase.KNOCK)
    knocks = sum(1 for _, action, _ in steps if isinstance(action, Knock))
    gives = sum(1 for _, action, _ in steps if isinstance(action, Give))
    windows = sum(
        1
        for _, action, after in steps
        if isinstance(action, DrawDeck) and after.phase is Phase.KNOCK
    )
    # A window was knocked in when a Knock follows its DrawDeck before the next DrawDeck.
    knocked_windows = 0
    open_window = False
    for _, action, after in steps:
        if isinstance(action, DrawDeck):
            open_window = after.phase is Phase.KNOCK
        elif isinstance(action, Knock) and open_window:
            knocked_windows += 1
            open_window = False
    round_ends = [
        (state, after)
        for state, _, after in steps
        if after.round != state.round or after.is_terminal
    ]
    assert len(round_ends) == 3 == tally.rounds
    turns = [state.turns_played for state, _ in round_ends]
    end = steps[-1][2]
    assert s["knock_asks"] if asks else "knock_asks" not in s
    assert s.get("knock_asks", 0) == asks
    assert s.get("round_knocks.sum", 0) == knocks
    assert s.get("round_exchanges.sum", 0) == gives
    assert s.get("knock_windows", 0) == windows
    assert s.get("knocked_windows", 0) == knocked_windows
    assert s["round_turns.sum"] == sum(turns) == s["game_turns.sum"]
    assert s["round_turns.sq"] == sum(t * t for t in turns)
    assert tally.maxima["round_turns"] == max(turns)
    # Gaps only ever come from triples: the round's removed cards are its scoring gaps.
    scored = [after.last_round for _, after in round_ends]
    assert s["round_gaps.sum"] == sum(gaps(last.cells) for last in scored if last)
    assert s["round_removed.sum"] == s["round_gaps.sum"]
    assert s.get("ended_rounds", 0) == sum(1 for last in scored if last and last.ender is not None)
    assert s.get("doubled_enders", 0) == sum(1 for last in scored if last and last.doubled)
    assert s.get("turn_cap_rounds", 0) == 0
    # Triples: the moves after which a grid has more gaps than before (a settlement),
    # but a Take, whose gap the taken card fills again with the drawer's next move.
    settlements = 0
    for state, action, after in steps:
        if isinstance(action, Take):
            continue
        cells = after.cells if after.round == state.round and not after.is_terminal else None
        if cells is None:
            assert after.last_round is not None
            cells = after.last_round.cells
        held_gap = 1 if state.phase is Phase.HOLD_TAKEN else 0
        if gaps(cells) > gaps(state.cells) - held_gap:
            settlements += 1
    assert s.get("round_triples.sum", 0) == settlements
    # The scores: spread and margin of the final totals, the wins in SHARE units.
    ordered = sorted(end.totals)
    assert s["spread.sum"] == ordered[-1] - ordered[0]
    assert s["margin.sum"] == ordered[1] - ordered[0]
    for seat in range(players):
        won = SHARE // len(end.winners) if seat in end.winners else 0
        assert tally.seats[seat]["win.sum"] == won
        assert tally.seats[seat]["total.sum"] == end.totals[seat]
    # Branching: the legal actions of every decision, by phase.
    for phase in Phase:
        decided = [len(legal_actions(state)) for state, _, _ in steps if state.phase is phase]
        row = tally.branching.get(phase.value, [0, 0, 0, 0])
        assert row[:2] == [len(decided), sum(decided)], phase
    # The game is simulate's game.
    stats = play_game(players, config, seed, bots)
    assert [r.turns for r in stats.rounds] == turns
    assert sum(r.triples for r in stats.rounds) == settlements


def test_the_information_counts_of_a_deal_and_of_a_knock_exchange() -> None:
    state = new_game(3, seed=4)
    tally = Tally(3)
    tally.decision(state)
    # The deal: nobody knows a card, all 36 lie face down.
    assert tally.flow == {0: [1, 0, 36, 0, 0, 0]}
    # Two setup reveals: two public cards, 34 hidden, every seat knows the two.
    bot = BOT_KINDS["greedy"](0)
    state = apply(state, bot.choose(state))
    state = apply(state, bot.choose(state))
    tally = Tally(3)
    tally.decision(state)
    assert tally.flow == {0: [1, 2, 34, 2, 2, 2]}
    # A knock exchange in which the drawer took a face-down card: only the drawer knows it.
    for seed in range(200):
        found = _exchange_with_hidden_card(seed)
        if found is not None:
            break
    else:
        pytest.fail("no knock exchange with a face-down take in 200 games")
    tally = Tally(found.num_players)
    tally.decision(found)
    row = tally.flow[found.turns_played]
    public_cells = sum(
        1 for i, v in enumerate(found.cells) if v is not None and not found.face_down >> i & 1
    )
    hand_public = sum(1 for _, card in observe(found, None).in_hand if card is not None)
    assert row[1] == public_cells + hand_public
    assert row[2] == bin(found.face_down).count("1")
    drawer = found.drawer
    assert drawer is not None
    for seat in range(found.num_players):
        extra = 1 if seat == drawer else 0
        extra += 1 if found.hand_was_face_down and any(p == seat for p, _ in found.in_hand) else 0
        assert row[3 + seat] == row[1] + extra, seat


def _exchange_with_hidden_card(seed: int) -> GameState | None:
    # Random bots take a face-down card in a knock exchange at once; GreedyBots rarely
    # do (the first such game of theirs is seed 173's).
    for _, _, after in played(4, preset("seeds"), seed, ["random"] * 4):
        if after.phase is Phase.HOLD_TAKEN and after.held_was_face_down:
            found: GameState = after
            return found
    return None


def test_a_rule_that_never_fires_shows_zero() -> None:
    never = attrs.evolve(preset("seeds"), knocking="never")
    data = report(analyze(4, games=3, config=never, seed=2, bots=["greedy"] * 4))
    rules = data["rules"]
    assert rules["knock_windows"] == rules["knock_asks"] == 0
    assert rules["round_knocks"]["mean"] == rules["round_exchanges"]["mean"] == 0
    assert rules["knock_rate"]["events"] == 0 and rules["knock_rate"]["rate"] is None
    assert "knock" not in data["branching"] and "take" not in data["branching"]
    assert rules["turn_cap_rate"]["events"] == 0 and rules["turn_cap_rate"]["rate"] == 0
    # Two seats of the published preset: knocking needs three, so no window opens.
    two = report(analyze(2, games=3, config=preset("published"), seed=2, bots=["greedy"] * 2))
    assert two["rules"]["knock_windows"] == 0 and two["rules"]["round_exchanges"]["mean"] == 0
    # A turn cap of 1 stops every round: no ender, nobody doubled.
    capped = attrs.evolve(preset("seeds"), max_turns_per_round=1)
    c = report(analyze(3, games=2, config=capped, seed=2, bots=["greedy"] * 3))
    assert c["rules"]["turn_cap_rate"]["rate"] == 1
    assert c["rules"]["doubled_rate"]["chances"] == c["rules"]["doubled_rate"]["events"] == 0
    assert all(seat["ended"] == seat["doubled"] == 0 for seat in c["seats"])


def test_wilson_intervals_cover_known_rates_about_95_in_100() -> None:
    rng = random.Random(57)
    for rate, n in ((0.05, 80), (0.3, 40), (0.5, 200)):
        covered = 0
        reps = 2000
        for _ in range(reps):
            events = sum(1 for _ in range(n) if rng.random() < rate)
            interval = wilson(events, n)
            assert interval is not None
            covered += interval[0] <= rate <= interval[1]
        assert 0.925 <= covered / reps <= 0.975, (rate, n, covered)


def test_t_intervals_cover_a_known_mean_about_95_in_100() -> None:
    rng = random.Random(58)
    covered = 0
    reps = 2000
    for _ in range(reps):
        values = [rng.randint(1, 6) for _ in range(12)]  # a die: mean 3.5
        m = mean_interval(len(values), sum(values), sum(v * v for v in values))
        covered += m["low"] <= 3.5 <= m["high"]
    assert 0.93 <= covered / reps <= 0.97, covered


def test_t_quantiles_agree_with_the_printed_tables() -> None:
    # Two-sided 95 % critical values of Student's t, as printed in statistics tables.
    table = ((1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (5, 2.571), (10, 2.228), (30, 2.042))
    for df, value in table:
        assert abs(t_quantile(df) - value) < 0.001, df
    assert abs(t_quantile(100_000) - 1.960) < 0.001
    with pytest.raises(ValueError, match="df must be"):
        t_quantile(0)


def test_mean_interval_of_hand_worked_values() -> None:
    # 2, 4, 9: mean 5, variance ((-3)^2 + 1 + 16) / 2 = 13.
    m = mean_interval(3, 15, 4 + 16 + 81)
    assert m["mean"] == 5 and abs(m["sd"] ** 2 - 13) < 1e-12
    half = t_quantile(2) * (13 / 3) ** 0.5
    assert abs(m["high"] - (5 + half)) < 1e-12 and abs(m["low"] - (5 - half)) < 1e-12
    assert mean_interval(1, 7, 49)["low"] is None
    assert mean_interval(0, 0, 0)["mean"] is None
    assert mean_interval(2, 60, 1800, scale=SHARE)["mean"] == 0.5


def test_holm_keeps_the_familywise_error_and_steps_down() -> None:
    assert holm([0.01, 0.04, 0.03, 0.005]) == [0.03, 0.06, 0.06, 0.02]
    assert holm([]) == []
    # Twenty true null hypotheses: Holm rejects none in at least 95 of 100 families.
    rng = random.Random(59)
    families_with_a_false_claim = sum(
        any(p < 0.05 for p in holm([rng.random() for _ in range(20)])) for _ in range(2000)
    )
    assert families_with_a_false_claim / 2000 <= 0.06


def test_option_variants_come_from_the_config() -> None:
    base = preset("published")
    variants = option_variants(base)
    expected = sum(len(values) - 1 for values in OPTION_CHOICES.values()) + 2
    assert len(variants) == expected
    for option, value, config in variants:
        assert config.options_differing_from(base) == {option: (value, getattr(base, option))}
    caps = [value for option, value, _ in variants if option == "max_turns_per_round"]
    assert caps == [TURN_CAP_BELOW, TURN_CAP_ABOVE]
    assert TURN_CAP_BELOW < base.max_turns_per_round < TURN_CAP_ABOVE


def test_tallies_merge_exactly_in_any_order() -> None:
    config = preset("fr")
    parts = [measure_game(3, config, game_seed(9, i), ["greedy"] * 3) for i in range(3)]
    forward = Tally(3)
    for part in parts:
        forward.merge(Tally.from_dict(part.to_dict()))
    backward = Tally(3)
    for part in reversed(parts):
        backward.merge(Tally.from_dict(part.to_dict()))
    assert forward == backward == analyze(3, games=3, config=config, seed=9, bots=["greedy"] * 3)
    assert Tally.from_dict(forward.to_dict()) == forward
    with pytest.raises(ValueError, match="merge"):
        forward.merge(Tally(4))


def test_jobs_do_not_change_the_figures() -> None:
    config = preset("seeds")
    one = analyze(3, games=7, config=config, seed=4, bots=["greedy"] * 3, jobs=1)
    two = analyze(3, games=7, config=config, seed=4, bots=["greedy"] * 3, jobs=2)
    assert one == two
    assert report(one) == report(two)


def test_cli_jobs_1_and_2_write_the_same_json(tmp_path: Path) -> None:
    outs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"jobs{jobs}.json"
        argv = ["analyze", "--preset", "fr", "--players", "2-3", "--games", "4", "--seed", "5"]
        assert main([*argv, "--jobs", jobs, "--json", str(path), "--no-progress"]) == 0
        outs.append(path.read_text(encoding="utf-8"))
    assert outs[0] == outs[1]
    data = json.loads(outs[0])
    assert data["command"] == (
        "allegra-rules analyze --preset fr --players 2-3 --bots greedy --games 4 --seed 5"
    )
    assert [t["rules"]["players"] for t in data["tables"]] == [2, 3]
    assert "GreedyBot" in data["bots_note"]


def test_compare_finds_a_real_change_and_not_a_null_one() -> None:
    config = preset("published")
    base = report(analyze(4, games=6, config=config, seed=1, bots=["greedy"] * 4))
    same = report(analyze(4, games=6, config=config, seed=1, bots=["greedy"] * 4))
    assert all(row["difference"] == 0 and row["p"] == 1 for row in compare(base, same))
    never = attrs.evolve(config, knocking="never")
    other = report(analyze(4, games=6, config=never, seed=1, bots=["greedy"] * 4))
    rows = {row["measure"]: row for row in compare(base, other)}
    knocks = rows["round_knocks"]
    assert knocks["variant"] == 0 and knocks["difference"] < 0 and knocks["p"] < 1e-6
    assert knocks["low"] < knocks["difference"] < knocks["high"] < 0
    assert "knock_rate" not in rows  # no chance to knock at all: no rate to compare


def test_cli_options_says_which_changes_are_significant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "options.json"
    argv = ["analyze", "--preset", "published", "--options", "--games", "3", "--seed", "2"]
    assert main([*argv, "--json", str(path), "--no-progress"]) == 0
    text = capsys.readouterr().out
    data = json.loads(path.read_text(encoding="utf-8"))
    options = data["options"]
    assert len(options["variants"]) == len(option_variants(preset("published")))
    rows = options["comparisons"]
    adjusted = holm([row["p"] for row in rows])
    assert [row["p_holm"] for row in rows] == pytest.approx(adjusted, rel=1e-5)
    assert all(row["significant"] == (row["p_holm"] < 0.05) for row in rows)
    never = [r for r in rows if r["option"] == "knocking" and r["value"] == "never"]
    assert any(r["measure"] == "round_knocks" and r["significant"] for r in never)
    assert "knocking=never: knocks per round down by" in text


def test_cli_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--players", "2-x"]) == 2
    assert main(["analyze", "--players", "7"]) == 2
    assert main(["analyze", "--options", "--players", "2-3"]) == 2
    assert main(["analyze", "--games", "0"]) == 2
    assert main(["analyze", "--config", "/nonexistent/config.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("allegra-rules: error:") == 5


def test_cli_reads_a_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = RuleConfig(knocking="never", row_match="adjacent")
    path = tmp_path / "rules.json"
    path.write_text(config.to_json(), encoding="utf-8")
    out = tmp_path / "out.json"
    argv = ["analyze", "--config", str(path), "--players", "3", "--games", "2"]
    assert main([*argv, "--json", str(out), "--no-progress"]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    table = data["tables"][0]
    assert table["rules"]["config_fingerprint"] == config.fingerprint
    assert table["rules"]["preset"] is None
    assert data["command"].startswith(f"allegra-rules analyze --config {path}")
    assert table["report"]["rules"]["knock_windows"] == 0
    capsys.readouterr()
    path.write_text('{"knocking": "sometimes"}', encoding="utf-8")
    assert main([*argv, "--no-progress"]) == 2
    assert "--config" in capsys.readouterr().err
