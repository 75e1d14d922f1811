"""The CUDA backend (numba.cuda): see docs/cuda.md. Nothing here imports numba.cuda at
import time; `runtime.cuda()` does on first use."""
