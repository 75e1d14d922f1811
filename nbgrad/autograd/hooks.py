"""Tensor hooks: gradient hooks (`Tensor.register_hook`), post-accumulate-grad hooks
(`Tensor.register_post_accumulate_grad_hook`) and final callbacks queued during a backward
pass (`queue_callback`).

A gradient hook lives on its tensor's tape slot (`TAPE.hooks`, dropped with the slot), so
it outlives a non-leaf tensor the graph still holds, as PyTorch's lives on its node. The
sweep stops before the row that produced a hooked slot (its gradient is then complete),
calls the hooks in Python and resumes; a leaf's hooks see its whole gradient before it is
accumulated into `.grad`. A graph without gradient hooks runs as one compiled call.

Post-accumulate-grad hooks:
The compiled sweep stays one call and knows nothing of hooks: `engine.backward` notes,
for each hooked leaf, its `.grad` and that gradient's version before the pass, and after
it calls the hooks of the leaves whose `.grad` was created, replaced or accumulated into
in place (each of those counts a version). A program with no hooks pays one truthiness
test per backward. Hooks run in registration order, after the whole pass (PyTorch calls
each as its leaf's gradient is ready), then the callbacks queued by them. A function
under `nbgrad.compile` runs them when it is traced, and its program's replays run them
again for the leaves the traced pass accumulated into (`_compile/trace.py` records
`finish` as a Python action)."""

import weakref
from collections import OrderedDict

import numpy as np

from .. import _versions as versions
from ..tensor import Tensor
from .handles import RemovableHandle


def register_hook(t, hook):
    """`hook(grad)` when t's gradient is computed; a result other than None replaces it."""
    from ..tape import TAPE

    if not t._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t.is_cuda:
        raise NotImplementedError("Tensor.register_hook on CUDA tensors is not supported yet")
    with TAPE.guard():
        s = t._slot if t._slot >= 0 else TAPE.leaf_slot(t)
        hooks = TAPE.hooks.get(s)
        if hooks is None:
            hooks = TAPE.hooks[s] = OrderedDict()  # (a handle refers to it weakly)
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
    return handle


def run_gradient_hooks(hooks, grad):
    """Call `hooks` ({id: hook}) on `grad` (a Tensor) in order; the gradient they leave.
    A leaf's AccumulateGrad pre hooks (an `AccHooks` entry) come after its tensor hooks,
    only in a pass that accumulates into .grad, and may drop the gradient (None)."""
    acc = None
    for hook in list(hooks.values()):
        if type(hook) is AccHooks:
            acc = hook
            continue
        r = hook(grad)
        if r is not None:
            if not isinstance(r, Tensor) or r.is_cuda != grad.is_cuda:
                raise TypeError(
                    f"hook '{getattr(hook, '__name__', type(hook).__name__)}' must return None "
                    f"or a Tensor on the gradient's device, got {type(r).__name__}"
                )
            if tuple(r.shape) != tuple(grad.shape):
                name = getattr(hook, "__name__", type(hook).__name__)
                raise RuntimeError(f"hook '{name}' has changed the size of value")
            grad = r
    if acc is not None and _ACCUMULATING[0]:
        grad = acc.pre(grad)
    return grad


class AccHooks:
    """The hooks of a leaf's AccumulateGrad node (in TAPE.hooks under the leaf's slot
    while it has some): pre hooks see the gradient before it is accumulated into .grad,
    post hooks `((), (grad,))` after the pass accumulated it."""

    def __init__(self):
        self.pre_hooks = OrderedDict()  # (handles refer to them weakly)
        self.post_hooks = OrderedDict()
        self.metadata = {}
        self.pending = None  # the gradient accumulated in this pass, for the post hooks
        self.handle = None  # its entry among the leaf slot's gradient hooks

    def pre(self, grad):
        from .stepped import _replaced

        for fn in list(self.pre_hooks.values()):
            r = fn((grad,))
            if r is not None:
                (grad,) = _replaced(fn, (grad,), r)
                if grad is None:
                    return None
        if self.post_hooks:
            self.pending = grad
            _ACC_PENDING.append(self)
        return grad

    def post(self):
        from .stepped import _replaced

        grad, self.pending = self.pending, None
        for fn in list(self.post_hooks.values()):
            r = fn((), (grad,))
            if r is not None:
                _replaced(fn, (), r)


_ACCUMULATING = [False]  # a backward() pass runs: AccumulateGrad pre hooks apply
_ACC_PENDING: list = []  # AccHooks whose post hooks the pass under way owes
ACC = [0]  # AccumulateGrad hooks registered: backward() then runs through `around`


# Whether a backward must run row by row where needed (`stepped.py`): node hooks
# registered, anomaly mode on. Read once per backward; a graph without them never looks.
NODES = [0]  # node pre/post hooks registered (`Node.register_hook`/`register_prehook`)
ANOMALY = [False]  # anomaly mode (`anomaly.py`)

# id(leaf) -> weak reference to a leaf with hooks (kept in its `_post_hooks`)
POST: dict[int, weakref.ref] = {}
_QUEUE: list = []  # final callbacks of the backward under way
_ACTIVE = [0]


class _PostHandle(RemovableHandle):
    """A post-accumulate-grad hook's handle: the tensor leaves POST with its last hook."""

    def __init__(self, t, hooks):
        super().__init__(hooks)
        self._ref = weakref.ref(t)

    def remove(self):
        super().remove()
        t = self._ref()
        if t is not None and not getattr(t, "_post_hooks", None):
            POST.pop(id(t), None)


def register_post_accumulate_grad_hook(t, hook):
    if not t._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not t._leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    # the hooks live on the tensor (a hook that refers to its tensor makes a cycle the
    # garbage collector frees); POST only finds the hooked tensors
    hooks = getattr(t, "_post_hooks", None)
    if hooks is None:
        hooks = t._post_hooks = OrderedDict()
    key = id(t)
    ref = POST.get(key)
    if ref is None or ref() is not t:
        POST[key] = weakref.ref(t, lambda _r, k=key: POST.pop(k, None))
    handle = _PostHandle(t, hooks)
    hooks[handle.id] = hook
    return handle


# id(leaf) -> `storage(leaf)`: an array the pass may write the leaf's new .grad into (a
# fresh one, of its shape and dtype), or None for an ordinary one. DistributedDataParallel
# hands out views of its all-reduce buckets, so gradients land where they are reduced.
# Asked only for leaves whose .grad is None; a program without it pays one truthiness test.
GRAD_STORAGE: dict = {}


def new_grad_buffer(t, d):
    """The array a pass writes leaf t's new .grad into (d: t's value)."""
    if GRAD_STORAGE:
        f = GRAD_STORAGE.get(id(t))
        if f is not None:
            buf = f(t)
            if buf is not None:
                # the sweep writes it by address: only an array exactly like a fresh one
                if not (
                    type(buf) is np.ndarray
                    and buf.shape == d.shape
                    and buf.dtype == d.dtype
                    and buf.flags.c_contiguous
                    and buf.flags.writeable
                ):
                    raise RuntimeError(
                        f"a gradient storage of {getattr(buf, 'shape', None)} and "
                        f"{getattr(buf, 'dtype', None)} was given for a tensor of {d.shape} "
                        f"and {d.dtype}: it must be a writable C-contiguous array like it"
                    )
                return buf
    return np.empty(d.shape, d.dtype)


def queue_callback(callback):
    """Run `callback()` once the backward pass under way has accumulated its gradients and
    called its post-accumulate-grad hooks (PyTorch's `queue_callback` of its engine)."""
    if not _ACTIVE[0]:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _QUEUE.append(callback)


def around(run, *args):
    """`run(*args)` (a backward pass), then the hooks of the leaves it accumulated into,
    then the queued callbacks."""
    before = []
    _ACC_PENDING.clear()
    for ref in list(POST.values()):
        t = ref()
        if t is not None:
            g = t._grad
            v = None if g is None else versions.version(g._data)
            before.append((t, g, v))
    _ACCUMULATING[0] = True
    try:
        run(*args)
    except BaseException:
        _ACC_PENDING.clear()
        raise
    finally:
        _ACCUMULATING[0] = False
    touched = []
    for t, g, v in before:
        now = t._grad
        if now is not None and (now is not g or versions.version(now._data) != v):
            touched.append(t)
    finish(touched)


def finish(leaves):
    """Call the post-accumulate-grad hooks of `leaves` (those a pass accumulated into),
    the AccumulateGrad nodes' post hooks, then the callbacks they queued."""
    _ACTIVE[0] += 1
    try:
        for t in leaves:
            for hook in list(getattr(t, "_post_hooks", {}).values()):
                hook(t)
        while _ACC_PENDING:
            _ACC_PENDING.pop(0).post()
        while _QUEUE:
            _QUEUE.pop(0)()
    finally:
        _ACTIVE[0] -= 1
        if not _ACTIVE[0]:
            _QUEUE.clear()


# -- multi-grad hooks (torch.autograd.graph.register_multi_grad_hook) --------------------
# Built on tensor hooks. A pass (backward or autograd.grad) with multi-grad hooks around is
# bracketed by `multi_pass`: "any" hooks fire on the first gradient of one of their
# tensors in the pass; "all" hooks collect their tensors' gradients and fire at the end of
# the pass, once every gradient the pass computes is known (None for the others).
# live multi-grad hooks: their tensors' hooks hold them (a hook whose tensors are gone
# leaves with them, as in PyTorch, where dropping the handle does not remove the hook)
MULTI: weakref.WeakSet = weakref.WeakSet()
_PASS = [0, False]  # pass counter, whether a bracketed pass is running
_MULTI_PENDING: list = []


class _MultiGradHook(RemovableHandle):
    """Its own handle (PyTorch's `_MultiHandle`, a RemovableHandle without an id of its
    own): `remove()` removes the tensor hooks it is built on."""

    def __init__(self, tensors, fn, mode):  # (no RemovableHandle.__init__: no id)
        self.fn, self.mode = fn, mode
        self.grads = [None] * len(tensors)
        self.fired = -1  # the pass whose gradients were handed over ("any") or are held
        self.handles = [register_hook(t, self._hook(i)) for i, t in enumerate(tensors)]
        MULTI.add(self)

    def _hook(self, i):
        def hook(grad):
            if not _PASS[1]:
                return None
            if self.mode == "any":
                if self.fired != _PASS[0]:
                    self.fired = _PASS[0]
                    self.fn(grad)
                return None
            if self.fired != _PASS[0]:
                self.fired = _PASS[0]
                self.grads = [None] * len(self.grads)
                _MULTI_PENDING.append(self)
            self.grads[i] = grad
            return None

        return hook

    def finish(self):
        grads, self.grads = self.grads, [None] * len(self.grads)
        self.fn(tuple(grads))

    def remove(self):
        for h in self.handles:
            h.remove()
        MULTI.discard(self)


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Register a hook called with the gradients of several tensors (see docs)."""
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    return _MultiGradHook(list(tensors), fn, mode)


def multi_pass(run, *args, **kwargs):
    """`run(*args, **kwargs)` (a backward or grad pass) as one pass for multi-grad hooks,
    then the "all" hooks that collected gradients in it."""
    if _PASS[1]:  # a pass inside a pass (a custom backward's): part of the outer one
        return run(*args, **kwargs)
    _PASS[0] += 1
    _PASS[1] = True
    _MULTI_PENDING.clear()
    try:
        out = run(*args, **kwargs)
    except BaseException:
        _MULTI_PENDING.clear()
        raise
    finally:
        _PASS[1] = False
    while _MULTI_PENDING:
        _MULTI_PENDING.pop(0).finish()
    return out
