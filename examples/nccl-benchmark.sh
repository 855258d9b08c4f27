#!/usr/bin/env bash
# Runs the Java NCCL benchmark (io.ncclinspector.examples.nccl.NcclBenchmark) with RANKS processes
# on this machine, one rank per process. On a one-GPU machine every rank gets its own NCCL host
# identity and they talk over loopback sockets (all ranks share the GPU).
#
# usage: examples/nccl-benchmark.sh RANKS MODE OUT_DIR [benchmark options...]
#   MODE  on         this inspector, enabled in process by NcclInspector.enable()
#         off        no profiler plugin at all
#         reference  NVIDIA's reference Inspector, from $REFERENCE_PLUGIN (a libnccl-profiler-inspector.so)
# environment:
#   JAVA (default: java), CLASSPATH_JARS (default: examples/target/examples-*.jar:examples/target/lib/*),
#   NCCL_LIB  directory of libnccl.so.2 (default: the PyTorch venv's), CUDA_LIB (default /usr/local/cuda/lib64),
#   MAIN_CLASS (default io.ncclinspector.examples.nccl.NcclBenchmark; NcclLongRun takes the same rank options)
set -euo pipefail
ranks=${1:?usage: nccl-benchmark.sh RANKS MODE OUT_DIR [options]}
mode=${2:?mode: on, off or reference}
out=${3:?output directory}
shift 3
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
java=${JAVA:-java}
cp=${CLASSPATH_JARS:-"$(ls "$root"/examples/target/examples-*.jar | head -n 1):$root/examples/target/lib/*"}
nccl_lib=${NCCL_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib}
cuda_lib=${CUDA_LIB:-/usr/local/cuda/lib64}
mkdir -p "$out"
out=$(cd "$out" && pwd)
id_file="$out/nccl-id-$mode-$ranks"
rm -f "$id_file"

pids=()
for ((r = 0; r < ranks; r++)); do
  (
    unset NCCL_PROFILER_PLUGIN
    export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
    export LD_LIBRARY_PATH="$nccl_lib:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if [ "$ranks" -gt 1 ] && [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt "$ranks" ]; then
      export NCCL_HOSTID="host$r" NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1
    fi
    inspector=on
    case "$mode" in
      on) ;;
      off) inspector=off ;;
      reference)
        inspector=off
        export NCCL_PROFILER_PLUGIN="${REFERENCE_PLUGIN:?set REFERENCE_PLUGIN}" NCCL_INSPECTOR_ENABLE=1 \
          NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000000 NCCL_INSPECTOR_DUMP_DIR="$out/reference" \
          NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 ;;
      *) echo "unknown mode $mode" >&2; exit 2 ;;
    esac
    exec "$java" -cp "$cp" -Djava.library.path="$nccl_lib:$cuda_lib" -Dorg.bytedeco.javacpp.pathsFirst=true \
      -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
      "${MAIN_CLASS:-io.ncclinspector.examples.nccl.NcclBenchmark}" --rank "$r" --ranks "$ranks" --id-file "$id_file" \
      --out "$out" --inspector "$inspector" "$@"
  ) > "$out/log-$mode-$ranks-rank$r.txt" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do
  wait "$p" || status=1
done
cat "$out/log-$mode-$ranks-rank0.txt"
exit $status
