"""Compile every CUDA kernel nbgrad can launch with the real CUDA compiler; no GPU needed.

    python -m nbgrad.cuda.ptx_check [--cc 9.0 8.0] [--jobs N] [--no-ptxas]

The kernels are enumerated from the backend's registry (`backends/cuda/launch.py`): each
is compiled to PTX (Numba's CUDA front end, then NVVM) for every signature its
declaration admits, for each compute capability asked for, and the PTX is assembled by
`ptxas` when one is found. Numba's CUDA simulator types nothing, so a kernel that only
the simulator ran can still fail to compile for a GPU; this check runs in CI instead.
A kernel built without a declaration fails the check too (it could not be launched).
Prints each failure and `ptx: N compiled, M failed`; exits 1 on any failure. Needs
numba-cuda with the CUDA toolkit's NVVM (`pip install "nbgrad[cuda]"`).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import types as pytypes

_CCS = ()  # the compute capabilities a worker compiles for


def _ptxas():
    """ptxas from the toolkit wheel that brings NVVM (same version), else from PATH."""
    try:
        import nvidia.cuda_nvcc as nv

        for base in nv.__path__:
            p = os.path.join(base, "bin", "ptxas")
            if os.path.exists(p):
                return p
    except ImportError:
        pass
    return shutil.which("ptxas")


def _all_kernels():
    """Build every kernel family; returns the registry and the undeclared kernels."""
    from ..backends.cuda import codegen, kernels, launch, optim
    from ..ops import elementwise as ew

    families = {
        "kernels": vars(kernels.build()),
        "ew": vars(codegen.build(ew.UNARY, ew.BINARY)),
        "optim": optim.build(),
    }
    return launch.REGISTRY, launch.undeclared(families)


def _numba_sig(sig):
    from numba import from_dtype

    return tuple(from_dtype(dt)[::1] if arr else from_dtype(dt) for dt, arr in sig)


def _init(ccs):
    """Worker setup. A kernel calling device functions makes numba-cuda ask the driver for
    the current device's compute capability: answer with the lowest target."""
    global _CCS
    _CCS = tuple(ccs)
    import numba.cuda.dispatcher as disp

    low = min(_CCS)
    disp.get_current_device = lambda: pytypes.SimpleNamespace(compute_capability=low)


def _ptx_per_cc(pyfunc, sig):
    """{cc: PTX} for one signature: typed and lowered once, then NVVM per target."""
    from numba.cuda import compiler

    low = min(_CCS)
    lower = getattr(compiler, "_compile_pyfunc_with_fixup", None)
    if lower is None:  # another numba-cuda: the public API, one full compile per target
        return {cc: compiler.compile_ptx(pyfunc, sig, cc=cc)[0] for cc in _CCS}
    lib, _ = lower(pyfunc, sig, device=False, cc=low, abi="numba")
    out = {}
    for cc in _CCS:
        (out[cc],) = lib.get_asm_strs(cc=cc)
    return out


def _compile(job):
    """(name, compiled, [(signature, target, error)]) for one kernel, every target."""
    name, ptxas, tmp = job
    registry, _ = _all_kernels()
    kernel, decl = registry[name]
    ok, errors = 0, []
    for i, sig in enumerate(decl.signatures()):
        label = "(" + ", ".join(dt.name + ("[]" if arr else "") for dt, arr in sig) + ")"
        try:
            ptxes = _ptx_per_cc(kernel.py_func, _numba_sig(sig))
        except Exception as e:  # report every failure, keep going
            errors.append((label, "all", _short(e)))
            continue
        for cc, ptx in ptxes.items():
            arch = f"sm_{cc[0]}{cc[1]}"
            if ptxas:
                path = os.path.join(tmp, f"{name}.{i}.{arch}.ptx")
                with open(path, "w") as f:
                    f.write(ptx)
                r = subprocess.run(
                    [ptxas, "-arch", arch, "-o", os.devnull, path], capture_output=True, text=True
                )
                os.unlink(path)
                if r.returncode:
                    errors.append((label, arch, "ptxas: " + (r.stderr or r.stdout).strip()[:500]))
                    continue
            ok += 1
    return name, ok, errors


def _short(e):
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[-1] if msg else ''}"


def run(ccs, jobs, use_ptxas=True, names=None, out=sys.stdout):
    """Compile everything; returns (compiled, failed)."""
    import multiprocessing as mp

    registry, undeclared = _all_kernels()
    ptxas = _ptxas() if use_ptxas else None
    print(
        f"ptx: {len(registry)} kernels, compute capabilities "
        f"{', '.join(f'{c[0]}.{c[1]}' for c in ccs)}; "
        + (f"assembling with {ptxas}" if ptxas else "ptxas not used (PTX not assembled)"),
        file=out,
        flush=True,
    )
    compiled, failed = 0, 0
    for name in undeclared:
        print(f"FAILED {name}: a CUDA kernel without a declaration (launch.declare)", file=out)
        failed += 1
    selected = sorted(n for n in registry if names is None or any(s in n for s in names))
    ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, ctx.Pool(jobs, _init, (ccs,)) as pool:
        work = [(n, ptxas, tmp) for n in selected]
        for name, ok, errors in pool.imap_unordered(_compile, work):
            compiled += ok
            failed += sum(len(ccs) if target == "all" else 1 for _, target, _ in errors)
            for label, target, err in errors:
                print(f"FAILED {name}{label} {target}: {err}", file=out, flush=True)
    print(f"ptx: {len(selected)} kernels in {time.perf_counter() - t0:.0f} s", file=out)
    print(f"ptx: {compiled} compiled, {failed} failed", file=out, flush=True)
    return compiled, failed


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    p = argparse.ArgumentParser(prog="python -m nbgrad.cuda.ptx_check", description=__doc__)
    p.add_argument("--cc", nargs="+", default=["9.0", "8.0"], help="compute capabilities")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--no-ptxas", action="store_true", help="compile to PTX only")
    p.add_argument("--only", nargs="+", help="kernels whose name contains one of these")
    a = p.parse_args(argv)
    from numba.core import config

    if config.ENABLE_CUDASIM:  # the simulator compiles nothing: check in a fresh process
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
        return subprocess.call([sys.executable, "-m", "nbgrad.cuda.ptx_check", *argv], env=env)
    ccs = [tuple(int(x) for x in c.split(".")) for c in a.cc]
    _, failed = run(ccs, max(1, a.jobs), not a.no_ptxas, a.only)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
