"""nbgrad.distributed benchmarks, on 2 ranks (or more):

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 mpiexec -n 2 python benchmarks/distributed_bench.py

  all_reduce-1M   all_reduce (SUM, in place) of 1M float32: nbgrad.distributed against
                  mpi4py's Allreduce(IN_PLACE) on the same NumPy array (the floor: nbgrad
                  adds its checks and a version count)
  ddp-step        one SGD step of the 784-256-10 ReLU MLP on 128 samples per rank under
                  DistributedDataParallel, against the same step without DDP run by every
                  rank at once on its 128 samples (the same compute; the difference is
                  the gradient all-reduce and DDP's bookkeeping); and that step followed
                  by a 1-float all_reduce (what the ranks' meeting alone costs)

Medians of timed rounds after warm-up; rank 0 prints one line per benchmark. The ranks
share this machine's cores: run it with one thread per rank.
"""

import statistics
import time

import numpy as np
from mpi4py import MPI

import nbgrad as torch
import nbgrad.distributed as dist
from nbgrad.nn.parallel import DistributedDataParallel as DDP


def timed(fn, rounds, warmup=5):
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(rounds):
        MPI.COMM_WORLD.Barrier()
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    # a round lasts as long as its slowest rank
    out = np.array(out)
    MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, out, op=MPI.MAX)
    return statistics.median(out.tolist())


def main():
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    comm = MPI.COMM_WORLD
    a = np.ones(1 << 20, np.float32)
    t = torch.from_numpy(np.ones(1 << 20, np.float32))
    raw = timed(lambda: comm.Allreduce(MPI.IN_PLACE, a), 50)
    ours = timed(lambda: dist.all_reduce(t), 50)

    def model():
        torch.manual_seed(0)
        nn = torch.nn
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    rng = np.random.default_rng(rank)
    x = torch.from_numpy(rng.standard_normal((128, 784)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, 128))
    loss_fn = torch.nn.CrossEntropyLoss()

    def stepper(m):
        opt = torch.optim.SGD(m.parameters(), lr=0.01)

        def step():
            opt.zero_grad(set_to_none=True)
            loss_fn(m(x), y).backward()
            opt.step()

        return step

    plain = timed(stepper(model()), 200)
    ddp = timed(stepper(DDP(model())), 200)
    alone = stepper(model())
    one = torch.zeros(1)

    def synced():  # the step alone, then a 1-float all-reduce: the ranks' rendezvous
        alone()
        dist.all_reduce(one)

    sync = timed(synced, 200)
    if rank == 0:
        print(f"ranks {world}")
        print(f"all_reduce-1M  nbgrad {ours * 1e3:.3f} ms  mpi4py {raw * 1e3:.3f} ms  "
              f"ratio {ours / raw:.2f}")  # fmt: skip
        print(f"ddp-step       DDP {ddp * 1e3:.3f} ms  without DDP {plain * 1e3:.3f} ms  "
              f"ratio {ddp / plain:.2f}")  # fmt: skip
        print(f"               without DDP + a 1-float all_reduce {sync * 1e3:.3f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
