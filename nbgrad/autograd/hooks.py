"""Post-accumulate-grad hooks (PyTorch's `Tensor.register_post_accumulate_grad_hook`) and
final callbacks queued during a backward pass (`queue_callback`).

The compiled sweep stays one call and knows nothing of hooks: `engine.backward` notes,
for each hooked leaf, its `.grad` and that gradient's version before the pass, and after
it calls the hooks of the leaves whose `.grad` was created, replaced or accumulated into
in place (each of those counts a version). A program with no hooks pays one truthiness
test per backward. Hooks run in registration order, after the whole pass (PyTorch calls
each as its leaf's gradient is ready), then the callbacks queued by them."""

import itertools
import weakref

from . import versions

POST = {}  # id(leaf) -> [weakref to the leaf, {handle id: hook}]
_QUEUE = []  # final callbacks of the backward under way (None: none under way)
_ACTIVE = [0]
_IDS = itertools.count()


class RemovableHandle:
    """`handle.remove()` unregisters the hook."""

    def __init__(self, table, key, hid):
        self._table, self._key, self.id = table, key, hid

    def remove(self):
        entry = self._table.get(self._key)
        if entry is not None:
            entry[1].pop(self.id, None)
            if not entry[1]:
                del self._table[self._key]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_post_accumulate_grad_hook(t, hook):
    if not t._rg:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not t._leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    key = id(t)
    entry = POST.get(key)
    if entry is None or entry[0]() is not t:
        entry = POST[key] = [weakref.ref(t, lambda _r, k=key: POST.pop(k, None)), {}]
    hid = next(_IDS)
    entry[1][hid] = hook
    return RemovableHandle(POST, key, hid)


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
    for ref, hooks in list(POST.values()):
        t = ref()
        if t is not None:
            g = t._grad
            before.append((t, hooks, g, None if g is None else versions.version(g._data)))
    run(*args)
    _ACTIVE[0] += 1
    try:
        for t, hooks, g, v in before:
            now = t._grad
            if now is not None and (now is not g or versions.version(now._data) != v):
                for hook in list(hooks.values()):
                    hook(t)
        while _QUEUE:
            _QUEUE.pop(0)()
    finally:
        _ACTIVE[0] -= 1
        if not _ACTIVE[0]:
            _QUEUE.clear()
