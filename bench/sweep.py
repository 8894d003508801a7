"""Sweep ``bench_step`` over batch sizes and observation types; optionally write the README table.

Usage::

    python bench/sweep.py                  # print the JSON lines
    python bench/sweep.py --write-readme   # ... and rewrite the results table in bench/README.md
    python bench/sweep.py --quick          # tiny arguments, seconds (the smoke test runs this)
    python bench/sweep.py --plot           # ... and chart env-steps/s against N in bench/sweep-nav.png

What it runs, in one process (``bench_step``'s functions, no subprocesses):

* ``raw`` and ``step`` (interleaved repeats) on ``nav/room5_medium`` for N in
  {64, 256, 1024, 4096, 16384, 65536, 262144} with ``coords`` and ``view`` (7x7)
  observations, and with ``image`` observations at N = 4096. Each repeat does
  ``ceil(2M / N)`` steps (at least 20, at most 32,768), so at least about two
  million env-steps; 7 repeats up to N = 16,384 and 5 above.
* the pure-Python reference once: 64 envs, ``coords``, 200 steps per repeat.

Output: every per-repeat JSON line of ``bench_step`` (``"mode"`` raw, step or
reference; the reference runs first), and after the repeats of each (N,
obs_type) its ``"mode": "summary"`` line as ``bench_step --mode all`` prints it
(``step_over_reference`` is filled in for the ``coords`` rows only, since the
reference runs with coords observations). ``--write-readme`` replaces the text between
``<!-- sweep:begin -->`` and ``<!-- sweep:end -->`` in ``bench/README.md``
(``--readme`` picks another file) with a Markdown table of the summaries and a
line naming the machine. ``--plot [PATH]`` draws env-steps per second against N, both on
log scales, one line per observation type for ``step()`` (solid) and the bare kernel call
(dashed), the pure-Python reference as a dotted level, and writes the PNG (default
``bench/sweep-<family>.png``; needs matplotlib, the ``bench`` extra). ``--env-steps`` and
``--repeats`` make a shorter sweep.
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: bench_step sits beside this file
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_step  # noqa: E402  (sets OPENBLAS_NUM_THREADS before numpy loads)
from bench_step import BenchConfig  # noqa: E402

from gridsim.engine.files import atomic_path, atomic_write  # noqa: E402

SIZES = (64, 256, 1024, 4096, 16384, 65536, 262144)
# How each family's table in bench/README.md is swept: the observations swept over N, the one
# timed at N = 4096 only, the README marker, the step() targets at N = 4096 and the name of the
# reference env. The level is the family's bench level (gridsim.families).
FAMILIES = {
    "nav": {"obs": ("coords", "view"), "extra": "image", "marker": "sweep", "targets": {"coords": 120e6, "view": 40e6},
            "reference": "ReferenceNavEnv"},
    "roboman": {"obs": ("vector",), "extra": "grid", "marker": "sweep:roboman", "targets": {"vector": 40e6},
                "reference": "ReferenceRobomanEnv"},
    "kitchen": {"obs": ("grid",), "extra": None, "marker": "sweep:kitchen", "targets": {"grid": 5e6},
                "reference": "ReferenceKitchenEnv"},
}
IMAGE_SIZES = (4096,)
TARGET_ENV_STEPS = 2_000_000
MIN_STEPS, MAX_STEPS = 20, 32_768
README = Path(__file__).resolve().parent / "README.md"
TARGET_STEP_OVER_RAW = 0.8


def plan(quick: bool = False, sizes=SIZES, obs_types=None, level: str | None = None,
         seed: int = 0, family: str = "nav", env_steps: int = TARGET_ENV_STEPS,
         repeats: int | None = None) -> tuple[list[BenchConfig], BenchConfig]:
    """The batch configurations to time, and the reference configuration."""
    fam = FAMILIES[family]
    obs_types = obs_types or fam["obs"]
    level = level or bench_step.FAMILIES[family].tools.bench_level
    if quick:
        sizes, image_sizes = (64, 256), (64,)
    else:
        image_sizes = IMAGE_SIZES
    runs = []
    extra = [(fam["extra"], image_sizes)] if fam["extra"] else []
    for obs_type, ns in [(o, sizes) for o in obs_types] + extra:
        for n in ns:
            if quick:
                steps, n_repeats, warmup = 5, 1, 1
            else:
                steps = min(max(math.ceil(env_steps / n), MIN_STEPS), MAX_STEPS)
                n_repeats = repeats or (7 if n <= 16384 else 5)
                warmup = min(max(steps // 5, 5), 2000)
            runs.append(BenchConfig(family=family, level=level, num_envs=n, steps=steps,
                                    repeats=n_repeats, warmup=warmup, obs_type=obs_type, seed=seed,
                                    mode="all"))
    ref = BenchConfig(family=family, level=level, obs_type=obs_types[0], seed=seed, mode="reference",
                      reference_envs=4 if quick else 64, reference_steps=5 if quick else 200,
                      repeats=1 if quick else min(repeats or 3, 3), warmup=1 if quick else 20)
    return runs, ref


def sweep(runs: list[BenchConfig], ref: BenchConfig) -> tuple[list[dict], list[dict]]:
    """Time every configuration; prints and returns the per-repeat records and the summaries."""
    info = bench_step.machine_info()
    emit = bench_step.print_json
    reference = bench_step.run(ref, emit, info)
    records, summaries = list(reference), []
    for cfg in runs:
        recs = bench_step.run_batch(cfg, ("raw", "step"), emit, info)
        records += recs
        summary = bench_step.summarize(recs, reference if cfg.obs_type == ref.obs_type else None)
        emit(summary)
        summaries.append(summary)
    return records, summaries


# ---------------------------------------------------------------------- README


def _m(rate: float | None) -> str:
    return "-" if rate is None else f"{rate / 1e6:.1f}"


def readme_section(summaries: list[dict[str, Any]], date: str) -> str:
    """The Markdown written between the sweep markers."""
    first = summaries[0]
    counts = sorted({s["repeats"] for s in summaries})
    repeats = (f"best of {counts[0]} repeats" if len(counts) == 1
               else f"best of {counts[0]} to {counts[-1]} repeats (fewer for large N)")
    lines = [
        "| N | obs | raw kernel (M env-steps/s) | step() (M env-steps/s) | step/raw "
        "| ns per env-step, step() | bytes/env |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for s in summaries:
        lines.append(
            f"| {s['num_envs']:,} | {s['obs_type']} | {_m(s['raw_env_steps_per_s'])} "
            f"| {_m(s['step_env_steps_per_s'])} | {s['step_over_raw']:.2f} "
            f"| {s['step_ns_per_env_step']:.1f} | {s['bytes_per_env']:.0f} |"
        )
    lines += [
        "",
        f"Machine: {first['cpu_model']}, {first['cores']} cores (one thread used); "
        f"Python {first['python']}, numpy {first['numpy']}, Cython {first['cython']}, "
        f"Gymnasium {first['gymnasium']}, gridsim {first['gridsim']}; level {first['level']}, "
        f"actions {first['actions']}, {repeats}; {date}.",
    ]
    ref = next((s for s in summaries if s.get("reference_env_steps_per_s")), None)
    at = {s["obs_type"]: s for s in summaries if s["num_envs"] == 4096}
    fam = FAMILIES[first["family"]]
    if ref is not None:
        obs = ref["obs_type"]
        base = at.get(obs, ref)
        name = fam["reference"]
        lines += [
            "",
            f"Reference (pure-Python `{name}` x {ref['reference_num_envs']} in "
            f"`SyncVectorEnv`, {obs}): {ref['reference_env_steps_per_s'] / 1e3:.0f}k env-steps/s; "
            f"step() at N = {base['num_envs']:,} ({obs}) is "
            f"{base['step_over_reference']:,.0f}x faster.",
        ]
    orig = next((s for s in summaries if s.get("original_env_steps_per_s")), None)
    if orig is not None:
        base = at.get(orig["obs_type"], orig)
        lines += [
            "",
            f"Original gridroboman (`gymnasium.make` x {orig['reference_num_envs']} in `SyncVectorEnv`, "
            f"timed because it was importable): {orig['original_env_steps_per_s'] / 1e3:.0f}k env-steps/s; "
            f"step() at N = {base['num_envs']:,} is {base['step_over_original']:,.0f}x faster (target >= 400x).",
        ]
    checks = []
    for obs, target in fam["targets"].items():
        if obs in at:
            rate = at[obs]["step_env_steps_per_s"]
            verdict = "met" if rate >= target else "not met"
            checks.append(f"{obs} step() {rate / 1e6:.1f}M (target >= {target / 1e6:.0f}M, "
                          f"{verdict})")
    for obs, s in at.items():
        ratio = s["step_over_raw"]
        verdict = "met" if ratio >= TARGET_STEP_OVER_RAW else "not met"
        checks.append(f"{obs} step/raw {ratio:.2f} (target >= {TARGET_STEP_OVER_RAW:.2f}, "
                      f"{verdict})")
    if checks:
        lines += ["", "Targets at N = 4,096 in this run: " + "; ".join(checks) + "."]
    return "\n".join(lines)


def write_readme(path: Path, section: str, marker: str = "sweep"):
    """Replace the text between ``<!-- marker:begin -->`` and ``<!-- marker:end -->`` of ``path``."""
    BEGIN, END = f"<!-- {marker}:begin -->", f"<!-- {marker}:end -->"
    text = path.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: markers {BEGIN} ... {END} not found")
    start += len(BEGIN)
    with atomic_write(path, encoding="utf-8") as f:
        f.write(text[:start] + "\n" + section + "\n" + text[end:])


# ------------------------------------------------------------------------- plot


def plot(summaries: list[dict[str, Any]], path: Path, date: str) -> None:
    """Env-steps per second against N (log-log): step() solid, the kernel call dashed, one colour per observation."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = summaries[0]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for k, obs in enumerate(dict.fromkeys(s["obs_type"] for s in summaries)):
        rows = sorted((s for s in summaries if s["obs_type"] == obs), key=lambda s: s["num_envs"])
        ns = [s["num_envs"] for s in rows]
        style = {"color": f"C{k}", "marker": "o", "markersize": 4}
        ax.plot(ns, [s["step_env_steps_per_s"] for s in rows], label=f"{obs}, step()", **style)
        ax.plot(ns, [s["raw_env_steps_per_s"] for s in rows], linestyle="--", label=f"{obs}, kernel call", **style)
    ref = next((s for s in summaries if s.get("reference_env_steps_per_s")), None)
    if ref is not None:
        ax.axhline(ref["reference_env_steps_per_s"], color="grey", linestyle=":",
                   label=f"pure-Python reference ({ref['obs_type']})")
    ax.set_xscale("log", base=2)
    sizes = sorted({s["num_envs"] for s in summaries})
    ax.set_xticks(sizes, [f"{n:,}" for n in sizes], fontsize=8)
    ax.minorticks_off()  # keeps the y grid at the decades only; the x ticks are the sizes
    ax.set_yscale("log")
    ax.set_xlabel("N (envs in the batch)")
    ax.set_ylabel("env-steps per second")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    ax.set_title(f"{first['family']}: {first['level']}, one kernel thread", fontsize=10)
    fig.text(0.01, 0.01, f"{first['cpu_model']}, {first['cores']} cores; gridsim {first['gridsim']}; {date}",
             fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


# ------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    """Run the sweep."""
    p = argparse.ArgumentParser(description="Sweep bench_step over batch sizes.")
    p.add_argument("--quick", action="store_true", help="tiny arguments (smoke test)")
    p.add_argument("--write-readme", action="store_true",
                   help="rewrite the results section of bench/README.md")
    p.add_argument("--readme", type=Path, default=README, help="the file --write-readme rewrites")
    p.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="batch sizes N")
    p.add_argument("--family", default="nav", choices=sorted(FAMILIES))
    p.add_argument("--obs-types", nargs="+", default=None,
                   choices=["coords", "view", "vector", "grid"], help="observation types swept over N")
    p.add_argument("--level", default=None, help="a level (nav) or a task (roboman)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-steps", type=int, default=TARGET_ENV_STEPS,
                   help=f"env-steps per repeat (default {TARGET_ENV_STEPS:,})")
    p.add_argument("--repeats", type=int, default=None, help="repeats per N (default 7, 5 above N = 16,384)")
    p.add_argument("--plot", type=Path, nargs="?", const=True, default=None, metavar="PNG",
                   help="chart env-steps/s against N (default file: bench/sweep-<family>.png; needs matplotlib)")
    args = p.parse_args(argv)
    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401  (fail before the sweep, not after)
        except ImportError:
            raise SystemExit('sweep.py --plot needs matplotlib: pip install "gridsim-vec[bench]"') from None
    runs, ref = plan(args.quick, args.sizes, args.obs_types, args.level, args.seed, args.family, args.env_steps,
                     args.repeats)
    _, summaries = sweep(runs, ref)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    if args.write_readme:
        write_readme(args.readme, readme_section(summaries, date), FAMILIES[args.family]["marker"])
    if args.plot is not None:
        path = README.parent / f"sweep-{args.family}.png" if args.plot is True else args.plot
        plot(summaries, path, date)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
