"""Differentiable VJPs: each op's backward written with nbgrad ops.

The compiled sweep (backends/cpu) runs fused VJP kernels and records nothing, which is
what plain `backward()` wants. Higher-order gradients (`create_graph=True`), batched
cotangents (`is_grads_batched=True`) and forward mode need the backward as ops that are
themselves recorded and batched, so every op also has a *differentiable VJP*, declared
with the op (`declare(..., dvjp=fn)`, `_optable.py`) and collected here into `DVJP`:

    def _dvjp_flat(row, g):   # g: the output's cotangent (one output), a Tensor
        return (g.reshape(row.bshape + row.shape(row.ins[0])),)  # a Tensor or None per input

A `Row` reads the tape row: its input/output slots, int and float attrs, the values the
row saved (as Tensors tied to their slots, so a gradient of the VJP flows back through
them) and `nb`, the number of leading batch dims the cotangents carry (0, or 1 for
batched VJPs): every VJP broadcasts over those leading dims. Elementwise ops get theirs
here, from the same scalar rule strings as their kernels (`derivatives/elementwise.py`).

The same VJPs serve CUDA rows (`Row.cuda`): saved values are then `CudaArray`s, wrapped
as CUDA tensors, and every constant a VJP builds goes to the row's device (`Row.const`).
Where a CUDA row lays out its attrs differently from the CPU's (its VJP kernels read
other things), the VJP decodes them in a small helper and shares the rule itself.
"""

import numpy as np

from ... import _dtype
from ..._optable import BY_NAME, OPS
from ...backends.cuda.record import CUDA_DT
from ...backends.cuda.runtime import CudaArray
from ...ops.reduce import sum_to
from ...tape import (
    R_DT,
    R_FLEN,
    R_FPOS,
    R_ILEN,
    R_IPOS,
    R_NIN,
    R_NOUT,
    S_ADDR,
    S_DT,
    S_NDIM,
    S_NUMEL,
    S_RG,
    S_SHAPE,
    TAPE,
)
from ...tensor import Tensor

DVJP: dict = {}  # op name -> fn(row, *gouts) -> tuple of input gradients (Tensor or None)


def defvjp(*names):
    def deco(fn):
        for n in names:
            if n in DVJP:
                raise ValueError(f"differentiable VJP for {n!r} defined twice")
            DVJP[n] = fn
        return fn

    return deco


class Row:
    """Tape row k as the differentiable VJPs see it.

    A sweep passes the row's slots (decoded once by its tape walk) and a slot -> shape
    cache shared by its rows; attrs and saved values are read only when a VJP asks."""

    __slots__ = (
        "k", "name", "outs", "ins", "nb", "bshape", "cuda", "_shapes", "_ia", "_fa", "_sv", "_rg"
    )  # fmt: skip

    def __init__(self, k, name, nb, bshape, outs=None, ins=None, shapes=None, rg=None):
        self.k, self.name, self.nb, self.bshape = k, name, nb, bshape
        if outs is None:
            T = TAPE
            r = T.R[k].tolist()
            p, no = r[R_IPOS], r[R_NOUT]
            io = T.I[p : p + no + r[R_NIN]].tolist()
            outs, ins = io[:no], io[no:]
        self.outs, self.ins = tuple(outs), tuple(ins)
        self._shapes = {} if shapes is None else shapes
        self._ia = self._fa = self._sv = None
        if rg is None:
            rg = tuple([TAPE.S.item(i, S_RG) != 0 for i in self.ins])
        self._rg = rg  # per input: whether it takes a gradient
        self.cuda = TAPE.R.item(k, R_DT) >= CUDA_DT  # a GPU row (its saved arrays on the GPU)

    def attrs(self):
        """The row's integer attributes by the names its op declares (`_optable.py`)."""
        return BY_NAME[self.name].unpack(self.iattrs)

    def float_attrs(self):
        """The row's float attributes by the names its op declares."""
        return BY_NAME[self.name].unpack_f(self.fattrs)

    @property
    def iattrs(self):
        if self._ia is None:
            r = TAPE.R[self.k].tolist()
            p = r[R_IPOS] + r[R_NOUT] + r[R_NIN]
            self._ia = TAPE.I[p : r[R_IPOS] + r[R_ILEN]].copy()
        return self._ia

    @property
    def fattrs(self):
        if self._fa is None:
            r = TAPE.R[self.k].tolist()
            self._fa = TAPE.F[r[R_FPOS] : r[R_FPOS] + r[R_FLEN]].copy()
        return self._fa

    def fattr0(self):
        """The row's first float attr (a scalar operand) as a Python float."""
        if self._fa is not None:
            return float(self._fa[0])
        return TAPE.F.item(TAPE.R.item(self.k, R_FPOS))

    @property
    def saved(self):
        if self._sv is None:
            sv = TAPE.saved[self.k]
            self._sv = sv if isinstance(sv, tuple) else (() if sv is None else (sv,))
        return self._sv

    # -- slots -----------------------------------------------------------------------
    def shape(self, s):
        sh = self._shapes.get(s)
        if sh is None:
            r = TAPE.S[s].tolist()
            sh = self._shapes[s] = tuple(r[S_SHAPE : S_SHAPE + r[S_NDIM]])
        return sh

    def numel(self, s):
        return int(TAPE.S[s, S_NUMEL])

    def dtype(self, s):
        """Slot s's nbgrad dtype (float32 or float64)."""
        return _dtype.float32 if TAPE.S[s, S_DT] == 0 else _dtype.float64

    def wants(self, j):
        """Whether input j takes a gradient at all."""
        return self._rg[j]

    def on_cuda(self, s):
        """Whether slot s (an input or output of this row) lives on the GPU: a GPU row's
        slots do, except the host side of a device move."""
        if not self.cuda:
            return False
        if self.name == "to_cuda":
            return s not in self.ins
        if self.name == "to_cpu":
            return s not in self.outs
        return True

    def const(self, arr, s=None):
        """A constant (no gradient) from host array `arr` on this row's device (slot s's,
        if given)."""
        return on_device(arr, self.cuda if s is None else self.on_cuda(s))

    def wrap(self, arr):
        """A saved array (on the host or the GPU) as a constant Tensor there."""
        return wrap(arr)

    def array(self, s):
        """Slot s's value as the array the row saved, shaped as the slot.

        Only values the row saved are available, which are what its fused VJP reads too;
        they are found by size and dtype among the row's saved arrays (by address too when
        that leaves more than one)."""
        n = int(TAPE.S[s, S_NUMEL])
        found = None
        for a in self.saved:
            if _is_array(a) and a.size == n and a.dtype.kind == "f":
                if found is None:
                    found = a
                elif n:  # more than one candidate: pick by address
                    addr = int(TAPE.S[s, S_ADDR])
                    found = next(
                        (
                            a
                            for a in self.saved
                            if _is_array(a)
                            and a.size == n
                            and a.dtype.kind == "f"
                            and _address(a) == addr
                        ),
                        None,
                    )
                    break
        if found is None:
            raise AssertionError(
                f"internal error: row {self.k} ({self.name}) did not save slot {s}"
            )
        return found.reshape(self.shape(s))

    def saved_array(self, i, s):
        """`array(s)` when the row's saved array i is slot s's value (the caller knows
        the op's save order); only the size is checked here."""
        sv = self.saved
        a = sv[i] if i < len(sv) else None
        if _is_array(a) and a.size == TAPE.S.item(s, S_NUMEL):
            shape = self.shape(s)
            return a if a.shape == shape else a.reshape(shape)
        return self.array(s)

    def value(self, s, i=None):
        """Slot s's value as a Tensor on that slot (differentiable through its producer);
        `i`: its index among the row's saved arrays, when the caller knows it."""
        return handle(self.array(s) if i is None else self.saved_array(i, s), s)

    def x(self, j=0):
        return self.value(self.ins[j])

    def y(self, j=0):
        return self.value(self.outs[j])

    # -- shapes with the batch dims ----------------------------------------------------
    def sum_to(self, g, s):
        """Sum a cotangent broadcast over slot s's shape back to it (batch dims kept)."""
        return sum_to(g, self.shape(s), self.nb)

    def zeros(self, s):
        return self.const(np.zeros(self.bshape + self.shape(s), self.dtype(s).np), s)


def _is_array(a):
    return type(a) is np.ndarray or type(a) is CudaArray


def _address(a):
    return a.address if type(a) is CudaArray else a.__array_interface__["data"][0]


def host(a):
    """A saved array (positions, masks) as a NumPy array: copied off the GPU if there."""
    return a.host() if type(a) is CudaArray else a


def wrap(arr):
    """A saved array as a constant Tensor on its device (no slot, no gradient)."""
    if type(arr) is CudaArray:
        from ...ops.cuda.tensor import CudaTensor

        return CudaTensor._make(arr, -1, False)
    return Tensor._make(arr, -1, False)


def on_device(arr, cuda):
    """A constant Tensor holding host array `arr`, copied to the GPU if `cuda`."""
    if cuda:
        from ...ops.cuda.tensor import from_host

        return from_host(arr)
    return Tensor._make(arr, -1, False)


def handle(arr, s):
    """A new Tensor on slot s (one more live handle: the slot outlives it)."""
    rg = bool(TAPE.S[s, S_RG])
    TAPE.handles[s] += 1
    if type(arr) is CudaArray:
        from ...ops.cuda.tensor import CudaTensor

        return CudaTensor._make(arr, s, rg)
    return Tensor._make(arr, s, rg)


def _load():
    from . import elementwise  # noqa: F401

    for op in OPS:  # ops declared with their differentiable VJP (_optable.py)
        if op.dvjp is not None and DVJP.get(op.name) is not op.dvjp:
            defvjp(op.name)(op.dvjp)


__all__ = ["DVJP", "Row", "defvjp", "handle", "host", "on_device", "sum_to", "wrap"]
