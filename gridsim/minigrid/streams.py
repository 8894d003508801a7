"""Each MiniGrid env's ``np_random``: a numpy Generator that is the env's own stream, the kernel's.

A Minigrid env draws its layouts (and Dynamic-Obstacles its moves) from ``env.np_random``, and so
does every wrapper or program that draws from it between calls (``StochasticActionWrapper``,
Gymnasium's ``StickyAction``, curricula): their draws move the env's stream on. A gridsim env's
stream is numpy's PCG64 state in its kernel row (``MinigridState.bitgen``); :class:`EnvGenerators`
hands out, per row, a ``numpy.random.Generator(PCG64())`` kept in step with it:

* made when first asked for (:meth:`EnvGenerators.generator`), with the row's state; a row whose
  env was never seeded gets a generator of OS entropy, as Gymnasium's ``np_random`` does, and the
  env continues it;
* before a kernel call, a generator whose state is not the one last written into it (something
  drew from it) writes its state into its row (:meth:`EnvGenerators.pull`); after the call, a row
  whose words changed writes them into its generator (:meth:`EnvGenerators.push`);
* a seeded reset gives the row a new generator object, as Gymnasium's ``reset(seed=...)`` does (a
  generator kept from before is no longer the env's; :meth:`EnvGenerators.forget`);
* a generator given to the env (``env.np_random = gen``) becomes the env's (:meth:`EnvGenerators.adopt`).

Rows never asked for cost nothing: the checks run over the rows handed out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium.utils import seeding

import gridsim._core as _core
from gridsim.engine.locking import synchronized
from gridsim.engine.parts import Part
from gridsim.errors import ArgumentTypeError
from gridsim.minigrid.rng import from_numpy_state, to_numpy_state

if TYPE_CHECKING:
    from gridsim.engine.vector import GridVectorEnv

__all__ = ["EnvGenerators"]


class _Handed:
    """A generator handed out, and what was last synced between it and its row."""

    __slots__ = ("gen", "words", "data", "state")

    def __init__(self, gen: np.random.Generator, words: np.ndarray):
        self.gen = gen
        self.words = words  # the row's six words: a view of MinigridState.bitgen
        self.data = words.tobytes()  # the words at the last sync
        self.state = gen.bit_generator.state  # the generator's state at the last sync


class EnvGenerators(Part["GridVectorEnv"]):
    """The numpy generators of a MiniGrid vector env's rows (``env.env_generators``), each its env's stream.

    Args:
        env: the vector env.
        lock: its lock.
    """

    def __init__(self, env: GridVectorEnv, lock: Any):
        super().__init__(env, lock)
        self.handed_out: dict[int, np.random.Generator] = {}  # row -> its generator
        self._synced: dict[int, _Handed] = {}

    @synchronized
    def generator(self, row: int) -> np.random.Generator:
        """Row ``row``'s generator (made on the first call; the same object until a seeded reset of the row)."""
        gen = self.handed_out.get(row)
        if gen is not None:
            return gen
        st = self.env.state
        if not st.seeded[row]:
            # Never seeded: OS entropy, as Gymnasium's np_random; the env continues this stream.
            gen, seed = seeding.np_random()
            self._write_row(row, gen, seed)
        else:
            gen = np.random.Generator(np.random.PCG64())
            gen.bit_generator.state = to_numpy_state(st.bitgen[row])
        self._keep(row, gen)
        return gen

    @synchronized
    def adopt(self, row: int, gen: Any, seed: int | None = None) -> None:
        """Make ``gen`` row ``row``'s generator: its state becomes the row's, and the env draws on from it.

        Args:
            row: the row.
            gen: a ``numpy.random.Generator`` over ``PCG64`` (the kernel runs numpy's PCG64).
            seed: what ``np_random_seed`` reports from now on (None: unknown, -1).

        Raises:
            ArgumentTypeError: ``gen`` is not a Generator over PCG64.
        """
        if not isinstance(gen, np.random.Generator) or not isinstance(gen.bit_generator, np.random.PCG64):
            raise ArgumentTypeError(
                "a MiniGrid env's np_random must be a numpy.random.Generator over PCG64 (its kernel runs numpy's "
                f"PCG64), got {type(gen).__name__}"
                + (f" over {type(gen.bit_generator).__name__}" if isinstance(gen, np.random.Generator) else ""))
        self._write_row(row, gen, seed)
        self._keep(row, gen)

    @synchronized
    def seed(self, row: int) -> int:
        """Row ``row``'s ``np_random_seed``: the seed its generator came from, -1 if unknown (Gymnasium's meaning)."""
        st = self.env.state
        if not st.seeded[row]:
            self.generator(row)  # Gymnasium seeds np_random from OS entropy on this read too
        seed = st.seeds[row]
        return -1 if seed is None else int(seed)

    @synchronized
    def pull(self) -> None:
        """Write into their rows the generators something drew from since the last sync."""
        for kept in self._synced.values():
            state = kept.gen.bit_generator.state
            if state != kept.state:
                words = from_numpy_state(state)
                kept.words[:] = words
                kept.data, kept.state = words.tobytes(), state

    @synchronized
    def push(self) -> None:
        """Write into their generators the rows whose words changed since the last sync."""
        unseeded = []
        for row, kept in self._synced.items():
            data = kept.words.tobytes()
            if data != kept.data:
                if not kept.words.any():  # a loaded state of an env never seeded: it has no generator
                    unseeded.append(row)
                    continue
                state = to_numpy_state(kept.words)
                kept.gen.bit_generator.state = state
                kept.data, kept.state = data, state
        if unseeded:
            self.forget(unseeded)

    @synchronized
    def forget(self, rows: Any) -> None:
        """Drop the generators of ``rows`` (reseeded: their next generator is a new object)."""
        for row in np.asarray(rows, np.int64).reshape(-1).tolist():
            self.handed_out.pop(row, None)
            self._synced.pop(row, None)

    def _keep(self, row: int, gen: np.random.Generator) -> None:
        self.handed_out[row] = gen
        self._synced[row] = _Handed(gen, self.env.state.bitgen[row])

    def _write_row(self, row: int, gen: np.random.Generator, seed: int | None) -> None:
        # The row takes the generator's state and continues it at its next unseeded reset (as
        # set_state's bit_generator does); the seed is what np_random_seed reports.
        st = self.env.state
        words = from_numpy_state(gen.bit_generator.state)
        rows = np.array([row])
        seeds = np.empty(1, object)
        seeds[0] = seed
        _core.commit([(st.bitgen, rows, words[None]), (st.seeded, rows, np.ones(1, np.bool_)),
                      (st.reseed, rows, np.zeros(1, np.bool_)), (st.seeds, rows, seeds)], [])
