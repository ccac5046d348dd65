#!/bin/bash
# Runs the ECS benchmark RUNS times (default 7) for each N = 1, 100, 1 000, 10 000, one process
# per (run, N), each started once the machine has been idle (< 5 % CPU) for a second, and
# appends the result rows to OUT (default target/ik_bench_runs.txt). Then:
#   python3 crates/ik_bench/scripts/medians.py target/ik_bench_runs.txt
# prints the README's table of medians (rows whose "other load" exceeded 5 % are dropped).
set -euo pipefail
cd "$(dirname "$0")/../../.."
cargo bench -p ik_bench --no-run
BIN=$(cargo bench -p ik_bench --no-run --message-format=json 2>/dev/null \
  | python3 -c 'import json,sys; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("target",{}).get("name")=="ecs" and m.get("executable")][0])')
RUNS=${RUNS:-7}
OUT=${OUT:-target/ik_bench_runs.txt}
wait_idle() {
  for _ in $(seq 1 30); do
    a=($(head -1 /proc/stat)); sleep 1; b=($(head -1 /proc/stat))
    busy=$(( (b[1]+b[2]+b[3]+b[6]+b[7]+b[8]) - (a[1]+a[2]+a[3]+a[6]+a[7]+a[8]) ))
    total=$(( busy + (b[4]+b[5]) - (a[4]+a[5]) ))
    [ $(( busy * 100 / (total > 0 ? total : 1) )) -lt 5 ] && return
  done
}
for run in $(seq 1 "$RUNS"); do
  for n in 1 100 1000 10000; do
    wait_idle
    echo "## run $run N $n $(date +%T)" | tee -a "$OUT"
    IK_BENCH_N=$n "$BIN" --bench | grep -E "^\| (floor|full|legs)" >> "$OUT"
  done
done
