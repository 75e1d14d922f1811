"""Custom differentiable functions: `class F(nbgrad.autograd.Function)`.

`apply` runs `forward` without recording, then records one tape row of code CUSTOM whose
saved object is the ctx. The compiled sweep stops at that row and hands control back to
Python, which calls `backward(ctx, *grad_outputs)` and checks what it returns: one
gradient per forward argument, each of its input's shape or broadcastable down to it.
With CUDA tensors the row is a CUDA row and the GPU sweep does the same
(`backends/cuda/sweep.py: run_custom`): gradients in and out are CUDA tensors.
"""

import functools
import inspect

import numpy as np

from nbgrad._array import contig

from .._atomic import deferred
from .._optable import BY_NAME, CUSTOM
from ..ops.recording import needs_record, slot_of
from ..tape import R_SAVED, SAVES_NONE, TAPE, _set_slot
from ..tensor import Tensor
from .grad_mode import no_grad

_CODE = BY_NAME[CUSTOM].code
# vmap's apply for a Function called on batched tensors, put here by `nbgrad.func` when it
# loads (the transforms sit above autograd: this module names none of them)
VMAP_APPLY: list = []


class FunctionCtx:
    """The `ctx` of forward/backward; also the row's saved object on the tape."""

    def __init__(self):
        self.to_save = ()
        self._arrays = ()
        self._packed = None  # (unpack_hook, packed values) under saved-tensor hooks
        self.needs_input_grad = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.freed = False
        self.dirty = ()
        self.in_graph = False  # set while backward runs with create_graph=True

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        from .saved_hooks import current

        hk = current()
        if hk is not None:  # saved-tensor hooks: keep only what pack_hook returns
            pack, unpack = hk
            self._packed = (unpack, tuple(pack(t) if t is not None else None for t in tensors))
            self.to_save, self._arrays = (None,) * len(tensors), ()
            return
        self._packed = None
        self.to_save = tensors
        # the values as saved: an in-place op that rebinds a tensor (or `.data =`) must not
        # change what backward reads, and a write into them is caught by the version check
        self._arrays = tuple(t._data if t is not None else None for t in tensors)

    def saved_arrays(self):
        """The saved values' arrays (`versions.check` reads them)."""
        return [a for a in self._arrays if a is not None] if self.to_save else []

    @property
    def saved_tensors(self):
        if self.freed:
            from .engine import SECOND_BACKWARD

            raise RuntimeError(SECOND_BACKWARD)
        if self._packed is not None:  # unpacked on every read, as in PyTorch
            from .saved_hooks import unpack_value

            unpack, packed = self._packed
            return tuple(unpack_value(unpack, p) if p is not None else None for p in packed)
        if self.in_graph:  # backward under create_graph: saved tensors keep their graph
            return tuple(self.to_save)
        return tuple(
            type(t)._make(a, -1, False) if t is not None else None
            for t, a in zip(self.to_save, self._arrays)
        )

    def mark_non_differentiable(self, *outputs):
        self.non_differentiable = outputs

    def mark_dirty(self, *tensors):
        self.dirty = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def run_backward(self, grads):
        """Call the Function's backward with `grads`, the gradients of the row's outputs
        (the differentiable ones), and return its gradients as PyTorch checks them: one per
        forward argument (extra trailing Nones dropped), tensors where arguments were."""
        full = []
        for entry in self.layout:  # one per forward output, as PyTorch passes them
            if isinstance(entry, int):
                full.append(grads[entry])
            elif entry is None or not self.materialize_grads:
                full.append(None)  # a non-tensor output, or zeros not materialized
            else:
                shape, dtype, cuda = entry
                z = Tensor._make(np.zeros(shape, dtype), -1, False)
                full.append(z.cuda() if cuda else z)
        res = self.fn_cls.backward(self, *full)
        res = res if isinstance(res, tuple) else (res,)
        name = self.node_name
        if len(res) > self.n_args and all(r is None for r in res[self.n_args :]):
            res = res[: self.n_args]
        if len(res) != self.n_args:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected "
                f"{self.n_args}, got {len(res)})"
            )
        for pos in self.tensor_positions:
            if res[pos] is not None and not isinstance(res[pos], Tensor):
                raise TypeError(
                    f"function {name} returned a gradient different than None at position "
                    f"{pos + 1}, but the corresponding forward input was not a Variable"
                )
        return res

    def release(self):
        """Free what backward needed (called when the graph is freed)."""
        if self.to_save:
            self.to_save, self._packed = (), None
            self.freed = True


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grad_outputs)`."""

    def __init__(self, *args, **kwargs):
        import warnings

        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions "
            "are all static, so you should invoke them on the class itself.",
            DeprecationWarning,
            stacklevel=2,
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def vmap(info, in_dims, *args):
        """Override to batch this Function under `func.vmap`: called with `info` (the
        batch size and randomness), each argument's batch dim (None: not batched) and the
        batched arguments; returns (output, the batch dim of each output)."""
        raise NotImplementedError("vmap is not implemented.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """With it defined, `forward(*args)` takes no ctx, and this fills ctx afterwards."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        if VMAP_APPLY:  # inside a vmap: the Function's rule (NotImplemented outside one)
            out = VMAP_APPLY[0](cls, args, kwargs)
            if out is not NotImplemented:
                return out
        ctx = FunctionCtx()
        ctx.fn_cls = cls
        ctx.node_name = cls.__name__ + "Backward"
        separate = cls.setup_context is not _NO_SETUP
        if separate:  # forward(*args) + setup_context(ctx, inputs, output): defaults bound
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        tensors = [(i, a) for i, a in enumerate(args) if isinstance(a, Tensor)]
        record = needs_record([a for _, a in tensors])
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._rg and record for a in args)
        with no_grad():
            if separate:
                result = cls.forward(*args)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        if not record:
            return result
        ctx.n_args = len(args)
        ctx.tensor_positions = tuple(i for i, _ in tensors)
        in_slots = tuple(slot_of(a) for _, a in tensors)
        nondiff = {id(t) for t in ctx.non_differentiable}
        dirty = {id(t) for t in ctx.dirty}
        wrapped, layout = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                wrapped.append(o)
                layout.append(None)
                continue
            if id(o) in dirty and o._leaf and o._rg:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation."
                )
            if o.is_cuda:  # CudaTensor._make (its storage is always contiguous)
                rg = id(o) not in nondiff and o.is_floating_point()
                w = type(o)._make(o._data, -1, rg)
            elif id(o) in nondiff or o._data.dtype.kind != "f":
                w = Tensor._make(o._data, -1, False)
            else:
                data = o._data if o._data.flags.c_contiguous else contig(o._data)
                w = Tensor._make(data, -1, True)
            wrapped.append(w)
            layout.append(sum(1 for x in wrapped[:-1] if isinstance(x, Tensor) and x._rg)
                          if w._rg else (w._data.shape, w._data.dtype, w.is_cuda))  # fmt: skip
        ctx.layout = tuple(layout)
        diff = [w for w in wrapped if isinstance(w, Tensor) and w._rg]
        if not diff:
            return _outputs(wrapped, outs, dirty, single)
        cuda = [t.is_cuda for t in diff] + [a.is_cuda for _, a in tensors if a._rg]
        if any(cuda):  # a CUDA row: the GPU sweep runs its backward (sweep.run_custom)
            if not all(cuda):
                raise NotImplementedError(
                    "custom autograd.Function mixing CPU and CUDA tensors that take gradients "
                    "is not supported"
                )
            from ..backends.cuda.record import record_custom

            for s, w in zip(record_custom(_CODE, [w._data for w in diff], in_slots, ctx), diff):
                w._slot = s
            return _outputs(wrapped, outs, dirty, single)
        # keep the saved tensors' values alive with the row (ctx holds them)
        dt = 0 if diff[0]._data.dtype == np.float32 else 1
        with TAPE.guard(), deferred():  # row k stays row k, and is whole, until this is done
            out_slots = tuple(TAPE.new_slot() for _ in diff)
            k = TAPE.record(_CODE, dt, out_slots, diff[0]._data, in_slots, saved=ctx)
            if not ctx.to_save:  # nothing to free: may run backward again, as in PyTorch
                TAPE.R[k, R_SAVED] = SAVES_NONE
            for s, w in zip(out_slots, diff):
                w._slot = s
                _set_slot(TAPE.S, s, w._data, 0 if w._data.dtype == np.float32 else 1, 1, k)
        return _outputs(wrapped, outs, dirty, single)


_NO_SETUP = Function.setup_context


def _outputs(wrapped, outs, dirty, single):
    """The results apply returns: a dirty input that forward returned is the input object
    itself, now naming the row's output (its old slot stays the row's input)."""
    if dirty:
        for o, w in zip(outs, wrapped):
            if id(o) in dirty and isinstance(w, Tensor):
                old = o._slot
                o._data, o._slot, o._rg = w._data, w._slot, w._rg
                w._slot = -1
                if old >= 0:
                    TAPE.release(old)
        wrapped = [o if id(o) in dirty else w for o, w in zip(outs, wrapped)]
    return wrapped[0] if single else tuple(wrapped)


def once_differentiable(fn):
    """Decorate a Function's backward that is not itself differentiable: it runs with
    gradients off, so a create_graph backward through it yields gradients without history."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper
