"""dtypes as scripts meet them: tensors from Python lists and NumPy arrays, integer and bool
arithmetic (true division, powers, sums of bools), int tensors mixed with float scalars,
float32 with float64 tensors, and casts."""

import numpy as np


def run(torch):
    def d(t):
        return str(t.dtype).split(".")[-1]

    i = torch.tensor([7, -7, 3])
    f = torch.tensor([1.5, -2.0, 0.25])
    b = torch.tensor([True, False, True])
    f64 = torch.from_numpy(np.array([1.0, 2.0, 3.0]))
    results = {
        "list_int": torch.tensor([1, 2]),
        "list_mixed": torch.tensor([1, 2.5]),
        "list_bool": torch.tensor([True, False]),
        "numpy_f64": torch.tensor(np.array([0.5, 1.5])),
        "numpy_i32": torch.from_numpy(np.array([1, 2], dtype=np.int32)),
        "int_truediv": i / 2,
        "int_times_float": i * 0.5,
        "int_plus_int": i + 1,
        "int_pow": i**2,
        "int_neg_pow_float": i**0.0,
        "bool_sum": b.sum(),
        "bool_plus_int": b + 1,
        "bool_float": b.float() * f,
        "f32_plus_f64_tensor": f + f64,
        "f32_plus_np_scalar": f + 1.0,
        "int_tensor_plus_float_tensor": i + f,
        "i32_plus_i64": torch.tensor([1, 2], dtype=torch.int32) + torch.tensor([3, 4]),
        "i32_plus_int": torch.tensor([1, 2], dtype=torch.int32) + 5,
        "to_f64": f.to(torch.float64),
        "long": f.long(),
        "mean_float_of_int": i.float().mean(),
        "argmax": f.argmax(),
        "cmp": f > 0,
        "where_mixed": torch.where(b, i, f),
        "cat_int_float": torch.cat([i, f]),
        "arange_int": torch.arange(5),
        "arange_float": torch.arange(0, 1, 0.25),
        "linspace": torch.linspace(0, 1, 5),
        "full_int": torch.full((2,), 3),
        "full_float": torch.full((2,), 3.0),
        "zeros_like_int": torch.zeros_like(i),
        "ones_like_float": torch.ones_like(f, dtype=torch.float64),
        "item_int": i[0].item(),
        "item_float": f[0].item(),
        "item_bool": b[0].item(),
        "tolist": f.tolist(),
    }
    out = {k: v for k, v in results.items()}
    out["dtypes"] = {k: d(v) for k, v in results.items() if hasattr(v, "dtype")}
    return out
