"""Time of loading levels: parsing a level file and compiling it for the kernel.

Usage::

    python bench/bench_load.py                          # every case, 3 repeats, 120 s limit each
    python bench/bench_load.py --case kitchen-30-foods nav-3000 --repeats 5
    python bench/bench_load.py --source /path/to/other/checkout   # time another tree's code

Each repeat runs in a fresh interpreter (level caches start empty) and times only the load
call, not the interpreter start or the imports. A repeat that runs past ``--timeout`` is
reported as ``"timed_out": true`` with the limit as a lower bound. One JSON line per case
with the best time of its repeats.

Cases: ``kitchen-30-foods`` is a 3-row kitchen holding 10 tomatoes, 10 lettuces, 10 onions
and 4 plates (2,665 item kinds); ``nav-3000`` an open 3000x3000 room, start and goal in
opposite corners (the reachability check visits every cell); the others are built-in levels.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from gridsim.tools.benchmark import machine_info


def many_foods_kitchen(per_food: int, plates: int) -> str:
    """A 3-row kitchen: ``per_food`` of each default food between cutting boards, plates and a delivery below."""
    top = "".join(f + "/" for f in "tlo" for _ in range(per_food))
    bottom = ("p-" * plates + "*").ljust(len(top), "-")
    return "\n".join([top, " " * len(top), bottom, "", "OnionSalad", "", "0 1", "3 1"]) + "\n"


def open_room(n: int) -> str:
    """An n x n room walled all round, the start top left and the goal bottom right."""
    rows = ["#" * n] + ["#" + " " * (n - 2) + "#"] * (n - 2) + ["#" * n]
    rows[1] = "#S" + rows[1][2:]
    rows[n - 2] = rows[n - 2][:-2] + "0#"
    return "\n".join(rows) + "\n"


# name -> (setup code, the timed call); run in the child interpreter.
_KITCHEN = "from gridsim.kitchen.level import parse_kitchen_text, find_kitchen_level\n"
_NAV = ("from gridsim.nav.level import compile_nav_level, read_nav_level\n"
        "from gridsim.levels.textmap import parse_level_text\n")
CASES = {
    "kitchen-30-foods": (_KITCHEN + "text = many_foods_kitchen(10, 4)", "parse_kitchen_text(text)"),
    "nav-3000": (_NAV + "text = open_room(3000)", "compile_nav_level(parse_level_text(text))"),
    "nav-1000": (_NAV + "text = open_room(1000)", "compile_nav_level(parse_level_text(text))"),
    **{f"kitchen/{stem}": (_KITCHEN + f"text = find_kitchen_level('kitchen/{stem}').read_text()",
                           "parse_kitchen_text(text)")
       for stem in ("open-divider_salad", "big-onion-salad")},
    **{f"nav/{stem}": (_NAV + f"text = read_nav_level('nav/{stem}')", "compile_nav_level(text)")
       for stem in ("four_rooms", "open64")},
}

_CHILD = """
import sys, time
sys.path[:0] = [p for p in ({source!r}, {bench!r}) if p]
from bench_load import many_foods_kitchen, open_room
{setup}
t0 = time.perf_counter()
{call}
print(time.perf_counter() - t0)
"""


def time_case(name: str, repeats: int, timeout: float, source: str | None) -> dict:
    """Best load seconds of one case over ``repeats`` fresh interpreters."""
    setup, call = CASES[name]
    code = _CHILD.format(source=source or "", bench=os.path.dirname(os.path.abspath(__file__)), setup=setup,
                         call=call)
    times = []
    for _ in range(repeats):
        try:
            # From bench/, so the child's sys.path[0] is not a source folder without the compiled kernel.
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                                 check=True, env={**os.environ, "PYTHONWARNINGS": "ignore"},
                                 cwd=os.path.dirname(os.path.abspath(__file__)))
        except subprocess.TimeoutExpired:
            return {"bench": "bench_load", "case": name, "seconds": timeout, "timed_out": True, "repeats": 1}
        times.append(float(out.stdout.split()[-1]))
    return {"bench": "bench_load", "case": name, "seconds": min(times), "timed_out": False, "repeats": repeats}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--case", nargs="+", default=list(CASES), choices=list(CASES))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per repeat before giving up")
    p.add_argument("--source", help="a folder holding another gridsim/ (with its built kernel) and levels/")
    args = p.parse_args(argv)
    info = machine_info()
    for name in args.case:
        result = time_case(name, args.repeats, args.timeout, args.source)
        print(json.dumps({**result, "source": args.source or "installed", **info}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
