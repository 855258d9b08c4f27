#!/usr/bin/env python3
"""Would recovering lagging kernel channels' timestamps give right times? A model, checked against CUPTI.

usage: examples/research/channel-recovery-model.py TRACE CUPTI
  TRACE  a recorded callback trace (testdata/traces/*/trace/trace-pid*.jsonl.gz, format in FORMAT.md)
  CUPTI  the same rank's NCCL kernels with CUPTI durations (cupti-rank0.ndjson)

NCCL reads a channel's GPU timestamps from slot (base % 64) of a per-channel ring, where base is the
host's count of profiler proxy operations on that channel; the device counts every work item, the
send/receive to self included, which gets no proxy operation. So an operation X on a lagging channel
is handed the timestamps of device item number h (its host index), which belongs to an earlier
operation Y. The model (docs/research/channel-recovery.md):

- host index h of X on channel c: KernelCh events on c in arrival order (the P2P operations of one
  kernel launch on one channel share one work item and one index);
- device index of X on c: h + S_c(X), S_c(X) the sends to self on channel c started before X (a send to
  self of n channels runs on channels 0..n-1);
- X's reading on c then belongs to the operation whose device index on c is h;
- a reading is dropped when the slot may have been reused: 64 or more operation events started after
  Y by the time of the reading (as the native late-read guard counts), or when its GPU start is before
  Y's kernel launch plus the GPU clock's offset bound (largest GPU start minus callback time of the
  last second).

Each collective gets the longest recovered channel; it is judged right within 6 us below and 1 us
(plus 10 ppm) above its CUPTI kernel. Prints right / wrong (full or partial channels) / none.
"""
import bisect
import gzip
import json
import sys
from collections import defaultdict

SLOTS = 64
WINDOW_NS = 1_000_000_000


def events(path):
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def kernel_name(k):
    return k["name"].replace("ncclDevKernel_", "").split("_")[0].split("(")[0]


def main(trace, cupti):
    rank = None
    ops, order, launches, last_launch = {}, [], [], {}
    host_count, self_count = defaultdict(int), defaultdict(int)
    owner = defaultdict(dict)          # channel -> device index -> operation
    p2p_item = {}                      # (launch, channel) -> host index shared by that launch's P2P
    channels = {}                      # KernelCh handle -> reading
    observations = []                  # (callback mono ns, GPU start - callback wall)
    started = 0
    for e in events(trace):
        if e["ev"] == "init":
            rank = e["rank"]
        elif e["ev"] == "start" and e["type"] == "KernelLaunch":
            launches.append(e["wall"])
            last_launch[e["tid"]] = len(launches) - 1
        elif e["ev"] == "start" and e["type"] in ("Coll", "P2p"):
            started += 1
            if e["type"] == "P2p" and e["peer"] == rank:
                if e["func"] == "Send":      # one work item per send/receive pair to self
                    for c in range(e["nChannels"]):
                        self_count[c] += 1
                continue
            op = {"type": e["type"], "func": e["func"], "self": dict(self_count), "number": started - 1,
                  "launch": last_launch.get(e["tid"]), "own": {}, "got": {}}
            ops[e["h"]] = op
            order.append(op)
        elif e["ev"] == "start" and e["type"] == "KernelCh" and e["parent"] in ops:
            x, c = ops[e["parent"]], e["channelId"]
            key = (x["launch"], c)
            if x["type"] == "P2p" and key in p2p_item:
                h = p2p_item[key]
            else:
                h = host_count[c]
                host_count[c] += 1
                if x["type"] == "P2p":
                    p2p_item[key] = h
            device = h + x["self"].get(c, 0)
            owner[c].setdefault(device, x)
            x["own"][c] = device
            if "observed" not in x:
                x["observed"] = True
                observations.append((e["t"], e["pTimer"] - e["wall"]))
            while observations and observations[0][0] < e["t"] - WINDOW_NS:
                observations.pop(0)
            bound = max(o[1] for o in observations) if observations else None
            channels[e["h"]] = {"c": c, "start": e["pTimer"], "x": x, "y": owner[c].get(h), "bound": bound}
        elif e["ev"] == "state" and e["h"] in channels and "pTimer" in e:
            r = channels[e["h"]]
            y = r["y"]
            if y is None or started - 1 - y["number"] >= SLOTS:
                continue
            if y["launch"] is not None and r["bound"] is not None and r["start"] < launches[y["launch"]] + r["bound"]:
                continue
            y["got"][r["c"]] = (r["start"], e["pTimer"])

    kernels = [json.loads(line) for line in open(cupti)]
    by_launch = defaultdict(list)
    for op in order:
        if op["launch"] is not None:
            by_launch[op["launch"]].append(op)
    shift = None
    for s in range(5):
        if all((kernel_name(k) == "SendRecv" and all(o["type"] == "P2p" for o in by_launch.get(i + s, [])))
               or kernel_name(k) in " ".join(o["func"] for o in by_launch.get(i + s, []))
               for i, k in enumerate(kernels)):
            shift = s
            break
    if shift is None:
        sys.exit("the trace's launches do not line up with CUPTI's kernels")
    right = wrong_full = wrong_partial = none = 0
    for op in order:
        if op["type"] != "Coll" or op["launch"] is None or not 0 <= op["launch"] - shift < len(kernels):
            continue
        kernel_ns = kernels[op["launch"] - shift]["dur_us"] * 1000
        if not op["got"]:
            none += 1
            continue
        diff = max(stop - start for start, stop in op["got"].values()) - kernel_ns
        if -6000 <= diff <= 1000 + kernel_ns * 1e-5:
            right += 1
        elif len(op["got"]) == len(op["own"]):
            wrong_full += 1
        else:
            wrong_partial += 1
    print(f"collectives: {right} right, {wrong_full + wrong_partial} wrong ({wrong_full} from all their channels,"
          f" {wrong_partial} from some), {none} without a recovered channel")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
