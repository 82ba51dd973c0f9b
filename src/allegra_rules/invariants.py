"""What a valid game state is: one definition, used by the loader, the tests and you.

``check_state`` checks that every field of a [`GameState`][allegra_rules.state.GameState]
agrees with every other one and with the rules, so that the state is one that some
game could reach:

- **types and shapes**: every field has its type, size and range;
- **cards**: the cards in the grids, piles, hands and out of play are exactly the
  config's deck; the cards out of play come in triples;
- **gaps**: every gap of the table lies on a line that a triple could have emptied;
  a gap never lies face down;
- **rounds and scores**: the finished rounds, totals, winners and the last round's
  table, sums, doubling and scores agree with the scoring rules;
- **setup**: the start seat, who reveals next, the named cells of a simultaneous setup,
  and, in the setup and before the round's first draw, that the seats which have
  revealed (two cards each, in setup order, each in its own reveal area) can have
  turned up exactly the cards that are up or gone, with exactly their setup sums;
- **turns**: whose turn it is after the turns played, the turn cap, how many cards
  can be face up and how many can have left the draw pile by now, the ender and the
  final turns;
- **the phase**: held and hand cards, the knock window and the knock exchange;
- **settled tables**: a table play has settled on holds no triple, and nobody's cards
  are all up unless the round has an ender (whose cards are all up); in the middle of
  a knock exchange this holds for the table before the exchange;
- **no dead end**: a state that is not over has a legal action.

Every check but the last needs no rules: they live below the state, in
``allegra_rules.state_checks``, and a state built by hand (``GameState(...)``,
``attrs.evolve``, ``GameState.from_json``) runs them itself. The last one asks the rules
(``legal_actions``): ``check_state`` and the loaders (``state_from_json``) run it too.

[`state_from_json`][allegra_rules.serialize.state_from_json] and the other loaders call it (their
errors then name the JSON path); the engine never produces a state it rejects. A game server can
call it on a state it was handed. It raises ``InvalidStateError`` (a ``ValueError``) at the first
contradiction, naming the field as a JSON path into the state's saved form, such as ``$.cells[14]``
or ``$.ender``.
"""

from __future__ import annotations

from allegra_rules.round_end import Phase
from allegra_rules.round_end import check_round_end_types as check_round_end_types
from allegra_rules.state import GameState
from allegra_rules.state_checks import (
    _KIND_CHECKS as _KIND_CHECKS,
)
from allegra_rules.state_checks import (
    TableSize as TableSize,
)
from allegra_rules.state_checks import (
    bounds as bounds,
)
from allegra_rules.state_checks import (
    check_conservation as check_conservation,
)
from allegra_rules.state_checks import (
    check_counts,
    check_structure,
)
from allegra_rules.state_checks import (
    check_fields as check_fields,
)
from allegra_rules.state_checks import (
    check_table_size as check_table_size,
)
from allegra_rules.state_checks import (
    check_types as check_types,
)
from allegra_rules.state_checks import (
    check_without_rules as check_without_rules,
)
from allegra_rules.state_checks import (
    deck_counts as deck_counts,
)
from allegra_rules.transitions import legal_actions
from allegra_rules.value_checks import InvalidStateError
from allegra_rules.value_checks import _bool as _bool
from allegra_rules.value_checks import _card as _card
from allegra_rules.value_checks import _cards as _cards
from allegra_rules.value_checks import _int as _int
from allegra_rules.value_checks import _ints as _ints
from allegra_rules.value_checks import _opt_cards as _opt_cards
from allegra_rules.value_checks import _opt_int as _opt_int
from allegra_rules.value_checks import _tuple as _tuple
from allegra_rules.value_checks import invalid as invalid
from allegra_rules.value_checks import key_path as key_path

__all__ = ["InvalidStateError", "check_state"]

# The names imported "as themselves" above are re-exported, undocumented: the views, the
# loaders and the tests read the field checks from here.


def check_state(state: object, path: str = "$") -> None:
    """Check that ``state`` is a game state that the rules allow (see the module docs).

    Args:
        state: the state to check.
        path: the path of the state inside a larger document, for messages.

    Raises:
        InvalidStateError: the first contradiction found, at the path of the field.

    Examples:
        >>> import attrs
        >>> from allegra_rules import new_game
        >>> state = new_game(3, seed=1)
        >>> check_state(state)
        >>> check_state(attrs.evolve(state, turns_played=4))
        Traceback (most recent call last):
        ...
        allegra_rules.invariants.InvalidStateError: $.turns_played: must be 0 during setup
    """
    if not isinstance(state, GameState):
        invalid(path, f"expected a GameState; got {type(state).__name__}")
    check_types(state, path)
    check_consistency(state, path)


def check_consistency(state: GameState, path: str = "$") -> None:
    """``check_state`` without the type checks, for states whose types are known.

    The loader calls this after it has checked every type while parsing.

    Raises:
        InvalidStateError: the first contradiction found.
    """
    # Structure first, then the counts that only bound what turns can have done.
    check_structure(state, path)
    if state.phase is not Phase.OVER and not legal_actions(state):
        invalid(
            key_path(path, "phase"),
            f"no action is legal in phase {state.phase.value!r}: the state is a dead end",
        )
    check_counts(state, path)
