#!/usr/bin/env bash
# Runs java with the GPU machine's libraries and the packed jars (examples/gpu-env.sh), e.g.
#   examples/gpu-java.sh io.ncclinspector.examples.nccl.GpuPreflight --cupti
set -euo pipefail
# shellcheck source=examples/gpu-env.sh
source "$(dirname "${BASH_SOURCE[0]}")/gpu-env.sh"
gpu_exec_java "$@"
