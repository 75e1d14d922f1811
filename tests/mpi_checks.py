"""Checks run on every rank of `mpiexec -n N python tests/mpi_checks.py` (launched by
tests/test_distributed.py): each collective against NumPy (on CPU tensors, and on CUDA tensors
where nbgrad.cuda is available, the simulator included), DistributedDataParallel training,
eager and under nbgrad.compile, against one process training on the full batch,
DistributedSampler shares. Prints "MPI CHECKS
PASSED" on rank 0 when every check passed on every rank."""

import sys

import numpy as np

import nbgrad as torch
import nbgrad.distributed as dist
from nbgrad.nn.parallel import DistributedDataParallel as DDP
from nbgrad.utils.data import DistributedSampler

dist.init_process_group("mpi")
R, N = dist.get_rank(), dist.get_world_size()
assert dist.is_initialized() and dist.is_available() and N >= 2


def data(rank, shape, dtype, k=0):
    """Rank `rank`'s input, computable on any rank."""
    rng = np.random.default_rng(100 * rank + k)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-5, 6, shape).astype(dtype)
    return rng.uniform(0.5, 1.5, shape).astype(dtype)


def every(shape, dtype, k=0):
    return np.stack([data(r, shape, dtype, k) for r in range(N)])


def t(a):
    return torch.from_numpy(np.ascontiguousarray(a).copy())


def close(got, want, what):
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, err_msg=what)


# -- all_reduce: every op, dtypes, sync and async, counts a write --------------------------------
OPS = {"SUM": np.sum, "AVG": np.mean, "MAX": np.max, "MIN": np.min, "PRODUCT": np.prod}
for dt in (np.float32, np.float64, np.int64):
    for name, f in OPS.items():
        if name == "AVG" and dt is np.int64:
            continue
        for async_op in (False, True):
            x = t(data(R, (3, 5), dt))
            v = x._version
            w = dist.all_reduce(x, op=getattr(dist.ReduceOp, name), async_op=async_op)
            if async_op:
                assert w.wait() and w.is_completed()
            else:
                assert w is None
            close(x, f(every((3, 5), dt), axis=0).astype(dt), f"all_reduce {name} {dt}")
            assert x._version == v + 1
# a collective's write is an in-place write: a value saved for backward then fails as in PyTorch
a = torch.ones(4, dtype=torch.float64, requires_grad=True)
y = a.exp()
dist.all_reduce(y)
try:
    y.sum().backward()
except RuntimeError as e:
    assert "modified by an inplace operation" in str(e)
else:
    raise AssertionError("backward through a value all_reduce wrote did not raise")

# -- broadcast, reduce, all_gather(_into_tensor), reduce_scatter_tensor, gather, scatter --------
for src in range(N):
    x = t(data(R, (4,), np.float64))
    dist.broadcast(x, src=src)
    close(x, data(src, (4,), np.float64), "broadcast")
    x = t(data(R, (2, 3), np.float32))
    dist.reduce(x, dst=src, op=dist.ReduceOp.SUM)
    close(x, every((2, 3), np.float32).sum(0) if R == src else data(R, (2, 3), np.float32),
          "reduce")  # fmt: skip
outs = [torch.zeros(2, 3) for _ in range(N)]
dist.all_gather(outs, t(data(R, (2, 3), np.float32)))
for r in range(N):
    close(outs[r], data(r, (2, 3), np.float32), "all_gather")
cat = torch.zeros(2 * N, 3)
dist.all_gather_into_tensor(cat, t(data(R, (2, 3), np.float32)))
close(cat, every((2, 3), np.float32).reshape(2 * N, 3), "all_gather_into_tensor (cat)")
stk = torch.zeros(N, 2, 3)
dist.all_gather_into_tensor(stk, t(data(R, (2, 3), np.float32)), async_op=True).wait()
close(stk, every((2, 3), np.float32), "all_gather_into_tensor (stack)")
for name in ("SUM", "AVG", "MAX"):
    out = torch.zeros(2, 3, dtype=torch.float64)
    dist.reduce_scatter_tensor(out, t(data(R, (2 * N, 3), np.float64)),
                               op=getattr(dist.ReduceOp, name))  # fmt: skip
    full = OPS[name](every((2 * N, 3), np.float64), axis=0)
    close(out, full[2 * R : 2 * R + 2], f"reduce_scatter_tensor {name}")
for dst in range(N):
    gl = [torch.zeros(3, dtype=torch.int64) for _ in range(N)] if R == dst else None
    dist.gather(t(data(R, (3,), np.int64)), gl, dst=dst)
    if R == dst:
        for r in range(N):
            close(gl[r], data(r, (3,), np.int64), "gather")
    x = torch.zeros(3)
    sl = [t(data(r, (3,), np.float32, k=dst)) for r in range(N)] if R == dst else None
    dist.scatter(x, sl, src=dst)
    close(x, data(R, (3,), np.float32, k=dst), "scatter")

# -- point to point, objects, barrier -----------------------------------------------------------
nxt, prv = (R + 1) % N, (R - 1) % N
x = torch.zeros(5, dtype=torch.float64)
if R % 2 == 0:
    dist.send(t(data(R, (5,), np.float64)), dst=nxt)
    got = dist.recv(x, src=prv)
else:
    got = dist.recv(x, src=prv)
    dist.send(t(data(R, (5,), np.float64)), dst=nxt)
assert got == prv
close(x, data(prv, (5,), np.float64), "send/recv")
x = torch.zeros(5, dtype=torch.float64)
rq = dist.irecv(x, src=prv)
sq = dist.isend(t(data(R, (5,), np.float64, k=1)), dst=nxt)
sq.wait()
rq.wait()
close(x, data(prv, (5,), np.float64, k=1), "isend/irecv")
try:
    dist.send(torch.zeros(1), dst=R)
except ValueError as e:
    assert "should not be the same as rank of the current process" in str(e)
objs = [{"rank": R}, "s", None] if R == 0 else [None, None, None]
dist.broadcast_object_list(objs, src=0)
assert objs == [{"rank": 0}, "s", None]
gathered = [None] * N
dist.all_gather_object(gathered, ("r", R, [R] * R))
assert gathered == [("r", r, [r] * r) for r in range(N)]
dist.barrier()
assert dist.barrier(async_op=True).wait()

# -- DistributedSampler: the ranks' shares partition the (padded) dataset ------------------------
for shuffle in (False, True):
    s = DistributedSampler(range(11), shuffle=shuffle, seed=3)
    s.set_epoch(2)
    shares = [None] * N
    dist.all_gather_object(shares, list(s))
    flat = [i for sh in shares for i in sh]
    assert len(flat) == len(s) * N and set(flat) == set(range(11)), (shuffle, shares)
    assert all(len(sh) == len(s) for sh in shares)


# -- DistributedDataParallel == one process on the full batch -----------------------------------
def make(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(4, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3)
    ).double()


B = 8 * N
rng = np.random.default_rng(7)
X = torch.from_numpy(rng.standard_normal((B, 4)))
Y = torch.from_numpy(rng.integers(0, 3, B))
mine = slice(R * 8, (R + 1) * 8)
loss_fn = torch.nn.CrossEntropyLoss()

# 0.0005 MB: one bucket per parameter; as_view: gradient_as_bucket_view, grads zeroed in place
for opt_name, cap, as_view in (("SGD", None, False), ("Adam", 0.0005, False),
                               ("SGD", 0.0005, True)):  # fmt: skip
    local = make(seed=R)  # differs per rank: DDP broadcasts rank 0's
    ref = make(seed=0)
    ddp = DDP(local, bucket_cap_mb=cap, gradient_as_bucket_view=as_view)
    assert [k for k in ddp.state_dict()] == ["module." + k for k in ref.state_dict()]
    for p, q in zip(ddp.parameters(), ref.parameters()):
        close(p.detach(), q.detach().numpy(), "DDP broadcast at construction")
    if opt_name == "SGD":
        opt = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
        opt_ref = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    else:
        opt = torch.optim.Adam(ddp.parameters(), lr=0.01)
        opt_ref = torch.optim.Adam(ref.parameters(), lr=0.01)
    for step in range(4):
        opt.zero_grad(set_to_none=not as_view)
        loss_fn(ddp(X[mine]), Y[mine]).backward()
        if as_view:  # each .grad is its part of its bucket's buffer
            for p in local.parameters():
                assert any(p.grad._data is v for b in ddp._buckets for v in b.views)
        opt.step()
        opt_ref.zero_grad(set_to_none=True)
        loss_fn(ref(X), Y).backward()
        opt_ref.step()
        for p, q in zip(local.parameters(), ref.parameters()):
            np.testing.assert_allclose(
                p.detach().numpy(), q.detach().numpy(), rtol=1e-9, atol=1e-12,
                err_msg=f"DDP {opt_name} step {step}",
            )  # fmt: skip

# new gradients are written into the buckets (no copy in or out), and a gradient handed out
# is never written again: the last step's .grad, still held, keeps its values
local = make(seed=R)
seen = []  # a view of a gradient taken by a hook before DDP averages it sees the average
local[0].weight.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.view(-1)))
ddp = DDP(local, bucket_cap_mb=0.0005)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
held = None
for _ in range(3):
    opt.zero_grad(set_to_none=True)
    loss_fn(ddp(X[mine]), Y[mine]).backward()
    views = [v for b in ddp._buckets for v in b.views]
    assert all(any(p.grad._data is v for v in views) for p in local.parameters())
    if held is not None:
        for g, want in held:
            np.testing.assert_array_equal(g.numpy(), want, err_msg="an earlier .grad changed")
    held = [(p.grad, p.grad.numpy().copy()) for p in local.parameters()]
    np.testing.assert_array_equal(seen[-1].numpy(), local[0].weight.grad.numpy().reshape(-1))
    opt.step()

# no_sync: two local micro-batches, then a synchronised one: the average of the summed grads
local = make(seed=R)
ddp = DDP(local)
parts = [slice(R * 8, R * 8 + 3), slice(R * 8 + 3, R * 8 + 5), slice(R * 8 + 5, R * 8 + 8)]
with ddp.no_sync():
    for sl in parts[:2]:
        loss_fn(ddp(X[sl]), Y[sl]).backward()
    before = [p.grad.numpy().copy() for p in local.parameters()]
loss_fn(ddp(X[parts[2]]), Y[parts[2]]).backward()


def local_sums(r, n_parts):
    """Rank r's gradient summed over its first n_parts micro-batches (rank 0's weights)."""
    m = make(seed=0)
    for sl in (slice(r * 8, r * 8 + 3), slice(r * 8 + 3, r * 8 + 5), slice(r * 8 + 5, r * 8 + 8))[
        :n_parts
    ]:
        loss_fn(m(X[sl]), Y[sl]).backward()
    return [p.grad.numpy() for p in m.parameters()]


want = [local_sums(r, 3) for r in range(N)]
for k, p in enumerate(local.parameters()):
    np.testing.assert_allclose(before[k], local_sums(R, 2)[k], rtol=1e-12,
                               err_msg="inside no_sync: local gradients only")  # fmt: skip
    np.testing.assert_allclose(p.grad.numpy(), np.mean([w[k] for w in want], 0), rtol=1e-9,
                               atol=1e-12, err_msg="no_sync accumulation")  # fmt: skip


# find_unused_parameters: a layer only rank 0 uses gets rank 0's gradient / N elsewhere too
class Branchy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.a = torch.nn.Linear(4, 2).double()
        self.b = torch.nn.Linear(4, 2).double()
        self.c = torch.nn.Linear(4, 2).double()  # used by no rank: its grad stays None

    def forward(self, x, use_b):
        return self.a(x) + self.b(x) if use_b else self.a(x)


net = Branchy()
ddp = DDP(net, find_unused_parameters=True)
ddp(X[mine], R == 0).pow(2).sum().backward()
solo = Branchy()
solo(X[0:8], True).pow(2).sum().backward()
close(net.b.weight.grad, solo.b.weight.grad.numpy() / N, "find_unused_parameters")
assert net.c.weight.grad is None
try:
    DDP(Branchy())(X[mine], False).sum().backward()
except RuntimeError as e:
    assert "find_unused_parameters=True" in str(e)
else:
    raise AssertionError("an unused parameter without find_unused_parameters did not raise")


# -- DDP under nbgrad.compile: a compiled step all-reduces exactly as the eager one -------------
def ddp_training(opt_name, compiled):
    local = make(seed=R)
    ddp = DDP(local, bucket_cap_mb=0.0005)  # one bucket per parameter
    if opt_name == "SGD":  # the step a program would fuse, were there no DDP hooks
        opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    else:
        opt = torch.optim.Adam(ddp.parameters(), lr=0.01)

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(ddp(x), y)
        loss.backward()
        opt.step()
        return loss

    run = torch.compile(step, fallback="raise") if compiled else step
    for _ in range(4):
        run(X[mine], Y[mine])
    if compiled:  # traced once, then replayed: no eager fallback
        assert [type(v).__name__ for v in run.programs.values()] == ["_Replay"], run.programs
    return [p.detach().numpy().copy() for p in local.parameters()]


for opt_name in ("SGD", "Adam"):
    ref = make(seed=0)
    opt_ref = (torch.optim.SGD(ref.parameters(), lr=0.1) if opt_name == "SGD"
               else torch.optim.Adam(ref.parameters(), lr=0.01))  # fmt: skip
    for _ in range(4):
        opt_ref.zero_grad(set_to_none=True)
        loss_fn(ref(X), Y).backward()
        opt_ref.step()
    eager, comp = ddp_training(opt_name, False), ddp_training(opt_name, True)
    for e, c, q in zip(eager, comp, ref.parameters()):
        np.testing.assert_allclose(c, e, rtol=1e-12, atol=1e-14,
                                   err_msg=f"compiled DDP != eager DDP ({opt_name})")  # fmt: skip
        np.testing.assert_allclose(c, q.detach().numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=f"compiled DDP != full batch ({opt_name})")  # fmt: skip

# -- CUDA tensors: staged through host copies (on the simulator when there is no GPU) ----------
if torch.cuda.is_available():

    def dev(a):
        return torch.from_numpy(np.ascontiguousarray(a).copy()).cuda()

    for name in ("SUM", "AVG", "MAX"):
        x = dev(data(R, (3, 4), np.float32))
        v = x._version
        w = dist.all_reduce(x, op=getattr(dist.ReduceOp, name), async_op=name == "MAX")
        if w is not None:
            w.wait()
        assert x.is_cuda and x._version == v + 1
        close(x.cpu(), OPS[name](every((3, 4), np.float32), axis=0).astype(np.float32),
              f"CUDA all_reduce {name}")  # fmt: skip
    x = dev(data(R, (5,), np.float64))
    dist.broadcast(x, src=1)
    close(x.cpu(), data(1, (5,), np.float64), "CUDA broadcast")
    outs = [torch.zeros(2, 3, device="cuda") for _ in range(N)]
    dist.all_gather(outs, dev(data(R, (2, 3), np.float32)))
    for r in range(N):
        close(outs[r].cpu(), data(r, (2, 3), np.float32), "CUDA all_gather")
    cat = torch.zeros(2 * N, 3, device="cuda")
    dist.all_gather_into_tensor(cat, dev(data(R, (2, 3), np.float32)))
    close(cat.cpu(), every((2, 3), np.float32).reshape(2 * N, 3), "CUDA all_gather_into_tensor")
    out = torch.zeros(2, 3, dtype=torch.float64, device="cuda")
    dist.reduce_scatter_tensor(out, dev(data(R, (2 * N, 3), np.float64)))
    close(out.cpu(), every((2 * N, 3), np.float64).sum(0)[2 * R : 2 * R + 2],
          "CUDA reduce_scatter_tensor")  # fmt: skip
    x = dev(data(R, (2, 3), np.float32))
    dist.reduce(x, dst=0)
    close(x.cpu(), every((2, 3), np.float32).sum(0) if R == 0 else data(R, (2, 3), np.float32),
          "CUDA reduce")  # fmt: skip
    gl = [torch.zeros(3, device="cuda") for _ in range(N)] if R == 0 else None
    dist.gather(dev(data(R, (3,), np.float32)), gl, dst=0)
    if R == 0:
        for r in range(N):
            close(gl[r].cpu(), data(r, (3,), np.float32), "CUDA gather")
    x = torch.zeros(3, device="cuda")
    sl = [dev(data(r, (3,), np.float32, k=5)) for r in range(N)] if R == 0 else None
    dist.scatter(x, sl, src=0)
    close(x.cpu(), data(R, (3,), np.float32, k=5), "CUDA scatter")
    x = torch.zeros(5, dtype=torch.float64, device="cuda")
    rq = dist.irecv(x, src=prv)
    sq = dist.isend(dev(data(R, (5,), np.float64, k=2)), dst=nxt)
    sq.wait()
    rq.wait()
    close(x.cpu(), data(prv, (5,), np.float64, k=2), "CUDA isend/irecv")
    x = torch.zeros(5, dtype=torch.float64, device="cuda")
    if R % 2 == 0:
        dist.send(dev(data(R, (5,), np.float64, k=3)), dst=nxt)
        dist.recv(x, src=prv)
    else:
        dist.recv(x, src=prv)
        dist.send(dev(data(R, (5,), np.float64, k=3)), dst=nxt)
    close(x.cpu(), data(prv, (5,), np.float64, k=3), "CUDA send/recv")
    if R == 0:
        print("CUDA collectives checked")

dist.barrier()
dist.destroy_process_group()
assert not dist.is_initialized()
if R == 0:
    print("MPI CHECKS PASSED", N)
sys.stdout.flush()
