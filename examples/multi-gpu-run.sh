#!/usr/bin/env bash
# Issue 8's run, for a machine with 2 or more GPUs (one rank per GPU, NVLink between them):
#  1. the benchmark sweep 8 B - 1 GiB for every operation, inspector off / on / NVIDIA's reference;
#  2. 1,000,000 small AllReduces in one communicator (memory and accounting), also over shared
#     memory (NCCL_P2P_DISABLE=1);
#  3. a CUDA graph of AllReduces replayed 200 times (one record per replay, graph_launched);
#  4. raw traces of a sweep and of the graph run, to become test fixtures.
# Needs .gpu/ (../shared/gpu/pack.sh examples, minus the DJL/PyTorch jars) and the reference
# plugin at .gpu/ref/libnccl-profiler-inspector.so. Analyse with examples/analyze-gpu-run.py.
# usage: examples/multi-gpu-run.sh OUT_DIR [RANKS=number of GPUs]
# (Superseded by examples/gpu-validation.sh OUT 2, which fits one device call and adds CUPTI, rounds
# and the accounting; kept for the record.)
set -uo pipefail
out=${1:?usage: multi-gpu-run.sh OUT_DIR [RANKS]}
ranks=${2:-$(nvidia-smi -L | wc -l)}
mkdir -p "$out"
export JAVA=${JAVA:-.gpu/jre/bin/java} CLASSPATH_JARS=${CLASSPATH_JARS:-'.gpu/lib/*'}
export REFERENCE_PLUGIN=${REFERENCE_PLUGIN:-$PWD/.gpu/ref/libnccl-profiler-inspector.so}
bench=examples/nccl-benchmark.sh
sweep=(--min-bytes 8 --max-bytes 1073741824 --factor 4 --warmup 5 --iters 20)
nvidia-smi topo -m
for round in a b; do
  for mode in off on reference; do
    echo "=== sweep, $ranks ranks, $mode, round $round"
    timeout 500 $bench "$ranks" "$mode" "$out/run-$ranks$round" "${sweep[@]}" > "$out/run-$ranks$round-$mode.txt" 2>&1
    echo "exit $?"; grep -E "^rank 0" "$out/run-$ranks$round-$mode.txt"
  done
done
echo "=== sweep with the raw event recording"
NCCL_INSPECTOR_TRACE_DIR="$out/trace-sweep" timeout 500 $bench "$ranks" on "$out/run-trace" "${sweep[@]}" \
  > "$out/run-trace.txt" 2>&1; echo "exit $?"
examples/long-runs.sh "$out/long" "$ranks" 1000000
echo "=== graph run with the raw event recording"
NCCL_INSPECTOR_TRACE_DIR="$out/trace-graph" MAIN_CLASS=io.ncclinspector.examples.nccl.NcclLongRun timeout 300 \
  $bench "$ranks" on "$out/graph-trace" --mode graph --bytes 1048576 --graph-ops 4 --replays 200; echo "exit $?"
rm -f "$out"/*/nccl-id-*
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && ls -la "$out.tgz"
