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


def pytest_configure(config):
    # Under xdist (-n auto) hand tests out one at a time instead of in chunks of hundreds:
    # with the slow tests sent first (below), a minutes-long test then overlaps the rest
    # of the suite on one worker while the others share everything else.
    if getattr(config.option, "maxschedchunk", False) is None:
        config.option.maxschedchunk = 1


def pytest_collection_modifyitems(items):
    """The tests marked slow run first (the order is otherwise kept): started last, one of
    them would run alone after every other test had finished."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
