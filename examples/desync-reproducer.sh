#!/usr/bin/env bash
# Reproduces NCCL's kernel-channel counter desync on any 2+ GPUs (see DesyncReproducer): AllReduce over
# sizes cycling 8 KiB .. 64 MiB, one AlltoAll (it holds a send/receive to the own rank), the same AllReduces
# again; each call timed by CUDA events and, where CUPTI loads, by its kernel's duration, next to the
# inspector's time (MODE on) or NVIDIA's reference Inspector's (MODE reference). --mode moe runs the
# MoE-style loop instead (AllReduce, AlltoAll, AllGather, ring Send/Recv; 100 steps).
#
# usage: examples/desync-reproducer.sh RANKS MODE OUT_DIR [DesyncReproducer options...]
#   e.g. examples/desync-reproducer.sh 2 on /tmp/desync
#        examples/desync-reproducer.sh 2 reference /tmp/desync --mode moe
# Rank 0 prints the per-operation table; every rank writes OUT_DIR/calls-<mode>-<MODE>-rank<R>.jsonl.
# CUPTI=0 leaves CUPTI to the inspector (NCCL_INSPECTOR_KERNEL_RECORDS=1: one CUPTI client per
# process); the CUDA events then are the independent clock.
set -euo pipefail
ranks=${1:?usage: desync-reproducer.sh RANKS MODE OUT_DIR [options]}
mode=${2:?mode: on, off or reference}
out=${3:?output directory}
shift 3
# The reference's verbose output carries the start times that match its point-to-point records to calls.
export REFERENCE_VERBOSE=${REFERENCE_VERBOSE:-1}
MAIN_CLASS=io.ncclinspector.examples.nccl.DesyncReproducer exec "$(dirname "${BASH_SOURCE[0]}")/nccl-benchmark.sh" \
  "$ranks" "$mode" "$out" $([[ ${CUPTI:-1} == 1 ]] && echo --cupti) "$@"
