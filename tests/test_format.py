"""nbgrad._format must print tensors exactly as PyTorch's repr does."""

import contextlib

import numpy as np
import pytest

from nbgrad import _format
from nbgrad._format import format_tensor, get_printoptions, printoptions, set_printoptions

DTYPE_NAMES = {np.dtype(n): n for n in ("float32", "float64", "int64", "int32", "bool")}


def fmt(a, suffixes=(), **kw):
    a = np.asarray(a)
    return format_tensor(a, dtype_name=DTYPE_NAMES[a.dtype], suffixes=list(suffixes), **kw)


@pytest.fixture(autouse=True)
def _restore_print_options():
    saved = get_printoptions()
    yield
    set_printoptions(**saved)


# --------------------------------------------------------------------------------------
# torch-free: literal strings captured from torch 2.13.0's repr (torch. -> nbgrad.)

LITERALS = [
    (np.full(4, 20.0, np.float32), [], "tensor([20., 20., 20., 20.])"),
    (
        np.array([1.1010, 1.0576], np.float32),
        ["grad_fn=<MyFuncBackward0>"],
        "tensor([1.1010, 1.0576], grad_fn=<MyFuncBackward0>)",
    ),
    (np.array(3.0, np.float32), [], "tensor(3.)"),
    (
        np.array([[1.0, 2.0], [3.0, 4.0]], np.float32),
        ["requires_grad=True"],
        "tensor([[1., 2.],\n        [3., 4.]], requires_grad=True)",
    ),
    (
        np.array([102.4, 1024.0, 0.1024], np.float32),
        [],
        "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])",
    ),
    (np.array([1.0, 2.0]), [], "tensor([1., 2.], dtype=nbgrad.float64)"),
    (np.zeros((0, 3), np.float32), [], "tensor([], size=(0, 3))"),
    (np.zeros(0, np.int64), [], "tensor([], dtype=nbgrad.int64)"),
    (np.array([True, False]), [], "tensor([ True, False])"),
    (np.array([1, -20, 300]), [], "tensor([  1, -20, 300])"),
    (np.array([1, 2], np.int32), [], "tensor([1, 2], dtype=nbgrad.int32)"),
    (
        np.array([np.inf, -np.inf, np.nan, -0.0, 1.5], np.float32),
        [],
        "tensor([   inf,   -inf,    nan, -0.0000, 1.5000])",
    ),
    (
        np.arange(1200, dtype=np.float32),
        [],
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.1970e+03, 1.1980e+03,\n"
        "        1.1990e+03])",
    ),
    (
        np.arange(2000).reshape(20, 100),
        [],
        "tensor([[   0,    1,    2,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  197,  198,  199],\n"
        "        [ 200,  201,  202,  ...,  297,  298,  299],\n"
        "        ...,\n"
        "        [1700, 1701, 1702,  ..., 1797, 1798, 1799],\n"
        "        [1800, 1801, 1802,  ..., 1897, 1898, 1899],\n"
        "        [1900, 1901, 1902,  ..., 1997, 1998, 1999]])",
    ),
    (
        np.arange(30, dtype=np.float32) / np.float32(7),
        [],
        "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
        "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429, 2.2857, 2.4286,\n"
        "        2.5714, 2.7143, 2.8571, 3.0000, 3.1429, 3.2857, 3.4286, 3.5714, 3.7143,\n"
        "        3.8571, 4.0000, 4.1429])",
    ),
    (np.array([1e-5, 1.0], np.float32), [], "tensor([1.0000e-05, 1.0000e+00])"),
    (
        np.array([[3.0, -4.5]]),
        ["grad_fn=<MulBackward0>"],
        "tensor([[ 3.0000, -4.5000]], dtype=nbgrad.float64, grad_fn=<MulBackward0>)",
    ),
    (np.array(-0.0, np.float32), [], "tensor(-0.)"),
    (np.array(np.nan, np.float32), [], "tensor(nan)"),
    (
        np.array([[3.7837e-03, 6.7132e-07, 1.3067e-04, 3.7605e03]]),
        ["requires_grad=True"],
        "tensor([[3.7837e-03, 6.7132e-07, 1.3067e-04, 3.7605e+03]], dtype=nbgrad.float64,\n"
        "       requires_grad=True)",
    ),
]


@pytest.mark.parametrize("a, suffixes, expected", LITERALS)
def test_literal(a, suffixes, expected):
    assert fmt(a, suffixes) == expected


def test_default_dtype_float64_hides_float64_and_shows_float32():
    a64 = np.array([1.0, 2.0])
    a32 = a64.astype(np.float32)
    assert fmt(a64, default_dtype_name="float64") == "tensor([1., 2.])"
    assert fmt(a32, default_dtype_name="float64") == "tensor([1., 2.], dtype=nbgrad.float32)"


def test_empty_bool_and_rank3_empty():
    assert fmt(np.zeros(0, bool)) == "tensor([], dtype=nbgrad.bool)"
    assert fmt(np.zeros((2, 0, 1))) == "tensor([], size=(2, 0, 1), dtype=nbgrad.float64)"


def test_set_printoptions_and_context_manager():
    a = np.array([1.12345], np.float32)
    set_printoptions(precision=2)
    assert fmt(a) == "tensor([1.12])"
    set_printoptions(threshold=5)  # precision kept, sci_mode reset to None
    assert get_printoptions()["precision"] == 2
    assert fmt(np.arange(10)) == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    set_printoptions(profile="default")
    assert fmt(a) == "tensor([1.1235])"
    with printoptions(sci_mode=True, edgeitems=0):
        assert fmt(a) == "tensor([1.1235e+00], size=(1,))"
    assert get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
    assert _format.PRINT_OPTS.sci_mode is None


def test_large_array_is_fast_and_summarised():
    a = np.arange(4_000_000, dtype=np.float64).reshape(2000, 2000)
    s = fmt(a)
    assert s.count("...") == 7  # one in each of the 6 rows shown, plus the row ellipsis line
    assert s.endswith("dtype=nbgrad.float64)")


# --------------------------------------------------------------------------------------
# comparisons with PyTorch itself


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@contextlib.contextmanager
def both_options(torch, **opts):
    """Apply the same print options to torch and to nbgrad._format."""
    saved = torch._tensor_str.get_printoptions()
    torch.set_printoptions(**opts)
    try:
        with printoptions(**opts):
            yield
    finally:
        torch.set_printoptions(**saved)


def torch_repr(torch, a, requires_grad=False):
    t = torch.from_numpy(np.array(a, copy=True, order="C"))  # keeps 0-d arrays 0-d
    if requires_grad:
        t.requires_grad_(True)
    return repr(t).replace("torch.", "nbgrad.")


def random_array(rng):
    nd = int(rng.integers(0, 5))
    if rng.random() < 0.1:  # big enough to be summarised sometimes
        hi = 1400 if nd == 1 else 14
        shape = tuple(int(rng.integers(0, hi)) for _ in range(nd))
    else:
        shape = tuple(int(rng.integers(0, 6)) for _ in range(nd))
    kind = rng.choice(
        ["float32", "float64", "int64", "int32", "bool"], p=[0.4, 0.3, 0.12, 0.08, 0.1]
    )
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind in ("int64", "int32"):
        mag = 10 ** int(rng.integers(0, 12 if kind == "int64" else 9))
        return rng.integers(-mag, mag + 1, size=shape).astype(kind)
    lo, hi = sorted(int(x) for x in rng.integers(-10, 12, size=2))
    a = np.asarray(rng.standard_normal(shape) * 10.0 ** rng.uniform(lo, hi, size=shape))
    r = rng.random()
    if r < 0.25:
        a = np.round(a)  # int mode
    elif r < 0.35:
        a = np.round(a, int(rng.integers(0, 4)))
    if a.size and rng.random() < 0.2:
        flat = a.reshape(-1)
        for v in (np.nan, np.inf, -np.inf, 0.0, -0.0):
            if rng.random() < 0.4:
                flat[rng.integers(0, a.size)] = v
    if rng.random() < 0.05:
        a = np.full(shape, rng.choice([0.0, -0.0, np.nan, np.inf, 5.0, 1e-5]))
    return a.astype(kind)


@pytest.mark.parametrize("seed", range(4))
def test_random_arrays_match_torch(torch, seed):
    rng = np.random.default_rng(seed)
    for _ in range(200):
        a = random_array(rng)
        requires_grad = a.dtype.kind == "f" and rng.random() < 0.3
        suffixes = ["requires_grad=True"] if requires_grad else []
        assert fmt(a, suffixes) == torch_repr(torch, a, requires_grad), (a.dtype, a.shape)


@pytest.mark.parametrize("seed", range(2))
def test_random_arrays_with_print_options_match_torch(torch, seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(100):
        a = random_array(rng)
        opts = dict(
            precision=int(rng.integers(0, 8)),
            threshold=int(rng.choice([0, 5, 50, 1000])),
            edgeitems=int(rng.integers(0, 5)),
            linewidth=int(rng.integers(10, 150)),
            sci_mode=[None, True, False][int(rng.integers(0, 3))],
        )
        with both_options(torch, **opts):
            assert fmt(a) == torch_repr(torch, a), (a.dtype, a.shape, opts)


EDGE_CASES = [
    np.array([1e-300, 1e300]),
    np.array([5e-324, 1.0]),
    np.array([1e20, -3e25], np.float32),
    np.array([1e38, 1e-38], np.float32),
    np.array(np.nan),
    np.array(-np.inf, np.float32),
    np.array(-0.0),
    np.array([np.nan, np.inf]),
    np.array([0.0, -0.0]),
    np.array([123456789.0]),
    np.array([99999.99995]),
    np.array([9.99995, 1.0]),
    np.array([0.00009999]),
    np.array([1000.0, 1.0]),
    np.array([1001.0, 1.0]),
    np.array([1000.5, 1.0]),
    np.array([1e8]),
    np.array([1.00000001e8]),
    np.array([1e-4]),
    np.arange(5000, dtype=np.float32).reshape(10, 500),
    np.arange(3000).reshape(10, 10, 30),
    np.ones((2, 3, 4, 5, 6, 2)),
    np.zeros((0,), np.int64),
    np.zeros((0,), bool),
    np.zeros((3, 0), np.int32),
    np.zeros((0,), np.float32),
    np.zeros((2, 0, 1)),
    np.array(True),
    np.array([[True, False]]),
    np.array(2**62, np.int64),
    np.array([-(2**63), 2**63 - 1]),
    np.random.default_rng(0).standard_normal((40, 40, 3)),
    np.arange(100.0),
    np.linspace(-1, 1, 70),
    np.array(3.0, np.float32),
]

OPTION_SETS = [
    {},
    {"threshold": float("inf")},
    {"edgeitems": 0},
    {"edgeitems": 0, "threshold": 5},
    {"linewidth": 5},
    {"precision": 10},
    {"sci_mode": True},
    {"sci_mode": False},
    {"threshold": 0, "edgeitems": 1},
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=repr)
def test_edge_cases_match_torch(torch, opts):
    with both_options(torch, **opts):
        for a in EDGE_CASES:
            assert fmt(a) == torch_repr(torch, a), (a.dtype, a.shape)
            if a.dtype.kind == "f":
                t = torch.from_numpy(a.copy()).requires_grad_(True) * 1
                expected = repr(t).replace("torch.", "nbgrad.")
                assert fmt(a, ["grad_fn=<MulBackward0>"]) == expected, (a.dtype, a.shape)


def test_default_dtype_float64_matches_torch(torch):
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        for a in EDGE_CASES:
            got = fmt(a, default_dtype_name="float64")
            assert got == torch_repr(torch, a), (a.dtype, a.shape)
    finally:
        torch.set_default_dtype(old)
