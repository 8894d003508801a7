"""Tile alphabets of the navigation family: symbol -> properties, compiled to tables.

An alphabet maps each map character to a :class:`Symbol`. The special key
``".agent"`` holds only the agent's colour. Tile ids come from table position:
id 0 is ``void`` (outside the map), symbol ``k`` of the alphabet (in declaration
order) has id ``k + 1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

import gridsim.nav._kernel as _kernel
from gridsim.engine.rng import Dist
from gridsim.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "ALPHABETS",
    "Alphabet",
    "Dist",
    "Symbol",
    "abs_normal",
    "const",
    "get_alphabet",
    "normal",
    "uniform",
    "F_WALKABLE",
    "F_TERMINAL",
    "F_INITIAL",
    "F_STOCHASTIC",
    "F_COLLECTIBLE",
    "VOID",
]

# Tile flag bits, read from the kernel (gridsim/nav/_kernel.pyx) that defines them.
F_WALKABLE = _kernel.FLAG_WALKABLE  # "accessible": a move there succeeds
F_TERMINAL = _kernel.FLAG_TERMINAL  # ending a step here terminates the episode
F_INITIAL = _kernel.FLAG_INITIAL  # start-cell candidate
F_STOCHASTIC = _kernel.FLAG_STOCHASTIC  # fresh reward draw on every visit
F_COLLECTIBLE = _kernel.FLAG_COLLECTIBLE  # pays once per episode, then becomes the default tile

VOID = 0  # tile id outside the map


def const(c: float) -> Dist:
    """Always ``c``."""
    return Dist("const", float(c))


def normal(mu: float, sigma: float) -> Dist:
    """N(mu, sigma)."""
    return Dist("normal", float(mu), float(sigma))


def abs_normal(mu: float, sigma: float) -> Dist:
    """``|N(mu, sigma)|``."""
    return Dist("abs_normal", float(mu), float(sigma))


def uniform(lo: float, hi: float) -> Dist:
    """U(lo, hi)."""
    return Dist("uniform", float(lo), float(hi))


@dataclass(frozen=True)
class Symbol:
    """The properties of one map character (PixelWorld's ``DiscreteState``)."""

    reward: Dist = field(default_factory=lambda: const(0.0))
    terminal: bool = False
    accessible: bool = True
    color: tuple[int, int, int] = (255, 255, 255)
    stochastic: bool = False
    initial: bool = False
    collectible: bool = False

    @property
    def flags(self) -> int:
        """The kernel's flag bits for this symbol."""
        return (
            F_WALKABLE * self.accessible
            | F_TERMINAL * self.terminal
            | F_INITIAL * self.initial
            | F_STOCHASTIC * self.stochastic
            | F_COLLECTIBLE * self.collectible
        )

    @classmethod
    def from_mapping(cls, props: Mapping, where: str = "") -> Symbol:
        """Build from a dict with the original's keys (unknown keys raise)."""
        if not isinstance(props, Mapping):
            raise ArgumentTypeError(f"{where}a symbol is a dict of properties, got {type(props).__name__}")
        allowed = {f for f in cls.__dataclass_fields__}
        unknown = set(props) - allowed
        if unknown:
            raise InvalidArgumentError(
                f"{where}unknown symbol properties {sorted(unknown)}; allowed: {sorted(allowed)}")
        kw = dict(props)
        if "reward" in kw:
            kw["reward"] = Dist.parse(kw["reward"])
        if "color" in kw:
            kw["color"] = _color(kw["color"], where)
        for key in ("terminal", "accessible", "stochastic", "initial", "collectible"):
            if key in kw and not isinstance(kw[key], (bool, np.bool_)):
                raise InvalidArgumentError(f"{where}{key} must be a bool, got {kw[key]!r}")
            if key in kw:
                kw[key] = bool(kw[key])
        return cls(**kw)


def _color(value, where: str = "") -> tuple[int, int, int]:
    c = tuple(int(v) for v in value)
    if len(c) != 3 or not all(0 <= v <= 255 for v in c):
        raise InvalidArgumentError(f"{where}a colour is three integers in 0..255, got {value!r}")
    return c


class Alphabet:
    """An ordered set of symbols compiled into kernel tables.

    Args:
        symbols: character -> :class:`Symbol` (or a dict of properties). Order fixes tile ids.
        agent_color: RGB of the agent in image observations.
        default_symbol: the character whose properties replace collected and removed cells.
        name: a label for messages.

    Attributes (tables, index = tile id, row 0 = void):
        chars: the character of each tile id (``""`` for void).
        flags: ``uint32 (S + 1,)`` F_* bits.
        color: ``uint8 (S + 1, 3)``.
        dist_kind: ``int32 (S + 1,)``; dist_a, dist_b: ``float64 (S + 1,)``.
    """

    def __init__(
        self,
        symbols: Mapping[str, Symbol | Mapping],
        agent_color=(50, 205, 50),
        default_symbol: str = " ",
        name: str = "custom",
    ):
        self.name = name
        syms: dict[str, Symbol] = {}
        for ch, s in symbols.items():
            if ch == ".agent":
                agent_color = s["color"] if isinstance(s, Mapping) else s
                continue
            if not isinstance(ch, str) or len(ch) != 1 or ch in "\t\r\n":
                raise InvalidArgumentError(f"alphabet {name}: symbol keys are single printable characters, got {ch!r}")
            syms[ch] = s if isinstance(s, Symbol) else Symbol.from_mapping(s, f"symbol {ch!r}: ")
        if not syms:
            raise InvalidArgumentError(f"alphabet {name} has no symbols")
        if len(syms) > 254:
            raise InvalidArgumentError(f"alphabet {name} has {len(syms)} symbols; at most 254 fit in uint8 ids")
        if default_symbol not in syms:
            raise InvalidArgumentError(f"default_symbol {default_symbol!r} is not in alphabet {name} ({sorted(syms)})")
        for ch, s in syms.items():
            if s.stochastic is False and s.reward.kind not in Dist.KINDS:
                raise InvalidArgumentError(f"symbol {ch!r}: bad reward")
        self.symbols = syms
        self.agent_color = _color(agent_color, "agent: ")
        self.default_symbol = default_symbol
        self.chars = ("",) + tuple(syms)
        self.ids = {ch: i + 1 for i, ch in enumerate(syms)}
        n = len(self.chars)
        self.flags = np.zeros(n, np.uint32)
        self.color = np.zeros((n, 3), np.uint8)
        self.dist_kind = np.zeros(n, np.int32)
        self.dist_a = np.zeros(n, np.float64)
        self.dist_b = np.zeros(n, np.float64)
        for ch, s in syms.items():
            i = self.ids[ch]
            self.flags[i] = s.flags
            self.color[i] = s.color
            self.dist_kind[i] = s.reward.code
            self.dist_a[i] = s.reward.a
            self.dist_b[i] = s.reward.b
        for arr in (self.flags, self.color, self.dist_kind, self.dist_a, self.dist_b):
            arr.setflags(write=False)

    @property
    def default_id(self) -> int:
        """Tile id of the default symbol."""
        return self.ids[self.default_symbol]

    def with_default(self, default_symbol: str) -> Alphabet:
        """The same alphabet with another default symbol."""
        if default_symbol == self.default_symbol:
            return self
        return Alphabet(self.symbols, self.agent_color, default_symbol, self.name)

    def extended(self, extra: Mapping[str, Symbol | Mapping], name: str | None = None) -> Alphabet:
        """A new alphabet with symbols added or replaced (existing ids keep their position)."""
        merged: dict[str, Symbol | Mapping] = dict(self.symbols)
        merged.update(extra)
        return Alphabet(merged, self.agent_color, self.default_symbol, name or self.name)

    def key(self) -> tuple:
        """A hashable description, for caches."""
        return (tuple(self.symbols.items()), self.agent_color, self.default_symbol)

    def __repr__(self) -> str:
        return f"Alphabet({self.name!r}, symbols={''.join(self.symbols)!r}, default={self.default_symbol!r})"


def _navigation_symbols(floor_reward: Dist, goal_reward: Dist) -> dict[str, Symbol]:
    return {
        "#": Symbol(reward=const(0), accessible=False, color=(0, 0, 0)),
        " ": Symbol(reward=floor_reward, color=(255, 255, 255)),
        "S": Symbol(reward=floor_reward, color=(255, 255, 255), initial=True),
        "0": Symbol(reward=goal_reward, terminal=True, color=(50, 50, 255)),
    }


ALPHABETS: dict[str, Alphabet] = {
    # Fully deterministic: -1 per step, +1 at the goal.
    "navigation": Alphabet(_navigation_symbols(const(-1), const(1)), name="navigation"),
    # Each floor cell gets one N(-1, 0.05) value per env seed (fixed, not per step); goal +10.
    "noisy": Alphabet(_navigation_symbols(normal(-1, 0.05), const(10)), name="noisy"),
}


def get_alphabet(alphabet: str | Alphabet | Mapping | None, default_symbol: str | None = None) -> Alphabet:
    """Resolve an alphabet given by name, as an :class:`Alphabet`, or as a dict of symbols."""
    if alphabet is None:
        alphabet = "navigation"
    if isinstance(alphabet, str):
        try:
            result = ALPHABETS[alphabet]
        except KeyError:
            raise InvalidArgumentError(f"unknown alphabet {alphabet!r}; built-in: {sorted(ALPHABETS)}") from None
    elif isinstance(alphabet, Alphabet):
        result = alphabet
    elif isinstance(alphabet, Mapping):
        result = Alphabet(alphabet, default_symbol=default_symbol or " ")
    else:
        raise ArgumentTypeError(f"alphabet must be a name, an Alphabet or a dict, got {type(alphabet).__name__}")
    if default_symbol is not None:
        result = result.with_default(default_symbol)
    return result
