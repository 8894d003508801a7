"""Results of :func:`gridsim.evaluate` and of sweeps: per-seed columns, summaries and CSV files."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gridsim.engine.files import add_note, atomic_write, partial_path

__all__ = ["SWEEP_COLUMNS", "EvalResult", "SweepResult"]


def _stats(values: np.ndarray) -> dict[str, float]:
    """Mean, sample standard deviation and the half-width of a normal 95% interval."""
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n > 1 else 0.0
    return {"mean": mean, "std": std, "ci95": 1.96 * std / math.sqrt(n)}


def _format_column(values: np.ndarray) -> list[str]:
    """CSV text of one column: ints as digits, bools as 1/0, floats as their shortest round-trip repr."""
    if values.dtype == np.bool_:
        return ["1" if v else "0" for v in values.tolist()]
    if values.dtype.kind == "f":
        return [repr(float(v)) for v in values.tolist()]
    return [str(int(v)) for v in values.tolist()]


@dataclass(eq=False)
class EvalResult:
    """The episodes of :func:`gridsim.evaluate`: per-seed arrays in the order of the seeds given.

    The columns are also readable by their CSV names: ``result["seed"]``, ``result["return"]``,
    ``result["length"]``, ``result["success"]`` and each extra statistic.

    Attributes:
        seeds: int64 (n,) the seed of each episode (an object array of Python ints for seeds
            of 2**63 or more).
        returns: float64 (n,) the sum of the episode's rewards (a kitchen's team return in the
            agent-rows view, counted once).
        lengths: int64 (n,) the episode's steps.
        successes: bool (n,) the family's success statistic where it has one, else whether the
            episode ended by termination (not truncation).
        extras: the family's other episode statistics (``infos["episode_stats"]`` beyond
            ``return``, ``length`` and ``success``), name -> (n,) array; e.g. a kitchen's
            ``dishes_delivered``.
        env: the env's id or level name (or its class name, for an env passed in).
        policy: the policy's name, as error messages give it.
        num_envs: the rows of the batch.
        batch_steps: the ``step`` calls the evaluation made (each steps every row).
        seconds: the wall-clock time from the first reset to the last episode's end.
    """

    seeds: np.ndarray
    returns: np.ndarray
    lengths: np.ndarray
    successes: np.ndarray
    extras: dict[str, np.ndarray] = field(default_factory=dict)
    env: str = ""
    policy: str = ""
    num_envs: int = 0
    batch_steps: int = 0
    seconds: float = 0.0

    def columns(self) -> dict[str, np.ndarray]:
        """The per-seed columns by name: ``seed``, ``return``, ``length``, ``success``, then the extras."""
        return {"seed": self.seeds, "return": self.returns, "length": self.lengths, "success": self.successes,
                **self.extras}

    def __getitem__(self, name: str) -> np.ndarray:
        cols = self.columns()
        if name not in cols:
            raise KeyError(f"no column {name!r}; the columns are {list(cols)}")
        return cols[name]

    def __len__(self) -> int:
        return len(self.seeds)

    def summary(self) -> dict[str, Any]:
        """Mean, standard deviation and 95% confidence half-width of each statistic.

        Returns:
            A dict ``{"episodes": n, "return": {"mean", "std", "ci95"}, "length": {...}, "success": {...}}``
            plus one entry per numeric extra statistic. ``std`` is the sample standard
            deviation (``ddof=1``; 0.0 for one episode) and ``ci95`` is ``1.96 * std / sqrt(n)``,
            the half-width of the normal-approximation interval ``mean ± ci95``; ``success``
            is the success rate.
        """
        out: dict[str, Any] = {"episodes": len(self)}
        out["return"] = _stats(self.returns)
        out["length"] = _stats(self.lengths)
        out["success"] = _stats(self.successes)
        for name, values in self.extras.items():
            if values.dtype.kind in "biuf":
                out[name] = _stats(values)
        return out

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write one row per seed, in the order of the seeds, under a header of the column names.

        The text depends only on the values: floats are written as their shortest round-trip
        ``repr``, bools as 1 and 0, every line ends in a newline, so equal results give
        byte-identical files.

        The file is written whole or not at all (:func:`gridsim.engine.files.atomic_write`): an
        error or a Ctrl-C midway leaves the previous file as it was.

        Args:
            path: the file to write (replaced if it exists).
        """
        # The text is made before the file is opened: a failure there touches nothing.
        text = self.csv_header() + self.csv_rows()
        with atomic_write(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    def csv_header(self) -> str:
        """The header line of :meth:`to_csv`: the column names."""
        return ",".join(self.columns()) + "\n"

    def csv_rows(self) -> str:
        """The lines of :meth:`to_csv` after the header, one per seed (a file can be written piece by piece)."""
        text = [_format_column(np.asarray(v)) for v in self.columns().values()]
        return "".join(",".join(row) + "\n" for row in zip(*text, strict=True))

    def __repr__(self) -> str:
        s = self.summary()
        r, ok, ln = s["return"], s["success"], s["length"]
        return (f"EvalResult(env={self.env!r}, policy={self.policy!r}, episodes={len(self)}, "
                f"return={r['mean']:.4g} ± {r['ci95']:.2g}, success={ok['mean']:.3f} ± {ok['ci95']:.2g}, "
                f"length={ln['mean']:.4g})")


SWEEP_COLUMNS = ("policy", "env", "episodes", "return_mean", "return_std", "return_ci95",
                 "success_mean", "success_std", "success_ci95")


@dataclass(eq=False)
class SweepResult:
    """Every policy on every env, over the same seeds: one row per (policy, env).

    Attributes:
        rows: dicts with the keys of :data:`SWEEP_COLUMNS`, policies in the outer order, envs in
            the inner: ``return_*`` and ``success_*`` are the mean, sample standard deviation
            and 95% half-width of :meth:`EvalResult.summary`.
        results: the full :class:`EvalResult` of each (policy name, env).
    """

    rows: list[dict[str, Any]] = field(default_factory=list)
    results: dict[tuple[str, str], EvalResult] = field(default_factory=dict)

    def add(self, name: str, env: str | os.PathLike, result: EvalResult) -> None:
        """Append the row of one evaluation (a level file's env is named by its path)."""
        env = os.fspath(env)
        s = result.summary()
        self.rows.append({"policy": name, "env": env, "episodes": s["episodes"],
                          **{f"{stat}_{k}": s[stat][k] for stat in ("return", "success")
                             for k in ("mean", "std", "ci95")}})
        self.results[(name, env)] = result

    def to_csv(self, path: str | os.PathLike) -> None:
        """Write the table, a header then one line per row (floats as their shortest round-trip repr).

        Written whole or not at all, as :meth:`EvalResult.to_csv`.
        """
        lines = [",".join(SWEEP_COLUMNS) + "\n"]
        lines += [",".join(_csv_cell(row[c]) for c in SWEEP_COLUMNS) + "\n" for row in self.rows]
        with atomic_write(path, "w", encoding="utf-8", newline="") as f:
            f.write("".join(lines))

    @contextlib.contextmanager
    def csv_when_done(self, path: str | os.PathLike | None) -> Iterator[SweepResult]:
        """Write the table to ``path`` when the block (which adds its rows) completes.

        If the block raises (an evaluation fails, a Ctrl-C), ``path`` is left as it was and the
        rows added so far go to ``<path>.partial`` (the exception's note names it); a block that
        completes leaves no partial file. ``path`` None writes nothing.
        """
        if path is not None:  # a partial file of an earlier run is not this run's
            with contextlib.suppress(FileNotFoundError):
                os.unlink(partial_path(path))
        try:
            yield self
        except BaseException as e:
            if path is not None and self.rows:
                partial = partial_path(path)
                try:
                    self.to_csv(partial)
                except OSError:
                    pass
                else:
                    add_note(e, f"the {len(self.rows)} rows finished are in {partial}; {os.fspath(path)} is unchanged")
            raise
        if path is not None:
            self.to_csv(path)

    def __str__(self) -> str:
        width = max([len("policy")] + [len(r["policy"]) for r in self.rows])
        env_width = max([len("env")] + [len(r["env"]) for r in self.rows])
        lines = [f"{'policy':<{width}}  {'env':<{env_width}}  {'episodes':>8}  {'return':>10} {'± 95% CI':>9}  "
                 f"{'success':>7} {'± 95% CI':>9}"]
        for r in self.rows:
            lines.append(f"{r['policy']:<{width}}  {r['env']:<{env_width}}  {r['episodes']:>8}  "
                         f"{r['return_mean']:>10.4f} {r['return_ci95']:>9.4f}  {r['success_mean']:>7.3f} "
                         f"{r['success_ci95']:>9.4f}")
        return "\n".join(lines)


def _csv_cell(value) -> str:
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
