# Sourced by bench/alternate and bench/compare-builds. tree_cache DIR prints a JavaCPP cache
# directory of DIR's own, named by its path: two trees must not share one, or a run in the second
# could load the native library the first one extracted (two trees both called "main" included).
tree_cache() {
  printf '%s\n' "${TMPDIR:-/tmp}/jcpp-$(basename "$1")-$(printf '%s' "$1" | cksum | cut -d' ' -f1)"
}
