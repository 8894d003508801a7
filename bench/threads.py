"""Thread scaling: env-steps per second by family x batch size x kernel threads, a table and a plot.

Usage::

    python bench/threads.py                           # 1 and 2 threads (or up to 16 on a bigger box)
    python bench/threads.py --threads 1 2 4 8 16      # a chosen set of thread counts
    python bench/threads.py --quick                   # tiny arguments, seconds (the smoke test runs this)
    python bench/threads.py --busy 1 --threads 1 2 auto   # beside one busy-loop process (contention)
    python bench/threads.py --mode raw --sizes 512 1024 2048 --thread-min-units 1 --no-write
                                                      # small batches on threads (a family's threshold)

For each family (its bench level and settings, ``gridsim.families``) and each batch size N,
one batch is made and ``GridVectorEnv.step`` (``--mode step``, the default) or the bare kernel
call (``--mode raw``) is timed at every thread count; the thread counts take turns within each
repeat (``gridsim.tools.benchmark.measure_threads``), so noise on a shared machine hits them alike.
Each repeat does about ``--env-steps`` env-steps (at least 10 calls). ``--busy K`` starts K
processes that spin (``while True: pass``) for the whole run, as other work on a shared machine
would; their number is in the JSON lines and in the names of the files (``-busy<K>``).

Output: one JSON line per (family, N, threads) on stdout, and with ``--outdir`` (default
``bench/``) two files named after the machine and mode (``threads-<cores>cores-<mode>``): a Markdown table
(``.md``: env-steps per second and speed-up over the first thread count) and a plot (``.png``,
speed-up against threads, one line per N, one panel per family; needs matplotlib,
``pip install "gridsim-vec[bench]"``).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads stay off the kernel's cores

import gridsim  # noqa: E402
from gridsim.engine.files import atomic_path, atomic_write  # noqa: E402
from gridsim.engine.vector import parse_num_threads  # noqa: E402
from gridsim.families import FAMILIES  # noqa: E402
from gridsim.tools.benchmark import machine_info, make_actions, measure_threads, obs_type_of  # noqa: E402

SIZES = (64, 1024, 16384, 65536, 262144)
BENCH_DIR = Path(__file__).resolve().parent


def default_threads() -> list[int]:
    """1, 2, 4, ... up to the CPUs this process may use, and that count itself."""
    cpus = parse_num_threads("auto")
    counts = [1]
    while counts[-1] * 2 <= cpus:
        counts.append(counts[-1] * 2)
    return counts + ([cpus] if cpus != counts[-1] else [])


def start_busy(k: int) -> list[subprocess.Popen]:
    """K processes that each keep a CPU busy until they are killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(k)]


def stop_busy(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.wait()


def sweep(families, sizes, threads, mode: str, repeats: int, env_steps: int, seed: int = 0,
          thread_min_units: int | None = None):
    """Yield one JSON-ready row per (family, N, threads).

    ``thread_min_units`` replaces each batch's ``kernel.thread_min_units`` (None: the family's):
    1 puts every batch size on threads, which is how a family's threshold is measured.
    """
    info = machine_info()
    for name in families:
        fam = FAMILIES[name]
        level = fam.tools.bench_name()
        for n in sizes:
            envs = gridsim.make(level, n, **fam.tools.bench_kwargs)
            envs.reset(seed=seed)
            if thread_min_units is not None:
                envs.kernel.thread_min_units = thread_min_units
            steps = max(10, env_steps // n)
            actions = make_actions(envs.single_action_space, steps, envs.num_envs, seed)
            obs_type = obs_type_of(envs)
            ms = measure_threads(envs, actions, threads, mode=mode, repeats=repeats, level=level,
                                 obs_type=obs_type)
            envs.close()
            for m in ms:
                yield {"bench": "threads", "family": name, **m.as_dict(),
                       "speedup": m.env_steps_per_s / ms[0].env_steps_per_s, **info}


def markdown(rows, threads) -> str:
    """The table: one line per (family, N), env-steps/s and speed-up per thread count."""
    head = "| family | N | " + " | ".join(f"{t} thread{'s' if t > 1 else ''}" for t in threads) + " |"
    lines = [head, "|---|---:|" + "---:|" * len(threads)]
    keys = sorted({(r["family"], r["num_envs"]) for r in rows}, key=lambda k: (list(FAMILIES).index(k[0]), k[1]))
    for fam, n in keys:
        cells = []
        for r in (r for r in rows if (r["family"], r["num_envs"]) == (fam, n)):
            cells.append(f"{r['env_steps_per_s'] / 1e6:.1f} M/s ({r['speedup']:.2f}x)")
        lines.append(f"| {fam} | {n:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows, threads, path: Path, title: str):
    """Speed-up against threads, one panel per family and one line per batch size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fams = [f for f in FAMILIES if any(r["family"] == f for r in rows)]
    fig, axes = plt.subplots(1, len(fams), figsize=(4.2 * len(fams), 3.8), squeeze=False, sharey=True)
    for ax, fam in zip(axes[0], fams, strict=True):
        for n in sorted({r["num_envs"] for r in rows if r["family"] == fam}):
            pts = [(r["threads"], r["speedup"]) for r in rows if (r["family"], r["num_envs"]) == (fam, n)]
            ax.plot(*zip(*pts, strict=True), marker="o", label=f"N = {n:,}")
        ax.plot(threads, [t / threads[0] for t in threads], color="grey", linestyle=":", label="linear")
        ax.set_title(fam)
        ax.set_xlabel("kernel threads")
        ax.set_xticks(threads)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"speed-up over {threads[0]} thread{'s' if threads[0] > 1 else ''}")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    p.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    p.add_argument("--threads", nargs="+", default=None, help="thread counts (default: 1, 2, 4, ... the CPUs)")
    p.add_argument("--mode", choices=("step", "raw"), default="step")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--env-steps", type=int, default=2_000_000, help="env-steps per repeat")
    p.add_argument("--outdir", type=Path, default=BENCH_DIR, help="where the .md and .png go")
    p.add_argument("--no-write", action="store_true", help="only print the JSON lines")
    p.add_argument("--no-plot", action="store_true", help="write the table but no PNG")
    p.add_argument("--quick", action="store_true", help="tiny sizes and steps (a smoke run)")
    p.add_argument("--busy", type=int, default=0, metavar="K", help="busy-loop processes running beside it")
    p.add_argument("--thread-min-units", type=int, default=None, metavar="K",
                   help="batches of at least K worlds run on threads (default: each family's threshold)")
    args = p.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats, args.env_steps = [64, 300], 1, 600
    # "auto" is the count it stands for; a count named twice is measured once.
    threads = list(dict.fromkeys(parse_num_threads(t) for t in args.threads)) if args.threads else default_threads()
    rows = []
    busy = start_busy(args.busy)
    try:
        for row in sweep(args.family, args.sizes, threads, args.mode, args.repeats, args.env_steps,
                         thread_min_units=args.thread_min_units):
            row["busy"] = args.busy
            rows.append(row)
            print(json.dumps(row), flush=True)
    finally:
        stop_busy(busy)
    if args.no_write:
        return 0
    info = machine_info()
    name = f"threads-{info['cores']}cores-{args.mode}" + (f"-busy{args.busy}" if args.busy else "")
    machine = (f"{info['cpu_model']}, {info['cores']} cores; gridsim {info['gridsim']}, Python {info['python']}, "
               f"numpy {info['numpy']}; {datetime.date.today()}")
    call = "GridVectorEnv.step" if args.mode == "step" else "the bare kernel call"
    repeats = f"{args.repeats} repeat{'s' if args.repeats > 1 else ''}"
    what = f"{call}, best of {repeats} of about {args.env_steps:,} env-steps"
    if args.busy:
        what += f", beside {args.busy} busy-loop process{'es' if args.busy > 1 else ''}"
    args.outdir.mkdir(parents=True, exist_ok=True)
    table = markdown(rows, threads)
    text = (f"# Thread scaling on {info['cores']} cores\n\n{machine}. Env-steps per second ({what}) "
            f"and speed-up over {threads[0]} thread{'s' if threads[0] > 1 else ''}, from `python bench/threads.py "
            f"{' '.join(sys.argv[1:])}`.\n\n{table}\n")
    with atomic_write(args.outdir / f"{name}.md", encoding="utf-8") as f:
        f.write(text)
    if not args.no_plot:
        plot(rows, threads, args.outdir / f"{name}.png", f"{machine}\n{what}")
    print(f"wrote {args.outdir / name}.md" + ("" if args.no_plot else f" and {name}.png"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
