"""Numba's thread pool as nbgrad starts it (nbgrad/_threads.py): the layer chosen, the
environment left as found, and forked children that still compute (GNU OpenMP is not
fork-safe). Each case runs in a fresh interpreter, since the layer is chosen once per
process."""

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code, **env):
    e = dict(os.environ)
    e.pop("NUMBA_THREADING_LAYER", None)
    e.pop("GOMP_SPINCOUNT", None)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e.update(env)
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=e,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout.split()


def _omp_available():
    code = "import numba.np.ufunc.omppool as o; print(o.openmp_vendor)"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return p.returncode == 0 and p.stdout.strip() == "GNU"


LAYER = """
import os, numba, nbgrad
x = nbgrad.ones(512, 512)
(x * x).sum()  # a parallel kernel
print(numba.threading_layer(), os.environ.get("GOMP_SPINCOUNT", "unset"))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the choice is Linux's")
def test_default_layer_and_environment_left_as_found():
    layer, spin = _run(LAYER)
    assert layer == ("omp" if _omp_available() else "workqueue")
    assert spin == "unset"  # set only while libgomp loaded


def test_user_choice_of_layer_is_kept():
    layer, spin = _run(LAYER, NUMBA_THREADING_LAYER="workqueue")
    assert layer == "workqueue"
    layer, spin = _run(LAYER, GOMP_SPINCOUNT="12345")
    assert spin == "12345"


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the choice is Linux's")
def test_libgomp_loaded_first_keeps_workqueue():
    # torch loaded libgomp with its own (long) spin, which nbgrad can no longer set
    (layer,) = _run("import torch, numba, nbgrad; nbgrad.ones(512, 512).sum(); "
                    "print(numba.threading_layer())")  # fmt: skip
    assert layer == "workqueue"


FORK = """
import os, time, numpy as np, nbgrad
rng = np.random.default_rng(0)
a = rng.standard_normal((400, 300))  # above the size where kernels go parallel
w = rng.standard_normal((400, 300))

def grads():
    x = nbgrad.tensor(a, requires_grad=True)
    ((x * x).sum() + (nbgrad.softmax(x, 1) * nbgrad.tensor(w)).sum()).backward()
    return x.grad.numpy()

def expected():  # closed forms: d sum(x^2) = 2x; softmax VJP p * (w - sum(p * w))
    p = np.exp(a - a.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return 2 * a + p * (w - (p * w).sum(1, keepdims=True))

ok = np.allclose(grads(), expected())  # the parent uses its pool before forking
pid = os.fork()
if pid == 0:
    os._exit(0 if np.allclose(grads(), expected()) else 3)
deadline = time.time() + 120
while time.time() < deadline:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    time.sleep(0.05)
else:
    os.kill(pid, 9)
    status = "hung"
print(ok, status, np.allclose(grads(), expected()))  # the parent's pool still works
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_forked_child_computes_gradients():
    assert _run(FORK) == ["True", "0", "True"]


# -- Python threads sharing the tape (docs/threads.md) ------------------------------------
# Each case runs in a fresh interpreter: a crash (the failure these guard against) fails
# the test instead of the test run, and the lock's mode is per process (nbgrad/_mt.py).

GRAPHS = """
import threading, numpy as np, nbgrad as torch

class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x * x * g

W = np.random.default_rng(0).standard_normal((6, 16))

def graph(seed):
    # elementwise fast paths, generic ops (matmul, softmax, sum), a custom Function, a
    # second-order gradient (the Python sweep), retain_graph, and a large tensor whose
    # kernels run in parallel: every way a thread touches the tape
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal(16), requires_grad=True)
    y = x
    for _ in range(20):
        y = torch.sin(y * 1.01) + x
    loss = y.sum() + Cube.apply(x).sum() + (torch.tensor(W) @ x).softmax(0)[0]
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    (h,) = torch.autograd.grad((g * g).sum(), x, retain_graph=True)
    loss.backward()
    big = torch.tensor(rng.standard_normal(70000), requires_grad=True)
    (big.exp() * big).sum().backward()
    return [v.detach().numpy().copy() for v in (g, h, x.grad, big.grad)]

def check(got, want):
    return all(np.allclose(a, b, rtol=1e-12, atol=1e-12) for a, b in zip(got, want))
"""

THREADS = (
    GRAPHS
    + """
N, M = 4, 25
want = {s: graph(s) for s in range(N * M)}  # one thread first (the lock-free mode)
bad, errors = [], []

def work(i):
    try:
        for j in range(M):
            s = i * M + j
            if not check(graph(s), want[s]):
                bad.append(s)
    except Exception as e:
        errors.append(repr(e))

ts = [threading.Thread(target=work, args=(i,)) for i in range(1, N)]
for t in ts:
    t.start()
work(0)  # the first thread keeps recording while the others start (the switch to the lock)
for t in ts:
    t.join()
print(len(bad), len(errors), errors[:3])
"""
)


def test_threads_record_and_differentiate_their_own_graphs():
    assert _run(THREADS) == ["0", "0", "[]"]


GRAD_MODE = """
import threading, nbgrad as torch
x = torch.ones(3, requires_grad=True)
inside, release, seen = threading.Event(), threading.Event(), {}

def quiet():
    with torch.no_grad():
        seen["quiet"] = (x * 2).requires_grad
        inside.set()
        release.wait()

def busy():
    inside.wait()
    seen["busy"] = (x * 2).requires_grad  # while the other thread is inside no_grad
    seen["busy_mode"] = torch.is_grad_enabled()
    release.set()

ts = [threading.Thread(target=quiet), threading.Thread(target=busy)]
[t.start() for t in ts]
[t.join() for t in ts]

with torch.no_grad():  # a thread started inside no_grad starts with gradients on
    t = threading.Thread(target=lambda: seen.update(new=torch.is_grad_enabled()))
    t.start()
    t.join()
    seen["main"] = torch.is_grad_enabled()
print(seen["quiet"], seen["busy"], seen["busy_mode"], seen["new"], seen["main"])
"""


def test_grad_mode_is_per_thread():
    assert _run(GRAD_MODE) == ["False", "True", "True", "True", "False"]


SHARED = (
    GRAPHS
    + """
# a graph built in one thread and differentiated in another; one leaf shared by threads
# whose backward passes accumulate into its .grad
rng = np.random.default_rng(1)
a = rng.standard_normal(16)
x = torch.tensor(a, requires_grad=True)
made = {}
t = threading.Thread(target=lambda: made.update(y=(x.sin() * x).sum()))
t.start()
t.join()
made["y"].backward()
cross = np.allclose(x.grad.numpy(), np.cos(a) * a + np.sin(a))

w = torch.tensor(a, requires_grad=True)
N, M = 4, 30

def work():
    for _ in range(M):
        (w * w).sum().backward()

ts = [threading.Thread(target=work) for _ in range(N)]
[t.start() for t in ts]
[t.join() for t in ts]
print(cross, np.allclose(w.grad.numpy(), N * M * 2 * a))
"""
)


def test_graphs_and_leaves_shared_across_threads():
    assert _run(SHARED) == ["True", "True"]


TRACE = (
    GRAPHS
    + """
# one thread traces a compiled function (its hooks are process-wide) while others run
# eager graphs, read values and differentiate: neither sees the other
@torch.compile
def grad_of_loss(x, w):
    loss = ((x * w).tanh() ** 2).mean()
    return torch.autograd.grad(loss, w)[0]

rng = np.random.default_rng(2)
xs, ws = rng.standard_normal((3, 8)), rng.standard_normal((3, 8))

def expected(x, w):
    t = np.tanh(x * w)
    return 2 * t * (1 - t * t) * x / x.size

want = {s: graph(s) for s in range(8)}
bad = []

def eager():
    for s in range(8):
        got = graph(s)
        float(torch.tensor(got[0]).sum())  # a value read (hooked while tracing)
        if not check(got, want[s]):
            bad.append(s)

ts = [threading.Thread(target=eager) for _ in range(2)]
[t.start() for t in ts]
res = [grad_of_loss(torch.tensor(x), torch.tensor(w, requires_grad=True)) for x, w in zip(xs, ws)]
[t.join() for t in ts]
ok = all(np.allclose(r.numpy(), expected(x, w)) for r, x, w in zip(res, xs, ws))
print(ok, len(bad))
"""
)


def test_tracing_in_one_thread_leaves_others_alone():
    assert _run(TRACE) == ["True", "0"]


BACKWARD_THEN_THREAD = """
import threading, time, nbgrad as torch
order, res, inside = [], {}, threading.Event()

class Slow(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        inside.set()
        time.sleep(0.3)  # the other thread starts recording meanwhile
        order.append("backward")
        return g * 2

def other():
    inside.wait()
    y = torch.ones(4, requires_grad=True)
    (y * 3).sum().backward()
    order.append("other")
    res["other"] = y.grad.tolist()

t = threading.Thread(target=other)
t.start()
x = torch.ones(4, requires_grad=True)
Slow.apply(x).sum().backward()
t.join()
print(*order, x.grad.tolist() == [2.0] * 4, res["other"] == [3.0] * 4)
"""


def test_second_thread_waits_for_a_lock_free_backward():
    # while one thread uses nbgrad, .backward() runs without the tape's lock; a thread
    # that starts recording during it must wait until the pass is over
    assert _run(BACKWARD_THEN_THREAD) == ["backward", "other", "True", "True"]
