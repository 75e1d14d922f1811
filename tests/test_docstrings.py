"""The most used public functions carry PyTorch-style docstrings (a summary, Args or
Example), and every Example in them runs and prints what it shows (doctest). Expected outputs
in the examples are PyTorch's, with nbgrad's names (`nbgrad.Size`, `nbgrad.float64`)."""

import doctest

import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad import nn


def _documented():
    return {
        "Tensor.sum": nbgrad.Tensor.sum,
        "Tensor.backward": nbgrad.Tensor.backward,
        "Tensor.view": nbgrad.Tensor.view,
        "Tensor.mean": nbgrad.Tensor.mean,
        "Tensor.matmul": nbgrad.Tensor.matmul,
        "randn": nbgrad.randn,
        "zeros": nbgrad.zeros,
        "cat": nbgrad.cat,
        "stack": nbgrad.stack,
        "manual_seed": nbgrad.manual_seed,
        "tensor": nbgrad.tensor,
        "autograd.grad": nbgrad.autograd.grad,
        "no_grad": nbgrad.no_grad,
        "F.relu": F.relu,
        "F.cross_entropy": F.cross_entropy,
        "F.mse_loss": F.mse_loss,
        "nn.Linear": nn.Linear,
        "nn.Module": nn.Module,
    }


@pytest.mark.parametrize("name", list(_documented()))
def test_docstring_has_summary_and_example(name):
    doc = _documented()[name].__doc__ or ""
    summary = doc.strip().splitlines()[0] if doc.strip() else ""
    assert len(summary) > 20, f"{name}: no one-line summary"
    assert "Example::" in doc and ">>> " in doc, f"{name}: no Example section"


@pytest.mark.parametrize("name", list(_documented()))
def test_docstring_example_runs(name):
    obj = _documented()[name]
    globs = {"torch": nbgrad, "nbgrad": nbgrad, "nn": nn, "F": F}
    test = doctest.DocTestParser().get_doctest(obj.__doc__, globs, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{name}: example failed (see above)"
