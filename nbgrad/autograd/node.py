"""`grad_fn` objects: a name and the graph edges, read off the tape on demand.

As in PyTorch, a node's class is named for its op (`type(y.grad_fn).__name__` is
`'MulBackward0'`), and a leaf that requires grad appears among `next_functions` as an
`AccumulateGrad` node whose `variable` is the leaf."""

from ..ops.registry import CUSTOM, OPS
from ..tape import R_CODE, R_IPOS, R_NIN, R_NOUT, S_PROD, S_RG, TAPE


class Node:
    __slots__ = ("_row", "_slot")

    @staticmethod
    def of_slot(slot):
        row = int(TAPE.S[slot, S_PROD])
        n = object.__new__(_named(_name(row)))
        n._slot = slot
        n._row = row
        return n

    def name(self):
        return _name(self._row)

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
        return tuple(out)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    def __eq__(self, other):
        return type(other) is type(self) and other._row == self._row

    def __hash__(self):
        return hash(self._row)


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
    """Where a leaf's gradient is accumulated into its `.grad`."""

    __slots__ = ()

    @staticmethod
    def _of(slot):
        n = object.__new__(AccumulateGrad)
        n._slot, n._row = slot, -1
        return n

    def name(self):
        return "torch::autograd::AccumulateGrad"  # PyTorch's, for code that compares it

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
