#!/usr/bin/env python3
"""Test fixtures (testdata/traces/s*) from the release matrix's output (examples/release-matrix.sh).

usage: examples/make-matrix-fixtures.py MATRIX_PARENT TRACES_DIR
  MATRIX_PARENT  the directory holding the unpacked matrix-<release> directories
  TRACES_DIR     testdata/traces

Each fixture holds what its tests read and nothing more, compressed: the recorded callbacks
(trace/trace-pid<P>.jsonl.gz), CUPTI's kernel list (cupti-rank<R>.ndjson), NVIDIA's Inspector of the same
run (inspector/vm-pid<P>.log.gz), this project's live records where the Java program ran it
(live-rank0.ndjson), and nccl-info.txt saying which run it was.
"""
import gzip
import json
import shutil
import sys
from pathlib import Path

# fixture: (release, run, ranks kept, what it shows)
FIXTURES = {
    "s28_moe": ("2.28.9", "torch-moe", [0], "MoE loop (AllReduce 1 MiB, all_to_all_single 4 MiB, AllGather 4 MiB, ring send/recv 1 MiB, 100 steps)"),
    "s29_moe": ("2.29.7", "torch-moe", [0], "the same MoE loop"),
    "s30_moe": ("2.30.7", "torch-moe", [0], "the same MoE loop"),
    "s29_bcast": ("2.29.7", "torch-bcast", [0], "60 steps AllReduce 1 MiB + Broadcast 4 MiB + AllReduce 64 KiB, grouped two-root broadcasts every 10th step; NCCL_ALLGATHERV_ENABLE=0 as enable() sets it"),
    "s30_bcast": ("2.30.7", "torch-bcast", [0], "the same broadcast loop, NCCL_ALLGATHERV_ENABLE=0"),
    "s30_bcast_raw": ("2.30.7", "torch-bcast-raw", [0], "the same broadcast loop with NCCL's default (AllGatherV path): broadcasts without events, the job hung at the first grouped broadcasts and was killed (trace cut)"),
    "s28_late": ("2.28.9", "plant-late", [0, 1], "200 AllReduce 4 MiB; rank 1 arrives 5 ms late before every 10th"),
    "s28_gpuslow": ("2.28.9", "plant-gpuslow", [0, 1], "200 AllReduce 4 MiB; before every 10th, rank 1's GPU busy 5 ms first"),
    "s28_proxy": ("2.28.9", "plant-proxy", [0, 1], "200 AllReduce 4 MiB; rank 1's proxy thread sleeps 200 us in every ProxyStep callback (no NVIDIA Inspector)"),
    "s30_java_raw": ("2.30.7", "java-raw", [0], "the Java benchmark with NcclInspector.enable() and its NCCL workaround off: AllReduce, Broadcast, grouped two-root broadcasts, AllReduce; the job hung at the grouped broadcasts and was killed; live records of rank 0"),
    "s30_java_on": ("2.30.7", "java-on", [0], "the same Java benchmark with the workaround on (NCCL_ALLGATHERV_ENABLE=0 set by enable()); live records of rank 0"),
}


def first_line(path):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.loads(f.readline())


def gz(src, dst):
    dst.parent.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if str(src).endswith(".gz") else open
    with opener(src, "rb") as i, gzip.open(dst, "wb", compresslevel=9) as o:
        shutil.copyfileobj(i, o)


def main():
    parent, traces = Path(sys.argv[1]), Path(sys.argv[2])
    for name, (release, run, ranks, what) in FIXTURES.items():
        src = parent / f"matrix-{release}" / run
        dst = traces / name
        if dst.exists():
            shutil.rmtree(dst)
        pids = {}
        for t in sorted((src / "trace").glob("trace-pid*.jsonl*")):
            rank = first_line(t).get("rank")
            if rank in ranks:
                pid = t.name.split("pid")[1].split(".")[0]
                pids[rank] = pid
                gz(t, dst / "trace" / f"trace-pid{pid}.jsonl.gz")
        for r in ranks:
            c = src / f"cupti-rank{r}.ndjson"
            if c.exists():
                shutil.copy(c, dst / c.name)
            for ref in (src / "reference").glob(f"*-pid{pids.get(r)}.log"):
                gz(ref, dst / "inspector" / f"vm-pid{pids[r]}.log.gz")
        if run.startswith("java-"):
            for f in (src / "inspector").glob(f"vm-pid{pids.get(0)}*.log"):
                with open(f) as i, open(dst / "live-rank0.ndjson", "a") as o:
                    o.write(i.read())
        (dst / "nccl-info.txt").write_text(f"NCCL {release}, one H200, 2 ranks over loopback sockets "
                                           f"(NCCL_HOSTID per rank); run {run} of examples/release-matrix.sh: {what}\n")
        size = sum(p.stat().st_size for p in dst.rglob("*") if p.is_file())
        print(f"{name}: {size} bytes")


if __name__ == "__main__":
    main()
