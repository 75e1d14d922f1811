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
