"""nbgrad.save / nbgrad.load: round trips, the documented .npz layout, and safety."""

import io
import json
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import nbgrad as nb
from nbgrad import nn


def test_tensor_round_trip(tmp_path):
    for t in (
        nb.tensor([[1.0, 2.0], [3.0, 4.0]]),
        nb.tensor([1.5, -2.0], dtype=nb.float64, requires_grad=True),
        nb.tensor([1, 2, 3]),
        nb.tensor([True, False]),
        nb.tensor(3.25),
    ):
        path = tmp_path / "t.pt"
        nb.save(t, path)
        assert path.exists()  # the exact name: no suffix added
        u = nb.load(path)
        assert type(u) is nb.Tensor and u.dtype is t.dtype and u.shape == t.shape
        assert u.requires_grad == t.requires_grad
        np.testing.assert_array_equal(u.detach().numpy(), t.detach().numpy())


def test_nested_and_file_objects():
    p = nn.Parameter(nb.randn(2))
    obj = {
        "model": OrderedDict([("w", nb.ones(2, 2)), ("b", nb.zeros(2))]),
        "epoch": 7,
        "lr": 1e-3,
        "nan": float("nan"),
        "betas": (0.9, 0.999),
        "names": ["a", "b"],
        "none": None,
        "flag": True,
        3: "int key",
        "arr": np.arange(4),
        "param": p,
        "dtype": nb.float64,
    }
    buf = io.BytesIO()
    nb.save(obj, buf)
    buf.seek(0)
    out = nb.load(buf)
    assert isinstance(out["model"], OrderedDict) and list(out["model"]) == ["w", "b"]
    assert out["epoch"] == 7 and isinstance(out["epoch"], int)
    assert out["lr"] == 1e-3 and np.isnan(out["nan"])
    assert out["betas"] == (0.9, 0.999) and out["names"] == ["a", "b"]
    assert out["none"] is None and out["flag"] is True and out[3] == "int key"
    np.testing.assert_array_equal(out["arr"], np.arange(4))
    assert isinstance(out["param"], nn.Parameter) and out["param"].requires_grad
    assert out["dtype"] is nb.float64


def test_shared_arrays_stay_shared():
    t = nb.ones(3)
    buf = io.BytesIO()
    nb.save([t, t.detach()], buf)
    buf.seek(0)
    a, b = nb.load(buf)
    a[0] = 5.0
    assert float(b[0]) == 5.0


def test_model_and_optimizer_checkpoint(tmp_path):
    nb.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = nb.optim.Adam(model.parameters(), lr=0.01)
    x = nb.randn(8, 3)
    for _ in range(3):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    nb.save({"model": model.state_dict(), "optim": opt.state_dict()}, tmp_path / "ckpt.pt")
    ck = nb.load(tmp_path / "ckpt.pt")
    model2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    model2.load_state_dict(ck["model"])
    opt2 = nb.optim.Adam(model2.parameters(), lr=0.5)
    opt2.load_state_dict(ck["optim"])
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        m(x).pow(2).mean().backward()
        o.step()
    for p, q in zip(model.parameters(), model2.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_format_is_plain_npz(tmp_path):
    path = tmp_path / "sd.npz"
    nb.save({"w": nb.ones(2)}, path)
    with np.load(path, allow_pickle=False) as z:  # readable without nbgrad
        doc = json.loads(bytes(z["__nbgrad__"]).decode())
        assert doc["format"] == "nbgrad" and doc["version"] == 1
        key = doc["root"]["v"][0]["a"]
        np.testing.assert_array_equal(z[key], np.ones(2, np.float32))


def test_refuses_pickles_and_unknown_objects(tmp_path):
    with pytest.raises(TypeError, match="cannot store an object of type"):
        nb.save({"f": lambda: 0}, io.BytesIO())
    with pytest.raises(TypeError, match="object arrays"):
        nb.save(np.array([object()]), io.BytesIO())
    # a pickle file is refused, and its payload never runs
    evil = tmp_path / "evil.pt"
    evil.write_bytes(pickle.dumps({"x": 1}))
    with pytest.raises(RuntimeError, match="not an nbgrad file"):
        nb.load(evil)
    # an npz holding an object array under the manifest's name cannot be unpickled
    bad = tmp_path / "bad.npz"
    with zipfile.ZipFile(bad, "w") as zf:
        b = io.BytesIO()
        np.lib.format.write_array(b, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        zf.writestr("__nbgrad__.npy", b.getvalue())
    with pytest.raises(ValueError):
        nb.load(bad)
