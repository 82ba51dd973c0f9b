"""Write a compatibility corpus: documents of this release that every later one must read.

Run it once per release, at the release commit, into a new folder named by the
version, and commit the folder::

    python tests/compat/make_corpus.py tests/compat/0.1.0

It uses the public API only and refuses to write into an existing folder: a released
corpus is never edited or regenerated. ``tests/test_compat.py`` loads every corpus
under ``tests/compat/``.

The corpus is found by introspection (``attrs.fields(RuleConfig)``, ``OPTION_CHOICES``,
``preset_ids()``, ``Phase``), so this same script, run at a later release, also covers
the options, presets and phases added by then. Each ``*.jsonl`` file holds one canonical
JSON document per line:

- ``configs.jsonl``: every released preset version, and custom configs that together
  use every value of every option, a small deck and a low turn cap.
- ``states.jsonl``: saved states (``state_to_json``) in every phase, from seeded games
  biased towards knocks and gives, under every config, with 2 to 6 seats.
- ``views.jsonl``: player views (``observe(state, seat).to_json()``) of a sample of
  those states, for every seat.
- ``spectator-views.jsonl``: the spectator's view (``observe(state, None)``) of the
  same states.
- ``records.jsonl``: game records of whole games played by seeded bots: every preset
  version with 2 to 6 seats, a few dealt from an explicit deck, a few under custom
  configs.
- ``seated-records.jsonl``: records with the optional keys, as ``allegra-rules play``
  saves them (``seats``, whole games and games cut short) and the table server
  publishes them (``deal_commitment`` and ``deal_salt``).
- ``actions.jsonl``: every distinct action (``action_to_json``) of the records.

A file added after a release's corpus was written (``--add``: documents that release
writes which its corpus lacked) comes with a manifest of its own,
``<name>.manifest.json``, so that no file already there is edited.

``manifest.json`` names the version that wrote the corpus and, for every document, its
line, its sha256, its config fingerprint and what it is (for a record, the digest of its
final state). The script stops before writing anything unless every phase, every
option value and every listed table situation (refills, gaps, removed triples, hand
cards, face-down cards moved in a knock exchange, ...) is covered.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

import allegra_rules
from allegra_rules import (
    OPTION_CHOICES,
    Action,
    Bot,
    GameRecord,
    GameState,
    Give,
    GreedyBot,
    Knock,
    Phase,
    RandomBot,
    RuleConfig,
    Swap,
    Take,
    action_to_json,
    apply,
    legal_actions,
    new_game,
    observe,
    preset,
    preset_id,
    preset_ids,
    replay,
    state_digest,
    state_to_json,
)
from allegra_rules.records import RECORD_OPTIONAL_KEYS, commit_deal

PLAYERS = range(2, 7)
"""The seat counts a corpus covers (those every preset allows)."""

SHAPE_FIELDS = {"deck", "min_players", "max_players", "max_turns_per_round"}
"""The ``RuleConfig`` fields without listed choices; the custom configs below vary them."""

SMALL_DECK = dict.fromkeys(range(-1, 9), 3)
"""30 cards, enough for two seats: the draw pile runs out and is refilled early."""

TURN_CAP = 12
"""A turn cap low enough that rounds end by it."""

STATE_TAGS: dict[str, Callable[[GameState, GameState | None], bool]] = {
    "later_round": lambda s, prev: s.round > 1,
    "refilled": lambda s, prev: s.refills > 0,
    "gap": lambda s, prev: any(v is None for v in s.cells),
    "out_of_play": lambda s, prev: bool(s.out_of_play),
    "triple_to_discard": lambda s, prev: (
        prev is not None
        and _gaps(s) >= _gaps(prev) + 3
        and len(s.out_of_play) == len(prev.out_of_play)
    ),
    "several_knockers": lambda s, prev: len(s.knockers) > 1,
    "in_hand": lambda s, prev: bool(s.in_hand),
    "hand_was_face_down": lambda s, prev: s.hand_was_face_down,
    "held_was_face_down": lambda s, prev: s.held_was_face_down,
    "final_turns": lambda s, prev: s.ender is not None,
    "doubled": lambda s, prev: s.last_round is not None and s.last_round.doubled,
    "turn_cap": lambda s, prev: s.last_round is not None and s.last_round.ender is None,
}
"""Table situations the saved states must show, besides every phase."""

TAG_SAMPLES = 3
"""States kept for each table situation (the first ones seen)."""

VIEW_EVERY = 6
"""Besides one state per phase and situation, every ``VIEW_EVERY``-th state gets views."""


def require(condition: bool, message: str) -> None:
    """Stop the script (before anything is written) unless ``condition`` holds."""
    if not condition:
        raise SystemExit(f"make_corpus: {message}")


def _gaps(state: GameState) -> int:
    return sum(v is None for v in state.cells)


def options_config(options: dict[str, Any], **shape: Any) -> RuleConfig:
    """A config with string ``options`` (name -> value) and ``shape`` fields."""
    return RuleConfig(**options, **shape)


def custom_configs() -> dict[str, RuleConfig]:
    """Configs that together use every value of every option, a small deck and a turn cap.

    One config per option value that is not the default (that option alone changed),
    ``mix1``.. configs that change every option at once (option ``o`` takes value
    ``k % len(choices)`` in ``mix<k>``), and two that change the table's shape.
    """
    unknown = {f.name for f in attrs.fields(RuleConfig)} - set(OPTION_CHOICES) - SHAPE_FIELDS
    require(
        not unknown,
        f"RuleConfig fields {sorted(unknown)} have no OPTION_CHOICES entry: teach "
        "custom_configs() which values to give them",
    )
    configs = {
        f"{name}={value}": options_config({name: value})
        for name, choices in OPTION_CHOICES.items()
        for value in choices[1:]
    }
    widest = max(len(choices) for choices in OPTION_CHOICES.values())
    for k in range(1, widest + 1):
        configs[f"mix{k}"] = options_config(
            {name: choices[k % len(choices)] for name, choices in OPTION_CHOICES.items()}
        )
    configs["small_deck"] = RuleConfig(deck=SMALL_DECK, max_players=2)
    configs["turn_cap"] = options_config(
        {name: choices[-1] for name, choices in OPTION_CHOICES.items()},
        max_turns_per_round=TURN_CAP,
    )
    for name, choices in OPTION_CHOICES.items():
        used = {getattr(config, name) for config in configs.values()}
        require(used == set(choices), f"the custom configs miss {name} = {set(choices) - used}")
    return configs


def players_for(config: RuleConfig, wanted: int) -> int:
    """``wanted`` seats, within what ``config`` allows and can deal."""
    return max(config.min_players, min(wanted, config.most_players()))


def biased_choice(rng: random.Random, state: GameState) -> Action:
    """A random legal action, preferring knocks, gives and face-down cards in an exchange."""
    legal = legal_actions(state)
    gives = [a for a in legal if isinstance(a, Give)]
    if gives and rng.random() < 0.6:
        return rng.choice(gives)
    if any(isinstance(a, Knock) for a in legal) and rng.random() < 0.6:
        return next(a for a in legal if isinstance(a, Knock))
    if state.phase in (Phase.KNOCKER_SWAP, Phase.TAKE) and rng.random() < 0.7:
        hidden = [
            a
            for a in legal
            if isinstance(a, (Swap, Take)) and state.card(a.pos) is not None
            if not state.is_face_up(a.pos)
        ]
        if hidden:
            return rng.choice(hidden)
    return rng.choice(legal)


def biased_game(config: RuleConfig, num_players: int, seed: int) -> Iterator[GameState]:
    """Every state of one seeded biased random game, first to last."""
    rng = random.Random(seed)
    state = new_game(num_players, config=config, seed=seed)
    yield state
    while not state.is_terminal:
        state = apply(state, biased_choice(rng, state))
        yield state


def sample_states(
    games: list[tuple[str, RuleConfig, int, int]],
) -> tuple[list[tuple[str, GameState]], list[tuple[str, GameState]]]:
    """Saved states of ``games`` (label, config, seats, seed), and the ones to view.

    Each state comes with the label of the config it was played under.

    From each game one state per phase, drawn uniformly among that game's states of
    the phase; over all games the first :data:`TAG_SAMPLES` states of each table
    situation of :data:`STATE_TAGS`.
    """
    kept: dict[str, tuple[str, GameState]] = {}
    first_of: dict[str, list[str]] = {}
    for label, config, num_players, seed in games:
        rng = random.Random(seed)
        pick: dict[Phase, GameState] = {}
        seen: dict[Phase, int] = {}
        prev: GameState | None = None
        for state in biased_game(config, num_players, seed):
            seen[state.phase] = seen.get(state.phase, 0) + 1
            if rng.randrange(seen[state.phase]) == 0:
                pick[state.phase] = state
            for tag, test in STATE_TAGS.items():
                if test(state, prev) and len(first_of.setdefault(tag, [])) < TAG_SAMPLES:
                    text = state_to_json(state)
                    kept.setdefault(text, (label, state))
                    first_of[tag].append(text)
            prev = state
        for phase, state in pick.items():
            text = state_to_json(state)
            kept.setdefault(text, (label, state))
            first_of.setdefault(f"phase:{phase.value}", []).append(text)
    missing = [p.value for p in Phase if f"phase:{p.value}" not in first_of]
    missing += [tag for tag in STATE_TAGS if tag not in first_of]
    require(not missing, f"no saved state shows {missing}: play more or other games")
    viewed = {first[0] for first in first_of.values()}
    viewed.update(list(kept)[::VIEW_EVERY])
    return list(kept.values()), [kept[text] for text in kept if text in viewed]


def play_bots(record: GameRecord, seed: int) -> GameRecord:
    """``record`` played to its end by seeded bots, seat by seat Random or Greedy."""
    bots: list[Bot] = [
        GreedyBot(seed + seat) if (seed + seat) % 2 else RandomBot(seed + seat)
        for seat in range(record.num_players)
    ]
    state = record.initial_state()
    actions = []
    while not state.is_terminal:
        assert state.current_player is not None
        action = bots[state.current_player].choose(state)
        actions.append(action)
        state = apply(state, action)
    return record.with_actions(*actions)


def game_records(customs: dict[str, RuleConfig]) -> list[tuple[str, GameRecord]]:
    """Whole games: every preset version with 2..6 seats, explicit decks, custom configs.

    Each record comes with the label of its config (a preset id or a custom name).

    The preset games name their preset in turn by its pinned id, by its bare name
    (when that is the newest version) and not at all (``preset=None``: the record
    finds the first equal preset version itself).
    """
    records = []
    for i, pid in enumerate(preset_ids()):
        base = pid.partition("@")[0]
        names: list[str | None] = [pid, None]
        if preset_id(base) == pid:
            names.append(base)
        for num_players in PLAYERS:
            seed = 1000 + 10 * i + num_players
            record = GameRecord(
                num_players=num_players,
                config=preset(pid),
                seed=seed,
                preset=names[(i + num_players) % len(names)],
            )
            records.append((pid, play_bots(record, seed)))
    rng = random.Random(7)
    decked: list[tuple[str, int, int | None]] = [
        ("seeds@1", 3, 2001),
        ("fr@1", 4, None),
        ("mix1", 2, None),
        ("small_deck", 2, 2004),
    ]
    for k, (name, num_players, given_seed) in enumerate(decked):
        config = customs[name] if name in customs else preset(name)
        deck = list(config.deck_cards())
        rng.shuffle(deck)
        record = GameRecord(num_players=num_players, config=config, seed=given_seed, deck=deck)
        records.append((name, play_bots(record, 2000 + k)))
    for k, name in enumerate(["mix1", "mix2", "turn_cap", "small_deck"]):
        config = customs[name]
        record = GameRecord(
            num_players=players_for(config, 3 + k), config=config, seed=3000 + k, preset=None
        )
        records.append((name, play_bots(record, 3000 + k)))
    return records


SEAT_NAMES = ("person", "greedy", "random", "search-easy", "policy")
"""Who may have played a seat, as ``GameRecord.seats`` names them (a person or a bot)."""


def seated_records() -> list[tuple[str, GameRecord]]:
    """Records as ``allegra-rules play`` and the table server write them, with their keys.

    Every preset version with 2 to 6 seats, in turn: saved by ``play`` with ``seats``
    (whole games, and games cut short as a save on quitting holds them), or published
    by the server with the deal's ``deal_commitment`` and ``deal_salt`` (the salt made
    from the seed, so that the script writes the same records each time), or both.
    """
    records = []
    for i, pid in enumerate(preset_ids()):
        for num_players in PLAYERS:
            seed = 4000 + 10 * i + num_players
            salt, commitment = commit_deal(seed, hashlib.sha256(b"corpus %d" % seed).digest())
            keys: dict[str, Any] = {}
            if (i + num_players) % 3 != 1:
                keys["seats"] = tuple(
                    SEAT_NAMES[(seed + seat) % len(SEAT_NAMES)] for seat in range(num_players)
                )
            if (i + num_players) % 3 != 0:
                keys |= {"deal_commitment": commitment, "deal_salt": salt.hex()}
            record = GameRecord(num_players=num_players, config=preset(pid), seed=seed, **keys)
            played = play_bots(record, seed)
            if (i + num_players) % 2:
                cut = random.Random(seed).randrange(len(played.actions))
                played = attrs.evolve(played, actions=played.actions[:cut])
            records.append((pid, played))
    return records


def record_entries(records: list[tuple[str, GameRecord]], docs: list[str]) -> list[dict[str, Any]]:
    """The manifest entries of ``records`` (their label and record) written as ``docs``."""
    return [
        entry(
            i,
            text,
            config=label,
            preset=r.preset,
            num_players=r.num_players,
            dealt_from_deck=r.deck is not None,
            config_fingerprint=r.config_fingerprint,
            final_state_digest=state_digest(replay(r)),
        )
        for i, ((label, r), text) in enumerate(zip(records, docs, strict=True), 1)
    ]


def entry(line: int, text: str, **facts: Any) -> dict[str, Any]:
    """A manifest entry: the document's line (1-based), its sha256 and ``facts``."""
    return {"line": line, "sha256": hashlib.sha256(text.encode()).hexdigest(), **facts}


def view_documents(
    viewed: list[tuple[str, GameState]], *, spectator: bool
) -> tuple[list[str], list[dict[str, Any]]]:
    """The views of ``viewed`` states: every seat's, or the spectator's; with their entries."""
    docs: list[str] = []
    entries: list[dict[str, Any]] = []
    for label, s in viewed:
        for seat in [None] if spectator else list(range(s.num_players)):
            text = observe(s, seat).to_json()
            docs.append(text)
            entries.append(
                entry(
                    len(docs),
                    text,
                    config=label,
                    phase=s.phase.value,
                    viewer=seat,
                    config_fingerprint=s.config.fingerprint,
                )
            )
    return docs, entries


FILES: dict[str, str] = {
    "configs.jsonl": "config",
    "states.jsonl": "state",
    "views.jsonl": "view",
    "spectator-views.jsonl": "view",
    "records.jsonl": "record",
    "seated-records.jsonl": "record",
    "actions.jsonl": "action",
}
"""Every file ``build`` writes, with the kind of its documents (``tests/test_compat.py``
checks that this version's corpus holds each one)."""


def build() -> dict[str, tuple[str, list[str], list[dict[str, Any]]]]:
    """Every corpus file (``FILES``): ``{file name: (kind, documents, manifest entries)}``."""
    customs = custom_configs()
    named = {pid: preset(pid) for pid in preset_ids()} | customs
    configs = [c.to_json() for c in named.values()]
    config_entries = [
        entry(
            i,
            text,
            name=name,
            preset=name if name in preset_ids() else None,
            config_fingerprint=config.fingerprint,
        )
        for i, ((name, config), text) in enumerate(zip(named.items(), configs, strict=True), 1)
    ]

    games = []
    for i, pid in enumerate(preset_ids()):
        games += [(pid, preset(pid), n, 100 * i + n) for n in PLAYERS]
    for i, (name, config) in enumerate(customs.items()):
        games.append((name, config, players_for(config, PLAYERS[i % len(PLAYERS)]), 5000 + i))
    states, viewed = sample_states(games)
    state_docs = [state_to_json(s) for _label, s in states]
    state_entries = [
        entry(
            i,
            text,
            config=label,
            phase=s.phase.value,
            num_players=s.num_players,
            config_fingerprint=s.config.fingerprint,
        )
        for i, ((label, s), text) in enumerate(zip(states, state_docs, strict=True), 1)
    ]

    view_docs, view_entries = view_documents(viewed, spectator=False)
    spectator_docs, spectator_entries = view_documents(viewed, spectator=True)

    records = game_records(customs)
    record_docs = [r.to_json() for _label, r in records]
    seated = seated_records()
    seated_docs = [r.to_json() for _label, r in seated]
    for key in RECORD_OPTIONAL_KEYS:
        require(any(f'"{key}":' in text for text in seated_docs), f"no record has the key {key}")

    actions = sorted({action_to_json(a) for _label, r in records for a in r.actions})
    action_entries = [entry(i, text) for i, text in enumerate(actions, 1)]
    files = {
        "configs.jsonl": ("config", configs, config_entries),
        "states.jsonl": ("state", state_docs, state_entries),
        "views.jsonl": ("view", view_docs, view_entries),
        "spectator-views.jsonl": ("view", spectator_docs, spectator_entries),
        "records.jsonl": ("record", record_docs, record_entries(records, record_docs)),
        "seated-records.jsonl": ("record", seated_docs, record_entries(seated, seated_docs)),
        "actions.jsonl": ("action", actions, action_entries),
    }
    assert {name: made[0] for name, made in files.items()} == FILES
    return files


def manifest_text(files: dict[str, tuple[str, list[str], list[dict[str, Any]]]]) -> str:
    """``manifest.json``: the version, then each file with one document entry per line."""

    def dump(data: object) -> str:
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    parts = []
    for name, (kind, _docs, entries) in files.items():
        rows = ",\n".join(f"    {dump(e)}" for e in entries)
        parts.append(
            f'  {{"file": {dump(name)}, "kind": {dump(kind)}, "documents": [\n{rows}\n  ]}}'
        )
    files_text = ",\n".join(parts)
    version = dump(allegra_rules.__version__)
    return f'{{"allegra_rules_version": {version}, "files": [\n{files_text}\n]}}\n'


def main(argv: list[str] | None = None) -> int:
    """Build the corpus in memory, check its coverage, then write it to a new folder.

    With ``--add``, write into this version's existing folder only the files it lacks
    (documents that this version writes and its corpus did not yet hold), each with a
    manifest of its own, ``<name>.manifest.json``: no file already there is touched.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="a new folder, named by the version")
    parser.add_argument(
        "--add",
        action="store_true",
        help="add the files that this version's existing folder lacks, leaving the others",
    )
    args = parser.parse_args(argv)
    folder: Path = args.folder
    if folder.exists() and not args.add:
        parser.error(f"{folder} exists: a released corpus is never edited or regenerated")
    if args.add and not (folder / "manifest.json").is_file():
        parser.error(f"{folder} holds no corpus to add to")
    if folder.name != allegra_rules.__version__:
        parser.error(f"name the folder by the version: .../{allegra_rules.__version__}")
    files = build()
    if args.add:
        files = {name: made for name, made in files.items() if not (folder / name).exists()}
        manifests = {name: {name: made} for name, made in files.items()}
    else:
        manifests = {"manifest.json": files}
    for listed in manifests.values():
        json.loads(manifest_text(listed))
    folder.mkdir(parents=True, exist_ok=args.add)
    for name, (_kind, docs, _entries) in files.items():
        (folder / name).write_text("".join(f"{d}\n" for d in docs), encoding="utf-8")
    for name, listed in manifests.items():
        path = folder / (name if name == "manifest.json" else f"{Path(name).stem}.manifest.json")
        path.write_text(manifest_text(listed), encoding="utf-8")
    for name, (_kind, docs, _entries) in files.items():
        print(f"{folder / name}: {len(docs)} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main())
