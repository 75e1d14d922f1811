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


def test_the_table_holds_every_in_place_method_cuda_tensors_keep():
    from nbgrad.ops.cuda.tensor import _KEEP

    kept = {n for n in _KEEP if n.endswith("_") and not n.startswith("_")}
    assert kept - {"requires_grad_", "detach_"} == set(INPLACE)


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
