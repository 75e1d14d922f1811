"""`nbgrad.compile`: trace a function once per input signature, then replay its forward
and backward as ONE compiled call. Design and limits: docs/compile.md."""

import functools
import threading
import warnings

import numpy as np

from .. import _cache
from ..autograd.hooks import new_grad_buffer
from ..tensor import Tensor

# the kernels must be defined under the cache dir, however this package is imported
with _cache.numba_cache_dir():
    from . import kernels, row_forwards  # noqa: F401
from .program import build
from .trace import Untraceable, run_traced, signature

__all__ = ["compile", "CompileError", "CompileWarning"]


class CompileError(RuntimeError):
    """Raised by `compile(fn, fallback="raise")` when fn cannot be compiled."""


class CompileWarning(UserWarning):
    """Warned when a compiled function falls back to eager execution."""


class _Replay:
    """A compiled program and how to feed it from a call's arguments."""

    def __init__(self, tr, fn, layout):
        self.fn = fn
        self.grad_mode = layout["grad_mode"]
        self.srcs = []  # per program input: ("arg", i) or ("param", weakref, shape)
        for s in layout["order"]:
            if s in tr.args:
                self.srcs.append((0, tr.args[s], None))
            else:
                self.srcs.append((1, tr.params[s], tr.shape[s]))
        self.leaves = []  # gradient leaves: same sources
        for s in layout["leaves"]:
            if s in tr.args:
                self.leaves.append((0, tr.args[s], tr.shape[s]))
            elif s in tr.params:
                self.leaves.append((1, tr.params[s], tr.shape[s]))
            else:  # a value nbgrad.func differentiates (a view of an input): its shape
                self.leaves.append((2, None, tr.shape[s]))
        self.leaf_index = {s: j for j, s in enumerate(layout["leaves"])}
        self.values = {s: (j, tr.shape[s]) for j, s in enumerate(layout["out_values"])}
        self.extras = layout["extras"]
        self.pre, self.post = tr.pre, tr.post
        self.outputs = self._resolve(tr.outputs)
        self.source = layout["source"]
        self.tape = layout["tape"]  # the program's own tape (generic rows): kept alive
        self.tape_args = self.tape.args
        self.patches = layout["patches"]
        self.loops = layout["loops"]  # the fused loops' addresses (loops.py)
        self.workspace = layout["workspace"]  # (size, dtype index) of each buffer
        self._ws = threading.local()  # .arrays: this thread's workspace, while not in use

    def _take_workspace(self):
        """This thread's workspace (made on its first call), taken for one call: a call
        that starts while it is in use (a program re-entered from its own callback) gets
        a fresh one."""
        ws = getattr(self._ws, "arrays", None)
        if ws is None:
            ws = tuple(np.empty(n, (np.float32, np.float64)[dt]) for n, dt in self.workspace)
        self._ws.arrays = None
        return ws

    def _resolve(self, ref):
        """Output references as indices into the program's results."""
        kind = ref[0]
        if kind == "seq":
            return ("seq", ref[1], [self._resolve(r) for r in ref[2]])
        if kind == "grad":
            j = self.leaf_index[ref[1]]
            return ("grad", j) if self.grad_mode else ("leafgrad", j)
        if kind == "value":
            return ("value", *self.values[ref[1]])
        return ref

    @staticmethod
    def _tensor(src, tensors):
        kind, ref, shape = src
        if kind == 0:
            return tensors[ref]
        if kind == 2:
            return _Shape(shape)
        t = ref()
        if t is None or t._data.shape != shape:
            return None
        return t

    def run(self, tensors):
        A = []
        for kind, ref, shape in self.srcs:
            if kind == 0:
                A.append(tensors[ref]._data)
                continue
            t = ref()
            if t is None or t._data.shape != shape:
                return _RETRACE
            A.append(t._data)
        keep = self._remake(tensors) if self.patches else ()
        if keep is _RETRACE or keep is _EAGER:
            return keep
        for f in self.pre:
            f(tensors)
        leaf_t, G, flags = [], [], []
        merged = False  # a leaf's .grad becomes .grad + the program's buffer
        for src in self.leaves:
            t = self._tensor(src, tensors)
            if t is None:
                return _RETRACE
            leaf_t.append(t)
            if self.grad_mode:
                continue
            g = t._grad
            d = t._data
            if g is not None and g._data.shape != d.shape:  # `.data` replaced since
                from ..autograd.engine import _size_error

                raise _size_error(g._data.shape, d.shape)
            if (
                g is not None
                and g._data.flags.writeable
                and g._data.base is None
                and g._data.dtype == d.dtype
            ):
                G.append(g._data)
                flags.append(1)
            else:
                G.append(np.empty(d.shape, d.dtype) if g is not None else new_grad_buffer(t, d))
                flags.append(0)
                merged = merged or g is not None
        flags = np.array(flags, np.int64) if flags else _NO_FLAGS
        TG = []
        post = self.post
        fused = False  # the program takes the optimizer's step itself
        for e in self.extras:
            if e[0] == "target":  # checked here: the program indexes with them
                _, i, C, ign = e
                t = tensors[i]._data.reshape(-1)
                bad = kernels.first_bad_target(t, C, ign)
                if bad >= 0:
                    raise IndexError(f"Target {int(t[bad])} is out of bounds.")
            elif e[0] == "weight":
                _, src, shape, dt = e
                w = tensors[src] if shape is None else src()  # an argument, or captured
                if shape is not None and (w is None or w._data.shape != shape):
                    return _RETRACE
                t = np.ascontiguousarray(w._data, dt).reshape(-1)
            elif e[0] == "sgd":  # the step the program applies (program.fused_step)
                t = None if merged else self._sgd_rows(leaf_t)
                if t is None:  # this call steps eagerly after the program
                    t = np.zeros((len(leaf_t), 6))
                else:
                    post = post[1:]
                    fused = True
            else:  # "cond": a boolean argument
                t = tensors[e[1]]._data.reshape(-1).view(np.uint8)
            TG.append(t)
        ws = self._take_workspace()
        try:
            res = self.fn(tuple(A), tuple(G), flags, tuple(TG), self.tape_args, self.loops, ws)
        finally:
            self._ws.arrays = ws  # (the results hold no part of it: see program.py)
        del keep
        if row_forwards.ERRORS:  # an eager op called back from the program raised
            e = row_forwards.ERRORS[0]
            row_forwards.ERRORS.clear()
            raise e
        if fused:  # parameters written in place, as the optimizer's step does eagerly
            for t in leaf_t:
                t._version += 1
        if res[-1] == -2:  # sin/cos of an argument beyond 2**20: eager picks libm there
            return _EAGER
        nv = len(self.values)
        if not self.grad_mode:
            for t, buf, fl in zip(leaf_t, G, flags):
                if fl:
                    continue
                if t._grad is None:
                    t._grad = Tensor._make(buf, -1, False)
                else:
                    t._grad._data += buf
        for f in post:
            f(tensors)
        return self._build(self.outputs, res, nv, tensors, leaf_t)

    def _sgd_rows(self, leaf_t):
        """Per leaf: (1, lr, dampening, weight decay, nesterov, maximize) where SGD.step
        updates it; None where the program cannot take the step (momentum, or a
        parameter with a gradient the program does not write)."""
        pos = {id(t): j for j, t in enumerate(leaf_t)}
        rows = [_NO_STEP] * len(leaf_t)
        for group in self.post[0].optimizer.param_groups:
            if group["momentum"] != 0:
                return None
            h = (1.0, group["lr"], group["dampening"], group["weight_decay"],
                 float(group["nesterov"]), float(group["maximize"]))  # fmt: skip
            for p in group["params"]:
                j = pos.get(id(p))
                if j is None:
                    if p._grad is not None:
                        return None
                else:
                    rows[j] = h
        return np.array(rows, np.float64)

    def _remake(self, tensors):
        """The arrays the program's tape reads by address (positions, loss weights),
        remade from this call's arguments, its tape pointed at them; kept by the caller
        until the program returns."""
        I = self.tape.T[1]
        keep = []
        for at, make, sizes in self.patches:
            arrs = make(tensors)
            if arrs == "retrace":
                return _RETRACE
            for p, a, n in zip(at, arrs, sizes):
                if n is not None and a.size != n:  # a mask selecting another count
                    return _EAGER
                I[p] = a.ctypes.data if a.size else 0
            keep.append(arrs)
        return keep

    def _build(self, ref, res, nv, tensors, leaf_t):
        kind = ref[0]
        if kind == "value":
            return Tensor._make(res[ref[1]].reshape(ref[2]), -1, False)
        if kind == "const":
            return ref[1]
        if kind == "seq":
            return ref[1](self._build(r, res, nv, tensors, leaf_t) for r in ref[2])
        if kind == "grad":
            j = ref[1]
            t = leaf_t[j]
            shape = t.shape if type(t) is _Shape else t._data.shape
            return Tensor._make(res[nv + j].reshape(shape), -1, False)
        if kind == "leafgrad":
            return leaf_t[ref[1]]._grad
        return tensors[ref[1]]  # "arg"


class _Shape:
    """Stands for a gradient target that is not an input (grad mode reads its shape)."""

    def __init__(self, shape):
        self.shape = shape


_RETRACE = object()
_NO_FLAGS = np.zeros(0, np.int64)
_NO_STEP = (0.0,) * 6  # an _sgd_rows row: the leaf is not stepped
_EAGER = object()


class Compiled:
    """The callable `compile(fn)` returns; `.programs` maps signatures to what runs."""

    def __init__(self, fn, fallback="warn"):
        if fallback not in ("warn", "raise", "silent"):
            raise ValueError("fallback must be 'warn', 'raise' or 'silent'")
        self.fn = fn
        self.fallback = fallback
        self.programs = {}  # signature -> _Replay, or the reason it runs eagerly
        self.through = {}  # signature -> whether fn returns tensors (see _through)
        functools.update_wrapper(self, fn)

    def __getstate__(self):
        # machine code and addresses mean nothing in another process: a copy traces again
        # on its first call (as after `compile(fn)`)
        state = dict(self.__dict__)
        state["programs"] = {}
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __call__(self, *args, **kwargs):
        key, tensors = signature(args, kwargs)
        if self.through and key in self.through:
            return _through(self, args, key)
        try:
            entry = self.programs.get(key)
        except TypeError:
            return self._eager("an argument is unhashable (not a Tensor)", args, kwargs)
        if entry is None:
            return self._trace(key, args, kwargs)
        if type(entry) is str:
            return self.fn(*args, **kwargs)
        out = entry.run(tensors)
        if out is _EAGER:
            return self.fn(*args, **kwargs)
        if out is _RETRACE:  # a captured parameter died or changed shape
            return self._trace(key, args, kwargs)
        return out

    def _trace(self, key, args, kwargs):
        result, tr = run_traced(self.fn, args, kwargs)
        if not isinstance(tr, str) and tr.request is None and not kwargs and key[0]:
            if any(t._rg for t in signature(args, kwargs)[1]):  # differentiated through
                self.through[key] = _tensors_only(tr.result)
                return tr.result  # the eager result, with its graph
        if isinstance(tr, str):
            self._give_up(key, tr)
            return result
        try:
            fn, layout = build(tr, tr.tracers)
            self.programs[key] = _Replay(tr, fn, layout)
            self.programs[key].request_free = tr.request is None
        except Untraceable as e:
            self._give_up(key, str(e))
        return result

    def _vjp(self):
        """The compiled gradient of sum(<fn(*args), cotangents>) w.r.t. the tensor
        arguments at positions `rg` (among the tensors), called as (number of outputs, rg,
        *args, *cotangents) (see _through). (Not the arguments' requires_grad: the trace
        gives the others stand-ins that require grad.)"""
        if self.__dict__.get("_vjp_fn") is None:
            fn = self.fn

            def vjp(nout, rg, *a):
                from ..autograd import grad

                xs, cts = a[: len(a) - nout], a[len(a) - nout :]
                out = fn(*xs)
                outs = out if isinstance(out, tuple) else (out,)
                loss = sum((o * c).sum() for o, c in zip(outs, cts))
                ts = [x for x in xs if isinstance(x, Tensor)]
                return grad(loss, [ts[j] for j in rg], allow_unused=True, materialize_grads=True)

            self._vjp_fn = Compiled(vjp, self.fallback)
        return self._vjp_fn

    def _give_up(self, key, reason):
        self.programs[key] = reason
        name = getattr(self.fn, "__qualname__", repr(self.fn))
        msg = f"nbgrad.compile({name}): {reason}"
        if self.fallback == "raise":
            raise CompileError(msg)
        if self.fallback == "warn":
            warnings.warn(msg + "; running it eagerly", CompileWarning, stacklevel=4)

    def _eager(self, reason, args, kwargs):
        if self.fallback == "raise":
            raise CompileError(f"nbgrad.compile: {reason}")
        return self.fn(*args, **kwargs)


# -- differentiating through a compiled function -----------------------------------------
def _through(comp, args, key):
    """compile(f)(x) for an x that requires grad, where f takes no gradient itself: the
    result carries gradients to x, as torch.compile's does (so `func.grad(compile(f))`
    works). The forward is f's program on detached inputs; the backward is a second
    compiled function, the gradient of sum(<output, cotangent>) (one scalar loss, which a
    program computes). A signature whose f returns other than tensors runs eagerly."""
    from ..autograd.function import Function
    from ..autograd.grad_mode import enable_grad

    if not comp.through[key]:
        return comp.fn(*args)
    idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    rg = tuple(j for j, i in enumerate(idx) if args[i]._rg)

    def full(ts):
        out = list(args)
        for i, t in zip(idx, ts):
            out[i] = t
        return out

    class Through(Function):
        @staticmethod
        def forward(ctx, *ts):
            ctx.save_for_backward(*ts)
            with enable_grad():  # the program of a call that records (see signature)
                out = comp(*full([t.detach() for t in ts]))
            ctx.nout = len(out) if isinstance(out, tuple) else 1
            return out

        @staticmethod
        def backward(ctx, *gs):
            xs = [t.detach().requires_grad_(j in rg) for j, t in enumerate(ctx.saved_tensors)]
            with enable_grad():
                grads = iter(comp._vjp()(ctx.nout, rg, *full(xs), *gs))
            return tuple(next(grads) if j in rg else None for j in range(len(xs)))

    return Through.apply(*[args[i] for i in idx])


def _tensors_only(out):
    if isinstance(out, Tensor):
        return True
    return isinstance(out, tuple) and out and all(isinstance(o, Tensor) for o in out)


def compile(fn=None, *, fallback="warn"):  # noqa: A001
    """Compile `fn`: trace it on its first call for each input signature and replay the
    recorded forward and backward as one compiled call on later calls.

    fallback: what happens when fn cannot be compiled (the reason is in the message):
    "warn" (default) warns once per signature and runs fn eagerly from then on, "raise"
    raises CompileError, "silent" runs eagerly without a warning.
    """
    if fn is None:
        return lambda f: Compiled(f, fallback)
    return Compiled(fn, fallback)
