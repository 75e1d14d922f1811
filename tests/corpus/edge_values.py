"""Values at the edge of each op's domain, as real code meets them: gradients of prod with a
zero entry, sqrt and norm at 0, pow with a zero base, the NaN that torch.where passes back
from an unselected branch, softmax over a row masked with -inf, logsumexp of -inf, and
unbiased std of one element."""

import math

TOL = dict(rtol=1e-12, atol=1e-12)


NONFINITE = True  # some results are inf or nan on purpose (as in PyTorch)


def run(torch):
    out = {}
    f64 = torch.float64

    def g(fn, *vals):
        xs = [torch.tensor(v, dtype=f64, requires_grad=True) for v in vals]
        y = fn(*xs)
        grads = torch.autograd.grad(y.sum(), xs, allow_unused=True)
        return [y.detach()] + [gr for gr in grads]

    out["prod_one_zero"] = g(lambda x: x.prod(), [2.0, 0.0, 3.0])
    out["prod_two_zeros"] = g(lambda x: x.prod(), [2.0, 0.0, 0.0])
    out["prod_dim"] = g(lambda x: x.prod(dim=1), [[1.0, 0.0], [2.0, 3.0]])
    out["sqrt0"] = g(lambda x: x.sqrt(), [0.0, 4.0])
    out["pow_zero_base"] = g(lambda x: x**2.5, [0.0, 1.0])
    out["pow_zero_zero"] = g(lambda x: x**0, [0.0, 2.0])
    out["pow_tensor_exp"] = g(lambda b, e: b**e, [0.0, 2.0], [2.0, 0.5])
    out["where_nan"] = g(lambda x: torch.where(x > 0, x.log(), torch.zeros_like(x)), [-1.0, 2.0])
    out["masked_softmax"] = g(
        lambda x: torch.softmax(x.masked_fill(torch.tensor([False, True, True]), -math.inf), 0)[0],
        [1.0, 2.0, 3.0],
    )
    out["logsumexp_inf"] = g(lambda x: torch.logsumexp(x, 0), [-math.inf, 0.0])
    out["std_one"] = g(lambda x: x.std(), [1.5])
    out["var_pop"] = g(lambda x: x.var(correction=0), [1.0, 2.0, 4.0])
    out["norm1_zero"] = g(lambda x: x.norm(p=1), [0.0, -2.0])
    out["abs_zero"] = g(lambda x: x.abs(), [0.0])
    out["atan2_origin"] = g(lambda y, x: torch.atan2(y, x), [0.0], [0.0])
    out["log_zero"] = g(lambda x: x.log(), [0.0])
    out["clamp_equal_bounds"] = g(lambda x: x.clamp(1.0, 1.0), [0.0, 1.0, 2.0])
    out["div_zero"] = g(lambda a, b: a / b, [1.0, 0.0], [0.0, 0.0])
    out["sigmoid_far"] = g(lambda x: torch.sigmoid(x), [-800.0, 800.0])
    out["softplus_far"] = g(lambda x: torch.nn.functional.softplus(x), [-100.0, 100.0])
    out["log_softmax_large"] = g(lambda x: torch.log_softmax(x, 0)[0], [1000.0, -1000.0])
    out["bce_logits_far"] = g(
        lambda x: torch.nn.functional.binary_cross_entropy_with_logits(
            x, torch.tensor([1.0, 0.0], dtype=f64)
        ),
        [-200.0, 200.0],
    )
    return out
