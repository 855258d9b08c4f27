#!/usr/bin/env bash
# The GPU validation of issues 11 (trustworthy GPU times), 13 (overhead at real bandwidth, a million
# collectives, graphs) and 14 (recorded data for the slow-collective detector), in two parts that each fit
# one device call (<= 8 minutes on 2 x H200). Written for N GPUs, one rank per GPU.
#
# usage (from the repository root, on the GPU machine, after examples/pack-gpu.sh):
#   examples/gpu-validation.sh OUT PART [RANKS]
#     PART 1  trust: the desync reproducer and the MoE loop (inspector on + trace, reference), the benchmark
#             with every operation before and after an AlltoAll (on, reference), all with CUPTI; the
#             detector recording (2,000+ AllReduce of 64 KiB, a size change, a protocol change, planted waits);
#             70 AlltoAlls (the lag past NCCL's 64 slots); callback-to-listener latency (verbose records);
#             baselines without a profiler
#     PART 2  cost: the sweep 8 B .. 1 GiB, off / on / reference in interleaved rounds; a recorded sweep;
#             the CUDA-graph run (on + trace, CUPTI); 1,000,000 AllReduces over NVLink and over shared
#             memory (NCCL_P2P_DISABLE=1) and without the inspector; the graph under the reference plugin
#             last (a hang there is diagnosed by thread dumps and cut off)
#     PART 3  again, after the recording lost callbacks in bursts (trace_ring_full): the recorded runs that
#             lost some (MoE loop, detector, graph), a recorded stress run of 200,000 AllReduces (where
#             NCCL reports a kernel channel's stop without its start), and the overhead sweep with more
#             rounds and calls (ROUNDS, default 6; 30 timed calls per size); and PyTorch's CUDA graph of
#             3 AllReduces without a plugin and under NVIDIA's (stacks of a hung process)
#     PART 4  CUPTI kernel records (issue 20), on one GPU with RANKS=2 over sockets: the MoE loop with kernel
#             records (CUDA events the clock) and with CUPTI as the program's clock (records off), the
#             reproducer with records, two CUPTI clients in one process, a CUDA graph, the MoE loop on a
#             non-blocking communicator (NONBLOCKING=1: a launching thread per group), the MoE loop again on
#             NCCL 2.30.7 or ALT_NCCL (built from .gpu/nccl-src when there), small AllReduces off / on / with records
#             (ROUNDS=2, with a GPU per rank only), and the cost of a kernel launch (no NCCL) with no
#             inspector, the inspector, and its CUPTI kernel records (LAUNCH_ROUNDS, default 3)
#     RANKS   default: the number of GPUs
# environment: BUDGET_S (470: the part stops starting steps when its time is spent; each step has its own
#   limit too), ROUNDS (3, sweep rounds; part 4: stress rounds, default 0), SKIP_STEPS (step names
#   left out, space-separated), STRESS_CALLS (1000000), DRY_RUN=1 (every program only parses its
#   options and prints its plan: a rehearsal on a machine without GPUs), WORK_DIR (/tmp/gpu-validation-partN).
# Output under OUT (at most 8 files, as the device tool returns them): summary-partN.md (the tables, from
# examples/analyze-gpu-validation.py), partN-results.tgz (every program's JSON, per-call JSON Lines, logs),
# partN-traces.tgz (raw event recordings: fixtures), partN-console.txt. Large archives are split into
# 15 MiB pieces (.tgz.00, .01, ...; join with cat).
set -uo pipefail
out=${1:?usage: gpu-validation.sh OUT PART [RANKS]}
part=${2:?PART is 1, 2, 3 or 4}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=examples/gpu-env.sh
source examples/gpu-env.sh
ranks=${3:-$(gpu_count)}
[[ $part =~ ^[1-4]$ ]] || { echo "PART is 1, 2, 3 or 4" >&2; exit 2; }
if [[ ${DRY_RUN:-0} == 1 ]]; then
  dry=(--dry-run)
  [[ $ranks -ge 1 ]] || ranks=2
else
  dry=()
  [[ $ranks -ge 2 ]] || { echo "need 2 or more GPUs (found $ranks)" >&2; exit 2; }
fi
budget=${BUDGET_S:-470}
rounds=${ROUNDS:-3}
stress_calls=${STRESS_CALLS:-1000000}
work=${WORK_DIR:-/tmp/gpu-validation-part$part}
rm -rf "$work"
mkdir -p "$work/logs" "$work/traces" "$out"
out=$(cd "$out" && pwd)
exec > >(tee "$out/part$part-console.txt") 2>&1
start=$SECONDS
steps="$work/steps.tsv"
printf 'step\texit\tseconds\tlimit\n' > "$steps"
bench=examples/nccl-benchmark.sh
repro=examples/desync-reproducer.sh

# step NAME LIMIT_S COMMAND...: runs COMMAND under a time limit (and the part's budget), its output in
# logs/NAME.txt. At the limit every process of the step gets SIGQUIT first (each JVM prints its threads'
# stacks into its rank log: where a hang sits), then SIGKILL 15 s later.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((budget - (SECONDS - start)))
  if [[ " ${SKIP_STEPS:-} " == *" $name "* ]]; then
    echo "=== $name: SKIPPED (SKIP_STEPS)"
    printf '%s\tskipped\t0\t%s\n' "$name" "$limit" >> "$steps"
    return 0
  fi
  if ((left < 20)); then
    echo "=== $name: SKIPPED, the part's budget is spent"
    printf '%s\tskipped\t0\t%s\n' "$name" "$limit" >> "$steps"
    return 0
  fi
  ((limit > left - 10)) && limit=$((left - 10))
  echo "=== [$((SECONDS - start)) s] $name (limit $limit s)"
  local t0=$SECONDS
  timeout -s QUIT -k 15 "$limit" "$@" > "$work/logs/$name.txt" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$((SECONDS - t0))" "$limit" >> "$steps"
  grep -vE '^live \(listener\)|^\[|INFO|^\s*$' "$work/logs/$name.txt" | tail -n "${SHOW_LINES:-30}"
  if ((rc == 124 || rc == 137)); then echo "--- $name: TIMED OUT after $limit s (thread dumps in the rank logs)"; fi
  echo "--- $name: exit $rc, $((SECONDS - t0)) s"
}

echo "GPU validation part $part, $ranks ranks, budget $budget s, work dir $work"
echo "java: $JAVA; CUPTI: ${CUPTI_LIB:-not found}; reference plugin: $REFERENCE_PLUGIN"
if [[ ${DRY_RUN:-0} != 1 ]]; then
  nvidia-smi -L
  nvidia-smi topo -m 2>&1 | head -n $((ranks + 3))
  nm -D "$REFERENCE_PLUGIN" 2>/dev/null | grep ncclProfiler_v || echo "reference plugin missing or without ncclProfiler_v*"
  step preflight 60 examples/gpu-java.sh io.ncclinspector.examples.nccl.GpuPreflight --cupti
fi

if [[ $part == 1 ]]; then
  # 1. The desync reproducer: AllReduce 8 KiB .. 64 MiB x 20 cycles, one AlltoAll, again. Ours with the raw
  #    recording (fixture), then NVIDIA's (verbose, for the same-call matching), both with CUPTI.
  step reproducer-on 150 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/reproducer" NCCL_DEBUG=INFO \
    NCCL_DEBUG_SUBSYS=INIT,ENV $repro "$ranks" on "$work/reproducer" "${dry[@]}"
  step reproducer-reference 150 $repro "$ranks" reference "$work/reproducer" "${dry[@]}"
  # 2. The MoE-style loop, 100 steps of AllReduce 4 MiB, AlltoAll 1 MiB, AllGather 256 KiB, ring Send/Recv 2 MiB.
  step moe-on 150 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe" $repro "$ranks" on "$work/moe" --mode moe "${dry[@]}"
  step moe-reference 150 $repro "$ranks" reference "$work/moe" --mode moe "${dry[@]}"
  # 3. The benchmark, every operation class before and after one AlltoAll, 8 KiB .. 32 MiB, 10 timed calls each.
  trust=(--run trust --ops AllReduce,AllGather,ReduceScatter,Broadcast,SendRecv,AlltoAll,AllReduce,AllGather,ReduceScatter,Broadcast,SendRecv
    --min-bytes 8K --max-bytes 32M --factor 4 --warmup 2 --iters 10 --cupti --per-call)
  step trust-on 150 $bench "$ranks" on "$work/trust" "${trust[@]}" "${dry[@]}"
  step trust-reference 150 env REFERENCE_VERBOSE=1 $bench "$ranks" reference "$work/trust" "${trust[@]}" "${dry[@]}"
  # 4. For the slow-collective detector: 2,000 AllReduce 64 KiB, 500 of 1 MiB, then a second communicator
  #    with NCCL_PROTO=Simple, 1,000 of 64 KiB; rank 1 late by 2 ms at calls 10, 600, 1500 of each part.
  step detector-on 150 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/detector" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ENV,TUNING \
    MAIN_CLASS=NcclLongRun $bench "$ranks" on "$work/detector" --mode detector --cupti "${dry[@]}"
  # 5. The lag past 64: 70 AlltoAlls in the middle (each adds one to the lag of the channels it used; NCCL's
  #    slot ring has 64 entries), 5 cycles before and after, recorded.
  step lag70-on 120 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/lag70" $repro "$ranks" on "$work/lag70" --run lag70 \
    --alltoalls 70 --cycles 5 "${dry[@]}"
  # 6. Callback-to-listener latency: verbose records (they carry each callback's wall time), 200,000 calls.
  step latency 60 env MAIN_CLASS=NcclLongRun $bench "$ranks" on "$work/latency" --mode stress --bytes 8K \
    --calls 200000 --samples 10 --latency --max-seconds 30 "${dry[@]}"
  # 7. Baselines without any profiler, if time is left: the CUPTI and CUDA-event figures alone.
  step reproducer-off 100 $repro "$ranks" off "$work/reproducer" "${dry[@]}"
  step moe-off 100 $repro "$ranks" off "$work/moe" --mode moe "${dry[@]}"
elif [[ $part == 4 ]]; then
  # CUPTI kernel records (issue 20) on one GPU: two ranks over loopback sockets (each its own NCCL host
  # identity). NCCL 2.28.9 (the machine's); ALT_NCCL (2.30.7, or 2.29.7) built in the background from
  # .gpu/nccl-src when there.
  alt=${ALT_NCCL:-2.30.7}
  if [[ -f .gpu/nccl-src/nccl-$alt.tar.xz && ${DRY_RUN:-0} != 1 ]]; then
    nice -n 10 examples/build-nccl.sh ".gpu/nccl-src/nccl-$alt.tar.xz" "$work/nccl-$alt" > "$work/logs/build-nccl-$alt.txt" 2>&1 &
    build=$!
  fi
  kr=(env CUPTI=0 NCCL_INSPECTOR_KERNEL_RECORDS=1)
  # The MoE loop with kernel records (the inspector holds CUPTI; CUDA events are the clock).
  step moe-kr 120 "${kr[@]}" NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe-kr" $repro "$ranks" on "$work/moe-kr" \
    --mode moe --run moe-kr "${dry[@]}"
  # A profiling tool's CUPTI (subscribed, as Nsight Systems and PyTorch's profiler are): the inspector
  # must leave CUPTI to it and say so.
  step moe-kr-tool 90 env CUPTI_SUBSCRIBE=1 NCCL_INSPECTOR_KERNEL_RECORDS=1 $repro "$ranks" on "$work/moe-kr-tool" \
    --mode moe --steps 30 --run moe-kr-tool "${dry[@]}"
  # The same loop with CUPTI as the program's clock and kernel records off (channel times only).
  step moe-cupti 120 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe-cupti" $repro "$ranks" on "$work/moe-cupti" \
    --mode moe --run moe-cupti "${dry[@]}"
  # Two CUPTI clients in one process: the program's (started first: the inspector must leave it alone).
  step moe-kr-both 90 env NCCL_INSPECTOR_KERNEL_RECORDS=1 $repro "$ranks" on "$work/moe-kr-both" --mode moe \
    --steps 30 --run moe-kr-both "${dry[@]}"
  # The program's CUPTI registered after the inspector's kernel records (a profiler started later):
  # it takes CUPTI's records; the inspector must say that no kernel comes, and time nothing wrong.
  step moe-kr-late 90 env CUPTI_LATE=1 NCCL_INSPECTOR_KERNEL_RECORDS=1 $repro "$ranks" on "$work/moe-kr-late" --mode moe \
    --steps 60 --run moe-kr-late "${dry[@]}"
  # A CUDA graph with kernel records on: replays launch no KernelLaunch event; nothing may break.
  step graph-kr 60 env NCCL_INSPECTOR_KERNEL_RECORDS=1 MAIN_CLASS=NcclLongRun $bench "$ranks" on "$work/graph-kr" \
    --mode graph --bytes 1M --graph-ops 4 --replays 50 "${dry[@]}"
  # The MoE loop on a non-blocking communicator (NONBLOCKING=1): NCCL launches each group from a thread
  # of its own that exits after it (ncclAsyncJobMain), the calling threads that come and go. Kernel records on.
  step moe-kr-nb 120 "${kr[@]}" NONBLOCKING=1 NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe-kr-nb" $repro "$ranks" on \
    "$work/moe-kr-nb" --mode moe --run moe-kr-nb "${dry[@]}"
  # AllReduce 8 KiB .. 64 MiB, one AlltoAll, again: every size before and after the lag, kernel records on.
  step reproducer-kr 120 "${kr[@]}" NCCL_INSPECTOR_TRACE_DIR="$work/traces/reproducer-kr" $repro "$ranks" on \
    "$work/reproducer-kr" --cycles 5 --run reproducer-kr "${dry[@]}"
  # CUPTI's cost: small AllReduces flat out (sync every 100), off / on / on with kernel records, rotated.
  # Only with one GPU per rank (ROUNDS=2 and RANKS GPUs): two processes on one GPU time-slice it, and
  # every small collective then waits a slice (221 per second on an H100 whatever the inspector did,
  # 2026-12-05), so by default part 4 runs none.
  stress=(--mode stress --bytes 8K --calls "${STRESS_CALLS:-30000}" --sync-every 100 --samples 5 --max-seconds 15)
  for ((r = 1; r <= ${ROUNDS:-0}; r++)); do
    order=(off on kr); ((r % 2 == 0)) && order=(kr on off)
    for m in "${order[@]}"; do
      case $m in
        off) step "stress-r$r-off" 45 env MAIN_CLASS=NcclLongRun $bench "$ranks" off "$work/stress-r$r-off" "${stress[@]}" "${dry[@]}" ;;
        on) step "stress-r$r-on" 45 env MAIN_CLASS=NcclLongRun $bench "$ranks" on "$work/stress-r$r-on" "${stress[@]}" "${dry[@]}" ;;
        kr) step "stress-r$r-kr" 45 env NCCL_INSPECTOR_KERNEL_RECORDS=1 MAIN_CLASS=NcclLongRun $bench "$ranks" on \
          "$work/stress-r$r-kr" "${stress[@]}" "${dry[@]}" ;;
      esac
    done
  done
  # What a kernel launch costs the launching thread (an empty kernel flat out, one process, no NCCL):
  # no inspector, the inspector, the inspector with CUPTI kernel records (CUPTI then records every
  # kernel of the process). LAUNCH_ROUNDS rounds (default 3), the order rotated each round.
  mkdir -p "$work/launch"
  for ((r = 1; r <= ${LAUNCH_ROUNDS:-3}; r++)); do
    order=(off on kr); ((r % 3 == 2)) && order=(on kr off); ((r % 3 == 0)) && order=(kr off on)
    for m in "${order[@]}"; do
      case $m in
        off) step "launch-r$r-off" 60 examples/gpu-java.sh io.ncclinspector.examples.nccl.LaunchCost off "$work/launch/launch-r$r-off.json" ;;
        on) step "launch-r$r-on" 60 env NCCL_INSPECTOR_DUMP_DIR="$work/launch/inspector" \
          examples/gpu-java.sh io.ncclinspector.examples.nccl.LaunchCost on "$work/launch/launch-r$r-on.json" ;;
        kr) step "launch-r$r-kr" 60 env NCCL_INSPECTOR_KERNEL_RECORDS=1 NCCL_INSPECTOR_DUMP_DIR="$work/launch/inspector" \
          examples/gpu-java.sh io.ncclinspector.examples.nccl.LaunchCost on "$work/launch/launch-r$r-kr.json" ;;
      esac
    done
  done
  if [[ -n ${build:-} ]]; then
    wait "$build" && lib=$(tail -n 1 "$work/logs/build-nccl-$alt.txt") || lib=
    if [[ -f $lib ]]; then
      step "moe-kr-$alt" 120 "${kr[@]}" NCCL_LIB="$(dirname "$lib")" NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe-kr-$alt" \
        $repro "$ranks" on "$work/moe-kr-$alt" --mode moe --run "moe-kr-$alt"
      step "moe-cupti-$alt" 120 env NCCL_LIB="$(dirname "$lib")" $repro "$ranks" on "$work/moe-cupti-$alt" \
        --mode moe --run "moe-cupti-$alt"
    else
      echo "NCCL $alt: build failed"; tail -n 20 "$work/logs/build-nccl-$alt.txt"
    fi
  fi
elif [[ $part == 3 ]]; then
  step moe-on 150 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe" $repro "$ranks" on "$work/moe" --mode moe "${dry[@]}"
  # CUPTI kernel records (issue 20): the inspector holds CUPTI, the CUDA events are the clock; recorded.
  step moe-kernel-records 150 env CUPTI=0 NCCL_INSPECTOR_KERNEL_RECORDS=1 NCCL_INSPECTOR_TRACE_DIR="$work/traces/moe-kr" \
    $repro "$ranks" on "$work/moe-kr" --mode moe "${dry[@]}"
  step detector-on 150 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/detector" \
    MAIN_CLASS=NcclLongRun $bench "$ranks" on "$work/detector" --mode detector --cupti "${dry[@]}"
  graph=(--mode graph --bytes 1M --graph-ops 4 --replays 200 --cupti)
  step graph-on 90 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/graph" MAIN_CLASS=NcclLongRun \
    $bench "$ranks" on "$work/graph" "${graph[@]}" "${dry[@]}"
  step torch-graph 150 examples/torch/graph-hang.sh "$work/torch-graph" 40
  step stress-trace 90 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/stress" MAIN_CLASS=NcclLongRun $bench "$ranks" on \
    "$work/stress-trace" --mode stress --bytes 8K --calls 200000 --sync-every 100 --samples 10 --max-seconds 40 "${dry[@]}"
  sweep=(--run sweep --min-bytes 8 --max-bytes 1G --factor 4 --warmup 3 --iters 30 --batch 20)
  modes=(off on reference)
  for ((r = 1; r <= ${ROUNDS:-6}; r++)); do
    for ((m = 0; m < 3; m++)); do
      mode=${modes[$(((m + r - 1) % 3))]}
      step "sweep-r$r-$mode" 90 $bench "$ranks" "$mode" "$work/sweep/round-$r" "${sweep[@]}" "${dry[@]}"
    done
  done
else
  # 1. Overhead at real bandwidth: 8 B .. 1 GiB in steps of 4, every operation; 3 warm-up, 10 timed calls
  #    (ranks synchronised, CUDA events), 20 back-to-back calls (bus bandwidth) per size; modes interleaved
  #    and rotated across rounds so that drift of the machine hits all alike.
  sweep=(--run sweep --min-bytes 8 --max-bytes 1G --factor 4 --warmup 3 --iters 10 --batch 20)
  modes=(off on reference)
  for ((r = 1; r <= rounds; r++)); do
    for ((m = 0; m < 3; m++)); do
      mode=${modes[$(((m + r - 1) % 3))]}
      step "sweep-r$r-$mode" 90 $bench "$ranks" "$mode" "$work/sweep/round-$r" "${sweep[@]}" "${dry[@]}"
    done
  done
  # 2. Graphs: 4 AllReduces of 1 MiB captured, 200 timed replays (CUDA events, CUPTI), with the recording.
  graph=(--mode graph --bytes 1M --graph-ops 4 --replays 200 --cupti)
  step graph-on 90 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/graph" MAIN_CLASS=NcclLongRun \
    $bench "$ranks" on "$work/graph" "${graph[@]}" "${dry[@]}"
  # 3. A recorded sweep (a fixture): every operation, 8 B .. 1 GiB in steps of 16, 1 warm-up + 3 timed calls.
  step sweep-trace 90 env NCCL_INSPECTOR_TRACE_DIR="$work/traces/sweep" $bench "$ranks" on "$work/sweep-trace" \
    --run sweep-trace --min-bytes 8 --max-bytes 1G --factor 16 --warmup 1 --iters 3 "${dry[@]}"
  # 4. A million small collectives in one communicator: NVLink, then shared memory, then without the inspector.
  stress=(--mode stress --bytes 8K --calls "$stress_calls" --sync-every 100 --samples 40 --max-seconds 60)
  step stress-nvlink 110 env MAIN_CLASS=NcclLongRun $bench "$ranks" on "$work/stress-nvlink" "${stress[@]}" "${dry[@]}"
  step stress-shm 110 env MAIN_CLASS=NcclLongRun NCCL_P2P_DISABLE=1 $bench "$ranks" on "$work/stress-shm" \
    "${stress[@]}" "${dry[@]}"
  step stress-off 110 env MAIN_CLASS=NcclLongRun $bench "$ranks" off "$work/stress-off" "${stress[@]}" "${dry[@]}"
  # 5. The graph run under NVIDIA's plugin (a PyTorch graph workload hung under it): last, with a short limit.
  step graph-reference 60 env MAIN_CLASS=NcclLongRun REFERENCE_VERBOSE=1 $bench "$ranks" reference \
    "$work/graph-reference" "${graph[@]}" "${dry[@]}"
fi

echo "=== [$((SECONDS - start)) s] steps"
column -t -s $'\t' "$steps" 2>/dev/null || cat "$steps"
# Leftover rendezvous files and the barrier files are of no use afterwards.
find "$work" \( -name 'nccl-id-*' -o -name '*.barrier' \) -delete 2>/dev/null
python3 examples/analyze-gpu-validation.py "$work" > "$out/summary-part$part.md" 2> "$work/logs/analysis.txt" \
  || { echo "analysis failed:"; tail -n 20 "$work/logs/analysis.txt"; }
cp "$out/summary-part$part.md" "$work/" 2>/dev/null

# Pack for the trip back: at most 8 files of at most 16 MiB.
pack() {
  local name=$1
  shift
  tar czf "$out/$name" "$@" 2>/dev/null
  local size
  size=$(stat -c %s "$out/$name" 2>/dev/null || echo 0)
  if ((size > 15 * 1024 * 1024)); then
    split -b 15m -d "$out/$name" "$out/$name."
    rm -f "$out/$name"
  fi
}
pack "part$part-results.tgz" -C "$(dirname "$work")" --exclude="$(basename "$work")/traces" "$(basename "$work")"
if [[ -n $(find "$work/traces" -type f 2>/dev/null | head -n 1) ]]; then
  pack "part$part-traces.tgz" -C "$work" traces
fi
ls -la "$out"
echo "=== summary (also in summary-part$part.md)"
head -c "${SUMMARY_CHARS:-6000}" "$out/summary-part$part.md"
echo
echo "part $part done in $((SECONDS - start)) s"
