"""``allegra-rules verify``: check that a game's deal was fixed before it was played.

A table server publishes a commitment to each table's deal when the table is created
and reveals the seed and the salt in the game's record once it is over (see
[`commit_deal`][allegra_rules.records.commit_deal]). ``verify`` checks, from the record
alone, that

* the record's seed and salt hash to its commitment (and to ``--commitment``, the one
  noted at the start, when given),
* every action is legal, in turn, from the deal of that seed, and
* the game ends in the final state the record names (``final_state_sha256``).
"""

from __future__ import annotations

import re

from allegra_rules.cli._common import CommandError, UsageError
from allegra_rules.cli._demo import load_record, read_input
from allegra_rules.records import verify_record_text

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


def check_commitment_option(value: str | None) -> str | None:
    """``--commitment``'s value in lower case (``None``: not given).

    Raises:
        UsageError: a value that is not 64 hex digits.
    """
    if value is None:
        return None
    if not _HEX64.fullmatch(value):
        raise UsageError(
            f"--commitment must be 64 hex digits (a SHA-256 digest); got {value!r:.80}"
        )
    return value.lower()


def verify_record(path: str, commitment: str | None = None) -> str:
    """Check the record in file ``path``; the one-line verdict when everything holds.

    Args:
        path: the record's file (``-``: standard input).
        commitment: the commitment noted when the game began (64 lowercase hex
            digits), or ``None`` to check against the one in the record.

    Raises:
        CommandError: the record cannot be read, is not valid (a changed seed, salt or
            commitment, an illegal action, another final state), has no commitment or
            no final state's digest, or was committed to another deal than
            ``commitment``; the message says which.
    """
    data = read_input(path)
    load_record(data, path)  # a record that does not load says so first
    name = "standard input" if path == "-" else repr(path)
    try:
        return verify_record_text(data, commitment)
    except ValueError as exc:
        raise CommandError(f"{name}: {' '.join(str(exc).split())}") from None
