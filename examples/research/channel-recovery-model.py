#!/usr/bin/env python3
"""Recovering kernel-channel times after NCCL's per-channel counters go out of step: a model, checked on CUPTI.

usage: examples/research/channel-recovery-model.py [--items] [--offline] [--cap N] [--causal-only | --whole] DIR...
  DIR  a recording with ground truth (testdata/traces/NAME: trace/trace-pid*.jsonl.gz and cupti-rank0.ndjson,
       format in testdata/traces/FORMAT.md; rank 0's trace is used). Prints, per recording, collectives
       right / wrong / untimed against CUPTI for: channels whose item is their own count, read as they came
       (lag-aware, without the late-read guard); the launch-bound guard alone (all channels, then with
       lower bounds from some); the full resolution (all channels, then with lower bounds).
       "short": a lower bound more than 6 us below its kernel (marked as a lower bound, not wrong).
  --items    also check every KernelCh reading against CUPTI: which kernel ran at the reading's GPU start,
             against the kernel the rule says the reading belongs to.
  --offline  learn nothing: take every operation's channel set from its KernelCh events (an oracle), to
             check the counting rule apart from the learning of P2P channel sets.
  --cap N    park at most N ambiguous timestamps per channel in the online resolution.
  --causal-only  resolve by the launch bound alone (no order test, no windows): what the inspector
             built on 2026-12-05 (first part).
  --whole    each reading judged when its stop comes, start and stop together, by the launch bound, the
             order test and the launch windows of what is placed by then; an ambiguous one is parked (16
             per channel, the oldest evicted) and tried again after each placement on its channel: what
             the inspector builds since 2026-12-05 (channel_recovery.c, channel_placed.c,
             channel_parked.c).

The rule (NCCL 2.28-2.30 source, docs/research/channel-recovery.md):
- The device counts, per channel, every work item of every batch it runs (src/device/common.h, profiler()):
  a collective is one item on each channel of [channelLo, channelHi]; a P2P "round" (the send to one peer
  and the receive from another, planned together by addP2pToPlan) is one item on each channel of its parts
  0..max(nSendChannels, nRecvChannels)-1, channel (base(round) + part) mod p2pnChannels.
- The host counts, per channel, when it plans (src/proxy.cc incWorkCounter, called for the profiler
  pattern from ncclAddProxyOpIfNeeded): one per collective and channel; one per P2P round and part where
  the receive or the send has a non-empty part (the first of the two increments, the second reuses the
  value); none for a round to self (nProxyOps = 0) and none for a part without data.
- Both counts follow the same order: plans in launch order; in a plan, the order in which
  ncclAddWorkBatchToPlan was called for the channel (collectives first, then P2P rounds ascending).
- An operation's KernelCh reading on channel c comes from device item number base (its host count), or
  base + 64k when the proxy thread read the slot after the device had run 64k more items on c. The
  arrival order of KernelCh events says nothing: receives and sends are progressed on separate
  profiler proxy connections.

So the device item of operation X on channel c is d = base + S, S the items without a host count (rounds
to self, empty parts) on c before X; the reading X receives belongs to the operation whose item is base.
A reading is kept only when the item base + 64 on that channel cannot have run yet when the reading
arrived (its kernel not launched: KernelLaunch events are emitted before cuLaunchKernel), and when its
GPU start is not before its owner's launch plus the GPU clock's offset bound. resolve() places the other
timestamps where only one candidate item b + 64k fits (launch bound, per-channel order, the span the
candidate's kernel is known to have run). Judged right within 6 us below and 1 us (plus 10 ppm) above
its CUPTI kernel.
"""
import bisect
import glob
import gzip
import json
import os
import sys
from collections import defaultdict

SLOTS = 64
WINDOW_NS = 1_000_000_000
TYPE_SIZE = {"ncclInt8": 1, "ncclUint8": 1, "Unknown": 1, "ncclFloat16": 2, "ncclBfloat16": 2, "ncclFloat32": 4,
             "ncclInt32": 4, "ncclUint32": 4, "ncclFloat64": 8, "ncclInt64": 8, "ncclUint64": 8}


def events(path):
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def kernel_name(k):
    return k["name"].replace("ncclDevKernel_", "").split("_")[0].split("(")[0]


def part_has_data(n_parts, part, nbytes):
    """ncclP2pPartBounds: parts of divUp(bytes, nParts) rounded up to 4 KiB; a zero-byte op has one part."""
    if part >= n_parts:
        return False
    if nbytes == 0:
        return True
    part_bytes = -(-(-(-nbytes // n_parts)) // 4096) * 4096
    return part * part_bytes < nbytes


class Model:
    """Numbers each channel's device items and host counts in plan order, and hands every reading to its owner.

    A unit is what adds one item to each of its channels: a collective, or a P2P round (the send and the
    receive of one launch planned together). Units are numbered in start order once their channel sets are
    known; a P2P shape seen for the first time (peer, direction, nChannels) is learned from its KernelCh
    channels, and numbering waits for it.
    """

    def __init__(self, offline_sets=None):
        self.rank = self.nranks = None
        self.offline = offline_sets             # op handle -> channel list from its KernelCh events (oracle)
        self.launches = []                      # {"wall", "units": n, "open": bool}
        self.launch_of = {}                     # app thread -> last launch index
        self.units = []                         # in plan order
        self.next_unit = 0                      # first unit not numbered yet
        self.max_units = 1                      # most units one launch has had
        self.device = defaultdict(int)          # channel -> device items numbered so far
        self.host = defaultdict(int)            # channel -> host profiler count so far
        self.owner = defaultdict(dict)          # channel -> device item number -> unit
        self.learned = {}                       # (peer, dir, nChannels) -> channels of parts 0..n-1 (as a set)
        self.ops = {}
        self.order = []
        self.readings = {}
        self.observations = []
        self.stats = defaultdict(int)
        self.halves = []

    # ---- planning side -------------------------------------------------------------------------------------
    def launch(self, e):
        prev = self.launch_of.get(e["tid"])
        if prev is not None:
            self.launches[prev]["open"] = False
        self.launches.append({"wall": e["wall"], "units": 0, "open": True, "ops": []})
        self.launch_of[e["tid"]] = len(self.launches) - 1

    def op_start(self, e):
        li = self.launch_of.get(e["tid"])
        op = {"h": e["h"], "type": e["type"], "func": e["func"], "peer": e.get("peer"), "n": e["nChannels"],
              "bytes": e.get("count", 0) * TYPE_SIZE.get(e.get("datatype"), 1), "launch": li,
              "base": {}, "item": {}, "got": {}, "direct": {}}
        self.ops[e["h"]] = op
        if li is not None:
            self.launches[li]["ops"].append(op)
        if not (op["type"] == "P2p" and op["peer"] == self.rank):
            self.order.append(op)
        if op["type"] == "P2p":
            r = ((op["peer"] - self.rank) if op["func"] == "Send" else (self.rank - op["peer"])) % self.nranks
            last = self.units[-1] if self.units else None
            if (last is not None and last["kind"] == "p2p" and last["launch"] == li and last["round"] == r
                    and len(last["ops"]) == 1 and last["ops"][0]["func"] != op["func"]
                    and self.next_unit < len(self.units)):
                last["ops"].append(op)
                op["unit"] = last
                return
            unit = {"kind": "p2p", "round": r, "ops": [op], "launch": li}
        else:
            unit = {"kind": "coll", "ops": [op], "launch": li}
        op["unit"] = unit
        self.units.append(unit)
        if li is not None:
            self.launches[li]["units"] += 1
            self.max_units = max(self.max_units, self.launches[li]["units"])
        self.advance(upto=len(self.units) - 2)          # the newest unit may still get its partner

    def channels(self, unit):
        """channel -> host counted?, or None while a set is not known yet."""
        if unit["kind"] == "coll":
            o = unit["ops"][0]
            if self.offline is not None:
                return {c: True for c in self.offline[o["h"]]}
            n_colls = sum(1 for u in self.units if u["kind"] == "coll" and u["launch"] == unit["launch"])
            if n_colls > 1:                             # several in one plan share out the channels: learn them
                seen = o.get("seen", set())
                return {c: True for c in seen} if len(seen) == o["n"] else None
            return {c: True for c in range(o["n"])}
        if unit["round"] == 0:                          # to self: base 0, no host count
            return {c: False for c in range(max(o["n"] for o in unit["ops"]))}
        out = {}
        for o in unit["ops"]:
            d = 0 if o["func"] == "Recv" else 1
            if self.offline is not None:
                chans = sorted(self.offline[o["h"]])
            else:
                chans = self.learned.get((o["peer"], d, o["n"]))
            if chans is None:
                return None
            # which part a channel is: parts ascend from the peer's base channel, modulo p2pnChannels
            for part, c in enumerate(rotate(chans)):
                out[c] = out.get(c, False) or part_has_data(o["n"], part, o["bytes"])
        return out

    def advance(self, upto):
        while self.next_unit <= upto and self.next_unit < len(self.units):
            unit = self.units[self.next_unit]
            chans = self.channels(unit)
            if chans is None:
                return
            for c in sorted(chans):
                self.device[c] += 1
                d = self.device[c]
                self.owner[c][d] = unit
                if chans[c]:
                    self.host[c] += 1
                for o in unit["ops"]:
                    o["item"][c] = d
                    if chans[c]:
                        o["base"][c] = self.host[c]
            unit["done"] = True
            self.next_unit += 1
            for o in unit["ops"]:
                for h in o.pop("deferred", []):
                    self.add_half(h)

    # ---- proxy side ----------------------------------------------------------------------------------------
    def kernel_ch(self, e):
        x = self.ops.get(e["parent"])
        if x is None:
            return
        c = e["channelId"]
        unit = x["unit"]
        if x["launch"] is not None:                     # the proxy ops come after all the plan's task events
            self.launches[x["launch"]]["open"] = False
        x.setdefault("seen", set()).add(c)
        if self.offline is None and x["type"] == "P2p" and x["peer"] != self.rank:
            key = (x["peer"], 0 if x["func"] == "Recv" else 1, x["n"])
            if key not in self.learned and len(x["seen"]) == x["n"]:
                self.learned[key] = sorted(x["seen"])
        self.advance(upto=self.units.index(unit) if not unit.get("done") else -1)
        if x["unit"] is not None and not x.get("seen_first"):
            x["seen_first"] = True
            self.observations.append((e["t"], e["pTimer"] - e["wall"]))
        while self.observations and self.observations[0][0] < e["t"] - WINDOW_NS:
            self.observations.pop(0)
        bound = max(o[1] for o in self.observations)
        self.readings[e["h"]] = {"x": x, "c": c, "start": e["pTimer"], "bound": bound, "safe_start": self.safe(x, c)}
        self.half(x, c, "start", e["pTimer"], bound)

    def half(self, x, c, kind, ts, bound):
        """One timestamp as read, with what was known when it arrived: the most items c can have run."""
        h = {"c": c, "kind": kind, "ts": ts, "bound": bound, "x": x, "upper": self.launched(c)}
        if not x["unit"].get("done"):
            x.setdefault("deferred", []).append(h)     # its unit's channels are still being learned
            return
        self.add_half(h)

    def add_half(self, h):
        h["b"] = h["x"]["base"].get(h["c"])
        if h["b"] is not None:
            self.halves.append(h)

    def launched(self, c):
        not_numbered = len(self.units) - self.next_unit            # at most one item per channel each
        open_margin = sum(max(self.max_units - li["units"], 0) for li in self.launches[-4:] if li["open"])
        return self.device[c] + not_numbered + open_margin

    def safe(self, x, c):
        """Item base + 64 on c cannot have run: it is beyond every item launched so far (an upper bound)."""
        b = x["base"].get(c)
        return b is not None and b + SLOTS > self.launched(c)

    def kernel_ch_stop(self, e):
        r = self.readings.get(e["h"])
        if r is None or "pTimer" not in e:
            return
        x, c = r["x"], r["c"]
        stop = e["pTimer"]
        x["direct"][c] = (r["start"], stop)
        self.half(x, c, "stop", stop, r["bound"])
        b = x["base"].get(c)
        if b is None:
            self.stats["reader not numbered"] += 1
            return
        y = self.owner[c][b]
        r["owner"], r["stop"] = y, stop
        if not (r["safe_start"] and self.safe(x, c)):
            self.stats["slot maybe reused"] += 1
            return
        r["kept"] = True
        if y["kind"] == "p2p" and y["round"] == 0:
            self.stats["reading of a round to self"] += 1
            return
        if r["start"] < self.launches[y["launch"]]["wall"] + r["bound"] or stop < r["start"]:
            self.stats["causal check"] += 1
            return
        for o in y["ops"]:
            o["got"][c] = (r["start"], stop)

    def run(self, trace):
        for e in events(trace):
            if e["ev"] == "init":
                self.rank, self.nranks = e["rank"], e["nranks"]
            elif e["ev"] == "start" and e["type"] == "KernelLaunch":
                self.launch(e)
            elif e["ev"] == "start" and e["type"] in ("Coll", "P2p"):
                self.op_start(e)
            elif e["ev"] == "start" and e["type"] == "KernelCh":
                self.kernel_ch(e)
            elif e["ev"] == "state" and "pTimer" in e:
                self.kernel_ch_stop(e)


CAUSAL_ONLY = False   # --causal-only
WHOLE = False         # --whole
PARKED = 16           # readings parked per channel (channel_parked.h)


def launched_after(model, y, ts, bound):
    """The causal test: item owner y's kernel was launched after timestamp ts (on the GPU clock's bound)."""
    return y is not None and y["launch"] is not None and ts < model.launches[y["launch"]]["wall"] + bound


def out_of_order(placed_c, w, ts, kind):
    """The order test: an item placed on the channel contradicts ts being item w's start (stop)."""
    return any(kind in v and ((j < w and v[kind] > ts) or (j > w and v[kind] < ts)) for j, v in placed_c.items())


def window_pick(model, c, keep, ts, window):
    """Of several candidates, the one whose launch's window holds ts, when only one does."""
    inside = []
    for w in keep:
        y = model.owner[c].get(w)
        lo, hi = window[y["launch"]] if y is not None else (None, None)
        if lo is not None and hi is not None and lo <= ts <= hi:
            inside.append(w)
    return inside if len(inside) == 1 else keep


def widen(window, launch, kind, ts):
    """Widens a launch's window [earliest start, latest stop] by a placed timestamp."""
    lo_hi = window[launch]
    if kind == "start":
        lo_hi[0] = ts if lo_hi[0] is None else min(lo_hi[0], ts)
    else:
        lo_hi[1] = ts if lo_hi[1] is None else max(lo_hi[1], ts)


def resolve(model, use_windows=True):
    """Give each timestamp its device item where only one item can explain it; repeat until nothing changes.

    A timestamp read for base b on channel c belongs to item b + 64k, for a k >= 0 with b + 64k no more than
    the items launched on c when it arrived. An item is ruled out when
    - its kernel was launched after the timestamp (launch time plus the GPU clock's offset bound);
    - an item already placed on c contradicts the order: items run one after another on a channel, so an
      earlier item cannot have a later start (stop), nor a later item an earlier one;
    and, with windows, an item is chosen when the timestamp lies inside the span its own kernel is known
    to have run (earliest start to latest stop placed for that launch on any channel): kernels of one
    communicator do not overlap, and that span lies inside the kernel.
    Returns {channel: {item: {"start": ts, "stop": ts}}}.
    """
    placed = defaultdict(lambda: defaultdict(dict))     # c -> item -> kind -> ts
    window = defaultdict(lambda: [None, None])          # launch -> [earliest start, latest stop] placed
    pending = list(model.halves)
    for h in pending:
        h["cands"] = [h["b"] + SLOTS * k for k in range(0, 64) if h["b"] + SLOTS * k <= h["upper"]]
    changed = True
    while changed:
        changed = False
        rest = []
        for h in pending:
            c, ts, kind = h["c"], h["ts"], h["kind"]
            keep = [w for w in h["cands"]
                    if model.owner[c].get(w) is None
                    or not (launched_after(model, model.owner[c][w], ts, h["bound"])
                            or (not CAUSAL_ONLY and out_of_order(placed[c], w, ts, kind)))]
            h["cands"] = keep
            if len(keep) > 1 and use_windows and not CAUSAL_ONLY:
                keep = window_pick(model, c, keep, ts, window)
            if len(keep) == 1 and model.owner[c].get(keep[0]) is not None:
                w = keep[0]
                placed[c][w][kind] = ts
                h["item"] = w
                widen(window, model.owner[c][w]["launch"], kind, ts)
                changed = True
            else:
                rest.append(h)
        pending = rest
    return placed


def resolve_online(model, cap=None):
    """resolve() as a native core would run it: each timestamp tried once when it arrives, parked when more
    than one item can explain it, and parked ones on the same channel or naming the same launch tried again
    after every placement. cap bounds the parked timestamps per channel (oldest dropped).
    Returns (placed, the most parked on one channel at once, dropped by the cap)."""
    placed = defaultdict(lambda: defaultdict(dict))
    window = defaultdict(lambda: [None, None])
    parked = defaultdict(list)                          # channel -> halves
    by_launch = defaultdict(list)                       # launch -> halves parked with a candidate of it
    most, dropped = 0, 0

    def attempt(h):
        c, ts, kind = h["c"], h["ts"], h["kind"]
        keep = [w for w in h["cands"]
                if model.owner[c].get(w) is None
                or not (launched_after(model, model.owner[c][w], ts, h["bound"])
                        or out_of_order(placed[c], w, ts, kind))]
        h["cands"] = keep
        if len(keep) > 1:
            keep = window_pick(model, c, keep, ts, window)
        if len(keep) == 1 and model.owner[c].get(keep[0]) is not None:
            w = keep[0]
            placed[c][w][kind] = ts
            h["item"] = w
            widen(window, model.owner[c][w]["launch"], kind, ts)
            return model.owner[c][w]["launch"]
        return None

    for h in model.halves:
        h["cands"] = [h["b"] + SLOTS * k for k in range(0, 64) if h["b"] + SLOTS * k <= h["upper"]]
        h.pop("item", None)
        work = [h]
        while work:
            g = work.pop()
            if "item" in g or not g["cands"]:
                continue
            launch = attempt(g)
            if launch is None:
                if g.get("parked"):
                    continue
                g["parked"] = True
                parked[g["c"]].append(g)
                for w in g["cands"]:
                    y = model.owner[g["c"]].get(w)
                    if y is not None:
                        by_launch[y["launch"]].append(g)
                if cap and len(parked[g["c"]]) > cap:
                    parked[g["c"]].pop(0)["cands"] = []
                    dropped += 1
                most = max(most, len(parked[g["c"]]))
            else:
                parked[g["c"]] = [p for p in parked[g["c"]] if "item" not in p and p["cands"]]
                work.extend(p for p in parked[g["c"]] if p is not g)
                work.extend(p for p in by_launch.pop(launch, []) if "item" not in p and p["cands"])
    return placed, most, dropped


def resolve_whole(model):
    """resolve() as the inspector runs it: each reading once, when its stop comes, against the items placed
    by then (launch bound, order, then the launch windows for candidates still left); placed only when its
    start and its stop each have exactly one candidate left, the same one. Returns (placed, 0, 0) like
    resolve_online. Ambiguous readings are parked (PARKED per channel) and retried after each placement on
    their channel."""
    placed = defaultdict(lambda: defaultdict(dict))
    window = defaultdict(lambda: [None, None])          # launch -> [earliest start, latest stop] placed
    starts = {}

    def candidates(h):
        c, ts, kind = h["c"], h["ts"], h["kind"]
        keep = []
        for w in (h["b"] + SLOTS * k for k in range(0, 64)):
            if w > h["upper"] and w != h["b"]:
                break
            if not (launched_after(model, model.owner[c].get(w), ts, h["bound"]) or out_of_order(placed[c], w, ts, kind)):
                keep.append(w)
        return window_pick(model, c, keep, ts, window) if len(keep) > 1 else keep

    parked = defaultdict(list)                          # channel -> (start half, stop half), oldest first

    def attempt(first, h):
        a, b = candidates(first), candidates(h)
        if not (len(a) == 1 and a == b and model.owner[h["c"]].get(a[0]) is not None):
            return False
        w = a[0]
        placed[h["c"]][w].update(start=first["ts"], stop=h["ts"])
        widen(window, model.owner[h["c"]][w]["launch"], "start", first["ts"])
        widen(window, model.owner[h["c"]][w]["launch"], "stop", h["ts"])
        return True

    for h in model.halves:
        key = (id(h["x"]), h["c"])
        if h["kind"] == "start":
            starts[key] = h
            continue
        first = starts.pop(key, None)
        if first is None:
            continue
        c = h["c"]
        if not attempt(first, h):
            parked[c].append((first, h))
            if len(parked[c]) > PARKED:
                parked[c].pop(0)
            continue
        for _ in range(PARKED):                         # retries, until a pass places nothing
            rest = [p for p in parked[c] if not attempt(*p)]
            done = len(rest) == len(parked[c])
            parked[c] = rest
            if done:
                break
    return placed, 0, 0


def rotate(chans):
    """Channels of parts 0..n-1 given as a set: (base + part) mod p2pnChannels; a wrap shows as a gap."""
    chans = sorted(chans)
    for i in range(1, len(chans)):
        if chans[i] != chans[i - 1] + 1:
            return chans[i:] + chans[:i]
    return chans


def oracle_sets(trace):
    sets = defaultdict(list)
    for e in events(trace):
        if e["ev"] == "start" and e["type"] == "KernelCh":
            sets[e["parent"]].append(e["channelId"])
    return sets


def align(model, kernels):
    """How many launches precede CUPTI's first kernel: names must match; among the shifts that fit, the one
    where most guard-kept collective readings agree with their kernel's duration."""
    best = None
    for s in range(5):
        ok = True
        for i, k in enumerate(kernels):
            ops = model.launches[i + s]["ops"] if i + s < len(model.launches) else []
            name = kernel_name(k)
            if not ops or not ((name == "SendRecv" and all(o["type"] == "P2p" for o in ops))
                               or any(o["func"] == name for o in ops)):
                ok = False
                break
        if ok:
            agree = 0
            for i, k in enumerate(kernels):
                for o in model.launches[i + s]["ops"]:
                    if o["type"] == "Coll" and o["got"]:
                        diff = max(b - a for a, b in o["got"].values()) - k["dur_us"] * 1000
                        agree += judge(diff, k["dur_us"] * 1000)
            if best is None or agree > best[0]:
                best = (agree, s)
    if best is None:
        sys.exit("the trace's launches do not line up with CUPTI's kernels")
    return best[1]


def judge(diff, kernel_ns):
    return -6000 <= diff <= 1000 + kernel_ns * 1e-5


def evaluate(directory, items=False, offline=False, cap=None):
    traces = sorted(glob.glob(os.path.join(directory, "trace", "trace-pid*.jsonl.gz")))
    trace = next(t for t in traces if next(e for e in events(t) if e["ev"] == "init")["rank"] == 0)
    kernels = [json.loads(line) for line in open(os.path.join(directory, "cupti-rank0.ndjson"))]
    model = Model(oracle_sets(trace) if offline else None)
    model.run(trace)
    shift = align(model, kernels)

    # GPU clock against CUPTI's clock: a line through (CUPTI start, earliest channel start) of the collectives
    # whose own readings were kept by the launch-bound guard (the two clocks drift apart by a few ppm)
    pts = []
    for op in model.order:
        if op["type"] == "Coll" and op["got"] and 0 <= op["launch"] - shift < len(kernels):
            k = kernels[op["launch"] - shift]
            pts.append((k["start_us"] * 1000, min(a for a, _ in op["got"].values()) - k["start_us"] * 1000))
    n = len(pts)
    mx = sum(p[0] for p in pts) / n
    my = sum(p[1] for p in pts) / n
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / max(sum((p[0] - mx) ** 2 for p in pts), 1)
    lowest = min(p[1] - my - slope * (p[0] - mx) for p in pts)       # channel starts come after kernel starts
    to_gpu = lambda us: us * 1000 + my + slope * (us * 1000 - mx) + lowest
    starts = [to_gpu(k["start_us"]) for k in kernels]
    ends = [to_gpu(k["start_us"] + k["dur_us"]) for k in kernels]

    def kernel_at(ts):
        """The kernel CUPTI saw running at GPU time ts (1 us of slack either side), or None."""
        i = bisect.bisect_right(starts, ts + 1000) - 1
        if i >= 0 and ts <= ends[i] + 1000:
            return i + shift
        return None

    if items:
        agree = defaultdict(int)
        for r in model.readings.values():
            if "owner" not in r:
                continue
            truth = kernel_at(r["start"])
            said = r["owner"]["launch"]
            k = None
            for kk in range(0, 6):
                y = model.owner[r["c"]].get(r["x"]["base"][r["c"]] + SLOTS * kk)
                if y is not None and y["launch"] == truth:
                    k = kk
                    break
            key = ("no CUPTI kernel" if truth is None else "rule k=0" if truth == said
                   else f"late by {k}x64" if k else "unexplained",
                   "kept" if r["safe_start"] else "dropped")
            agree[key] += 1
            if key[0] == "unexplained" and agree[key] <= 5:
                print("   unexplained:", r["c"], r["x"]["func"], "launch", r["x"]["launch"], "said", said,
                      "truth", truth)
        for k, v in sorted(agree.items()):
            print(f"   readings {k[0]:>14} {k[1]:>8}: {v}")

    placed = resolve(model)
    # the online form has no causal-only variant: one pass of the causal test is already online
    placed_online, most, dropped = (placed, 0, 0) if CAUSAL_ONLY else resolve_online(model, cap)
    if WHOLE:
        placed, most, dropped = resolve_whole(model)
        placed_online = placed
    same = all(placed[c][w] == placed_online[c].get(w) for c in placed for w in placed[c]) and \
        sum(len(v) for v in placed_online.values()) == sum(len(v) for v in placed.values())
    print(f"   online resolution {'places the same timestamps' if same else 'DIFFERS'}; at most {most}"
          f" timestamps parked on one channel, {dropped} dropped by a cap of {cap}")
    if not same:
        placed = placed_online
    if items:
        wrong_items = defaultdict(int)
        for c, its in placed.items():
            for w, v in its.items():
                y = model.owner[c][w]
                for kind, ts in v.items():
                    truth = kernel_at(ts)
                    if truth is None:
                        continue                    # before CUPTI's list (warm-up)
                    wrong_items["right" if truth == y["launch"] else "WRONG"] += 1
        print("   timestamps placed by resolve(), against the kernel CUPTI saw running:", dict(wrong_items))
        delivered = set()
        for h in model.halves:
            truth = kernel_at(h["ts"])
            if truth is not None:
                delivered.add((truth, h["c"], h["kind"]))
        ceiling = sum(1 for op in model.order if op["type"] == "Coll" and 0 <= op["launch"] - shift < len(kernels)
                      and all((op["launch"], c, k) in delivered for c in op["item"] for k in ("start", "stop")))
        print(f"   ceiling: {ceiling} collectives had every channel's start and stop delivered to some operation")

    res = {"today": [0, 0, 0], "guard": [0, 0, 0], "resolved": [0, 0, 0], "partial": [0, 0, 0, 0],
           "guard_partial": [0, 0, 0, 0]}
    for op in model.order:
        if op["type"] != "Coll" or op["launch"] is None or not 0 <= op["launch"] - shift < len(kernels):
            continue
        kernel_ns = kernels[op["launch"] - shift]["dur_us"] * 1000

        def score(key, times):
            if times is None:
                res[key][2] += 1
            else:
                diff = max(b - a for a, b in times) - kernel_ns
                res[key][0 if judge(diff, kernel_ns) else 1] += 1
        # today (approximately): channels whose item is their base, read directly; others withheld
        ok = [v for c, v in op["direct"].items() if op["item"].get(c) == op["base"].get(c)]
        score("today", ok or None)
        # guard only: every channel's own reading, kept when item base + 64 cannot have been launched
        score("guard", list(op["got"].values()) if op["item"] and all(c in op["got"] for c in op["item"])
              else None)
        # resolved: every channel's own start and stop placed
        got = [placed[c].get(w, {}) for c, w in op["item"].items()]
        score("resolved", [(v["start"], v["stop"]) for v in got]
              if op["item"] and all("start" in v and "stop" in v for v in got) else None)
        # resolved, and where some channels are missing a time from the others marked as a lower bound:
        # right / short lower bound / wrong (above the kernel, or a full time outside the window) / untimed
        for key, some in (("partial", [(v["start"], v["stop"]) for v in got if "start" in v and "stop" in v]),
                          ("guard_partial", list(op["got"].values()))):
            if not some:
                res[key][3] += 1
                continue
            diff = max(b - a for a, b in some) - kernel_ns
            if judge(diff, kernel_ns):
                res[key][0] += 1
            elif len(some) < len(op["item"]) and diff < 0:
                res[key][1] += 1
            else:
                res[key][2] += 1
    return res, model.stats


def main(argv):
    items = "--items" in argv
    offline = "--offline" in argv
    cap = int(argv[argv.index("--cap") + 1]) if "--cap" in argv else None
    global CAUSAL_ONLY, WHOLE
    CAUSAL_ONLY = "--causal-only" in argv
    WHOLE = "--whole" in argv
    dirs = [a for i, a in enumerate(argv) if not a.startswith("--") and not (i and argv[i - 1] == "--cap")]
    if not dirs:
        sys.exit(__doc__)
    print("| recording | own-count channels, no late-read guard | launch-bound guard | guard + lower bounds | resolved |"
          " resolved + lower bounds |")
    print("|---|---|---|---|---|---|")
    for d in dirs:
        res, stats = evaluate(d.rstrip("/"), items, offline, cap)
        cells = " | ".join("%d / %d / %d" % tuple(res[k]) for k in ("today", "guard"))
        cells += " | %d / %d short / %d / %d" % tuple(res["guard_partial"])
        cells += " | %d / %d / %d" % tuple(res["resolved"])
        cells += " | %d / %d short / %d / %d" % tuple(res["partial"])
        print(f"| `{os.path.basename(d.rstrip('/'))}` | {cells} |", dict(stats) if items else "")


if __name__ == "__main__":
    main(sys.argv[1:])
