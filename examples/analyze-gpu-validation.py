#!/usr/bin/env python3
"""Markdown tables for BENCHMARKS.md from the output of examples/gpu-validation.sh (standard library only).

usage: examples/analyze-gpu-validation.py WORK_DIR [--all-ranks]
       examples/analyze-gpu-validation.py --self-test

WORK_DIR is the part's work directory (unpacked from partN-results.tgz); parts 1 and 2 may be unpacked
side by side and passed one after the other. It reads what the Java programs wrote:
  calls-*.jsonl                      one line per timed call (CallReport.CallRow): the trust tables
  */round-*/results-<mode>-rank0.json  the sweep rounds (NcclBenchmark, run "sweep"): the overhead tables
  longrun-stress-*-rank0.json        the million-collective runs and the latency run
  longrun-graph-*-rank0.json         the CUDA-graph runs
  longrun-detector-*-rank0.json      the detector recording (planted waits)
  steps.tsv                          each step's exit status and duration
Only rank 0's files are used unless --all-ranks is given (trust tables then count every rank's calls).
Figures a profiler withheld (no time, or quarantined) are counted, never averaged in as zero.
"""
import glob
import json
import os
import re
import statistics
import sys
import tempfile

COLLECTIVES = ("AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce")
# The runs whose calls are compared one by one (the sweep and the detector recording have tables of their own).
TRUST_RUNS = ("reproducer", "moe", "trust", "lag70")


def op_class(op):
    if op in COLLECTIVES:
        return "collective"
    if op == "AlltoAll":
        return "AlltoAll"
    return "Send/Recv"


def size_label(b):
    units = ["B", "KiB", "MiB", "GiB"]
    v = float(b)
    u = 0
    while v >= 1024 and u < len(units) - 1:
        v /= 1024
        u += 1
    return f"{int(v)} {units[u]}" if v == int(v) else f"{v:.1f} {units[u]}"


def med(values):
    v = [x for x in values if x is not None]
    return statistics.median(v) if v else None


def fmt(v, digits=1):
    return "–" if v is None else f"{v:,.{digits}f}"


def read_jsonl(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def read_json(path):
    with open(path) as f:
        return json.load(f)


def rank_of(path):
    base = os.path.basename(path)
    i = base.rfind("-rank")
    try:
        return int(base[i + 5:].split(".")[0])
    except ValueError:
        return -1


# --------------------------------------------------------------------------------------- trust

def load_calls(dirs, all_ranks):
    """{run: {mode: [rows]}} from every calls-*.jsonl under the directories."""
    runs = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "**", "calls-*.jsonl"), recursive=True)):
            if not all_ranks and rank_of(path) != 0:
                continue
            for r in read_jsonl(path):
                if r["run"] in TRUST_RUNS:
                    runs.setdefault(r["run"], {}).setdefault(r["mode"], []).append(r)
    return runs


def verdict_counts(rows, who):
    c = {"ok": 0, "bound": 0, "wrong": 0, "withheld": 0, "cpu": 0, "missing": 0}
    for r in rows:
        v = r[who]["verdict"]
        if v == "off":
            continue
        c[v if v in c else "missing"] += 1
    return c


def figure(r, who):
    j = r[who]
    return j["micros"] if j["verdict"] in ("ok", "bound", "wrong") else None


def trust_tables(runs, out):
    if not runs:
        return
    out.append("## Trust: each call against CUDA events and CUPTI\n")
    out.append("Every timed call ran alone (ranks met at a barrier first). *CUPTI* is the kernel's own GPU "
               "duration, the reference clock; *ok* means within the tolerance stated in CallReport "
               "(a collective's time between CUPTI − (6 µs + 5 %) and CUPTI + 1 µs; a point-to-point time no "
               "longer than its kernel, since NCCL stops those channels at the send side). *bound*: a collective's "
               "time its record marks a lower bound (`DESYNC_CHANNELS_EXCLUDED`: from its in-step channels only), "
               "below that window but not above it. *withheld*: the "
               "profiler gave no time or quarantined the record; *missing*: no record (the reference drops "
               "records without kernel timing). Medians are over the figures each profiler reported.\n")
    for run in sorted(runs):
        modes = runs[run]
        ours_rows = modes.get("on", [])
        ref_rows = modes.get("reference", [])
        base_rows = ours_rows or ref_rows or modes.get("off", [])
        if not base_rows:
            continue
        out.append(f"### {run}\n")
        out.append("| phase | operation | size | calls | CUDA event µs | CUPTI µs | ours µs | ours ok / bound / wrong / "
                   "withheld / cpu / missing | CUPTI µs (ref. run) | reference µs | reference ok / wrong / cpu / missing |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        keys = []
        for r in base_rows + ref_rows:
            k = (r["phase"], r["operation"], r["bytes"])
            if k not in keys:
                keys.append(k)
        for k in keys:
            g = [r for r in ours_rows if (r["phase"], r["operation"], r["bytes"]) == k]
            h = [r for r in ref_rows if (r["phase"], r["operation"], r["bytes"]) == k]
            src = g or h
            oc = verdict_counts(g, "ours")
            rc = verdict_counts(h, "reference")
            out.append(f"| {k[0]} | {k[1]} | {size_label(k[2])} | {len(src)} | "
                       f"{fmt(med(r['cudaEventMicros'] for r in src))} | {fmt(med(r.get('cuptiMicros') for r in g))} | "
                       f"{fmt(med(figure(r, 'ours') for r in g))} | "
                       + (f"{oc['ok']} / {oc['bound']} / {oc['wrong']} / {oc['withheld']} / {oc['cpu']} / {oc['missing']}"
                          if g else "–")
                       + f" | {fmt(med(r.get('cuptiMicros') for r in h))} | {fmt(med(figure(r, 'reference') for r in h))} | "
                       + (f"{rc['ok']} / {rc['wrong']} / {rc['cpu']} / {rc['missing']}" if h else "–") + " |")
        out.append("")
    out.append("### Totals by operation class, before and after the first AlltoAll\n")
    out.append("| run | phase | class | calls | ours ok | ours bound | ours wrong | ours withheld | largest gap to CUPTI µs "
               "(ok, collectives) | reference ok | reference wrong | reference no GPU time / missing |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for run in sorted(runs):
        modes = runs[run]
        ours_rows = modes.get("on", [])
        ref_rows = modes.get("reference", [])
        groups = {}
        for who, rows in (("ours", ours_rows), ("reference", ref_rows)):
            for r in rows:
                groups.setdefault((r["phase"], op_class(r["operation"])), {"ours": [], "reference": []})[who].append(r)
        for (phase, cls) in sorted(groups, key=lambda k: (k[1], k[0] != "before")):
            g = groups[(phase, cls)]
            oc = verdict_counts(g["ours"], "ours")
            rc = verdict_counts(g["reference"], "reference")
            errs = [abs(r["cuptiMicros"] - r["ours"]["micros"]) for r in g["ours"] if cls == "collective"
                    and r["ours"]["verdict"] == "ok" and r.get("cuptiMicros") is not None]
            n = max(len(g["ours"]), len(g["reference"]))
            out.append(f"| {run} | {phase} | {cls} | {n} | {oc['ok'] if g['ours'] else '–'} | "
                       f"{oc['bound'] if g['ours'] else '–'} | "
                       f"{oc['wrong'] if g['ours'] else '–'} | {oc['withheld'] if g['ours'] else '–'} | "
                       f"{fmt(max(errs) if errs else None)} | {rc['ok'] if g['reference'] else '–'} | "
                       f"{rc['wrong'] if g['reference'] else '–'} | "
                       f"{(rc['cpu'] + rc['missing']) if g['reference'] else '–'} |")
    out.append("")
    worst = []
    for run, modes in runs.items():
        for mode, who in (("on", "ours"), ("reference", "reference")):
            for r in modes.get(mode, []):
                if r[who]["verdict"] == "wrong" and r.get("cuptiMicros") is not None:
                    worst.append((abs(r["cuptiMicros"] - r[who]["micros"]), run, who, r))
    if worst:
        worst.sort(key=lambda x: -x[0])
        out.append("### The largest wrong figures\n")
        out.append("| run | profiler | call | phase | operation | size | CUPTI µs | CUDA event µs | reported µs | detail |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        for _, run, who, r in worst[:12]:
            out.append(f"| {run} | {who} | {r['call']} | {r['phase']} | {r['operation']} | {size_label(r['bytes'])} | "
                       f"{fmt(r['cuptiMicros'])} | {fmt(r['cudaEventMicros'])} | {fmt(r[who]['micros'])} | "
                       f"{r[who].get('detail') or ''} |")
        out.append("")
    details = {}
    for run, modes in runs.items():
        for r in modes.get("on", []):
            d = r["ours"].get("detail")
            if d and r["ours"]["verdict"] in ("withheld", "ok", "bound", "wrong", "cpu"):
                details[(run, r["ours"]["verdict"], d)] = details.get((run, r["ours"]["verdict"], d), 0) + 1
    if details:
        out.append("### What the inspector said about the records it withheld or flagged\n")
        out.append("| run | verdict | quarantine / timing source / flags | calls |")
        out.append("|---|---|---|---|")
        for (run, v, d), n in sorted(details.items()):
            out.append(f"| {run} | {v} | {d} | {n} |")
        out.append("")


# ------------------------------------------------------------------------------------- overhead

def load_sweeps(dirs):
    """{round: {mode: result}} for NcclBenchmark results of run 'sweep', rank 0."""
    rounds = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "**", "results-*-rank0.json"), recursive=True)):
            res = read_json(path)
            if res.get("program") != "NcclBenchmark" or res.get("run") != "sweep":
                continue
            rnd = os.path.basename(os.path.dirname(path))
            rounds.setdefault(rnd, {})[res["mode"]] = res
    return rounds


def spread(values):
    v = [x for x in values if x is not None]
    if not v:
        return "–"
    if len(v) == 1:
        return f"{v[0]:+.2f}"
    return f"{statistics.mean(v):+.2f} ({min(v):+.2f} … {max(v):+.2f})"


def overhead_tables(rounds, out):
    if not rounds:
        return
    names = sorted(rounds)
    out.append("## Overhead at real bandwidth (sweep, rank 0)\n")
    out.append(f"Rounds: {', '.join(names)}; in each, the three modes ran one after another in rotated order. "
               "*busbw* is nccl-tests' bus bandwidth of 20 back-to-back calls between one CUDA-event pair; "
               "*call µs* the median CUDA-event time of 10 calls, each alone after a rank barrier. Differences "
               "are per round (mode − off), then their mean and range over the rounds.\n")
    rows = {}
    for rnd in names:
        for mode, res in rounds[rnd].items():
            for row in res.get("rows", []):
                key = (row["pass"], row["operation"], row["sizeBytes"])
                rows.setdefault(key, {}).setdefault(rnd, {})[mode] = row
    out.append("| operation | size | busbw off GB/s | on − off % | reference − off % | call µs off | on − off µs "
               "| reference − off µs | on − reference µs |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    worse_than_ref = []
    over_half_percent = []
    for key in sorted(rows, key=lambda k: (k[0], k[2])):
        per = rows[key]
        off_bw, d_on, d_ref, off_us, u_on, u_ref, u_onref = [], [], [], [], [], [], []
        for rnd, m in per.items():
            o, n, r = m.get("off"), m.get("on"), m.get("reference")
            if o:
                off_bw.append(o.get("busBandwidthBatchGbs"))
                off_us.append(o["cudaEventMicros"])
            for other, dbw, dus in ((n, d_on, u_on), (r, d_ref, u_ref)):
                if o and other:
                    a, b = o.get("busBandwidthBatchGbs"), other.get("busBandwidthBatchGbs")
                    if a and b:
                        dbw.append(100.0 * (b - a) / a)
                    dus.append(other["cudaEventMicros"] - o["cudaEventMicros"])
            if n and r:
                u_onref.append(n["cudaEventMicros"] - r["cudaEventMicros"])
        if u_onref and statistics.mean(u_onref) > 0 and min(u_onref) > 0:
            worse_than_ref.append((key, statistics.mean(u_onref)))
        if key[2] >= (1 << 20) and d_on and statistics.mean(d_on) < -0.5:
            over_half_percent.append((key, statistics.mean(d_on)))
        out.append(f"| {key[1]} | {size_label(key[2])} | {fmt(med(off_bw), 2)} | {spread(d_on)} | {spread(d_ref)} | "
                   f"{fmt(med(off_us))} | {spread(u_on)} | {spread(u_ref)} | {spread(u_onref)} |")
    out.append("")
    out.append(f"Sizes where this inspector's call took longer than the reference's in every round: "
               f"{len(worse_than_ref)}" + (": " + ", ".join(f"{k[1]} {size_label(k[2])} (+{v:.2f} µs)"
                                                             for k, v in worse_than_ref) if worse_than_ref else "") + ".")
    out.append(f"Sizes of 1 MiB and more where busbw with this inspector is more than 0.5 % below off (mean): "
               f"{len(over_half_percent)}" + (": " + ", ".join(f"{k[1]} {size_label(k[2])} ({v:+.2f} %)"
                                                               for k, v in over_half_percent) if over_half_percent else "")
               + ".\n")
    out.append("### This inspector's bus bandwidth against the example's own CUDA-event figure (round 1, mode on)\n")
    first = rounds[names[0]].get("on")
    if first:
        out.append("| operation | size | busbw by CUDA events (one call) | busbw by the inspector (median) | "
                   "inspector / events | busbw back-to-back | records withheld |")
        out.append("|---|---|---|---|---|---|---|")
        for row in first.get("rows", []):
            ev = row.get("busBandwidthEventGbs")
            ins = row.get("inspectorBusBandwidthGbs")
            ratio = ins / ev if ins and ev else None
            out.append(f"| {row['operation']} | {size_label(row['sizeBytes'])} | {fmt(ev, 3)} | {fmt(ins, 3)} | "
                       f"{fmt(ratio, 3)} | {fmt(row.get('busBandwidthBatchGbs'), 3)} | {row.get('inspectorWithheld', 0)} |")
        out.append("")


# --------------------------------------------------------------------------------- long runs

def load_longruns(dirs, mode):
    found = []
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "**", f"longrun-{mode}-*-rank0.json"), recursive=True)):
            found.append((os.path.basename(os.path.dirname(path)), read_json(path)))
    return found


def stress_tables(stress, out):
    if not stress:
        return
    out.append("## A million small collectives in one communicator (rank 0)\n")
    out.append("| run | inspector | calls | calls/s | RSS KiB at 10 % → end | malloc'd KiB at 10 % → end | "
               "JVM heap KiB at end | received + dropped = calls | records by kind | drops | latency p50 / p99 / "
               "p99.9 / max µs |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, res in stress:
        mem = res.get("memory", [])
        base = mem[min(len(mem) - 1, max(1, len(mem) // 10))] if mem else {}
        last = mem[-1] if mem else {}
        acc = res.get("accountedFor", {})
        drops = {k: v for k, v in res.get("counters", {}).get("drops", {}).items() if v}
        kinds = res.get("recordsByKind", {})
        lat = res.get("callbackToListenerLatency", {})
        lat_s = (f"{fmt(lat.get('p50Micros'))} / {fmt(lat.get('p99Micros'))} / {fmt(lat.get('p99.9Micros'))} / "
                 f"{fmt(lat.get('maxMicros'))} ({lat.get('samples', 0):,} samples)") if lat.get("samples") else "–"
        accounted = (f"{acc.get('recordsReceived', 0):,} + {acc.get('droppedInNativeCore', 0):,} = "
                     f"{acc.get('sum', 0):,} of {acc.get('expected', 0):,}") if acc else "–"
        out.append(f"| {name} | {res.get('inspector')} | {res.get('calls', 0):,}"
                   + (" (time limit)" if res.get("stoppedByTimeLimit") else "")
                   + f" | {fmt(res.get('callsPerSecond'), 0)} | {base.get('rssKiB', '–')} → {last.get('rssKiB', '–')} | "
                   f"{base.get('mallocInUseKiB', '–')} → {last.get('mallocInUseKiB', '–')} | {last.get('heapUsedKiB', '–')} | "
                   f"{accounted} | {', '.join(f'{k}: {v:,}' for k, v in kinds.items()) or '–'} | "
                   f"{', '.join(f'{k}: {v:,}' for k, v in drops.items()) or 'none'} | {lat_s} |")
    out.append("")


def graph_tables(graphs, steps, out):
    if not graphs and not any(s for s in steps if s[0].startswith("graph")):
        return
    out.append("## CUDA graph replays (rank 0)\n")
    for name, res in graphs:
        summ = res.get("summary", [])
        out.append(f"**{name}** ({res.get('inspector')}): {res.get('graphOps')} AllReduces of "
                   f"{size_label(res.get('bytes', 0))} per graph, {res.get('replays')} timed replays (+"
                   f"{res.get('warmupReplays', 0)} warm-up); records {res.get('recordsReceived', '–')} of "
                   f"{res.get('recordsExpected', '–')}, graph-launched {res.get('graphLaunchedRecords', '–')}"
                   + (f"; reference records {res.get('referenceRecords')} ({res.get('referenceGpuTimed')} GPU-timed)"
                      if "referenceRecords" in res else "") + ".\n")
        ops = [s for s in summ if s.get("op") != "replay"]
        whole = [s for s in summ if s.get("op") == "replay"]
        if ops:
            out.append("| operation in the graph | CUPTI µs (median) | inspector µs (median) | replays timed | "
                       "CUPTI − inspector µs (median) |")
            out.append("|---|---|---|---|---|")
            for s in ops:
                out.append(f"| {s['op']} | {fmt(s.get('cuptiMedianMicros'))} | {fmt(s.get('inspectorMedianMicros'))} | "
                           f"{s.get('inspectorTimed')} | {fmt(s.get('cuptiMinusInspectorMedianMicros'))} |")
        for s in whole:
            out.append(f"\nWhole replay: CUDA events {fmt(s.get('cudaEventMedianMicros'))} µs (median); "
                       f"{s.get('replaysWithOneRecordPerOp')} of {s.get('replays')} replays with one record per "
                       f"operation.")
        out.append("")
    for name, rc, secs, limit in steps:
        if name.startswith("graph"):
            state = "timed out (hang; thread dumps in its rank logs)" if rc in ("124", "137") else f"exit {rc}"
            out.append(f"- step {name}: {state}, {secs} s")
    out.append("")


def detector_tables(dets, dirs, out):
    if not dets:
        return
    out.append("## Recording for the slow-collective detector (rank 0)\n")
    for name, res in dets:
        opts = res.get("options", {})
        out.append(f"{opts.get('loopCalls')} AllReduce of {size_label(opts.get('loopBytes', 0))}, "
                   f"{opts.get('secondCalls')} of {size_label(opts.get('secondBytes', 0))}, then a second communicator "
                   f"(NCCL_PROTO={opts.get('proto')}) with {opts.get('protoCalls')}; records "
                   f"{res.get('recordsReceived', '–')} of {res.get('recordsExpected', '–')}; algorithm/protocol seen: "
                   f"{res.get('protocols')}.\n")
        rows = []
        for d in dirs:
            for path in glob.glob(os.path.join(d, "**", "calls-detector-*-rank0.jsonl"), recursive=True):
                rows.extend(read_jsonl(path))
        out.append("| part | calls | inspector µs p50 | p99 | max | CUDA event µs p50 | withheld |")
        out.append("|---|---|---|---|---|---|---|")
        for part in ("loop", "size-change", "protocol-change"):
            g = [r for r in rows if r["label"] == part]
            v = sorted(x for x in (figure(r, "ours") or (r["ours"]["micros"] if r["ours"]["verdict"] == "cpu" else None)
                                   for r in g) if x is not None)
            p = (lambda q: v[min(len(v) - 1, int(q * len(v)))] if v else None)
            out.append(f"| {part} | {len(g)} | {fmt(p(0.5))} | {fmt(p(0.99))} | {fmt(v[-1] if v else None)} | "
                       f"{fmt(med(r['cudaEventMicros'] for r in g))} | "
                       f"{sum(1 for r in g if r['ours']['verdict'] == 'withheld')} |")
        out.append("")
        if res.get("planted"):
            out.append("| planted wait | call | delayed rank | delay µs | inspector µs (rank 0) | CUDA event µs |")
            out.append("|---|---|---|---|---|---|")
            for p in res["planted"]:
                r = next((x for x in rows if x["call"] == p["call"] and x["label"] == p["part"]), None)
                out.append(f"| {p['part']} #{p['index']} | {p['call']} | {p['delayedRank']} | {p['delayMicros']} | "
                           f"{fmt(r['ours']['micros'] if r else None)} | {fmt(r['cudaEventMicros'] if r else None)} |")
            out.append("")


def files_under(dirs, pattern):
    """Every file named like `pattern` anywhere under the run directories, sorted per directory."""
    return [path for d in dirs for path in sorted(glob.glob(os.path.join(d, "**", pattern), recursive=True))]


def kernel_records_tables(dirs, out):
    """CUPTI kernel records (NCCL_INSPECTOR_KERNEL_RECORDS=1): what each run's status said, per rank."""
    rows = []
    for d in dirs:
        for pattern in ("result-*-rank*.json", "longrun-*-rank*.json"):
            for path in files_under([d], pattern):
                res = read_json(path)
                k = res.get("kernelRecords")
                if k:
                    rows.append((os.path.basename(os.path.dirname(path)), res.get("rank"), k, res.get("problems", [])))
    if not rows:
        return
    out.append("## CUPTI kernel records\n")
    out.append("| run | rank | active | timed | P2P timed as a group | other in shared kernels | missing | "
               "compared with channels | kernel − channels min / mean / max µs | disagreeing | problems |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, rank, k, problems in rows:
        spread_us = (f"{k.get('minKernelMinusChannelsNanos', 0) / 1e3:.1f} / "
                     f"{k.get('meanKernelMinusChannelsNanos', 0) / 1e3:.1f} / "
                     f"{k.get('maxKernelMinusChannelsNanos', 0) / 1e3:.1f}") if k.get("compared") else "–"
        out.append(f"| {name} | {rank} | {'yes' if k.get('active') else 'no: ' + k.get('reason', '')} | "
                   f"{k.get('timed', 0):,} | {k.get('groupTimed', 0):,} | {k.get('shared', 0):,} | {k.get('missing', 0):,} | {k.get('compared', 0):,} | "
                   f"{spread_us} | {k.get('disagreeing', 0):,} | {'; '.join(problems) or '–'} |")
    out.append("")


def launch_cost_tables(dirs, out):
    """LaunchCost: ns per empty-kernel launch with no inspector, the inspector, and its CUPTI kernel records."""
    rows = []
    for path in files_under(dirs, "launch-r*-*.json"):
        m = re.match(r"launch-r(\d+)-(\w+)\.json", os.path.basename(path))
        if m:
            rows.append((int(m.group(1)), m.group(2), read_json(path)))
    if not rows:
        return
    out.append("## Cost of a kernel launch: no inspector, inspector, inspector with CUPTI kernel records\n")
    out.append("| round | mode | kernel records | launches per sample | ns per launch, median of samples (min – max) | "
               "other kernels recorded |")
    out.append("|---|---|---|---|---|---|")
    by_mode = {}
    for rnd, mode, res in sorted(rows, key=lambda r: (r[0], r[1])):
        ns = res.get("nsPerLaunch", [])
        out.append(f"| {rnd} | {mode} | {res.get('kernelRecords')} | {res.get('launches', 0):,} | "
                   f"{fmt(res.get('medianNsPerLaunch'))} ({fmt(min(ns) if ns else None)} – {fmt(max(ns) if ns else None)}) | "
                   f"{res.get('otherKernelsRecorded', 0):,} |")
        by_mode.setdefault(mode, []).append(res.get("medianNsPerLaunch"))
    base = med([v for v in by_mode.get("off", []) if v is not None])
    if base:
        out.append("")
        for mode in sorted(by_mode):
            m = med([v for v in by_mode[mode] if v is not None])
            out.append(f"- {mode}: median of rounds {fmt(m)} ns per launch, {fmt(m - base)} ns over no inspector "
                       f"(ratio {m / base:.2f})")
    out.append("")


def load_steps(dirs):
    steps = []
    for d in dirs:
        path = os.path.join(d, "steps.tsv")
        if os.path.exists(path):
            with open(path) as f:
                for line in f.read().splitlines()[1:]:
                    parts = line.split("\t")
                    if len(parts) >= 4:
                        steps.append(tuple(parts[:4]))
    return steps


def analyze(dirs, all_ranks=False):
    out = ["# GPU validation: " + ", ".join(os.path.basename(os.path.normpath(d)) for d in dirs) + "\n"]
    steps = load_steps(dirs)
    if steps:
        out.append("| step | exit | seconds | limit |")
        out.append("|---|---|---|---|")
        for s in steps:
            out.append("| " + " | ".join(s) + " |")
        out.append("")
    trust_tables(load_calls(dirs, all_ranks), out)
    overhead_tables(load_sweeps(dirs), out)
    stress_tables(load_longruns(dirs, "stress"), out)
    graph_tables(load_longruns(dirs, "graph"), steps, out)
    detector_tables(load_longruns(dirs, "detector"), dirs, out)
    kernel_records_tables(dirs, out)
    launch_cost_tables(dirs, out)
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------ self-test

def _call(run, mode, call, phase, op, size, event, cupti, ours, ref):
    def judged(v):
        if v is None:
            return {"verdict": "off", "micros": None, "detail": None, "records": []}
        verdict, micros = v
        return {"verdict": verdict, "micros": micros, "detail": "KERNEL_CHANNEL_DESYNC NONE" if verdict == "withheld"
                else None, "records": []}
    return {"run": run, "mode": mode, "rank": 0, "call": call, "label": "cycle", "phase": phase, "operation": op,
            "bytes": size, "iteration": call, "collSequence": call, "cudaEventMicros": event, "enqueueMicros": 5.0,
            "wallMicros": event + 10, "wallStartNanos": 0, "cuptiKernels": 1, "cuptiMicros": cupti,
            "cuptiSpanMicros": cupti, "kernel": "ncclDevKernel_AllReduce", "truth": "cupti",
            "ours": judged(ours), "reference": judged(ref)}


def self_test():
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "gpu-validation-part1")
        os.makedirs(os.path.join(d, "reproducer"))
        with open(os.path.join(d, "steps.tsv"), "w") as f:
            f.write("step\texit\tseconds\tlimit\nreproducer-on\t0\t12\t150\ngraph-reference\t124\t60\t60\n")
        on = [_call("reproducer", "on", 0, "before", "AllReduce", 1 << 20, 30.0, 15.0, ("ok", 12.0), None),
              _call("reproducer", "on", 1, "before", "AllReduce", 1 << 20, 31.0, 15.2, ("ok", 12.1), None),
              _call("reproducer", "on", 3, "after", "AllReduce", 1 << 20, 30.5, 15.1, ("withheld", None), None),
              _call("reproducer", "on", 4, "after", "AllReduce", 1 << 20, 30.5, 15.1, ("bound", 9.0), None),
              _call("reproducer", "on", 2, "before", "AlltoAll", 1 << 20, 40.0, 20.0, ("ok", 9.0), None)]
        ref = [_call("reproducer", "reference", 0, "before", "AllReduce", 1 << 20, 30.0, 15.0, None, ("ok", 12.0)),
               _call("reproducer", "reference", 1, "before", "AllReduce", 1 << 20, 30.0, 15.0, None, ("ok", 12.0)),
               _call("reproducer", "reference", 3, "after", "AllReduce", 1 << 20, 30.0, 15.0, None, ("wrong", 231.0)),
               _call("reproducer", "reference", 4, "after", "AllReduce", 1 << 20, 30.0, 15.0, None, ("wrong", 230.0)),
               _call("reproducer", "reference", 2, "before", "AlltoAll", 1 << 20, 40.0, 20.0, None, ("missing", None))]
        for name, rows in (("calls-reproducer-on-rank0.jsonl", on), ("calls-reproducer-reference-rank0.jsonl", ref),
                           ("calls-reproducer-on-rank1.jsonl", on[:1])):
            with open(os.path.join(d, "reproducer", name), "w") as f:
                f.write("\n".join(json.dumps(r) for r in rows) + "\n")
        for rnd, jitter in (("round-1", 0.0), ("round-2", 0.4)):
            os.makedirs(os.path.join(d, "sweep", rnd))
            for mode, extra_us, bw in (("off", 0.0, 400.0), ("on", 1.0 + jitter, 399.0), ("reference", 0.5, 399.5)):
                row = {"pass": 0, "phase": "before", "operation": "AllReduce", "sizeBytes": 1 << 30, "calls": 10,
                       "cudaEventMicros": 2700.0 + extra_us, "enqueueMicros": 6.0, "wallMicros": 2710.0,
                       "busBandwidthEventGbs": 397.0, "batchCalls": 20, "batchMicrosPerCall": 2690.0,
                       "busBandwidthBatchGbs": bw, "cuptiMicros": None, "inspectorReported": 10,
                       "inspectorWithheld": 0, "inspectorMicros": 2686.0 if mode == "on" else None,
                       "inspectorBusBandwidthGbs": 399.7 if mode == "on" else None}
                with open(os.path.join(d, "sweep", rnd, f"results-{mode}-rank0.json"), "w") as f:
                    json.dump({"program": "NcclBenchmark", "run": "sweep", "mode": mode, "rows": [row]}, f)
        os.makedirs(os.path.join(d, "stress-nvlink"))
        with open(os.path.join(d, "stress-nvlink", "longrun-stress-on-rank0.json"), "w") as f:
            json.dump({"program": "NcclLongRun", "mode": "stress", "inspector": "on", "calls": 1000000,
                       "callsPerSecond": 41000.0, "memory": [{"calls": 1, "rssKiB": 700000},
                                                            {"calls": 100001, "rssKiB": 710000, "mallocInUseKiB": 50000},
                                                            {"calls": 1000000, "rssKiB": 712000, "mallocInUseKiB": 50100,
                                                             "heapUsedKiB": 90000}],
                       "accountedFor": {"recordsReceived": 999990, "droppedInNativeCore": 10, "sum": 1000000,
                                        "expected": 1000000},
                       "recordsByKind": {"timing KERNEL_GPU": 999990}, "counters": {"drops": {"ring_full": 10}},
                       "callbackToListenerLatency": {"samples": 1000, "p50Micros": 120.0, "p99Micros": 900.0,
                                                     "p99.9Micros": 1500.0, "maxMicros": 3000.0}}, f)
        os.makedirs(os.path.join(d, "graph"))
        with open(os.path.join(d, "graph", "longrun-graph-on-rank0.json"), "w") as f:
            json.dump({"inspector": "on", "graphOps": 4, "bytes": 1 << 20, "replays": 200, "warmupReplays": 2,
                       "recordsReceived": 808, "recordsExpected": 808, "graphLaunchedRecords": 808,
                       "summary": [{"op": 0, "cuptiMedianMicros": 15.0, "inspectorMedianMicros": 12.0,
                                    "inspectorTimed": 200, "cuptiMinusInspectorMedianMicros": 3.0},
                                   {"op": "replay", "cudaEventMedianMicros": 80.0, "replaysWithOneRecordPerOp": 200,
                                    "replays": 200}]}, f)
        text = analyze([d])
        expect = [
            "| before | AllReduce | 1 MiB | 2 | 30.5 | 15.1 | 12.1 | 2 / 0 / 0 / 0 / 0 / 0 | 15.0 | 12.0 | 2 / 0 / 0 / 0 |",
            "| after | AllReduce | 1 MiB | 2 | 30.5 | 15.1 | 9.0 | 0 / 1 / 0 / 1 / 0 / 0 | 15.0 | 230.5 | 0 / 2 / 0 / 0 |",
            "| reproducer | before | collective | 2 | 2 | 0 | 0 | 0 | 3.1 | 2 | 0 | 0 |",
            "| reproducer | after | collective | 2 | 0 | 1 | 0 | 1 | – | 0 | 2 | 0 |",
            "| reproducer | before | AlltoAll | 1 | 1 | 0 | 0 | 0 | – | 0 | 0 | 1 |",
            "| AllReduce | 1 GiB | 400.00 | -0.25 (-0.25 … -0.25) | -0.12 (-0.12 … -0.12) | 2,700.0 | +1.20 (+1.00 … +1.40) |",
            "Sizes where this inspector's call took longer than the reference's in every round: 1: AllReduce 1 GiB",
            "| stress-nvlink | on | 1,000,000 | 41,000 | 710000 → 712000 | 50000 → 50100 | 90000 | "
            "999,990 + 10 = 1,000,000 of 1,000,000 | timing KERNEL_GPU: 999,990 | ring_full: 10 | "
            "120.0 / 900.0 / 1,500.0 / 3,000.0 (1,000 samples) |",
            "| 0 | 15.0 | 12.0 | 200 | 3.0 |",
            "- step graph-reference: timed out (hang; thread dumps in its rank logs), 60 s",
            "| reproducer | reference | 3 | after | AllReduce | 1 MiB | 15.0 | 30.0 | 231.0 |",
        ]
        missing = [e for e in expect if e not in text]
        if missing:
            sys.stderr.write(text)
            sys.stderr.write("\nself-test FAILED, lines not found:\n" + "\n".join(missing) + "\n")
            return 1
        # Rank 1's file only counts with --all-ranks.
        if "| before | AllReduce | 1 MiB | 3 |" not in analyze([d], all_ranks=True):
            sys.stderr.write("self-test FAILED: --all-ranks did not count rank 1's calls\n")
            return 1
    print("self-test passed")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    dirs = [a for a in argv if not a.startswith("--")]
    if not dirs:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.write(analyze(dirs, all_ranks="--all-ranks" in argv))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
