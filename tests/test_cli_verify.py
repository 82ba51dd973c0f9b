"""``allegra-rules verify``: a record's deal against its commitment, and its replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from allegra_rules import GameRecord, apply, legal_actions, new_game
from allegra_rules.cli import main
from allegra_rules.records import commit_deal


def _record(seed: int = 9, moves: int | None = 40) -> GameRecord:
    state = new_game(2, seed=seed)
    actions = []
    while not state.is_terminal and (moves is None or len(actions) < moves):
        action = legal_actions(state)[0]
        actions.append(action)
        state = apply(state, action)
    salt, commitment = commit_deal(seed)
    return GameRecord(
        num_players=2,
        seed=seed,
        actions=tuple(actions),
        deal_commitment=commitment,
        deal_salt=salt.hex(),
    )


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["verify", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_true_record_is_verified_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _record(moves=None)
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    commitment = record.deal_commitment
    assert commitment is not None
    code, out, err = _run(capsys, str(path))
    assert (code, err) == (0, "")
    assert out.count("\n") == 1 and out.startswith("verified: seed 9 ")
    assert commitment in out and f"all {len(record.actions)} actions" in out
    assert "the game is over" in out
    code, out, err = _run(capsys, str(path), "--commitment", commitment.upper())
    assert (code, err) == (0, "") and "noted at the start" in out


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"seed": 10}, "$.deal_commitment: deal_commitment is not the commitment"),
        ({"deal_salt": "0" * 64}, "$.deal_commitment: deal_commitment is not the commitment"),
        ({"final_state_sha256": "0" * 64}, "$.final_state_sha256: the replayed game ends"),
        ({"final_state_sha256": None}, "names no final state"),
        ({"deal_commitment": None, "deal_salt": None}, "carries no deal commitment"),
    ],
)
def test_a_changed_record_fails_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, object], reason: str
) -> None:
    data = json.loads(_record().to_json())
    data.update(change)
    data = {k: v for k, v in data.items() if not (k.startswith("deal_") and v is None)}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = _run(capsys, str(path))
    assert (code, out) == (1, "")
    assert err.startswith("allegra-rules: error: ") and reason in err and err.count("\n") == 1


def test_an_illegal_action_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(_record().to_json())
    data["actions"][3], data["actions"][10] = data["actions"][10], data["actions"][3]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = _run(capsys, str(path))
    assert code == 1 and "$.actions[" in err and "is not legal here" in err


def test_another_commitment_than_the_one_noted_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    path.write_text(_record().to_json(), encoding="utf-8")
    other = commit_deal(9)[1]  # the same seed, another salt: another commitment
    code, out, err = _run(capsys, str(path), "--commitment", other)
    assert (code, out) == (1, "")
    assert f"not as the commitment noted at the start, {other}" in err
    code, _, err = _run(capsys, str(path), "--commitment", "abc")
    assert code == 2 and "--commitment must be 64 hex digits" in err
    code, _, err = _run(capsys, str(tmp_path / "missing.json"))
    assert code == 1 and "cannot read" in err
