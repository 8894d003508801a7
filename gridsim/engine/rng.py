"""The per-env random streams, in pure Python.

The kernel (``gridsim/engine/_rng.pxd``) implements the same functions in C; this module
is the readable definition, used by the reference stepper and checked against the
kernel bit for bit in the tests.

Every env has a 128-bit key, ``SeedSequence([seed, mixer_seed]).generate_state(2,
uint64)``. Episode ``e`` of the env draws from the SplitMix64 stream seeded with
``stream_seed(key, TAG_EPISODE, e)``; per-seed tables (fixed cell rewards) draw
from ``stream_seed(key, TAG_TABLE, 0)``. A stream depends only on the key and the
counter, never on the env's index in the batch or on the thread that steps it.
The generator is fixed within a major version; golden files pin it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import cast

import numpy as np

from gridsim.errors import InvalidArgumentError

MASK64 = (1 << 64) - 1
# Seeds (reset, start, checkpoints) and mixer seeds (also the mixerSeed setting) are below this:
# a key mixes 128 bits of each, a checkpoint stores each as two uint64 words, and an
# unbounded integer would cost time in proportion to its digits on every reset.
SEED_BOUND = 1 << 128
GOLDEN = 0x9E3779B97F4A7C15
TAG_EPISODE = 1
TAG_TABLE = 2

DIST_CONST = 0
DIST_NORMAL = 1
DIST_ABS_NORMAL = 2
DIST_UNIFORM = 3
# The largest |z| of ``Stream.normal`` and the kernel's ``next_normal``: sqrt(-2 ln 2**-53).
NORMAL_MAX = math.sqrt(106 * math.log(2))


@dataclass(frozen=True)
class Dist:
    """A reward distribution from the menu the kernel samples.

    Attributes:
        kind: one of ``"const"``, ``"normal"``, ``"abs_normal"``, ``"uniform"``.
        a: the constant, the mean, or the lower bound.
        b: unused, the standard deviation, or the upper bound.
    """

    kind: str
    a: float
    b: float = 0.0

    KINDS = {"const": DIST_CONST, "normal": DIST_NORMAL, "abs_normal": DIST_ABS_NORMAL,
             "uniform": DIST_UNIFORM}

    def __post_init__(self):
        if self.kind not in self.KINDS:
            raise InvalidArgumentError(f"unknown reward distribution {self.kind!r}; use one of {list(self.KINDS)}")
        if not (np.isfinite(self.a) and np.isfinite(self.b)):
            raise InvalidArgumentError(f"reward distribution parameters must be finite, got {self}")
        if self.kind in ("normal", "abs_normal") and self.b < 0:
            raise InvalidArgumentError(f"standard deviation must be >= 0, got {self.b}")
        if self.kind == "uniform" and self.b < self.a:
            raise InvalidArgumentError(f"uniform({self.a}, {self.b}) needs lo <= hi")

    @property
    def max_abs(self) -> float:
        """The largest magnitude a draw can have: a reward beyond float32's range would be inf.

        The normal draws are Box-Muller of a uniform ``u1 >= 2**-53``, so ``|z| <= sqrt(106 ln 2)``
        (about 8.57).
        """
        if self.kind == "const":
            return abs(self.a)
        if self.kind == "uniform":
            return max(abs(self.a), abs(self.b))
        return abs(self.a) + self.b * NORMAL_MAX

    @property
    def code(self) -> int:
        """The kernel's integer code for this kind."""
        return self.KINDS[self.kind]

    @property
    def is_constant(self) -> bool:
        """True when drawing consumes no randomness."""
        return self.kind == "const"

    def __str__(self) -> str:
        if self.kind == "const":
            return f"const({self.a:g})"
        return f"{self.kind}({self.a:g}, {self.b:g})"

    @classmethod
    def parse(cls, value) -> Dist:
        """Build from a number, a Dist, a ``(kind, a[, b])`` tuple or text like ``"normal(-1, 0.05)"``."""
        if isinstance(value, Dist):
            return value
        if isinstance(value, bool):
            raise InvalidArgumentError(f"a reward must be a number or a distribution, got {value!r}")
        if isinstance(value, (int, float, np.integer, np.floating)):
            return cls("const", float(value))
        if isinstance(value, (tuple, list)) and value and isinstance(value[0], str):
            return cls(value[0], *(float(v) for v in value[1:]))
        if isinstance(value, str):
            text = value.strip()
            m = re.fullmatch(r"([a-z_]+)\(\s*([^,()]+?)\s*(?:,\s*([^,()]+?)\s*)?\)", text)
            if m:
                args = [float(m.group(2))] + ([float(m.group(3))] if m.group(3) else [])
                return cls(m.group(1), *args)
            try:
                return cls("const", float(text))
            except ValueError:
                pass
        if callable(value):
            raise InvalidArgumentError(
                "callable reward distributions are not supported; use const(), normal(), "
                "abs_normal() or uniform()"
            )
        raise InvalidArgumentError(f"cannot read a reward distribution from {value!r}")


def mix64(z: int) -> int:
    """SplitMix64's output function (a bijection on 64-bit integers)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_seed(key0: int, key1: int, tag: int, counter: int) -> int:
    """The starting state of stream ``(tag, counter)`` of the env with key ``(key0, key1)``."""
    return mix64(key0 ^ mix64(key1 ^ mix64((tag * GOLDEN + counter) & MASK64)))


def derive_keys(seeds, mixer_seed: int = 0) -> np.ndarray:
    """Per-env 128-bit keys ``(len(seeds), 2) uint64`` from integer seeds."""
    out = np.empty((len(seeds), 2), dtype=np.uint64)
    for i, s in enumerate(seeds):
        out[i] = np.random.SeedSequence([int(s), int(mixer_seed)]).generate_state(2, np.uint64)
    return out


def entropy_seed() -> int:
    """A fresh non-negative seed from OS entropy, for envs reset without ever being seeded."""
    entropy = cast(int, np.random.SeedSequence().entropy)  # drawn from the OS: always an int
    return entropy & ((1 << 63) - 1)


class Stream:
    """A SplitMix64 stream; the same draws as the kernel's ``next_u64`` and friends."""

    def __init__(self, state: int):
        self.state = state & MASK64

    def next_u64(self) -> int:
        """Advance and return 64 random bits."""
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def uniform(self) -> float:
        """A double in [0, 1) with 53 random bits."""
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)

    def bounded(self, n: int) -> int:
        """An integer in [0, n) by mask-and-reject; n <= 1 gives 0 and draws nothing."""
        if n <= 1:
            return 0
        mask = n - 1
        mask |= mask >> 1
        mask |= mask >> 2
        mask |= mask >> 4
        mask |= mask >> 8
        mask |= mask >> 16
        mask |= mask >> 32
        while True:
            v = self.next_u64() & mask
            if v < n:
                return v

    def normal(self) -> float:
        """A standard normal draw (Box-Muller, two uniforms, no cached second value)."""
        u1 = 1.0 - self.uniform()
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def sample(self, kind: int, a: float, b: float) -> float:
        """One draw from a reward distribution of the menu (see ``gridsim.nav.alphabet``)."""
        if kind == DIST_CONST:
            return a
        if kind == DIST_NORMAL:
            return a + b * self.normal()
        if kind == DIST_ABS_NORMAL:
            return abs(a + b * self.normal())
        if kind == DIST_UNIFORM:
            return a + (b - a) * self.uniform()
        raise InvalidArgumentError(f"unknown distribution kind {kind}")
