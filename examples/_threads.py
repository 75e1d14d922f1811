"""`--threads N` for the examples: cap BLAS/OpenMP thread pools (and torch's) at N.

The examples default to 1 (their matrices are small); `--threads 0` leaves the
libraries' own defaults.

Small matrix products gain nothing from threads, and on a busy machine idle BLAS
threads spinning for work can slow a training loop down by orders of magnitude (nbgrad
loads two OpenBLAS pools: NumPy's and SciPy's, which Numba calls). Pass the same N to
both backends when comparing them.
"""


def limit_threads(n, torch=None):
    if not n:
        return None
    if torch is not None and hasattr(torch, "set_num_threads"):
        torch.set_num_threads(n)
    try:
        import scipy.linalg.cython_blas  # noqa: F401  (load the BLAS Numba calls, to cap it too)
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        print("(threadpoolctl is not installed: --threads only affects torch)")
        return None
    return threadpool_limits(limits=n)
