#!/usr/bin/env bash
# The NCCL release matrix (docs/nccl-defects-and-releases.md, "NCCL releases"): on one GPU, two ranks over loopback sockets, for one
# NCCL release, every run this project's claims about that release rest on:
#
#   java-on        the Java benchmark with NcclInspector.enable() (its NCCL workaround on): AllReduce,
#                  Broadcast, two grouped broadcasts from two roots, AllReduce; CUPTI as the clock
#   java-raw       the same with the workaround off (NCCL_INSPECTOR_NCCL_WORKAROUNDS=0): what NCCL's own
#                  defaults do to a profiled job (2.29+: broadcasts without events; grouped ones may hang)
#   java-ref       NVIDIA's reference Inspector, single-root broadcasts; java-ref-grouped: with grouped ones
#   bcast-cost     no profiler: Broadcast alone with NCCL_ALLGATHERV_ENABLE=0 and with NCCL's default, the
#                  workaround's own cost
#   torch-MODE     PyTorch workloads (examples/torch/nccl_workloads.py: moe, bcast, pp) under the trace
#                  recorder (examples/recorder), which forwards to NVIDIA's Inspector: the raw callbacks to
#                  replay through this inspector, NVIDIA's output and CUPTI's kernels of the same run; with
#                  NCCL_ALLGATHERV_ENABLE=0 as enable() sets it. torch-bcast-raw: without it.
#   plant-*        (PLANTS=1) the network-breakdown evidence: rank 1 late, rank 1's GPU busy, rank 1's proxy
#                  thread slowed (recorder sleep per ProxyStep)
#
# usage: examples/release-matrix.sh OUT RELEASE
#   RELEASE  2.28.9 (the machine's NCCL, from the PyTorch environment), or a version whose source tarball is
#            .gpu/nccl-src/nccl-RELEASE.tar.xz (built into .gpu/nccl-RELEASE by examples/build-nccl.sh)
# environment: BUDGET_S (540), STEPS (all: a space-separated subset), PLANTS (0), PYTHON, and gpu-env.sh's.
# Output: OUT/matrix-RELEASE.tgz (every log, trace, reference output and CUPTI listing) and OUT/summary-RELEASE.txt.
set -uo pipefail
out=${1:?usage: release-matrix.sh OUT RELEASE}
release=${2:?usage: release-matrix.sh OUT RELEASE}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [[ $release != 2.28.9 ]]; then
  lib=$(examples/build-nccl.sh ".gpu/nccl-src/nccl-$release.tar.xz" ".gpu/nccl-$release" | tail -n 1) || {
    echo "release $release: build failed" | tee "$out/summary-$release.txt"; exit 1; }
  export NCCL_LIB=$(dirname "$lib")
  preload=$lib
else
  preload=
fi
# shellcheck source=examples/gpu-env.sh
source examples/gpu-env.sh
PYTHON=${PYTHON:-/opt/torch/.venv/bin/python}
[[ -x $PYTHON ]] || PYTHON=python3
work=/tmp/matrix-$release
rm -rf "$work" && mkdir -p "$work"
budget=${BUDGET_S:-540}
STEP_LIMIT=60
start=$SECONDS
summary="$out/summary-$release.txt"
echo "release $release ($([[ -n $preload ]] && echo "$preload" || echo "$NCCL_LIB")), $(date -u +%FT%TZ)" > "$summary"
printf '%-22s %5s %5s %s\n' step exit secs notes >> "$summary"

rec=$work/libnccl-trace-recorder.so
gcc -O2 -shared -fPIC -fvisibility=hidden -I inspector-native/src/main/c examples/recorder/nccl_trace_recorder.c \
  -o "$rec" -ldl -lpthread || { echo "recorder build failed" >> "$summary"; }

wanted() { [[ -z ${STEPS:-} || " $STEPS " == *" $1 "* ]]; }

# step NAME LIMIT COMMAND...: under a time limit and the budget, output in NAME/console.txt.
step() {
  local name=$1 limit=$2
  shift 2
  wanted "$name" || return 0
  local left=$((budget - (SECONDS - start)))
  if ((left < 25)); then printf '%-22s %5s %5s %s\n' "$name" skip 0 "budget spent" >> "$summary"; return 0; fi
  ((limit > left - 10)) && limit=$((left - 10))
  mkdir -p "$work/$name"
  local t0=$SECONDS rc
  STEP_LIMIT=$limit
  if declare -F "$1" > /dev/null; then
    "$@" > "$work/$name/console.txt" 2>&1 # a function: its commands carry the limit themselves
  else
    timeout -k 5 "$limit" "$@" > "$work/$name/console.txt" 2>&1
  fi
  rc=$?
  local note=""
  ((rc == 124 || rc == 137)) && note="TIMED OUT at $limit s (hang)"
  printf '%-22s %5s %5s %s %s\n' "$name" "$rc" "$((SECONDS - t0))" "$note" "$(notes "$name")" >> "$summary"
  pkill -9 -f nccl_workloads.py 2>/dev/null; pkill -9 -f examples.nccl 2>/dev/null
  return 0
}

# A line of what a step left: NCCL's interface choice, record counts.
notes() {
  local d=$work/$1
  local iface
  iface=$(grep -ho 'Loaded [a-z-]* (v[0-9])\|PROFILER/Plugin: [^,]*' -r "$d" 2>/dev/null | sort -u | head -n 2 | tr '\n' ' ')
  local traces refs cupti
  traces=$(cat "$d"/trace/trace-pid*.jsonl 2>/dev/null | wc -l)
  refs=$(cat "$d"/reference/*.log 2>/dev/null | wc -l)
  cupti=$(cat "$d"/cupti-rank0.ndjson 2>/dev/null | wc -l)
  echo "[$iface] trace lines $traces, reference records $refs, cupti kernels $cupti $(grep -h '"calls"' "$d"/console.txt 2>/dev/null | head -n 1)"
}

# Waits for the rank processes (after the run directory), prints their call counts, and fails as
# a failing rank did (with the last failure's status).
ranks_done() {
  local d=$1 rc=0 p
  shift
  for p in "$@"; do wait "$p" || rc=$?; done
  grep -h '"calls"' "$d"/rank*.txt
  return $rc
}
# torch NAME MODE [VAR=VALUE...]: two ranks of examples/torch/nccl_workloads.py under the recorder.
torch_run() {
  local name=$1 mode=$2
  shift 2
  local d=$work/$name port=$((29500 + RANDOM % 1000))
  mkdir -p "$d/trace" "$d/reference"
  local pids=()
  for r in 0 1; do
    env NCCL_HOSTID=host$r NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV \
      NCCL_PROFILER_PLUGIN="$rec" NCCL_RECORDER_DIR="$d/trace" NCCL_RECORDER_INNER="$REFERENCE_PLUGIN" \
      NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$d/reference" NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=100000 \
      NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 NCCL_INSPECTOR_DUMP_VERBOSE=1 NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING=0 \
      ${preload:+LD_PRELOAD=$preload} "$@" \
      timeout -k 5 "$STEP_LIMIT" "$PYTHON" examples/torch/nccl_workloads.py $r 2 $port "$mode" "$d" > "$d/rank$r.txt" 2>&1 &
    pids+=($!)
  done
  ranks_done "$d" "${pids[@]}"
}
# Rank 1 only: the planted slow proxy thread.
torch_slow_proxy() {
  local d=$work/plant-proxy port=$((29500 + RANDOM % 1000))
  mkdir -p "$d/trace" "$d/reference"
  local pids=()
  for r in 0 1; do
    local sleep=0
    ((r == 1)) && sleep=${PROXY_SLEEP_US:-200}
    env NCCL_HOSTID=host$r NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_PROFILER_PLUGIN="$rec" \
      NCCL_RECORDER_DIR="$d/trace" NCCL_RECORDER_PROXY_SLEEP_US=$sleep ${preload:+LD_PRELOAD=$preload} \
      timeout -k 5 "$STEP_LIMIT" "$PYTHON" examples/torch/nccl_workloads.py $r 2 $port plain "$d" > "$d/rank$r.txt" 2>&1 &
    pids+=($!)
  done
  ranks_done "$d" "${pids[@]}"
}

ops="AllReduce,Broadcast,BroadcastGroup2,AllReduce"
bench=(--cupti --min-bytes 64K --max-bytes 4M --factor 4 --warmup 2 --iters 5 --per-call)
step java-on 120 env NCCL_INSPECTOR_TRACE_DIR="$work/java-on/trace" examples/nccl-benchmark.sh 2 on "$work/java-on" --ops "$ops" "${bench[@]}"
step java-raw 60 env NCCL_INSPECTOR_NCCL_WORKAROUNDS=0 NCCL_INSPECTOR_TRACE_DIR="$work/java-raw/trace" examples/nccl-benchmark.sh 2 on "$work/java-raw" --ops "$ops" "${bench[@]}"
step torch-bcast-raw 60 torch_run torch-bcast-raw bcast
step torch-bcast 90 torch_run torch-bcast bcast NCCL_ALLGATHERV_ENABLE=0
step torch-moe 90 torch_run torch-moe moe NCCL_ALLGATHERV_ENABLE=0
step java-ref 90 examples/nccl-benchmark.sh 2 reference "$work/java-ref" --ops AllReduce,Broadcast,AllReduce "${bench[@]}"
step java-ref-grouped 50 examples/nccl-benchmark.sh 2 reference "$work/java-ref-grouped" --ops BroadcastGroup2,AllReduce "${bench[@]}"
step torch-pp 90 torch_run torch-pp pp NCCL_ALLGATHERV_ENABLE=0
step bcast-cost-off0 60 env NCCL_ALLGATHERV_ENABLE=0 RUN_TAG=agv0 examples/nccl-benchmark.sh 2 off "$work/bcast-cost-off0" --ops Broadcast --min-bytes 64K --max-bytes 16M --factor 4 --warmup 5 --iters 30
step bcast-cost-off1 60 env RUN_TAG=agv1 examples/nccl-benchmark.sh 2 off "$work/bcast-cost-off1" --ops Broadcast --min-bytes 64K --max-bytes 16M --factor 4 --warmup 5 --iters 30
if [[ ${PLANTS:-0} == 1 ]]; then
  step plant-late 75 torch_run plant-late late PLANT_MS=5
  step plant-gpuslow 75 torch_run plant-gpuslow gpuslow PLANT_MS=5
  step plant-proxy 75 torch_slow_proxy
fi

echo "total $((SECONDS - start)) s" >> "$summary"
# Rank 0's benchmark summaries, for the summary file.
for d in "$work"/java-*; do
  [[ -d $d ]] || continue
  echo "--- $(basename "$d")" >> "$summary"
  grep -hE 'verdict|right|wrong|missing|withheld|NCCL [0-9]|interface|Loaded|WARN' "$d"/log-*-rank0.txt 2>/dev/null | head -n 25 >> "$summary"
done
tar -czf "$out/matrix-$release.tgz" -C /tmp "matrix-$release"
cat "$summary"
