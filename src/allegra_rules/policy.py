"""A learned player: a policy network trained on the batched engine, played with NumPy.

Public names:

* [`PolicyBot`][allegra_rules.policy.PolicyBot]: the bot, ``PolicyBot(seed=0, *, weights=None)``;
  the bot name ``policy``.
* [`guided_search`][allegra_rules.policy.guided_search]: the search's guided level
  ([`GUIDED_LEVEL`][allegra_rules.search.GUIDED_LEVEL]) led by a ``PolicyBot``; the bot name
  ``search-guided``.
* [`POLICY_FORMAT`][allegra_rules.policy.POLICY_FORMAT] and
  [`SHIPPED_WEIGHTS`][allegra_rules.policy.SHIPPED_WEIGHTS]: the weights file's format
  version and the index of the package's own weights (one file per seat count);
  [`write_shipped_index`][allegra_rules.policy.write_shipped_index] writes that index and
  [`fetch_shipped_weights`][allegra_rules.policy.fetch_shipped_weights] says where files
  missing from the package come from (the play page's case).
* [`cannot_play`][allegra_rules.policy.cannot_play] and
  [`shipped_missing`][allegra_rules.policy.shipped_missing]: why a policy cannot play a
  table, asked before a bot is seated.

How it decides: it encodes the seat's view, ``observe(state, state.current_player)``, with
the features [`Encoder`][allegra_rules.features.Encoder] (the vector the batched engine's
``State.observation`` holds; a network of format 4 reads them deck-free, followed by the
rules), runs the network of the table's seat count
(``relu(x @ w0 + b0)``, ``relu(h @ w1 + b1)``, ``h @ pi_w + pi_b``, in float32) and plays
the legal action (ids of [`action_to_id`][allegra_rules.encoding.action_to_id]) with the
highest logit; an exact tie goes to the bot's own seeded ``random.Random``. A network of
format 3 also reads the greedy hint, [`GreedyBot.hint`][allegra_rules.bots.GreedyBot.hint]
of the seat's view (one entry per action id, 0 for an illegal one): ``x`` is the features
followed by the hint, and each logit adds the action's hint times its weight in
``"n/hint"``. It reads nothing else of the state, so two states that look the same to the
seat get the same move.

The weights file is an ``.npz`` (``numpy.savez_compressed``): a ``meta`` entry, a JSON
object with ``format``, ``preset``, ``config_fingerprint``, ``seat_counts``, ``hidden`` and
the training command that made it, and for each seat count ``n`` the arrays ``"n/w0"``,
``"n/b0"``, ``"n/w1"``, ``"n/b1"``, ``"n/pi_w"``, ``"n/pi_b"``, ``"n/v_w"`` and ``"n/v_b"``
(float16 or float32). In formats 2 and 3 a matrix may instead be int8 with a float32
scale per column, ``"n/w0_scale"`` and so on: the weight is the integer times its column's
scale (``allegra-rules train --precision int8``, half the file). Format 3 adds
``"n/hint"`` (one float per action id) and a row of ``"n/w0"`` per action id after the
features' rows. Format 4 networks read the deck-free
[`NetworkInput`][allegra_rules.network_input.NetworkInput] of the game's config in place
of the features (the rules vector is its tail), so they play every ``RuleConfig``; their
meta has ``rule_inputs`` (the options the network reads, with their choices),
``card_slots`` and ``slot_low`` in place of ``config_fingerprint``, and ``greedy_input``
says whether the hint follows. Formats 1 to 4 are all read.
``allegra-rules train`` writes it (the docs page "Train an agent").

NumPy is the only package it needs (the extra ``policy``); it is imported when the first
``PolicyBot`` is made, never by ``import allegra_rules``. A file's weights are read once per
process and shared by every bot that plays them.

In the browser (Pyodide, ``sys.platform == "emscripten"``), where the docs' play page has
no NumPy, the same network runs in plain Python instead: the file is read with ``zipfile``
and ``struct``, the network computed in double precision (a move can differ from NumPy's
only where two legal moves' logits agree to float32's precision). Everywhere else a
missing NumPy is an ``ImportError`` that says what to install.

Examples:
    >>> from allegra_rules import new_game, legal_actions
    >>> bot = PolicyBot(0)  # doctest: +SKIP
    >>> bot.choose(new_game(2, seed=1)) in legal_actions(new_game(2, seed=1))  # doctest: +SKIP
    True
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import io
import json
import math
import operator
import os
import random
import struct
import sys
import zipfile
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import attrs

from allegra_rules.actions import Action
from allegra_rules.bots import GreedyBot
from allegra_rules.config import RuleConfig
from allegra_rules.encoding import action_to_id, num_distinct_actions
from allegra_rules.features import Encoder
from allegra_rules.network_input import CARD_SLOTS, SLOT_LOW, NetworkInput
from allegra_rules.presets import PRESETS, preset
from allegra_rules.search import SearchBot, guided_level
from allegra_rules.state import GameState
from allegra_rules.views import observe

__all__ = [
    "POLICY_FORMAT",
    "SHIPPED_WEIGHTS",
    "PolicyBot",
    "PolicyValue",
    "cannot_play",
    "fetch_shipped_weights",
    "guided_search",
    "shipped_missing",
    "write_shipped_index",
]

POLICY_FORMAT = 4
"""The newest version of the weights file's layout that this module reads (``meta["format"]``).

Formats 1 to 3 are read as well. Format 1 holds float weights; format 2 adds 8-bit
matrices with a scale per column; format 3 (``allegra-rules train --greedy-input``) adds
the greedy hint: the network reads GreedyBot's score of every legal move beside the
features. Format 4 (``allegra-rules train --rules-input``) reads the deck-free
[`NetworkInput`][allegra_rules.network_input.NetworkInput], the rules among it, and so
plays every ``RuleConfig``; it may have the hint too.
"""

_FORMATS = (1, 2, 3, POLICY_FORMAT)

_MATRICES = ("w0", "w1", "pi_w", "v_w")

SHIPPED_WEIGHTS = "data/policy.json"
"""The shipped weights' index, a resource of the ``allegra_rules`` package (``weights=None``).

The package ships its networks beside it, each in a file of its own that holds one seat
count's network: ``data/policy-<n>.npz``, the network of ``n`` seats that plays every
config (format 4), and ``data/policy-<n>-seeds.npz`` at 2 and 4 seats, the longer
trained network of the rules of ``seeds`` (format 3; ``de`` and ``pl`` share those
rules), which plays them in its place. The index lists each seat count's files in the
order they are tried, the first whose network plays the table's rules playing it:
``{"networks": {"<n>": [{"file", "bytes", "sha256", "meta"}, ...]}}``, each file's
name, size, SHA-256 and meta. A bot reads a file when it first plays a table that
needs it, so a process (and the docs' play page, which fetches the file then) loads
only the networks it plays, and a question such as
[`cannot_play`][allegra_rules.policy.cannot_play] is answered from the index alone.
[`write_shipped_index`][allegra_rules.policy.write_shipped_index] writes it.
"""

_SHIPPED_WHERE = f"allegra_rules/{SHIPPED_WEIGHTS}"
"""How messages name the shipped weights, and their key in ``_CACHE``."""


_INSTALL_HINT = '(in a clone of the repository: pip install ".[policy]")'

_LAYERS = ("w0", "b0", "w1", "b1", "pi_w", "pi_b", "v_w", "v_b")


def _numpy() -> Any:
    """NumPy, or an ImportError that says how to install it."""
    try:
        return importlib.import_module("numpy")
    except ImportError as exc:
        # A ModuleNotFoundError naming numpy, as an ImportError of numpy itself would be.
        raise ModuleNotFoundError(
            f"PolicyBot needs NumPy, the extra 'policy' {_INSTALL_HINT}", name="numpy"
        ) from exc


def _plain_python() -> bool:
    """Whether networks run in plain Python: in Pyodide, when NumPy is not installed."""
    return sys.platform == "emscripten" and importlib.util.find_spec("numpy") is None


def shipped_missing() -> str | None:
    """Why the shipped policy cannot play here (NumPy or the weights missing), or None.

    It imports nothing: the command line asks it before it builds a ``policy`` bot.

    Examples:
        >>> shipped_missing() is None or "policy" in shipped_missing()
        True
    """
    if importlib.util.find_spec("numpy") is None and not _plain_python():
        return f"PolicyBot needs NumPy, the extra 'policy' {_INSTALL_HINT}"
    if not resources.files("allegra_rules").joinpath(SHIPPED_WEIGHTS).is_file():
        return f"this installation has no shipped policy ({_SHIPPED_WHERE})"
    return None


def cannot_play(
    config: RuleConfig, num_players: int, *, weights: str | os.PathLike[str] | None = None
) -> str | None:
    """Why a policy cannot play a game of ``num_players`` seats under ``config``, or None.

    The reasons: NumPy or the shipped weights are missing (``shipped_missing``), the
    weights file does not load, the rules are not those it was trained for, or it has no
    network for that seat count. A server or a command asks this before it seats the bot,
    rather than have it fail at its first move.

    Examples:
        >>> from allegra_rules import preset
        >>> reason = cannot_play(preset("seeds"), 7)
        >>> reason is not None
        True
    """
    if weights is None:
        missing = shipped_missing()
        if missing is not None:
            return missing
    try:
        # The shipped weights are asked by their index alone (each seat count's network
        # is checked when it loads): a page or a server lists the bots of every preset
        # and seat count at its start, and a file is most of a second in the browser.
        policy = _shipped() if weights is None else _load(weights)
    except (ImportError, OSError, ValueError) as exc:
        return str(exc)
    if num_players not in policy.seat_counts:
        counts = ", ".join(map(str, policy.seat_counts))
        return f"the policy plays {counts} seats, not {num_players}"
    if policy.meta_for(num_players, config) is None:
        return (
            f"the policy was trained for the rules of preset "
            f"{policy.preset_of(num_players)!r}; these rules differ"
        )
    return None


def _shapes(
    shapes: dict[str, tuple[int, ...]], num_players: int, where: str
) -> tuple[int, int, int, int]:
    """The sizes (features, hidden 1, hidden 2, actions) of a network, its shapes checked."""
    size, h1 = _matrix(shapes, "w0", where)
    h1b, h2 = _matrix(shapes, "w1", where)
    h2b, actions = _matrix(shapes, "pi_w", where)
    h2v, one = _matrix(shapes, "v_w", where)
    want = num_distinct_actions(num_players)
    if h1b != h1 or h2b != h2 or h2v != h2 or one != 1 or actions != want:
        raise ValueError(
            f"{where}: the network's shapes do not chain "
            f"(w0 {shapes['w0']}, w1 {shapes['w1']}, pi_w {shapes['pi_w']}, "
            f"v_w {shapes['v_w']}; {num_players} seats have {want} action ids)"
        )
    for bias, length in (("b0", h1), ("b1", h2), ("pi_b", actions), ("v_b", 1)):
        if shapes[bias] != (length,):
            raise ValueError(f"{where}: {num_players}/{bias} has shape {shapes[bias]}")
    return size, h1, h2, actions


class _ActionIds:
    """A network's action ids: ``action_to_id`` at its seat count, remembered."""

    num_players: int
    ids: dict[Action, int]

    def action_id(self, action: Action) -> int:
        """``action_to_id`` of ``action`` at this seat count, remembered."""
        found = self.ids.get(action)
        if found is None:
            found = self.ids[action] = action_to_id(action, self.num_players)
        return found


def _hint_input(
    features: list[float], actions: int, ids: list[int], hint: list[float]
) -> list[float]:
    """The input of a network that reads the hint: the features, then one entry per id."""
    vector = [0.0] * actions
    for i, value in zip(ids, hint, strict=True):
        vector[i] = value
    return features + vector


class _Network(_ActionIds):
    """One seat count's network, float32 in NumPy, and its action ids.

    ``hint``: the weight of each action id's greedy hint in its logit (format 3), or None.
    """

    def __init__(
        self, np: Any, arrays: dict[str, Any], num_players: int, where: str, hint: Any = None
    ) -> None:
        shapes = {name: tuple(arrays[name].shape) for name in _LAYERS}
        size, h1, h2, actions = _shapes(shapes, num_players, where)
        as32 = {name: np.ascontiguousarray(arrays[name], dtype=np.float32) for name in _LAYERS[:6]}
        for name, array in as32.items():
            if not np.isfinite(array).all():
                raise ValueError(f"{where}: {num_players}/{name} holds a NaN or an infinity")
        # NumPy's functions, not the module: a bot (and its weights) can then be pickled.
        self._asarray, self._maximum, self._float32 = np.asarray, np.maximum, np.float32
        self.num_players = num_players
        self.size = size
        self.actions = actions
        self.hidden = (h1, h2)
        self.w0, self.b0 = as32["w0"], as32["b0"]
        self.w1, self.b1 = as32["w1"], as32["b1"]
        self.pi_w, self.pi_b = as32["pi_w"], as32["pi_b"]
        self.hint = None if hint is None else np.asarray(hint, dtype=np.float32)
        self.ids: dict[Action, int] = {}

    heads_w: Any = None
    """The value heads' matrix (last hidden layer by ``2 + n``), or None (no heads)."""
    heads_b: Any = None

    def trunk(self, x: list[float]) -> Any:
        """The last hidden layer (float32) of one input vector."""
        h = self._asarray(x, dtype=self._float32) @ self.w0
        h += self.b0
        self._maximum(h, 0.0, out=h)
        h = h @ self.w1
        h += self.b1
        self._maximum(h, 0.0, out=h)
        return h

    def logits(self, x: list[float]) -> Any:
        """The action logits (float32, one per action id) of one input vector, hint aside."""
        out = self.trunk(x) @ self.pi_w
        out += self.pi_b
        return out

    def heads(self, x: list[float]) -> Any:
        """The value heads' outputs of one input vector: margin, win logit, rank logits."""
        out = self.trunk(x) @ self.heads_w
        out += self.heads_b
        return out

    def legal_logits(
        self, features: list[float], ids: list[int], hint: list[float] | None = None
    ) -> list[float]:
        """The logits of the action ids ``ids``, in their order (``hint``: theirs, format 3)."""
        if self.hint is None:
            values: list[float] = self.logits(features)[ids].tolist()
            return values
        assert hint is not None
        out = self.logits(_hint_input(features, self.actions, ids, hint))[ids]
        out += self.hint[ids] * self._asarray(hint, dtype=self._float32)
        values = out.tolist()
        return values


class _Plain:
    """An array of a weights file read without NumPy: its shape and its values, flat."""

    def __init__(
        self, shape: tuple[int, ...], values: list[float] | str, int8: bool = False
    ) -> None:
        self.shape = shape
        self.values = values
        self.int8 = int8

    def __getitem__(self, index: tuple[()]) -> list[float] | str:
        if index != ():
            raise IndexError("only [()] is supported")
        return self.values

    def floats(self) -> list[float]:
        """The values of a numeric array."""
        values = self.values
        assert isinstance(values, list)
        return values

    def rows(self) -> list[list[float]]:
        """A matrix's rows."""
        values, width = self.floats(), self.shape[1]
        return [values[i : i + width] for i in range(0, len(values), width)]

    def columns(self) -> list[list[float]]:
        """A matrix's columns."""
        values, width = self.floats(), self.shape[1]
        return [values[j::width] for j in range(width)]


_NPY_NUMBERS = {"<f2": "e", "<f4": "f", "<f8": "d", "|i1": "b"}


def _read_npz(data: bytes, where: str) -> dict[str, _Plain]:
    """The arrays of an ``.npz`` file, read with ``zipfile`` and ``struct`` (no NumPy).

    Reads what ``allegra-rules train`` writes: little-endian float16/32/64 and int8
    arrays in C order and the ``meta`` string (a 0-d unicode array).

    Raises:
        ValueError: the file is not such an ``.npz``.
    """
    arrays: dict[str, _Plain] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for member in archive.namelist():
                if not member.endswith(".npy"):
                    continue
                arrays[member[: -len(".npy")]] = _read_npy(archive.read(member))
    except (zipfile.BadZipFile, ValueError, KeyError, SyntaxError, struct.error) as exc:
        raise ValueError(f"{where}: not a policy weights file (.npz): {exc}") from exc
    return arrays


def _read_npy(data: bytes) -> _Plain:
    """One ``.npy`` entry (format versions 1 to 3)."""
    if data[:6] != b"\x93NUMPY":
        raise ValueError("an entry is not a .npy array")
    major = data[6]
    if major == 1:
        (length,), start = struct.unpack_from("<H", data, 8), 10
    else:
        (length,), start = struct.unpack_from("<I", data, 8), 12
    import ast  # (here: only the browser's policy reads a header)

    header = ast.literal_eval(data[start : start + length].decode("latin-1"))
    body = data[start + length :]
    descr, shape = header["descr"], tuple(header["shape"])
    if header["fortran_order"]:
        raise ValueError("a Fortran-order array")
    count = math.prod(shape)
    if descr in _NPY_NUMBERS:
        code = _NPY_NUMBERS[descr]
        values = list(struct.unpack_from(f"<{count}{code}", body))
        if not all(math.isfinite(v) for v in values):
            raise ValueError("an array holds a NaN or an infinity")
        return _Plain(shape, values, int8=code == "b")
    if descr.startswith("<U") and shape == ():
        return _Plain(shape, body[: 4 * int(descr[2:])].decode("utf-32-le").rstrip("\x00"))
    raise ValueError(f"an array of type {descr}")


class _PlainNetwork(_ActionIds):
    """One seat count's network in plain Python (double precision), for the browser."""

    def __init__(
        self,
        arrays: dict[str, _Plain],
        num_players: int,
        where: str,
        hint: _Plain | None = None,
    ) -> None:
        shapes = {name: arrays[name].shape for name in _LAYERS}
        size, h1, h2, actions = _shapes(shapes, num_players, where)
        self.num_players = num_players
        self.size = size
        self.actions = actions
        self.hint = None if hint is None else hint.floats()
        self.hidden = (h1, h2)
        self.w0_rows = arrays["w0"].rows()
        self.b0 = arrays["b0"].floats()
        self.w1_columns = arrays["w1"].columns()
        self.b1 = arrays["b1"].floats()
        self.pi_columns = arrays["pi_w"].columns()
        self.pi_b = arrays["pi_b"].floats()
        self.ids: dict[Action, int] = {}

    def legal_logits(
        self, features: list[float], ids: list[int], hint: list[float] | None = None
    ) -> list[float]:
        """The logits of the action ids ``ids``, in their order (``hint``: theirs, format 3)."""
        weights = self.hint
        if weights is not None:
            assert hint is not None
            features = _hint_input(features, self.actions, ids, hint)
        # The first layer over the nonzero features only, a column at a time: the bias,
        # then each feature's row (times the feature) added in the features' order.
        terms: list[list[float]] = [
            row if x == 1.0 else [x * w for w in row]
            for x, row in zip(features, self.w0_rows, strict=True)
            if x
        ]
        h = [a if a > 0.0 else 0.0 for a in map(sum, zip(self.b0, *terms, strict=True))]
        h = [
            max(0.0, b + sum(map(operator.mul, h, column)))
            for b, column in zip(self.b1, self.w1_columns, strict=True)
        ]
        out = [self.pi_b[i] + sum(map(operator.mul, h, self.pi_columns[i])) for i in ids]
        if weights is None:
            return out
        assert hint is not None
        return [v + weights[i] * x for v, i, x in zip(out, ids, hint, strict=True)]


def _matrix(shapes: dict[str, tuple[int, ...]], name: str, where: str) -> tuple[int, int]:
    shape = shapes[name]
    if len(shape) != 2 or min(shape) < 1:
        raise ValueError(f"{where}: {name} must be a non-empty matrix; its shape is {shape}")
    return shape[0], shape[1]


def _rule_inputs(meta: dict[str, Any], where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A format 4 file's ``meta["rule_inputs"]`` (checked), and its card slots' layout."""
    if meta.get("card_slots") != CARD_SLOTS or meta.get("slot_low") != SLOT_LOW:
        raise ValueError(
            f"{where}: meta['card_slots'] and meta['slot_low'] must be {CARD_SLOTS} and "
            f"{SLOT_LOW} (this version's NetworkInput); got {meta.get('card_slots')!r} and "
            f"{meta.get('slot_low')!r}"
        )
    raw = meta.get("rule_inputs")
    shape = "a list of [option, [choice, ...]] pairs"
    if not isinstance(raw, list):
        raise ValueError(f"{where}: meta['rule_inputs'] must be {shape}")
    out: list[tuple[str, tuple[str, ...]]] = []
    for entry in raw:
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not isinstance(entry[0], str)
            or not isinstance(entry[1], list)
            or not all(isinstance(c, str) for c in entry[1])
        ):
            raise ValueError(f"{where}: meta['rule_inputs'] must be {shape}")
        out.append((entry[0], tuple(entry[1])))
    return tuple(out)


class _Meta:
    """What a weights file's ``meta`` says of the games its policy plays (checked)."""

    def __init__(self, meta: dict[str, Any], where: str) -> None:
        counts = meta.get("seat_counts")
        if (
            not isinstance(counts, list)
            or not counts
            or any(type(n) is not int or n < 2 for n in counts)
        ):
            raise ValueError(f"{where}: meta['seat_counts'] must be a list of seat counts")
        self.seat_counts: tuple[int, ...] = tuple(sorted(set(counts)))
        self.preset = str(meta.get("preset", "?"))
        self.rule_inputs: tuple[tuple[str, tuple[str, ...]], ...] | None = None
        """The rule options a format 4 network reads; ``None``: it plays one config."""
        if meta.get("format") == 4:
            self.rule_inputs = _rule_inputs(meta, where)
        fingerprint = meta.get("config_fingerprint")
        if self.rule_inputs is None and not isinstance(fingerprint, str):
            raise ValueError(f"{where}: meta['config_fingerprint'] is missing")
        self.fingerprint = fingerprint if isinstance(fingerprint, str) else ""
        self.trained_config = (
            None if self.rule_inputs is not None else _preset_config(self.preset, self.fingerprint)
        )
        """The trained rules when they are a known preset's and the only ones, else ``None``."""
        config = self.trained_config
        self.trained_turns = None if config is None else config.max_turns_per_round
        """The trained rules' turn cap (``None``: rules of no known preset)."""
        self.value_heads = meta.get("format") == 4 and meta.get("value_heads") is True
        """Whether the networks have the value heads (format 4, ``--value-heads``)."""

    def meta_for(self, n: int, config: RuleConfig) -> _Meta | None:
        """The meta, when its network plays ``config`` (one meta for every seat count)."""
        return self if self.accepts(config) else None

    def preset_of(self, n: int) -> str:
        """The preset the networks name (for a message)."""
        return self.preset

    def accepts(self, config: RuleConfig) -> bool:
        """Whether the policy plays ``config``: any config (format 4), or the trained one.

        Up to ``max_turns_per_round``: a cap on a round's turns (a table's setting for a
        short game) changes none of the features the network reads.
        """
        if self.rule_inputs is not None:
            return True
        trained = self.trained_turns
        same = config if trained is None else attrs.evolve(config, max_turns_per_round=trained)
        return same.fingerprint == self.fingerprint


class _Policy(_Meta):
    """A weights file, read and checked: its meta and one network per seat count."""

    def __init__(self, np: Any, arrays: dict[str, Any], where: str) -> None:
        """``np``: NumPy, or ``None`` for networks in plain Python (``arrays`` of ``_Plain``)."""
        meta = _meta(arrays, where)
        super().__init__(meta, where)
        self.where = where
        self.meta = meta
        self.networks: dict[int, _Network | _PlainNetwork] = {}
        version = meta["format"]
        # Format 3 always reads the greedy hint; format 4 when its meta says so.
        has_hint = version == 3 or (version == 4 and meta.get("greedy_input") is True)
        for n in self.seat_counts:
            names = [*_LAYERS, "hint"] if has_hint else list(_LAYERS)
            missing = [name for name in names if f"{n}/{name}" not in arrays]
            if missing:
                raise ValueError(f"{where}: no {', '.join(f'{n}/{m}' for m in missing)}")
            if not has_hint and f"{n}/hint" in arrays:
                which = f"format {version}" + (" without greedy_input" if version > 3 else "")
                raise ValueError(f"{where}: {which} has no greedy hint ({n}/hint)")
            layers = _layers(np, arrays, n, where, version)
            hint = _hint_weights(np, arrays[f"{n}/hint"], n, where) if has_hint else None
            self.networks[n] = (
                _PlainNetwork(layers, n, where, hint)
                if np is None
                else _Network(np, layers, n, where, hint)
            )
            if hint is not None and tuple(hint.shape) != (self.networks[n].actions,):
                raise ValueError(
                    f"{where}: {n}/hint has shape {tuple(hint.shape)}; "
                    f"{n} seats have {self.networks[n].actions} action ids"
                )
        if self.value_heads:
            for n, net in self.networks.items():
                self._read_heads(np, arrays, n, net, version)
        hidden = meta.get("hidden")
        if hidden is not None:
            for n, net in self.networks.items():
                if list(net.hidden) != hidden:
                    raise ValueError(
                        f"{where}: meta['hidden'] is {hidden}; the {n}-seat network has "
                        f"{list(net.hidden)}"
                    )
        self.encoders: dict[int, Encoder] = {}
        self._inputs: dict[tuple[RuleConfig, int], NetworkInput] = {}
        self._configs: dict[RuleConfig, bool] = {}
        config = RuleConfig() if self.rule_inputs is not None else self.trained_config
        if config is not None:  # a known preset, or any config: check the input sizes now
            for n in self.seat_counts:
                self.encoder(config, n)

    def _read_heads(
        self, np: Any, arrays: dict[str, Any], n: int, net: _Network | _PlainNetwork, version: int
    ) -> None:
        """Read the ``n``-seat network's value heads (kept by the NumPy network only)."""
        where = self.where
        missing = [f"{n}/{k}" for k in ("heads_w", "heads_b") if f"{n}/{k}" not in arrays]
        if missing:
            raise ValueError(f"{where}: meta['value_heads'] is true but there is no {missing[0]}")
        layers = _layers(np, arrays, n, where, version, ("heads_w", "heads_b"), ("heads_w",))
        want = (net.hidden[1], 2 + n)
        w, b = layers["heads_w"], layers["heads_b"]
        if tuple(w.shape) != want or tuple(b.shape) != want[1:]:
            raise ValueError(
                f"{where}: {n}/heads_w and {n}/heads_b have shapes {tuple(w.shape)} and "
                f"{tuple(b.shape)}; the {n}-seat heads need {want} and {want[1:]}"
            )
        if isinstance(net, _Network):
            net.heads_w = np.ascontiguousarray(w, dtype=np.float32)
            net.heads_b = np.ascontiguousarray(b, dtype=np.float32)
            if not (np.isfinite(net.heads_w).all() and np.isfinite(net.heads_b).all()):
                raise ValueError(f"{where}: {n}/heads holds a NaN or an infinity")

    def accepts(self, config: RuleConfig) -> bool:
        """Whether ``config`` is the config the policy was trained for (remembered)."""
        known = self._configs.get(config)
        if known is None:
            known = self._configs[config] = super().accepts(config)
        return known

    def policy_for(self, n: int, config: RuleConfig, value: bool = False) -> _Policy:
        """The policy that holds the ``n``-seat network: this one (ValueError: none).

        ``config`` and ``value`` are checked by the caller (one file, one network a seat
        count).
        """
        if n not in self.networks:
            raise _no_network(self.seat_counts, n, self.where)
        return self

    def _check_input(self, n: int, size: int, what: str, theirs: str) -> None:
        """Raise ValueError unless the ``n``-seat network reads ``size`` entries (hint aside)."""
        network = self.networks[n]
        wanted = network.size - (0 if network.hint is None else network.actions)
        if size != wanted:
            raise ValueError(
                f"{self.where}: the {n}-seat network reads {wanted} {what}; {theirs} {size}"
            )

    def encoder(self, config: RuleConfig, n: int) -> Encoder | NetworkInput:
        """What the ``n``-seat network reads of a view (its size checked against the network).

        The features ``Encoder`` of ``n`` seats, or for a format 4 file the
        ``NetworkInput`` of ``config`` (the last few configs' are kept).
        """
        if self.rule_inputs is not None:
            found = self._inputs.get((config, n))
            if found is None:
                found = NetworkInput(config, n, self.rule_inputs)
                self._check_input(n, found.size, "inputs", f"NetworkInput of {n} seats has")
                if len(self._inputs) >= _KEPT_INPUTS:
                    self._inputs.pop(next(iter(self._inputs)))
                self._inputs[(config, n)] = found
            return found
        encoder = self.encoders.get(n)
        if encoder is None:
            encoder = Encoder(config, n)
            self._check_input(n, encoder.size, "features", f"the features of {n} seats are")
            self.encoders[n] = encoder
        return encoder


_KEPT_INPUTS = 32
"""How many configs' ``NetworkInput`` a format 4 policy keeps (the oldest goes first)."""


def _meta(arrays: dict[str, Any], where: str) -> dict[str, Any]:
    if "meta" not in arrays:
        raise ValueError(f"{where}: not a policy weights file (it has no 'meta' entry)")
    raw = arrays["meta"]
    try:
        meta = json.loads(str(raw[()]))
    except (ValueError, IndexError, TypeError) as exc:
        raise ValueError(f"{where}: its 'meta' entry is not a JSON object ({exc})") from exc
    if not isinstance(meta, dict):
        raise ValueError(f"{where}: its 'meta' entry is not a JSON object")
    version = meta.get("format")
    if version not in _FORMATS or type(version) is not int:
        raise ValueError(
            f"{where}: weights format {version!r}; this version of allegra_rules reads "
            f"formats {', '.join(map(str, _FORMATS[:-1]))} and {_FORMATS[-1]}"
        )
    return meta


def _layers(
    np: Any,
    arrays: dict[str, Any],
    n: int,
    where: str,
    version: int,
    names: tuple[str, ...] = _LAYERS,
    matrices: tuple[str, ...] = _MATRICES,
) -> dict[str, Any]:
    """The ``n``-seat network's layers with float values (8-bit matrices scaled back)."""
    layers = {name: arrays[f"{n}/{name}"] for name in names}
    for name in names:
        if name not in matrices and _is_int8(np, layers[name]):
            raise ValueError(f"{where}: {n}/{name} is int8; biases are float")
    for name in matrices:
        key = f"{n}/{name}"
        scale = arrays.get(f"{key}_scale")
        eight_bit = _is_int8(np, layers[name])
        if scale is None and not eight_bit:
            continue
        if version < 2:
            raise ValueError(f"{where}: format {version} has no 8-bit matrices ({key})")
        if scale is None or not eight_bit:
            raise ValueError(f"{where}: {key} and {key}_scale go together: int8 and its scales")
        columns = layers[name].shape[-1:]
        if len(layers[name].shape) != 2 or tuple(scale.shape) != columns:
            raise ValueError(
                f"{where}: {key}_scale has shape {tuple(scale.shape)}; "
                f"{key} has shape {tuple(layers[name].shape)}"
            )
        layers[name] = _scaled(np, layers[name], scale, f"{where}: {key}_scale")
    return layers


def _hint_weights(np: Any, array: Any, n: int, where: str) -> Any:
    """The ``n``-seat network's hint weights, checked: floats, finite, a vector."""
    if _is_int8(np, array) or (np is not None and array.dtype.kind != "f"):
        raise ValueError(f"{where}: {n}/hint must hold floats")
    if len(array.shape) != 1:
        raise ValueError(f"{where}: {n}/hint must be a vector; its shape is {tuple(array.shape)}")
    finite = (
        all(math.isfinite(v) for v in array.floats())
        if np is None
        else bool(np.isfinite(array).all())
    )
    if not finite:
        raise ValueError(f"{where}: {n}/hint holds a NaN or an infinity")
    return array


def _is_int8(np: Any, array: Any) -> bool:
    if np is None:
        return bool(array.int8)
    return bool(array.dtype == np.int8)


def _scaled(np: Any, matrix: Any, scale: Any, what: str) -> Any:
    """``matrix * scale`` by column, in float32 (NumPy) or double (plain Python)."""
    if np is None:
        factors = scale.floats()
        if scale.int8 or not all(f >= 0.0 for f in factors):
            raise ValueError(f"{what} must hold float scales of 0 or more")
        width = len(factors)
        values = matrix.floats()
        return _Plain(matrix.shape, [v * factors[k % width] for k, v in enumerate(values)])
    factors = np.asarray(scale)
    if factors.dtype.kind != "f" or not bool((factors >= 0).all()):
        raise ValueError(f"{what} must hold float scales of 0 or more")
    return np.asarray(matrix, dtype=np.float32) * factors.astype(np.float32)


def _preset_config(name: str, fingerprint: str) -> RuleConfig | None:
    base = name.split("@")[0]
    if base not in PRESETS:
        return None
    try:
        config = preset(name)
    except (ValueError, IndexError):
        return None
    return config if config.fingerprint == fingerprint else None


class _Entry:
    """One shipped weights file of the index: its name, size, SHA-256 and meta."""

    def __init__(self, entry: Any, n: int, where: str) -> None:
        fields = ("file", "bytes", "sha256", "meta")
        if not isinstance(entry, dict) or set(entry) != set(fields):
            raise ValueError(
                f"{where}: each file of networks['{n}'] must be {{{', '.join(fields)}}}"
            )
        name, meta = entry["file"], entry["meta"]
        if not isinstance(name, str) or _seat_count_of(name) != n or not isinstance(meta, dict):
            raise ValueError(f"{where}: networks['{n}'] names the wrong file or no meta")
        self.file, self.size, self.sha256 = name, int(entry["bytes"]), str(entry["sha256"])
        self.raw_meta = meta
        self.meta = _Meta(meta, f"{where} ({name})")
        if self.meta.seat_counts != (n,):
            raise ValueError(f"{where}: {name} must hold the {n}-seat network alone")


class _Shipped:
    """The shipped weights: their index, and each file, read when a table first needs it.

    A seat count has one file or more, tried in the index's order: the first whose
    network plays the table's rules plays it (a preset's own network first, then the
    network of every config).
    """

    def __init__(self, index: Any, where: str, folder: Any) -> None:
        """``folder``: where the files are (a ``Path`` or an ``importlib.resources`` folder)."""
        networks = index.get("networks") if isinstance(index, dict) else None
        if not isinstance(networks, dict) or not networks:
            raise ValueError(f"{where}: not an index of weights files (no 'networks' object)")
        self.where = where
        self.folder = folder
        self.entries: dict[int, list[_Entry]] = {}
        for key, entries in networks.items():
            if not key.isdigit() or not isinstance(entries, list) or not entries:
                raise ValueError(f"{where}: networks[{key!r}] must be a list of files")
            self.entries[int(key)] = [_Entry(e, int(key), where) for e in entries]
        self.seat_counts = tuple(sorted(self.entries))
        every = [e for n in self.seat_counts for e in self.entries[n]]
        self.value_heads = all(
            any(e.meta.value_heads for e in self.entries[n]) for n in self.seat_counts
        )
        """Whether every seat count has a network with value heads."""
        metas = [e.raw_meta for e in every]
        shared = {k: v for k, v in metas[0].items() if all(m.get(k) == v for m in metas)}
        shared["seat_counts"] = list(self.seat_counts)
        shared["networks"] = {
            str(n): [e.raw_meta for e in self.entries[n]] for n in self.seat_counts
        }
        self.meta = shared
        """The meta entries every file agrees on, ``seat_counts`` and each file's meta."""
        self._chosen: dict[tuple[int, RuleConfig, bool], _Entry | None] = {}

    def _entry(self, n: int, config: RuleConfig, value: bool = False) -> _Entry | None:
        """The first ``n``-seat file that plays ``config`` (remembered: it runs every move)."""
        key = (n, config, value)
        if key in self._chosen:
            return self._chosen[key]
        found = next(
            (
                entry
                for entry in self.entries.get(n, ())
                if entry.meta.accepts(config) and (entry.meta.value_heads or not value)
            ),
            None,
        )
        if len(self._chosen) >= _KEPT_INPUTS:
            self._chosen.pop(next(iter(self._chosen)))
        self._chosen[key] = found
        return found

    def meta_for(self, n: int, config: RuleConfig) -> _Meta | None:
        """What the index says of the ``n``-seat network that plays ``config`` (None: none)."""
        entry = self._entry(n, config)
        return None if entry is None else entry.meta

    def preset_of(self, n: int) -> str:
        """The preset the ``n``-seat networks name (for a message)."""
        return self.entries[n][-1].meta.preset

    def policy_for(self, n: int, config: RuleConfig, value: bool = False) -> _Policy:
        """The file of the ``n``-seat network that plays ``config``, read and checked.

        ``value``: a network with value heads. A file is read once per process and
        backend.

        Raises:
            ValueError: no network for ``n`` seats and ``config``, or a file that is not
                the index's.
            FileNotFoundError: the package holds the index but not the file, and no
                ``fetch_shipped_weights`` source is set.
        """
        if n not in self.entries:
            raise _no_network(self.seat_counts, n, self.where)
        entry = self._entry(n, config, value)
        if entry is None:
            which = " with value heads" if value else ""
            raise ValueError(
                f"this policy has no {n}-seat network{which} for the game's rules: they "
                f"differ from those it was trained for (fingerprint {config.fingerprint[:12]}...)"
            )
        np, backend = _backend()
        where = f"{self.where.rsplit('/', 1)[0]}/{entry.file}"
        key = backend + where
        cached = _CACHE.get(key)
        if cached is not None:
            return cached[1]
        data = self._bytes(entry.file, where)
        if len(data) != entry.size or hashlib.sha256(data).hexdigest() != entry.sha256:
            raise ValueError(f"{where}: not the file the index names ({len(data)} bytes)")
        policy = _policy_of(np, data, where)
        if policy.seat_counts != (n,):
            raise ValueError(f"{where}: must hold the {n}-seat network alone")
        _CACHE[key] = (None, policy)
        return policy

    def _bytes(self, name: str, where: str) -> bytes:
        """The file ``name``: the folder's, else the fetched one."""
        found = self.folder.joinpath(name)
        if found.is_file():
            return found.read_bytes()  # type: ignore[no-any-return]
        if _FETCH:
            return _FETCH[0](name)
        raise FileNotFoundError(
            f"this installation of allegra_rules has the index of its shipped policy but "
            f"not {where}; pass weights=<a weights file>"
        )


_FETCH: list[Callable[[str], bytes]] = []
"""The source of shipped weights files missing from the package (``fetch_shipped_weights``)."""


def fetch_shipped_weights(fetch: Callable[[str], bytes] | None) -> None:
    """Where shipped weights files come from when the package holds their index alone.

    ``fetch(name)`` returns the bytes of the file ``name`` (such as ``"policy-2.npz"``);
    it is called when a bot first plays a table whose file the package lacks, and
    the bytes are checked against the index's size and SHA-256. The docs' play page
    ships a wheel without the weights files and sets this to fetch each one from the
    site when a table first seats the policy, so a table downloads its own network only.
    ``None`` removes the source.
    """
    _FETCH.clear()
    if fetch is not None:
        _FETCH.append(fetch)


@functools.cache
def _shipped() -> _Shipped:
    """The shipped weights' index, read (no network is loaded, no NumPy needed)."""
    where = _SHIPPED_WHERE
    resource = resources.files("allegra_rules").joinpath(SHIPPED_WEIGHTS)
    if not resource.is_file():
        raise FileNotFoundError(
            f"this installation of allegra_rules has no shipped policy ({where}); "
            "pass weights=<a weights file>"
        )
    try:
        index = json.loads(resource.read_bytes())
    except ValueError as exc:
        raise ValueError(f"{where}: not a JSON index of weights files ({exc})") from exc
    return _Shipped(index, where, resources.files("allegra_rules").joinpath("data"))


def _npz_meta(data: bytes, where: str) -> dict[str, Any]:
    """The meta of a weights file, read without its arrays (no NumPy needed)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            raw = _read_npy(archive.read("meta.npy"))
    except (zipfile.BadZipFile, ValueError, KeyError, SyntaxError, struct.error) as exc:
        raise ValueError(f"{where}: not a policy weights file (.npz): {exc}") from exc
    return _meta({"meta": raw}, where)


def _seat_count_of(name: str) -> int | None:
    """The seat count of a shipped file's name: ``policy-<n>.npz``, ``policy-<n>-<name>.npz``."""
    if not (name.startswith("policy-") and name.endswith(".npz")):
        return None
    count, _, own = name[len("policy-") : -len(".npz")].partition("-")
    if not count.isdigit() or count != str(int(count)):
        return None
    if own and not (own.isascii() and own.replace("_", "").isalnum() and own.islower()):
        return None
    return int(count)


def write_shipped_index(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Write the index of the weights files ``policy-<n>*.npz`` in ``folder`` (``policy.json``).

    Each file holds the network of one seat count alone: ``policy-<n>.npz`` the network
    that plays every config at ``n`` seats (format 4: ``allegra-rules train --seats n
    --rules-input --out policy-n.npz``), and ``policy-<n>-<name>.npz`` (say
    ``policy-4-seeds.npz``) a network of one preset's rules, which plays them in its
    place. The index lists a seat count's files in that order, each with its size,
    SHA-256 and meta ([`SHIPPED_WEIGHTS`][allegra_rules.policy.SHIPPED_WEIGHTS]); the
    package's is ``src/allegra_rules/data/policy.json``, written after its files change
    by ``python -c "from allegra_rules.policy import write_shipped_index as w;
    w('src/allegra_rules/data')"``.

    Returns:
        The index written.

    Raises:
        ValueError: no such files, or one that is not a weights file of its seat count.
    """
    base = Path(folder)
    networks: dict[int, list[tuple[bool, str, dict[str, Any]]]] = {}
    for path in sorted(base.glob("policy-*.npz")):
        n = _seat_count_of(path.name)
        if n is None:
            raise ValueError(f"{path}: not named policy-<seats>.npz or policy-<seats>-<name>.npz")
        data = path.read_bytes()
        meta = _npz_meta(data, str(path))
        if _Meta(meta, str(path)).seat_counts != (n,):
            raise ValueError(f"{path}: must hold the {n}-seat network alone")
        entry = {
            "file": path.name,
            "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "meta": meta,
        }
        networks.setdefault(n, []).append((path.name == f"policy-{n}.npz", path.name, entry))
    if not networks:
        raise ValueError(f"{base}: no weights files policy-<n>.npz")
    index = {
        "networks": {
            str(n): [entry for _, _, entry in sorted(networks[n], key=lambda e: e[:2])]
            for n in sorted(networks)
        }
    }
    text = json.dumps(index, indent=1) + "\n"
    (base / Path(SHIPPED_WEIGHTS).name).write_text(text, encoding="utf-8")
    return index


_GREEDY = GreedyBot(0)
"""The greedy hint's scorer (``GreedyBot.hint`` draws no random numbers)."""

_CACHE: dict[str, tuple[object, _Policy]] = {}
"""Read weights files, by path (``"<shipped>"`` for the package's), with the file's stamp."""


def _backend() -> tuple[Any, str]:
    """NumPy (or None: the plain-Python path) and the prefix of its keys in ``_CACHE``.

    Each backend keeps its own networks, so a process that has both never mixes them.
    """
    np = None if _plain_python() else _numpy()
    return np, "plain " if np is None else ""


def _no_network(seat_counts: Sequence[int], n: int, where: str) -> ValueError:
    """The error for a game of ``n`` seats that no network of ``where`` plays."""
    counts = ", ".join(map(str, seat_counts))
    return ValueError(f"this policy plays tables of {counts} seats; the game has {n} ({where})")


def _load(weights: str | os.PathLike[str] | None) -> _Policy | _Shipped:
    """The weights file ``weights`` read and checked, or (``None``) the shipped index."""
    np, backend = _backend()
    if weights is None:
        cached = _CACHE.get(backend + _SHIPPED_WHERE)  # a test's stand-in for the shipped
        return _shipped() if cached is None else cached[1]
    if not isinstance(weights, (str, os.PathLike)):
        raise ValueError(f"weights must be None or a file path; got {type(weights).__name__}")
    # The path as given, not as pathlib normalises it ("" would be "."): the operating
    # system's error (FileNotFoundError, IsADirectoryError) names what the caller wrote.
    given = os.fspath(weights)
    info = os.stat(given)
    key = backend + str(Path(given).resolve())
    stamp = (info.st_mtime_ns, info.st_size)
    cached = _CACHE.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    with open(given, "rb") as file:
        data = file.read()
    policy = _policy_of(np, data, str(weights))
    _CACHE[key] = (stamp, policy)
    return policy


def _policy_of(np: Any, data: bytes, where: str) -> _Policy:
    """The weights file ``data`` read and checked, its networks in NumPy or (None) plain."""
    arrays: dict[str, Any]
    if np is None:
        arrays = dict(_read_npz(data, where))
    else:
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as loaded:
                arrays = {name: loaded[name] for name in loaded.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, AttributeError) as exc:
            raise ValueError(f"{where}: not a policy weights file (.npz): {exc}") from exc
    return _Policy(np, arrays, where)


@attrs.frozen
class PolicyValue:
    """What a network's value heads expect for the seat to act, from its view alone.

    Attributes:
        margin: its round reward less the others' mean at the round's end, in the
            engine's scaled rewards (a game's round rewards add up to its total mapped
            onto ``[+1, -1]``, +1 the best total); above 0: it ends the round ahead.
        win: the probability that it wins the game (a shared win counts).
        ranks: the probability of each rank at the game's end, rank 0 (the lowest total)
            first; they add up to 1.
    """

    margin: float
    win: float
    ranks: tuple[float, ...]


class PolicyBot:
    """Plays a learned policy: the legal move its network likes best, from the seat's view.

    It reads nothing of the state but ``observe(state, state.current_player)``: two states
    that look the same to the seat get the same move for the same seed. The module's
    description says how it decides and what the weights file holds; the docs page "How
    strong are the bots" gives its measured strength.

    Args:
        seed: seeds the bot's own ``random.Random`` (used for exact ties only).
        weights: a weights file (``allegra-rules train --out FILE``); None plays the
            weights shipped in the package.

    Raises:
        ImportError: NumPy is not installed (in a clone: ``pip install ".[policy]"``).
        FileNotFoundError: ``weights`` names no file, or (None) the package has no weights.
        ValueError: ``seed`` is not an int, or the file is not a weights file this version
            reads (its format, its meta or an array's shape is wrong).

    Examples:
        >>> from allegra_rules import new_game, legal_actions
        >>> state = new_game(4, seed=3)
        >>> bot = PolicyBot(0)  # doctest: +SKIP
        >>> bot.choose(state) in legal_actions(state)  # doctest: +SKIP
        True
    """

    def __init__(self, seed: int = 0, *, weights: str | os.PathLike[str] | None = None) -> None:
        if type(seed) is not int:
            raise ValueError(f"a bot's seed must be an int; got {type(seed).__name__}")
        self.seed = seed
        self.weights = weights
        self._policy = _load(weights)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        if self.weights is None:
            return f"PolicyBot(seed={self.seed})"
        return f"PolicyBot(seed={self.seed}, weights={os.fspath(self.weights)!r})"

    @property
    def meta(self) -> dict[str, Any]:
        """The weights file's ``meta`` object (a copy): preset, seat counts, training command...

        For the shipped weights (files of one seat count each), the entries every file's
        meta agrees on, ``seat_counts`` (all of them) and ``networks``: for each seat
        count, its files' metas in the order they are tried.
        """
        return json.loads(json.dumps(self._policy.meta))  # type: ignore[no-any-return]

    @property
    def seat_counts(self) -> tuple[int, ...]:
        """The seat counts the weights have a network for."""
        return self._policy.seat_counts

    def _network_of(
        self, state: GameState, value: bool = False
    ) -> tuple[_Policy, _Network | _PlainNetwork, int]:
        """The policy and network that play ``state``, and its seat to act (all checked).

        ``value``: the network must have value heads.
        """
        if not isinstance(state, GameState):
            raise ValueError(f"state must be a GameState; got {type(state).__name__}")
        seat = state.current_player
        if seat is None or state.is_terminal:
            raise ValueError("the game is over: there is no action to choose")
        n, config = state.num_players, state.config
        policy = self._policy.policy_for(n, config, value)
        network = policy.networks[n]
        if not policy.accepts(config):
            raise ValueError(
                f"this policy was trained for preset {policy.preset!r} (config fingerprint "
                f"{policy.fingerprint[:12]}...); the game's rules differ (fingerprint "
                f"{config.fingerprint[:12]}...)"
            )
        return policy, network, seat

    def _legal_logits(self, state: GameState) -> tuple[tuple[Action, ...], list[float]]:
        policy, network, seat = self._network_of(state)
        config, n = state.config, state.num_players
        view = observe(state, seat)
        legal = view.legal_actions
        if len(legal) <= 1:
            return legal, [0.0] * len(legal)
        ids = [network.action_id(action) for action in legal]
        features = policy.encoder(config, n).features(view)
        if network.hint is None:
            return legal, network.legal_logits(features, ids)
        hints = _GREEDY.hint(state)
        return legal, network.legal_logits(features, ids, [hints[a] for a in legal])

    @property
    def has_value(self) -> bool:
        """Whether the weights have value heads (format 4 with ``--value-heads``)."""
        return self._policy.value_heads

    def value(self, state: GameState) -> PolicyValue:
        """The value heads' view of ``state`` for its seat to act (``observe`` alone).

        Raises:
            ValueError: ``state`` is not a ``GameState`` or is terminal, the weights have
                no value heads, the network runs in plain Python (the heads need NumPy),
                or as [`choose`][allegra_rules.policy.PolicyBot.choose].
        """
        if not self._policy.value_heads:
            raise ValueError(f"these weights have no value heads ({self._policy.where})")
        policy, network, seat = self._network_of(state, value=True)
        n = state.num_players
        if not isinstance(network, _Network):
            raise ValueError("the value heads run with NumPy only")
        view = observe(state, seat)
        x = policy.encoder(state.config, n).features(view)
        if network.hint is not None:
            legal = view.legal_actions
            ids = [network.action_id(action) for action in legal]
            hints = _GREEDY.hint(state)
            x = _hint_input(x, network.actions, ids, [hints[a] for a in legal])
        out = network.heads(x).tolist()
        win = 1.0 / (1.0 + math.exp(-out[1]))
        top = max(out[2:])
        weights = [math.exp(v - top) for v in out[2:]]
        total = sum(weights)
        return PolicyValue(out[0], win, tuple(w / total for w in weights))

    def choose(self, state: GameState) -> Action:
        """The legal action of ``state`` with the highest logit (exact ties: a seeded draw).

        Raises:
            ValueError: ``state`` is not a ``GameState`` or is terminal, its seat count has
                no network, or its rules are not those the policy was trained for.
        """
        legal, values = self._legal_logits(state)
        if len(legal) == 1:
            return legal[0]
        best = max(values)
        ties = [action for action, value in zip(legal, values, strict=True) if value >= best]
        return ties[0] if len(ties) == 1 else self._rng.choice(ties)

    def action_probabilities(self, state: GameState) -> dict[Action, float]:
        """The policy's probability of each legal action of ``state`` (a softmax of the logits).

        The keys are ``legal_actions(state)`` in their order; the values sum to 1. It uses
        no randomness. This is what guides the search
        ([`SearchGuide`][allegra_rules.search.SearchGuide]).

        Raises:
            ValueError: as [`choose`][allegra_rules.policy.PolicyBot.choose].
        """
        legal, values = self._legal_logits(state)
        if len(legal) == 1:
            return {legal[0]: 1.0}
        top = max(values)
        weights = [math.exp(value - top) for value in values]
        total = sum(weights)
        return {action: w / total for action, w in zip(legal, weights, strict=True)}


def guided_search(seed: int = 0, *, weights: str | os.PathLike[str] | None = None) -> SearchBot:
    """The search's guided level led by a [`PolicyBot`][allegra_rules.policy.PolicyBot].

    [`GUIDED_LEVEL`][allegra_rules.search.GUIDED_LEVEL]'s simulations and candidates; the
    bot name ``search-guided`` (the shipped weights).

    Raises:
        ImportError, FileNotFoundError, ValueError: as ``PolicyBot``.
    """
    return guided_level(PolicyBot(seed, weights=weights), seed)
