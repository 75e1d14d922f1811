"""einsum on CUDA, from the recorded CUDA ops: the equation is parsed, validated and split
into one- and two-operand steps by `ops/einsum.py`; each step here is

* per operand: a diagonal (repeated letter) is a gather whose positions come from NumPy's
  einsum on the operand's image (`index.image`), and a letter no other term uses is summed;
* two operands: the letters are batch (both and out), m / n (one and out) and k (both, not
  out); each operand is permuted to (batch, m, k) / (batch, k, n) and the pair is one
  batched matmul (the tiled kernel), permuted to the output's letter order.

So every VJP is one of the existing kernels' (gather, sum, permute, bmm): the VJP of an
operand is the einsum of the cotangent with the other, as on the CPU. Integer operands
(and bools; no gradient) run the same steps in int64: the sum and matmul kernels have exact
int64-accumulating variants.
"""

import math

import numpy as np

from ... import _dtype
from ...ops import indexing as _ix
from .forwards import cast, matmul, permute, reduce, view
from .index import image


def _to_order(t, sub, order):
    """t (letters `sub`, all distinct) permuted to the letters' `order`."""
    perm = tuple(sub.index(c) for c in order)
    return t if perm == tuple(range(len(perm))) else permute(t, perm)


def _single(t, sub, keep):
    """Diagonals taken and letters outside `keep` summed: returns (tensor, letters)."""
    uniq = "".join(dict.fromkeys(sub))
    if uniq != sub:
        pos = np.ascontiguousarray(np.einsum(f"{sub}->{uniq}", image(t._data.shape)._data))
        t = _ix.cuda_take(t, pos, pos.shape, _ix.TAKE["IndexBackward0"])
        sub = uniq
    dims = tuple(i for i, c in enumerate(sub) if c not in keep)
    if dims:
        t = reduce("sum", t, dims)
        sub = "".join(c for c in sub if c in keep)
    return t, sub


def einsum2(ts, ops, out, size):
    dt = ts[0].dtype
    if dt.is_floating_point:
        return _einsum2(ts, ops, out, size)
    # integers and bools: computed in int64 by the integer kernels (exact), then cast to the
    # operands' dtype (a bool result is "some product was true", as NumPy's einsum)
    y = _einsum2([cast(t, _dtype.int64) for t in ts], ops, out, size)
    return cast(y, dt)


def _einsum2(ts, ops, out, size):
    if len(ts) == 1:
        t, sub = _single(ts[0], ops[0], out)
        return _to_order(t, sub, out)
    (a, A), (b, B) = _single(ts[0], ops[0], ops[1] + out), _single(ts[1], ops[1], ops[0] + out)
    batch = [c for c in A if c in B and c in out]
    m = [c for c in A if c not in B]
    k = [c for c in A if c in B and c not in out]
    n = [c for c in B if c not in A]

    def prod(cs):
        return math.prod(size[c] for c in cs)

    a3 = view(_to_order(a, A, batch + m + k), (prod(batch), prod(m), prod(k)))
    b3 = view(_to_order(b, B, batch + k + n), (prod(batch), prod(k), prod(n)))
    y = view(matmul(a3, b3), tuple(size[c] for c in batch + m + n))
    return _to_order(y, "".join(batch + m + n), out)
