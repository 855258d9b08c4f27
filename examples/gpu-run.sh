#!/usr/bin/env bash
# The one-GPU run of the NCCL benchmark (BENCHMARKS.md, "On a real GPU"): 2 and 3 ranks on one GPU,
# each with no profiler, this inspector, and NVIDIA's reference Inspector, plus one run that records
# the raw callback trace. Needs .gpu/ from ../shared/gpu/pack.sh examples, and the reference plugin
# built beforehand at .gpu/ref/libnccl-profiler-inspector.so (not part of this project).
# usage (on the GPU machine, from the project root): examples/gpu-run.sh OUT_DIR
set -uo pipefail
out=${1:?usage: gpu-run.sh OUT_DIR}
mkdir -p "$out"
export JAVA=${JAVA:-.gpu/jre/bin/java} CLASSPATH_JARS=${CLASSPATH_JARS:-'.gpu/lib/*'}
export REFERENCE_PLUGIN=${REFERENCE_PLUGIN:-$PWD/.gpu/ref/libnccl-profiler-inspector.so}
bench=examples/nccl-benchmark.sh
opts=(--min-bytes 8192 --max-bytes 33554432 --factor 4 --warmup 5 --iters 20)
nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

echo "=== smoke: 2 ranks, inspector on, NCCL_DEBUG=INFO (is our plugin loaded through enable()?)"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL timeout 120 $bench 2 on "$out/smoke" --ops AllReduce \
  --min-bytes 8192 --max-bytes 32768 --warmup 1 --iters 3 > "$out/smoke.txt" 2>&1
rc=$?
grep -iE "profiler" "$out/smoke/log-on-2-rank0.txt" | head -20
tail -n 15 "$out/smoke.txt"
if [ $rc -ne 0 ]; then echo "smoke run failed ($rc)"; exit $rc; fi

# Two rounds of 2 ranks and one of 3, modes interleaved so that drift of the machine hits all alike.
for spec in 2:a 3:a 2:b; do
  n=${spec%%:*}; round=${spec##*:}
  for mode in off on reference; do
    echo "=== $n ranks, $mode, round $round"
    timeout 200 $bench "$n" "$mode" "$out/run-$n$round" "${opts[@]}" > "$out/run-$n$round-$mode.txt" 2>&1
    echo "exit $?"; grep -E "^rank 0" "$out/run-$n$round-$mode.txt" | head -3
  done
done
wc -l "$out"/run-2a/inspector/*.log "$out"/run-2a/reference/*/*.log "$out"/run-2a/reference/*.log 2>/dev/null
echo "=== 2 ranks, on, with the raw event recording"
NCCL_INSPECTOR_TRACE_DIR="$out/trace" timeout 200 $bench 2 on "$out/run-trace" "${opts[@]}" > "$out/run-trace.txt" 2>&1
echo "exit $?"; ls -la "$out/trace" 2>/dev/null
ls -la "$out"/run-2a/inspector "$out"/run-2a/reference 2>/dev/null | head -20
for f in "$out"/run-2a-on.txt "$out"/run-3a-on.txt; do echo "----- $f"; grep -vE "^live|^\[|INFO" "$f" | tail -n 48; done
rm -f "$out"/*/nccl-id-*
tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")" && rm -rf "$out" && ls -la "$out.tgz"
