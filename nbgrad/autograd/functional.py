"""nbgrad.autograd.functional: Jacobians built from VJPs (PyTorch's signatures).

`jacobian` returns what torch.autograd.functional.jacobian returns: for one input and one
output a tensor of shape output.shape + input.shape; tuples of inputs/outputs give (nested)
tuples. Each row of J is one VJP with a one-hot cotangent, computed on a retained graph;
backward itself never materialises J.
"""

import numpy as np

from ..tensor import Tensor
from .engine import grad


def _as_tuple(x, what):
    is_tuple = isinstance(x, tuple)
    xs = x if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"The {what} given to jacobian must be either a Tensor or a tuple of Tensors "
                f"but the value at index {i} has type {type(t).__name__}."
            )
    return is_tuple, xs


def jacobian(
    func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"
):
    if strategy not in ("reverse-mode", "forward-mode"):
        raise RuntimeError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        raise NotImplementedError("jacobian(strategy='forward-mode') is not supported yet")
    if create_graph:
        raise NotImplementedError("jacobian(create_graph=True) is not supported yet")
    in_tuple, ins = _as_tuple(inputs, "inputs")
    ins = tuple(t.detach().requires_grad_(t.is_floating_point()) for t in ins)
    out = func(*ins)
    out_tuple, outs = _as_tuple(out, "outputs")
    result = []
    for i, o in enumerate(outs):
        blocks = [np.zeros(tuple(o.shape) + tuple(t.shape), o._data.dtype) for t in ins]
        if o.requires_grad:
            flat = [b.reshape((o.numel(),) + tuple(t.shape)) for b, t in zip(blocks, ins)]
            for e in range(o.numel()):
                v = np.zeros(o.numel(), o._data.dtype)
                v[e] = 1.0
                seed = Tensor._make(v.reshape(o._data.shape), -1, False)
                rows = grad(o, ins, seed, retain_graph=True, allow_unused=True)
                for f, r in zip(flat, rows):
                    if r is not None:
                        f[e] = r._data
                    elif strict:
                        raise RuntimeError(
                            f"Output {i} of the user-provided function is independent of input "
                            "j. This is not allowed in strict mode."
                        )
        elif strict:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )
        result.append(tuple(Tensor._make(b, -1, False) for b in blocks))
    if not out_tuple:
        return result[0] if in_tuple else result[0][0]
    return tuple(r if in_tuple else r[0] for r in result)
