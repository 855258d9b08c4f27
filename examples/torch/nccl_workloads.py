"""PyTorch workloads on NCCL for the GPU validation of NCCL releases and of kernel-time recovery, with
CUPTI's kernel durations as the independent clock.

Each rank runs the workload, then writes OUT/cupti-rank<R>.ndjson: one JSON line per NCCL kernel of its
GPU stream, in launch order, {"name", "start_us", "dur_us"} (the listing the project's ground-truth
checks read), and prints one summary line. Run one process per rank; on one GPU give each rank its own
NCCL host identity (NCCL_HOSTID=host<R> NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1): NCCL then connects
them over sockets, which also produces proxy events.

modes
  moe      100 steps: AllReduce 1 MiB, all_to_all_single 4 MiB (a send/recv to self: NCCL's channel
           counters go out of step), AllGather 4 MiB, ring send/recv 1 MiB
  pp       200 ring send/recv of 1 MiB and 16 MiB, no send to self
  bcast    60 steps: AllReduce 1 MiB, Broadcast 4 MiB from rank 0, AllReduce 64 KiB; every 10th step two
           Broadcasts from two roots in one group (NCCL >= 2.29 runs grouped roots as AllGatherV)
  bcast1   as bcast with single-root broadcasts only;  bcastg  with grouped two-root broadcasts only
  late     200 AllReduce 4 MiB; rank 1 arrives PLANT_MS late before every 10th (the others wait)
  gpuslow  200 AllReduce 4 MiB; before every 10th, rank 1's GPU is kept busy PLANT_MS first
  plain    200 AllReduce 4 MiB (run with the recorder's NCCL_RECORDER_PROXY_SLEEP_US on one rank: a
           slow proxy thread)

usage: python3 nccl_workloads.py RANK WORLD PORT MODE OUT_DIR
environment: PLANT_MS (default 5)
"""
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile


def ring(rank, world, send, recv):
    ops = [dist.P2POp(dist.isend, send, (rank + 1) % world), dist.P2POp(dist.irecv, recv, (rank - 1) % world)]
    for req in dist.batch_isend_irecv(ops):
        req.wait()


def grouped_broadcasts(dev, world, a, b):
    with dist._coalescing_manager(device=dev):
        dist.broadcast(a, 0)
        dist.broadcast(b, 1 % world)


def workload(mode, rank, world, dev, plant_ms):
    f32 = dict(device=dev, dtype=torch.float32)
    calls = 0
    if mode == "moe":
        x = torch.ones(1 << 18, **f32)
        a = torch.ones(world << 18, **f32)
        b = torch.empty_like(a)
        g_in = torch.ones(1 << 20, **f32)
        g_out = torch.empty(world << 20, **f32)
        s, r = torch.ones(1 << 18, **f32), torch.empty(1 << 18, **f32)
        for i in range(100):
            dist.all_reduce(x)
            dist.all_to_all_single(b, a)
            dist.all_gather_into_tensor(g_out, g_in)
            ring(rank, world, s, r)
            calls += 4
            if i % 10 == 9:
                torch.cuda.synchronize()
    elif mode == "pp":
        small = (torch.ones(1 << 18, **f32), torch.empty(1 << 18, **f32))
        big = (torch.ones(1 << 22, **f32), torch.empty(1 << 22, **f32))
        for i in range(200):
            ring(rank, world, *(small if i % 2 == 0 else big))
            calls += 1
            if i % 10 == 9:
                torch.cuda.synchronize()
    elif mode in ("bcast", "bcast1", "bcastg"):
        x = torch.ones(1 << 18, **f32)
        bc, bc2 = torch.ones(1 << 20, **f32), torch.ones(1 << 18, **f32)
        y = torch.ones(1 << 14, **f32)
        for i in range(60):
            dist.all_reduce(x)
            if mode in ("bcast", "bcast1"):
                dist.broadcast(bc, 0)
                calls += 1
            if mode == "bcastg" or (mode == "bcast" and i % 10 == 9):
                grouped_broadcasts(dev, world, bc, bc2)
                calls += 2
            dist.all_reduce(y)
            calls += 2
            if i % 10 == 9:
                torch.cuda.synchronize()
    elif mode in ("late", "gpuslow", "plain"):
        x = torch.ones(1 << 20, **f32)
        for i in range(200):
            if i % 10 == 5 and rank == 1 and mode == "late":
                torch.cuda.synchronize()
                time.sleep(plant_ms / 1000.0)
            if i % 10 == 5 and rank == 1 and mode == "gpuslow":
                torch.cuda._sleep(int(plant_ms * 1.98e6))  # ~1.98 GHz: cycles for PLANT_MS of GPU time
            dist.all_reduce(x)
            calls += 1
            if i % 10 == 9:
                torch.cuda.synchronize()
    else:
        raise SystemExit("unknown mode " + mode)
    torch.cuda.synchronize()
    return calls


def main():
    rank, world, port, mode, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    plant_ms = float(os.environ.get("PLANT_MS", "5"))
    dev = torch.device("cuda", rank % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world, device_id=dev)
    warm = torch.ones(1 << 18, device=dev)
    dist.all_reduce(warm)  # NCCL's lazy set-up outside the measured part
    torch.cuda.synchronize()
    t0 = time.time()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        calls = workload(mode, rank, world, dev, plant_ms)
    seconds = time.time() - t0
    kernels = sorted((e for e in prof.events() if e.device_type.name == "CUDA" and "nccl" in e.name.lower()),
                     key=lambda e: e.time_range.start)
    dist.barrier()
    torch.cuda.synchronize()
    dist.destroy_process_group()
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"cupti-rank{rank}.ndjson"), "w") as f:
        for e in kernels:
            f.write(json.dumps({"name": e.name[:60], "start_us": e.time_range.start, "dur_us": e.time_range.elapsed_us()})
                    + "\n")
    print(json.dumps({"rank": rank, "mode": mode, "calls": calls, "nccl_kernels": len(kernels), "seconds": round(seconds, 2),
                      "nccl": ".".join(map(str, torch.cuda.nccl.version()))}), flush=True)


if __name__ == "__main__":
    main()
