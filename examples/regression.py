"""Curve fitting with Adam: a small MLP learns y = sin(2x) + x/2 from noisy samples.

    python examples/regression.py              # nbgrad
    python examples/regression.py --backend torch
    python examples/regression.py --quick      # a few epochs (the test suite's run)

Full-batch training of a 1-32-32-1 tanh network with `nn.MSELoss` and `optim.Adam`, and a
`StepLR` schedule; shows a progress bar over the epochs (tqdm, when installed) and the final
error on a clean grid, and writes a PNG of the fit and of the loss curve when matplotlib is
installed (regression.png; regression-quick.png with --quick).
"""

import argparse
import math
import time

import numpy as np
from _backend import load_backend
from _plots import integer_ticks, plot_path, pyplot
from _progress import Progress
from _threads import limit_threads


def target(x):
    return np.sin(2 * x) + 0.5 * x


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["nbgrad", "torch"], default="nbgrad")
    ap.add_argument("--epochs", type=int, default=1500)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--quick", action="store_true", help="100 epochs (for tests)")
    ap.add_argument("--plot", default=None, help="PNG path (default: regression.png)")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="cap BLAS/OpenMP threads (0: no cap)")
    args = ap.parse_args(argv)
    if args.quick:
        args.epochs = 100

    torch = load_backend(args.backend)
    limit_threads(args.threads, torch)
    nn = torch.nn
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = rng.uniform(-math.pi, math.pi, (args.samples, 1)).astype(np.float32)
    y = (target(x) + 0.1 * rng.standard_normal(x.shape)).astype(np.float32)
    X, Y = torch.from_numpy(x), torch.from_numpy(y)

    def mlp():
        return nn.Sequential(
            nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
        )

    model = mlp()
    loss_fn = nn.MSELoss()
    # untimed: one step on a throwaway model loads compiled kernels (nbgrad) / warms up (torch)
    w0 = time.perf_counter()
    scratch = mlp()
    loss_fn(scratch(X[:8]), Y[:8]).backward()
    torch.optim.Adam(scratch.parameters()).step()
    warmup = time.perf_counter() - w0

    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=max(1, args.epochs // 3), gamma=0.3)
    losses = []
    bar = Progress(args.epochs, f"{args.backend:>6}", args.no_progress, every=args.epochs // 10)
    t0 = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        opt.zero_grad()
        loss = loss_fn(model(X), Y)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        bar.update(epoch, mse=f"{losses[-1]:.5f}", lr=f"{sched.get_last_lr()[0]:.2e}")
    bar.close()
    elapsed = time.perf_counter() - t0

    grid = np.linspace(-math.pi, math.pi, 400, dtype=np.float32)[:, None]
    with torch.no_grad():
        pred = model(torch.from_numpy(grid)).numpy()
    rmse = float(np.sqrt(np.mean((pred - target(grid)) ** 2)))
    print(
        f"[{args.backend}] RMSE to the clean curve: {rmse:.4f}; training took {elapsed:.2f} s "
        f"(+{warmup:.2f} s untimed warm-up)"
    )

    if not args.no_plot and (plt := pyplot()) is not None:
        path = plot_path(args.plot, "regression.png", args.quick)
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
        a1.scatter(x[:, 0], y[:, 0], s=6, alpha=0.5, label="noisy samples")
        a1.plot(grid[:, 0], target(grid)[:, 0], "k--", label="true curve sin(2x) + x/2")
        a1.plot(grid[:, 0], pred[:, 0], "r", label="fitted MLP")
        a1.set_xlabel("x")
        a1.set_ylabel("y")
        a1.set_title(f"data and fit ({args.backend})")
        a1.legend()
        a2.semilogy(range(1, len(losses) + 1), losses)
        a2.set_xlabel("epoch")
        a2.set_ylabel("training MSE")
        a2.set_title("loss")
        integer_ticks(a2)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        print(f"plot written to {path}")
    return rmse


if __name__ == "__main__":
    main()
