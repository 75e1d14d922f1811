"""nbgrad.distributed, DistributedDataParallel and the post-accumulate-grad hooks.

The collectives (CPU and CUDA tensors) and DDP (eager and compiled) run under
`mpiexec -n 2` (tests/mpi_checks.py, one launch that checks everything against NumPy and
single-process training); they skip without mpi4py or an mpiexec. A world of one, CUDA
staging there, the hooks (eager and replayed by compiled steps) and the Dask sweep are
tested in this process."""

import gc
import os
import shutil
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import nbgrad
import nbgrad.distributed as dist

HERE = Path(__file__).resolve().parent


def _mpiexec():
    pytest.importorskip("mpi4py")
    exe = shutil.which("mpiexec")
    if exe is None:
        pytest.skip("no mpiexec on PATH")
    return exe


def _launch(script, *args):
    """`mpiexec -n 2 python script args` on this machine; its completed process."""
    exe = _mpiexec()
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    # Open MPI refuses more ranks than cores unless told; oversubscribed, its ranks yield
    # the CPU while they wait (milliseconds per collective on a busy machine): only then
    extra = ["--oversubscribe"] if "Open MPI" in version and (os.cpu_count() or 1) < 2 else []
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PYTHONPATH=os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]),
               OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")  # fmt: skip
    try:
        return subprocess.run(
            [exe, "-n", "2", *extra, sys.executable, str(script), *args],
            capture_output=True, text=True, timeout=600, env=env, cwd=str(Path(script).parent),
        )  # fmt: skip
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"mpiexec -n 2 timed out:\n{e.stdout}\n{e.stderr}")


def test_collectives_and_ddp_on_two_ranks():
    r = _launch(HERE / "mpi_checks.py")
    assert r.returncode == 0 and "MPI CHECKS PASSED 2" in r.stdout, r.stdout + r.stderr


def test_train_digits_ddp_example():
    pytest.importorskip("sklearn")
    r = _launch(HERE.parent / "examples" / "train_digits_ddp.py", "--quick")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 rank(s): test accuracy" in r.stdout and "identical on every rank" in r.stdout
    acc = float(r.stdout.split("test accuracy ")[1].split("%")[0])
    assert acc > 80.0, r.stdout


@pytest.fixture
def world_of_one(monkeypatch):
    """init_process_group as a process started without MPI and without mpi4py."""
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    for k in dist._LAUNCHER_SIZE:
        monkeypatch.delenv(k, raising=False)
    dist.init_process_group("mpi")
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def test_world_of_one_without_mpi4py(world_of_one):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "mpi")
    x = nbgrad.tensor([1.0, 2.0, 3.0])
    v = x._version
    for op in ("SUM", "AVG", "MAX", "MIN", "PRODUCT"):
        dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    assert x._version == v + 5
    assert dist.all_reduce(x, async_op=True).wait()
    outs = [nbgrad.zeros(3)]
    dist.all_gather(outs, x)
    np.testing.assert_array_equal(outs[0].numpy(), x.numpy())
    objs = [None]
    dist.all_gather_object(objs, {"a": 1})
    assert objs == [{"a": 1}]
    with pytest.raises(ValueError, match="trying to initialize the default process group twice"):
        dist.init_process_group("mpi")
    model = nbgrad.nn.Linear(3, 2)
    ddp = nbgrad.nn.parallel.DistributedDataParallel(model)
    assert list(ddp.state_dict()) == ["module.weight", "module.bias"]
    ddp(nbgrad.ones(4, 3)).sum().backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), np.full((2, 3), 4.0))


@pytest.mark.skipif(not nbgrad.cuda.is_available(), reason="no GPU and no simulator")
def test_cuda_collectives_world_of_one(world_of_one):
    """CUDA tensors go through host copies and come back to the device, written."""
    x = nbgrad.tensor([1.0, -2.0, 3.0], device="cuda")
    v = x._version
    for op in ("SUM", "AVG", "MAX"):
        dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
    dist.all_reduce(x, async_op=True).wait()
    dist.broadcast(x, src=0)  # (the source's tensor is not written)
    assert x.is_cuda and x._version == v + 4
    np.testing.assert_array_equal(x.cpu().numpy(), [1.0, -2.0, 3.0])
    outs = [nbgrad.zeros(3, device="cuda")]
    dist.all_gather(outs, x)
    cat = nbgrad.zeros(1, 3, device="cuda")
    dist.all_gather_into_tensor(cat, x)
    out = nbgrad.zeros(3, device="cuda")
    dist.reduce_scatter_tensor(out, x * 2)
    got = nbgrad.zeros(3, device="cuda")
    dist.scatter(got, [x + 1], src=0)
    gl = [nbgrad.zeros(3, device="cuda")]
    dist.gather(x - 1, gl, dst=0)
    for t, want in ((outs[0], [1, -2, 3]), (cat[0], [1, -2, 3]), (out, [2, -4, 6]),
                    (got, [2, -1, 4]), (gl[0], [0, -3, 2])):  # fmt: skip
        assert t.is_cuda
        np.testing.assert_array_equal(t.cpu().numpy(), want)
    with pytest.raises(TypeError, match="tensor_list must be a Tensor"):
        dist.all_gather([np.zeros(3)], x)
    with pytest.raises(RuntimeError, match="CUDA parameters|CPU parameters"):
        nbgrad.nn.parallel.DistributedDataParallel(nbgrad.nn.Linear(3, 2).cuda())


def test_compiled_step_replays_post_accumulate_grad_hooks():
    """A compiled training step runs the hooks (and the callbacks they queue) on every
    replay, as eager backward() does; PyTorch's eager run is the reference."""
    torch = pytest.importorskip("torch")
    from nbgrad.autograd.hooks import queue_callback

    def run(lib, compiled):
        w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=lib.float64, requires_grad=True)
        log = []

        def hook(t):
            log.append(t.grad.sum().item())
            t.grad.mul_(0.5)  # the step must see what the hook made of the gradient
            if lib is nbgrad:
                queue_callback(lambda: log.append("final"))

        w.register_post_accumulate_grad_hook(hook)
        opt = lib.optim.SGD([w], lr=0.1)

        def step(x):
            opt.zero_grad()
            (x @ w).tanh().sum().backward()
            opt.step()

        f = nbgrad.compile(step, fallback="raise") if compiled else step
        for k in range(3):
            f(lib.tensor([[1.0, 2.0 + k]], dtype=lib.float64))
        return w.detach().numpy(), [v for v in log if v != "final"], log.count("final")

    tw, tlog, _ = run(torch, False)
    for compiled in (False, True):
        w, log, finals = run(nbgrad, compiled)
        np.testing.assert_allclose(w, tw, rtol=1e-12)
        np.testing.assert_allclose(log, tlog, rtol=1e-12)
        assert finals == 3


def test_compiled_ddp_world_of_one(world_of_one):
    """A compiled DDP step is traced once and replayed; its parameters follow the eager
    DDP step and the plain model's."""
    from nbgrad.nn.parallel import DistributedDataParallel as DDP

    rng = np.random.default_rng(0)
    x = nbgrad.from_numpy(rng.standard_normal((8, 4)))
    y = nbgrad.from_numpy(rng.integers(0, 3, 8))

    def train(wrap, compiled):
        nbgrad.manual_seed(0)
        model = nbgrad.nn.Sequential(nbgrad.nn.Linear(4, 5), nbgrad.nn.Tanh(),
                                     nbgrad.nn.Linear(5, 3)).double()  # fmt: skip
        net = DDP(model) if wrap else model
        opt = nbgrad.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            loss = nbgrad.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            return loss

        f = nbgrad.compile(step, fallback="raise") if compiled else step
        losses = [f(x, y).item() for _ in range(4)]
        if compiled:
            assert [type(v).__name__ for v in f.programs.values()] == ["_Replay"]
        return losses, [p.detach().numpy() for p in model.parameters()]

    plain = train(False, False)
    for wrap, compiled in ((True, False), (True, True)):
        losses, params = train(wrap, compiled)
        np.testing.assert_allclose(losses, plain[0], rtol=1e-12)
        for p, q in zip(params, plain[1]):
            np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-15)


def _ddp_steps_into_buckets(compiled, x):
    """DDP steps: each new .grad is its bucket's view, earlier ones still held keep their
    values, and buffers are reused once nothing holds them. The parameters' ids."""
    from nbgrad.nn.parallel import DistributedDataParallel as DDP

    model = nbgrad.nn.Sequential(nbgrad.nn.Linear(4, 5), nbgrad.nn.Tanh(),
                                 nbgrad.nn.Linear(5, 3)).double()  # fmt: skip
    ddp = DDP(model, bucket_cap_mb=0.0001)  # (several buckets)
    opt = nbgrad.optim.SGD(ddp.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        ddp(x).pow(2).sum().backward()
        opt.step()

    f = nbgrad.compile(step, fallback="raise") if compiled else step
    held = []
    for _ in range(3):
        f(x)
        views = [v for b in ddp._buckets for v in b.views]
        assert len(ddp._buckets) > 1
        assert all(any(p.grad._data is v for v in views) for p in model.parameters())
        for g, want in held:
            np.testing.assert_array_equal(g.numpy(), want)
        held += [(p.grad, p.grad.numpy().copy()) for p in model.parameters()]
    # nothing holds the gradients any more: the next steps write into the same buffers
    del held, views, g
    flats = [b.flat for b in ddp._buckets]
    for _ in range(2):
        f(x)
        assert all(b.flat is a for b, a in zip(ddp._buckets, flats))
    return [id(p) for p in model.parameters()]


def test_ddp_gradients_are_written_into_its_buckets(world_of_one):
    """A new .grad is written by the pass into its bucket (eager and compiled): no copy
    before the all-reduce; a .grad handed out is never written again by a later step."""
    from nbgrad.autograd import hooks

    x = nbgrad.from_numpy(np.random.default_rng(0).standard_normal((8, 4)))
    for compiled in (False, True):
        ids = _ddp_steps_into_buckets(compiled, x)
        gc.collect()
        assert not any(i in hooks.GRAD_STORAGE for i in ids)  # gone with the parameters


def test_grad_storage_of_another_shape_is_refused():
    """A gradient storage the sweep would write out of bounds is refused before any
    kernel runs; the leaf's .grad is left as it was."""
    from nbgrad.autograd import hooks

    w = nbgrad.ones(3, requires_grad=True)
    hooks.GRAD_STORAGE[id(w)] = lambda t: np.empty(2)
    try:
        with pytest.raises(RuntimeError, match="gradient storage"):
            (w * 2).sum().backward()
        assert w.grad is None
    finally:
        del hooks.GRAD_STORAGE[id(w)]
    (w * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_launched_without_mpi4py_refuses(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    with pytest.raises(RuntimeError, match="mpi4py is not installed"):
        dist.init_process_group("mpi")
    assert not dist.is_initialized()


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    for f in (dist.get_rank, dist.get_world_size):
        with pytest.raises(ValueError) as ne:
            f()
        with pytest.raises(ValueError) as te:
            getattr(torch.distributed, f.__name__)()
        assert str(ne.value) == str(te.value)
    with pytest.raises(ValueError, match="'mpi' backend only"):
        dist.init_process_group("nccl")
    assert {op.name for op in dist.ReduceOp} <= set(
        torch.distributed.ReduceOp.RedOpType.__members__
    )
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        nbgrad.nn.parallel.DistributedDataParallel(nbgrad.nn.Linear(2, 2))


def test_post_accumulate_grad_hook_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        unused = lib.zeros(2, dtype=lib.float64, requires_grad=True)
        seen = []
        hx = x.register_post_accumulate_grad_hook(lambda t: seen.append(("x", t.grad.tolist())))
        w.register_post_accumulate_grad_hook(lambda t: seen.append(("w", t.grad.tolist())))
        unused.register_post_accumulate_grad_hook(lambda t: seen.append(("u", None)))
        (x * w).sum().backward()
        (x * x).sum().backward()  # only x accumulates
        lib.autograd.grad((x * w).sum(), [x])  # autograd.grad accumulates nothing
        hx.remove()
        (x * w).sum().backward()
        for bad in (x * 2, lib.ones(2)):
            try:
                bad.register_post_accumulate_grad_hook(lambda t: None)
            except RuntimeError as e:
                seen.append(str(e))
        return seen

    assert sorted(map(str, run(nbgrad))) == sorted(map(str, run(torch)))


def _hooked_cycle():
    """A leaf whose hook refers to it (a cycle through the hook); a weak reference to it."""
    box = [nbgrad.ones(2, requires_grad=True)]
    box[0].register_post_accumulate_grad_hook(lambda t: box)
    return weakref.ref(box[0])


def test_hooks_cost_nothing_without_hooks_and_callbacks():
    from nbgrad.autograd import hooks

    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during"):
        hooks.queue_callback(lambda: None)
    x = nbgrad.ones(3, requires_grad=True)
    order = []
    h = x.register_post_accumulate_grad_hook(
        lambda t: (order.append("hook"), hooks.queue_callback(lambda: order.append("final")))
    )
    (x * 2).sum().backward()
    assert order == ["hook", "final"]
    h.remove()
    gc.collect()  # (tensors of earlier tests whose hooks referred to them are freed)
    assert not hooks.POST  # no hooks left: backward takes the plain path again
    (x * 2).sum().backward()
    assert order == ["hook", "final"]
    ref = _hooked_cycle()
    gc.collect()
    assert ref() is None and not hooks.POST


def test_dask_sweep_equals_plain_loop():
    pytest.importorskip("distributed")
    import importlib.util

    from distributed import Client, LocalCluster

    spec = importlib.util.spec_from_file_location(
        "sweep_dask", HERE.parent / "examples" / "sweep_dask.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    thetas = mod.grid(2000, seed=1)
    n = 64  # observations (the example fits 16,384)
    plain = mod.batch_gradients(thetas, n)  # the compiled func.grad, in a plain loop
    assert [type(v).__name__ for v in mod.gradient.programs.values()] == ["_Replay"]
    t, y = nbgrad.from_numpy(mod.times(n)), nbgrad.from_numpy(mod.observations(n))
    th = nbgrad.from_numpy(thetas[::50].copy()).requires_grad_()
    a, w, d = th[:, :1], th[:, 1:2], th[:, 2:]  # eager autograd, 40 parameter sets at once
    per_set = ((a * nbgrad.sin(w * t) * nbgrad.exp(-d * t) - y) ** 2).mean(1)
    (closed,) = nbgrad.autograd.grad(per_set.sum(), th)
    np.testing.assert_allclose(plain[::50], closed.numpy(), rtol=1e-10, atol=1e-12)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        out = mod.sweep(client, thetas, 250, n)
    assert np.array_equal(out, plain)
