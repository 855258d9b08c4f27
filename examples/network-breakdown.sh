#!/usr/bin/env bash
# The network breakdown live (issue 23; docs/output.md, "Network breakdown"): two ranks on one GPU
# over loopback sockets, the Java programs with NcclInspector.enable().
#   1. late: NcclLongRun --mode detector, 400 AllReduces of 4 MiB as a training loop issues them,
#      rank 1 made late by DELAY_US (5000) before the calls in DELAY_CALLS: the planted cause, with
#      the call numbers in its result as ground truth; the records are in late/inspector.
#   2. cost: NcclBenchmark AllReduce 1 - 16 MiB, ROUNDS (2) rounds of the breakdown on, off
#      (NCCL_INSPECTOR_NETWORK_BREAKDOWN=0) and no profiler, interleaved.
# usage (on the GPU machine, from the project root, after examples/pack-gpu.sh): examples/network-breakdown.sh OUT
set -uo pipefail
out=${1:?usage: network-breakdown.sh OUT}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mkdir -p "$out"
out=$(cd "$out" && pwd)
bench=examples/nccl-benchmark.sh
delays=${DELAY_CALLS:-50,100,150,200,250,300,350}
echo "=== late: rank 1 late by ${DELAY_US:-5000} us before calls $delays"
MAIN_CLASS=io.ncclinspector.examples.nccl.NcclLongRun timeout 300 "$bench" 2 on "$out/late" --mode detector \
  --loop-calls 400 --loop-bytes 4194304 --second-calls 20 --second-bytes 1048576 --proto-calls 20 \
  --delay-calls "$delays" --delay-us "${DELAY_US:-5000}" --delay-rank 1 > /dev/null
echo "exit $?"
for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  for mode in on nobreakdown off; do
    echo "=== cost round $round: $mode"
    if [[ $mode == nobreakdown ]]; then
      NCCL_INSPECTOR_NETWORK_BREAKDOWN=0 RUN_TAG=$mode-$round timeout 240 "$bench" 2 on "$out/cost-$mode-$round" \
        --ops AllReduce --min-bytes 1048576 --max-bytes 16777216 --factor 4 --warmup 5 --iters 40 | tail -n 12
    else
      RUN_TAG=$mode-$round timeout 240 "$bench" 2 "$mode" "$out/cost-$mode-$round" \
        --ops AllReduce --min-bytes 1048576 --max-bytes 16777216 --factor 4 --warmup 5 --iters 40 | tail -n 12
    fi
    echo "exit $?"
  done
done
