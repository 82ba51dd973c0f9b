"""The seeded shuffle. Part of the saved-game format: a seed deals the same forever.

The engine never touches global random state. Each shuffle draws from its own
SplitMix64 stream, keyed by the game's seed and by what is shuffled (round ``r``'s
deal, or the ``k``-th refill of round ``r``'s draw pile), and runs a Fisher-Yates
shuffle with unbiased bounded draws. Changing anything here changes every seeded
game, so it needs a new saved-game format version.
"""

from __future__ import annotations

from collections.abc import Iterable

_MASK = (1 << 64) - 1
DEFAULT_SEED = 0
"""The seed used by ``new_game`` when neither ``seed`` nor ``deck`` is given."""


class SplitMix64:
    """A tiny, fully specified 64-bit generator (Steele, Lea and Flood, 2014)."""

    __slots__ = ("_state",)

    def __init__(self, state: int) -> None:
        self._state = state & _MASK

    def next64(self) -> int:
        """The next 64-bit output."""
        self._state = (self._state + 0x9E3779B97F4A7C15) & _MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """A uniform int in ``0..bound-1`` (rejection sampling, no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % bound)
        while True:
            x = self.next64()
            if x < limit:
                return x % bound


MIN_SEED = -(2**256) + 1
"""The smallest seed a game may have."""
MAX_SEED = 2**256 - 1
"""The largest seed a game may have: every seed of up to 256 bits, signed or not."""


def check_seed(seed: object, what: str = "seed") -> int:
    """``seed`` if it is a plain ``int`` from ``MIN_SEED`` to ``MAX_SEED``, else ``ValueError``."""
    if type(seed) is not int:
        raise ValueError(f"{what} must be an int or None; got {type(seed).__name__}")
    if not MIN_SEED <= seed <= MAX_SEED:
        raise ValueError(
            f"{what} is out of range: a seed is an int from -(2**256 - 1) to 2**256 - 1 "
            f"(at most 256 bits, either sign); got one of {seed.bit_length()} bits"
        )
    return seed


def stream(seed: int, *labels: int | str) -> SplitMix64:
    """The generator for ``seed`` and a purpose such as ``("deal", 2)``."""
    import hashlib  # here, not at the top: ``import allegra_rules`` stays light

    key = ":".join(str(part) for part in ("allegra", seed, *labels))
    digest = hashlib.sha256(key.encode()).digest()
    return SplitMix64(int.from_bytes(digest[:8], "big"))


_TWO64 = 1 << 64


def shuffled(cards: Iterable[int], rng: SplitMix64) -> tuple[int, ...]:
    """``cards`` in a Fisher-Yates order drawn from ``rng``.

    Card ``i`` (from the last down to the second) swaps with card
    ``rng.below(i + 1)``. The draws are inlined here (the same numbers in the same
    order, and ``rng`` ends in the same state): a deal is the costliest single step
    of a game.
    """
    out = list(cards)
    state = rng._state
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = _TWO64 - _TWO64 % bound
        while True:
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            z ^= z >> 31
            if z < limit:
                break
        j = z % bound
        out[i], out[j] = out[j], out[i]
    rng._state = state
    return tuple(out)


def seed_from_deck(deck: Iterable[int]) -> int:
    """The seed of later rounds for a game dealt from an explicit deck and no seed."""
    import hashlib

    text = ",".join(str(card) for card in deck)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
