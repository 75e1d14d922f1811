"""Train an MLP on scikit-learn's 8x8 handwritten digits, on nbgrad or on PyTorch.

    python examples/train_digits.py                    # nbgrad
    python examples/train_digits.py --backend torch    # the same code on PyTorch
    python examples/train_digits.py --quick            # 3 epochs (the test suite's run)
    python examples/train_digits.py --compile          # the training step under nbgrad.compile

Needs scikit-learn (the dataset ships inside it: no download); tqdm and matplotlib are
used when installed (`pip install -e ".[examples]"`). The script is PyTorch code: only
the import differs (`import nbgrad as torch`). It prints one progress line per epoch,
the test accuracy, the wall time of training and the time it took to first reach the
target accuracy (95%), and writes a PNG of the loss curves.
"""

import argparse
import time

import numpy as np
from _backend import load_backend
from _plots import integer_ticks, plot_path, pyplot
from _progress import Progress
from _threads import limit_threads


def load_data(seed):
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)  # pixel values 0..16 -> 0..1
    return train_test_split(X, y.astype(np.int64), test_size=0.25, random_state=seed, stratify=y)


def build(torch, hidden):
    nn = torch.nn
    return nn.Sequential(
        nn.Linear(64, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, 10),
    )


def init_like_torch(torch, model, seed):
    """PyTorch's default Linear init, drawn with NumPy so both backends start identical."""
    rng = np.random.default_rng(seed)
    state = {}
    for name, t in model.state_dict().items():
        fan_in = (
            t.shape[1] if len(t.shape) == 2 else state[name[: -len("bias")] + "weight"].shape[1]
        )
        bound = 1.0 / np.sqrt(fan_in)
        state[name] = torch.from_numpy(
            rng.uniform(-bound, bound, tuple(t.shape)).astype(np.float32)
        )
    model.load_state_dict(state)


def accuracy(torch, model, X, y):
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(X)).numpy().argmax(1)
    model.train()
    return float((pred == y).mean())


def make_step(torch, model, opt, loss_fn, compiled):
    """One training step; with `compiled`, under nbgrad.compile: traced once per batch
    shape, then forward and backward run as one compiled call, then the optimizer's step."""

    def step(xb, yb):
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        return loss

    return torch.compile(step, fallback="raise") if compiled else step


def train(args):
    torch = load_backend(args.backend)
    limit_threads(args.threads, torch)
    X_train, X_test, y_train, y_test = load_data(args.seed)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    # one untimed step on a throwaway model: loads compiled kernels (nbgrad) / warms up (torch)
    w0 = time.perf_counter()
    scratch = build(torch, args.hidden)
    torch.nn.CrossEntropyLoss()(
        scratch(torch.from_numpy(X_train[:8])), torch.from_numpy(y_train[:8])
    ).backward()
    torch.optim.Adam(scratch.parameters()).step()
    loss_fn = torch.nn.CrossEntropyLoss()
    n = len(X_train)
    if args.compile:  # compile the step's programs (batch, last batch) on the scratch model
        step = make_step(torch, scratch, torch.optim.Adam(scratch.parameters()), loss_fn, True)
        for m in {args.batch_size, n % args.batch_size or args.batch_size}:
            for _ in range(2):  # trace, then compile (cached on disk by program source)
                step(torch.from_numpy(X_train[:m]), torch.from_numpy(y_train[:m]))
    warmup = time.perf_counter() - w0
    model = build(torch, args.hidden)
    init_like_torch(torch, model, args.seed)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    step = make_step(torch, model, opt, loss_fn, args.compile)
    history = {"train_loss": [], "test_acc": []}
    reached = None
    bar = Progress(args.epochs, f"{args.backend:>6}", args.no_progress)
    t0 = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        perm = rng.permutation(n)
        total = 0.0
        for i in range(0, n, args.batch_size):
            idx = perm[i : i + args.batch_size]
            xb = torch.from_numpy(X_train[idx])
            yb = torch.from_numpy(y_train[idx])
            loss = step(xb, yb)
            total += loss.item() * len(idx)
        sched.step()
        acc = accuracy(torch, model, X_test, y_test)
        history["train_loss"].append(total / n)
        history["test_acc"].append(acc)
        if reached is None and acc >= args.target:
            reached = time.perf_counter() - t0
        bar.update(epoch, loss=f"{total / n:.4f}", test_acc=f"{acc:.2%}")
    elapsed = time.perf_counter() - t0
    bar.close()
    return {
        "time": elapsed,
        "time_to_target": reached,
        "acc": history["test_acc"][-1],
        "history": history,
        "warmup": warmup,
    }


def plot(path, backend, history):
    plt = pyplot()
    if plt is None:
        return
    epochs = range(1, len(history["train_loss"]) + 1)
    fig, ax1 = plt.subplots(figsize=(6, 4))
    ax1.plot(epochs, history["train_loss"], label="train loss", color="tab:blue")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.set_yscale("log")
    integer_ticks(ax1)
    ax2 = ax1.twinx()
    ax2.plot(epochs, history["test_acc"], label="test accuracy", color="tab:orange")
    ax2.set_ylabel("test accuracy")
    ax1.set_title(f"8x8 digits MLP ({backend})")
    handles = ax1.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax1.legend(handles, [h.get_label() for h in handles], loc="center right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"loss curve written to {path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["nbgrad", "torch"], default="nbgrad")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--target", type=float, default=0.95, help="accuracy to time")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="3 epochs (for tests)")
    ap.add_argument("--compile", action="store_true", help="train with nbgrad.compile(step)")
    ap.add_argument(
        "--plot",
        default=None,
        help="PNG path (default: digits_loss_<backend>.png; -quick.png with --quick)",
    )
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="cap BLAS/OpenMP threads (0: no cap)")
    args = ap.parse_args(argv)
    if args.compile and args.backend != "nbgrad":
        ap.error("--compile is nbgrad.compile (the nbgrad backend only)")
    if args.quick:
        args.epochs = 3
    r = train(args)
    reached = f"{r['time_to_target']:.2f} s" if r["time_to_target"] is not None else "not reached"
    name = args.backend + (" compiled" if args.compile else "")
    print(
        f"[{name}] test accuracy {r['acc']:.2%} after {args.epochs} epochs; "
        f"wall time {r['time']:.2f} s; time to {args.target:.0%}: {reached} "
        f"(+{r['warmup']:.2f} s untimed warm-up)"
    )
    if not args.no_plot:
        path = plot_path(args.plot, f"digits_loss_{args.backend}.png", args.quick)
        plot(path, args.backend, r["history"])
    return r


if __name__ == "__main__":
    main()
