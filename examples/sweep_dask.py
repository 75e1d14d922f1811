"""A parameter sweep on a Dask cluster: one compiled gradient, many parameter sets.

    python examples/sweep_dask.py                  # 2 worker processes on this machine
    python examples/sweep_dask.py --workers 4 --points 20000 --batch 500
    python examples/sweep_dask.py --threads        # workers are threads of this process

The model is a damped oscillation a * sin(w t) * exp(-d t) fitted by least squares to
16,384 fixed observations (`--observations`). `gradient =
nbgrad.compile(nbgrad.func.grad(loss))` is the loss's gradient in (a, w, d): traced on its
first call in each process, then run as one compiled call. The sweep evaluates it at
thousands of (a, w, d) in batches: one Dask task per batch (a task per point would cost
more in scheduling than the gradient itself), and the result is checked against a plain
loop in this process: equal to the last bit (compiled calls give eager execution's
results; every process computes the same).

The workers import this file as a module `sweep_dask` (`main` puts its folder on their
path), so the tasks name `batch_gradients` rather than carry a copy of it, and each
worker process keeps one compiled gradient: it traces it once,
and loads Numba's machine code from the kernel cache rather than compiling it again when
the workers share `NBGRAD_CACHE_DIR` (they inherit this process's environment). Needs
`pip install "nbgrad[dask]"`.
"""

import argparse
import os
import sys
import time

import numpy as np

import nbgrad as torch


def times(n):
    """The n observation times."""
    return np.linspace(0.0, 4.0, n)


def observations(n):
    """Fixed noisy observations of a=1.5, w=3, d=0.4 at `times(n)` (the same in every
    process)."""
    rng = np.random.default_rng(0)
    t = times(n)
    return 1.5 * np.sin(3.0 * t) * np.exp(-0.4 * t) + 0.05 * rng.standard_normal(t.shape)


def loss(theta, t, y):
    a, w, d = theta[0], theta[1], theta[2]
    return ((a * torch.sin(w * t) * torch.exp(-d * t) - y) ** 2).mean()


# observations the loss fits: a gradient then takes ~0.3 ms (one thread), enough work per
# task that Dask's scheduling (milliseconds per task) is small beside it
OBSERVATIONS = 16384

# d loss / d theta at one parameter set, compiled (fallback="raise": never silently eager)
gradient = torch.compile(torch.func.grad(loss), fallback="raise")


def batch_gradients(thetas, n=OBSERVATIONS):
    """The loss's gradient, fitted to n observations, at each row of `thetas` (k, 3): one
    Dask task."""
    t, y = torch.from_numpy(times(n)), torch.from_numpy(observations(n))
    return np.stack([gradient(torch.from_numpy(th), t, y).numpy() for th in thetas])


def sweep(client, thetas, batch, n=OBSERVATIONS):
    """`batch_gradients` over `thetas` in batches of `batch` rows on the cluster."""
    parts = [thetas[i : i + batch] for i in range(0, len(thetas), batch)]
    futures = client.map(batch_gradients, parts, n=n, pure=False)
    return np.concatenate(client.gather(futures))


def grid(points, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform([0.5, 1.0, 0.0], [2.5, 5.0, 1.0], (points, 3))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--points", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--observations", type=int, default=OBSERVATIONS)
    ap.add_argument("--threads", action="store_true", help="threads of this process")
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    here = os.path.dirname(os.path.abspath(__file__))
    os.environ["PYTHONPATH"] = os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])
    sys.path.insert(0, here)
    import sweep_dask  # this file as a module: its functions pickle by name

    thetas = grid(args.points)
    t0 = time.perf_counter()
    n = args.observations
    plain = sweep_dask.batch_gradients(thetas, n)  # the plain loop, in this process
    t_plain = time.perf_counter() - t0
    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=not args.threads,
            dashboard_address=None,
        ) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        sweep_dask.sweep(client, thetas[: args.workers], 1, n)  # each worker traces once
        t0 = time.perf_counter()
        out = sweep_dask.sweep(client, thetas, args.batch, n)
        t_sweep = time.perf_counter() - t0
    assert np.array_equal(out, plain), "the sweep differs from the plain loop"
    best = thetas[np.argmin(np.linalg.norm(out, axis=1))]
    print(f"{args.points} gradients: plain loop {t_plain:.2f} s (incl. first trace), "
          f"{args.workers} workers {t_sweep:.2f} s; identical to the plain loop")  # fmt: skip
    print(f"smallest gradient at a={best[0]:.3f} w={best[1]:.3f} d={best[2]:.3f}")


if __name__ == "__main__":
    main()
