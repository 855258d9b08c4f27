#!/usr/bin/env bash
# Builds one NCCL release from a source tarball for Hopper (sm_90), on the GPU machine, for the release
# matrix (examples/release-matrix.sh). By default only the device functions the validation programs use are
# compiled (float32 sums, the data-movement collectives and send/recv), which cuts the build from about four
# minutes to about one on 16 cores; FULL=1 builds every function.
#
# usage: examples/build-nccl.sh TARBALL DEST        e.g. .gpu/nccl-src/nccl-2.30.7.tar.xz .gpu/nccl-2.30.7
# Prints the path of libnccl.so.2 on its last line. A DEST that already holds a built library is reused.
# Use it with LD_PRELOAD=<path> (PyTorch loads NCCL through its own RPATH) or on LD_LIBRARY_PATH and
# -Djava.library.path (the JavaCPP NCCL presets).
set -euo pipefail
tarball=${1:?usage: build-nccl.sh TARBALL DEST}
dest=${2:?usage: build-nccl.sh TARBALL DEST}
[[ -f $tarball ]] || { echo "build-nccl: no $tarball" >&2; exit 2; }
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
if [[ ! -e $dest/src/build/lib/libnccl.so.2 ]]; then
  rm -rf "$dest/src" && mkdir -p "$dest/src"
  tar -xf "$tarball" -C "$dest/src"
  # The tarballs hold the tree at their top level or in one directory.
  top=$dest/src
  [[ -f $top/Makefile ]] || top=$(dirname "$(find "$dest/src" -maxdepth 2 -name Makefile | head -n 1)")
  [[ $top == "$dest/src" ]] || { mv "$top"/* "$dest/src/"; }
  funcs="Broadcast * *|AllGather * *|AllGatherV * *|SendRecv|AllReduce Sum f32 * *|ReduceScatter Sum f32 * *|Reduce Sum f32 * *"
  [[ ${FULL:-0} == 1 ]] && funcs=""
  make -C "$dest/src" -j"${JOBS:-$(nproc)}" src.build NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" \
    CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" ONLY_FUNCS="$funcs" > "$dest/build.log" 2>&1 \
    || { tail -n 30 "$dest/build.log" >&2; echo "build-nccl: make failed (log: $dest/build.log)" >&2; exit 1; }
fi
readlink -f "$dest/src/build/lib/libnccl.so.2"
