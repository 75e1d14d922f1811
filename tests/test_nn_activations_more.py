"""The composed activations, GLU, Softmin and pixel shuffles (nbgrad/nn/_fn_activations.py,
nn/modules/activation.py) against PyTorch: values, gradients, reprs, errors; float64
gradchecks."""

import numpy as np
import pytest
from test_ops_helpers import gradcheck, parity, same_error

import nbgrad

torch = pytest.importorskip("torch")

MODULES = [
    ("Hardsigmoid", ()),
    ("Hardswish", ()),
    ("Mish", ()),
    ("Softsign", ()),
    ("Tanhshrink", ()),
    ("LogSigmoid", ()),
    ("Softshrink", ()),
    ("Hardshrink", (0.3,)),
    ("GLU", ()),
    ("GLU", (1,)),
    ("Threshold", (0.1, -2.0)),
    ("Hardtanh", (-0.5, 0.7)),
    ("ReLU6", ()),
    ("SELU", ()),
    ("CELU", (0.5,)),
    ("Softmin", (1,)),
    ("PixelShuffle", (2,)),
    ("PixelUnshuffle", (2,)),
]


def data(shape, seed=0, dtype=np.float32):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize("name,args", MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_module_parity(name, args):
    mn, mt = getattr(nbgrad.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(mn) == repr(mt)
    shape = (2, 8, 4, 6) if name.startswith("Pixel") else (4, 6)
    parity(mn, mt, data(shape))
    gradcheck(mn, data(shape, 1, np.float64) + 0.01)  # away from the kinks


FUNCTIONS = {
    "hardsigmoid": (), "hardswish": (), "mish": (), "softsign": (), "tanhshrink": (),
    "softshrink": (0.7,), "hardshrink": (), "glu": (0,), "threshold": (0.0, 5.0),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functional_parity(name):
    args = FUNCTIONS[name]
    parity(
        lambda x: getattr(nbgrad.nn.functional, name)(x, *args),
        lambda x: getattr(torch.nn.functional, name)(x, *args),
        data((4, 3, 2), 2),
    )


def test_pixel_shuffles_invert_each_other():
    x = nbgrad.tensor(data((3, 2, 12, 6)))
    F = nbgrad.nn.functional
    assert nbgrad.equal(F.pixel_shuffle(F.pixel_unshuffle(x, 3), 3), x)


def test_errors_as_torch():
    nf, tf = nbgrad.nn.functional, torch.nn.functional
    same_error(lambda x: nf.glu(x), lambda x: tf.glu(x), data((3,)))
    same_error(lambda x: nf.softshrink(x, -1.0), lambda x: tf.softshrink(x, -1.0), data((3,)))
    same_error(lambda x: nf.pixel_shuffle(x, 2), lambda x: tf.pixel_shuffle(x, 2), data((3, 2, 2)))
    same_error(lambda x: nf.pixel_shuffle(x, 2), lambda x: tf.pixel_shuffle(x, 2), data((2, 2)))
    same_error(
        lambda x: nf.pixel_unshuffle(x, 2), lambda x: tf.pixel_unshuffle(x, 2), data((1, 3, 2))
    )
