"""Saved-game speed against an older revision: ``state_from_json`` and ``state_to_json``.

Run from the repository root:

    python benchmarks/saved_games.py --baseline 4d8312d

The package at ``--baseline`` (a git revision) is loaded next to this checkout's under
the name ``allegra_rules_baseline`` (its sources are taken with ``git archive`` into a
temporary folder and their imports renamed), so both run in one process. Both load and
write the same documents, states of seeded games under the 0.1.0 presets with 2 to 6
players (documents every release reads, byte for byte the same). The timings take
turns, baseline then current, in bursts of CPU time; the medians and their ratio are
printed. The loaders of both revisions check everything; the results are compared, so
a faster loader that accepts less or more would show.

``--floor`` adds rows that check less, to show what the checks cost: parsing the JSON
alone (the standard library's C parser); parsing plus building the state from the parsed
data with no check at all (no loader that parses with ``json`` can be faster); and the
current loader without its consistency checks (the types, sizes and ranges of every field
checked, then the state built).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import allegra_rules as current

ROOT = Path(__file__).resolve().parent.parent


def load_baseline(revision: str, folder: Path) -> ModuleType:
    """The package at ``revision`` as the module ``allegra_rules_baseline``."""
    archive = subprocess.run(
        ["git", "archive", revision, "src/allegra_rules"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    source = folder / "src" / "allegra_rules"
    target = folder / "allegra_rules_baseline"
    source.rename(target)
    for path in target.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("allegra_rules", "allegra_rules_baseline"), encoding="utf-8")
    sys.path.insert(0, str(folder))
    import allegra_rules_baseline  # type: ignore[import-not-found]

    module: ModuleType = allegra_rules_baseline
    return module


def documents(count: int) -> list[str]:
    """State documents of seeded random games under every 0.1.0 preset, 2 to 6 seats.

    The games are of schema version 1, the documents every release writes alike (a new
    game of this release is written in the newest version, which older ones write
    differently).
    """
    rng = random.Random(1)
    out: list[str] = []
    presets = ["seeds@1", "fr@1", "published@1"]
    while len(out) < count:
        config = current.preset(rng.choice(presets))
        state = current.new_game(
            rng.randint(2, 6), config=config, seed=rng.getrandbits(32), schema_version=1
        )
        for _ in range(rng.randint(0, 600)):
            if state.is_terminal:
                break
            state = current.apply(state, rng.choice(current.legal_actions(state)))
        out.append(current.state_to_json(state))
    return out


_PHASES = {phase.value: phase for phase in current.Phase}
_BIT = {False: "0", True: "1"}.__getitem__


def unchecked_state(text: str) -> current.GameState:
    """Parse a state document and build its state, checking nothing (the floor of a loader)."""
    from allegra_rules import serialize
    from allegra_rules.state import trusted_round_end, trusted_state

    d = serialize._DECODER.decode(text)
    config = serialize.read_table(d, "$").config  # a dictionary lookup once the config is known
    last = d["last_round"]
    if last is not None:
        last = trusted_round_end(
            round=last["round"],
            cells=tuple(last["cells"]),
            zone_sums=tuple(last["zone_sums"]),
            ender=last["ender"],
            doubled=last["doubled"],
            scores=tuple(last["scores"]),
            removed=tuple(last.get("removed", ())),
        )
    return trusted_state(
        config=config,
        num_players=d["num_players"],
        seed=d["seed"],
        round=d["round"],
        phase=_PHASES[d["phase"]],
        current_player=d["current_player"],
        cells=tuple(d["cells"]),
        face_down=int("".join(map(_BIT, reversed(d["face_down"]))), 2),
        draw_pile=tuple(d["draw_pile"]),
        discard_pile=tuple(d["discard_pile"]),
        held=d["held"],
        in_hand=tuple((e["player"], e["card"]) for e in d["in_hand"]),
        out_of_play=tuple(d["out_of_play"]),
        start_seat=d["start_seat"],
        setup_reveals=d["setup_reveals"],
        setup_sums=tuple(d["setup_sums"]),
        drawer=d["drawer"],
        knockers=tuple(d["knockers"]),
        knocker=d["knocker"],
        given_at=d["given_at"],
        taken_at=d["taken_at"],
        held_was_face_down=d["held_was_face_down"],
        hand_was_face_down=d["hand_was_face_down"],
        turns_played=d["turns_played"],
        ender=d["ender"],
        final_turns=tuple(d["final_turns"]),
        refills=d["refills"],
        totals=tuple(d["totals"]),
        round_scores=tuple(map(tuple, d["round_scores"])),
        winners=tuple(d["winners"]),
        last_round=last,
        setup_named=tuple(d.get("setup_named", ())),
    )


def types_and_ranges_only(text: str) -> current.GameState | None:
    """The current loader without its consistency checks: parse, check types and ranges, build."""
    from allegra_rules import serialize

    data = serialize.parse_document(text, what="state", check_depth=False)
    return serialize._state_fast(data, "$")


def burst(func: Callable[[Any], Any], items: list[Any]) -> float:
    """CPU seconds per item of one pass of ``func`` over ``items``."""
    start = time.process_time()
    for item in items:
        func(item)
    return (time.process_time() - start) / len(items)


def compare(
    name: str, funcs: dict[str, Callable[[Any], Any]], items: dict[str, Any], rounds: int
) -> None:
    times: dict[str, list[float]] = {key: [] for key in funcs}
    for _ in range(rounds):
        for key, func in funcs.items():
            times[key].append(burst(func, items[key]))
    base, new = (statistics.median(times[k]) for k in ("baseline", "current"))
    print(
        f"{name:14s} baseline {base * 1e6:8.1f} us  current {new * 1e6:8.1f} us  "
        f"speed-up {base / new:5.2f}x  ({1 / base:,.0f} -> {1 / new:,.0f} per second)"
    )
    for key in times:
        if key not in ("baseline", "current"):
            floor = statistics.median(times[key])
            print(f"  {key:34s} {floor * 1e6:8.1f} us  {base / floor:5.2f}x the baseline's speed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="4d8312d", help="git revision to compare with")
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument(
        "--floor", action="store_true", help="also time parsing alone, and parsing and building"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old = load_baseline(args.baseline, Path(folder))
        texts = documents(args.documents)
        old_states = [old.state_from_json(t) for t in texts]
        new_states = [current.state_from_json(t) for t in texts]
        assert [old.state_to_json(s) for s in old_states] == texts
        assert [current.state_to_json(s) for s in new_states] == texts
        print(f"{len(texts)} documents of {sum(map(len, texts)) // len(texts)} bytes on average")
        loaders: dict[str, Callable[[Any], Any]] = {
            "baseline": old.state_from_json,
            "current": current.state_from_json,
        }
        if args.floor:
            assert [unchecked_state(t) for t in texts] == new_states
            loaders["floor: json parse only"] = json.JSONDecoder().decode
            loaders["floor: parse and build, no checks"] = unchecked_state
            loaders["floor: no consistency checks"] = types_and_ranges_only
        compare("state_from_json", loaders, dict.fromkeys(loaders, texts), args.rounds)
        compare(
            "state_to_json",
            {"baseline": old.state_to_json, "current": current.state_to_json},
            {"baseline": old_states, "current": new_states},
            args.rounds,
        )


if __name__ == "__main__":
    main()
