#!/usr/bin/env bash
# Builds .gpu/ for the device tool to carry to a GPU machine that has no Java: a Java 17 runtime made by
# jlink (.gpu/jre), the runtime jars of the examples module without DJL, PyTorch, DuckDB, Spark and JMH
# (.gpu/lib), and NVIDIA's reference Inspector plugin (.gpu/ref, built by examples/build-reference-plugin.sh
# when it is not there yet). Checks that the packed runtime starts the programs (dry runs, the inspector
# enabled and closed on this CPU) and that .gpu plus the working tree stay under LIMIT_MIB (60 MiB of the
# 64 MiB a device call may carry).
#
# usage (from any directory of the checkout that will run, e.g. /work/main):
#   examples/pack-gpu.sh            build what is missing (the JRE is reused), rebuild the jars
#   examples/pack-gpu.sh --fresh    also rebuild the JRE and the reference plugin
# then: device run, carry [".gpu"], command "examples/gpu-validation.sh $OUT/gpu 1" (or 2); where .gpu and
# the working tree exceed the limit, .gpu goes compressed into .gpu-pack (carry that; the script says how)
# environment: MVN_ARGS (default "-o -q -B"), LIMIT_MIB (60), NCCL_GIT / NCCL_TAG (build-reference-plugin.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fresh=0
[[ ${1:-} == --fresh ]] && fresh=1
limit=${LIMIT_MIB:-60}
# .gpu/ is in .gitignore; keep it out of git in checkouts whose .gitignore lacks it.
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
git check-ignore -q .gpu/ 2>/dev/null || echo '/.gpu/' >> "$exclude"
mkdir -p .gpu
((fresh)) && rm -rf .gpu/jre .gpu/ref

if [[ ! -x .gpu/jre/bin/java ]]; then
  echo "jlink: a trimmed Java $(java -version 2>&1 | head -n 1 | cut -d'"' -f2) runtime"
  jlink --add-modules java.base,java.logging,java.management,jdk.unsupported,jdk.jfr,java.naming,java.xml,java.sql \
    --strip-debug --no-header-files --no-man-pages --compress=2 --output .gpu/jre
fi

echo "mvn package (tests skipped)"
# shellcheck disable=SC2086
mvn ${MVN_ARGS:--o -q -B} -DskipTests package
jar=$(ls examples/target/examples-*.jar | grep -v -- '-sources\|-tests' | head -n 1)
rm -rf .gpu/lib
mkdir -p .gpu/lib
skipped=()
for f in examples/target/lib/*.jar; do
  b=$(basename "$f")
  case "$b" in
    # DJL and its PyTorch engine (the DJL example), their helpers, JMH, and anything of DuckDB/Spark or
    # CUDA's redistributable libraries (the GPU machine has CUDA and NCCL).
    api-[0-9]*|pytorch-*|inspector-djl-integration-*|jna-*|gson-*|commons-compress-*|commons-io-*|commons-codec-*| \
      jmh-*|jopt-simple-*|commons-math3-*|duckdb*|spark*|cuda-redist*|*-sources.jar|*-javadoc.jar)
      skipped+=("$b") ;;
    *) cp "$f" .gpu/lib/ ;;
  esac
done
cp "$jar" .gpu/lib/
echo "left out: ${skipped[*]}"

if [[ ! -f .gpu/ref/libnccl-profiler-inspector.so ]]; then
  if ! examples/build-reference-plugin.sh "$root/.gpu/ref"; then
    echo "WARNING: no reference plugin in .gpu/ref: the reference runs of gpu-validation.sh will fail" >&2
  fi
fi

echo "check: the packed runtime runs the programs' dry runs and enables the inspector on this CPU"
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
run_check() { .gpu/jre/bin/java -cp '.gpu/lib/*' -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "$@"; }
common=(--rank 0 --ranks 2 --id-file "$check/id" --out "$check" --dry-run)
run_check io.ncclinspector.examples.nccl.DesyncReproducer "${common[@]}" --cupti >/dev/null
run_check io.ncclinspector.examples.nccl.NcclBenchmark "${common[@]}" --batch 20 >/dev/null
run_check io.ncclinspector.examples.nccl.NcclLongRun "${common[@]}" --mode detector >/dev/null
run_check io.ncclinspector.examples.nccl.GpuPreflight --no-gpu --out "$check"

du -sh .gpu/jre .gpu/lib .gpu/ref 2>/dev/null || true
gpu_mib=$(du -sm .gpu | cut -f1)
tree_mib=$(( $(git ls-files -z --cached --others --exclude-standard | du -c -b --files0-from=- 2>/dev/null | tail -n 1 | cut -f1) / 1048576 ))
total=$((gpu_mib + tree_mib))
echo ".gpu is ${gpu_mib} MiB, the working tree ${tree_mib} MiB: ${total} MiB travel (limit ${limit} MiB of 64)"
if ((total > limit)); then
  # Too large as it is: .gpu travels compressed in .gpu-pack (with NCCL sources to build, if at hand).
  git check-ignore -q .gpu-pack/ 2>/dev/null || echo '/.gpu-pack/' >> "$exclude"
  rm -rf .gpu-pack && mkdir -p .gpu-pack
  echo "compressing .gpu into .gpu-pack/gpu.tar.xz"
  parts=(jre lib)
  [[ -d .gpu/ref ]] && parts+=(ref)
  (cd .gpu && tar -cf - "${parts[@]}" | xz -6 -T0 > ../.gpu-pack/gpu.tar.xz)
  # NCCL sources for part 4's second release (gpu-validation.sh ALT_NCCL: 2.30.7 by default, 2.29.7).
  for nccl_src in ${NCCL_SRC:-$root/../shared/nccl/nccl-2.30.7.tar.xz $root/../shared/nccl/nccl-2.29.7.tar.xz}; do
    if [[ -f $nccl_src ]]; then mkdir -p .gpu-pack/nccl-src && cp "$nccl_src" .gpu-pack/nccl-src/; fi
  done
  pack_mib=$(du -sm .gpu-pack | cut -f1)
  total=$((pack_mib + tree_mib))
  echo ".gpu-pack is ${pack_mib} MiB: ${total} MiB travel. Carry [\".gpu-pack\"] and begin the command with"
  echo "  mkdir -p .gpu && tar -xJf .gpu-pack/gpu.tar.xz -C .gpu && { cp -r .gpu-pack/nccl-src .gpu/ 2>/dev/null; true; } &&"
  if ((total > limit)); then
    echo "too large for the trip, even compressed" >&2
    exit 1
  fi
fi
