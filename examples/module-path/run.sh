#!/usr/bin/env bash
# Compiles and runs ModularReplay on the module path, with the jars that `mvn package` copied to
# examples/target/lib: the inspector's modules, their dependencies, nothing else.
#   examples/module-path/run.sh [TRACE] [OUT_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
lib=examples/target/lib
[[ -d $lib ]] || { echo "not built yet; run: mvn -B -q package -DskipTests" >&2; exit 2; }
modules=$(ls $lib/*.jar | grep -E '/(inspector-(format|api|native|testkit|prometheus|jfr)|javacpp|jackson-(core|databind|annotations|datatype-jsr310)|slf4j-(api|simple)|HdrHistogram|prometheus-metrics-[a-z-]+)-[0-9][^/]*\.jar$' \
  | grep -v -- '-tests\.jar$' | tr '\n' ':')
build=examples/target/module-path
rm -rf "$build" && mkdir -p "$build"
javac -d "$build" --module-path "$modules" $(find examples/module-path/src -name '*.java')
exec java --module-path "$build:$modules" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -m io.ncclinspector.examples.modular/io.ncclinspector.examples.modular.ModularReplay "$@"
