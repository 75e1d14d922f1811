"""Test session setup.

The CUDA tests (tests/test_cuda.py) run on a real GPU when one is present and otherwise on
Numba's CUDA simulator: when no NVIDIA driver is found, NUMBA_ENABLE_CUDASIM=1 is set here,
before anything imports Numba (Numba reads it once, at import). CPU code never imports
numba.cuda, so the setting changes nothing for the CPU tests.
"""

import ctypes.util
import os


def _has_nvidia_driver():
    return os.path.exists("/dev/nvidiactl") or ctypes.util.find_library("cuda") is not None


if "NUMBA_ENABLE_CUDASIM" not in os.environ and not _has_nvidia_driver():
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
