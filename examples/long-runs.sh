#!/usr/bin/env bash
# Long runs of one communicator (NcclLongRun): CALLS small AllReduces with memory samples, and a
# CUDA graph of 4 AllReduces replayed 200 times. With one GPU per rank (NVLink) it also repeats the
# stress run on the shared-memory transport (NCCL_P2P_DISABLE=1).
# usage: examples/long-runs.sh OUT_DIR [RANKS=2] [CALLS=1000000]
set -uo pipefail
out=${1:?usage: long-runs.sh OUT_DIR [RANKS] [CALLS]}
ranks=${2:-2}
calls=${3:-1000000}
export MAIN_CLASS=io.ncclinspector.examples.nccl.NcclLongRun
bench="$(dirname "${BASH_SOURCE[0]}")/nccl-benchmark.sh"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "=== stress: $calls AllReduces of 8 KiB, $ranks ranks on $gpus GPU(s)"
timeout 900 "$bench" "$ranks" on "$out/stress" --mode stress --bytes 8192 --calls "$calls"; echo "exit $?"
if [ "$gpus" -ge "$ranks" ]; then
  echo "=== stress over shared memory (NCCL_P2P_DISABLE=1)"
  NCCL_P2P_DISABLE=1 timeout 900 "$bench" "$ranks" on "$out/stress-shm" --mode stress --bytes 8192 --calls "$calls"; echo "exit $?"
fi
echo "=== graph: 4 AllReduces captured, 200 replays"
timeout 300 "$bench" "$ranks" on "$out/graph" --mode graph --bytes 1048576 --graph-ops 4 --replays 200; echo "exit $?"
