"""nbgrad.distributed benchmarks. One command runs them all (under 90 s on a 16-core
machine with a warm kernel cache; it launches the 2 MPI ranks itself, then the Dask part):

    python benchmarks/distributed_bench.py

  all_reduce-1M   all_reduce (SUM, in place) of 1M float32 on 2 ranks: nbgrad.distributed
                  against mpi4py's Allreduce(IN_PLACE) on the same NumPy array (the floor).
                  Target <= 1.2x.
  ddp-step        one SGD step of the digits MLP (64-128-128-10, ReLU) on a batch of 128
                  digits, 64 per rank, under DistributedDataParallel on 2 ranks, against
                  one process's step on its 64 samples without DDP (every rank runs it at
                  once: the same compute, so the difference is DDP's all-reduce and its
                  bookkeeping; target <= 1.15x), and against PyTorch's DDP on gloo with the
                  same model, data and ranks (target <= 0.25x; needs torch). Also shown:
                  the compiled DDP step (`nbgrad.compile`).
  dask-sweep      1,000 evaluations of `nbgrad.compile(nbgrad.func.grad(loss))`
                  (examples/sweep_dask.py: a fit to 16,384 observations, ~0.3 ms each on
                  one thread) in 2 batches on a LocalCluster of 2 worker processes,
                  against a plain loop in one process: throughput ratio, target >= 1.6x
                  (needs dask.distributed). A sweep gains only where the work outweighs
                  Dask's scheduling, milliseconds per task (the "empty tasks" row).

    python benchmarks/distributed_bench.py --dask   # the Dask part alone

The full run writes benchmarks/RESULTS-distributed.md (which `python -m benchmarks.report`
copies into RESULTS.md).

Each rank runs one thread (the ranks share the machine's cores). MPI figures are minima
(and medians) of timed rounds after warm-up, the compared functions alternating round by
round, each round timed on its slowest rank; Dask figures are the best of 5 alternating
sweeps. Rank 0 prints one line per benchmark.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
ONE_THREAD = {"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "MKL_NUM_THREADS": "1"}  # fmt: skip


def launch_mpi(json_path):
    """This file's MPI part on 2 ranks (root's Open MPI variables set)."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               **ONE_THREAD)  # fmt: skip
    extra = ["--oversubscribe"] if (os.cpu_count() or 1) < 2 else []
    cmd = [shutil.which("mpiexec") or "mpiexec", "-n", "2", *extra, sys.executable,
           __file__, "--mpi", json_path]  # fmt: skip
    subprocess.run(cmd, env=env, check=True)


# -- the MPI part -------------------------------------------------------------------------------
def digits_batch(n):
    """n digits (8x8, scaled to 0..1) and labels; random stand-ins without scikit-learn."""
    try:
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return (X[:n] / 16.0).astype(np.float32), y[:n].astype(np.int64)
    except ImportError:
        rng = np.random.default_rng(0)
        return rng.random((n, 64), np.float32), rng.integers(0, 10, n)


def row(group, name, nb, peer, pr, target, higher=False):
    """One result: (min, median) seconds of nbgrad and of its peer; the ratio of minima
    against the target (a ceiling, or a floor when `higher`)."""
    nb, pr = [float(v) for v in nb], pr and [float(v) for v in pr]
    r = nb[0] / pr[0] if pr else None
    ok = None if target is None or r is None else bool(r >= target if higher else r <= target)
    return {"group": group, "name": name, "nb": nb, "peer": peer, "pr": pr, "ratio": r,
            "target": target, "higher": higher, "ok": ok}  # fmt: skip


def mpi_part(json_path):
    from mpi4py import MPI

    import nbgrad
    import nbgrad.distributed as dist
    from nbgrad.nn.parallel import DistributedDataParallel as DDP

    sys.path.insert(0, str(EXAMPLES))
    from train_digits import build

    comm = MPI.COMM_WORLD

    def timed(fns, rounds, warmup=10):
        """Per function: (min, median) seconds over `rounds` rounds, the functions
        alternating within each round (the machine's load falls on all of them alike);
        a round of a function lasts as long as its slowest rank."""
        for f in fns:
            for _ in range(warmup):
                f()
        out = np.zeros((rounds, len(fns)))
        for r in range(rounds):
            for k, f in enumerate(fns):
                comm.Barrier()
                t0 = time.perf_counter()
                f()
                out[r, k] = time.perf_counter() - t0
        comm.Allreduce(MPI.IN_PLACE, out, op=MPI.MAX)
        return [(out[:, k].min(), float(np.median(out[:, k]))) for k in range(len(fns))]

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    a = np.zeros(1 << 20, np.float32)  # (zeros: the sums stay finite)
    t = nbgrad.from_numpy(np.zeros(1 << 20, np.float32))
    raw, ours = timed([lambda: comm.Allreduce(MPI.IN_PLACE, a), lambda: dist.all_reduce(t)], 100)

    X, Y = digits_batch(128)
    half = slice(rank * 64, (rank + 1) * 64)
    x, y = nbgrad.from_numpy(X[half].copy()), nbgrad.from_numpy(Y[half].copy())
    loss_fn = nbgrad.nn.CrossEntropyLoss()

    def model():
        nbgrad.manual_seed(0)
        return build(nbgrad, 128)

    def stepper(m, compiled=False):
        opt = nbgrad.optim.SGD(m.parameters(), lr=0.01)

        def step(x, y):
            opt.zero_grad(set_to_none=True)
            loss_fn(m(x), y).backward()
            opt.step()

        f = nbgrad.compile(step, fallback="raise") if compiled else step
        return lambda: f(x, y)

    steps = [stepper(model()), stepper(DDP(model())), stepper(model(), True),
             stepper(DDP(model()), True)]  # fmt: skip
    plain, ddp, plain_c, ddp_c = timed(steps, 300)
    torch_ddp = torch_part(rank, world, X[half], Y[half], timed)

    grads = np.zeros(sum(p.numel() for p in model().parameters()), np.float32)
    (floor,) = timed([lambda: comm.Allreduce(MPI.IN_PLACE, grads)], 300)
    if rank == 0:
        rows = [
            row("all_reduce-1M", "nbgrad", ours, "mpi4py", raw, 1.2),
            row("ddp-step", "nbgrad DDP", ddp, "one process, half batch", plain, 1.15),
            row("ddp-step", "nbgrad DDP compiled", ddp_c, "one process compiled", plain_c, None),
            row("ddp-step", "its gradients' all_reduce", floor, "(mpi4py, alone)", None, None),
        ]
        if torch_ddp is not None:
            rows += [
                row("ddp-step", "nbgrad DDP", ddp, "torch DDP (gloo)", torch_ddp, 0.25),
                row("ddp-step", "nbgrad DDP compiled", ddp_c, "torch DDP (gloo)", torch_ddp, 0.25),
            ]
        with open(json_path, "w") as f:
            json.dump(rows, f)
    dist.destroy_process_group()


def torch_part(rank, world, X, Y, timed):
    """PyTorch's DDP step on gloo (rendezvous over TCP on localhost, the port chosen by
    rank 0), the same model and data; None without torch."""
    from mpi4py import MPI

    try:
        import torch
        import torch.distributed as tdist
    except ImportError:
        return None
    torch.set_num_threads(1)
    port = None
    if rank == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    port = MPI.COMM_WORLD.bcast(port, root=0)
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                             world_size=world)  # fmt: skip
    sys.path.insert(0, str(EXAMPLES))
    from train_digits import build

    torch.manual_seed(0)
    m = torch.nn.parallel.DistributedDataParallel(build(torch, 128))
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.from_numpy(X.copy()), torch.from_numpy(Y.copy())

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(m(x), y).backward()
        opt.step()

    (out,) = timed([step], 300)  # (after nbgrad's: the machine's load may differ)
    tdist.destroy_process_group()
    return out


# -- the Dask part ------------------------------------------------------------------------------
def dask_part():
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        print("dask-sweep: dask.distributed is not installed, skipped")
        return []
    os.environ.update(ONE_THREAD)  # (before nbgrad loads; the workers inherit it)
    # the workers import sweep_dask by name (its compiled gradient then lives per worker)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(EXAMPLES), str(HERE.parent), os.environ.get("PYTHONPATH", "")]
    )
    sys.path.insert(0, str(EXAMPLES))
    import sweep_dask

    thetas = sweep_dask.grid(1000)
    sweep_dask.batch_gradients(thetas[:2])  # traced once in this process

    def seconds(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        sweep_dask.sweep(client, thetas[:4], 1)  # each worker traces and loads kernels once
        halves = [thetas[:500], thetas[500:]]
        plain, dask, empty = [], [], []
        for _ in range(5):  # alternating
            plain.append(seconds(lambda: sweep_dask.batch_gradients(thetas)))
            dask.append(seconds(lambda: sweep_dask.sweep(client, thetas, 500)))
            # the same two tasks doing nothing: Dask's own cost per sweep
            empty.append(seconds(lambda: client.gather(client.map(len, halves, pure=False))))

    def stats(ts):
        return min(ts), float(np.median(ts))

    # throughput ratio: the plain loop's time over the sweep's
    return [
        row("dask-sweep", "plain loop", stats(plain), "2 workers, 2 batches of 500",
            stats(dask), 1.6, higher=True),
        row("dask-sweep", "(2 empty tasks: Dask's cost)", stats(empty), "", None, None),
    ]  # fmt: skip


def fmt(t):
    return "-" if t is None else f"{t[0] * 1e3:.3f} ms ({t[1] * 1e3:.3f})"


def table(rows):
    lines = ["| benchmark | nbgrad | min (median) | vs | min (median) | ratio | target | met? |",
             "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}x"
        target = "-" if r["target"] is None else f"{'>=' if r['higher'] else '<='} {r['target']}x"
        met = {True: "MET", False: "missed", None: "ref"}[r["ok"]]
        lines.append(f"| {r['group']} | {r['name']} | {fmt(r['nb'])} | {r['peer']} | "
                     f"{fmt(r['pr'])} | {ratio} | {target} | {met} |")  # fmt: skip
    return "\n".join(lines)


def write(rows, path, seconds):
    sys.path.insert(0, str(HERE.parent))
    from benchmarks._env import cpu_model

    met = sum(r["ok"] is True for r in rows)
    judged = sum(r["ok"] is not None for r in rows)
    load = " / ".join(f"{v:.2f}" for v in os.getloadavg())
    text = f"""# nbgrad distributed benchmark results

Generated by `python benchmarks/distributed_bench.py` (do not edit by hand; rerun it).
`python -m benchmarks.report` copies this table into RESULTS.md.

- **date**: {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
- **machine**: {cpu_model()}, {os.cpu_count()} logical cores; \
2 MPI ranks of 1 thread each; load average at end (1/5/15 min): {load}
- **run time**: {seconds:.0f} s

{met} of {judged} targets met. Ratio = the first column's min time over the peer's
(dask-sweep: the plain loop's over the sweep's, i.e. the throughput gain).

{table(rows)}
"""
    Path(path).write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpi", metavar="JSON", help="the MPI part (run under mpiexec): rank 0 "
                    "writes its results to JSON")  # fmt: skip
    ap.add_argument("--dask", action="store_true", help="the Dask part alone")
    ap.add_argument("--output", default=str(HERE / "RESULTS-distributed.md"),
                    help="markdown file to (re)write")  # fmt: skip
    args = ap.parse_args()
    if args.mpi:
        mpi_part(args.mpi)
        return
    t0 = time.perf_counter()
    rows = []
    if not args.dask:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "mpi.json")
            launch_mpi(path)
            rows = json.loads(Path(path).read_text())
    rows += dask_part()
    seconds = time.perf_counter() - t0
    print(table(rows))
    print(f"(all in {seconds:.0f} s)")
    if not args.dask:
        write(rows, args.output, seconds)
        print(f"written to {args.output}")


if __name__ == "__main__":
    main()
