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

import itertools
import weakref

from ..tensor import Tensor
from . import versions


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
            hooks = TAPE.hooks[s] = {}
        hid = next(_IDS)
        hooks[hid] = hook
    return _SlotHandle(hooks, hid)


class _SlotHandle:
    def __init__(self, hooks, hid):
        self._hooks, self.id = hooks, hid

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def run_gradient_hooks(hooks, grad):
    """Call `hooks` ({id: hook}) on `grad` (a Tensor) in order; the gradient they leave."""
    for hook in list(hooks.values()):
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
    return grad


# Whether a backward must run row by row where needed (`stepped.py`): node hooks
# registered, anomaly mode on. Read once per backward; a graph without them never looks.
NODES = [0]  # node pre/post hooks registered (`Node.register_hook`/`register_prehook`)
ANOMALY = [False]  # anomaly mode (`anomaly.py`)

# id(leaf) -> weak reference to a leaf with hooks (kept in its `_post_hooks`)
POST: dict[int, weakref.ref] = {}
_QUEUE: list = []  # final callbacks of the backward under way
_ACTIVE = [0]
_IDS = itertools.count()


class RemovableHandle:
    """`handle.remove()` unregisters the hook."""

    def __init__(self, t, hid):
        self._ref, self.id = weakref.ref(t), hid

    def remove(self):
        t = self._ref()
        hooks = getattr(t, "_post_hooks", None)
        if hooks is not None:
            hooks.pop(self.id, None)
            if not hooks:
                POST.pop(id(t), None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_post_accumulate_grad_hook(t, hook):
    if not t._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not t._leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    # the hooks live on the tensor (a hook that refers to its tensor makes a cycle the
    # garbage collector frees); POST only finds the hooked tensors
    hooks = getattr(t, "_post_hooks", None)
    if hooks is None:
        hooks = t._post_hooks = {}
    key = id(t)
    ref = POST.get(key)
    if ref is None or ref() is not t:
        POST[key] = weakref.ref(t, lambda _r, k=key: POST.pop(k, None))
    hid = next(_IDS)
    hooks[hid] = hook
    return RemovableHandle(t, hid)


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
    for ref in list(POST.values()):
        t = ref()
        if t is not None:
            g = t._grad
            v = None if g is None else versions.version(g._data)
            before.append((t, g, v))
    run(*args)
    touched = []
    for t, g, v in before:
        now = t._grad
        if now is not None and (now is not g or versions.version(now._data) != v):
            touched.append(t)
    finish(touched)


def finish(leaves):
    """Call the post-accumulate-grad hooks of `leaves` (those a pass accumulated into),
    then the callbacks they queued."""
    _ACTIVE[0] += 1
    try:
        for t in leaves:
            for hook in list(getattr(t, "_post_hooks", {}).values()):
                hook(t)
        while _QUEUE:
            _QUEUE.pop(0)()
    finally:
        _ACTIVE[0] -= 1
        if not _ACTIVE[0]:
            _QUEUE.clear()
