"""Numba's thread pool for nbgrad's parallel kernels: which layer runs it, and how its
threads wait.

Large elementwise ops, reductions, softmax and cross-entropy run on Numba's thread pool.
On Linux nbgrad picks the GNU OpenMP layer with a short spin before its threads sleep:

- Workqueue (Numba's fallback) puts every worker to sleep after each kernel and leaves
  the calling thread idle, so each parallel call pays wake-ups; on a 2-core VM that made
  softmax (4096, 1000) forward+backward 6.8 ms where OpenMP took 4.0 ms, and a 16 MB sum
  2x slower.
- OpenMP's default spin (300,000 rounds) keeps idle threads busy long after a kernel,
  where they fight OpenBLAS's pool in the matrix products that follow (an MLP step
  measured 2.4x slower). `GOMP_SPINCOUNT` is read once, when libgomp loads, so nbgrad
  sets it only around loading Numba's pool and restores the environment afterwards. A
  torch imported later shares that libgomp (the loader matches `libgomp.so.1`), short
  spin included; measured alone, torch is no slower with it (docs/design.md).
- GNU OpenMP is not fork-safe: a forked child that enters a parallel region is killed
  by Numba (or would hang on the parent's dead threads). A fork handler makes the
  child's kernels run on one thread, as PyTorch does with its own OpenMP pool.

Where libgomp is already loaded (its spin can no longer be set), off Linux, or where the
user chose a layer (`NUMBA_THREADING_LAYER` or `numba.config.THREADING_LAYER`), the
previous choice stands: workqueue, or the user's layer.

The pool starts when nbgrad is imported, before any module loads a kernel: a cached
parallel kernel needs the pool's scheduler symbols to exist when it is loaded (else
"Symbol not found: allocate_sched").
"""

import ctypes
import os
import sys

import numba
from numba.np.ufunc.parallel import _launch_threads

SPINCOUNT = "2000"  # spin rounds (~µs) before an idle OpenMP thread sleeps


def _gomp_loaded():
    try:
        with open("/proc/self/maps") as f:
            return "libgomp" in f.read()
    except OSError:
        return True  # cannot tell: do not risk OpenMP's long default spin


def _launch_omp():
    """Start the pool preferring OpenMP, with the short spin set while libgomp loads."""
    numba.config.THREADING_LAYER_PRIORITY = ["omp", "workqueue", "tbb"]
    keys = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")
    if any(k in os.environ for k in keys):  # the user's own waiting policy
        _launch_threads()
        return
    os.environ["GOMP_SPINCOUNT"] = SPINCOUNT
    try:
        _launch_threads()
    finally:
        del os.environ["GOMP_SPINCOUNT"]


def _serial_child():
    """After fork: record this process as the pool's owner (Numba kills a child entering
    GNU OpenMP otherwise) and run its parallel kernels on one thread, which needs none of
    the parent's pool threads (they do not exist in the child)."""
    from numba.np.ufunc import omppool

    ctypes.CFUNCTYPE(None, ctypes.c_int)(omppool.launch_threads)(numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(1)


def _start():
    """Choose the layer (unless the user did) and start Numba's pool; once per process."""
    chosen = os.environ.get("NUMBA_THREADING_LAYER") or numba.config.THREADING_LAYER != "default"
    if chosen:
        _launch_threads()
    elif sys.platform.startswith("linux") and not _gomp_loaded():
        _launch_omp()
    else:
        numba.config.THREADING_LAYER = "workqueue"
        _launch_threads()
    if numba.threading_layer() == "omp":
        from numba.np.ufunc import omppool

        if omppool.openmp_vendor == "GNU":
            os.register_at_fork(after_in_child=_serial_child)


_start()  # at import, before any module loads a parallel kernel
