#!/usr/bin/env bash
# A/B: bench/bench_step.py and bench/bench_events.py of two trees built in place, alternated per
# configuration and round. Usage: BASE=<other tree> [NEW=<this tree>] [OUT=<dir>] bench/ab/run_ab.sh [ROUNDS]
set -u

ROUNDS=${1:-3}; OUT=${OUT:-.}
BASE=${BASE:?the base tree, built in place}; NEW=${NEW:-$PWD}
configs=(
  "--family nav --mode raw" "--family nav --mode step"
  "--family nav --obs-type view --mode raw" "--family nav --obs-type view --mode step"
  "--family nav --obs-type image --mode raw" "--family nav --obs-type image --mode step"
  "--family roboman --mode raw" "--family roboman --mode step"
  "--family kitchen --mode raw" "--family kitchen --mode step"
  "--family minigrid --mode raw" "--family minigrid --mode step"
)
for round in $(seq 1 "$ROUNDS"); do
  for cfg in "${configs[@]}"; do
    for tree in base new; do
      dir=$BASE; [ $tree = new ] && dir=$NEW
      (cd /tmp && PYTHONPATH="$dir" python -c "import gridsim; assert gridsim.__file__.startswith('$dir'), gridsim.__file__" && \
        PYTHONPATH="$dir" python "$dir/bench/bench_step.py" $cfg --steps 300 --repeats 5) \
        | sed "s/^{/{\"tree\": \"$tree\", \"round\": $round, /" >> "$OUT/bench_step.jsonl"
    done
  done
  for tree in base new; do
    dir=$BASE; [ $tree = new ] && dir=$NEW
    (cd /tmp && PYTHONPATH="$dir" python "$dir/bench/bench_events.py" --steps 200 --repeats 5) \
      | sed "s/^{/{\"tree\": \"$tree\", \"round\": $round, /" >> "$OUT/bench_events.jsonl"
  done
done
echo finished
