"""Deal commitments: the documented encoding, checking, and records that carry one."""

from __future__ import annotations

import hashlib
import json

import pytest

from allegra_rules import GameRecord, SaveFormatError, apply, legal_actions, new_game
from allegra_rules.records import (
    DEAL_COMMITMENT_PREFIX,
    RECORD_KEYS,
    RECORD_OPTIONAL_KEYS,
    check_deal,
    commit_deal,
    deal_commitment,
)
from helpers import schema_validator


def _played(seed: int, moves: int) -> GameRecord:
    state = new_game(2, seed=seed)
    actions = []
    for _ in range(moves):
        action = legal_actions(state)[-1]
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


def test_the_commitment_is_sha256_of_prefix_decimal_seed_and_salt() -> None:
    salt = bytes(range(32))
    for seed in (0, 7, -12, 2**63 - 1, 2**256 - 1):
        expected = hashlib.sha256(
            b"allegra-rules deal commitment v1\n" + str(seed).encode("ascii") + salt
        ).hexdigest()
        assert deal_commitment(seed, salt) == expected
    assert DEAL_COMMITMENT_PREFIX == b"allegra-rules deal commitment v1\n"


def test_commit_and_check() -> None:
    salt, commitment = commit_deal(123)
    assert len(salt) == 32 and len(commitment) == 64
    assert check_deal(123, salt, commitment)
    assert check_deal(123, salt, commitment.upper())
    assert not check_deal(124, salt, commitment)
    assert not check_deal(123, bytes(32), commitment)
    assert commit_deal(123)[0] != salt, "each commitment has a fresh salt"
    assert commit_deal(123, salt) == (salt, commitment)


@pytest.mark.parametrize(
    ("seed", "salt", "commitment"),
    [
        (1.5, bytes(32), "0" * 64),
        (True, bytes(32), "0" * 64),
        (2**256, bytes(32), "0" * 64),
        (1, bytes(31), "0" * 64),
        (1, "00" * 32, "0" * 64),
        (1, bytes(32), "0" * 63),
        (1, bytes(32), "g" * 64),
        (1, bytes(32), None),
    ],
)
def test_bad_arguments_are_value_errors(seed: object, salt: object, commitment: object) -> None:
    with pytest.raises(ValueError, match=r"seed|salt|commitment"):
        check_deal(seed, salt, commitment)  # type: ignore[arg-type]


def test_a_record_with_a_commitment_round_trips_and_validates() -> None:
    record = _played(41, 12)
    text = record.to_json()
    data = json.loads(text)
    assert set(data) == {*RECORD_KEYS, "deal_commitment", "deal_salt"}
    assert {"deal_commitment", "deal_salt"} <= set(RECORD_OPTIONAL_KEYS)
    schema_validator("record").validate(data)
    loaded = GameRecord.from_json(text)
    assert loaded == record and loaded.to_json() == text
    assert check_deal(41, bytes.fromhex(data["deal_salt"]), data["deal_commitment"])


def test_a_record_without_one_is_written_as_before() -> None:
    record = _played(41, 12)
    plain = GameRecord(num_players=2, seed=41, actions=record.actions)
    data = json.loads(plain.to_json())
    assert set(data) == set(RECORD_KEYS)
    assert plain.to_json() == json.dumps(data, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"seed": 42}, "$.deal_commitment"),
        ({"deal_salt": "0" * 64}, "$.deal_commitment"),
        ({"deal_commitment": "1" * 64}, "$.deal_commitment"),
        ({"deal_commitment": "A" * 64}, "$.deal_commitment"),
        ({"deal_salt": None}, "$.deal_salt"),
        ({"deal_salt": 5}, "$.deal_salt"),
    ],
)
def test_a_changed_deal_is_refused(change: dict[str, object], where: str) -> None:
    data = json.loads(_played(41, 4).to_json())
    data.update(change)
    with pytest.raises(SaveFormatError, match=rf"^{where.replace('$', '[$]')}: "):
        GameRecord.from_json(json.dumps(data))


def test_half_a_commitment_is_refused() -> None:
    data = json.loads(_played(41, 4).to_json())
    del data["deal_salt"]
    with pytest.raises(SaveFormatError, match="give both or neither"):
        GameRecord.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="give both or neither"):
        GameRecord(num_players=2, seed=1, deal_commitment="0" * 64)
    salt, commitment = commit_deal(1)
    with pytest.raises(ValueError, match="needs a seed"):
        GameRecord(num_players=2, deal_commitment=commitment, deal_salt=salt.hex())
