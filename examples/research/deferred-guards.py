#!/usr/bin/env python3
"""Sets each live run of examples/research/deferred-guards.sh beside an offline replay of its own
recorded trace: do the live inspector (deferred or synchronous) and a replay of the same callbacks,
in the order they were recorded, one thread, judge each record alike?

usage: examples/research/deferred-guards.py RESULTS_DIR   (deferred-guards.tgz unpacked)
Needs the built CLI (bin/nccl-inspector). Prints, per run and process: records live and replayed,
how many a side timed, withheld or quarantined, and every record the two judged differently.
"""
import collections
import glob
import gzip
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def records(paths):
    out = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                o = json.loads(line)
                body = o.get("coll_perf") or o.get("p2p_perf")
                if body is None:
                    continue
                kind = "coll" if "coll_perf" in o else "p2p"
                g = lambda k: body.get(kind + "_" + k)
                key = (o["header"]["id"], kind, body.get(kind), g("sn"), g("peer"))
                out[key] = {
                    "recovery": g("time_recovery"),
                    "source": g("timing_source"),
                    "ns": g("exec_time_ns"),
                    "why": g("withheld_reason") or g("quarantine_reason") or "",
                    "quarantined": p.endswith(".quarantine.log"),
                }
    return out


def verdict(r):
    if r is None:
        return "absent"
    if r["quarantined"]:
        return "quarantined"
    if r["recovery"] == "withheld" or r["source"] in (None, "none"):
        return "withheld"
    return "timed"


def main(results):
    runs = sorted(d for d in os.listdir(results) if re.match(r"r\d+-(nb|b)-d[01]$", d))
    totals = collections.defaultdict(collections.Counter)
    for run in runs:
        traces = sorted(glob.glob(os.path.join(results, "traces", run, "trace-pid*.jsonl*")))
        replay_dir = os.path.join(results, "replay", run)
        if traces and not os.path.isdir(replay_dir):
            cmd = [os.path.join(ROOT, "bin", "nccl-inspector"), "replay", "--dump-dir", replay_dir, "--min-size", "0"]
            for t in traces:
                cmd += ["--trace", t]
            subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
        for t in traces:
            pid = re.search(r"pid(\d+)", os.path.basename(t)).group(1)
            live = records(glob.glob(os.path.join(results, run, "inspector", "*-pid%s.*log" % pid)))
            rep = records(glob.glob(os.path.join(replay_dir, "replay-pid%s.*log" % pid)))
            c = collections.Counter()
            diffs = []
            for k in sorted(set(live) | set(rep), key=str):
                a, b = live.get(k), rep.get(k)
                va, vb = verdict(a), verdict(b)
                c["live " + va] += 1
                c["replay " + vb] += 1
                if va != vb or (va == "timed" and a["ns"] != b["ns"]):
                    c["differ"] += 1
                    diffs.append((k, va, a and a["why"], a and a["ns"], vb, b and b["why"], b and b["ns"]))
            mode = run.rsplit("-", 1)[1]
            totals[run.split("-", 1)[1]].update(c)
            print("%s pid %s: %s" % (run, pid, ", ".join("%s %d" % kv for kv in sorted(c.items()))))
            for d in diffs[:8]:
                print("    %s: live %s %s %s / replay %s %s %s" % d)
            if len(diffs) > 8:
                print("    ... %d more" % (len(diffs) - 8))
    print("\nby communicator kind and mode, all runs and processes:")
    for k in sorted(totals):
        print("  %s: %s" % (k, ", ".join("%s %d" % kv for kv in sorted(totals[k].items()))))


if __name__ == "__main__":
    main(sys.argv[1])
