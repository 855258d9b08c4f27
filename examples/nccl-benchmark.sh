#!/usr/bin/env bash
# Runs one of the Java NCCL programs (default io.ncclinspector.examples.nccl.NcclBenchmark) with RANKS
# processes on this machine, one rank per process and per GPU. On a machine with fewer GPUs than ranks
# every rank gets its own NCCL host identity and they talk over loopback sockets (all ranks share a GPU).
#
# usage: examples/nccl-benchmark.sh RANKS MODE OUT_DIR [program options...]
#   MODE  on         this inspector, enabled in process by NcclInspector.enable()
#         off        no profiler plugin at all
#         reference  NVIDIA's reference Inspector, from $REFERENCE_PLUGIN (a libnccl-profiler-inspector.so),
#                    writing to OUT_DIR/reference every REFERENCE_INTERVAL_US (100000) with rings of
#                    REFERENCE_RING (16384) entries, verbose when REFERENCE_VERBOSE=1
# environment: see examples/gpu-env.sh (JAVA, CLASSPATH_JARS, NCCL_LIB, CUDA_LIB, CUPTI_LIB, REFERENCE_PLUGIN), and
#   MAIN_CLASS  NcclBenchmark (default), NcclLongRun, DesyncReproducer: they take the same rank options
# Each rank's output goes to OUT_DIR/log-MODE-RANKS-rankR.txt; rank 0's is printed at the end. The exit status
# is 1 if any rank failed.
set -euo pipefail
ranks=${1:?usage: nccl-benchmark.sh RANKS MODE OUT_DIR [options]}
mode=${2:?mode: on, off or reference}
out=${3:?output directory}
shift 3
# shellcheck source=examples/gpu-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/gpu-env.sh"
case "$mode" in on|off|reference) ;; *) echo "unknown mode $mode (on, off, reference)" >&2; exit 2 ;; esac
if [[ $mode == reference && ! -f $REFERENCE_PLUGIN ]] && [[ " $* " != *" --dry-run "* ]]; then
  echo "mode reference: no plugin at $REFERENCE_PLUGIN (examples/build-reference-plugin.sh)" >&2
  exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
tag=${RUN_TAG:-$mode}
id_file="$out/nccl-id-$tag-$ranks"
rm -f "$id_file" "$id_file"-*
gpus=$(gpu_count)
main=${MAIN_CLASS:-io.ncclinspector.examples.nccl.NcclBenchmark}
[[ $main == *.* ]] || main=io.ncclinspector.examples.nccl.$main

pids=()
for ((r = 0; r < ranks; r++)); do
  (
    unset NCCL_PROFILER_PLUGIN
    if [ "$ranks" -gt 1 ] && [ "$gpus" -lt "$ranks" ]; then
      export NCCL_HOSTID="host$r" NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1
    fi
    inspector=on
    case "$mode" in
      off) inspector=off ;;
      reference)
        inspector=off
        export NCCL_PROFILER_PLUGIN="$REFERENCE_PLUGIN" NCCL_INSPECTOR_ENABLE=1 \
          NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS="${REFERENCE_INTERVAL_US:-100000}" \
          NCCL_INSPECTOR_DUMP_DIR="$out/reference" NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 \
          NCCL_INSPECTOR_DUMP_COLL_RING_SIZE="${REFERENCE_RING:-16384}" \
          NCCL_INSPECTOR_DUMP_P2P_RING_SIZE="${REFERENCE_RING:-16384}" \
          NCCL_INSPECTOR_DUMP_VERBOSE="${REFERENCE_VERBOSE:-0}"
        mkdir -p "$out/reference" ;;
    esac
    exec > "$out/log-$tag-$ranks-rank$r.txt" 2>&1
    gpu_exec_java "$main" --rank "$r" --ranks "$ranks" --id-file "$id_file" --out "$out" --inspector "$inspector" "$@"
  ) &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
cat "$out/log-$tag-$ranks-rank0.txt"
rm -f "$id_file" "$id_file"-*
exit $status
