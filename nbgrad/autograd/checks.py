"""gradcheck and gradgradcheck with PyTorch's signatures.

gradcheck compares the analytical Jacobian (one batched reverse sweep over the identity
basis of each output) with central finite differences, for every input that requires
grad. gradgradcheck runs gradcheck on the function (inputs, v) -> v^T J recorded with
create_graph=True, i.e. it checks second derivatives.
"""

import numpy as np

from ..tensor import Tensor
from .engine import grad
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    pass


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _outputs(func, inputs):
    with enable_grad():
        return _as_tuple(func(*inputs))


def _numerical(func, inputs, wrt, eps):
    """Central differences: per input, an array (out numel, in numel) per output."""
    with no_grad():
        outs = _outputs(func, inputs)
    jac = {i: [np.zeros((o.numel(), inputs[i].numel())) for o in outs] for i in wrt}
    for i in wrt:
        flat = inputs[i]._data.reshape(-1)
        for e in range(flat.size):
            orig = flat[e]
            flat[e] = orig + eps
            with no_grad():
                hi = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
            flat[e] = orig - eps
            with no_grad():
                lo = [o._data.astype(np.float64).reshape(-1) for o in _outputs(func, inputs)]
            flat[e] = orig
            for j in range(len(outs)):
                jac[i][j][:, e] = (hi[j] - lo[j]) / (2 * eps)
    return jac


def _analytical(func, inputs, wrt, batched):
    """Rows of J from VJPs with one-hot cotangents: one backward() each (the compiled sweep
    users get), or all at once as one batched sweep (`batched`)."""
    outs = _outputs(func, inputs)
    xs = [inputs[i] for i in wrt]
    jac = {i: [] for i in wrt}
    for o in outs:
        n = o.numel()
        eye = np.eye(n, dtype=o._data.dtype).reshape((n,) + tuple(o.shape))
        blocks = {i: np.zeros((n, inputs[i].numel())) for i in wrt}
        if o.requires_grad and n:
            if batched:
                per = [
                    grad(
                        o,
                        xs,
                        Tensor._make(eye, -1, False),
                        retain_graph=True,
                        allow_unused=True,
                        is_grads_batched=True,
                    )
                ]
            else:
                per = [
                    grad(o, xs, Tensor._make(e, -1, False), retain_graph=True, allow_unused=True)
                    for e in eye
                ]
            for e, rows in enumerate(per):
                for i, r in zip(wrt, rows):
                    if r is not None:
                        r = r.detach().numpy().astype(np.float64)
                        if batched:
                            blocks[i][:] = r.reshape(n, -1)
                        else:
                            blocks[i][e] = r.reshape(-1)
        for i in wrt:
            jac[i].append(blocks[i])
    return jac


def _compare(num, ana, wrt, rtol, atol, what):
    for i in wrt:
        for j, (n, a) in enumerate(zip(num[i], ana[i])):
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return (
                    f"{what} mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
    return None


def gradcheck(
    func,
    inputs,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_batched_forward_grad=False,
    check_forward_ad=False,
    check_backward_ad=True,
    fast_mode=False,
    masked=None,
):
    """True if func's analytical and numerical Jacobians agree for all inputs."""
    inputs = _as_tuple(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not wrt:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of the "
            "them have requires_grad=True."
        )
    for i in wrt:
        if inputs[i].dtype.itemsize < 8:
            import warnings

            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point. "
                "This check will likely fail if all the inputs are not of double precision "
                "floating point.",
                stacklevel=2,
            )
    if not check_backward_ad:
        return True
    num = _numerical(func, inputs, wrt, eps)
    err = _compare(num, _analytical(func, inputs, wrt, False), wrt, rtol, atol, "Jacobian")
    if err is None and check_batched_grad:
        batched = _analytical(func, inputs, wrt, True)
        err = _compare(num, batched, wrt, rtol, atol, "Batched grad (is_grads_batched) Jacobian")
    if err is not None:
        if raise_exception:
            raise GradcheckError(err)
        return False
    return True


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps=1e-6,
    atol=1e-5,
    rtol=1e-3,
    gen_non_contig_grad_outputs=False,
    raise_exception=True,
    nondet_tol=0.0,
    check_undefined_grad=True,
    check_grad_dtypes=False,
    check_batched_grad=False,
    check_fwd_over_rev=False,
    check_rev_over_rev=True,
    fast_mode=False,
    masked=False,
):
    """gradcheck of the first derivative: checks func's second derivatives."""
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._make(
                rng.standard_normal(o.shape).astype(o._data.dtype), -1, False
            ).requires_grad_(True)
            for o in outs
        )
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    wrt = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def first_derivative(*args):
        xs, vs = args[:n_in], args[n_in:]
        outs = _outputs(func, xs)
        pairs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
        gs = grad(
            [o for o, _ in pairs],
            [xs[i] for i in wrt],
            [v for _, v in pairs],
            create_graph=True,
            allow_unused=True,
        )
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        first_derivative,
        inputs + grad_outputs,
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
        check_batched_grad=check_batched_grad,
    )


__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]
