"""What users see when they print: tensor reprs (floats, ints, bools, scientific notation,
large tensors summarised with ..., grad_fn, requires_grad, dtypes), Size, a Module, and an
optimizer; the library's name is replaced by `lib` so the two compare line by line."""

import numpy as np


def run(torch):
    def show(x):
        return repr(x).replace(torch.__name__, "lib")

    rng = np.random.default_rng(64)
    w = torch.tensor([[0.5, -1.25], [3.0, 4.0]], requires_grad=True)
    out = {
        "float": show(torch.tensor([1.0, 2.5, -3.0])),
        "whole_floats": show(torch.tensor([1.0, 2.0])),
        "int": show(torch.tensor([1, -20, 300])),
        "bool": show(torch.tensor([True, False])),
        "scalar": show(torch.tensor(3.5)),
        "sci": show(torch.tensor([1e-8, 1.0, 1e8])),
        "f64": show(torch.tensor([0.1, 0.2], dtype=torch.float64)),
        "i32": show(torch.tensor([1, 2], dtype=torch.int32)),
        "requires_grad": show(w),
        "grad_fn": show(w * 2),
        "sum_grad_fn": show((w * 2).sum()),
        "matrix": show(
            torch.from_numpy(np.round(rng.standard_normal((3, 4)), 3).astype(np.float32))
        ),
        "large": show(torch.arange(2000.0).reshape(40, 50)),
        "empty": show(torch.zeros(0, 3)),
        "size": show(w.shape),
        "size_str": str(torch.zeros(2, 3).size()).replace(torch.__name__, "lib"),
        "str": str(torch.tensor([0.1234567, 100.0])).replace(torch.__name__, "lib"),
        "nan_inf": show(torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])),
        "module": show(
            torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Dropout(0.1))
        ),
        "conv": show(torch.nn.Conv2d(1, 8, 3, stride=2, padding=1)),
        "lstm": show(torch.nn.LSTM(4, 8, num_layers=2, batch_first=True)),
        "dtype": show(torch.float32),
        "param": show(torch.nn.Parameter(torch.tensor([1.0, 2.0]))),
    }
    return out
