"""The CPU backend: Numba @njit kernels and the compiled reverse sweep."""
