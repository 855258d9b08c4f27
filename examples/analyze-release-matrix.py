#!/usr/bin/env python3
"""Tables for BENCHMARKS.md ("NCCL release matrix") from examples/release-matrix.sh's output.

usage: examples/analyze-release-matrix.py DIR [DIR...]     each DIR an unpacked matrix-<release> directory

For every PyTorch run (torch-*, plant-*): rank 0's recorded callbacks are replayed through this inspector
(bin/nccl-inspector replay, verbose, every record kept), each record is joined with its kernel among CUPTI's
(the record's kernel launch time names its launch; launches and CUPTI's kernels are aligned by name), and
judged: right when its time is within launch overhead of the kernel's CUPTI duration (a kernel channel runs
0-6 us shorter than its kernel; plus 10 ppm of the kernel for the drift between the GPU's timer and CUPTI's
clock), wrong otherwise, or untimed (with the reason); a time marked a lower bound (a P2P time ending at the
send side, a collective timed from some of its channels) is right when it is not longer than its kernel.
NVIDIA's Inspector of the
same run is judged the same way (its records name NCCL's sequence number, which names the launch). Every
collective call (CollApi event) must have a record: "calls" counts them and "recorded" our records of them.
For the Java runs (java-*), the benchmark's own per-call verdicts against CUPTI are summed.
"""
import gzip
import json
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHORTER_AT_MOST_NS = 6_000
LONGER_AT_MOST_NS = 1_000
# The GPU's global timer and CUPTI's clock run apart by about 4 ppm (docs/nccl-defects-and-releases.md): over a kernel of 0.7 s
# (a first collective waiting for its peer) that is 3 us, so the window widens by 10 ppm of the kernel.
DRIFT = 10e-6


def lines(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    return  # a run killed mid-line: what came before counts


def rank0_trace(run):
    for t in sorted((run / "trace").glob("trace-pid*.jsonl*")):
        for e in lines(t):
            if e.get("ev") == "init":
                if e.get("rank") == 0:
                    return t
                break
    return None


def launches(trace):
    """Kernel launches in order (wall ns, operations launched), CollApi calls, Coll seq -> launch."""
    walls, ops, coll_launch, last_of_thread = [], [], {}, {}
    calls = Counter()
    for e in lines(trace):
        if e.get("ev") != "start":
            continue
        t = e.get("type")
        if t == "KernelLaunch":
            last_of_thread[e["tid"]] = len(walls)
            walls.append(e["wall"])
            ops.append([])
        elif t == "CollApi" and not e.get("graphCaptured"):
            calls[e["func"]] += 1
        elif t in ("Coll", "P2p") and e["tid"] in last_of_thread:
            i = last_of_thread[e["tid"]]
            ops[i].append(e["func"])
            if t == "Coll":
                coll_launch[(e["func"], e["seq"])] = i
    return walls, ops, calls, coll_launch


def alignments(ops, kernels):
    """The launch shifts (CUPTI's first kernel = launch `shift`) under which every kernel's name agrees
    with the operations its launch started. A run of one operation agrees under several: the warm-up
    before CUPTI began is then told apart by the durations (best_shift)."""
    def agree(name, launched):
        if "SendRecv" in name:
            return any(o in ("Send", "Recv") for o in launched)
        op = name.replace("ncclDevKernel_", "").split("_")[0]
        return bool(launched) and launched[0] == op
    return [shift for shift in range(0, 8)
            if all(i + shift < len(ops) and agree(k["name"], ops[i + shift]) for i, k in enumerate(kernels))]


def best_shift(shifts, recs, walls, kernels):
    """Of the shifts the names allow, the one under which the most GPU times match their kernel."""
    def score(shift):
        n = 0
        for r in recs:
            p = r.get("coll_perf")
            if not p or p["coll_timing_source"] != "kernel_gpu":
                continue
            lu = p.get("event_trace_ts", {}).get("coll_launch_ts", 0)
            i = next((j for j, w in enumerate(walls) if abs(w // 1000 - lu) <= 5), None) if lu else None
            if i is not None and 0 <= i - shift < len(kernels):
                n += verdict(p["coll_exec_time_ns"], kernels[i - shift]["dur_us"] * 1000) == "right"
        return n
    return max(shifts, key=score) if shifts else None


def verdict(exec_ns, kernel_ns):
    d = exec_ns - kernel_ns
    slack = DRIFT * kernel_ns
    return "right" if -SHORTER_AT_MOST_NS - slack <= d <= LONGER_AT_MOST_NS + slack else "wrong"


def replay(trace, out):
    subprocess.run([str(ROOT / "bin/nccl-inspector"), "replay", "--trace", str(trace), "--dump-dir", str(out),
                    "--min-size", "0", "--verbose", "--all-timing", "--hostname", "vm"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    recs = []
    for f in sorted(out.glob("vm-pid*.log")):
        recs += list(lines(f))
    return recs


def torch_run(run):
    trace = rank0_trace(run)
    cupti = run / "cupti-rank0.ndjson"
    if trace is None:
        return None
    walls, ops, calls, coll_launch = launches(trace)
    kernels = list(lines(cupti)) if cupti.exists() else []
    ours = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        recs = replay(trace, Path(tmp))
    shifts = alignments(ops, kernels) if kernels else []
    shift = best_shift(shifts, recs, walls, kernels)
    recorded = Counter()
    lags = Counter()
    for r in recs:
        kind = "coll" if "coll_perf" in r else "p2p"
        p = r[kind + "_perf"]
        if kind == "coll":
            recorded[p["coll"]] += 1
        src = p[kind + "_timing_source"]
        if src == "none":
            why = p.get(kind + "_untimed_reason") or p.get(kind + "_quarantine_reason") or "?"
            ours[(kind, "untimed " + why)] += 1
            continue
        if shift is None:
            ours[(kind, "unchecked")] += 1
            continue
        launch_us = p.get("event_trace_ts", {}).get(kind + "_launch_ts", 0)
        i = next((j for j, w in enumerate(walls) if abs(w // 1000 - launch_us) <= 5), None) if launch_us else None
        if i is None or not 0 <= i - shift < len(kernels):
            ours[(kind, "outside CUPTI")] += 1
            continue
        k_ns = kernels[i - shift]["dur_us"] * 1000
        if src != "kernel_gpu":
            ours[(kind, src)] += 1
        elif kind == "p2p":
            ours[(kind, "right (send side)" if p[kind + "_exec_time_ns"] <= k_ns + LONGER_AT_MOST_NS else "wrong")] += 1
        elif p.get(kind + "_bw_is_upper_bound"):
            # Timed from some of its channels, and marked so: a lower bound, right if not longer.
            ours[(kind, "right (lower bound)" if p[kind + "_exec_time_ns"] <= k_ns + LONGER_AT_MOST_NS else "wrong")] += 1
        else:
            ours[(kind, verdict(p["coll_exec_time_ns"], k_ns))] += 1
    ref = Counter()
    pid = trace.name.split("pid")[1].split(".")[0]
    for f in (run / "reference").glob(f"*-pid{pid}.log"):
        for r in lines(f):
            c = r.get("coll_perf")
            if c is None:
                continue
            if c.get("coll_timing_source") != "kernel_gpu":
                ref["untimed " + c.get("coll_timing_source", "?")] += 1
                continue
            i = coll_launch.get((c["coll"], c["coll_sn"]))
            if i is None or shift is None or not 0 <= i - shift < len(kernels):
                ref["outside CUPTI"] += 1
                continue
            ref[verdict(c["coll_exec_time_us"] * 1000, kernels[i - shift]["dur_us"] * 1000 - 1000)] += 1
        ref["records"] += 0
    ref_calls = sum(v for k, v in ref.items() if k != "records")
    return {"calls": dict(calls), "recorded": dict(recorded), "ours": ours, "reference": ref,
            "reference_collectives": ref_calls, "kernels": len(kernels), "aligned": shift is not None,
            "shifts": shifts, "shift": shift}


def java_run(run):
    totals = Counter()
    for f in run.glob("calls-*-rank0.jsonl"):
        for r in lines(f):
            for who in ("ours", "reference"):
                v = (r.get(who) or {}).get("verdict")
                if v and v != "off":
                    totals[(who, r["operation"], v)] += 1
    return totals


def main():
    for d in map(Path, sys.argv[1:]):
        print(f"## {d.name}")
        summary = d.parent / f"summary-{d.name.split('-', 1)[1]}.txt"
        for run in sorted(p for p in d.iterdir() if p.is_dir()):
            if run.name.startswith(("torch-", "plant-")):
                res = torch_run(run)
                if res is None:
                    print(f"{run.name}: no trace")
                    continue
                acc = all(res["recorded"].get(f, 0) >= n for f, n in res["calls"].items())
                print(f"{run.name}: calls {sum(res['calls'].values())} {res['calls']}, recorded "
                      f"{sum(res['recorded'].values())} ({'every call' if acc else 'CALLS MISSING'}), "
                      f"CUPTI kernels {res['kernels']}, first = launch {res['shift']} (names allow {res['shifts']})")
                print("   ours: " + ", ".join(f"{k[0]} {k[1]} {v}" for k, v in sorted(res["ours"].items())))
                print("   NVIDIA's: " + ", ".join(f"{k} {v}" for k, v in sorted(res["reference"].items()) if v))
            elif run.name.startswith("java-"):
                t = java_run(run)
                if t:
                    print(f"{run.name}: " + ", ".join(f"{w} {o} {v} {n}" for (w, o, v), n in sorted(t.items())))


if __name__ == "__main__":
    main()
