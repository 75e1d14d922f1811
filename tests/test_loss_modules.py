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


@needs_torch
def test_probability_targets_as_pytorch():
    x = np.random.default_rng(0).standard_normal((3, 4))
    p = np.full((3, 4), 0.25)
    got = []
    for lib in (torch, nbgrad):
        with pytest.raises(RuntimeError, match="ignore_index is not supported for floating"):
            lib.nn.functional.cross_entropy(lib.tensor(x), lib.tensor(p), ignore_index=1)
        # probabilities of another float dtype: both promoted (float64 here)
        xf = lib.tensor(x).float().requires_grad_()
        loss = lib.nn.functional.cross_entropy(xf, lib.tensor(p))
        loss.backward()
        got.append((str(loss.dtype), str(xf.grad.dtype), loss.item(), xf.grad.numpy()))
    (tl, tg, tv, tgr), (nl, ng, nv, ngr) = got
    assert tl.split(".")[-1] == nl.split(".")[-1] == "float64"
    assert tg.split(".")[-1] == ng.split(".")[-1] == "float32"
    np.testing.assert_allclose(nv, tv, rtol=1e-6)
    np.testing.assert_allclose(ngr, tgr, rtol=1e-5, atol=1e-7)
