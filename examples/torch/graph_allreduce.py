"""A CUDA graph of 3 AllReduces over NCCL, captured once and replayed, one process per GPU (PyTorch).

The workload that hung on 2 x H200 under NVIDIA's reference Inspector plugin (issue 13). Run it with
and without a profiler plugin (NCCL_PROFILER_PLUGIN) through examples/torch/graph-hang.sh, which
collects every thread's stack of a process still running after the time limit.

usage: python3 graph_allreduce.py RANK WORLD INIT_FILE [REPLAYS]
"""
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    rank, world, init_file = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    replays = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method="file://" + init_file, rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    x = [torch.ones(1 << 18, device="cuda") for _ in range(3)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for t in x:  # warm-up outside the graph (NCCL's lazy set-up)
            dist.all_reduce(t)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for t in x:
            dist.all_reduce(t)
    print(f"[rank {rank}] captured", flush=True)
    t0 = time.time()
    for i in range(replays):
        g.replay()
        if i % 20 == 0:
            torch.cuda.synchronize()
            print(f"[rank {rank}] replay {i} ok ({time.time() - t0:.2f} s)", flush=True)
    torch.cuda.synchronize()
    print(f"[rank {rank}] {replays} replays in {time.time() - t0:.2f} s", flush=True)
    del g
    dist.destroy_process_group()
    print(f"[rank {rank}] done", flush=True)


if __name__ == "__main__":
    main()
