"""The CUDA half of the ops: forwards that validate, launch kernels
(`backends/cuda/kernels.py`, generated ones from `backends/cuda/codegen.py`) and record
CUDA rows, and the VJP launchers the ops declare (`cuda_vjp=`), which the GPU sweep calls.
The ops in `ops/` pick them for CUDA tensors (`cuda.forwards.x`, ...). These modules
import numba.cuda: nothing imports them before CUDA is used, and `launcher` lets a
declaration name one of their launchers without importing them."""

import importlib


def launcher(module, name, *args):
    """A `cuda_vjp` for `declare`: `name` in nbgrad.ops.<module> (or `name(*args)` where
    that is a factory of launchers), imported on the first call."""
    box = []

    def launch(G, k):
        if not box:
            fn = getattr(importlib.import_module(f"nbgrad.ops.{module}"), name)
            box.append(fn(*args) if args else fn)
        box[0](G, k)

    return launch


_PARTS = ("tensor", "forwards", "index", "reductions", "einsum")


def __getattr__(name):
    """`cuda.forwards` (and the other parts) from an op that picks CUDA: the module, imported
    on first use; from then on it is a plain attribute of this package."""
    if name in _PARTS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
