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
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV timeout 120 $bench 2 on "$out/smoke" --ops AllReduce \
  --min-bytes 8192 --max-bytes 32768 --warmup 1 --iters 3 > "$out/smoke.txt" 2>&1
rc=$?
grep -iE "profiler|plugin" "$out/smoke/log-on-2-rank0.txt" | head -20
tail -n 15 "$out/smoke.txt"
if [ $rc -ne 0 ]; then echo "smoke run failed ($rc)"; exit $rc; fi

for n in 2 3; do
  for mode in off on reference; do
    echo "=== $n ranks, $mode"
    timeout 200 $bench "$n" "$mode" "$out/run-$n" "${opts[@]}" > "$out/run-$n-$mode.txt" 2>&1
    echo "exit $?"; grep -E "^rank 0|records" "$out/run-$n-$mode.txt" | head -3
  done
done
echo "=== 2 ranks, on, with the raw event recording"
NCCL_INSPECTOR_TRACE_DIR="$out/trace" timeout 200 $bench 2 on "$out/run-trace" "${opts[@]}" > "$out/run-trace.txt" 2>&1
echo "exit $?"; ls -la "$out/trace" 2>/dev/null
ls -la "$out"/run-2/inspector "$out"/run-2/reference 2>/dev/null | head -20
for f in "$out"/run-*-*.txt; do echo "----- $f"; grep -vE "^live|^\[|INFO" "$f" | tail -n 48; done
