"""RuleConfig validation, JSON, fingerprints, and the released presets (golden)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import attrs
import pytest

from allegra_rules import DEFAULT_DECK, OPTION_CHOICES, PRESETS, RuleConfig, preset
from allegra_rules.presets import preset_id, preset_ids, preset_names

GOLDEN = Path(__file__).parent / "golden" / "presets.json"


@pytest.mark.rule("R19.1", "R19.3")
def test_default_is_seeds_preset() -> None:
    assert RuleConfig() == preset("seeds")
    assert RuleConfig().fingerprint == preset("seeds@1").fingerprint


@pytest.mark.rule("R19.1")
def test_every_ambiguity_option_is_a_field() -> None:
    names = {f.name for f in attrs.fields(RuleConfig)}
    assert set(OPTION_CHOICES) <= names
    assert {"deck", "min_players", "max_players", "max_turns_per_round"} <= names
    for field in attrs.fields(RuleConfig):
        assert field.metadata["ambiguity"].startswith("A"), field.name
        assert field.metadata["doc"], field.name


@pytest.mark.rule("R19.1")
@pytest.mark.parametrize("name", sorted(OPTION_CHOICES))
def test_string_options_accept_listed_values_and_default_to_the_first(name: str) -> None:
    choices = OPTION_CHOICES[name]
    assert getattr(RuleConfig(), name) == choices[0]
    for value in choices:
        assert getattr(RuleConfig(**{name: value}), name) == value


@pytest.mark.rule("R19.1")
@pytest.mark.parametrize("name", sorted(OPTION_CHOICES))
@pytest.mark.parametrize("bad", ["nope", "", None, 3, "ZONE"])
def test_bad_option_values_name_the_field_and_the_allowed_values(name: str, bad: object) -> None:
    with pytest.raises(ValueError, match=f"RuleConfig.{name} must be one of") as info:
        RuleConfig(**{name: bad})
    for value in OPTION_CHOICES[name]:
        assert repr(value) in str(info.value)


@pytest.mark.rule("R19.1", "R1.2", "R2.1", "R14.1")
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"min_players": 1}, "min_players"),
        ({"min_players": True}, "min_players"),
        ({"max_players": 0}, "max_players"),
        ({"min_players": 4, "max_players": 3}, "max_players"),
        ({"max_turns_per_round": 0}, "max_turns_per_round"),
        ({"max_turns_per_round": 2.5}, "max_turns_per_round"),
        ({"deck": {1: 0}}, "deck"),
        ({"deck": {1: 10}}, "deck"),
        ({"deck": {"1": 30}}, "deck"),
        ({"deck": [(1, 30), (1, 2)]}, "deck"),
    ],
)
def test_bad_numbers_name_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=f"RuleConfig.{field}"):
        RuleConfig(**kwargs)  # type: ignore[arg-type]


@pytest.mark.rule("R19.1")
def test_keyword_only_and_frozen() -> None:
    with pytest.raises(TypeError):
        RuleConfig("zone")  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        RuleConfig().knocking = "never"  # type: ignore[misc]


@pytest.mark.rule("R2.1")
def test_default_deck_is_the_documented_120_cards() -> None:
    config = RuleConfig()
    assert config.deck_size == 120
    assert dict(config.deck) == {
        -1: 6, 0: 7, 1: 8, 2: 10, 3: 11, 4: 12, 5: 12,
        6: 12, 7: 11, 8: 10, 9: 8, 10: 7, 11: 6,
    }  # fmt: skip
    assert config.deck == DEFAULT_DECK
    assert config.deck_cards() == tuple(sorted(config.deck_cards()))


@pytest.mark.rule("R2.1", "R19.1")
def test_deck_accepts_a_mapping_and_normalises_order() -> None:
    a = RuleConfig(deck={5: 20, 1: 20})
    b = RuleConfig(deck=[(1, 20), (5, 20)])
    assert a == b
    assert a.deck == ((1, 20), (5, 20))


@pytest.mark.rule("R19.2")
def test_canonical_json_and_fingerprint() -> None:
    config = RuleConfig(knocking="never")
    text = config.to_json()
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, separators=(",", ":"))
    assert data["deck"]["-1"] == 6
    assert data["knocking"] == "never"
    assert config.fingerprint == hashlib.sha256(text.encode()).hexdigest()
    assert RuleConfig.from_json(text) == config
    assert RuleConfig().fingerprint != config.fingerprint


@pytest.mark.rule("R19.2")
def test_from_json_rejects_unknown_and_missing_keys() -> None:
    data = json.loads(RuleConfig().to_json())
    data["colour"] = "red"
    with pytest.raises(ValueError, match=r"unknown keys \['colour'\]"):
        RuleConfig.from_json(json.dumps(data))
    data = json.loads(RuleConfig().to_json())
    del data["row_match"]
    with pytest.raises(ValueError, match=r"missing keys \['row_match'\]"):
        RuleConfig.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="does not parse"):
        RuleConfig.from_json("{")
    with pytest.raises(ValueError, match="JSON object"):
        RuleConfig.from_json("[]")
    data = json.loads(RuleConfig().to_json())
    data["deck"] = {"one": 3}
    with pytest.raises(ValueError, match="card value 'one'"):
        RuleConfig.from_json(json.dumps(data))
    data["deck"] = {"01": 120}
    with pytest.raises(ValueError, match="not canonical"):
        RuleConfig.from_json(json.dumps(data))


@pytest.mark.rule("R19.3")
def test_preset_names_versions_and_errors() -> None:
    assert preset_names() == ("seeds", "de", "pl", "fr", "published")
    for name in preset_names():
        assert preset(name) == preset(f"{name}@{len(PRESETS[name])}")
        assert preset_id(name) == f"{name}@{len(PRESETS[name])}"
    with pytest.raises(ValueError, match="known presets: seeds, de, pl, fr, published"):
        preset("skyjo")
    with pytest.raises(ValueError, match=r"released versions are 1\.\.1"):
        preset("fr@2")
    with pytest.raises(ValueError, match="unknown version"):
        preset("fr@x")
    with pytest.raises(ValueError, match="unknown version"):
        preset("fr@0")


@pytest.mark.rule("R19.3")
def test_preset_readings() -> None:
    seeds = preset("seeds")
    assert preset("de@1") == seeds
    assert preset("pl@1") == seeds
    assert preset("fr@1").options_differing_from(seeds) == {
        "discard_draw": ("may_discard", "must_swap"),
        "removed_cards": ("discard", "out_of_play"),
    }
    assert preset("published@1").options_differing_from(seeds) == {
        "double_nonpositive": ("no", "yes"),
        "knocking": ("three_or_more", "always"),
    }


@pytest.mark.rule("R19.2", "R19.4")
def test_later_options_are_left_out_at_their_legacy_value() -> None:
    later = {f.name: f.metadata for f in attrs.fields(RuleConfig) if f.metadata["added"] != "0.1.0"}
    assert set(later) == {"scoring_triples", "setup_reveals"}
    for name, meta in later.items():
        assert meta["added"] == "0.2.0"
        assert meta["legacy"] == OPTION_CHOICES[name][0] == getattr(RuleConfig(), name)
    for field in attrs.fields(RuleConfig):
        assert field.metadata["added"] == later.get(field.name, {"added": "0.1.0"})["added"]
    # The canonical JSON of a config at the legacy values is the 0.1.0 JSON.
    data = json.loads(RuleConfig().to_json())
    assert not set(later) & set(data)
    assert len(data) == len(attrs.fields(RuleConfig)) - len(later)
    assert RuleConfig().later_options == {}
    # A later option away from its legacy value is written, and read back.
    changed = RuleConfig(setup_reveals="simultaneous")
    assert json.loads(changed.to_json())["setup_reveals"] == "simultaneous"
    assert "scoring_triples" not in json.loads(changed.to_json())
    assert changed.later_options == {"setup_reveals": "simultaneous"}
    assert RuleConfig.from_json(changed.to_json()) == changed
    assert changed.fingerprint != RuleConfig().fingerprint
    # Written out at the legacy value, a later option is accepted and means the same.
    explicit = dict(data, scoring_triples="kept")
    assert RuleConfig.from_json(json.dumps(explicit)) == RuleConfig()
    assert set(RuleConfig().to_dict(complete=True)) == {f.name for f in attrs.fields(RuleConfig)}


@pytest.mark.rule("R19.2", "R19.4")
def test_from_json_still_requires_every_0_1_0_option() -> None:
    for name in json.loads(RuleConfig().to_json()):
        data = json.loads(RuleConfig().to_json())
        del data[name]
        with pytest.raises(ValueError, match=rf"missing keys \['{name}'\]"):
            RuleConfig.from_json(json.dumps(data))


@pytest.mark.rule("R19.3", "R19.4")
def test_released_presets_never_change() -> None:
    """Golden: every released preset version's canonical JSON is frozen on disk.

    A new reading must be released as a new version; append it to the golden file
    (``python tests/test_config.py --add-new-presets``) without touching old entries.
    """
    golden = json.loads(GOLDEN.read_text())
    for pid in preset_ids():
        assert pid in golden, f"{pid} is not recorded in {GOLDEN.name}"
        assert json.loads(preset(pid).to_json()) == golden[pid], f"{pid} changed"
        canonical = json.dumps(golden[pid], sort_keys=True, separators=(",", ":"))
        assert preset(pid).fingerprint == hashlib.sha256(canonical.encode()).hexdigest()
    assert set(golden) <= set(preset_ids()), "a released preset version disappeared"


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--add-new-presets"]:
        raise SystemExit("usage: python tests/test_config.py --add-new-presets")
    recorded = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    for pid in preset_ids():
        recorded.setdefault(pid, json.loads(preset(pid).to_json()))
    GOLDEN.write_text(json.dumps(recorded, indent=2, sort_keys=True) + "\n")
    print(f"recorded {len(recorded)} preset versions in {GOLDEN}")
