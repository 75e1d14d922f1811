"""The crash-and-parity fuzzer's fixed-seed slice (tests/fuzz.py has the generator and a
command for longer runs). Each slice runs in subprocesses: a crash fails the test and
names the program it happened in; every failure prints its program."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz  # noqa: E402


def _check(fails):
    msg = "\n\n".join(f"seed {f['seed']}: {f['why']}\n{f['program']}" for f in fails[:8])
    assert not fails, f"{len(fails)} fuzzed programs failed:\n\n{msg}"


@pytest.mark.parametrize("start", [0, 1000])
def test_fuzz_parity(start):
    """Random programs (ops, in-place writes, views, .data, detach, no_grad, Functions,
    pickling) against PyTorch, or against finite differences without it."""
    _check(fuzz.run_mode("parity", list(range(start, start + 60))))


def test_fuzz_threads():
    """Four threads each running programs concurrently give the sequential results."""
    _check(fuzz.run_mode("threads", list(range(2000, 2040))))


def test_fuzz_interrupts():
    """KeyboardInterrupt at random points of forward and backward leaves nbgrad usable."""
    _check(fuzz.run_mode("interrupt", list(range(3000, 3006))))


def test_fuzz_with_bounds_checking():
    """A slice with Numba's bounds checking compiled in, so an out-of-bounds access in a
    kernel is an IndexError here instead of silent corruption. Those kernels are cached
    under the same keys as the unchecked ones, so they have a cache root of their own (kept
    between runs: compiling them all again each run took minutes)."""
    from nbgrad import _cache

    checked = _cache._root() / "boundscheck"
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NBGRAD_CACHE_DIR=str(checked))
    _check(fuzz.run_mode("parity", list(range(4000, 4015)), env=env))


def test_fuzzer_finds_a_silent_wrong_gradient():
    """The comparison itself: a program nbgrad runs where PyTorch raises is a failure, and
    different gradients are a failure."""
    ok = ("ok", 1.0, [None])
    assert fuzz.compare(ok, ("raise", "RuntimeError", "modified by an inplace operation"))
    assert fuzz.compare(("ok", 1.0, [fuzz.np.ones(2)]), ("ok", 1.0, [fuzz.np.zeros(2)]))
    assert fuzz.compare(("raise", "RuntimeError", "x"), ok)
    refused = ("raise", "RuntimeError", "x")
    assert fuzz.compare(refused, ok, "y.t().mul_(2)  " + fuzz.MAY_REFUSE) is None
    assert fuzz.compare(ok, ok) is None
