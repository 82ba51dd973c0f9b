"""``allegra-rules demo`` and ``allegra-rules replay``: narrated games."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from allegra_rules.actions import Action
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.cli._common import (
    CommandError,
    Narrator,
    clockwise_line,
    players_line,
    terminal_size,
)
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset, preset_id
from allegra_rules.records import PERSON_SEAT, GameRecord
from allegra_rules.serialize import MAX_DOCUMENT_BYTES
from allegra_rules.simulate import bot_seed
from allegra_rules.state import GameState
from allegra_rules.transitions import ROUNDS, apply, new_game
from allegra_rules.wording import seat_name


def play_demo(
    num_players: int,
    seed: int,
    preset_name: str,
    bot_names: Sequence[str],
    out: TextIO,
    *,
    style: str = "full",
    config: RuleConfig | None = None,
) -> tuple[GameState, tuple[Action, ...]]:
    """``run_demo``, also returning every action played, in order.

    Args:
        num_players: seats at the table.
        seed: the game's seed; the bots' seeds derive from it.
        preset_name: a preset name such as ``"seeds"`` or ``"fr@1"``.
        bot_names: one name of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] per seat.
        out: where the narration goes.
        style: ``"full"`` (every action and a table after every turn), ``"turns"``
            (one line a turn, narrower than the terminal: the knock windows' passes
            left out, each action in the fewest words, cut with ``...`` when still
            wider), ``"rounds"`` (one line per round) or ``"quiet"``
            (the scores only).
        config: the rules to play instead of the preset's.
    """
    if config is None:
        config = preset(preset_name)
    if len(bot_names) != num_players:
        raise ValueError(f"bot_names must name {num_players} bots; got {len(bot_names)}")
    bots = [BOT_KINDS[name](bot_seed(seed, seat)) for seat, name in enumerate(bot_names)]
    state = new_game(num_players, config=config, seed=seed)
    columns, _ = terminal_size()
    turns = style == "turns"  # one line a turn: passes left out, cut at the width
    narrator = Narrator(
        out, names=bot_names, style=style, max_width=columns, brief=turns, cut=turns
    )
    rules = preset_id(preset_name) if config == preset(preset_name) else "a custom config"
    narrator.say_wrapped(
        f"Allegra demo: {num_players} players, preset {rules}, "
        f"seed {seed}, {ROUNDS} rounds; lowest total wins."
    )
    narrator.say_wrapped(players_line(bot_names))
    if style == "full":
        narrator.say_wrapped(clockwise_line(num_players))
    narrator.round_heading(state)
    actions: list[Action] = []
    while not state.is_terminal:
        narrator.turn_heading(state)
        seat = state.current_player
        assert seat is not None
        action = bots[seat].choose(state)
        after = apply(state, action)
        narrator.step(state, action, after)
        actions.append(action)
        state = after
    narrator.game_over(state)
    return state, tuple(actions)


def run_demo(
    num_players: int,
    seed: int,
    preset_name: str,
    bot_names: Sequence[str],
    out: TextIO,
    *,
    style: str = "full",
) -> GameState:
    """Play one game between bots and write its narration to ``out``.

    Seat ``p`` is played by ``BOT_KINDS[bot_names[p]]`` seeded with
    ``bot_seed(seed, p)``; the deal is ``new_game(num_players,
    config=preset(preset_name), seed=seed)``.

    Args:
        num_players: seats at the table.
        seed: the game's seed; the bots' seeds derive from it.
        preset_name: a preset name such as ``"seeds"`` or ``"fr@1"``.
        bot_names: one name of [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS] per seat.
        out: where the narration goes.
        style: how much to write: ``"full"``, ``"turns"``, ``"rounds"`` or
            ``"quiet"`` (see ``play_demo``).

    Returns:
        The final (terminal) state.

    Raises:
        ValueError: an unknown preset or bot name, or a seat count the preset does
            not allow.
    """
    state, _ = play_demo(num_players, seed, preset_name, bot_names, out, style=style)
    return state


def read_record(path: str) -> GameRecord:
    """Load and check the game record in file ``path`` (``-`` reads standard input).

    Raises:
        CommandError: the file cannot be read, or it is not a valid record (bad
            JSON, a changed config, an illegal action, a different final state...).
    """
    return load_record(read_input(path), path)


def read_input(path: str) -> bytes:
    """The bytes of file ``path`` (``-``: standard input, at most one document's worth).

    Raises:
        CommandError: the file cannot be read.
    """
    name = "standard input" if path == "-" else repr(path)
    try:
        if path == "-":
            return sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        return Path(path).read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror or exc}") from None


def load_record(data: bytes, path: str) -> GameRecord:
    """Check and load the record document ``data`` read from ``path``.

    Raises:
        CommandError: it is not a valid record (see ``read_record``).
    """
    name = "standard input" if path == "-" else repr(path)
    try:
        return GameRecord.from_json(data)
    except ValueError as exc:
        reason = " ".join(str(exc).split())
        raise CommandError(f"{name} is not a valid game record: {reason}") from None


def replay_names(record: GameRecord) -> list[str] | None:
    """Who played each seat of ``record``, in the players' words, or ``None`` if unknown.

    A bot seat is named by its kind ([`seat_name`][allegra_rules.wording.seat_name]:
    "Greedy bot", "Search bot 3"), a person's seat "Player N"; a record without its
    ``seats`` field gives ``None``.

    Examples:
        >>> from allegra_rules import GameRecord, preset
        >>> seats = ("person", "greedy")
        >>> record = GameRecord(num_players=2, config=preset("seeds"), seed=1, seats=seats)
        >>> replay_names(record)
        ['Player 1', 'Greedy bot']
    """
    if record.seats is None:
        return None
    bots = [None if seat == PERSON_SEAT else seat for seat in record.seats]
    return [seat_name(seat, None, bots=bots) for seat in range(record.num_players)]


def run_replay(
    record: GameRecord, out: TextIO, source: str = "the record", *, style: str = "full"
) -> GameState:
    """Narrate a recorded game turn by turn, as ``demo`` narrates a new one.

    Each move is told with who played it ([`replay_names`][allegra_rules.cli._demo.replay_names]:
    "Greedy bot draws a 3") when the record says who played each seat.

    Args:
        record: a checked game record.
        out: where the narration goes.
        source: how the header names the record (a file name).
        style: ``"full"`` (every action and a table after every turn) or ``"turns"``
            (one line a turn, as ``demo --summary``).

    Returns:
        The last state of the record (terminal unless the record stops early).
    """
    if style not in ("full", "turns"):
        raise ValueError(f"style must be 'full' or 'turns'; got {style!r}")
    state = record.initial_state()
    n = record.num_players
    rules = (
        f"preset {record.preset}"
        if record.preset is not None
        else f"a custom config (fingerprint {record.config.fingerprint[:12]})"
    )
    dealt = f"seed {record.seed}" if record.deck is None else "a stacked deck"
    names = replay_names(record)
    turns = style == "turns"
    narrator = Narrator(
        out,
        max_width=terminal_size()[0],
        style=style,
        brief=turns,
        cut=turns,
        seat_names=names,
    )
    narrator.say_wrapped(
        f"Allegra replay of {source}: {n} players, {rules}, {dealt}, "
        f"{len(record.actions)} actions; lowest total wins."
    )
    if names is None:
        narrator.say_wrapped("Players: the record does not say who played each seat.")
    else:
        played = [
            f"Player {seat + 1} ({'a person' if kind == PERSON_SEAT else name})"
            if name == f"Player {seat + 1}"
            else f"{name} (Player {seat + 1})"
            for seat, (name, kind) in enumerate(zip(names, record.seats or (), strict=True))
        ]
        narrator.say_wrapped("Players: " + ", ".join(played) + ".")
    if not turns:
        narrator.say_wrapped(clockwise_line(n))
    narrator.round_heading(state)
    for action in record.actions:
        narrator.turn_heading(state)
        after = apply(state, action)
        narrator.step(state, action, after)
        state = after
    if state.is_terminal:
        narrator.game_over(state)
    else:
        narrator.say()
        narrator.say(
            f"The record ends here, in round {state.round} before the game is over "
            f"({'nobody' if state.current_player is None else f'Player {state.current_player + 1}'}"
            " was to act)."
        )
    return state
