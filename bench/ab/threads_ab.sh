#!/usr/bin/env bash
# Threads beside busy processes, two trees alternated: K plain busy loops (unpinned) run
# beside three rounds of bench/threads.py (raw calls, N = 65,536, 1 and 2 threads) in BASE
# and then NEW; prints each tree's speed-up of 2 threads over 1 per family and round.
#   BASE=/path/to/old NEW=/path/to/new bash bench/ab/threads_ab.sh K
# Each tree is built in place; PYTHONPATH picks it (a tree from before the distribution was
# named gridsim-vec reads the metadata of a distribution "gridsim" for its machine info).
# Figures: bench/README.md (threads).
set -euo pipefail
busy=${1:-0}
pids=()
for _ in $(seq 1 "$busy"); do python3 -c "while True: pass" & pids+=($!); done
trap '[ ${#pids[@]} -eq 0 ] || kill "${pids[@]}"' EXIT
for _ in 1 2 3; do
    for tree in "$BASE" "$NEW"; do
        (cd "$tree" && PYTHONPATH="$tree" python bench/threads.py --mode raw --sizes 65536 --threads 1 2 \
            --repeats 11 --env-steps 4000000 --no-write 2>/dev/null | python -c "
import json, sys
rows = [json.loads(line) for line in sys.stdin if line.startswith('{')]
print(sys.argv[1], 'busy=' + sys.argv[2], ' | '.join(f\"{r['family']} {r['speedup']:.2f}\" for r in rows if r['threads'] == 2))
" "$tree" "$busy")
    done
done
