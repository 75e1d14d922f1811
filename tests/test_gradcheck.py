"""Finite-difference gradient checks of every op, and agreement with PyTorch.

`check_jacobian` builds the full Jacobian of an op one row at a time from VJPs
(`nbgrad.autograd.grad` with a one-hot `grad_outputs`) and compares it with central
differences in float64. `test_matches_torch` runs the same op on PyTorch (when installed)
and compares values, shapes, dtypes and gradients for a random cotangent.

Every case is `fn(module, *tensors)`, written once for both `nbgrad` and `torch`.
"""

import warnings

import numpy as np
import pytest

import nbgrad

# -- inputs --------------------------------------------------------------------------------


def _draw(rng, shape, domain, dtype):
    if domain == "any":
        a = rng.uniform(-2.0, 2.0, shape)
    elif domain == "pos":  # log, sqrt, the base of a real power: away from 0
        a = rng.uniform(0.5, 2.0, shape)
    elif domain == "nonzero":  # relu, abs, divisors: away from the kink / pole
        a = rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif domain == "small":  # exponents
        a = rng.uniform(-1.5, 1.5, shape)
    else:
        raise ValueError(domain)
    return np.asarray(a, dtype=dtype)


def make_inputs(case, seed, dtype=None):
    rng = np.random.default_rng(seed)
    return [_draw(rng, s, d, dtype or dt) for s, d, dt in case.inputs]


class Case:
    def __init__(self, name, fn, *inputs, tol=None, eps=None):
        self.name, self.fn, self.tol, self.eps = name, fn, tol, eps
        # each input: shape, or (shape, domain) or (shape, domain, dtype)
        specs = []
        for spec in inputs:
            if not (isinstance(spec, tuple) and spec and isinstance(spec[-1], str)):
                spec = (spec, "any")
            if len(spec) == 2:
                spec = (*spec, "float64")
            specs.append(spec)
        self.inputs = specs

    def __repr__(self):
        return self.name


# -- custom Functions, one class per module --------------------------------------------

_CUSTOM = {}


def custom(mod, kind):
    key = (mod.__name__, kind)
    if key in _CUSTOM:
        return _CUSTOM[key]

    if kind == "cube":

        class Cube(mod.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x * x

        cls = Cube
    elif kind == "lincomb":

        class LinComb(mod.autograd.Function):
            """alpha * a * b + a, with a non-tensor argument."""

            @staticmethod
            def forward(ctx, a, alpha, b):
                ctx.save_for_backward(a, b)
                ctx.alpha = alpha
                return alpha * a * b + a

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * ctx.alpha * b + g, None, g * ctx.alpha * a

        cls = LinComb
    else:  # "bcast": backward returns a gradient broadcast up from the input's shape

        class RowScale(mod.autograd.Function):
            """y = x * w with x (n, m), w (m,): backward returns dw as (n, m)."""

            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return x * w

            @staticmethod
            def backward(ctx, g):
                x, w = ctx.saved_tensors
                return g * w, g * x  # the second is summed down to (m,)

        cls = RowScale
    _CUSTOM[key] = cls
    return cls


# -- the cases -----------------------------------------------------------------------------

UNARY = ["neg", "exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "sqrt", "abs"]
UNARY_DOMAIN = {"log": "pos", "sqrt": "pos", "relu": "nonzero", "abs": "nonzero"}


def _unary(name):
    def f(m, x):
        return -x if name == "neg" else getattr(x, name)()

    return f


def _unary_fn(name):
    def f(m, x):
        return getattr(m, name)(x)

    return f


CASES = []
for _n in UNARY:
    _d = UNARY_DOMAIN.get(_n, "any")
    CASES.append(Case(_n, _unary(_n), ((3, 4), _d)))
    CASES.append(Case(f"{_n}_fn_3d", _unary_fn(_n), ((2, 2, 3), _d)))

_BIN = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
}
_BIN_DOMAINS = {"div": ("any", "nonzero"), "pow": ("pos", "small")}
_BIN_SHAPES = [
    ("same", (3, 4), (3, 4)),
    ("col_row", (3, 1), (1, 4)),
    ("3d_vec", (2, 3, 4), (4,)),
    ("vec_3d", (4,), (2, 3, 4)),
    ("mid", (2, 1, 4), (3, 1)),
    ("scalar_vec", (), (3,)),
    ("vec_scalar", (3,), ()),
    ("empty", (0, 3), (3,)),
]
for _n, _f in _BIN.items():
    _da, _db = _BIN_DOMAINS.get(_n, ("any", "any"))
    for _sid, _sa, _sb in _BIN_SHAPES:
        CASES.append(
            Case(
                f"{_n}_{_sid}",
                (lambda f: lambda m, a, b: f(a, b))(_f),
                (_sa, _da),
                (_sb, _db),
            )
        )

CASES += [
    # tensor / scalar and scalar / tensor
    Case("add_ts", lambda m, x: x + 2, (3, 4)),
    Case("radd_st", lambda m, x: 2 + x, (3, 4)),
    Case("sub_ts", lambda m, x: x - 2, (3, 4)),
    Case("rsub_st", lambda m, x: 2 - x, (3, 4)),
    Case("mul_ts", lambda m, x: x * 2.5, (3, 4)),
    Case("rmul_st", lambda m, x: -1.5 * x, (3, 4)),
    Case("div_ts", lambda m, x: x / 3, (3, 4)),
    Case("rdiv_st", lambda m, x: 2 / x, ((3, 4), "nonzero")),
    Case("pow_ts_2", lambda m, x: x**2, (3, 4)),
    Case("pow_ts_3", lambda m, x: x**3, (3, 4)),
    Case("pow_ts_2_5", lambda m, x: x**2.5, ((3, 4), "pos")),
    Case("pow_ts_neg", lambda m, x: x**-1.5, ((3, 4), "pos")),
    Case("pow_ts_0", lambda m, x: x**0, (3, 4)),
    Case("pow_ts_half", lambda m, x: x**0.5, ((3, 4), "pos")),
    Case("rpow_st", lambda m, x: 2**x, (3, 4)),
    Case("rpow_st_float", lambda m, x: 0.7**x, (3, 4)),
    Case("functional_add_alpha", lambda m, a, b: m.add(a, b, alpha=2), (3,), (3,)),
    Case("functional_sub_alpha", lambda m, a, b: m.sub(a, b, alpha=0.5), (3,), (3,)),
    Case(
        "functional_mul_div_pow",
        lambda m, a, b: m.pow(m.div(m.mul(a, b), b), 2),
        (3,),
        ((3,), "nonzero"),
    ),
    Case("same_tensor_twice", lambda m, x: x * x + x / (x * x + 1), (3, 4)),
    Case("chain", lambda m, x: ((x * 2).sin() + x.exp()).tanh() * x.sigmoid(), (3, 4)),
    # reductions
    Case("sum_all", lambda m, x: x.sum(), (3, 4)),
    Case("mean_all", lambda m, x: x.mean(), (3, 4)),
    Case("sum_0", lambda m, x: x.sum(0), (3, 4)),
    Case("sum_1", lambda m, x: x.sum(1), (2, 3, 4)),
    Case("sum_neg", lambda m, x: x.sum(-1), (2, 3, 4)),
    Case("sum_neg2_keep", lambda m, x: x.sum(-2, keepdim=True), (2, 3, 4)),
    Case("sum_multi", lambda m, x: x.sum((0, 2)), (2, 3, 4)),
    Case("sum_multi_neg_keep", lambda m, x: x.sum((-1, 0), keepdim=True), (2, 3, 4)),
    Case("sum_all_dims", lambda m, x: x.sum((0, 1)), (3, 4)),
    Case("sum_dim_kw", lambda m, x: m.sum(x, dim=1), (3, 4)),
    Case("mean_0", lambda m, x: x.mean(0), (3, 4)),
    Case("mean_neg_keep", lambda m, x: x.mean(-1, keepdim=True), (2, 3, 4)),
    Case("mean_multi", lambda m, x: x.mean((0, 1)), (2, 3, 4)),
    Case("mean_fn", lambda m, x: m.mean(x, 2), (2, 3, 4)),
    Case("norm", lambda m, x: x.norm(), (3, 4)),
    Case("norm_fn", lambda m, x: m.norm(x), (5,)),
    Case("norm_dim", lambda m, x: x.norm(dim=1), (3, 4)),
    Case("norm_dim_keep", lambda m, x: x.norm(dim=0, keepdim=True), (3, 4)),
    # matmul
    Case("matmul_1d_1d", lambda m, a, b: a @ b, (4,), (4,)),
    Case("matmul_2d_1d", lambda m, a, b: a @ b, (3, 4), (4,)),
    Case("matmul_1d_2d", lambda m, a, b: a @ b, (3,), (3, 4)),
    Case("matmul_2d_2d", lambda m, a, b: a @ b, (3, 4), (4, 2)),
    Case("matmul_3d_3d", lambda m, a, b: a @ b, (2, 3, 4), (2, 4, 2)),
    Case("matmul_3d_2d", lambda m, a, b: a @ b, (2, 3, 4), (4, 2)),
    Case("matmul_2d_3d", lambda m, a, b: a @ b, (3, 4), (2, 4, 2)),
    Case("matmul_3d_1d", lambda m, a, b: a @ b, (2, 3, 4), (4,)),
    Case("matmul_1d_3d", lambda m, a, b: a @ b, (3,), (2, 3, 4)),
    Case("matmul_bcast_batch", lambda m, a, b: a @ b, (2, 1, 3, 4), (5, 4, 2)),
    Case("matmul_bcast_batch_1", lambda m, a, b: a @ b, (1, 3, 4), (2, 4, 2)),
    Case("matmul_fn", lambda m, a, b: m.matmul(a, b), (3, 4), (4, 2)),
    Case("mm", lambda m, a, b: a.mm(b), (3, 4), (4, 2)),
    Case("mm_fn", lambda m, a, b: m.mm(a, b), (3, 4), (4, 2)),
    Case("dot", lambda m, a, b: a.dot(b), (4,), (4,)),
    Case("matmul_same_operand", lambda m, a: a @ a.T, (3, 4)),
    Case("outer", lambda m, a, b: m.outer(a, b), (3,), (4,)),
    Case("outer_method", lambda m, a, b: a.outer(b), (3,), (4,)),
    # views
    Case("transpose", lambda m, x: x.transpose(0, 1), (3, 4)),
    Case("transpose_3d_neg", lambda m, x: x.transpose(-1, 0), (2, 3, 4)),
    Case("T_2d", lambda m, x: x.T, (3, 4)),
    Case("t", lambda m, x: x.t(), (3, 4)),
    Case("mT", lambda m, x: x.mT, (2, 3, 4)),
    Case("permute", lambda m, x: x.permute(2, 0, 1), (2, 3, 4)),
    Case("permute_neg", lambda m, x: x.permute(-1, -3, -2), (2, 3, 4)),
    Case("reshape", lambda m, x: x.reshape(6, -1), (2, 3, 4)),
    Case("reshape_tuple", lambda m, x: x.reshape((4, 3, 2)) * x.reshape((4, 3, 2)), (2, 3, 4)),
    Case("view", lambda m, x: x.view(4, 6), (2, 3, 4)),
    Case("view_as", lambda m, x: x.view(12).view_as(x) * x, (3, 4)),
    Case("flatten", lambda m, x: x.flatten(), (2, 3, 4)),
    Case("flatten_1", lambda m, x: x.flatten(1), (2, 3, 4)),
    Case("unsqueeze", lambda m, x: x.unsqueeze(0), (3, 4)),
    Case("unsqueeze_neg", lambda m, x: x.unsqueeze(-1), (3, 4)),
    Case("squeeze", lambda m, x: x.squeeze(), (3, 1, 4)),
    Case("squeeze_dim", lambda m, x: x.squeeze(1), (3, 1, 4)),
    Case("expand", lambda m, x: x.expand(2, 3, 4), (3, 1)),
    Case("expand_neg1", lambda m, x: x.expand(-1, 5), (3, 1)),
    Case("expand_as", lambda m, x, y: x.expand_as(y) * y, (1, 4), (3, 4)),
    Case("clone", lambda m, x: x.clone() * x, (3, 4)),
    Case("contiguous", lambda m, x: x.transpose(0, 1).contiguous(), (3, 4)),
    # basic indexing
    Case("index_int", lambda m, x: x[1], (3, 4)),
    Case("index_neg_int", lambda m, x: x[-1], (3, 4)),
    Case("index_2ints", lambda m, x: x[1, 2], (3, 4)),
    Case("index_chain", lambda m, x: x[1][2:], (3, 4)),
    Case("index_slice", lambda m, x: x[1:3], (4, 3)),
    Case("index_slice_neg", lambda m, x: x[-3:-1], (4, 3)),
    Case("index_step", lambda m, x: x[::2], (5, 3)),
    Case("index_start_step", lambda m, x: x[1::2, ::3], (5, 7)),
    Case("index_ellipsis", lambda m, x: x[..., 1], (2, 3, 4)),
    Case("index_ellipsis_mid", lambda m, x: x[0, ..., 1:], (2, 3, 4)),
    Case("index_none", lambda m, x: x[None], (3, 4)),
    Case("index_none_mid", lambda m, x: x[:, None, 1], (3, 4)),
    Case("index_combo", lambda m, x: x[-2:, None, ::2, 1], (3, 4, 5)),
    Case("index_combo2", lambda m, x: x[1, ..., None, 0:3:2], (2, 3, 4)),
    Case("index_overlap", lambda m, x: x[0:2] * x[1:3], (3, 4)),
    Case("index_full", lambda m, x: x[:] + x[...], (3, 4)),
    # setitem on a non-leaf: gradient to both the tensor and the value
    Case("setitem_slice", lambda m, x, w: _setitem(x, (slice(1, 3),), w), (4, 3), (2, 3)),
    Case("setitem_int", lambda m, x, w: _setitem(x, (1,), w), (4, 3), (3,)),
    Case("setitem_column", lambda m, x, w: _setitem(x, (slice(None), 1), w), (4, 3), (4,)),
    Case("setitem_broadcast", lambda m, x, w: _setitem(x, (slice(0, 2),), w), (4, 3), (3,)),
    Case("setitem_step", lambda m, x, w: _setitem(x, (slice(None, None, 2), 0), w), (5, 2), (3,)),
    # dtype casts
    Case("double", lambda m, x: x.double() ** 2, ((3, 4), "any", "float32"), tol=1e-3),
    Case("float_roundtrip", lambda m, x: (x.float() * 3).double(), (3, 4), tol=1e-3, eps=1e-2),
    Case("to_dtype", lambda m, x: x.to(m.float64).exp(), ((3,), "any", "float32"), tol=1e-3),
    Case("mixed_f32_f64", lambda m, a, b: a * b + a, ((3,), "any", "float32"), (3,), tol=1e-3),
    Case("mixed_bcast", lambda m, a, b: a - b, ((2, 1), "any", "float32"), (3,), tol=1e-3),
    # custom Functions
    Case("custom_cube", lambda m, x: custom(m, "cube").apply(x), (3, 4)),
    Case("custom_lincomb", lambda m, a, b: custom(m, "lincomb").apply(a, 1.5, b).exp(), (3,), (3,)),
    Case("custom_bcast_grad", lambda m, x, w: custom(m, "bcast").apply(x, w), (3, 4), (4,)),
    Case("custom_in_chain", lambda m, x: custom(m, "cube").apply(x.sin()).sum(0) * 2, (3, 4)),
]


def _setitem(x, index, w):
    y = x * 1
    y[index] = w
    return y * y  # non-linear, so the overwritten entries matter


BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES)

# -- the gradient check -------------------------------------------------------------------


def check_jacobian(case, seed=0, eps=1e-6, rtol=1e-5, atol=1e-6):
    arrays = make_inputs(case, seed)
    tol = case.tol
    if tol is not None:
        rtol = atol = tol
    ts = [nbgrad.tensor(a, requires_grad=True) for a in arrays]
    out = case.fn(nbgrad, *ts)
    assert out.requires_grad and out.grad_fn is not None
    n_out = out.numel()
    analytic = [np.zeros((n_out, a.size)) for a in arrays]
    for i in range(n_out):  # row i of J: the VJP with the i-th one-hot cotangent
        e = np.zeros(n_out, out.detach().numpy().dtype)
        e[i] = 1.0
        # a one-element output is seeded implicitly (with 1), as PyTorch allows
        seed = nbgrad.tensor(e.reshape(out.shape)) if n_out > 1 else None
        grads = nbgrad.autograd.grad(
            out, ts, grad_outputs=seed, retain_graph=True, allow_unused=True
        )
        for j, g in enumerate(grads):
            if g is None:
                continue
            assert g.shape == ts[j].shape, (j, g.shape, ts[j].shape)
            assert g.dtype is ts[j].dtype
            assert not g.requires_grad
            analytic[j][i] = g.numpy().reshape(-1)
    with nbgrad.no_grad():
        for j, a in enumerate(arrays):
            step = case.eps or (eps if a.dtype == np.float64 else 1e-3)
            for k in range(a.size):
                hi, lo = a.copy(), a.copy()
                hi.reshape(-1)[k] += step
                lo.reshape(-1)[k] -= step
                h = float(hi.reshape(-1)[k]) - float(lo.reshape(-1)[k])  # as rounded
                args_hi = [nbgrad.tensor(hi if i == j else b) for i, b in enumerate(arrays)]
                args_lo = [nbgrad.tensor(lo if i == j else b) for i, b in enumerate(arrays)]
                f_hi = case.fn(nbgrad, *args_hi).numpy().astype(np.float64).reshape(-1)
                f_lo = case.fn(nbgrad, *args_lo).numpy().astype(np.float64).reshape(-1)
                numeric = (f_hi - f_lo) / h
                np.testing.assert_allclose(
                    analytic[j][:, k],
                    numeric,
                    rtol=rtol,
                    atol=atol,
                    err_msg=f"{case.name}: d out / d input{j}[{k}]",
                )
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gradcheck(case):
    check_jacobian(case)


def _public_args(case, seed=0):
    """float64 leaves, as gradcheck wants (float32 cases are checked by check_jacobian)."""
    arrays = make_inputs(case, seed, dtype=np.float64)
    return tuple(nbgrad.tensor(a, requires_grad=True) for a in arrays)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_public_gradcheck(case):
    """nbgrad.autograd.gradcheck on every case: the compiled VJPs one row at a time and the
    batched (is_grads_batched) sweep through the differentiable VJPs, against differences."""
    tol = case.tol or 1e-5
    assert nbgrad.autograd.gradcheck(
        lambda *xs: case.fn(nbgrad, *xs),
        _public_args(case),
        eps=case.eps or 1e-6,
        atol=tol,
        rtol=tol,
        check_batched_grad=True,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_public_gradgradcheck(case):
    """Second derivatives of every case (create_graph=True) against differences of the
    first derivative."""
    tol = max(case.tol or 1e-4, 1e-4)
    assert nbgrad.autograd.gradgradcheck(
        lambda *xs: case.fn(nbgrad, *xs),
        _public_args(case, 1),
        eps=case.eps or 1e-6,
        atol=tol,
        rtol=tol,
    )


@pytest.mark.parametrize(
    "case",
    [BY_NAME[n] for n in ("mul_same", "matmul_2d_2d", "chain")],
    ids=["mul", "matmul", "chain"],
)
def test_gradcheck_float32_close_to_float64(case):
    """The float32 VJP kernels agree with float64 ones to float32 precision."""
    arrays = make_inputs(case, 3)
    res = []
    for dt in (np.float32, np.float64):
        ts = [nbgrad.tensor(a.astype(dt), requires_grad=True) for a in arrays]
        out = case.fn(nbgrad, *ts)
        out.backward(nbgrad.ones_like(out))
        res.append([t.grad.numpy().astype(np.float64) for t in ts])
    for g32, g64 in zip(*res):
        np.testing.assert_allclose(g32, g64, rtol=1e-5, atol=1e-5)


def test_gradcheck_helper_catches_a_wrong_vjp():
    """The checker must fail on a custom Function whose backward is wrong."""

    class Wrong(nbgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g * 3.0

    case = Case("wrong", lambda m, x: Wrong.apply(x), (3,))
    with pytest.raises(AssertionError):
        check_jacobian(case)


@pytest.mark.parametrize("index", ["[::-1]", "[1::-1]", "[:, ::-2]"])
def test_negative_step_is_an_error(index):
    x = nbgrad.ones(3, 4, requires_grad=True)
    with pytest.raises(ValueError, match="^step must be greater than zero$"):
        eval("x" + index, {"x": x})


def test_negative_step_is_an_error_in_torch_too():
    real = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="^step must be greater than zero$"):
        real.ones(3)[::-1]


# -- agreement with PyTorch ---------------------------------------------------------------


def _as_np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matches_torch(case):
    real = pytest.importorskip("torch")
    arrays = make_inputs(case, 1, dtype=None)
    # float32 where the case does not fix a dtype, as PyTorch's default
    arrays = [
        a.astype(np.float32) if spec[2] == "float64" and case.tol is None else a
        for a, spec in zip(arrays, case.inputs)
    ]
    tn = [nbgrad.tensor(a, requires_grad=True) for a in arrays]
    tt = [real.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation of .T on non-2-D tensors
        on = case.fn(nbgrad, *tn)
        ot = case.fn(real, *tt)
    assert tuple(on.shape) == tuple(ot.shape)
    assert str(on.dtype).split(".")[-1] == str(ot.dtype).split(".")[-1]
    assert on.grad_fn is not None
    rtol, atol = (1e-5, 1e-6) if on.dtype is nbgrad.float32 else (1e-12, 1e-12)
    np.testing.assert_allclose(_as_np(on), _as_np(ot), rtol=rtol * 10, atol=atol * 10)
    g = np.random.default_rng(2).standard_normal(tuple(ot.shape)).astype(_as_np(ot).dtype)
    on.backward(nbgrad.tensor(g))
    ot.backward(real.tensor(g))
    for x, y in zip(tn, tt):
        assert x.grad is not None and y.grad is not None
        assert tuple(x.grad.shape) == tuple(y.grad.shape)
        assert str(x.grad.dtype).split(".")[-1] == str(y.grad.dtype).split(".")[-1]
        np.testing.assert_allclose(
            x.grad.numpy(), y.grad.numpy(), rtol=max(rtol * 100, 1e-4), atol=atol * 100
        )
