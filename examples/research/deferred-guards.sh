#!/usr/bin/env bash
# Do the channel guards judge alike with the deferred mode on and off? Runs the MoE loop (CUPTI as the
# program's clock, kernel records off) with NCCL_INSPECTOR_DEFERRED=1 and =0 in turn, on a blocking and
# on a non-blocking communicator (NONBLOCKING=1), ROUNDS times, each run recording its raw callbacks
# (NCCL_INSPECTOR_TRACE_DIR), so that each live run's verdicts can be set beside an offline replay of
# its own trace (examples/research/deferred-guards.py).
#
# usage (on a GPU machine, after examples/pack-gpu.sh): examples/research/deferred-guards.sh OUT [ROUNDS] [RANKS]
# Output: OUT/deferred-guards.tgz (every run's calls-*.jsonl, logs and traces; 25 MB for 3 rounds,
# so in 15 MiB pieces .tgz.00, .01, ... as the device tool returns them: join them with cat),
# OUT/console.txt.
set -uo pipefail
out=${1:?usage: deferred-guards.sh OUT [ROUNDS] [RANKS]}
rounds=${2:-3}
ranks=${3:-2}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=${WORK_DIR:-/tmp/deferred-guards}
rm -rf "$work"
mkdir -p "$work/traces"
exec > >(tee "$out/console.txt") 2>&1
for ((r = 1; r <= rounds; r++)); do
  # Alternate which mode goes first, so that a drift of the machine falls on both.
  if ((r % 2)); then modes="1 0"; else modes="0 1"; fi
  for d in $modes; do
    for nb in 1 0; do
      name="r$r-$( ((nb)) && echo nb || echo b)-d$d"
      t0=$SECONDS
      timeout -s QUIT -k 15 150 env NONBLOCKING=$nb NCCL_INSPECTOR_DEFERRED=$d \
        NCCL_INSPECTOR_TRACE_DIR="$work/traces/$name" \
        examples/desync-reproducer.sh "$ranks" on "$work/$name" --mode moe --run "$name" > "$work/$name.txt" 2>&1
      rc=$?
      echo "=== $name: exit $rc, $((SECONDS - t0)) s"
      grep -E 'right|wrong|withheld|deferred|stale' "$work/$name.txt" | grep -v INFO | tail -n 12
    done
  done
done
tar -czf "$out/deferred-guards.tgz" -C "$work" .
split -b 15m -d "$out/deferred-guards.tgz" "$out/deferred-guards.tgz." && rm "$out/deferred-guards.tgz"
ls -la "$out"
