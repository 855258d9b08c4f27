# Sourced by the GPU scripts of examples/: where Java, the jars, NCCL, CUDA, CUPTI and NVIDIA's
# reference plugin are on a GPU machine, and the environment every process there must have.
# Each can be overridden from the environment:
#   JAVA             .gpu/jre/bin/java if packed (examples/pack-gpu.sh), else java
#   CLASSPATH_JARS   .gpu/lib/* if packed, else examples/target/examples-*.jar:examples/target/lib/*
#   NCCL_LIB         directory of libnccl.so.2 (the PyTorch environment's NCCL)
#   CUDA_LIB         directory of libcudart.so.13 (/usr/local/cuda/lib64)
#   CUPTI_LIB        directory of libcupti.so.13 (first found: CUDA's extras/CUPTI/lib64, CUDA_LIB, the
#                    pip package nvidia-cuda-cupti); empty if none: the programs then run without CUPTI
#   REFERENCE_PLUGIN NVIDIA's libnccl-profiler-inspector.so (.gpu/ref/, from examples/build-reference-plugin.sh)
# shellcheck shell=bash
gpu_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# NVLink multicast stays off in every process on the shared GPU machines.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [[ -z ${JAVA:-} ]]; then
  if [[ -x $gpu_root/.gpu/jre/bin/java ]]; then JAVA=$gpu_root/.gpu/jre/bin/java; else JAVA=java; fi
fi
if [[ -z ${CLASSPATH_JARS:-} ]]; then
  if [[ -d $gpu_root/.gpu/lib ]]; then
    CLASSPATH_JARS="$gpu_root/.gpu/lib/*"
  else
    CLASSPATH_JARS="$(ls "$gpu_root"/examples/target/examples-*.jar 2>/dev/null | grep -v -- '-sources\|-tests' | head -n 1):$gpu_root/examples/target/lib/*"
  fi
fi
NCCL_LIB=${NCCL_LIB:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib}
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64}
if [[ -z ${CUPTI_LIB+set} ]]; then
  CUPTI_LIB=
  for d in /usr/local/cuda/extras/CUPTI/lib64 "$CUDA_LIB" /opt/torch/.venv/lib/python3.12/site-packages/nvidia/*/lib; do
    if compgen -G "$d/libcupti.so.13*" >/dev/null; then CUPTI_LIB=$d; break; fi
  done
fi
REFERENCE_PLUGIN=${REFERENCE_PLUGIN:-$gpu_root/.gpu/ref/libnccl-profiler-inspector.so}
GPU_LIBRARY_PATH="$NCCL_LIB:$CUDA_LIB${CUPTI_LIB:+:$CUPTI_LIB}"
export JAVA CLASSPATH_JARS NCCL_LIB CUDA_LIB CUPTI_LIB REFERENCE_PLUGIN GPU_LIBRARY_PATH
# GPUs on this machine (0 without nvidia-smi, e.g. for --dry-run rehearsals on a CPU machine).
gpu_count() { { nvidia-smi -L 2>/dev/null || true; } | grep -c '^GPU' || true; }
# java with the GPU libraries found the way the JavaCPP presets look for them (pathsFirst);
# gpu_exec_java replaces the calling (sub)shell with it.
gpu_java() { (gpu_exec_java "$@"); }
gpu_exec_java() {
  # shellcheck disable=SC2086
  exec env LD_LIBRARY_PATH="$GPU_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$JAVA" -cp "$CLASSPATH_JARS" \
    -Djava.library.path="$GPU_LIBRARY_PATH" -Dorg.bytedeco.javacpp.pathsFirst=true \
    -Dorg.slf4j.simpleLogger.defaultLogLevel="${JAVA_LOG_LEVEL:-info}" ${JAVA_OPTS:-} "$@"
}
