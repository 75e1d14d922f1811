"""Data-parallel training of the 8x8 digits MLP: one process per rank, on MPI.

    mpiexec -n 2 python examples/train_digits_ddp.py            # 2 ranks on this machine
    mpiexec -n 2 python examples/train_digits_ddp.py --quick    # 3 epochs
    python examples/train_digits_ddp.py                         # a world of one

(As root, Open MPI also needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;
on Slurm: srun -n 2 python examples/train_digits_ddp.py. See docs/distributed.md.)

PyTorch's recipe, with `import nbgrad as torch`: `init_process_group("mpi")`, a
`DistributedSampler` giving each rank its share of every epoch, a `DataLoader` over it,
the model wrapped in `DistributedDataParallel` (rank 0's initial weights everywhere;
gradients averaged over ranks during `loss.backward()`), so every rank takes the same
optimizer steps. With `--batch-size B` per rank, a step sees B x world-size samples.
Rank 0 prints one line per epoch and the test accuracy. Needs scikit-learn and
`pip install "nbgrad[mpi]"` (plain `python` runs without mpi4py).
"""

import argparse
import time

import numpy as np
from _threads import limit_threads
from train_digits import accuracy, build, init_like_torch, load_data

import nbgrad as torch
import nbgrad.distributed as dist
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from nbgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def train(args):
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    limit_threads(args.threads)
    X_train, X_test, y_train, y_test = load_data(args.seed)
    data = TensorDataset(torch.from_numpy(X_train), torch.from_numpy(y_train))
    sampler = DistributedSampler(data, seed=args.seed)  # rank and world from the group
    loader = DataLoader(data, batch_size=args.batch_size, sampler=sampler)
    loss_fn = torch.nn.CrossEntropyLoss()
    # untimed: one step on a throwaway model loads the compiled kernels
    w0 = time.perf_counter()
    scratch = build(torch, args.hidden)
    loss_fn(scratch(torch.from_numpy(X_train[:8])), torch.from_numpy(y_train[:8])).backward()
    torch.optim.Adam(scratch.parameters()).step()
    warmup = time.perf_counter() - w0
    model = build(torch, args.hidden)
    init_like_torch(torch, model, args.seed + rank)  # differs per rank: DDP sends rank 0's
    ddp = DDP(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=args.lr)
    t0 = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        total = torch.zeros(2, dtype=torch.float64)  # (loss sum, samples) on this rank
        for xb, yb in loader:
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(ddp(xb), yb)
            loss.backward()  # gradients are averaged over the ranks here
            opt.step()
            total += torch.tensor([loss.item() * len(yb), len(yb)], dtype=torch.float64)
        dist.all_reduce(total)  # sums over ranks
        if rank == 0:
            acc = accuracy(torch, model, X_test, y_test)
            print(f"epoch {epoch:3d}  loss {total[0].item() / total[1].item():.4f}  "
                  f"test_acc {acc:.2%}", flush=True)  # fmt: skip
    elapsed = time.perf_counter() - t0
    # every rank holds the same weights: check, as a data-parallel run should
    flat = np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])
    mine = torch.from_numpy(flat.copy())
    top = torch.from_numpy(flat.copy())
    dist.all_reduce(top, dist.ReduceOp.MAX)
    dist.all_reduce(mine, dist.ReduceOp.MIN)
    assert np.array_equal(top.numpy(), mine.numpy()), "ranks hold different weights"
    if rank == 0:
        acc = accuracy(torch, model, X_test, y_test)
        print(f"{world} rank(s): test accuracy {acc:.2%}, training {elapsed:.2f} s "
              f"(+{warmup:.2f} s untimed warm-up); weights identical on every rank")  # fmt: skip
    dist.destroy_process_group()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=16, help="per rank")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads per rank")
    ap.add_argument("--quick", action="store_true", help="3 epochs (for tests)")
    args = ap.parse_args(argv)
    if args.quick:
        args.epochs = 3
    train(args)


if __name__ == "__main__":
    main()
