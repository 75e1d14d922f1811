"""`grad_fn` objects: a name and the graph edges, read off the tape on demand."""

from ..ops.registry import CUSTOM, OPS
from ..tape import R_CODE, R_IPOS, R_NIN, R_NOUT, S_PROD, TAPE


class Node:
    __slots__ = ("_row", "_slot")

    @staticmethod
    def of_slot(slot):
        n = Node()
        n._slot = slot
        n._row = int(TAPE.S[slot, S_PROD])
        return n

    def name(self):
        op = OPS[TAPE.R[self._row, R_CODE]]
        if op.name == CUSTOM:
            return TAPE.saved[self._row].node_name
        return op.node

    @property
    def next_functions(self):
        R, I, S = TAPE.R, TAPE.I, TAPE.S
        p = R[self._row, R_IPOS] + R[self._row, R_NOUT]
        out = []
        for j in range(R[self._row, R_NIN]):
            s = int(I[p + j])
            prod = S[s, S_PROD]
            out.append((Node.of_slot(s) if prod >= 0 else None, 0))
        return tuple(out)

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self))}>"

    def __eq__(self, other):
        return isinstance(other, Node) and other._row == self._row

    def __hash__(self):
        return hash(self._row)
