#!/usr/bin/env python3
"""Tables for BENCHMARKS.md from the output of examples/gpu-run.sh (the unpacked gpu/ directory): the
one-GPU runs. The validation on several GPUs has its own: examples/analyze-gpu-validation.py.

usage: examples/analyze-gpu-run.py GPU_DIR

1. Agreement: every timed call of rank 0 joined with this inspector's record(s) of that call (the
   record's step tag is the call number): CUDA-event time minus the inspector's execution time.
   For SendRecv and AlltoAll (which NCCL 2.28 runs as Send/Recv pairs) the longest of the call's
   point-to-point records is used.
2. Overhead: per run (off / on / reference) the median host time of one NCCL call (enqueue) and of
   one call including its completion (wall), over all calls of rank 0, and the run's total time.
"""
import json
import statistics
import sys
from pathlib import Path


def records_by_step(log):
    by = {}
    for line in log.read_text().splitlines():
        if not line.strip():
            continue  # a block of blank lines a killed process can leave (docs/failure-behaviour.md)
        r = json.loads(line)
        perf = r.get("coll_perf") or r.get("p2p_perf")
        step = perf.get("coll_step", perf.get("p2p_step"))
        op = perf.get("coll") or perf.get("p2p")
        ns = perf.get("coll_exec_time_ns", perf.get("p2p_exec_time_ns"))
        by.setdefault(step, []).append((op, ns))
    return by


def samples_of(run_dir, mode, res):
    """The timed calls of rank 0: the results file's "samples" (older benchmark), else its calls-*.jsonl."""
    if "samples" in res:
        return res["samples"]
    out = []
    for f in sorted(run_dir.glob(f"calls-*-{mode}-rank0.jsonl")):
        for line in f.read_text().splitlines():
            r = json.loads(line)
            out.append({"call": r["call"], "operation": r["operation"], "sizeBytes": r["bytes"],
                        "cudaEventNanos": r["cudaEventMicros"] * 1e3, "enqueueNanos": r["enqueueMicros"] * 1e3,
                        "wallNanos": r["wallMicros"] * 1e3})
    return out


def agreement(run_dir):
    res = json.loads((run_dir / "results-on-rank0.json").read_text())
    res["samples"] = samples_of(run_dir, "on", res)
    logs = sorted((run_dir / "inspector").glob("*.log"))
    pid = None
    for log in logs:  # rank 0's log: the one whose records match rank 0's step numbers and header rank
        first = json.loads(log.read_text().splitlines()[0])
        if first["header"]["rank"] == 0:
            pid = log
    by = records_by_step(pid)
    rows = {}
    for s in res["samples"]:
        recs = by.get(s["call"], [])
        if s["operation"] in ("SendRecv", "AlltoAll") and not any(op == s["operation"] for op, _ in recs):
            execs = [ns for op, ns in recs if op in ("Send", "Recv")]
        else:
            execs = [ns for op, ns in recs if op == s["operation"]]
        key = (s["operation"], s["sizeBytes"])
        row = rows.setdefault(key, {"n": 0, "matched": 0, "diff": [], "event": [], "exec": []})
        row["n"] += 1
        if execs:
            row["matched"] += 1
            e = max(execs)
            row["diff"].append((s["cudaEventNanos"] - e) / 1e3)
            row["event"].append(s["cudaEventNanos"] / 1e3)
            row["exec"].append(e / 1e3)
    return res["ranks"], rows


def overhead(gpu, run):
    out = {}
    for mode in ("off", "on", "reference"):
        f = gpu / run / f"results-{mode}-rank0.json"
        if not f.exists():
            continue
        res = json.loads(f.read_text())
        res["samples"] = samples_of(gpu / run, mode, res)
        enq = [s["enqueueNanos"] / 1e3 for s in res["samples"]]
        wall = [s["wallNanos"] / 1e3 for s in res["samples"]]
        small = [s["wallNanos"] / 1e3 for s in res["samples"] if s["operation"] == "Broadcast" and s["sizeBytes"] <= 131072]
        out[mode] = (statistics.median(enq), statistics.median(wall), statistics.median(small), res["runMillis"])
    return out


def main():
    gpu = Path(sys.argv[1])
    for run in sorted(p.name for p in gpu.iterdir() if p.is_dir() and p.name.startswith("run-") and p.name != "run-trace"):
        ranks, rows = agreement(gpu / run)
        print(f"\n## {run}: {ranks} ranks, agreement with CUDA events (rank 0)")
        print("| operation | bytes | calls with a record | median CUDA event µs | median inspector µs | median (event − inspector) µs | min / max of it |")
        print("|---|---|---|---|---|---|---|")
        for (op, size), r in rows.items():
            if r["diff"]:
                print(f"| {op} | {size} | {r['matched']}/{r['n']} | {statistics.median(r['event']):.1f} | "
                      f"{statistics.median(r['exec']):.1f} | {statistics.median(r['diff']):.1f} | "
                      f"{min(r['diff']):.1f} / {max(r['diff']):.1f} |")
            else:
                print(f"| {op} | {size} | 0/{r['n']} | | | | |")
    print("\n## overhead (rank 0, all 1050 calls of a run)")
    print("| run | mode | median enqueue µs | median call+completion µs | median small Broadcast µs | run time ms |")
    print("|---|---|---|---|---|---|")
    for run in sorted(p.name for p in gpu.iterdir() if p.is_dir() and p.name.startswith("run-") and p.name != "run-trace"):
        for mode, (e, w, sm, ms) in overhead(gpu, run).items():
            print(f"| {run} | {mode} | {e:.1f} | {w:.1f} | {sm:.1f} | {ms} |")


if __name__ == "__main__":
    main()
