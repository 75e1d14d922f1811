"""Crash-and-parity fuzzer: random PyTorch-style programs, run on nbgrad and on PyTorch.

A program is Python source over a library named `T`, so the very same text runs with
`T = nbgrad` and `T = torch`; a failure prints the program, a ready reproducer. Programs mix
the op table (elementwise, reductions, views and shape ops, joins, indexing, matmul,
softmax, where) with what users do between ops: in-place writes (also through views and
on values saved for backward), `.data` swaps, `detach()` then a write, `no_grad` blocks,
custom `autograd.Function`s and pickling round trips. Outcomes are compared:

* both run: the loss and every leaf's gradient match (float64, rtol 1e-6);
* PyTorch raises: nbgrad raises the same exception type (a silent result is a failure);
* nbgrad raises where PyTorch runs: a failure, unless the step is one nbgrad documents
  as refused (then a RuntimeError or NotImplementedError is accepted).

Without PyTorch, programs without mutations are checked against central differences.
Two more modes stress the engine itself: `threads` runs programs in several threads at
once and compares with a sequential run; `interrupt` throws KeyboardInterrupt into
programs at random times, then checks that a fresh program still gets exact gradients.

Every batch runs in a subprocess, so a crash (segfault, abort) is a failure too, not a
dead test run. The CI slice is tests/test_fuzz.py; a longer run:

    python tests/fuzz.py --programs 2000 --seed 1          # all modes
    python tests/fuzz.py --mode parity --programs 500 --seed 7 --show
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

MODES = ("parity", "threads", "interrupt")
# a step nbgrad documents it may refuse where PyTorch runs (a clear RuntimeError instead
# of PyTorch's result is accepted for programs that hold one): writes through
# non-contiguous views, `.data` swaps of a value a recorded graph uses
MAY_REFUSE = "# may-refuse"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# -- program generation -------------------------------------------------------------------
class Gen:
    """Builds one program: a list of source lines over `T` and the arrays they read."""

    def __init__(self, rng, mutations=True):
        self.rng = rng
        self.mutations = mutations
        self.lines = []
        self.arrays = {}
        self.vals = []  # (name, shape, is_leaf)
        self.n = 0
        self.refusable = False  # a step nbgrad may refuse where torch runs

    def new(self, prefix="v"):
        self.n += 1
        return f"{prefix}{self.n}"

    def array(self, shape, lo=-1.0, hi=1.0):
        name = self.new("A")
        self.arrays[name] = self.rng.uniform(lo, hi, shape)
        return name

    def leaf(self, shape, rg=True):
        name = self.new("x")
        a = self.array(shape)
        self.lines.append(f"{name} = T.tensor({a}, dtype=T.float64, requires_grad={rg})")
        self.vals.append((name, tuple(shape), True))
        return name

    def add(self, expr, shape):
        name = self.new()
        self.lines.append(f"{name} = {expr}")
        self.vals.append((name, tuple(shape), False))
        return name

    def pick(self, pred=lambda s: True, nonleaf=False):
        c = [v for v in self.vals if pred(v[1]) and (not nonleaf or not v[2])]
        return c[self.rng.integers(len(c))] if c else None

    def shape(self):
        nd = int(self.rng.integers(1, 4))
        return tuple(int(d) for d in self.rng.integers(1, 4, nd))


def _factor(rng, n):
    """A random shape with n elements (1 to 3 dims)."""
    dims = []
    for p in (2, 3):
        while n % p == 0 and rng.random() < 0.6:
            dims.append(p)
            n //= p
    dims.append(n)
    rng.shuffle(dims)
    return tuple(dims[:2]) + ((int(np.prod(dims[2:])),) if len(dims) > 2 else ())


def _step(g):
    """One op on values of the pool (or a new leaf)."""
    rng = g.rng
    r = rng.random()
    v = g.pick()
    name, s, _ = v
    nd = len(s)
    if r < 0.16:
        f = rng.choice(["sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg"])
        return g.add(f"T.{f}({name})", s)
    if r < 0.19:
        return g.add(f"T.exp(T.tanh({name}))", s)
    if r < 0.33:
        other = g.pick(lambda t: t == s or t == s[1:] or (nd and t == (1,) * nd))
        o = other[0] if other else g.leaf(s)
        op = rng.choice(["+", "-", "*", "/ (1.5 + ", "max"])
        if op == "max":
            return g.add(f"T.maximum({name}, {o})", s)
        if op.startswith("/"):
            return g.add(f"{name} / (1.5 + {o} * {o})", s)
        return g.add(f"{name} {op} {o}", s)
    if r < 0.40:
        c = float(np.round(rng.uniform(-2, 2), 2))
        return g.add(rng.choice([f"{name} * {c}", f"{c} - {name}", f"{name} ** 2"]), s)
    if r < 0.50 and nd:
        d = int(rng.integers(nd))
        kd = bool(rng.random() < 0.4)
        out = tuple(1 if i == d else n for i, n in enumerate(s) if kd or i != d)
        f = rng.choice(["sum", "mean", "logsumexp", "amax", "softmax", "log_softmax"])
        if f in ("softmax", "log_softmax"):
            return g.add(f"T.{f}({name}, {d})", s)
        if f == "logsumexp":
            return g.add(f"T.logsumexp({name}, {d}, keepdim={kd})", out)
        return g.add(f"{name}.{f}({d}, keepdim={kd})", out)
    if r < 0.53:
        return g.add(f"{name}.sum()", ())
    if r < 0.63 and nd:
        k = int(rng.integers(6))
        if k == 0 and nd >= 2:
            a, b = (int(i) for i in rng.choice(nd, 2, replace=False))
            t = list(s)
            t[a], t[b] = t[b], t[a]
            return g.add(f"{name}.transpose({a}, {b})", t)
        if k == 1:
            p = [int(i) for i in rng.permutation(nd)]
            return g.add(f"{name}.permute({tuple(p)})", tuple(s[i] for i in p))
        if k == 2:
            n = int(np.prod(s))
            t = _factor(rng, n)
            return g.add(f"{name}.reshape({t})", t)
        if k == 3 and nd < 4:
            d = int(rng.integers(nd + 1))
            return g.add(f"{name}.unsqueeze({d})", s[:d] + (1,) + s[d:])
        if k == 4 and 1 in s:
            d = s.index(1)
            e = list(s)
            e[d] = 3
            return g.add(f"{name}.expand({tuple(e)})", tuple(e))
        return g.add(f"{name}.flip({int(rng.integers(nd))})", s)
    if r < 0.72 and nd:
        k = int(rng.integers(5))
        if k == 0:
            i = int(rng.integers(-s[0], s[0]))
            return g.add(f"{name}[{i}]", s[1:])
        if k == 1:
            a = int(rng.integers(s[0]))
            return g.add(f"{name}[{a}:]", (s[0] - a,) + s[1:])
        if k == 2 and nd >= 2:
            j = int(rng.integers(s[1]))
            return g.add(f"{name}[:, {j}]", (s[0],) + s[2:])
        if k == 3:
            i = int(rng.integers(s[0]))
            return g.add(f"{name}.unbind(0)[{i}]", s[1:])
        idx = [int(i) for i in rng.integers(0, s[0], 4)]
        return g.add(f"{name}[T.tensor({idx})]", (4,) + s[1:])
    if r < 0.78 and nd:
        o = g.pick(lambda t: t == s)[0]
        d = int(rng.integers(nd))
        if rng.random() < 0.5:
            t = tuple(n * 2 if i == d else n for i, n in enumerate(s))
            return g.add(f"T.cat([{name}, {o}], {d})", t)
        return g.add(f"T.stack([{name}, {o}], {d})", s[:d] + (2,) + s[d:])
    if r < 0.84 and nd in (1, 2):
        k = s[-1]
        n = int(rng.integers(1, 4))
        w = g.leaf((k, n))
        return g.add(f"{name} @ {w}", s[:-1] + (n,))
    if r < 0.88:
        o = g.pick(lambda t: t == s)[0]
        return g.add(f"T.where({name} > 0, {name}, {o})", s)
    if r < 0.91:
        return g.add(f"{name}.clamp(-0.5, 0.7)", s)
    if r < 0.93 and nd and s[-1] > 1:
        return g.add(f"{name}.std({nd - 1})", s[:-1])
    return g.add(f"{name}.clone()", s)


def _mutation(g):
    """What users do between ops: writes, swaps, detach, no_grad, Functions, pickling."""
    rng = g.rng
    k = int(rng.integers(10))
    v = g.pick(nonleaf=True)
    leaf = g.pick(lambda s: True)
    if v is None or leaf is None:
        return
    name, s, _ = v
    if k == 0:
        g.lines.append(f"{name}.mul_(1.5)")
    elif k == 1:
        g.lines.append(rng.choice([f"{name}.zero_()", f"{name}.fill_(0.25)", f"{name}.add_(1)"]))
    elif k == 2 and s:
        g.lines.append(rng.choice([f"{name}[0].mul_(2)", f"{name}[0] = 0.5"]))
    elif k == 3 and len(s) >= 2:
        w = rng.choice([f"{name}[:, 0].zero_()", f"{name}.t().mul_(2)"])
        g.lines.append(w + "  " + MAY_REFUSE)
    elif k == 4:
        x = [w for w in g.vals if w[2]]
        if x:
            g.lines.append(f"{x[rng.integers(len(x))][0]}.detach().mul_(10)")
    elif k == 5:
        src = leaf[0]
        out = g.new()
        g.lines += ["with T.no_grad():", f"    {out} = {src} * 2"]
        g.vals.append((out, leaf[1], False))
    elif k == 6:
        x = [w for w in g.vals if w[2]]
        if x:
            xn, xs, _ = x[rng.integers(len(x))]
            a = g.array(xs)
            g.lines.append(f"{xn}.data = T.tensor({a}, dtype=T.float64)  {MAY_REFUSE}")
    elif k == 7:
        if rng.random() < 0.5:
            g.add(f"Double.apply({name})", s)
        else:  # a backward returning None for an input that takes part in the graph
            g.add(f"Pair.apply({name}, {name} * 2)[{int(rng.integers(2))}]", s)
    elif k == 8:
        g.add(f"pickle.loads(pickle.dumps({name}))", s)
    else:
        x = [w for w in g.vals if w[2]]
        if x:
            g.lines.append(f"{x[rng.integers(len(x))][0]}.mul_(2)")  # a leaf: refused


PRELUDE = """\
import pickle


class Double(T.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2 + x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (2 + 2 * x)


class Pair(T.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * 3, y + 1

    @staticmethod
    def backward(ctx, gx, gy):
        return gx * 3, None
"""


def program(seed, mutations=True, steps=None):
    """(source, arrays) of program `seed`."""
    rng = np.random.default_rng(seed)
    g = Gen(rng, mutations)
    for _ in range(int(rng.integers(1, 3))):
        g.leaf(g.shape())
    for _ in range(steps or int(rng.integers(3, 12))):
        if mutations and rng.random() < 0.2:
            _mutation(g)
        else:
            _step(g)
    outs = [v for v in g.vals if not v[2]][-3:] or g.vals[-1:]
    terms = []
    for name, s, _ in outs:
        w = g.array(s)
        terms.append(f"({name} * T.tensor({w}, dtype=T.float64)).sum()")
    g.lines.append("loss = " + " + ".join(terms))
    g.lines.append("loss.backward()")
    leaves = [v[0] for v in g.vals if v[2]]
    g.lines.append(f"LEAVES = [{', '.join(leaves)}]")
    return "\n".join(g.lines), g.arrays


# -- running ------------------------------------------------------------------------------
def run_program(lib, src, arrays):
    """('ok', loss, [grads]) or ('raise', type name, message)."""
    ns = {"T": lib, **{k: v.copy() for k, v in arrays.items()}}
    try:
        exec(PRELUDE, ns)
        exec(src, ns)
        grads = []
        for x in ns["LEAVES"]:
            g = x.grad
            grads.append(None if g is None else np.array(g.detach().cpu().numpy(), np.float64))
        return ("ok", float(ns["loss"].detach().cpu().numpy()), grads)
    except Exception as e:
        return ("raise", type(e).__name__, str(e).split("\n")[0][:300])


def _close(a, b):
    if a is None or b is None:
        return a is None and b is None or np.allclose(a if a is not None else b, 0)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True)


def compare(mine, ref, src=""):
    """None if nbgrad's outcome is acceptable against torch's, else what differs."""
    if ref[0] == "raise":
        if mine[0] != "raise":
            return f"torch raised {ref[1]}: {ref[2]!r}; nbgrad ran"
        if mine[1] != ref[1]:
            return f"torch raised {ref[1]}: {ref[2]!r}; nbgrad raised {mine[1]}: {mine[2]!r}"
        return None
    if mine[0] == "raise":
        if MAY_REFUSE in src and mine[1] in ("RuntimeError", "NotImplementedError"):
            return None
        return f"nbgrad raised {mine[1]}: {mine[2]!r}; torch ran"
    if not np.isclose(mine[1], ref[1], rtol=1e-6, atol=1e-9, equal_nan=True):
        return f"loss {mine[1]!r} != torch's {ref[1]!r}"
    for i, (a, b) in enumerate(zip(mine[2], ref[2])):
        if not _close(a, b):
            return f"gradient of leaf {i} differs from torch's"
    return None


def _fd_check(src, arrays, nb):
    """Gradients of a mutation-free program against central differences."""
    mine = run_program(nb, src, arrays)
    if mine[0] != "ok":
        return f"nbgrad raised {mine[1]}: {mine[2]!r}"
    lines = [ln for ln in src.splitlines() if "requires_grad=True" in ln]
    leaf_arrays = [ln.split("T.tensor(")[1].split(",")[0] for ln in lines]
    for a, g in zip(leaf_arrays, mine[2]):
        base = arrays[a]
        num = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            for sign in (1, -1):
                arr = dict(arrays)
                p = base.copy()
                p[i] += sign * 1e-6
                arr[a] = p
                out = run_program(nb, src, arr)
                num[i] += sign * out[1] / 2e-6
        if not np.allclose(num, 0 if g is None else g, rtol=1e-4, atol=1e-6):
            return f"gradient of {a} differs from central differences"
    return None


def parity_one(seed, nbgrad, torch):
    src, arrays = program(seed, mutations=torch is not None)
    if torch is None:
        why = _fd_check(src, arrays, nbgrad)
    else:
        mine, ref = run_program(nbgrad, src, arrays), run_program(torch, src, arrays)
        why = compare(mine, ref, src)
    return [{"seed": seed, "why": why, "program": src}] if why else []


def parity_batch(seeds, report=lambda seed, fails: None):
    import nbgrad

    try:
        import torch

        torch.set_default_dtype(torch.float64)
    except ImportError:
        torch = None
    fails = []
    for seed in seeds:
        f = parity_one(seed, nbgrad, torch)
        report(seed, f)
        fails += f
    return fails


def threads_batch(seeds, nthreads=4):
    """Programs without mutations, several at once in threads, against a sequential run."""
    import threading

    import nbgrad

    progs = [program(s, mutations=False) for s in seeds]
    want = [run_program(nbgrad, src, arr) for src, arr in progs]
    got = [None] * len(progs)
    errors = []

    def work(i0):
        try:
            for _ in range(3):
                for i in range(i0, len(progs), nthreads):
                    got[i] = run_program(nbgrad, *progs[i])
        except BaseException as e:  # a failure of the harness itself
            errors.append(repr(e))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(nthreads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    fails = [{"seed": -1, "why": e, "program": ""} for e in errors]
    for s, (src, _), w, g in zip(seeds, progs, want, got):
        why = compare(g, w) if w[0] == "ok" or g[0] == "ok" else None
        if why:
            fails.append({"seed": s, "why": "threads: " + why, "program": src})
    return fails


def interrupt_batch(seeds):
    """KeyboardInterrupt thrown into programs at random times; after each, a fresh program
    must still give exactly its uninterrupted result."""
    import _thread
    import signal
    import threading

    import nbgrad

    # Python's usual handler even where the launcher ignores SIGINT (a background job of a
    # non-interactive shell): there interrupt_main() does nothing and nothing is tested
    signal.signal(signal.SIGINT, signal.default_int_handler)
    progs = [program(s, mutations=False, steps=12) for s in seeds]
    want = [run_program(nbgrad, src, arr) for src, arr in progs]
    rng = np.random.default_rng(seeds[0])
    fails = []
    for i, (src, arrays) in enumerate(progs):
        t0 = time.perf_counter()
        run_program(nbgrad, src, arrays)
        dt = time.perf_counter() - t0
        for _ in range(3):
            timer = threading.Timer(rng.uniform(0, 2 * dt), _thread.interrupt_main)
            try:
                timer.start()  # (a short delay may fire before start returns)
                for _ in range(3):
                    run_program(nbgrad, src, arrays)
                time.sleep(2 * dt)  # the interrupt lands here if the programs finished
            except KeyboardInterrupt:
                pass
            finally:
                timer.cancel()
            try:  # an interrupt already sent lands here, not in the harness
                timer.join()
                time.sleep(0.01)
            except KeyboardInterrupt:
                pass
            j = (i + 1) % len(progs)
            why = compare(run_program(nbgrad, *progs[j]), want[j])
            if why:
                fails.append({"seed": seeds[j], "why": "after an interrupt: " + why,
                              "program": progs[j][0]})  # fmt: skip
    return fails


BATCHES = {"parity": parity_batch, "threads": threads_batch, "interrupt": interrupt_batch}


def _child(mode, seeds):
    def report(seed, fails):  # progress: a crash names the program it happened in
        print("FUZZ-SEED " + json.dumps([seed, fails]), flush=True)

    if mode == "parity":
        parity_batch(seeds, report)
    else:
        report(seeds[0], BATCHES[mode](seeds))


def run_mode(mode, seeds, timeout=600, env=None):
    """Run programs in subprocesses; a crash or hang is a failure of the program it
    happened in, and the programs after it run in a new process."""
    fails = []
    while seeds:
        code = (
            f"import sys; sys.path.insert(0, {HERE!r}); import fuzz; "
            f"fuzz._child({mode!r}, {seeds!r})"
        )
        done = set()
        try:
            r = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True,
                timeout=timeout, env=env, cwd=ROOT,
            )  # fmt: skip
            out, err, rc = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
            err, rc = "", f"hung past {timeout} s"
        for line in out.splitlines():
            if line.startswith("FUZZ-SEED "):
                seed, f = json.loads(line[len("FUZZ-SEED ") :])
                done.add(seed)
                fails += f
        if mode != "parity":
            if not done:
                why = f"{mode}: process died ({rc}): {err.strip()[-1500:]}"
                fails.append({"seed": seeds[0], "why": why, "program": ""})
            return fails
        rest = [s for s in seeds if s not in done]
        if rest:  # the first unreported program crashed the process
            src = program(rest[0])[0]
            why = f"process died ({rc}): {err.strip()[-800:]}"
            fails.append({"seed": rest[0], "why": why, "program": src})
            rest = rest[1:]
        seeds = rest
    return fails


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mode", choices=MODES + ("all",), default="all")
    p.add_argument("--programs", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=50, help="programs per subprocess")
    p.add_argument("--show", action="store_true", help="print failing programs")
    a = p.parse_args(argv)
    modes = MODES if a.mode == "all" else (a.mode,)
    total = 0
    for mode in modes:
        n = a.programs if mode == "parity" else max(4, a.programs // 10)
        seeds = list(range(a.seed * 1_000_000, a.seed * 1_000_000 + n))
        for i in range(0, n, a.batch):
            fails = run_mode(mode, seeds[i : i + a.batch])
            total += len(fails)
            for f in fails:
                print(f"FAIL {mode} seed {f['seed']}: {f['why']}")
                if a.show and f["program"]:
                    print(textwrap.indent(f["program"], "    "))
        print(f"{mode}: {n} programs done")
    print(f"fuzz: {total} failures")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
