"""Golden playthroughs: seeded whole games must replay to the recorded text.

The games and the text format live in ``tests/golden_playthroughs.py``. After an
intended change of the rules or the shuffle, regenerate the files on purpose and
review the diff: ``python tests/golden_playthroughs.py --regenerate``.
"""

from __future__ import annotations

import difflib

import pytest

from golden_playthroughs import GAMES, GOLDEN_DIR, path_for, transcript

REGENERATE = "python tests/golden_playthroughs.py --regenerate"


@pytest.mark.rule("R18.1", "R18.2", "R2.2")
@pytest.mark.parametrize(("name", "n", "seed"), GAMES, ids=[f"{g[0]}-{g[1]}p" for g in GAMES])
def test_golden_playthrough_replays_exactly(name: str, n: int, seed: int) -> None:
    path = path_for(name, n, seed)
    assert path.exists(), f"{path} is missing; create it with: {REGENERATE}"
    expected = path.read_text(encoding="utf-8")
    actual = transcript(name, n, seed)
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), str(path), "replayed", lineterm=""
        )
        shown = "\n".join(list(diff)[:60])
        pytest.fail(f"the game no longer replays as recorded (if intended: {REGENERATE}):\n{shown}")


def test_every_golden_file_belongs_to_a_game_and_stays_small() -> None:
    recorded = {p.name for p in GOLDEN_DIR.glob("*.txt")}
    assert recorded == {path_for(*game).name for game in GAMES}
    assert all(2 <= n <= 3 for _, n, _ in GAMES)
    assert {name for name, _, _ in GAMES} == {"seeds", "de", "pl", "fr", "published"}
    for path in GOLDEN_DIR.glob("*.txt"):
        assert path.stat().st_size < 300_000, path.name
