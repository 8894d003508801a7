"""Best repeat per (tree, configuration) from run_ab.sh's JSON lines, and the new/base ratios (a markdown table)."""
import json
import sys
from collections import defaultdict

best = defaultdict(float)
for path in sys.argv[1:]:
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if r.get("mode") in ("summary", "reference") or "env_steps_per_s" not in r:
            continue
        if r.get("bench") == "bench_events":
            key = ("events", r["family"], r.get("variant"), r["mode"])
        else:
            key = (r["family"], r.get("obs_type"), r["mode"])
        best[(r["tree"],) + key] = max(best[(r["tree"],) + key], r["env_steps_per_s"])
keys = sorted({k[1:] for k in best})
print("| config | base (M env-steps/s) | new (M env-steps/s) | new/base |")
print("|---|---:|---:|---:|")
for k in keys:
    b, n = best[("base",) + k], best[("new",) + k]
    if b and n:
        print(f"| {' '.join(str(x) for x in k if x is not None)} | {b / 1e6:.1f} | {n / 1e6:.1f} | {n / b:.3f} |")
