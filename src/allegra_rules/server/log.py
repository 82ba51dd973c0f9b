"""The last moves of a table, worded for each reader in the page's language.

The functions live in [`allegra_rules.table_view`][allegra_rules.table_view], which both
the table server and the table in the browser use; this module names them for the
server. A table keeps its last [`KEEP`][allegra_rules.table_view.KEEP] moves, each with
the states before and after it. A view carries them as ``log``: one entry per move,
worded by [`narrate`][allegra_rules.wording.narrate] for the reader's seat (``None``: a
spectator), followed by what the engine did by itself
([`outcome`][allegra_rules.wording.outcome]) and what became of a card others knocked
for ([`fate`][allegra_rules.wording.fate]).

The wording names only what the reader may know: a card that moved face down is named
only for the seat that saw it, so a seat's text is the same for any two games it cannot
tell apart.
"""

from __future__ import annotations

from allegra_rules.table_view import KEEP, Move, recent, remember, replay, worded

__all__ = ["KEEP", "Move", "recent", "remember", "replay", "worded"]
