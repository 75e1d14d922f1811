"""Slicing with a negative step is refused with PyTorch's error (nbgrad's views, like
PyTorch's, take positive steps only; `flip` reverses)."""

import pytest

import nbgrad


@pytest.mark.parametrize("index", ["[::-1]", "[1::-1]", "[:, ::-2]"])
def test_negative_step_is_an_error(index):
    x = nbgrad.ones(3, 4, requires_grad=True)
    with pytest.raises(ValueError, match="^step must be greater than zero$"):
        eval("x" + index, {"x": x})


def test_negative_step_is_an_error_in_torch_too():
    real = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="^step must be greater than zero$"):
        real.ones(3)[::-1]
