"""`grad_fn` objects: a name and the graph edges, read off the tape on demand.

As in PyTorch, a node's class is named for its op (`type(y.grad_fn).__name__` is
`'MulBackward0'`), and a leaf that requires grad appears among `next_functions` as an
`AccumulateGrad` node whose `variable` is the leaf.

Node objects are made on demand, so what a node holds (its hooks, its `metadata`) is kept
by the row's recording stamp (`R_SEQ`, never reused, unlike row numbers, which compaction
changes) in `STATE`, and dropped once no live row has that stamp."""

import weakref
from collections import OrderedDict

import numpy as np

from .._optable import CUSTOM, OPS
from ..backends.cuda.record import CUDA_DT
from ..tape import R_CODE, R_DT, R_IPOS, R_NIN, R_NOUT, R_SEQ, S_PROD, S_RG, TAPE
from . import hooks
from .handles import RemovableHandle

STATE: dict = {}  # row stamp -> [pre hooks {id: fn}, post hooks {id: fn}, metadata dict or None]


class Node:
    __slots__ = ("_row", "_slot", "_seq")

    @staticmethod
    def of_slot(slot):
        row = int(TAPE.S[slot, S_PROD])
        n = object.__new__(_named(_name(row)))
        n._slot = slot
        n._row = row
        n._seq = int(TAPE.R[row, R_SEQ])
        return n

    def name(self):
        return _name(self._row)

    def _state(self):
        st = STATE.get(self._seq)
        if st is None:
            if len(STATE) >= _prune_at[0]:
                _prune()
            st = STATE[self._seq] = [OrderedDict(), OrderedDict(), None]
        return st

    @property
    def metadata(self):
        """A dict of this node's own, for whatever the user wants to keep on it."""
        st = self._state()
        if st[2] is None:
            st[2] = {}
        return st[2]

    def register_prehook(self, fn):
        """Register a hook called with the node's gradients before it runs.

        Args:
            fn: `fn(grad_outputs) -> tuple or None`; a tuple (one entry per output, a
                Tensor or None) replaces grad_outputs.

        Returns a handle whose `remove()` unregisters the hook.

        Example::

            >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
            >>> y = x * 3
            >>> h = y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
            >>> y.sum().backward()
            >>> x.grad
            tensor([6., 6.])
        """
        return self._register(0, fn)

    def register_hook(self, fn):
        """Register a hook called after the node computed the gradients of its inputs.

        Args:
            fn: `fn(grad_inputs, grad_outputs) -> tuple or None`; grad_inputs has one
                entry per input, in `next_functions` order (None where an input takes
                no gradient); a tuple returned replaces it.

        Returns a handle whose `remove()` unregisters the hook.

        Example::

            >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
            >>> w = torch.tensor([3.0, 4.0], requires_grad=True)
            >>> y = x * w
            >>> h = y.grad_fn.register_hook(lambda gi, go: (gi[0], None))
            >>> y.sum().backward()
            >>> x.grad, w.grad
            (tensor([3., 4.]), None)
        """
        return self._register(1, fn)

    def _register(self, which, fn):
        if TAPE.R[self._row, R_DT] >= CUDA_DT:
            raise NotImplementedError("node hooks on CUDA tensors' nodes are not supported yet")
        d = self._state()[which]
        handle = _NodeHandle(d)
        d[handle.id] = fn
        hooks.NODES[0] += 1
        return handle

    @property
    def next_functions(self):
        R, I, S = TAPE.R, TAPE.I, TAPE.S
        p = R[self._row, R_IPOS] + R[self._row, R_NOUT]
        out = []
        for j in range(R[self._row, R_NIN]):
            s = int(I[p + j])
            if S[s, S_PROD] >= 0:
                out.append((Node.of_slot(s), 0))
            elif S[s, S_RG]:
                out.append((AccumulateGrad._of(s), 0))
            else:
                out.append((None, 0))
        if scalar_operand(self._row):
            out.append((None, 0))
        return tuple(out)

    def __getattr__(self, name):
        # a custom Function's node is its ctx in PyTorch: what forward / setup_context set
        # on ctx (and needs_input_grad, saved_tensors) reads through the node
        row = object.__getattribute__(self, "_row")
        if row >= 0 and not name.startswith("__") and OPS[TAPE.R[row, R_CODE]].name == CUSTOM:
            return getattr(TAPE.saved[row], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    def __eq__(self, other):
        return type(other) is type(self) and other._row == self._row

    def __hash__(self):
        return hash(self._row)


# ops with a Python scalar operand that PyTorch wraps as a tensor input of the node (`x * 2`:
# MulBackward0 has two next_functions, the second None); nbgrad keeps the scalar as an attr
_SCALAR_INPUT = frozenset(("add_ts", "add_st", "sub_ts", "mul_ts", "mul_st", "div_ts"))


def scalar_operand(row):
    """Whether row's node has PyTorch's extra input for a scalar operand (see above)."""
    return OPS[TAPE.R[row, R_CODE]].name in _SCALAR_INPUT


def _name(row):
    op = OPS[TAPE.R[row, R_CODE]]
    return TAPE.saved[row].node_name if op.name == CUSTOM else op.node


_CLASSES: dict[str, type] = {}


def _named(name):
    """The Node subclass named `name` (one per op name, made on first use)."""
    c = _CLASSES.get(name)
    if c is None:
        c = _CLASSES[name] = type(name, (Node,), {"__slots__": (), "__module__": "nbgrad"})
    return c


class AccumulateGrad(Node):
    """Where a leaf's gradient is accumulated into its `.grad`. Its hooks and metadata
    (`hooks.AccHooks`) belong to the leaf's slot, so every node object made for the same
    leaf shares them."""

    __slots__ = ()

    @staticmethod
    def _of(slot):
        n = object.__new__(AccumulateGrad)
        n._slot, n._row, n._seq = slot, -1, -1
        return n

    def name(self):
        return "torch::autograd::AccumulateGrad"  # PyTorch's, for code that compares it

    def _acc(self):
        """The leaf's AccHooks (made on first use; one whose leaf is gone is replaced)."""
        var = self.variable
        entry = ACC.get(self._slot)
        if entry is None or entry[0]() is not var:
            if len(ACC) >= _prune_at[1]:
                _prune_acc()
            entry = ACC[self._slot] = (weakref.ref(var), hooks.AccHooks())
        return entry[1]

    def register_prehook(self, fn):
        """Register a hook called with `(grad,)` before the leaf's gradient is accumulated;
        a tuple returned replaces it (`(None,)`: no gradient is accumulated). Runs after
        the leaf's tensor hooks, in `backward()` (not `autograd.grad`)."""
        return self._register_acc(0, fn)

    def register_hook(self, fn):
        """Register a hook called with `((), (grad,))` after the leaf's gradient was
        accumulated into `.grad`; it must return None."""
        return self._register_acc(1, fn)

    def _register_acc(self, which, fn):
        from .hooks import register_hook

        var = self.variable
        if var is None:
            raise RuntimeError("the leaf of this AccumulateGrad node no longer exists")
        if var.is_cuda:
            raise NotImplementedError("node hooks on CUDA tensors' nodes are not supported yet")
        acc = self._acc()
        d = acc.post_hooks if which else acc.pre_hooks
        if not (acc.pre_hooks or acc.post_hooks):  # the leaf's slot runs it (hooks.py)
            acc.handle = register_hook(var, acc)
            hooks.ACC[0] += 1
        handle = _AccHandle(acc, d)
        d[handle.id] = fn
        return handle

    @property
    def metadata(self):
        return self._acc().metadata

    @property
    def variable(self):
        ref = TAPE.watch.get(self._slot)
        return ref() if ref is not None else None

    @property
    def next_functions(self):
        return ()

    def __eq__(self, other):
        return type(other) is AccumulateGrad and other._slot == self._slot

    def __hash__(self):
        return hash(("acc", self._slot))


ACC: dict = {}  # leaf slot -> (weak reference to the leaf, its AccHooks)


def _prune_acc():
    for s in [s for s, (ref, _) in ACC.items() if ref() is None]:
        del ACC[s]
    _prune_at[1] = max(1024, 2 * len(ACC))


class _AccHandle(RemovableHandle):
    """An AccumulateGrad hook's handle: the node's last hook takes it off the leaf's slot."""

    def __init__(self, acc, d):
        super().__init__(d)
        self._acc = acc

    def remove(self):
        acc, d = self._acc, self.hooks_dict_ref()
        if (
            d is not None
            and d.pop(self.id, None) is not None
            and not (acc.pre_hooks or acc.post_hooks)
        ):
            hooks.ACC[0] -= 1
            acc.handle.remove()  # out of the leaf's slot


class _NodeHandle(RemovableHandle):
    """A node hook's handle: it counts the hook out of `hooks.NODES`."""

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None and d.pop(self.id, None) is not None:
            hooks.NODES[0] -= 1


_prune_at = [1024, 1024]  # STATE's, ACC's size that prunes


def _prune():
    """Drop the state of rows no longer on the tape (collected or compacted away)."""
    live = set(TAPE.R[: TAPE.n, R_SEQ].tolist())
    for seq in [q for q in STATE if q not in live]:
        pre, post, _ = STATE.pop(seq)
        hooks.NODES[0] -= len(pre) + len(post)
        pre.clear()  # (a handle removed later finds nothing to count)
        post.clear()
    _prune_at[0] = max(1024, 2 * len(STATE))


def hooks_of(k):
    """(pre hooks, post hooks) of row k, or None when it has none."""
    st = STATE.get(int(TAPE.R[k, R_SEQ]))
    if st is None or not (st[0] or st[1]):
        return None
    return st[0], st[1]


def hooked_positions(rows):
    """Positions in `rows` of the rows that have node hooks (the hooks of rows no longer
    on the tape are dropped here, so that `hooks.NODES` falls back to 0 with them)."""
    seqs = np.array([q for q, st in STATE.items() if st[0] or st[1]], np.int64)
    if not seqs.size:
        return []
    gone = seqs[~np.isin(seqs, TAPE.R[: TAPE.n, R_SEQ])].tolist()
    for q in gone:
        pre, post, _ = STATE.pop(q)
        hooks.NODES[0] -= len(pre) + len(post)
        pre.clear()
        post.clear()
    return np.flatnonzero(np.isin(TAPE.R[rows, R_SEQ], seqs)).tolist()
