"""Timing probe for nbgrad.backends.cpu.vmath (a script, not a pytest file).

For 4M-element float64 and float32 arrays it prints the time of: numpy, a Numba loop
calling libm (``math.sin``/``math.exp``), a Numba loop calling the vectorisable
``vsin``/``vexp``, torch (1 thread and default threads) if installed, and
``@njit(parallel=True)`` ``prange`` loops on 2 threads.

    python benchmarks/vmath_probe.py            # sin and exp
    python benchmarks/vmath_probe.py --all      # + cos, log, tanh, sigmoid, expm1, log1p
    python benchmarks/vmath_probe.py -n 1000000 --repeat 20
"""

import argparse
import math
import os
import sys
import time

import numba
import numpy as np
from llvmlite import binding as llvm_binding
from numba import njit, prange

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from nbgrad.backends.cpu import vmath  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None


def _sigmoid_np(x, out):
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1
    np.reciprocal(out, out=out)
    return out


# name -> (vmath function, libm scalar function or None, numpy, torch, input range)
CASES = {
    "sin": (vmath.vsin, math.sin, np.sin, "sin", (-10.0, 10.0)),
    "exp": (vmath.vexp, math.exp, np.exp, "exp", (-10.0, 10.0)),
    "cos": (vmath.vcos, math.cos, np.cos, "cos", (-10.0, 10.0)),
    "log": (vmath.vlog, math.log, np.log, "log", (0.01, 100.0)),
    "tanh": (vmath.vtanh, math.tanh, np.tanh, "tanh", (-5.0, 5.0)),
    "sigmoid": (vmath.vsigmoid, None, _sigmoid_np, "sigmoid", (-10.0, 10.0)),
    "expm1": (vmath.vexpm1, math.expm1, np.expm1, "expm1", (-2.0, 2.0)),
    "log1p": (vmath.vlog1p, math.log1p, np.log1p, "log1p", (-0.5, 10.0)),
}


def make_loops(f):
    @njit(cache=False)
    def serial(x, out):
        for i in range(x.size):
            out[i] = f(x[i])

    @njit(cache=False, parallel=True)
    def parallel(x, out):
        for i in prange(x.size):
            out[i] = f(x[i])

    return serial, parallel


def best(fn, args, repeat, kwargs=None):
    kwargs = kwargs or {}
    fn(*args, **kwargs)  # warm-up (and JIT compile)
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args, **kwargs)
        ts.append(time.perf_counter() - t0)
    return min(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=4 * 1024 * 1024)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--threads", type=int, default=2, help="threads for the prange loops")
    ap.add_argument("--all", action="store_true", help="also cos, log, tanh, sigmoid, ...")
    args = ap.parse_args()

    names = list(CASES) if args.all else ["sin", "exp"]
    torch_threads = torch.get_num_threads() if torch is not None else 0
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    nthr = numba.get_num_threads()
    cpu = numba.config.CPU_NAME or llvm_binding.get_host_cpu_name()
    print(
        f"n={args.n}  numba {numba.__version__}  numpy {np.__version__}  "
        f"torch {torch.__version__ if torch is not None else '-'}  cpu {cpu}  "
        f"os.cpu_count()={os.cpu_count()}  prange threads={nthr}  "
        f"torch default threads={torch_threads}"
    )
    print(f"best of {args.repeat} runs; speed-up relative to numpy")
    rng = np.random.default_rng(0)
    for name in names:
        vf, mf, npf, tname, (lo, hi) = CASES[name]
        v_serial, v_par = make_loops(vf)
        m_serial, m_par = make_loops(mf) if mf is not None else (None, None)
        for dtype in (np.float64, np.float32):
            x = rng.uniform(lo, hi, args.n).astype(dtype)
            out = np.empty_like(x)
            # (label, torch threads or None, function, args, kwargs)
            rows = [("numpy", None, npf, (x,), {"out": out})]
            if m_serial is not None:
                rows.append((f"numba loop math.{name}", None, m_serial, (x, out), None))
            rows.append((f"numba loop v{name}", None, v_serial, (x, out), None))
            if torch is not None:
                xt, ot = torch.from_numpy(x), torch.from_numpy(out)
                tf = getattr(torch, tname)
                rows.append(("torch, 1 thread", 1, tf, (xt,), {"out": ot}))
                rows.append(
                    (f"torch, {torch_threads} threads", torch_threads, tf, (xt,), {"out": ot})
                )
            if m_par is not None:
                rows.append((f"numba prange math.{name}, {nthr} thr", None, m_par, (x, out), None))
            rows.append((f"numba prange v{name}, {nthr} thr", None, v_par, (x, out), None))
            print(f"\n{name}  {np.dtype(dtype).name}")
            base = None
            for label, tthreads, fn, fargs, fkw in rows:
                if tthreads is not None:
                    torch.set_num_threads(tthreads)
                t = best(fn, fargs, args.repeat, fkw)
                if tthreads is not None:
                    torch.set_num_threads(torch_threads)
                base = base or t
                print(f"  {label:32s} {t * 1e3:8.2f} ms   {base / t:6.2f}x")


if __name__ == "__main__":
    main()
