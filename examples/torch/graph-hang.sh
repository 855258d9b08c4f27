#!/usr/bin/env bash
# Runs examples/torch/graph_allreduce.py on every GPU, once per profiler setting, each under a time
# limit; a run still going at its limit gets every thread's native stack dumped (cuda-gdb attaches to
# each rank) before it is killed. usage: examples/torch/graph-hang.sh OUT [LIMIT_S=45]
#   settings: none (no plugin), reference (NVIDIA's Inspector from $REFERENCE_PLUGIN)
set -uo pipefail
out=${1:?usage: graph-hang.sh OUT [LIMIT_S]}
limit=${2:-45}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ranks=$(nvidia-smi -L | wc -l)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
for setting in none reference; do
  dir="$out/$setting"; mkdir -p "$dir"
  init="$dir/init"; rm -f "$init"
  pids=()
  for ((r = 0; r < ranks; r++)); do
    (
      if [[ $setting == reference ]]; then
        export NCCL_PROFILER_PLUGIN="${REFERENCE_PLUGIN:?}" NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$dir/inspector" \
          NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=100000 NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0
      fi
      exec env NCCL_DEBUG=WARN python3 "$here/graph_allreduce.py" "$r" "$ranks" "$init" 100
    ) > "$dir/rank$r.txt" 2>&1 &
    pids+=($!)
  done
  waited=0
  while ((waited < limit)); do
    alive=0; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 1; waited=$((waited + 1))
  done
  for i in "${!pids[@]}"; do
    p=${pids[$i]}
    if kill -0 "$p" 2>/dev/null; then
      echo "$setting: rank $i still running after $limit s: stacks in $dir/stacks-rank$i.txt"
      timeout 60 cuda-gdb -p "$p" -batch -ex "set pagination off" -ex "thread apply all bt 30" > "$dir/stacks-rank$i.txt" 2>&1
      kill -9 "$p" 2>/dev/null
    fi
  done
  wait 2>/dev/null
  echo "== $setting"; tail -n 4 "$dir"/rank*.txt
  ls "$dir/inspector" 2>/dev/null && wc -l "$dir"/inspector/*.log 2>/dev/null
done
