"""Ctrl-C: one exit status, 130, whatever the program was doing when it came.

Python turns SIGINT into ``KeyboardInterrupt`` at the next moment it runs Python code, which
can be inside an ``except`` clause of another error, or after a blocking read has returned
end-of-input for a pipe that the same keypress closed. ``catching_interrupts`` records every
SIGINT as it arrives, so the command line can answer 130 on every path.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["catching_interrupts", "interrupted"]

_seen = threading.Event()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _seen.set()
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Whether a SIGINT has arrived while ``catching_interrupts`` was active."""
    return _seen.is_set()


@contextmanager
def catching_interrupts() -> Iterator[None]:
    """Record every SIGINT (and raise ``KeyboardInterrupt`` as Python does) inside the block.

    Only Python's own default handler is replaced, and only in the main thread; it is
    restored afterwards. A program that installed its own handler keeps it.
    """
    _seen.clear()
    replace = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if replace:
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        if replace:
            signal.signal(signal.SIGINT, signal.default_int_handler)
