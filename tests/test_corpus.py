"""The corpus of PyTorch programs (tests/corpus/) gives PyTorch's results on nbgrad.

Each program runs once with `torch` (when installed) and once with `nbgrad`; the values it
returns (losses per step, final parameters, gradients, flags) must agree: tensors in dtype,
shape and value (to the program's `TOL`), numbers to the same tolerance, bools, ints and
strings exactly. Without PyTorch the programs still run on nbgrad, and their results must
be finite.
"""

import importlib
import math
from pathlib import Path

import numpy as np
import pytest

import nbgrad

CORPUS = Path(__file__).resolve().parent / "corpus"
NAMES = sorted(p.stem for p in CORPUS.glob("[a-z]*.py"))
DEFAULT_TOL = dict(rtol=2e-4, atol=2e-6)  # float32 after a few training steps


def program(name):
    return importlib.import_module(f"corpus.{name}")


def params():
    for name in NAMES:
        needs = getattr(program(name), "NEEDS", None)
        marks = [pytest.mark.xfail(strict=True, reason=f"needs {needs}")] if needs else []
        yield pytest.param(name, marks=marks, id=name)


def plain(v):
    """The program's result with tensors as ("tensor", dtype name, ndarray)."""
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "detach"):  # a tensor of either library
        return ("tensor", str(v.dtype).split(".")[-1], np.array(v.detach().cpu().numpy()))
    if isinstance(v, np.ndarray):
        return ("tensor", str(v.dtype), v)
    return v


def compare(got, want, tol, where="result"):
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), where
        for k in want:
            compare(got[k], want[k], tol, f"{where}[{k!r}]")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: length"
        for i, (g, w) in enumerate(zip(got, want)):
            compare(g, w, tol, f"{where}[{i}]")
    elif isinstance(want, tuple):  # a tensor
        assert isinstance(got, tuple), f"{where}: {got!r} is not a tensor"
        assert got[1] == want[1], f"{where}: dtype {got[1]} != {want[1]}"
        assert got[2].shape == want[2].shape, f"{where}: shape {got[2].shape} != {want[2].shape}"
        if want[2].dtype.kind in "fc":
            np.testing.assert_allclose(got[2], want[2], **tol, err_msg=where)
        else:
            np.testing.assert_array_equal(got[2], want[2], err_msg=where)
    elif isinstance(want, float):
        assert isinstance(got, (float, int)) and not isinstance(got, bool), f"{where}: {got!r}"
        np.testing.assert_allclose(got, want, **tol, err_msg=where)
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


def finite(v):
    if isinstance(v, dict):
        return all(finite(x) for x in v.values())
    if isinstance(v, list):
        return all(finite(x) for x in v)
    if isinstance(v, tuple):
        return v[2].dtype.kind not in "fc" or bool(np.isfinite(v[2]).all())
    return not isinstance(v, float) or math.isfinite(v)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")
@pytest.mark.filterwarnings("ignore:std\\(\\). degrees of freedom:UserWarning")  # edge_values
@pytest.mark.parametrize("name", list(params()))  # a list: pytest 10 refuses generators
def test_program(name):
    prog = program(name)
    got = plain(prog.run(nbgrad))
    try:
        import torch
    except ImportError:  # no reference: at least no NaN/inf where the program expects none
        assert getattr(prog, "NONFINITE", False) or finite(got), got
        return
    want = plain(prog.run(torch))
    compare(got, want, getattr(prog, "TOL", DEFAULT_TOL))


def test_corpus_is_large():
    assert len(NAMES) >= 30


def test_compare_catches_differences():
    """The comparison fails on a wrong value, dtype, shape, flag or missing key."""
    t32 = ("tensor", "float32", np.ones(3, np.float32))
    for got, want in [
        (1.0, 1.001),
        (("tensor", "float64", np.ones(3)), t32),
        (("tensor", "float32", np.ones(4, np.float32)), t32),
        (("tensor", "float32", np.array([1, 1, 1.01], np.float32)), t32),
        (True, False),
        (3, 4),
        ({"a": 1.0}, {"a": 1.0, "b": 2.0}),
        ([1.0], [1.0, 2.0]),
        (1, 1.0 + 1e-3),
    ]:
        with pytest.raises(AssertionError):
            compare(got, want, DEFAULT_TOL)
    compare({"a": [1.0, t32, True]}, {"a": [1.0 + 1e-7, t32, True]}, DEFAULT_TOL)
