"""A progress bar on a terminal: rich's when it is installed, else a plain one.

Nothing is written unless the stream is a terminal. ``rich`` (the optional ``cli``
extra) is imported only here, and only when a bar is shown.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import TextIO

Advance = Callable[[], None]
"""Called once per finished unit of work."""


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


@contextlib.contextmanager
def progress_bar(total: int, label: str, stream: TextIO, enabled: bool = True) -> Iterator[Advance]:
    """A context giving a function to call once per finished unit of ``total``.

    Args:
        total: how many units there are.
        label: what is counted, such as ``"games"``.
        stream: where the bar goes (standard error).
        enabled: ``False`` shows nothing (``--no-progress``).

    Yields:
        The function to call after each unit.
    """
    if not enabled or not _is_terminal(stream):
        yield lambda: None
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
    except ImportError:
        with _plain_bar(total, label, stream) as advance:
            yield advance
        return
    columns = (
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=stream)) as progress:
        task = progress.add_task(f"Simulating {label}", total=total)
        yield lambda: progress.advance(task)


@contextlib.contextmanager
def _plain_bar(total: int, label: str, stream: TextIO) -> Iterator[Advance]:
    """``Simulating games [#####.....] 12/24, 3.1 s``, redrawn in place on one line."""
    start = time.monotonic()
    done = 0
    last = 0.0
    width = 30

    def draw() -> None:
        filled = width * done // total
        elapsed = time.monotonic() - start
        stream.write(
            f"\rSimulating {label} [{'#' * filled}{'.' * (width - filled)}] "
            f"{done}/{total}, {elapsed:.1f} s"
        )
        stream.flush()

    def advance() -> None:
        nonlocal done, last
        done += 1
        now = time.monotonic()
        if done == total or now - last >= 0.1:
            last = now
            draw()

    draw()
    try:
        yield advance
    finally:
        stream.write("\n")
        stream.flush()
