"""Tracing: run the function once eagerly and read the program off the tape.

Every op nbgrad records appends a tape row (op code, dtype, in/out slots, attrs), so the
rows a call appends *are* its program. Three things make that sound:

* inputs that do not require grad are replaced, for the trace only, by leaves that do
  (sharing their memory), so every op that depends on an input records a row;
* any other value an op reads must be a parameter (a leaf that requires grad and
  outlives the call) or an input; anything else was computed outside autograd (under
  `no_grad`, through `.detach()` or an integer op) and cannot be replayed: rejected;
* the places where Python sees a value (`.item()`, `bool()`, `.numpy()`, ...) are hooked
  while tracing, since control flow on them is frozen: rejected.

Gradient requests are caught at `autograd.engine._run` (the one pass behind `backward()`,
`autograd.grad` and everything built on them); optimizer `zero_grad`/`step` and
`.grad = None` are recorded as Python actions replayed around the compiled call, and so
are the post-accumulate-grad hooks a backward calls (`autograd.hooks.finish`: DDP's
all-reduce) and what a module asks to run at each call (`on_replay`: DDP's forward).
"""

import sys
import threading
import weakref

import numpy as np

from .._optable import BY_NAME, OPS
from ..autograd import engine
from ..autograd import hooks as grad_hooks
from ..autograd.grad_mode import STATE, no_grad
from ..backends.cuda.record import CUDA_DT as CUDA_ROW_DT
from ..ops import indexing, losses
from ..optim.optimizer import Optimizer
from ..tape import (
    R_CODE,
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
    S_PROD,
    S_SHAPE,
    TAPE,
)
from ..tensor import Tensor

CUDA_REASON = "CUDA tensors: compiled programs run on the CPU only"
ACTIVE = None  # the _Hooks of the trace running now (nbgrad.func asks it, see func_leaf)


def func_leaf(t):
    """For nbgrad.func's transforms while a trace runs: whether t, which a transform is
    about to differentiate, is an argument of the traced call or a captured parameter.
    Then the transform differentiates t itself (no detached copy, no create_graph), so the
    trace sees an ordinary gradient request, and t (or a view of it the transform makes,
    given to `func_target`) may be a gradient target although it does not require grad
    outside the trace."""
    h = ACTIVE
    if h is None or threading.get_ident() != h.owner or not isinstance(t, Tensor):
        return False
    if id(t) in h.tr.func_targets:  # an enclosing transform differentiates it already:
        return False  # this one must see that transform's graph (create_graph)
    return any(u is t for u in h.tr.used) or (t._rg and t._leaf)


def on_replay(fn, what):
    """For Python code that a compiled program must run again at each replay (DDP's
    forward: the buffer broadcast, whether this backward synchronises): while this thread
    traces a call, record `fn()` as an action before the program (or reject the trace if
    ops were recorded before it: `what` names it in the reason)."""
    h = ACTIVE
    if h is not None and threading.get_ident() == h.owner:
        h.action(lambda ts: fn(), what)


def func_target(t):
    """Mark t as a gradient target of a transform (see func_leaf)."""
    ACTIVE.tr.func_targets.add(id(t))
    ACTIVE.tr.keep.append(t)


def func_const(t):
    """Mark t, made by a transform from shapes alone (an identity basis), as a constant
    of the program."""
    ACTIVE.tr.consts.add(id(t))
    ACTIVE.tr.keep.append(t)


class Untraceable(Exception):
    """`fn` did something a compiled program cannot replay (the message says what)."""


class Row:
    """One recorded op: `op` name, dtype code, output/input slots, int/float attrs."""

    __slots__ = ("op", "dt", "outs", "ins", "iattrs", "fattrs", "extra")

    def __init__(self, op, dt, outs, ins, iattrs, fattrs, extra=None):
        self.op, self.dt, self.outs, self.ins = op, dt, outs, ins
        self.iattrs, self.fattrs = iattrs, fattrs
        # what a replay needs beyond the row: how to remake the arrays a row reads by
        # address (an IndexCall, a LossWeights)
        self.extra = extra

    def attrs(self):
        """The int attrs by the names the op declares (`_optable.py`)."""
        return BY_NAME[self.op].unpack(self.iattrs)

    def float_attrs(self):
        """The float attrs by the names the op declares."""
        return BY_NAME[self.op].unpack_f(self.fattrs)

    def __repr__(self):
        return f"Row({self.op}, {self.outs} <- {self.ins}, {self.iattrs}, {self.fattrs})"


class Trace:
    """What one traced call did; `program.build` turns it into a compiled program."""

    def __init__(self):
        self.rows = []  # Row, in recording order
        self.shape = {}  # slot -> shape
        self.dtype = {}  # slot -> 0 float32 / 1 float64
        self.args = {}  # slot -> index among the call's tensor arguments
        self.params = {}  # slot -> weakref of a captured leaf that requires grad
        self.int_args = {}  # data address -> index of an integer tensor argument
        self.arg_shape = []  # shapes of the call's tensor arguments
        self.weights = {}  # data address -> a loss's class weight: argument index or weakref
        self.extra = {}  # row (from the call's first) -> its Row.extra, found by a hook
        self.request = None  # (kind, roots, [(leaf slot, tensor)], {slot: id(buffer)})
        self.request_pos = 0  # rows recorded before the gradient request
        self.tracers = set()  # ids of the stand-ins for inputs that do not require grad
        self.func_targets = set()  # ids of tensors nbgrad.func differentiates (func_leaf)
        self.consts = set()  # ids of constants nbgrad.func made (func_const)
        self.keep = []  # ... kept alive while tracing, so their ids stay theirs
        self.outputs = None  # the call's result with tensors replaced by references
        self.pre = []  # Python actions before the compiled call
        self.post = []  # ... and after it


_WATCHED = ("item", "tolist", "numpy", "__array__", "__bool__", "__float__", "__int__")
_WATCHED += ("__index__",)


class _Hooks:
    """Install the tracing hooks for the duration of one traced call."""

    def __init__(self, tr, start):
        self.tr, self.start = tr, start
        self.rejected = None
        self.leaf_tensors = {}  # slot -> tensor given a slot during the trace
        self.results = []  # per gradient request: {slot: buffer}
        self.inside = 0  # > 0 while nbgrad's own code runs (its .item() etc. are fine)

    def reject(self, why):
        if self.rejected is None:
            self.rejected = why

    def __enter__(self):
        hooks = self
        T = TAPE
        owner = self.owner = threading.get_ident()

        def mine():  # another thread's calls pass through the hooks as if untraced
            return threading.get_ident() == owner

        self.saved_methods = {m: Tensor.__dict__[m] for m in _WATCHED}
        for m, f in self.saved_methods.items():
            setattr(Tensor, m, self._watch(m, f))
        self.grad_prop = Tensor.__dict__["grad"]
        prop = self.grad_prop

        def set_grad(t, value):
            if not mine():
                return prop.fset(t, value)
            if value is not None:
                hooks.reject("assigning a tensor to .grad inside a compiled function")
            else:
                hooks.action(_grad_none(t, hooks.tr), "grad = None")
            prop.fset(t, value)

        Tensor.grad = property(prop.fget, set_grad, prop.fdel)
        self.run = engine._run
        engine._run = self._run
        self.check_weight = losses._check_weight

        def check_weight(weight, *a):
            if not mine():
                return hooks.check_weight(weight, *a)
            src = weakref.ref(weight) if isinstance(weight, Tensor) else None
            if isinstance(weight, Tensor) and id(weight) in hooks.tr.tracers:
                # an argument (its stand-in requires grad, the argument does not)
                src = next(i for i, u in enumerate(hooks.tr.used) if u is weight)
                weight = Tensor._make(weight._data, -1, False)
            elif (len(a) < 3 or a[2]) and hooks.computed_weight(weight):
                weight = Tensor._make(weight._data, -1, False)
            w, has_w = hooks.check_weight(weight, *a)
            if has_w:  # the loss reads w by address: a replay reads the tensor's data
                hooks.tr.weights[w.__array_interface__["data"][0]] = src
            return w, has_w

        losses._check_weight = check_weight
        self.pointwise_loss = losses.pointwise_loss
        losses.pointwise_loss = self._pointwise_loss
        indexing.TRACE = self._index_call
        self.depth = 0  # nesting of indexing calls (only the outermost is recorded)
        self.zero_grad, self.step = Optimizer.zero_grad, Optimizer.step

        def zero_grad(opt, set_to_none=True):
            if not mine():
                return hooks.zero_grad(opt, set_to_none)
            hooks.action(lambda ts: hooks.zero_grad(opt, set_to_none), "zero_grad")
            return hooks.zero_grad(opt, set_to_none)

        def step(opt, closure=None):
            if not mine():
                return hooks.step(opt, closure)
            if closure is not None:
                hooks.reject("optimizer.step(closure)")
            hooks.action(_StepAction(opt, hooks.step), "step")
            hooks.inside += 1
            try:
                return hooks.step(opt, closure)
            finally:
                hooks.inside -= 1

        Optimizer.zero_grad, Optimizer.step = zero_grad, step
        self.leaf_slot = T.leaf_slot

        def leaf_slot(t):
            s = hooks.leaf_slot(t)
            if mine():
                hooks.leaf_tensors[s] = t
            return s

        T.leaf_slot = leaf_slot
        orig_finish = self.finish = grad_hooks.finish

        def finish(leaves):  # the post-accumulate-grad hooks after the gradient request
            if mine() and leaves:
                refs = [weakref.ref(t) for t in leaves]
                hooks.action(lambda ts: orig_finish([r() for r in refs if r() is not None]),
                             "post-accumulate-grad hooks")  # fmt: skip
            return orig_finish(leaves)

        grad_hooks.finish = finish
        T.collect = lambda: None  # no compaction mid-trace: the rows must stay put
        global ACTIVE
        self.outer, ACTIVE = ACTIVE, self
        return self

    def __exit__(self, *exc):
        global ACTIVE
        ACTIVE = self.outer
        for m, f in self.saved_methods.items():
            setattr(Tensor, m, f)
        Tensor.grad = self.grad_prop
        engine._run = self.run
        grad_hooks.finish = self.finish
        Optimizer.zero_grad, Optimizer.step = self.zero_grad, self.step
        losses._check_weight = self.check_weight
        losses.pointwise_loss = self.pointwise_loss
        indexing.TRACE = None
        del TAPE.leaf_slot
        del TAPE.collect
        return False

    def _watch(self, name, f):
        hooks = self

        def watched(t, *a, **k):
            if not hooks.inside and t._rg and threading.get_ident() == hooks.owner:
                hooks.reject(
                    f"Tensor.{name.strip('_')}() of a traced tensor (Python would see "
                    "its value, so control flow depending on it would be frozen)"
                )
            return f(t, *a, **k)

        watched.__name__ = name
        return watched

    def _source(self, t):
        """A tensor read by address: its argument index, or a weakref (captured)."""
        if id(t) in self.tr.tracers:
            return next(i for i, u in enumerate(self.tr.used) if u is t)
        return weakref.ref(t)

    def computed_weight(self, t):
        """Whether t, a loss weight, requires grad only through the stand-ins (computed
        inside the function from arguments): eager would see it not requiring grad, so
        it is passed detached, and the call is not compiled (a replay could not remake
        it before the program runs)."""
        if not isinstance(t, Tensor) or not t._rg or id(t) in self.tr.tracers or t._slot < 0:
            return False
        T = TAPE
        stand_ins = {u._slot for u in self.tr.used if id(u) in self.tr.tracers}
        stack, seen = [t._slot], set()
        while stack:
            s = stack.pop()
            if s < 0 or s in seen:
                continue
            seen.add(s)
            k = int(T.S[s, S_PROD])
            if k < 0:
                if s not in stand_ins:  # a leaf that requires grad: eager refuses it too
                    return False
                continue
            p = int(T.R[k, R_IPOS]) + int(T.R[k, R_NOUT])
            stack.extend(T.I[p : p + int(T.R[k, R_NIN])].tolist())
        self.reject("a loss weight computed inside the function (pass it as an argument)")
        return True

    def _pointwise_loss(self, kind, input, target, reduction, *a, **k):  # noqa: A002
        """The loss with weight/pos_weight (read by address by its row): their sources
        are kept, and an argument's stand-in is unwrapped (the loss refuses one that
        requires grad)."""
        if threading.get_ident() != self.owner:
            return self.pointwise_loss(kind, input, target, reduction, *a, **k)
        names = ("p", "weight", "pos_weight", "name", "warn")
        k.update(zip(names, a))
        srcs = {}
        for j, nm in ((losses.PW.w_at, "weight"), (losses.PW.pw_at, "pos_weight")):
            t = k.get(nm)
            if isinstance(t, Tensor):
                if self.computed_weight(t):
                    k[nm] = Tensor._make(t._data, -1, False)
                    continue
                src = self._source(t)
                srcs[j] = src if isinstance(src, int) else (src, t._data.shape)
                if id(t) in self.tr.tracers:
                    k[nm] = Tensor._make(t._data, -1, False)
        n0 = TAPE.n
        out = self.pointwise_loss(kind, input, target, reduction, **k)
        if srcs and TAPE.n > n0:  # the loss's row is the last one it recorded
            shape = np.broadcast_shapes(input._data.shape, target._data.shape)
            lw = LossWeights(srcs, shape, input._data.dtype)
            self.tr.extra[TAPE.n - 1 - self.start] = lw
        return out

    def _index_call(self, fn, args, kwargs):
        """An indexing op computing positions from index values: if they come from
        integer tensor arguments, the call is kept to be made again at replay."""
        if self.depth or threading.get_ident() != self.owner:
            return fn(*args, **kwargs)
        self.depth += 1
        n0 = TAPE.n
        try:
            out = fn(*args, **kwargs)
        finally:
            self.depth -= 1
        R = TAPE.R
        rows = [k for k in range(n0, TAPE.n) if OPS[int(R[k, R_CODE])].name in INDEX_ROWS]
        if len(rows) == 1:
            try:
                call = IndexCall(fn, _template(args, self.tr), _template(kwargs, self.tr))
            except _NoSource:
                return out
            self.tr.extra[rows[0] - self.start] = call
        return out

    def action(self, fn, what):
        """A Python action: before the program if no row was recorded yet, after it if
        the gradient request already happened."""
        if TAPE.n == self.start and not self.results:
            self.tr.pre.append(fn)
        elif self.results:
            self.tr.post.append((fn, TAPE.n))
        else:
            self.reject(f"{what} between the forward ops and the gradient request")

    def _run(self, outputs, seeds, retain_graph, wanted, locked=False):
        if threading.get_ident() != self.owner:
            return self.run(outputs, seeds, retain_graph, wanted, locked)
        caller = sys._getframe(1).f_code.co_name
        kind = "grad" if caller == "grad" else ("backward" if wanted is None else None)
        if kind is None:
            self.reject("backward(inputs=...)")
        if self.results:
            self.reject("more than one gradient request in one compiled function")
        for o, s in zip(outputs, seeds):
            if o._data.size != 1 or s.size != 1 or s[0] != 1:
                self.reject("gradients seeded with grad_outputs (only scalar losses)")
        self.inside += 1
        n0 = TAPE.n
        try:
            res = self.run(outputs, seeds, retain_graph, wanted, locked)
        finally:
            self.inside -= 1
        if TAPE.n != n0:  # the backward recorded rows (create_graph, custom Functions)
            self.reject("a gradient request that records ops (higher-order gradients)")
        roots = [o._slot for o in outputs]
        if kind == "grad":
            leaves = [(t._slot, t) for t in wanted]
        else:
            leaves = []
            for s in res:
                t = TAPE.watch[s]()
                leaves.append((s, t))
        bufs = {s: id(b) for s, b in res.items() if b is not None}
        self.tr.request = (kind, roots, leaves, bufs)
        self.tr.request_pos = TAPE.n - self.start
        self.results.append(res)
        return res


class _StepAction:
    """The replayed `opt.step()`; `optimizer` lets the program apply a plain SGD step
    itself (program.fused_step)."""

    def __init__(self, opt, step):
        self.optimizer, self.step = opt, step

    def __call__(self, ts):
        self.step(self.optimizer)


def _grad_none(t, tr):
    """The replayed `t.grad = None`: t is found among the call's arguments, else it is a
    captured tensor (held weakly)."""
    for i, u in enumerate(tr.used):
        if u is t:
            return lambda ts: setattr(ts[i], "grad", None)
    ref = weakref.ref(t)

    def clear(ts):
        u = ref()
        if u is not None:
            u.grad = None

    return clear


def signature(args, kwargs):
    """(cache key, tensor arguments) of a call. The key: tensors by (shape, dtype,
    requires_grad); other arguments by value (constants of the traced program, as static
    arguments in jax.jit); the grad mode."""
    if kwargs:
        args = list(args) + [kwargs[k] for k in sorted(kwargs)]
    key = [STATE.enabled]
    tensors = []
    for a in args:
        if isinstance(a, Tensor):
            key.append((a._data.shape, a._data.dtype.char, a._rg))
            tensors.append(a)
        else:
            key.append((type(a), a))
    if kwargs:
        key.extend(sorted(kwargs))
    return tuple(key), tensors


def _tensor_args(args, kwargs):
    return [a for a in list(args) + [kwargs[k] for k in sorted(kwargs)] if isinstance(a, Tensor)]


def run_traced(fn, args, kwargs):
    """Call fn(*args, **kwargs) eagerly while tracing; returns (result, Trace or reason)."""
    tr = Trace()
    tensors = _tensor_args(args, kwargs)
    if any(type(t._data) is not np.ndarray for t in tensors):
        return fn(*args, **kwargs), CUDA_REASON
    subst = {}
    for i, t in enumerate(tensors):
        d = t._data
        tr.arg_shape.append(d.shape)
        if d.dtype.kind == "f":
            if not t._rg:  # a stand-in that requires grad, so ops on it record rows
                subst[id(t)] = Tensor._make(d, -1, True)
                tr.tracers.add(id(subst[id(t)]))
        elif d.dtype.kind in "iub":
            tr.int_args[d.__array_interface__["data"][0]] = i
    if subst:
        args = tuple(subst.get(id(a), a) for a in args)
        kwargs = {k: subst.get(id(v), v) for k, v in kwargs.items()}
    used = tr.used = [subst.get(id(t), t) for t in tensors]
    # the hooks are process-wide: one trace at a time, and other threads' ops wait for it
    # (those that do not record pass through the hooks untouched, see _Hooks)
    with TAPE.guard():
        return _trace(fn, args, kwargs, tr, used)


def _trace(fn, args, kwargs, tr, used):
    T = TAPE
    T.reserve(64, 8)
    start = T.n
    with _Hooks(tr, start) as hooks:
        result = fn(*args, **kwargs)
    if hooks.rejected:
        return result, hooks.rejected
    try:
        _read_rows(tr, start, used, hooks)
        tr.outputs = _outputs(tr, result, used, start)
    except Untraceable as e:
        return result, str(e)
    for _, n in tr.post:
        if n != T.n:
            return result, "ops recorded after optimizer.step()"
    tr.post = [f for f, _ in tr.post]
    if tr.request is None and not tr.rows:
        return result, "nothing to compile (no recorded op)"
    tr.result = result  # as eager returned it (compile differentiates through it)
    return _detach(result), tr


def _detach(x):
    if isinstance(x, Tensor):
        return Tensor._make(x._data, -1, False) if x._rg else x
    if isinstance(x, (tuple, list)):
        return type(x)(_detach(v) for v in x)
    return x


def _read_rows(tr, start, used, hooks):
    T = TAPE
    R, I, F, S = T.R, T.I, T.F, T.S
    for k in range(start, T.n):
        p, ni, no = int(R[k, R_IPOS]), int(R[k, R_NIN]), int(R[k, R_NOUT])
        ln, fp, fl = int(R[k, R_ILEN]), int(R[k, R_FPOS]), int(R[k, R_FLEN])
        pay = I[p : p + ln].tolist()
        op = OPS[int(R[k, R_CODE])].name
        if R[k, R_DT] >= CUDA_ROW_DT:  # a CUDA tensor took part (an argument, a parameter)
            raise Untraceable(f"op {op!r}: {CUDA_REASON}")
        extra = tr.extra.get(k - start)
        row = Row(
            op,
            int(R[k, R_DT]),
            pay[:no],
            pay[no : no + ni],
            pay[no + ni :],
            F[fp : fp + fl].tolist(),
            extra,
        )
        tr.rows.append(row)
    slots = {s for r in tr.rows for s in r.outs + r.ins}
    for s in slots:
        nd = int(S[s, S_NDIM])
        tr.shape[s] = tuple(S[s, S_SHAPE : S_SHAPE + nd].tolist())
        tr.dtype[s] = int(S[s, S_DT])
    arg_slot = {t._slot: i for i, t in enumerate(used) if t._slot >= 0}
    produced = {s for r in tr.rows for s in r.outs}
    for s in slots - produced:
        if s in arg_slot:
            tr.args[s] = arg_slot[s]
            continue
        if S[s, S_PROD] >= 0:
            raise Untraceable("a captured tensor computed before the call (not a leaf) is used")
        t = hooks.leaf_tensors.get(s)
        if t is None:
            ref = T.watch.get(s)
            t = ref() if ref is not None else None
        if t is not None and id(t) in tr.consts:
            tr.params[s] = lambda t=t: t  # held strongly: a constant of the program
            continue
        if t is None or not t._rg:
            raise Untraceable(
                "a tensor that is neither an argument nor a parameter is used (a constant "
                "tensor made inside the function, a captured tensor that does not require "
                "grad, or a value computed outside autograd: pass it as an argument)"
            )
        tr.params[s] = weakref.ref(t)


def _outputs(tr, result, used, start):
    """The result with every tensor replaced by a reference to where replay finds it."""
    grads = {}
    if tr.request is not None:
        kind, roots, leaves, bufs = tr.request
        grads = {b: s for s, b in bufs.items()}
    produced = {s for r in tr.rows for s in r.outs}
    # (address, shape) -> the last row's output there, for outputs sharing a value's
    # memory (a live output's memory is not reused by a later row: the last one is it)
    at = {(int(TAPE.S[s, S_ADDR]), tr.shape[s]): s for r in tr.rows for s in r.outs}
    leafgrad = {}
    if tr.request is not None:
        for s, t in tr.request[2]:
            if t is not None and t._grad is not None:
                leafgrad[id(t._grad)] = s

    def ref(x):
        if x is None or isinstance(x, (bool, int, float, str)):
            return ("const", x)
        if isinstance(x, (tuple, list)):
            return ("seq", type(x), [ref(v) for v in x])
        if not isinstance(x, Tensor):
            raise Untraceable(f"the function returned a {type(x).__name__}")
        if id(x._data) in grads:
            return ("grad", grads[id(x._data)])
        if id(x) in leafgrad:
            return ("grad", leafgrad[id(x)])
        if x._slot in produced:
            return ("value", x._slot)
        for i, t in enumerate(used):
            if x is t:
                return ("arg", i)
        s = at.get((x._data.__array_interface__["data"][0], x._data.shape))
        if s is not None and x._slot < 0:  # `.detach()` of a value the program computes
            return ("value", s)
        raise Untraceable("the function returned a tensor it did not compute from its inputs")

    return ref(result)


def slot_numel(tr, s):
    return int(np.prod(tr.shape[s], dtype=np.int64))


# -- arrays read by address, remade at each replay ------------------------------------------
# A row that reads arrays by address (positions, loss weights) gets a producer: called with
# the call's tensor arguments before the program runs, it returns the arrays (the program's
# tape is pointed at them), or "retrace" / "eager" when it cannot.
INDEX_ROWS = {o.name for o in OPS if o.name.startswith(("take_", "put_", "putadd_"))}


class LossWeights:
    """A pointwise loss's weight / pos_weight (attrs w_at / pw_at): an argument or a captured
    tensor (weakref), broadcast to the loss's shape and cast to its dtype, as the loss does."""

    def __init__(self, srcs, shape, dtype):
        self.srcs = sorted(srcs.items())  # (attr, argument index or (weakref, shape))
        self.shape, self.dtype = shape, dtype

    def __call__(self, tensors):
        out = []
        for _, src in self.srcs:
            if isinstance(src, int):
                t = tensors[src]
            else:
                t = src[0]()
                if t is None or t._data.shape != src[1]:
                    return "retrace"
            a = np.broadcast_to(t._data, self.shape)
            out.append(np.ascontiguousarray(a, self.dtype).reshape(-1))
        return out


class _NoSource(Exception):
    pass


class _Arg:
    """An index that is an integer tensor argument or a view of one (a reshape, a slice,
    an expand): the view's element offset, shape and byte strides over the argument's
    C-contiguous data (the same size at every call: the signature fixes its shape)."""

    def __init__(self, i, off, shape, strides):
        self.i, self.off, self.shape, self.strides = i, off, shape, strides

    def view(self, t):
        base = np.ascontiguousarray(t._data).reshape(-1)
        return np.lib.stride_tricks.as_strided(
            base[self.off :], self.shape, self.strides, writeable=False
        )


class _Stand:
    """A float tensor an indexing op reads only the shape and dtype of, for positions."""

    def __init__(self, shape, dtype):
        self.t = Tensor._make(np.broadcast_to(np.zeros((), dtype), shape), -1, False)


def _int_source(d, tr):
    """d as an _Arg: a view of the memory of an integer tensor argument, or None."""
    a0 = d.__array_interface__["data"][0]
    lo = sum(min(0, (n - 1) * st) for n, st in zip(d.shape, d.strides))
    hi = sum(max(0, (n - 1) * st) for n, st in zip(d.shape, d.strides))
    for i, t in enumerate(tr.used):
        u = t._data
        if u.dtype != d.dtype or not u.flags.c_contiguous or not u.size or not d.size:
            continue
        b0 = u.__array_interface__["data"][0]
        if b0 <= a0 + lo and a0 + hi < b0 + u.nbytes and (a0 - b0) % u.itemsize == 0:
            return _Arg(i, (a0 - b0) // u.itemsize, d.shape, d.strides)
    return None


def _template(x, tr):
    if isinstance(x, Tensor):
        d = x._data
        if d.dtype.kind == "f":
            return _Stand(d.shape, d.dtype)
        src = _int_source(d, tr)
        if src is None:
            raise _NoSource
        return src
    if isinstance(x, (tuple, list)):
        return type(x)(_template(v, tr) for v in x)
    if isinstance(x, dict):
        return {k: _template(v, tr) for k, v in x.items()}
    return x


def _fill(x, tensors):
    if isinstance(x, _Arg):
        return Tensor._make(x.view(tensors[x.i]), -1, False)
    if isinstance(x, _Stand):
        return x.t
    if isinstance(x, (tuple, list)):
        return type(x)(_fill(v, tensors) for v in x)
    if isinstance(x, dict):
        return {k: _fill(v, tensors) for k, v in x.items()}
    return x


class IndexCall:
    """An indexing op's call, made again at replay with the new index values to get the
    new positions (validated as eager validates them: same exceptions): its own
    `take`/`put`/`put_add` are swapped for ones that only keep the positions."""

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def __call__(self, tensors):
        got = []

        def take(x, pos, shape, node="IndexBackward0"):
            got.append(pos)

        def put(x, src, dpos, spos, *a, **k):
            got.extend((dpos, spos))

        saved = indexing.take, indexing.put, indexing.put_add
        indexing.take, indexing.put, indexing.put_add = take, put, put
        try:
            with no_grad():
                self.fn(*_fill(self.args, tensors), **_fill(self.kwargs, tensors))
        finally:
            indexing.take, indexing.put, indexing.put_add = saved
        return [np.ascontiguousarray(p, np.int64).reshape(-1) for p in got]
