"""nn.SmoothL1Loss and nn.HuberLoss against PyTorch."""

import numpy as np
import pytest
from test_ops_helpers import needs_torch, parity, torch

import nbgrad


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,kw", [("SmoothL1Loss", {"beta": 0.5}), ("HuberLoss", {"delta": 2.0}),
                                     ("SmoothL1Loss", {}), ("HuberLoss", {})])  # fmt: skip
def test_parity(name, kw, reduction):
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal((4, 5)).astype(np.float32) * 2 for _ in range(2))
    mn = getattr(nbgrad.nn, name)(reduction=reduction, **kw)
    mt = getattr(torch.nn, name)(reduction=reduction, **kw)
    parity(mn, mt, x, y)
    assert repr(mn) == repr(mt)
