"""Peers for the benchmarks: nbgrad, and torch / jax when they are importable.

Every benchmark is parametrised over the peers side by side under one pytest-benchmark
``group``, so the report compares peers measured in the same run (the machine is noisy;
only ratios within one run mean anything). A peer that is not installed skips its cases.
"""

import importlib
import importlib.util
import os

import pytest

from benchmarks import _env

PEERS = ("nbgrad", "torch", "jax")


def load(name):
    """Import a peer or skip the test. jax runs in float64 like the others.

    nbgrad is the subject, so it skips only when it is not installed at all; an nbgrad that
    fails to import is an error, not a silent skip.
    """
    if name == "nbgrad":
        if importlib.util.find_spec(name) is None:
            pytest.skip("nbgrad is not installed")
        return importlib.import_module(name)
    if name == "jax":
        jax = pytest.importorskip("jax")
        jax.config.update("jax_enable_x64", True)
        pytest.importorskip("jax.numpy")
        return jax
    return pytest.importorskip(name)


class Peer:
    """A peer library and the few calls that differ between them."""

    def __init__(self, name):
        self.name = name
        self.mod = load(name)
        if name == "jax":
            import jax.numpy as jnp

            self.np = jnp
        else:
            self.np = self.mod

    @property
    def torchlike(self):
        return self.name != "jax"

    def leaf(self, arr):
        """A float64 leaf that requires grad (jax: a plain array to differentiate at)."""
        if self.torchlike:
            return self.mod.tensor(arr, dtype=self.mod.float64, requires_grad=True)
        return self.np.asarray(arr, dtype=self.np.float64)

    def to_numpy(self, t):
        import numpy as np

        if self.torchlike:
            return t.detach().numpy()
        return np.asarray(t)


@pytest.fixture(params=PEERS)
def peer(request):
    return Peer(request.param)


def pytest_benchmark_update_json(config, benchmarks, output_json):
    # Versions of what actually ran (modules are loaded by now), cpu model, cores.
    output_json["nbgrad_bench"] = _env.snapshot()
    output_json["nbgrad_bench"]["env"] = {
        k: os.environ[k]
        for k in ("NBGRAD_CACHE_DIR", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS")
        if k in os.environ
    }
