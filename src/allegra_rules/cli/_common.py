"""Shared pieces of the command line: errors, argument checks, records, narration."""

from __future__ import annotations

import argparse
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from allegra_rules import wording
from allegra_rules.actions import Action, Pass
from allegra_rules.bot_kinds import BOT_KINDS
from allegra_rules.config import RuleConfig
from allegra_rules.presets import preset
from allegra_rules.records import GameRecord
from allegra_rules.render import (
    card_text,
    describe_action,
    describe_outcome,
    render_round_end,
    render_table,
    wrap_words,
)
from allegra_rules.state import GameState, Phase
from allegra_rules.transitions import ROUNDS

PROG = "allegra-rules"
"""The program name in messages."""


class UsageError(Exception):
    """A bad command line (exit code 2); the message is one line."""


class CommandError(Exception):
    """A command that cannot be carried out (exit code 1); the message is one line."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and never exit by themselves."""

    def error(self, message: str) -> NoReturn:
        """Raise ``UsageError`` instead of printing the usage and exiting."""
        raise UsageError(message)


def parse_bots(
    text: str,
    count: int,
    what: str = "the game has",
    unit: str = "players",
    *,
    config: RuleConfig | None = None,
    players: int | None = None,
) -> list[str]:
    """The bot names of ``--bots``: one name for every seat, or exactly ``count`` names.

    With ``config`` and ``players`` (the game's), also checks that each bot can play it.

    Raises:
        UsageError: an unknown name, or a number of names that is neither 1 nor ``count``.
        CommandError: a bot that cannot play this game (``bot_kinds.unavailable``: the
            shipped policy without NumPy or its weights, or for other rules or seats).
    """
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in BOT_KINDS]
    if unknown:
        raise UsageError(
            f"unknown bot {unknown[0]!r} in --bots; known bots: {', '.join(BOT_KINDS)}"
        )
    if config is not None and players is not None:
        from allegra_rules.bot_kinds import unavailable

        for name in dict.fromkeys(names):
            why = unavailable(name, config, players)
            if why is not None:
                raise CommandError(f"--bots {name}: {why}")
    if len(names) == 1:
        return names * count
    if len(names) != count:
        raise UsageError(
            f"--bots names {len(names)} bots but {what} {count} {unit} "
            "(give one name for all seats, or one per seat)"
        )
    return names


def load_config(name: str) -> RuleConfig:
    """The config of preset ``name``.

    Raises:
        UsageError: an unknown preset or version.
    """
    try:
        return preset(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def check_players(config: RuleConfig, name: str, num_players: int) -> None:
    """Check ``--players`` against what the preset can deal.

    Raises:
        UsageError: too few or too many seats.
    """
    low, high = config.min_players, config.most_players()
    if not low <= num_players <= high:
        raise UsageError(f"--players must be {low}..{high} with preset {name!r}; got {num_players}")


def check_save_path(path: Path | None) -> None:
    """Check, before a game starts, that ``--save`` names a file that can be written.

    Raises:
        UsageError: the folder does not exist, or the path is a folder.
    """
    if path is None:
        return
    if path.is_dir():
        raise UsageError(f"--save {str(path)!r} is a folder, not a file")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"--save {str(path)!r}: the folder {str(folder)!r} does not exist")


def save_record(
    path: Path,
    num_players: int,
    config: RuleConfig,
    seed: int,
    actions: Sequence[Action],
    seats: Sequence[str] | None = None,
    schema_version: int | None = None,
) -> None:
    """Write the game record JSON of a game dealt by ``new_game`` with ``seed``.

    Args:
        path: the file to write.
        num_players: the seat count.
        config: the rules.
        seed: the deal's seed.
        actions: every action so far.
        seats: who played each seat (``GameRecord.seats``), or ``None``.
        schema_version: the saved-game schema version the game is written in (a
            resumed game keeps its save's); ``None``: the newest.

    Raises:
        CommandError: the file cannot be written.
    """
    record = GameRecord(
        num_players=num_players,
        config=config,
        seed=seed,
        actions=actions,
        seats=None if seats is None else tuple(seats),
        schema_version=schema_version,
    )
    text = record.to_json()
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def silence_stdout() -> None:
    """Point standard output at the null device (after a broken pipe)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)


def clockwise_line(num_players: int) -> str:
    """The sentence on the order of play."""
    clockwise = " -> ".join(str(seat + 1) for seat in [*range(num_players), 0])
    return f"Play passes clockwise, Player {clockwise}; a player's left neighbour is the next one."


def players_line(kinds: Sequence[str | None], you: int | None = None) -> str:
    """The "Players: ..." line: who plays each seat that the narration calls "Player N".

    ``kinds``: per seat, its bot's name in [`BOT_KINDS`][allegra_rules.bot_kinds.BOT_KINDS],
    or ``None`` for a person; ``you``: the reader's seat. A bot is said by its kind, as the
    pages' badges say it; a search bot also by its level, as ``--bots`` names it.

    Examples:
        >>> players_line([None, "greedy", "search-easy"], you=0)
        'Players: Player 1 (you), Player 2 (Greedy bot), Player 3 (Search bot, search-easy).'
    """
    return "Players: " + ", ".join(player_named(s, k, you) for s, k in enumerate(kinds)) + "."


def player_named(seat: int, kind: str | None, you: int | None = None) -> str:
    """One seat as [`players_line`][allegra_rules.cli._common.players_line] says it.

    Examples:
        >>> player_named(2, "search-easy")
        'Player 3 (Search bot, search-easy)'
        >>> player_named(0, None, you=0)
        'Player 1 (you)'
    """
    if seat == you:
        who = "you"
    elif kind is None:
        who = "a person"
    else:
        who = wording.seat_name(seat, bots={seat: kind})
        who += f", {kind}" if kind.startswith("search") else ""
    return f"Player {seat + 1} ({who})"


def terminal_size() -> tuple[int, int]:
    """The terminal's columns and lines (``COLUMNS`` / ``LINES``, else 80x24)."""
    size = shutil.get_terminal_size((80, 24))
    return max(40, size.columns), max(10, size.lines)


def one_line(text: str, columns: int) -> str:
    """``text`` on one line of a terminal ``columns`` wide: cut, ending in ``...``, when wider.

    The line stays narrower than ``columns`` (a full line would move the cursor on).

    Examples:
        >>> one_line("Turn 3: Player 2 draws a 5; Player 2 discards the 5.", 40)
        'Turn 3: Player 2 draws a 5; Player...'
    """
    if len(text) < columns:
        return text
    return text[: max(columns - 4, 1)].rstrip() + "..."


class Narrator:
    """Writes a game as it is played: headings, actions, engine steps, round ends.

    Args:
        out: where the text goes.
        tables: draw the table after every turn (and after each setup), as ``demo`` does.
        names: a label per seat for the closing lines (``"greedy"``, ``"you"``), or
            ``None`` for bare seat numbers.
        you: the seat a person plays: marked ``(you)`` in turn headings, and the
            narration is written for that seat (it names the cards only that seat
            has seen). ``None`` narrates for a spectator.
        style: ``"full"`` (every action), ``"turns"`` (one line per turn),
            ``"rounds"`` (one line per round) or ``"quiet"`` (the scores only).
        max_width: the widest line of a drawn table (the terminal's width), or
            ``None`` to draw every table in one band.
        brief: in the ``"turns"`` style, leave out the passes of knock windows, tell
            each action in the fewest words (``Player 4 swaps the 5 in at row 1, column 3
            and discards the 9``, ``you knock``) and start each line with ``Turn t:`` only.
        round_reports: write the revealed table and the scores when a round ends,
            then the next round's heading (``play`` writes them itself when it
            waits for a key in between).
        seat_names: every seat's name in the narrated sentences, as
            [`seat_name`][allegra_rules.wording.seat_name] gives them ("Greedy bot",
            "Player 2"), or ``None`` for "Player N" (and "you" for ``you``); the turn
            headings then name the seat both ways (``Player 2, Greedy bot``).
        cut: in the ``"turns"`` style, write each turn on one line narrower than
            ``max_width``, cut and ending in ``...`` when it is wider, instead of
            wrapping it, and say a subject once for the clauses it starts in a row
            (``demo --summary``); the setup and round lines still wrap.
    """

    def __init__(
        self,
        out: TextIO,
        *,
        tables: bool = True,
        names: Sequence[str] | None = None,
        you: int | None = None,
        style: str = "full",
        max_width: int | None = None,
        round_reports: bool = True,
        brief: bool = False,
        cut: bool = False,
        seat_names: Sequence[str] | None = None,
    ) -> None:
        self.out = out
        self.seat_names = None if seat_names is None else list(seat_names)
        self.brief = brief
        self.cut = cut
        self.round_reports = round_reports
        self.tables = tables
        self.names = names
        self.you = you
        self.style = style
        self.max_width = max_width
        self._turn: list[str] = []
        self._counts: dict[str, int] = {}

    def say(self, text: str = "") -> None:
        """Write one line (or several, joined by newlines)."""
        self.out.write(text + "\n")

    def say_wrapped(self, text: str) -> None:
        """Write a narrated line, wrapped to ``max_width`` (continuations indented)."""
        if self.max_width is None or len(text) <= self.max_width:
            self.say(text)
            return
        indent = "    " if text.startswith("  ") else "  "
        for line in wrap_words(text, self.max_width, indent):
            self.say(line)

    def round_heading(self, state: GameState) -> None:
        """The heading of the round ``state`` is in, with its deal and setup."""
        if self.style != "full":
            return
        self.say("")
        self.say("=" * 20 + f" Round {state.round} of {ROUNDS} " + "=" * 20)
        discard = state.discard_top
        self.say(
            f"Dealt 12 face-down cards to each player; the discard pile starts with "
            f"{'nothing' if discard is None else card_text(discard)}."
        )
        if getattr(state.config, "setup_reveals", "in_turn") == "simultaneous":
            self.say_wrapped(
                f"Setup: from Player {state.start_seat + 1}, clockwise, each player names two "
                "cells face down; they all turn up together after the last."
            )
        else:
            self.say(
                f"Setup: from Player {state.start_seat + 1}, clockwise, each player reveals two "
                "cards."
            )

    def turn_heading(self, state: GameState) -> None:
        """``-- Turn t: seat p --`` when ``state`` starts a turn; nothing otherwise."""
        if state.phase is not Phase.DRAW or self.style != "full":
            return
        final = " (a last turn)" if state.ender is not None else ""
        you = " (you)" if self.you is not None and state.drawer == self.you else ""
        self.say()
        drawer = "nobody" if state.drawer is None else f"Player {state.drawer + 1}"
        named = self.seat_names
        if named is not None and state.drawer is not None and named[state.drawer] != drawer:
            drawer += f", {named[state.drawer]}"
        self.say(f"-- Turn {state.turns_played + 1}: {drawer}{you}{final} --")

    def step(self, state: GameState, action: Action, after: GameState) -> None:
        """Narrate ``action`` taking ``state`` to ``after``, and what settling did."""
        names = self.seat_names
        if names is None:
            sentences = [describe_action(state, action, viewer=self.you)]
            sentences += _fate(state, action, plain=self.style != "full")
            sentences += describe_outcome(state, action, after)
        else:
            sentences = [wording.narrate(state, action, viewer=self.you, names=names)]
            sentences += wording.fate(
                state, action, plain=self.style != "full", viewer=self.you, names=names
            )
            sentences += wording.outcome(state, action, after, viewer=self.you, names=names)
        round_over = after.round != state.round or after.is_terminal
        if self.style == "full":
            for line in sentences:
                self.say_wrapped("  " + line)
            if round_over and self.round_reports:
                self.say()
                self.say(render_round_end(after, legend=False, max_width=self.max_width))
                if not after.is_terminal:
                    self.round_heading(after)
            elif self.tables and after.phase is Phase.DRAW:
                self.say()
                # The zone legend once per round, under the table that closes the setup.
                self.say(
                    render_table(
                        after,
                        legend=state.phase is Phase.SETUP,
                        viewer=self.you,
                        max_width=self.max_width,
                    )
                )
            return
        self._count(state, action, after)
        if self.style == "turns":
            if not self.brief:
                self._turn += [_lower(line.rstrip(".")) for line in sentences]
            else:
                self._turn += _brief(state, action, after, self.you, self.seat_names)
            if round_over or after.phase is Phase.DRAW:
                self._flush_turn(state)
        if round_over:
            if self.style in ("turns", "rounds"):
                self.say_wrapped(_round_line(after, self._counts, self.you))
            self._counts = {}

    def _count(self, state: GameState, action: Action, after: GameState) -> None:
        counts = self._counts
        kind = type(action).__name__
        counts[kind] = counts.get(kind, 0) + 1
        if any(line.startswith("Triple: ") for line in describe_outcome(state, action, after)):
            counts["triples"] = counts.get("triples", 0) + 1
        counts["turns"] = state.turns_played

    def _flush_turn(self, state: GameState) -> None:
        if not self._turn:
            return
        if state.phase is Phase.SETUP or state.turns_played == 0:
            head = f"Round {state.round} setup: "
        else:
            final = " (last turn)" if state.ender is not None else ""
            head = f"Turn {state.turns_played}{final}: "
            if not self.brief:
                head = f"Round {state.round} turn {state.turns_played}{final}: "
        line = head + "; ".join(self._turn) + "."
        if self.cut:
            line = head + _same_subject(self._turn, self.seat_names) + "."
        if self.cut and self.max_width is not None and head.startswith("Turn "):
            self.say(one_line(line, self.max_width))
        else:
            self.say_wrapped(line)
        self._turn = []

    def _seat(self, seat: int) -> str:
        """The seat as "Player N", with who plays it as the "Players:" line says it."""
        if self.names is None or not self.names[seat]:
            return f"Player {seat + 1}"
        name = self.names[seat]
        if name == "you":
            return player_named(seat, None, you=seat)
        return player_named(seat, name if name in BOT_KINDS else None)

    def game_over(self, state: GameState) -> None:
        """The closing lines: every round's scores, the totals and the winners."""
        if self.style == "full":
            self.say()
            self.say("=" * 20 + " Game over " + "=" * 20)
        if self.style in ("full", "quiet"):
            for number, scores in enumerate(state.round_scores, start=1):
                self.say_wrapped(
                    f"Round {number}: "
                    + ", ".join(f"Player {s + 1}: {v}" for s, v in enumerate(scores))
                )
        self.say_wrapped(
            "Final totals: " + ", ".join(f"Player {s + 1}: {t}" for s, t in enumerate(state.totals))
        )
        winners = state.winners
        best = state.totals[winners[0]]
        names = ", ".join(self._seat(s) for s in winners)
        verb = "wins" if len(winners) == 1 else "share the win"
        self.say_wrapped(f"Winner: {names} {verb} with {best} points.")

    def note(self, text: str) -> None:
        """Say something done for the person (a knock window passed, a draw made).

        In the ``"full"`` style it is a line of its own; in ``"turns"`` a clause of the
        turn's line, so that a turn stays one line.
        """
        if self.style == "full":
            self.say_wrapped(f"  {text[:1].upper()}{text[1:]}.")
        elif self.style == "turns":
            self._turn.append(text)

    def flush_turn(self, state: GameState) -> None:
        """Write the part of the turn told so far (``"turns"`` style), as a line of its own."""
        if self.style == "turns":
            self._flush_turn(state)


_SUBJECT = re.compile(r"(Player \d+|you) ")
"""The subject a one-line turn's clause starts with (the seats' default names)."""
_LAST_CARD = re.compile(r"\b(?:a|an|the) (-?\d+)(?: from the discard pile)?$")
"""A clause that ends naming a card (``draws a 3``): the next clause may call it "it"."""


def _same_subject(clauses: Sequence[str], names: Sequence[str] | None = None) -> str:
    """The clauses of a one-line turn, a subject said once for the clauses it starts in a row.

    ``Player 1 draws a 3; Player 1 swaps the 3 in at ...`` is written ``Player 1 draws a
    3, swaps it in at ...`` (the card the clause before ended with is "it"); a clause of
    another subject starts again after ``; ``. ``names`` are the seats' names when
    they are not the default ones.

    Examples:
        >>> _same_subject(["Player 2 draws a 5", "Player 3 knocks", "Player 3 takes the 5"])
        'Player 2 draws a 5; Player 3 knocks, takes the 5'
        >>> _same_subject(["you draw a 3", "you swap the 3 in at row 2, column 1"])
        'you draw a 3, swap it in at row 2, column 1'
    """
    subjects = _SUBJECT
    if names is not None:
        ordered = sorted({*names, "you"}, key=len, reverse=True)  # "Greedy bot 2" first
        subjects = re.compile("(" + "|".join(re.escape(name) for name in ordered) + ") ")
    parts: list[str] = []
    previous = None
    for clause in clauses:
        found = subjects.match(clause)
        subject = found[1] if found else None
        if parts and subject is not None and subject == previous:
            rest = clause[len(subject) + 1 :]
            card = _LAST_CARD.search(parts[-1])
            if card:  # "draws a 3, keeps it at ...": the card just named is "it"
                rest = re.sub(rf"\bthe {re.escape(card[1])}\b", "it", rest, count=1)
            parts[-1] += ", " + rest
        else:
            parts.append(clause)
        previous = subject
    return "; ".join(parts)


def _fate(state: GameState, action: Action, *, plain: bool = False) -> list[str]:
    """What became of a drawn card that others knocked for, when the drawer keeps it.

    The English [`fate`][allegra_rules.wording.fate] (``plain``: a sentence that starts
    with its subject and names the card instead of saying "it").
    """
    return list(wording.fate(state, action, plain=plain))


def _subject(seat: int, you: int | None, yours: str, theirs: str) -> str:
    """``you`` and ``yours`` for the seat ``you``, else ``seat k`` and ``theirs``."""
    return f"you {yours}" if seat == you else f"Player {seat + 1} {theirs}"


def _brief(
    state: GameState,
    action: Action,
    after: GameState,
    you: int | None,
    names: Sequence[str] | None = None,
) -> list[str]:
    """The clauses of an action in a one-line turn, each starting with its subject.

    The actor is ``seat k`` or, for the person's seat ``you``, ``you``; passes say
    nothing. A card is named wherever the full narration for ``you`` names it
    ([`describe_action`][allegra_rules.render.describe_action] with ``viewer=you``):
    a face-down card that a knock exchange moves is named only to the seat that
    sees it. What settling did follows (triples, the round end), in clauses of their
    own. The English [`narrate_brief`][allegra_rules.wording.narrate_brief] and
    [`outcome_brief`][allegra_rules.wording.outcome_brief].
    """
    if isinstance(action, Pass):
        clauses = []
    elif names is None:
        clauses = [_brief_action(state, action, after, you)]
    else:
        clauses = [_brief_action(state, action, after, you, names)]
    return clauses + list(wording.outcome_brief(state, action, after, viewer=you, names=names))


def _brief_action(
    state: GameState,
    action: Action,
    after: GameState,
    you: int | None,
    names: Sequence[str] | None = None,
) -> str:
    """The clause of one action (not a pass) for ``_brief``: the English ``narrate_brief``."""
    return wording.narrate_brief(state, action, viewer=you, names=names)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _lower(text: str) -> str:
    """``text`` to go on after a colon: its first letter small, unless it starts a name."""
    if text.startswith("Player "):
        return text
    return text[:1].lower() + text[1:]


def _round_line(after: GameState, counts: dict[str, int], you: int | None = None) -> str:
    """One line for a finished round: its length, its events and its scoring.

    The person's seat ``you`` is called ``you``.
    """
    result = after.last_round
    assert result is not None
    if result.ender is None:
        ending = "the round stopped at the turn limit (nobody doubled)"
    else:
        doubled = "doubled" if result.doubled else "not doubled"
        ending = f"{_subject(result.ender, you, 'ended', 'ended')} the round ({doubled})"
    turns = counts.get("turns", 0)
    events = ", ".join(
        _plural(counts.get(key, 0), noun)
        for key, noun in (("Knock", "knock"), ("Give", "exchange"), ("triples", "triple"))
    )
    events = f"{_plural(turns, 'turn')}, {events}"
    scores = ", ".join(
        f"{'you' if s == you else f'Player {s + 1}'}: {v}" for s, v in enumerate(result.scores)
    )
    history = after.round_scores[: result.round]
    totals = ", ".join(str(sum(round_[s] for round_ in history)) for s in range(after.num_players))
    return f"Round {result.round} over: {events}; {ending}; scores {scores}; totals {totals}."
