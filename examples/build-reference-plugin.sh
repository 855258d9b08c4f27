#!/usr/bin/env bash
# Builds NVIDIA's reference NCCL Inspector profiler plugin (libnccl-profiler-inspector.so) from the
# NCCL sources, for the same-run comparisons of the GPU validation (mode "reference" of
# examples/nccl-benchmark.sh). Nothing of NVIDIA's is committed: the sources are exported from a git
# clone or mirror of github.com/NVIDIA/nccl into a temporary directory, built there with their own
# Makefile, and only the shared object is copied to DEST (git-ignored: .gpu/ is excluded).
#
# usage: examples/build-reference-plugin.sh [DEST_DIR]
#   DEST_DIR      default: <repository root>/.gpu/ref
# environment:
#   NCCL_GIT      a clone or bare mirror of NVIDIA/nccl (default /work/.mirror/NVIDIA+nccl/repo)
#   NCCL_SRC_TARBALL  instead of NCCL_GIT: a source tarball of NCCL (.tar.xz/.tar.gz, as ../shared/nccl/ has)
#   NCCL_TAG      the tag to build (default v2.30.7-1, the plugin sources the recorded traces used;
#                 before 2.29 the plugin lived in ext-profiler/inspector, which is found too)
#   CUDA_HOME     CUDA toolkit with cuda.h and libcudart (default /usr/local/cuda)
# The plugin links libcudart.so.13 (CUDA 13): the GPU machine has it in /usr/local/cuda/lib64,
# which examples/nccl-benchmark.sh puts on LD_LIBRARY_PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest=${1:-$root/.gpu/ref}
git_dir=${NCCL_GIT:-/work/.mirror/NVIDIA+nccl/repo}
tag=${NCCL_TAG:-v2.30.7-1}
cuda=${CUDA_HOME:-/usr/local/cuda}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -n ${NCCL_SRC_TARBALL:-} ]]; then
  [[ -f $NCCL_SRC_TARBALL ]] || { echo "build-reference-plugin: no $NCCL_SRC_TARBALL" >&2; exit 2; }
  tar -xf "$NCCL_SRC_TARBALL" -C "$work" --wildcards '*plugins/profiler/inspector/*' '*ext-profiler/inspector/*' 2>/dev/null || true
  src_dir=$(find "$work" -type d \( -path '*plugins/profiler/inspector' -o -path '*ext-profiler/inspector' \) | head -n 1)
  [[ -n $src_dir && -f $src_dir/Makefile ]] || { echo "build-reference-plugin: no inspector plugin in $NCCL_SRC_TARBALL" >&2; exit 2; }
  tag=$(basename "$NCCL_SRC_TARBALL")
elif ! git --git-dir="$git_dir" rev-parse -q --verify "$tag^{commit}" >/dev/null; then
  echo "build-reference-plugin: tag $tag not found in $git_dir" >&2
  exit 2
fi
[[ -f $cuda/include/cuda.h ]] || { echo "build-reference-plugin: no $cuda/include/cuda.h (set CUDA_HOME)" >&2; exit 2; }
if [[ -z ${NCCL_SRC_TARBALL:-} ]]; then
  src_path=
  for p in plugins/profiler/inspector ext-profiler/inspector; do
    if git --git-dir="$git_dir" cat-file -e "$tag:$p/Makefile" 2>/dev/null; then src_path=$p; break; fi
  done
  if [[ -z $src_path ]]; then
    echo "build-reference-plugin: $tag has no inspector plugin (looked in plugins/profiler/inspector, ext-profiler/inspector)" >&2
    exit 2
  fi
  # The whole tree at the tag is not needed; the plugin directory is self-contained (its own nccl/ headers).
  git --git-dir="$git_dir" archive --format=tar "$tag" "$src_path" | tar -x -C "$work"
  src_dir=$work/$src_path
  echo "building $src_path of NCCL $tag ($(git --git-dir="$git_dir" rev-parse --short "$tag^{commit}")) with CUDA at $cuda"
else
  echo "building $src_dir from $tag with CUDA at $cuda"
fi
# The Makefile stamps `git describe` into version.cc; outside a git work tree it says "unknown".
(cd "$src_dir" && GIT_DIR=/nonexistent make -s CUDA_HOME="$cuda" -j"$(nproc)" >"$work/build.log" 2>&1) || {
  tail -n 40 "$work/build.log" >&2
  echo "build-reference-plugin: make failed" >&2
  exit 1
}
so="$src_dir/libnccl-profiler-inspector.so"
if ! nm -D --defined-only "$so" | grep -qw ncclProfiler_v5; then
  echo "build-reference-plugin: $so does not export ncclProfiler_v5 (NCCL 2.28.9 needs v5)" >&2
  exit 1
fi
mkdir -p "$dest"
cp "$so" "$dest/libnccl-profiler-inspector.so"
if [[ -n ${NCCL_SRC_TARBALL:-} ]]; then
  printf 'NCCL %s, %s, built %s\n' "$tag" "${src_dir#"$work"/}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$dest/SOURCE.txt"
else
  printf 'NCCL %s (%s), %s, built %s\n' "$tag" "$(git --git-dir="$git_dir" rev-parse "$tag^{commit}")" "$src_path" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > "$dest/SOURCE.txt"
fi
echo "exports: $(nm -D --defined-only "$dest/libnccl-profiler-inspector.so" | awk '/ncclProfiler_v[0-9]/ {print $3}' | tr '\n' ' ')"
echo "needs:   $(readelf -d "$dest/libnccl-profiler-inspector.so" | awk '/NEEDED/ {print $5}' | tr -d '[]' | tr '\n' ' ')"
ls -la "$dest/libnccl-profiler-inspector.so"
