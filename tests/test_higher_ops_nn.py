"""create_graph, batched cotangents and double backward through reductions, activations,
softmax and losses (derivatives/nn.py), by `check_higher` (tests/higher.py).

Programs are nonlinear around the op (the op's cotangent depends on the inputs too), so
double backward exercises both the VJP's dependence on the inputs and on its cotangent.
Ties for max/min and the inf-norm are structural (copies of one tensor by `expand`), so
they persist under the finite-difference perturbations.
"""

import numpy as np
import pytest
from higher import check_higher

import nbgrad
from nbgrad.autograd.derivatives import DVJP, _load
from nbgrad.ops.registry import OPS
from nbgrad.tape import R_CODE, TAPE

F = nbgrad.nn.functional
rng = np.random.default_rng(1)
X = rng.uniform(-1, 1, (3, 4))
X3 = rng.uniform(-1, 1, (2, 3, 2))
POS = rng.uniform(0.2, 0.8, (3, 4))  # probabilities, for binary cross-entropy
# zeros: none in column 0 / row 2, one in column 1 / row 1, two in column 2 / row 0
ZEROS = np.array([[0.7, 0.0, 0.0], [1.3, 1.1, 0.0], [-0.9, 0.8, 0.6]])
FLIP = nbgrad.tensor(np.array([1.0, -1.0]).reshape(2, 1, 1))
T = nbgrad.tensor(np.array([2, 0, 3]))
T_IGN = nbgrad.tensor(np.array([1, -1, 3]))  # -1: ignored below
T3 = nbgrad.tensor(np.array([[2, 0], [1, 1]]))  # targets of an (N, C, d) = (2, 3, 2) input
W = nbgrad.tensor(np.array([0.5, 2.0, 1.0, 1.5]))
PROB = rng.dirichlet(np.ones(4), 3)
INF = float("inf")


def _sq(t):
    return t * t


CASES = {
    # norms
    "norm": (lambda a: nbgrad.tanh(a.norm(dim=1)) * a.norm(), X),
    "norm-keepdim": (lambda a: a / a.norm(dim=0, keepdim=True), X),
    "pnorm-3": (lambda a: nbgrad.sin(a.norm(p=3, dim=1)), X),
    "pnorm-1": (lambda a: _sq(a.norm(p=1, dim=0)), X),
    "pnorm-0.5": (lambda a: _sq(a.norm(p=0.5)), X),
    "pnorm-0": (lambda a: a.norm(p=0, dim=1) * a.sum(1), X),
    "pnorm-inf-ties": (lambda a: _sq((a * FLIP).norm(p=INF, dim=(0, 2))), X),
    "pnorm-neginf": (lambda a: _sq(a.norm(p=-INF, dim=1, keepdim=True)) * a, X),
    # products, exact with zeros (with two in a group the Hessian is nonzero there)
    "prod": (lambda a: nbgrad.sin(a.prod()) + a.prod(), X[:2, :3]),
    "prod-zeros": (lambda a: nbgrad.sin(a.prod(dim=0)) * a.sum(0), ZEROS),
    "prod-zeros-all": (lambda a: _sq((a + 1).prod()) + a.prod() * 3, ZEROS),
    "prod-keepdim": (lambda a: nbgrad.sin(a.prod(dim=1, keepdim=True)) * a, ZEROS),
    # moments, logsumexp, cumsum
    "var": (lambda a: nbgrad.sin(a.var(dim=1)), X),
    "var-keepdim-corr0": (lambda a: a.var(dim=(0, 1), keepdim=True, correction=0) * a, X),
    "std": (lambda a: _sq(a.std()), X),
    "std-dim": (lambda a: a.std(dim=0, keepdim=True) * a, X),
    "logsumexp": (lambda a: _sq(a.logsumexp(dim=1)), X),
    "logsumexp-dims": (lambda a: nbgrad.sin(a.logsumexp(dim=(0, 2), keepdim=True)) * a, X3),
    "cumsum": (lambda a: _sq(a.cumsum(1)), X),
    "cumsum-3d": (lambda a: nbgrad.sin(a.cumsum(0) * a), X3),
    # max / min, ties shared evenly
    "amax-ties": (lambda a: nbgrad.sin(nbgrad.amax(a.expand(2, 3, 4), dim=(0, 2))), X),
    "amin-ties": (lambda a: _sq(nbgrad.amin(a.expand(2, 3, 4), dim=0, keepdim=True)) * a, X),
    "max-all-ties": (lambda a: nbgrad.sin(a.expand(2, 3, 4).max()) * a, X),
    "min-all": (lambda a: _sq(a.min()) + a.sum(), X),
    # activations with parameters (both pieces present)
    "clamp": (lambda a: _sq(a.clamp(-0.5, 0.4)) + a.clamp(min=0.1) * a, X),
    "leaky_relu": (lambda a: _sq(F.leaky_relu(a, 0.2)), X),
    "elu": (lambda a: _sq(F.elu(a * 3, 1.5)) + F.selu(a) * a + F.celu(a, 0.7), X),
    "hardtanh": (lambda a: _sq(F.hardtanh(a, -0.5, 0.6)), X),
    "softplus": (lambda a: _sq(F.softplus(a * 10, beta=2.0, threshold=5.0)), X),
    # softmax
    "softmax": (lambda a: F.softmax(a, dim=1) * a, X),
    "softmax-dim0": (lambda a: nbgrad.sin(F.softmax(a * 2, dim=0)), X3),
    "log_softmax": (lambda a: _sq(F.log_softmax(a, dim=-1)), X),
    "log_softmax-mid": (lambda a: F.log_softmax(a, dim=1) * a, X3),
    # cross entropy with class indices
    "ce-mean": (lambda x: _sq(F.cross_entropy(x, T)), X),
    "ce-sum-weight": (lambda x: _sq(F.cross_entropy(x, T, weight=W, reduction="sum")), X),
    "ce-none-ignore": (
        lambda x: _sq(F.cross_entropy(x, T_IGN, ignore_index=-1, reduction="none")),
        X,
    ),
    "ce-ls-weight-ignore": (
        lambda x: _sq(F.cross_entropy(x, T_IGN, W, ignore_index=-1, label_smoothing=0.2)),
        X,
    ),
    "ce-ls-none-3d": (
        lambda x: _sq(F.cross_entropy(x, T3, reduction="none", label_smoothing=0.3)),
        X3,
    ),
    "ce-1d": (lambda x: _sq(F.cross_entropy(x, T[0])), X[0]),
    # cross entropy with probabilities (the target takes a gradient too)
    "ce-prob-mean": (lambda x, p: _sq(F.cross_entropy(x, p)), X, PROB),
    "ce-prob-sum-ls-weight": (
        lambda x, p: _sq(F.cross_entropy(x, p, W, reduction="sum", label_smoothing=0.1)),
        X,
        PROB,
    ),
    "ce-prob-none": (lambda x, p: _sq(F.cross_entropy(x, p * x, reduction="none")), X, PROB),
    # nll
    "nll-mean-weight": (lambda x: _sq(F.nll_loss(nbgrad.sin(x), T, W)), X),
    "nll-sum-ignore": (
        lambda x: _sq(F.nll_loss(x * x, T_IGN, ignore_index=-1, reduction="sum")),
        X,
    ),
    "nll-none-3d": (lambda x: nbgrad.sin(F.nll_loss(x * x, T3, reduction="none")), X3),
    # pointwise losses
    "mse": (lambda a, b: _sq(F.mse_loss(a, b)), X, POS),
    "mse-none": (lambda a, b: F.mse_loss(a * b, b, reduction="none") * a, X, POS),
    "l1": (lambda a, b: _sq(F.l1_loss(a, b)) + F.l1_loss(a * a, b, reduction="sum") * a, X, POS),
    "l1-none": (lambda a, b: F.l1_loss(a, b, reduction="none") * a, X, POS),
    "smooth_l1": (lambda a, b: _sq(F.smooth_l1_loss(a, b, beta=0.5, reduction="sum")), X, POS),
    "smooth_l1-none": (lambda a, b: F.smooth_l1_loss(a, b * b, reduction="none") * a, X, POS),
    "huber": (lambda a, b: _sq(F.huber_loss(a, b, delta=0.3)), X, POS),
    "huber-none": (lambda a, b: F.huber_loss(a, b, reduction="none", delta=0.5) * b, X, POS),
    "bce": (lambda a, b: _sq(F.binary_cross_entropy(nbgrad.sigmoid(a), b)), X, POS),
    "bce-weight-none": (
        lambda a, b: F.binary_cross_entropy(POS_T, b * b, weight=W, reduction="none") * a,
        X,
        POS,
    ),
    "bce-logits": (
        lambda a, b: _sq(F.binary_cross_entropy_with_logits(a * 3, b, reduction="sum")),
        X,
        POS,
    ),
    "bce-logits-weights-none": (
        lambda a, b: (
            F.binary_cross_entropy_with_logits(
                a * 3, b, weight=W, pos_weight=W * 2, reduction="none"
            )
            * a
        ),
        X,
        POS,
    ),
}
POS_T = nbgrad.tensor(rng.uniform(0.2, 0.8, (3, 4)))

OPS_COVERED = [
    "norm",
    "pnorm",
    "prod",
    "prod_dim",
    "var",
    "std",
    "logsumexp",
    "cumsum",
    "amax_AmaxBackward0",
    "amax_AminBackward0",
    "amax_MaxBackward1",
    "amax_MinBackward1",
    "clamp",
    "leaky_relu",
    "elu",
    "hardtanh",
    "softplus",
    "softmax",
    "log_softmax",
    "cross_entropy",
    "cross_entropy_ls",
    "cross_entropy_prob",
    "cross_entropy_prob_sum",
    "nll_loss",
    "loss_MseLossBackward0",
    "loss_MeanBackward0",
    "loss_SmoothL1LossBackward0",
    "loss_HuberLossBackward0",
    "loss_BinaryCrossEntropyBackward0",
    "loss_BinaryCrossEntropyWithLogitsBackward0",
    "loss_l1_none",
    "loss_l1_sum",
]


@pytest.mark.parametrize("case", list(CASES))
def test_nn_op(case):
    fn, *args = CASES[case]
    check_higher(fn, *args)


def _recorded(fn, args):
    """Op names of the rows that running fn on leaves records."""
    start = TAPE.n
    fn(*[nbgrad.tensor(a, requires_grad=True) for a in args])
    return {OPS[int(TAPE.R[k, R_CODE])].name for k in range(start, TAPE.n)}


def test_cases_record_the_covered_ops():
    _load()
    seen = set()
    for fn, *args in CASES.values():
        seen |= _recorded(fn, args)
    assert set(OPS_COVERED) <= seen, sorted(set(OPS_COVERED) - seen)
    assert all(n in DVJP for n in OPS_COVERED)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.log_softmax(x, dim=1) * x,
        lambda x: F.cross_entropy(x, T, W, label_smoothing=0.1) * x,
        lambda x: F.elu(x).std(dim=1, keepdim=True) * x,
    ],
    ids=["log_softmax", "cross_entropy", "elu-std"],
)
def test_float32_first_order(fn):
    """The differentiable VJPs keep float32 (constants in the row's dtype) and agree
    with the compiled sweep."""
    x = nbgrad.tensor(X.astype(np.float32), requires_grad=True)
    v = nbgrad.tensor(rng.standard_normal(X.shape).astype(np.float32))
    (ref,) = nbgrad.autograd.grad(fn(x), x, v)
    (got,) = nbgrad.autograd.grad(fn(x), x, v, create_graph=True)
    assert got.dtype == nbgrad.float32
    np.testing.assert_allclose(got.detach().numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


THIRD = {
    "softmax": lambda L, a: (L.nn.functional.softmax(a, 1) * a).sum(),
    "cross_entropy": lambda L, a: L.nn.functional.cross_entropy(
        a, L.tensor([1, 0, 3]), label_smoothing=0.1
    ),
    "var-std": lambda L, a: a.var(dim=1).sum() * a.std(),
    "elu": lambda L, a: (L.nn.functional.elu(a * 2) ** 2).sum(),
    "softplus": lambda L, a: (L.nn.functional.softplus(a * 3) ** 2).sum(),
    "pnorm": lambda L, a: (a.norm(p=3, dim=0) ** 2).sum(),
    "prod": lambda L, a: a.prod(dim=1).sum(),
    "cumsum": lambda L, a: (a.cumsum(1) ** 3).sum(),
    "bce": lambda L, a: L.nn.functional.binary_cross_entropy(L.sigmoid(a), L.sigmoid(a * 2)),
}
THIRD_NEEDS = {"prod": ["cat", "slice"], "cumsum": ["view_FlipBackward0"]}


@pytest.mark.parametrize("name", list(THIRD))
def test_third_order_matches_torch(name):
    """The VJPs are built of recorded ops that differentiate again: a third derivative
    (create_graph twice) against PyTorch's."""
    torch = pytest.importorskip("torch")
    _load()
    missing = [n for n in THIRD_NEEDS.get(name, []) if n not in DVJP]
    if missing:
        pytest.skip(f"no differentiable VJP yet for {missing}")
    res = []
    for lib in (nbgrad, torch):
        a = lib.tensor(X, requires_grad=True)
        (g,) = lib.autograd.grad(THIRD[name](lib, a), a, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), a, create_graph=True)
        (k,) = lib.autograd.grad((h * a).sum().sin(), a)
        res.append(k.detach().numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-9, atol=1e-12)
