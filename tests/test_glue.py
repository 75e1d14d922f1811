"""PyTorch glue: rounding division and modulus, special-value tests, any/all, lerp/addcmul/
addcdiv, new_*, in-place forms, random fills, keepdims=, out=, integer sum dtypes and the
legacy constructors, each checked against PyTorch (values, dtypes, gradients, errors)."""

import math
import warnings

import numpy as np
import pytest

import nbgrad

torch = pytest.importorskip("torch")


class _Lib:
    """A library and the values a test computes with it (never set on the module itself)."""

    def __init__(self, mod):
        self.mod = mod

    def __getattr__(self, name):
        return getattr(self.mod, name)


def T(lib, data, dtype="float64", rg=False):
    return lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=rg)


def same(a, b):
    """nbgrad tensor `a` has torch tensor `b`'s dtype, shape and values (NaN equal)."""
    assert a.dtype.name == str(b.dtype).split(".")[1], (a.dtype, b.dtype)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def same_error(f_nb, f_t):
    """Both raise the same exception type with the same message (torch -> nbgrad)."""
    with pytest.raises(Exception) as et:
        f_t()
    with pytest.raises(Exception) as en:
        f_nb()
    assert type(en.value) is type(et.value), (en.value, et.value)
    assert str(en.value) in (str(et.value), str(et.value).replace("torch.", "nbgrad.")), (
        en.value,
        et.value,
    )


A = [5.3, -3.0, 7.0, -7.5, 0.0, 2.25, -0.0, 1e-3]
B = [2.0, 2.0, -0.1, 2.0, 3.0, -1.5, 2.5, -7.0]


# -- //, %, floor_divide, remainder, fmod, div(rounding_mode=) -----------------------------
@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_rounding_division_values(name, dt):
    a, b = ([int(v * 2) for v in A], [int(v) or 3 for v in B]) if dt[0] == "i" else (A, B)
    for lib_args in [
        lambda L: (T(L, a, dt), T(L, b, dt)),
        lambda L: (T(L, a, dt), 3),
        lambda L: (T(L, a, dt), -2.5),
        lambda L: (T(L, a, dt), T(L, b, "float32")),
    ]:
        same(getattr(nbgrad, name)(*lib_args(nbgrad)), getattr(torch, name)(*lib_args(torch)))
    if name != "fmod":  # torch.fmod takes no number as input
        same(getattr(nbgrad, name)(7, T(nbgrad, b, dt)), getattr(torch, name)(7, T(torch, b, dt)))


def test_operators_and_methods():
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.a, L.b = T(L, A), T(L, B)
    pairs = [
        lambda L: L.a // L.b,
        lambda L: L.a % L.b,
        lambda L: 7 // L.b,
        lambda L: -7.5 % L.b,
        lambda L: L.a // 2,
        lambda L: L.a.remainder(L.b),
        lambda L: L.a.fmod(-2),
        lambda L: L.a.floor_divide(L.b),
        lambda L: L.a.div(L.b, rounding_mode="trunc"),
        lambda L: L.a.div(L.b, rounding_mode="floor"),
        lambda L: L.div(L.a, 3, rounding_mode="trunc"),
        lambda L: L.div(T(L, [-7, 7, 5], "int64"), 2, rounding_mode="trunc"),
        lambda L: L.div(
            T(L, [-7, 7, 5], "int32"), T(L, [2, -2, 5], "int32"), rounding_mode="floor"
        ),
    ]
    for f in pairs:
        same(f(nb), f(tc))


def test_in_place_forms():
    for op in ("floor_divide_", "remainder_", "fmod_"):
        nb, tc = _Lib(nbgrad), _Lib(torch)
        for L in (nb, tc):
            L.x = T(L, A)
            L.r = getattr(L.x, op)(T(L, B))
        assert nb.r is nb.x
        same(nb.x, tc.x)
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x, L.y = T(L, A), T(L, [5, -7, 9], "int64")
        L.x //= 2
        L.x %= 1.5
        L.y //= 2
        L.y %= 3
    same(nb.x, tc.x)
    same(nb.y, tc.y)
    # an integer tensor cannot hold a float result
    same_error(lambda: T(nbgrad, [1, 2], "int64").floor_divide_(2.5),
               lambda: T(torch, [1, 2], "int64").floor_divide_(2.5))  # fmt: skip
    same_error(
        lambda: T(nbgrad, A, rg=True).remainder_(2), lambda: T(torch, A, rg=True).remainder_(2)
    )


def test_integer_division_by_zero():
    for name in ("floor_divide", "remainder", "fmod"):
        same_error(lambda n=name: getattr(nbgrad, n)(T(nbgrad, [5], "int64"), 0),
                   lambda n=name: getattr(torch, n)(T(torch, [5], "int64"), 0))  # fmt: skip
    same(nbgrad.tensor([5.0, -1.0, 0.0]) // 0, torch.tensor([5.0, -1.0, 0.0]) // 0)
    same(nbgrad.tensor([5.0, -1.0]) % 0, torch.tensor([5.0, -1.0]) % 0)


@pytest.mark.parametrize("name", ["remainder", "fmod"])
def test_modulus_gradients_are_pytorchs(name):
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.a, L.b = T(L, A, rg=True), T(L, B, rg=True)
        y = getattr(L, name)(L.a, L.b)
        (y * T(L, range(1, 9))).sum().backward()
        L.y = y
        L.a2 = T(L, A, rg=True)
        (getattr(L, name)(L.a2, 1.5) ** 2).sum().backward()
    same(nb.y, tc.y)
    same(nb.a.grad, tc.a.grad)
    same(nb.b.grad, tc.b.grad)
    np.testing.assert_allclose(nb.a2.grad.numpy(), tc.a2.grad.numpy(), rtol=1e-12)


def test_modulus_gradcheck():
    a = nbgrad.tensor([5.3, -3.1, 7.3, 0.4], dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.tensor([2.1, 1.7, -0.9, 3.3], dtype=nbgrad.float64, requires_grad=True)
    assert nbgrad.autograd.gradcheck(lambda a, b: nbgrad.remainder(a, b), (a, b))
    assert nbgrad.autograd.gradcheck(lambda a, b: nbgrad.fmod(a, b), (a, b))
    assert nbgrad.autograd.gradcheck(lambda a, b: nbgrad.remainder(a, b) * a, (a, b))


def test_no_derivative_where_pytorch_has_none():
    def run(L, f):
        a = T(L, A, rg=True)
        y = f(L, a)
        assert y.requires_grad
        y.sum().backward()

    for f in (lambda L, a: a // 2, lambda L, a: L.floor_divide(3, a), lambda L, a: 7 % a):
        same_error(lambda f=f: run(nbgrad, f), lambda f=f: run(torch, f))
    # rounded quotients of div have zero gradient
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.a = T(L, A, rg=True)
        L.div(L.a, 2, rounding_mode="floor").sum().backward()
    same(nb.a.grad, tc.a.grad)
    same_error(lambda: nbgrad.div(T(nbgrad, A), 2, rounding_mode="round"),
               lambda: torch.div(T(torch, A), 2, rounding_mode="round"))  # fmt: skip


# -- any/all, isnan family, nan_to_num -------------------------------------------------
def test_any_all():
    for dt in ("float32", "int64", "bool"):
        nan = float("nan") if dt == "float32" else 5
        data = [[[0.0, 1.0], [0.0, 0.0]], [[2.0, 3.0], [4.0, nan]]]
        for name in ("any", "all"):
            for kw in ({}, {"dim": 1}, {"dim": -1, "keepdim": True}, {"dim": (0, 2)}):
                r_nb = getattr(nbgrad, name)(T(nbgrad, data, dt), **kw)
                r_t = getattr(torch, name)(T(torch, data, dt), **kw)
                same(r_nb, r_t)
                same(getattr(T(nbgrad, data, dt), name)(**kw), r_t)


def test_special_value_tests():
    data = [1.0, float("nan"), float("inf"), -float("inf"), -0.0, 3.5]
    for name in ("isnan", "isinf", "isposinf", "isneginf", "isfinite"):
        for dt in ("float32", "float64"):
            same(
                getattr(nbgrad, name)(T(nbgrad, data, dt)), getattr(torch, name)(T(torch, data, dt))
            )
            same(getattr(T(nbgrad, data, dt), name)(), getattr(T(torch, data, dt), name)())
        same(getattr(nbgrad, name)(T(nbgrad, [1, 2], "int64")),
             getattr(torch, name)(T(torch, [1, 2], "int64")))  # fmt: skip


def test_nan_to_num():
    data = [float("nan"), float("inf"), -float("inf"), 1.5]
    for dt in ("float32", "float64"):
        for kw in ({}, {"nan": 2.0}, {"posinf": 7.0, "neginf": -7.0}):
            same(
                nbgrad.nan_to_num(T(nbgrad, data, dt), **kw),
                torch.nan_to_num(T(torch, data, dt), **kw),
            )
    same(nbgrad.nan_to_num(T(nbgrad, [1, 2], "int64")), torch.nan_to_num(T(torch, [1, 2], "int64")))
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x = T(L, data, rg=True)
        (L.x.nan_to_num(posinf=3.0) * T(L, [1, 2, 3, 4])).sum().backward()
        L.y = T(L, data).nan_to_num_()
    same(nb.x.grad, tc.x.grad)
    same(nb.y, tc.y)


def test_constants():
    for name in ("pi", "e", "inf", "nan"):
        v, w = getattr(nbgrad, name), getattr(torch, name)
        assert type(v) is type(w) and (v == w or (math.isnan(v) and math.isnan(w)))


# -- lerp, addcmul, addcdiv ------------------------------------------------------------
@pytest.mark.parametrize("weight", [0.25, 0.75, -1.0, "tensor"])
def test_lerp(weight):
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.s, L.e = T(L, [1.0, -2.0, 3.3], rg=True), T(L, [4.0, 5.5, -1.0], rg=True)
        L.w = T(L, [0.1, 0.6, -0.7], rg=True) if weight == "tensor" else weight
        L.y = L.lerp(L.s, L.e, L.w)
        (L.y * T(L, [1.0, 2.0, 3.0])).sum().backward()
    same(nb.y, tc.y)
    same(nb.s.grad, tc.s.grad)
    same(nb.e.grad, tc.e.grad)
    if weight == "tensor":
        np.testing.assert_allclose(nb.w.grad.numpy(), tc.w.grad.numpy(), rtol=1e-15)
    same_error(lambda: nbgrad.lerp(T(nbgrad, [1], "int64"), T(nbgrad, [3], "int64"), 0.5),
               lambda: torch.lerp(T(torch, [1], "int64"), T(torch, [3], "int64"), 0.5))  # fmt: skip


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(name):
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x = T(L, [1.0, 2.0, -3.0], rg=True)
        L.t1 = T(L, [[0.5], [1.5]], rg=True)
        L.t2 = T(L, [2.0, -4.0, 8.0], rg=True)
        L.y = getattr(L, name)(L.x, L.t1, L.t2, value=0.3)
        L.y.sum().backward()
        L.z = getattr(T(L, [1.0, 2.0, -3.0]), name + "_")(T(L, [1.5, 2, 3]), T(L, [3.0, 2, 7]))
    for n in ("y", "z"):
        np.testing.assert_allclose(getattr(nb, n).detach().numpy(),
                                   getattr(tc, n).detach().numpy(), rtol=1e-15)  # fmt: skip
    for n in ("x", "t1", "t2"):
        np.testing.assert_allclose(getattr(nb, n).grad.numpy(),
                                   getattr(tc, n).grad.numpy(), rtol=1e-15)  # fmt: skip

    def ints(L):
        return [T(L, [1, 2], "int64") for _ in range(3)]

    same_error(lambda: nbgrad.addcdiv(*ints(nbgrad)), lambda: torch.addcdiv(*ints(torch)))


# -- new_*, type_as ----------------------------------------------------------------------
def test_new_factories():
    for dt in ("float32", "int64"):
        cases = [
            lambda x: x.new_zeros(2, 3),
            lambda x: x.new_zeros((2,)),
            lambda x: x.new_ones(3, dtype=x.new_ones(1).dtype),
            lambda x: x.new_full((2,), 7),
            lambda x: x.new_full([1, 2], 2.5),
            lambda x: x.new_tensor([1.5, 2.0]),
            lambda x: x.new_empty(2, 2).fill_(1),
            lambda x: x.type_as(x.new_tensor([1]).double()),
        ]
        for f in cases:
            same(f(T(nbgrad, [1, 2], dt)), f(T(torch, [1, 2], dt)))
    y = nbgrad.ones(2).new_zeros(3, requires_grad=True)
    assert y.requires_grad and y.is_leaf
    assert nbgrad.ones(2).new_ones(2, dtype=nbgrad.int64).dtype is nbgrad.int64
    same_error(lambda: nbgrad.ones(2).new_full(2, 3), lambda: torch.ones(2).new_full(2, 3))
    with pytest.warns(UserWarning, match="recommended to use sourceTensor.detach"):
        r = nbgrad.ones(2).new_tensor(nbgrad.ones(2, requires_grad=True))
    assert not r.requires_grad


# -- in-place forms of the unary methods ---------------------------------------------------
INPLACE_UNARY = (
    "neg negative exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan arcsin "
    "arccos arctan sinh cosh tanh sigmoid relu sqrt rsqrt abs square sign floor ceil round "
    "reciprocal erf lgamma digamma"
).split()


def test_every_unary_method_has_its_in_place_form():
    for name in INPLACE_UNARY:
        assert hasattr(torch.Tensor, name + "_"), name  # PyTorch has it
        nb, tc = _Lib(nbgrad), _Lib(torch)
        for L in (nb, tc):
            L.x = T(L, [0.3, 0.5, 0.9], "float32")
            v0 = L.x._version
            L.r = getattr(L.x, name + "_")()
            assert L.r is L.x and L.x._version == v0 + 1
        np.testing.assert_allclose(nb.x.numpy(), tc.x.numpy(), rtol=2e-6, err_msg=name)


@pytest.mark.parametrize("name", ["exp", "sin", "sqrt", "tanh", "abs", "round"])
def test_in_place_unary_in_a_graph(name):
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x = T(L, [0.3, 0.5, 1.7], rg=True)
        y = L.x * 2
        getattr(y, name + "_")()
        (y * y).sum().backward()
        L.y = y
    np.testing.assert_allclose(nb.y.detach().numpy(), tc.y.detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(nb.x.grad.numpy(), tc.x.grad.numpy(), rtol=1e-14)
    same_error(lambda: T(nbgrad, [1.0], rg=True).exp_(), lambda: T(torch, [1.0], rg=True).exp_())
    same_error(
        lambda: T(nbgrad, [1, 2], "int64").sqrt_(), lambda: T(torch, [1, 2], "int64").sqrt_()
    )


def test_in_place_saved_value_is_caught_at_backward():
    def run(L):
        x = T(L, [0.3, 0.5], rg=True)
        y = x * 2
        z = y.sin()  # saves y
        y.exp_()
        z.sum().backward()

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run(torch)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run(nbgrad)


def test_other_in_place_forms():
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x = T(L, [[-1.5, 2.5], [0.3, -4.0]])
        L.x.clamp_min_(-1.0).clamp_max_(2.0).atan2_(T(L, [1.0, -2.0])).round_(decimals=2)
        L.x.multiply_(3).divide_(2).true_divide_(2).subtract_(1)
        L.x.div_(0.3, rounding_mode="floor")
    same(nb.x, tc.x)


# -- masked_fill_, index_fill -------------------------------------------------------------
def test_masked_fill_and_index_fill():
    m = [[True, False, True], [False, False, True]]
    cases = [
        lambda L: T(L, [[1.0, 2, 3], [4, 5, 6]]).masked_fill_(T(L, m, "bool"), -1.5),
        lambda L: T(L, [[1, 2, 3], [4, 5, 6]], "int64").masked_fill_(T(L, m, "bool"), 2.7),
        lambda L: T(L, [[1.0, 2, 3], [4, 5, 6]]).masked_fill_(T(L, [True, False, True], "bool"), 9),
        lambda L: T(L, [[1.0, 2, 3], [4, 5, 6]]).index_fill_(1, T(L, [0, 2], "int64"), -1.0),
        lambda L: T(L, [[1.0, 2, 3], [4, 5, 6]]).index_fill(0, T(L, [-1], "int64"), 5.0),
        lambda L: T(L, [[1.0, 2, 3], [4, 5, 6]]).index_fill(-1, T(L, 1, "int64"), T(L, 4.0)),
    ]
    for f in cases:
        same(f(nbgrad), f(torch))
    bad = [
        lambda L: T(L, [1.0, 2, 3]).masked_fill_(T(L, [1, 0, 1], "int64"), 2.0),
        lambda L: T(L, [1.0, 2, 3]).masked_fill_(T(L, [True, False], "bool"), 2.0),
        lambda L: T(L, [1.0, 2, 3]).masked_fill_(T(L, [[True], [False]], "bool"), 2.0),
        lambda L: T(L, [1.0, 2, 3]).masked_fill_(T(L, [True, False, True], "bool"), T(L, [1.0, 2])),
        lambda L: T(L, [1.0, 2, 3]).index_fill_(0, T(L, [1], "int32"), 1.0),
        lambda L: T(L, [1.0, 2, 3]).index_fill_(0, T(L, [5], "int64"), 1.0),
        lambda L: T(L, [1.0, 2, 3]).index_fill_(0, T(L, [[1]], "int64"), 1.0),
        lambda L: T(L, [1.0, 2, 3]).index_fill_(1, T(L, [1], "int64"), 1.0),
        lambda L: T(L, [1.0, 2, 3]).index_fill_(0, T(L, [1], "int64"), T(L, [1.0, 2])),
        lambda L: T(L, [1.0, 2, 3], rg=True).masked_fill_(T(L, [True, False, True], "bool"), 2.0),
    ]
    for f in bad:
        same_error(lambda f=f: f(nbgrad), lambda f=f: f(torch))


def test_fill_gradients():
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x = T(L, [[1.0, 2, 3], [4, 5, 6]], rg=True)
        L.v = T(L, 0.5, rg=True)
        y = L.x * 1
        y.masked_fill_(T(L, [True, False, True], "bool"), L.v)
        z = y.index_fill(0, T(L, [1], "int64"), L.v)
        (z * T(L, [[1.0, 2, 3], [4, 5, 6]])).sum().backward()
    same(nb.x.grad, tc.x.grad)
    same(nb.v.grad, tc.v.grad)


# -- random fills --------------------------------------------------------------------------
def test_random_fills():
    nbgrad.manual_seed(0)
    n = 20000
    x = nbgrad.empty(n).uniform_(-2, 3)
    assert -2 <= x.min().item() and x.max().item() < 3 and abs(x.mean().item() - 0.5) < 0.05
    x = nbgrad.empty(n, dtype=nbgrad.float64).normal_(1.0, 2.0)
    assert abs(x.mean().item() - 1) < 0.1 and abs(x.std().item() - 2) < 0.1
    x = nbgrad.empty(n).exponential_(4.0)
    assert x.min().item() >= 0 and abs(x.mean().item() - 0.25) < 0.02
    x = nbgrad.empty(n).bernoulli_(0.3)
    assert set(np.unique(x.numpy())) == {0.0, 1.0} and abs(x.mean().item() - 0.3) < 0.02
    p = nbgrad.tensor([0.0, 1.0, 0.0, 1.0])
    same(nbgrad.zeros(4).bernoulli_(p), torch.zeros(4).bernoulli_(torch.tensor([0.0, 1, 0, 1])))
    assert nbgrad.zeros(3, dtype=nbgrad.int64).bernoulli_(0.5).dtype is nbgrad.int64
    r = nbgrad.zeros(n).random_(5)
    assert set(np.unique(r.numpy())) == {0.0, 1.0, 2.0, 3.0, 4.0}
    r = nbgrad.zeros(n, dtype=nbgrad.int32).random_(-3, 1)
    assert set(np.unique(r.numpy())) == {-3, -2, -1, 0}
    r = nbgrad.zeros(n).random_()
    assert r.min().item() >= 0 and r.max().item() <= 2**24 and (r == r.floor()).all()
    assert set(np.unique(nbgrad.zeros(100, dtype=nbgrad.bool).random_().numpy())) == {False, True}
    v = nbgrad.zeros(3)
    assert v.uniform_() is v and v._version == 1


def test_random_fill_errors():
    bad = [
        lambda L: L.zeros(3, dtype=L.int64).uniform_(),
        lambda L: L.zeros(3, dtype=L.bool).uniform_(),
        lambda L: L.zeros(3, dtype=L.int64).normal_(),
        lambda L: L.zeros(3, dtype=L.int64).exponential_(),
        lambda L: L.zeros(3).exponential_(-1.5),
        lambda L: L.zeros(3).exponential_(0),
        lambda L: L.zeros(3).normal_(0, -1.5),
        lambda L: L.zeros(3).uniform_(2.5, 1),
        lambda L: L.zeros(3).bernoulli_(-0.5),
        lambda L: L.zeros(3).random_(5, 5),
        lambda L: L.ones(3, requires_grad=True).uniform_(),
        lambda L: L.ones(3, requires_grad=True).normal_(),
    ]
    for f in bad:
        same_error(lambda f=f: f(nbgrad), lambda f=f: f(torch))


def test_random_fill_cuts_the_history():
    nb, tc = _Lib(nbgrad), _Lib(torch)
    for L in (nb, tc):
        L.x = T(L, [1.0, 2.0], rg=True)
        y = L.x * 3
        y.normal_()
        (y * L.x).sum().backward()
        L.y = y
    np.testing.assert_array_equal(nb.x.grad.numpy(), nb.y.detach().numpy())


# -- keepdims=, integer sum dtypes ---------------------------------------------------------
def test_keepdims_alias():
    x = nbgrad.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    xt = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    for name in (
        "sum",
        "mean",
        "prod",
        "var",
        "std",
        "logsumexp",
        "amax",
        "amin",
        "argmax",
        "argmin",
    ):
        same(getattr(x, name)(1, keepdims=True), getattr(xt, name)(1, keepdims=True))
        same(getattr(nbgrad, name)(x, 1, keepdims=True), getattr(torch, name)(xt, 1, keepdims=True))
    for name in ("max", "min"):
        for a, b in zip(getattr(x, name)(1, keepdims=True), getattr(xt, name)(1, keepdims=True)):
            same(a, b)
    for name in ("any", "all"):
        same(getattr(x > 2, name)(0, keepdims=True), getattr(xt > 2, name)(0, keepdims=True))


def test_integer_reductions_are_int64():
    for dt in ("int32", "int64", "bool"):
        nb, tc = _Lib(nbgrad), _Lib(torch)
        for L in (nb, tc):
            L.x = T(L, [[1, 0, 1], [1, 1, 1]], dt)
        for f in (
            lambda x: x.sum(),
            lambda x: x.sum(0),
            lambda x: x.prod(),
            lambda x: x.prod(1),
            lambda x: x.cumsum(1),
        ):
            same(f(nb.x), f(tc.x))
    same(
        T(nbgrad, [1, 2], "int32").sum(dtype=nbgrad.int32),
        T(torch, [1, 2], "int32").sum(dtype=torch.int32),
    )


# -- out= ------------------------------------------------------------------------------------
OUT_CASES = {
    "add": lambda L, **k: L.add(T(L, [1.0, 2]), T(L, [[1.0], [3]]), alpha=2, **k),
    "exp": lambda L, **k: L.exp(T(L, [0.5, 2]), **k),
    "remainder": lambda L, **k: L.remainder(T(L, [5.5, -2]), 2, **k),
    "sum": lambda L, **k: L.sum(T(L, [[1.0, 2], [3, 4]]), 1, **k),
    "mean": lambda L, **k: L.mean(T(L, [[1.0, 2], [3, 4]]), 0, keepdim=True, **k),
    "cumsum": lambda L, **k: L.cumsum(T(L, [[1.0, 2], [3, 4]]), 1, **k),
    "amax": lambda L, **k: L.amax(T(L, [[1.0, 2], [3, 4]]), 1, **k),
    "matmul": lambda L, **k: L.matmul(T(L, [[1.0, 2], [3, 4]]), T(L, [1.0, -1]), **k),
    "mm": lambda L, **k: L.mm(T(L, [[1.0, 2], [3, 4]]), T(L, [[1.0], [-1]]), **k),
    "cat": lambda L, **k: L.cat([T(L, [1.0, 2]), T(L, [3.0])], **k),
    "stack": lambda L, **k: L.stack([T(L, [1.0, 2]), T(L, [3.0, 4])], 1, **k),
    "any": lambda L, **k: L.any(T(L, [[0.0, 2], [0, 0]]), 1, **k),
    "where": lambda L, **k: L.where(T(L, [True, False], "bool"), T(L, [1.0, 2]), T(L, 0.0), **k),
    "clamp": lambda L, **k: L.clamp(T(L, [1.0, 5]), 2, 3, **k),
    "lerp": lambda L, **k: L.lerp(T(L, [1.0, 5]), T(L, [2.0, 3]), 0.25, **k),
}


@pytest.mark.parametrize("name", list(OUT_CASES))
def test_out_writes_and_returns_out(name):
    f = OUT_CASES[name]
    ref = f(torch)
    for size in (0, 1, ref.numel()):  # empty, other shape (resized with a warning), right
        shape = ref.shape if size == ref.numel() else (size,)
        o_nb = nbgrad.zeros(*shape, dtype=getattr(nbgrad, str(ref.dtype).split(".")[1]))
        o_t = torch.zeros(*shape, dtype=ref.dtype)
        with warnings.catch_warnings(record=True) as w_nb:
            warnings.simplefilter("always")
            r = f(nbgrad, out=o_nb)
        with warnings.catch_warnings(record=True) as w_t:
            warnings.simplefilter("always")
            f(torch, out=o_t)
        assert r is o_nb
        same(o_nb, o_t)
        assert len(w_nb) == len(w_t), [str(x.message) for x in w_t]
        for a, b in zip(w_nb, w_t):
            assert str(b.message).startswith(str(a.message))


def test_out_errors_are_pytorchs():
    bad = [
        lambda L: OUT_CASES["add"](L, out=L.zeros(2, 2, dtype=L.int64)),
        lambda L: OUT_CASES["exp"](L, out=L.zeros(2, dtype=L.bool)),
        lambda L: OUT_CASES["mm"](L, out=L.zeros(2, 1, dtype=L.float32)),
        lambda L: OUT_CASES["cat"](L, out=L.zeros(3, dtype=L.int64)),
        lambda L: OUT_CASES["any"](L, out=L.zeros(2)),
        lambda L: OUT_CASES["where"](L, out=L.zeros(2, dtype=L.float32)),
        lambda L: OUT_CASES["clamp"](L, out=L.zeros(2, dtype=L.int64)),
        lambda L: L.add(T(L, [1.0], rg=True), 1, out=L.zeros(1, dtype=L.float64)),
        lambda L: L.add(T(L, [1.0]), 1, out=L.zeros(1, dtype=L.float64, requires_grad=True)),
        lambda L: L.cat([T(L, [1.0], rg=True), T(L, [1.0])], out=L.zeros(2, dtype=L.float64)),
    ]
    for f in bad:
        same_error(lambda f=f: f(nbgrad), lambda f=f: f(torch))
    # casting results: a float sum into a long out, a float32 result into float64
    same(OUT_CASES["sum"](nbgrad, out=nbgrad.zeros(2, dtype=nbgrad.int64)),
         OUT_CASES["sum"](torch, out=torch.zeros(2, dtype=torch.int64)))  # fmt: skip
    same(nbgrad.exp(nbgrad.ones(2), out=nbgrad.zeros(2, dtype=nbgrad.float64)),
         torch.exp(torch.ones(2), out=torch.zeros(2, dtype=torch.float64)))  # fmt: skip


def test_out_under_no_grad_and_views():
    x = nbgrad.ones(2, requires_grad=True)
    o = nbgrad.zeros(2, requires_grad=True)
    with nbgrad.no_grad():
        nbgrad.add(x, 1, out=o)
    assert o.requires_grad and o.tolist() == [2.0, 2.0] and o._version == 1
    base = nbgrad.zeros(2, 2)
    nbgrad.mul(nbgrad.ones(2), 3, out=base[:, 1])  # a copied view: the write reaches base
    assert base.tolist() == [[0.0, 3.0], [0.0, 3.0]]


# -- legacy constructors -------------------------------------------------------------------
def test_legacy_tensor_constructor():
    cases = [
        lambda L: L.Tensor([1, 2]),
        lambda L: L.Tensor([[1.5], [2]]),
        lambda L: L.Tensor(2, 3).zero_(),
        lambda L: L.Tensor(L.Size([2])).zero_(),
        lambda L: L.Tensor(),
        lambda L: L.Tensor([]),
        lambda L: L.Tensor((2, 3)),
        lambda L: L.Tensor(np.arange(3.0)),
        lambda L: L.Tensor(L.tensor([1, 2])),
        lambda L: L.FloatTensor(2).zero_(),
        lambda L: L.FloatTensor([1, 2]),
        lambda L: L.DoubleTensor([1, 2]),
        lambda L: L.LongTensor([1.5, 2]),
        lambda L: L.BoolTensor([1, 0]),
    ]
    for f in cases:
        same(f(nbgrad), f(torch))
    x = nbgrad.ones(2)
    assert np.shares_memory(nbgrad.Tensor(x).numpy(), x.numpy())
    assert nbgrad.Tensor(nbgrad.ones(2, requires_grad=True)).requires_grad
    assert isinstance(nbgrad.Tensor([1]), nbgrad.Tensor)
    bad = [
        lambda L: L.Tensor(2.5),
        lambda L: L.Tensor(True),
        lambda L: L.Tensor("a"),
        lambda L: L.Tensor(2, 3.0),
        lambda L: L.Tensor(-1),
        lambda L: L.FloatTensor(L.tensor([1, 2])),
    ]
    for f in bad:
        same_error(lambda f=f: f(nbgrad), lambda f=f: f(torch))


# -- CUDA tensors (Numba's simulator where there is no GPU) -------------------------------
def test_cuda_composites_and_refusals():
    if not nbgrad.cuda.is_available():
        pytest.skip("no CUDA device or simulator")
    x = nbgrad.tensor([1.5, -2.0, 0.25], device="cuda", requires_grad=True)
    e = nbgrad.tensor([3.0, 1.0, -1.0], device="cuda", requires_grad=True)
    y = x.lerp(e, 0.75) + x.addcmul(e, e, value=0.5) + nbgrad.addcdiv(x, e, e + 3)
    y.sum().backward()
    xc, ec = (v.detach().cpu().requires_grad_() for v in (x, e))
    yc = xc.lerp(ec, 0.75) + xc.addcmul(ec, ec, value=0.5) + nbgrad.addcdiv(xc, ec, ec + 3)
    yc.sum().backward()
    np.testing.assert_allclose(y.detach().cpu().numpy(), yc.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(e.grad.cpu().numpy(), ec.grad.numpy(), rtol=1e-6)
    o = nbgrad.zeros(5, device="cuda")
    with pytest.warns(UserWarning, match="was resized"):
        assert nbgrad.add(x.detach(), 1, out=o) is o
    assert o.is_cuda and o.tolist() == [2.5, -1.0, 1.25]
    assert x.new_zeros(2).is_cuda and x.new_tensor([1]).dtype is nbgrad.float32
    for f in (lambda: x.detach().isnan(), lambda: x.detach() % 2, lambda: x.detach().remainder_(2)):
        with pytest.raises(NotImplementedError, match="has no CUDA kernel yet"):
            f()
    # host-only functions name the function called, not one of nbgrad's helpers
    for name, f in [
        ("median", lambda: nbgrad.median(x)),
        ("nanmedian", lambda: x.nanmedian()),
        ("quantile", lambda: nbgrad.quantile(x, 0.5)),
        ("nanquantile", lambda: nbgrad.nanquantile(x, 0.5, dim=0)),
    ]:
        with pytest.raises(NotImplementedError, match=f"'{name}' has no CUDA kernel yet"):
            f()


@pytest.mark.parametrize(
    "name",
    "div floor_divide remainder fmod isnan isinf isposinf isneginf isfinite nan_to_num any all "
    "lerp addcmul addcdiv".split(),
)
def test_docstring_examples_run(name):
    import doctest

    doc = getattr(nbgrad, name).__doc__
    assert len(doc.strip().splitlines()[0]) > 20 and "Example::" in doc
    test = doctest.DocTestParser().get_doctest(doc, {"torch": nbgrad}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0
