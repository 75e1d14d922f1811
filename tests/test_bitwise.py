"""`&`, `|`, `^` and `~` on bool and integer tensors, with a Python number on either side,
as PyTorch (and NumPy, the reference when PyTorch is absent), on every device; and
PyTorch's errors for float operands."""

import numpy as np
import pytest

import nbgrad as nb

A = np.array([[0, 1, 5, -3], [7, 2, 0, 12]], dtype=np.int64)
B = A % 3 == 0
DEVICES = ["cpu"] + (["cuda"] if nb.cuda.is_available() else [])

CASES = {
    "int & number": (lambda t, m: t & 6, lambda a, b: a & 6),
    "number & int": (lambda t, m: 6 & t, lambda a, b: 6 & a),
    "number | int": (lambda t, m: 9 | t, lambda a, b: 9 | a),
    "number ^ int": (lambda t, m: 3 ^ t, lambda a, b: 3 ^ a),
    "bool & True": (lambda t, m: m & True, lambda a, b: b & True),
    "True | bool": (lambda t, m: True | m, lambda a, b: True | b),
    "False ^ bool": (lambda t, m: False ^ m, lambda a, b: False ^ b),
    "~int": (lambda t, m: ~t, lambda a, b: ~a),
    "~bool": (lambda t, m: ~m, lambda a, b: ~b),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy(name, device):
    fn, ref = CASES[name]
    got = fn(nb.tensor(A, device=device), nb.tensor(B, device=device))
    want = ref(A, B)
    assert got.device.type == device
    assert got.dtype == nb.tensor(want).dtype
    np.testing.assert_array_equal(got.cpu().numpy(), want)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    for name, (fn, _) in CASES.items():
        want = fn(torch.tensor(A), torch.tensor(B))
        got = fn(nb.tensor(A), nb.tensor(B))
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], name
        np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=name)


@pytest.mark.parametrize("device", DEVICES)
def test_float_operands_raise(device):
    x = nb.tensor([1.5, 2.0], device=device)
    with pytest.raises(TypeError, match=r"^~ \(operator.invert\) is only implemented on integer"):
        ~x
    msg = f"^\"bitwise_and_{device}\" not implemented for 'Float'$"
    with pytest.raises(NotImplementedError, match=msg):
        x & 1
