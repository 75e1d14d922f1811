"""Train a small CNN on scikit-learn's 8x8 handwritten digits, on nbgrad or on PyTorch.

    python examples/train_cnn.py                    # nbgrad
    python examples/train_cnn.py --backend torch    # the same code on PyTorch
    python examples/train_cnn.py --quick            # 2 epochs (the test suite's run)

The network is conv 3x3 -> ReLU -> max-pool -> conv 3x3 -> ReLU -> linear, trained with
Adam on mini-batches. Needs scikit-learn (the dataset ships inside it: no download); tqdm
and matplotlib are used when installed (`pip install -e ".[examples]"`). The script is
PyTorch code: only the import differs (`import nbgrad as torch`). It prints one progress
line per epoch, the test accuracy and the wall time of training (the warm-up that loads
compiled kernels is timed separately), and writes a PNG of the loss and accuracy curves
beside the first layer's learned filters.
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
    X = (X / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)  # N, channels, height, width
    return train_test_split(X, y.astype(np.int64), test_size=0.25, random_state=seed, stratify=y)


def build(torch, channels):
    nn = torch.nn
    c1, c2 = channels, 2 * channels
    return nn.Sequential(
        nn.Conv2d(1, c1, kernel_size=3, padding=1),  # 8x8 -> 8x8
        nn.ReLU(),
        nn.MaxPool2d(2),  # -> 4x4
        nn.Conv2d(c1, c2, kernel_size=3, padding=1),  # -> 4x4
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(c2 * 4 * 4, 10),
    )


def init_like_torch(torch, model, seed):
    """PyTorch's default Conv2d/Linear init (U(+-1/sqrt(fan_in)) for weights and biases),
    drawn with NumPy so both backends start identical."""
    rng = np.random.default_rng(seed)
    state = {}
    for name, t in model.state_dict().items():
        weight = state.get(name[: -len("bias")] + "weight", t)
        bound = 1.0 / np.sqrt(np.prod(tuple(weight.shape)[1:]))
        state[name] = torch.from_numpy(
            rng.uniform(-bound, bound, tuple(t.shape)).astype(np.float32)
        )
    model.load_state_dict(state)


def accuracy(torch, model, X, y):
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(X)).argmax(1).numpy()
    model.train()
    return float((pred == y).mean())


def train(args):
    torch = load_backend(args.backend)
    limit_threads(args.threads, torch)
    X_train, X_test, y_train, y_test = load_data(args.seed)
    rng = np.random.default_rng(args.seed)
    loss_fn = torch.nn.CrossEntropyLoss()
    # untimed: one step on a throwaway model loads compiled kernels (nbgrad) / warms up (torch)
    w0 = time.perf_counter()
    scratch = build(torch, args.channels)
    loss_fn(scratch(torch.from_numpy(X_train[:8])), torch.from_numpy(y_train[:8])).backward()
    torch.optim.Adam(scratch.parameters()).step()
    accuracy(torch, scratch, X_test[:8], y_test[:8])
    warmup = time.perf_counter() - w0

    model = build(torch, args.channels)
    init_like_torch(torch, model, args.seed)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    n = len(X_train)
    history = {"train_loss": [], "test_acc": []}
    bar = Progress(args.epochs, f"{args.backend:>6}", args.no_progress)
    t0 = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        perm = rng.permutation(n)
        total = 0.0
        for i in range(0, n, args.batch_size):
            idx = perm[i : i + args.batch_size]
            xb, yb = torch.from_numpy(X_train[idx]), torch.from_numpy(y_train[idx])
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        acc = accuracy(torch, model, X_test, y_test)
        history["train_loss"].append(total / n)
        history["test_acc"].append(acc)
        bar.update(epoch, loss=f"{total / n:.4f}", test_acc=f"{acc:.2%}")
    elapsed = time.perf_counter() - t0
    bar.close()
    filters = model[0].weight.detach().numpy()[:, 0].copy()
    return {
        "time": elapsed,
        "acc": history["test_acc"][-1],
        "history": history,
        "warmup": warmup,
        "filters": filters,
    }


def plot(path, backend, history, filters):
    plt = pyplot()
    if plt is None:
        return
    fig = plt.figure(figsize=(9, 4), layout="constrained")
    left, right = fig.subfigures(1, 2, width_ratios=[1.4, 1])
    ax1 = left.subplots()
    epochs = range(1, len(history["train_loss"]) + 1)
    ax1.plot(epochs, history["train_loss"], label="train loss", color="tab:blue")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("cross-entropy")
    ax1.set_yscale("log")
    integer_ticks(ax1)
    ax2 = ax1.twinx()
    ax2.plot(epochs, history["test_acc"], label="test accuracy", color="tab:orange")
    ax2.set_ylabel("test accuracy")
    handles = ax1.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax1.legend(handles, [h.get_label() for h in handles], loc="center right")
    ax1.set_title(f"8x8 digits CNN ({backend})")
    cols = 4
    axes = right.subplots(-(-len(filters) // cols), cols, squeeze=False)
    vmax = abs(filters).max()
    for ax, f in zip(axes.flat, filters):
        ax.imshow(f, cmap="RdBu_r", vmin=-vmax, vmax=vmax)
    for ax in axes.flat:
        ax.set_axis_off()
    right.suptitle("first-layer 3x3 filters")
    fig.savefig(path, dpi=100)
    print(f"plot written to {path}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["nbgrad", "torch"], default="nbgrad")
    ap.add_argument("--epochs", type=int, default=15)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--channels", type=int, default=8, help="filters in the first conv")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="2 epochs (for tests)")
    ap.add_argument(
        "--plot",
        default=None,
        help="PNG path (default: digits_cnn_<backend>.png; -quick.png with --quick)",
    )
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--threads", type=int, default=1, help="cap BLAS/OpenMP threads (0: no cap)")
    args = ap.parse_args(argv)
    if args.quick:
        args.epochs = 2
    r = train(args)
    print(
        f"[{args.backend}] test accuracy {r['acc']:.2%} after {args.epochs} epochs; "
        f"wall time {r['time']:.2f} s (+{r['warmup']:.2f} s untimed warm-up)"
    )
    if not args.no_plot:
        path = plot_path(args.plot, f"digits_cnn_{args.backend}.png", args.quick)
        plot(path, args.backend, r["history"], r["filters"])
    return r


if __name__ == "__main__":
    main()
