"""Overwriting a tensor that is in a graph (`fill_`, `zero_`, `copy_`, through a view or
not) gives the same values and gradients on a CUDA tensor as on the CPU and in PyTorch:
the overwritten elements pass no gradient to the old history. Expected gradients are
worked out by hand below (x enters as y = 2x, the loss is sum(3y)), checked against
PyTorch where it is installed. Runs on a GPU when present, else on Numba's CUDA simulator
(tests/conftest.py)."""

import numpy as np
import pytest

import nbgrad as nb

pytestmark = pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")

# name: (the write, d loss / d x, d loss / d src or None)
CASES = {
    "fill_": (lambda y, s: y.fill_(1.0), [0.0, 0.0, 0.0], None),
    "zero_": (lambda y, s: y.zero_(), [0.0, 0.0, 0.0], None),
    "fill_ tensor value": (lambda y, s: y.fill_(s[0].detach()), [0.0, 0.0, 0.0], None),
    "copy_ constant": (lambda y, s: y.copy_(s.detach()), [0.0, 0.0, 0.0], None),
    "copy_ in graph": (lambda y, s: y.copy_(s), [0.0, 0.0, 0.0], [3.0, 3.0, 3.0]),
    "copy_ broadcast": (lambda y, s: y.copy_(s[1].detach()), [0.0, 0.0, 0.0], None),
    "view fill_": (lambda y, s: y[0].fill_(1.0), [0.0, 6.0, 6.0], None),
    "view copy_": (lambda y, s: y[1:].copy_(s[1:]), [6.0, 0.0, 0.0], [0.0, 3.0, 3.0]),
}


def _run(name, device):
    write, _, _ = CASES[name]
    x = nb.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    src = nb.tensor([5.0, 6.0, 7.0], device=device, requires_grad=True)
    y = x * 2
    write(y, src)
    assert y.requires_grad and y.grad_fn is not None
    (y * 3).sum().backward()
    return y.detach().cpu().numpy(), x.grad.cpu().numpy(), src.grad


@pytest.mark.parametrize("name", list(CASES))
def test_an_overwrite_cuts_the_old_history_on_cuda(name):
    _, gx, gsrc = CASES[name]
    cpu_y, cpu_gx, cpu_gsrc = _run(name, "cpu")
    y, got_gx, got_gsrc = _run(name, "cuda")
    np.testing.assert_array_equal(y, cpu_y)
    np.testing.assert_array_equal(got_gx, gx)
    np.testing.assert_array_equal(cpu_gx, gx)
    if gsrc is None:
        assert got_gsrc is None and cpu_gsrc is None
    else:
        np.testing.assert_array_equal(got_gsrc.cpu().numpy(), gsrc)
        np.testing.assert_array_equal(cpu_gsrc.numpy(), gsrc)


@pytest.mark.parametrize("name", list(CASES))
def test_the_expected_gradients_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    write, gx, gsrc = CASES[name]
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    src = torch.tensor([5.0, 6.0, 7.0], requires_grad=True)
    y = x * 2
    write(y, src)
    (y * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), gx)
    if gsrc is None:
        assert src.grad is None
    else:
        np.testing.assert_array_equal(src.grad.numpy(), gsrc)


# -- every in-place method a CUDA tensor has: the same values (and gradients, through a
# tensor in a graph) as on the CPU and in PyTorch ------------------------------------------
X = np.linspace(0.15, 0.85, 12).reshape(3, 4)
O = np.linspace(0.9, 0.2, 12).reshape(3, 4)
W = np.arange(1.0, 13.0).reshape(3, 4)  # the loss's weights: every element counts differently
UNARY = (
    "abs_ acos_ arccos_ arcsin_ arctan_ asin_ atan_ ceil_ cos_ cosh_ digamma_ erf_ exp2_ exp_ "
    "expm1_ floor_ lgamma_ log10_ log1p_ log2_ log_ neg_ negative_ reciprocal_ relu_ round_ "
    "rsqrt_ sigmoid_ sign_ sin_ sinh_ sqrt_ square_ tan_ tanh_ zero_"
).split()
WITH_OTHER = (
    "add_ sub_ mul_ div_ pow_ atan2_ arctan2_ divide_ multiply_ subtract_ true_divide_"
).split()


def _args(name, lib, device):
    def t(a, **kw):
        return lib.tensor(a, device=device, **kw) if device else lib.tensor(a, **kw)

    other = {n: lambda: (t(O),) for n in WITH_OTHER}
    return {
        **other,
        "clamp_": lambda: (0.3, 0.7),
        "clip_": lambda: (0.3, 0.7),
        "clamp_min_": lambda: (0.4,),
        "clamp_max_": lambda: (0.6,),
        "addcmul_": lambda: (t(O), t(W)),
        "addcdiv_": lambda: (t(W), t(O)),
        "lerp_": lambda: (t(O), 0.3),
        "masked_fill_": lambda: (t(X > 0.5), -1.0),
        "index_add_": lambda: (0, t([2, 0]), t(O[:2])),
        "index_put_": lambda: ((t([2, 0]),), t(O[:2])),
        "scatter_add_": lambda: (0, t([[1, 0, 2, 1]]), t(O[:1])),
    }.get(name, lambda: ())()


INPLACE = UNARY + WITH_OTHER + [
    "clamp_", "clip_", "clamp_min_", "clamp_max_", "addcmul_", "addcdiv_", "lerp_",
    "masked_fill_", "index_add_", "index_put_", "scatter_add_",
]  # fmt: skip


def _apply(lib, name, device, graph):
    x = lib.tensor(X, requires_grad=graph, **({"device": device} if device else {}))
    y = x * 1.0 if graph else x.clone()
    getattr(y, name)(*_args(name, lib, device))
    grad = None
    if graph:
        (y * lib.tensor(W).to(y.device)).sum().backward()
        grad = x.grad
    return y, grad


def _np(t):
    return t.detach().cpu().numpy()


# the methods with no CUDA kernel (a CUDA tensor has every Tensor method: these say so, by
# the op's name, from the host code they reach; nothing is computed on the host)
NO_KERNEL = {
    "isnan": (), "isinf": (), "isfinite": (), "isposinf": (), "isneginf": (), "all": (),
    "any": (), "median": (), "nanmedian": (), "quantile": (0.5,), "nanquantile": (0.5,),
    "nan_to_num": (), "nan_to_num_": (), "remainder": (2.0,), "remainder_": (2.0,),
    "fmod": (2.0,), "fmod_": (2.0,), "floor_divide": (2.0,), "floor_divide_": (2.0,),
    "__mod__": (2.0,), "__floordiv__": (2.0,),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(NO_KERNEL))
def test_methods_without_a_cuda_kernel_name_their_op(name):
    op = name.strip("_")
    op = {"mod": "remainder", "floordiv": "floor_divide"}.get(op, op)
    x = nb.tensor(X, device="cuda")
    with pytest.raises(NotImplementedError, match=f"'{op}' has no CUDA kernel yet"):
        getattr(x, name)(*NO_KERNEL[name])
    assert x.tolist() == X.tolist()  # (an in-place one wrote nothing)


def test_a_device_buffer_refuses_host_code():
    """What stops a CPU path that meets a CUDA tensor, whatever it tries."""
    d = nb.tensor(X, device="cuda")._data
    for f in (np.asarray, len, float, lambda a: a + 1, lambda a: 2 * a, lambda a: a[0],
              lambda a: -a, lambda a: a @ a, lambda a: a < 1, lambda a: a.strides):  # fmt: skip
        with pytest.raises(NotImplementedError, match="has no CUDA kernel yet"):
            f(d)


def test_other_methods_work_on_cuda_tensors():
    """Methods that once were refused on CUDA by name: they run Tensor's code."""
    x = nb.tensor(X, device="cuda")
    nb.manual_seed(0)
    u = nb.empty(20000, device="cuda").uniform_(2, 3)
    n = nb.empty(20000, device="cuda", dtype=nb.float64).normal_(1, 2)
    e = nb.empty(20000, device="cuda").exponential_(2.0)
    b = nb.empty(20000, device="cuda").bernoulli_(0.25)
    r = nb.empty(2000, device="cuda", dtype=nb.int64).random_(0, 5)
    assert all(t.is_cuda for t in (u, n, e, b, r)) and n.dtype == nb.float64
    assert 2 <= float(u.min()) and float(u.max()) < 3
    assert abs(float(n.mean()) - 1) < 0.1 and abs(float(n.std()) - 2) < 0.1
    assert abs(float(e.mean()) - 0.5) < 0.05 and abs(float(b.mean()) - 0.25) < 0.02
    assert sorted(set(r.tolist())) == [0, 1, 2, 3, 4]
    idx = nb.tensor([2, 0], device="cuda")
    y = x.index_fill(0, idx, -1.0)
    assert y.is_cuda and y.tolist() == nb.tensor(X).index_fill(0, nb.tensor([2, 0]), -1.0).tolist()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x.index_fill(0, nb.tensor([0]), 1.0)
    seen = []
    w = nb.ones(3, device="cuda", requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (w * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0]]
    # float16/bfloat16 are CPU storage types: never a float32 tensor under their name
    for f in (x.half, x.bfloat16, lambda: x.to(nb.float16), lambda: nb.ones(2).to("cuda", nb.half)):
        with pytest.raises(TypeError, match="tensors live on the CPU"):
            f()


@pytest.mark.parametrize("name", INPLACE)
def test_in_place_methods_match_the_cpu(name):
    for graph in (False, True):
        cpu, gcpu = _apply(nb, name, None, graph)
        gpu, ggpu = _apply(nb, name, "cuda", graph)
        assert gpu.is_cuda and gpu.dtype == cpu.dtype and gpu.shape == cpu.shape
        np.testing.assert_allclose(_np(gpu), _np(cpu), rtol=1e-6, atol=1e-7)
        if graph:
            np.testing.assert_allclose(_np(ggpu), _np(gcpu), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", INPLACE)
def test_in_place_methods_match_pytorch(name):
    torch = pytest.importorskip("torch")
    for graph in (False, True):
        ours, gours = _apply(nb, name, None, graph)
        ref, gref = _apply(torch, name, None, graph)
        np.testing.assert_allclose(_np(ours), _np(ref), rtol=1e-6, atol=1e-7)
        if graph:
            np.testing.assert_allclose(_np(gours), _np(gref), rtol=1e-6, atol=1e-7)
