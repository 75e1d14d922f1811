"""Fit a damped oscillator's stiffness and damping by gradient descent through its simulation.

    python examples/physics_fit.py                 # nbgrad, then PyTorch if installed
    python examples/physics_fit.py --backend nbgrad
    python examples/physics_fit.py --quick         # a few iterations (the test suite's run)

The model is x'' = -k x - c x', integrated with semi-implicit Euler for `--steps` small
time steps. Each fitting iteration runs the whole simulation forward (about ten scalar
ops per time step, thousands of ops in all), compares the trajectory with noisy
observations, and back-propagates through every step to get d loss / d (k, c). This is
the workload nbgrad is built for: many tiny ops, where a framework's per-op overhead is
the whole cost. The same code runs on PyTorch (`import torch`), which is how the script
times the two side by side.
"""

import argparse
import importlib.util
import math
import time

import numpy as np
from _backend import load_backend
from _plots import integer_ticks, plot_path, pyplot
from _threads import limit_threads

TRUE_K, TRUE_C = 4.0, 0.35  # stiffness and damping that generated the data
X0, V0 = 1.0, 0.0


def trajectory(k, c, steps, dt):
    """Positions of the oscillator x'' = -k x - c x' (the model's integrator, in NumPy)."""
    x, v, xs = X0, V0, []
    for _ in range(steps):
        v = v + dt * -(k * x + c * v)
        x = x + dt * v
        xs.append(x)
    return np.array(xs)


def observations(steps, dt, noise, seed):
    """Positions of the true oscillator, plus Gaussian noise."""
    rng = np.random.default_rng(seed)
    return (trajectory(TRUE_K, TRUE_C, steps, dt) + noise * rng.standard_normal(steps)).tolist()


def make_model(torch):
    nn = torch.nn

    class Oscillator(nn.Module):
        """Parameters are log k and log c (so both stay positive)."""

        def __init__(self, k0, c0):
            super().__init__()
            self.log_k = nn.Parameter(torch.tensor(math.log(k0), dtype=torch.float64))
            self.log_c = nn.Parameter(torch.tensor(math.log(c0), dtype=torch.float64))

        def forward(self, obs, dt):
            k, c = self.log_k.exp(), self.log_c.exp()
            x = torch.tensor(X0, dtype=torch.float64)
            v = torch.tensor(V0, dtype=torch.float64)
            loss = 0.0
            for o in obs:  # one small time step per observation
                a = k * x + c * v
                v = v - dt * a
                x = x + dt * v
                d = x - o
                loss = loss + d * d
            return loss / len(obs)

    return Oscillator


def progress(iterable, total, desc, enabled=True):
    """tqdm when it is installed, else a plain counter (the same one-line-per-run idea)."""
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm

        return tqdm(iterable, total=total, desc=desc, leave=True, mininterval=0.5)
    except ImportError:
        return iterable


def fit(backend, args, obs):
    torch = load_backend(backend)
    limit_threads(args.threads, torch)
    torch.manual_seed(0)
    model = make_model(torch)(args.k0, args.c0)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    losses = []
    bar = progress(range(args.iters), args.iters, f"{backend:>6}", not args.no_progress)
    t0 = time.perf_counter()
    for it in bar:
        opt.zero_grad()
        loss = model(obs, args.dt)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(loss=f"{losses[-1]:.3e}", refresh=False)
        elif not args.no_progress and (it % max(1, args.iters // 10) == 0):
            print(f"{backend:>6} iter {it:4d}  loss {losses[-1]:.4e}")
    elapsed = time.perf_counter() - t0
    k, c = math.exp(model.log_k.item()), math.exp(model.log_c.item())
    return {"time": elapsed, "k": k, "c": c, "loss": losses[-1], "losses": losses}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["both", "nbgrad", "torch"], default="both")
    ap.add_argument("--steps", type=int, default=400, help="time steps per simulation")
    ap.add_argument("--dt", type=float, default=0.025)
    ap.add_argument("--iters", type=int, default=150, help="gradient-descent iterations")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--k0", type=float, default=3.0, help="initial guess of k")
    ap.add_argument("--c0", type=float, default=0.1, help="initial guess of c")
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--quick", action="store_true", help="a short run (for tests)")
    ap.add_argument("--plot", default=None, help="PNG path (default: physics_fit.png)")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="cap BLAS/OpenMP threads (0: no cap)")
    args = ap.parse_args(argv)
    if args.quick:
        args.steps, args.iters = 100, 5

    backends = [args.backend] if args.backend != "both" else ["nbgrad"]
    if args.backend == "both":
        if importlib.util.find_spec("torch") is not None:
            backends.append("torch")
        else:
            print("(PyTorch is not installed: timing nbgrad alone)")
    obs = observations(args.steps, args.dt, args.noise, seed=1)
    print(
        f"damped oscillator: {args.steps} steps of dt={args.dt}, {args.iters} Adam iterations; "
        f"true k={TRUE_K}, c={TRUE_C}; start k={args.k0}, c={args.c0}"
    )
    results = {}
    for b in backends:
        # untimed: one iteration loads compiled kernels (nbgrad) / warms up (torch)
        warmup = fit(b, argparse.Namespace(**{**vars(args), "iters": 1, "no_progress": True}), obs)
        results[b] = r = fit(b, args, obs)
        print(
            f"{b:>6}: k={r['k']:.4f} c={r['c']:.4f} final loss {r['loss']:.3e}  "
            f"time {r['time']:.2f} s ({1e3 * r['time'] / args.iters:.1f} ms per iteration; "
            f"+{warmup['time']:.2f} s untimed warm-up)"
        )
    if len(results) == 2:
        a, b = results["nbgrad"], results["torch"]
        print(
            f"nbgrad / torch wall time: {a['time'] / b['time']:.2f}x "
            f"(k differs by {abs(a['k'] - b['k']):.1e}, c by {abs(a['c'] - b['c']):.1e})"
        )
    if not args.no_plot and (plt := pyplot()) is not None:
        path = plot_path(args.plot, "physics_fit.png", args.quick)
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
        for name, r in results.items():
            a1.semilogy(range(1, len(r["losses"]) + 1), r["losses"], label=name)
        a1.set_xlabel("iteration")
        a1.set_ylabel("mean squared error")
        a1.set_title("loss")
        integer_ticks(a1)
        a1.legend()
        r = results[backends[0]]
        times = args.dt * np.arange(1, args.steps + 1)
        a2.plot(times, obs, ".", ms=3, color="gray", label="observations")
        start = trajectory(args.k0, args.c0, args.steps, args.dt)
        start_label = f"start: k={args.k0:.2f}, c={args.c0:.2f}"
        a2.plot(times, start, ":", color="tab:blue", label=start_label)
        fitted = trajectory(r["k"], r["c"], args.steps, args.dt)
        a2.plot(times, fitted, "r", label=f"fit: k={r['k']:.2f}, c={r['c']:.2f}")
        a2.set_xlabel("time")
        a2.set_ylabel("position x")
        a2.set_title(f"damped oscillator ({backends[0]})")
        a2.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        print(f"plot written to {path}")
    return results


if __name__ == "__main__":
    main()
