"""Compile nbgrad's kernels ahead of time: ``python -m nbgrad.warmup [--all] [--jobs N] [--quiet]``.

nbgrad compiles each kernel on first use and caches it on disk; a fresh cache makes the first
program wait. This runs what a typical program runs (elementwise ops and their gradients,
matmul, `autograd.grad` and gradients of non-scalar outputs, reductions, softmax and the
losses, an MLP step with the common optimizers) in float32 and float64, so that later
processes load everything from the cache. ``--all`` compiles every op's gradient and every
elementwise op, optimizer and parallel kernel too.
Running ops through the public API compiles exactly the specializations programs hit.
With several cores the steps are shared out among processes, each compiling into a copy of
the cache, and their results merged into it (`_cache.merge`).
"""

import argparse
import operator
import os
import shutil
import subprocess
import sys
import tempfile
import time

import nbgrad as torch

from . import _cache
from .ops import elementwise as _ew

__all__ = ["main", "steps"]

_DTYPES = (torch.float32, torch.float64)
_COMMON_UNARY = tuple("neg exp log sin cos tanh sigmoid relu sqrt abs square".split())
_COMMON_OPTIMIZERS = ("SGD", "Adam", "AdamW")
# the binary ops written as operators, whose scalar forms (a + 2.0, 2.0 - b) record _ts/_st ops
_OPERATORS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "pow": operator.pow,
}
_BIG = 1 << 17  # elements: past codegen.PAR_MIN, so the parallel kernels run


def _pos(shape, dtype):
    return (torch.rand(*shape, dtype=dtype) + 0.5).requires_grad_()


def _elementwise(dtype, unary, binary, shapes):
    for shape in shapes:
        for name in unary:
            x = _pos(shape, dtype)
            getattr(torch, name)(x).sum().backward()
        for name in binary:
            a, b = _pos(shape, dtype), _pos(shape, dtype)
            f = _OPERATORS.get(name) or getattr(torch, name)
            f(a, b).sum().backward()
            for x, y in ((a, 2.0), (2.0, b)):
                try:
                    z = f(x, y)
                except TypeError:  # PyTorch's maximum, atan2, ... take tensors only
                    continue
                z.sum().backward()
            # broadcasting, and a full cotangent (not one value from `sum`)
            c = _pos(shape[-1:], dtype)
            (f(a, c) * a).sum().backward()


def _linear_algebra(dtype):
    a, b, v = _pos((4, 3), dtype), _pos((3, 5), dtype), _pos((3,), dtype)
    (a @ b).sum().backward()
    (a @ v).sum().backward()
    (v @ v).backward()
    torch.bmm(_pos((2, 4, 3), dtype), _pos((2, 3, 5), dtype)).sum().backward()
    (a.t() @ a).transpose(0, 1).reshape(-1)[1:].sum().backward()


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g


def _autograd(dtype):
    """Gradients of non-scalar outputs, `autograd.grad`, accumulation into `.grad`,
    `retain_grad` and a custom Function (which read gradients out of the sweep)."""
    x = _pos((3,), dtype)
    y = torch.outer(x, x)
    torch.autograd.grad(y, x, torch.ones_like(y), retain_graph=True)
    y.backward(torch.ones_like(y))
    y = x * 2
    y.retain_grad()
    (_Square.apply(y) + x * x).sum().backward()


def _reductions(dtype):
    x = _pos((4, 5), dtype)
    (x.sum() + x.mean() + x.max() + x.sum(1).sum() + x.mean(0).sum()).backward()
    (x.amax(1).sum() + x.var() + x.std() + x.norm() + x.logsumexp(1).sum()).backward()
    (x.max(dim=1).values.sum() + x.prod() + x.cumsum(1).sum()).backward()


def _losses(dtype):
    x = _pos((4, 5), dtype)
    target = torch.tensor([0, 2, 4, 1])
    F = torch.nn.functional
    loss = F.cross_entropy(x, target) + F.nll_loss(F.log_softmax(x, 1), target)
    loss = loss + F.softmax(x, 1).sum() + F.mse_loss(x, torch.zeros_like(x))
    loss.backward()


def _mlp_steps(dtype, optimizers):
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).to(dtype)
    x, target = torch.randn(5, 6, dtype=dtype), torch.tensor([0, 1, 2, 1, 0])
    for name in optimizers:
        opt = getattr(torch.optim, name)(model.parameters(), lr=1e-3)
        for _ in range(2):
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), target).backward()
            opt.step()


def _every_vjp(dtype):
    """Every registered op's VJP wrapper, whether or not the steps above ran it."""
    from . import _optable as registry
    from .backends.cpu import dispatch

    dt = 0 if dtype == torch.float32 else 1
    dispatch.ensure([(op.code, dt) for op in registry.OPS if op.vjp is not None])


def steps(everything=False):
    """The work `main` does: (label, function) pairs, run in order.

    Args:
        everything (bool): every elementwise op, optimizer, op's gradient and the parallel
            kernels, not only what a typical program uses. Default: ``False``.

    Example::

        >>> [label for label, _ in nbgrad.warmup.steps()][:2]
        ['elementwise float32', 'matmul float32']
    """
    unary = tuple(n for n in _ew.UNARY if hasattr(torch, n)) if everything else _COMMON_UNARY
    binary = tuple(_ew.BINARY) if everything else ("add", "sub", "mul", "div", "pow")
    shapes = ((3,), (4, 5)) + (((_BIG,),) if everything else ())
    optimizers = _COMMON_OPTIMIZERS
    if everything:
        optimizers = tuple(n for n in dir(torch.optim) if n[0].isupper())
        optimizers = tuple(n for n in optimizers if n not in ("Optimizer", "LBFGS"))
    out = []
    for dtype in _DTYPES:
        tag = str(dtype).replace("nbgrad.", "")
        out += [
            (f"elementwise {tag}", lambda d=dtype: _elementwise(d, unary, binary, shapes)),
            (f"matmul {tag}", lambda d=dtype: _linear_algebra(d)),
            (f"autograd {tag}", lambda d=dtype: _autograd(d)),
            (f"reductions {tag}", lambda d=dtype: _reductions(d)),
            (f"softmax and losses {tag}", lambda d=dtype: _losses(d)),
            (f"MLP and optimizers {tag}", lambda d=dtype: _mlp_steps(d, optimizers)),
        ]
        if everything:
            out.append((f"every op's gradient {tag}", lambda d=dtype: _every_vjp(d)))
    return out


def _bar(done, total, label, start, width=24):
    fill = width * done // total
    return (
        f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} "
        f"{time.perf_counter() - start:5.0f} s  {label:<32}"
    )


def main(argv=None):
    """Compile the kernels into the on-disk cache; ``python -m nbgrad.warmup`` runs this.

    Shows a progress bar on stderr and prints the cache directory and the time taken
    (counted from nbgrad's import, which compiles too).

    Args:
        argv (list of str, optional): command-line arguments, ``--all`` for every op and
            dtype, ``--jobs N`` for the number of processes compiling side by side (one
            per core by default), ``--quiet`` to print nothing. Default: ``sys.argv[1:]``.

    Returns:
        0 (the exit status).

    Example::

        >>> nbgrad.warmup.main(["--quiet"])
        0
    """
    p = argparse.ArgumentParser(
        prog="python -m nbgrad.warmup",
        description="Compile nbgrad's kernels ahead of time into its on-disk cache.",
    )
    p.add_argument("--all", action="store_true", help="every op and dtype, not only common ones")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.add_argument(
        "--jobs", type=int, default=0, help="processes compiling side by side (default: cores)"
    )
    p.add_argument("--part", help=argparse.SUPPRESS)  # "k/n": the steps of one of n processes
    args = p.parse_args(argv)
    from . import _compile_notice

    todo = steps(args.all)
    if args.part:
        k, n = map(int, args.part.split("/"))
        for _, fn in todo[k::n]:
            fn()
        return 0
    jobs = min(args.jobs or os.cpu_count() or 1, len(todo))
    start = _compile_notice.STARTED
    tty = sys.stderr.isatty()

    def show(done, label, running=False):
        if args.quiet or (running and not tty):
            return
        bar = _bar(done, len(todo), label, start)
        print(bar if tty else bar.strip(), end="" if tty else "\n", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="nbgrad-warmup-") as tmp:
        helpers = [_helper(args.all, k, jobs, tmp) for k in range(1, jobs)]
        done = 0
        for label, fn in todo[::jobs]:  # this process's part, while the helpers run theirs
            show(done, label, running=True)
            fn()
            done += 1
            show(done, label)
        for k, (helper, cache) in enumerate(helpers, 1):
            show(done, f"waiting for part {k + 1} of {jobs}", running=True)
            if helper.wait() != 0:
                raise RuntimeError(f"nbgrad.warmup: a helper process failed ({helper.args})")
            _cache.merge(cache)
            done += len(todo[k::jobs])
            show(done, f"part {k + 1} of {jobs}")
    if not args.quiet:
        if tty:
            print(file=sys.stderr)
        print(f"nbgrad: kernels compiled into {_cache.DIR} in {time.perf_counter() - start:.1f} s")
    return 0


def _helper(everything, k, n, tmp):
    """Start the process compiling part k of n, in a copy of the cache made now (what this
    process's import compiled is then not compiled again there)."""
    root = os.path.join(tmp, str(k))
    cache = os.path.join(root, _cache.HASH)
    try:
        ignore = shutil.ignore_patterns("*.tmp*", ".probe")  # other processes' files in flight
        shutil.copytree(_cache.DIR, cache, copy_function=shutil.copyfile, ignore=ignore)
    except shutil.Error:
        pass  # a file replaced meanwhile: compiled again there if needed
    cmd = [sys.executable, "-m", "nbgrad.warmup", "--part", f"{k}/{n}"]
    env = dict(os.environ, NBGRAD_CACHE_DIR=root, NBGRAD_QUIET="1")
    return subprocess.Popen(cmd + ["--all"] * everything, env=env), cache


if __name__ == "__main__":
    sys.exit(main())
