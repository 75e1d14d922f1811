"""How CUDA kernels are declared and launched (backends/cuda/launch.py), the kernels a real
GPU compiler treats differently from Numba's simulator, and the PTX check itself.

The simulator executes kernels as Python: it types nothing and has no grid limits. So the
tests here pin what it can show (values, exact integers, the grid-stride loops with the
limits lowered, every launch matching its declaration), and one test runs the real CUDA
compiler on kernels that must fail, so the check in CI is known to catch them."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nbgrad as nb
from nbgrad.backends.cuda import launch as L
from nbgrad.backends.cuda import runtime as rt

cuda_only = pytest.mark.skipif(not nb.cuda.is_available(), reason="no GPU and no simulator")


def _cpu_and_cuda(arrays, fn):
    ys = [fn(*[nb.tensor(a, device=d) for a in arrays]) for d in ("cpu", "cuda")]
    return ys[0].numpy(), ys[1].cpu().numpy()


@cuda_only
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_bool_joins(op):
    a = np.array([True, False, True])
    b = np.array([False, False, True])
    c, g = _cpu_and_cuda([a, b], lambda x, y: getattr(nb, op)([x, y]))
    assert g.dtype == np.bool_
    np.testing.assert_array_equal(g, c)


@cuda_only
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_int64_joins_are_exact_above_2_53(op):
    big = 2**62 + 1  # a float64 in between would round it
    a = np.array([big, -big, 2**53 + 1], np.int64)
    b = np.array([3, big - 2, -(2**53) - 1], np.int64)
    c, g = _cpu_and_cuda([a, b], lambda x, y: getattr(nb, op)([x, y]))
    assert g.dtype == np.int64
    np.testing.assert_array_equal(g, c)
    assert g.reshape(-1)[0] == big


@cuda_only
def test_int64_and_bool_index_put():
    x = nb.tensor(np.array([1, 2, 3, 4], np.int64), device="cuda")
    x[nb.tensor([0, 2], device="cuda")] = 2**60 + 3
    assert x.cpu().numpy().tolist() == [2**60 + 3, 2, 2**60 + 3, 4]
    m = nb.zeros(4, dtype=nb.bool, device="cuda")
    m[nb.tensor([1, 3], device="cuda")] = True
    assert m.cpu().numpy().tolist() == [False, True, False, True]
    # accumulation of int64 (atomic, in int64) and of bools (a logical or)
    for dt, v in ((nb.int64, 2**55 + 1), (nb.bool, True)):
        y = nb.zeros(3, dtype=dt, device="cuda")
        idx = nb.tensor([0, 0, 2], device="cuda")
        src = nb.full((3,), v, dtype=dt, device="cuda")
        r = y.index_put((idx,), src, accumulate=True).cpu().numpy()
        ref = nb.zeros(3, dtype=dt).index_put((idx.cpu(),), src.cpu(), accumulate=True).numpy()
        np.testing.assert_array_equal(r, ref)


@cuda_only
@pytest.mark.parametrize(
    "shapes",
    [((5, 9, 3), (5, 3, 6)), ((9, 3), (3, 6)), ((1, 13, 2), (7, 2, 4))],
)
def test_matmul_grid_stride_beyond_the_grid_limit(shapes, monkeypatch):
    """Grid y (row tiles) and z (batches) capped at 2: the kernel's loops cover the rest,
    as they cover products beyond 65,535 row tiles or batches on a GPU."""
    rt.configure()
    monkeypatch.setattr(rt.Launch, "max_grid_yz", 2)
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in shapes]
    cpu = [nb.tensor(a, requires_grad=True) for a in arrays]
    gpu = [nb.tensor(a, device="cuda", requires_grad=True) for a in arrays]
    yc, yg = cpu[0] @ cpu[1], gpu[0] @ gpu[1]
    np.testing.assert_allclose(yg.detach().cpu().numpy(), yc.detach().numpy(), rtol=1e-12)
    g = rng.standard_normal(yc.shape)
    yc.backward(nb.tensor(g))
    yg.backward(nb.tensor(g, device="cuda"))
    for a, b in zip(cpu, gpu):
        np.testing.assert_allclose(b.grad.cpu().numpy(), a.grad.numpy(), rtol=1e-12)


@cuda_only
def test_comparisons_with_a_scalar_of_another_kind():
    """An integer tensor against a float scalar compares as floats, a bool tensor against
    an integer as integers (PyTorch's promotion), not after rounding the scalar."""
    x = np.array([1, 2, 3], np.int64)
    b = np.array([True, False, True])
    for fn in (lambda t: t > 2.5, lambda t: t == 2.0, lambda t: t < 1.5, lambda t: 2.5 < t):
        c, g = _cpu_and_cuda([x], fn)
        np.testing.assert_array_equal(g, c)
    for fn in (lambda t: t == 2, lambda t: t == 1, lambda t: t < 2):
        c, g = _cpu_and_cuda([b], fn)
        np.testing.assert_array_equal(g, c)
    assert (nb.tensor(x, device="cuda") > 2.5).cpu().numpy().tolist() == [False, False, True]


# -- declarations ----------------------------------------------------------------------
def test_declaration_coerces_scalars_to_one_signature():
    d = L.Decl("t.k", "x:T[] acc:b1 scale:A(T) n:i8 c:T", {"T": L.FLOAT})
    x32 = np.zeros(3, np.float32)
    variants = [(x32, 0, 1, 3, 2), (x32, True, 1.0, np.int32(3), 2.0), (x32, 1, 0.5, 3.0, 7)]
    types = {tuple(type(a) for a in d.coerce(v)[0][1:]) for v in variants}
    assert types == {(np.bool_, np.float64, np.int64, np.float32)}
    ints = np.zeros(3, np.int64)
    d2 = L.Decl("t.k2", "x:T[] scale:A(T)", {"T": L.ALL})
    assert type(d2.coerce((ints, 1.0))[0][1]) is np.int64
    sigs = list(d.signatures())
    assert len(sigs) == 2 and sigs[0][2] == (np.dtype(np.float64), False)


def test_declaration_refuses_what_it_does_not_declare():
    d = L.Decl("t.k", "x:T[] y:T[]", {"T": L.FLOAT})
    args, binding = d.coerce((np.zeros(2, np.int64), np.zeros(2, np.int64)))
    with pytest.raises(TypeError, match="T = int64 is not declared"):
        d.check(args, binding)
    args, binding = d.coerce((np.zeros(2), np.zeros(2, np.float32)))
    with pytest.raises(TypeError, match="argument y is a 1-d float32 array; declared 1-d float64"):
        d.check(args, binding)
    args, binding = d.coerce((np.zeros((2, 2)), np.zeros((2, 2))))
    with pytest.raises(TypeError, match="2-d"):
        d.check(args, binding)
    with pytest.raises(TypeError, match="takes 2 arguments, got 1"):
        d.coerce((np.zeros(2),))
    with pytest.raises(ValueError, match="need ranges"):
        L.Decl("t.k", "x:T[] y:U[]", {"T": L.FLOAT})
    with pytest.raises(ValueError, match="bad kernel parameter"):
        L.Decl("t.k", "x:T[][]", {"T": L.FLOAT})


@cuda_only
def test_every_kernel_family_is_declared():
    from nbgrad.backends.cuda import codegen, kernels, optim
    from nbgrad.ops import elementwise as ew

    families = {"kernels": vars(kernels.build()), "ew": vars(codegen.build(ew.UNARY, ew.BINARY))}
    families["optim"] = optim.build()
    assert L.undeclared(families) == []
    n = {fam: sum(1 for name in L.REGISTRY if name.startswith(fam + ".")) for fam in families}
    assert n["kernels"] > 20 and n["ew"] > 150 and n["optim"] == 3, n
    # a kernel made without a declaration is found (device functions are not kernels)
    from numba import cuda

    extra = {"x": cuda.jit(lambda a: None), "f": cuda.jit(device=True)(lambda a: a)}
    assert L.undeclared({"t": extra}) == ["t.x"]


@cuda_only
def test_undeclared_launch_is_refused():
    from numba import cuda

    @cuda.jit
    def k(x):
        pass

    with pytest.raises(AssertionError, match="launched undeclared"):
        L.launch(k, 1, rt.empty((1,), np.float32).flat)


# -- the PTX check ------------------------------------------------------------------------
def _has_nvvm():
    if importlib.util.find_spec("numba_cuda") is None:
        return False
    code = "from numba.cuda.cudadrv import nvvm; nvvm.NVVM(); print('ok')"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return r.stdout.strip() == "ok"


@pytest.mark.skipif(not _has_nvvm(), reason="no NVVM (pip install 'nbgrad[cuda]')")
def test_ptx_check_fails_on_kernels_a_gpu_cannot_compile():
    """The check must fail for what the simulator runs but a GPU's compiler refuses (an
    atomic add on bool, the old scatter's bug) and for a kernel without a declaration."""
    code = textwrap.dedent(
        """
        import io
        from numba import cuda
        from nbgrad.backends.cuda import kernels, launch
        from nbgrad.cuda import ptx_check

        @launch.declare("test.atomic_bool", "d:T[] p:i8[]", T=("bool", "float64"))
        @cuda.jit
        def atomic_bool(d, p):
            cuda.atomic.add(d, p[0], d[1])

        k = kernels.build()
        k.undeclared = cuda.jit(lambda x: None)
        out = io.StringIO()
        compiled, failed = ptx_check.run([(9, 0)], 1, True, ["test."], out)
        print(out.getvalue())
        print("RESULT", compiled, failed)
        """
    )
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert "RESULT 1 2" in r.stdout, r.stdout + r.stderr
    assert "FAILED test.atomic_bool(bool[], int64[])" in r.stdout
    assert "FAILED kernels.undeclared: a CUDA kernel without a declaration" in r.stdout
    assert "ptx: 1 compiled, 2 failed" in r.stdout
