#!/usr/bin/env python3
"""Turns the raw recordings of a GPU validation run (examples/gpu-validation.sh) into test fixtures.

usage: examples/make-gpu-fixtures.py TRACES_DIR WORK_DIR OUT_DIR RUN[:CALLS_RUN] [...]

For each RUN (whose per-call file is named after CALLS_RUN, by default RUN) it copies TRACES_DIR/RUN/trace-pid*.jsonl.gz to OUT_DIR/x2_RUN/trace/, and writes
OUT_DIR/x2_RUN/live-rank0.ndjson from WORK_DIR/**/calls-RUN-on-rank0.jsonl: one line per record the
inspector delivered live on rank 0, with the CUPTI duration of its call's kernel (the independent
clock) where there was one:
  {"operation", "sequence", "step", "kernel_us" (null without CUPTI), "exec_ns", "timing", "quarantine",
   "desynced", "flags"}
A replay of rank 0's trace must reproduce these records (RecordedGpuRunsTest).
"""
import glob
import gzip
import json
import os
import shutil
import sys


def rank_of(trace):
    with gzip.open(trace, "rt") as f:
        for line in f:
            e = json.loads(line)
            if e.get("ev") == "init":
                return e["rank"]
    return None


def main():
    traces, work, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    for spec in runs:
        run, _, calls_run = spec.partition(":")
        calls_run = calls_run or run
        dest = os.path.join(out, "x2_" + run)
        os.makedirs(os.path.join(dest, "trace"), exist_ok=True)
        rank0 = None
        for t in sorted(glob.glob(os.path.join(traces, run, "trace-pid*.jsonl.gz"))):
            shutil.copy(t, os.path.join(dest, "trace", os.path.basename(t)))
            if rank_of(t) == 0:
                rank0 = os.path.basename(t)
        calls = glob.glob(os.path.join(work, "**", "calls-%s-on-rank0.jsonl" % calls_run), recursive=True)
        n = 0
        if calls:
            with open(calls[0]) as src, open(os.path.join(dest, "live-rank0.ndjson"), "w") as dst:
                for line in src:
                    c = json.loads(line)
                    kernel = c.get("cuptiMicros") if c.get("truth") == "cupti" and c.get("cuptiKernels") == 1 else None
                    for r in c["ours"]["records"]:
                        dst.write(json.dumps({
                            "operation": r["operation"], "sequence": r["sequence"], "step": c["call"],
                            "kernel_us": kernel, "exec_ns": r["executionNanos"],
                            "timing": r["timingSource"], "quarantine": r["quarantine"],
                            "desynced": r["desyncedChannels"], "flags": r["flags"]}, sort_keys=True) + "\n")
                        n += 1
        print("%s: rank 0 is %s, %d live records" % (dest, rank0, n))


if __name__ == "__main__":
    main()
