"""Custom autograd Functions: what `backward` receives and what it must return.

    python examples/custom_function.py
    python examples/custom_function.py --backend torch   # identical output on PyTorch

Answers a common question ("How is the dimensionality of inputs and outputs handled in the
backward pass of custom functions?") with running code:

1. a `MyFunc` (f(x) = e^x), and the shapes its backward sees;
2. a function with n inputs and k outputs (y = W x): backward gets a k-vector and returns
   an n-vector, the vector-Jacobian product v^T J, never the k x n Jacobian;
3. the batched version (b x n in, b x k out): backward gets b x k and returns b x n; the
   b*k x b*n Jacobian is block-diagonal and is never formed;
4. what happens when backward returns the wrong shape.
The `--quick` flag is accepted (the script is already fast) for the test suite.
"""

import argparse

import numpy as np
from _backend import load_backend


def banner(title):
    print("\n" + "=" * 78 + "\n" + title + "\n" + "=" * 78)


def numeric_jacobian(f, x, eps=1e-6):
    """J[i, j] = d f(x)_i / d x_j by central differences (NumPy, float64)."""
    x = np.asarray(x, np.float64)
    y = f(x)
    J = np.zeros((y.size, x.size))
    for j in range(x.size):
        d = np.zeros(x.size)
        d[j] = eps
        J[:, j] = (f(x + d.reshape(x.shape)) - f(x - d.reshape(x.shape))).reshape(-1) / (2 * eps)
    return J


def run(torch):
    Function = torch.autograd.Function

    # ----------------------------------------------------------------------------------
    banner("1. MyFunc: f(x) = e^x, elementwise")

    class MyFunc(Function):
        @staticmethod
        def forward(ctx, input):  # noqa: A002
            result = input.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            print(
                f"  MyFunc.backward received grad_output of shape {tuple(grad_output.shape)} "
                f"(the output's shape) and returns shape {tuple(result.shape)} (the input's)"
            )
            return grad_output * result

    x = torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64, requires_grad=True)
    y = MyFunc.apply(x)
    y.sum().backward()
    print("x.grad =", x.grad, "= e^x: for a scalar loss L = sum(y), grad_output = dL/dy = 1")

    # ----------------------------------------------------------------------------------
    banner("2. n inputs, k outputs: y = W x with W of shape (k, n) = (2, 3)")
    W_np = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
    W = torch.tensor(W_np)

    class MatVec(Function):
        @staticmethod
        def forward(ctx, x):
            return W @ x

        @staticmethod
        def backward(ctx, v):
            # v = dL/dy, shape (k,). The Jacobian J = dy/dx is W (k x n); the chain rule
            # dL/dx_j = sum_i dL/dy_i * dy_i/dx_j = (v^T J)_j = (v @ W)_j, shape (n,).
            print(f"  MatVec.backward: v has shape {tuple(v.shape)} -> returns v @ W, shape (3,)")
            return v @ W

    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = MatVec.apply(x)
    v = torch.tensor([1.0, 10.0], dtype=torch.float64)
    (g,) = torch.autograd.grad(y, x, grad_outputs=v)
    J = numeric_jacobian(lambda a: W_np @ a, [1.0, 2.0, 3.0])
    print("Jacobian (k x n), by finite differences:\n", np.round(J, 6))
    print("v^T J          =", np.round(np.asarray(v.tolist()) @ J, 6))
    print("what backward gave:", g)
    print(
        "backward never returns J: it returns v^T J, one number per input. To get J itself,\n"
        "call backward with each one-hot v (k calls) - which is what jacobian() does."
    )

    # ----------------------------------------------------------------------------------
    banner("3. The batched version: x of shape (b, n) = (4, 3), y = x W^T of shape (4, 2)")

    class BatchedMatVec(Function):
        @staticmethod
        def forward(ctx, x):
            return x @ W.T

        @staticmethod
        def backward(ctx, v):
            # v: (b, k). Row r of y depends only on row r of x, so the (b*k) x (b*n)
            # Jacobian is block-diagonal with b copies of W; v^T J is, row by row, v[r] @ W.
            print(f"  BatchedMatVec.backward: v {tuple(v.shape)} -> v @ W {(v.shape[0], 3)}")
            return v @ W

    xb_np = np.arange(12.0).reshape(4, 3) / 10
    xb = torch.tensor(xb_np, requires_grad=True)
    loss = (BatchedMatVec.apply(xb) ** 2).sum()  # any scalar loss built on the outputs
    loss.backward()
    xr = torch.tensor(xb_np, requires_grad=True)
    ((xr @ W.T) ** 2).sum().backward()  # the same loss with built-in ops
    print("x.grad from the custom Function:\n", xb.grad)
    print("x.grad from built-in ops (must match):\n", xr.grad)
    Jfull = numeric_jacobian(lambda a: a @ W_np.T, xb_np)
    print(
        f"The full Jacobian would be {Jfull.shape[0]} x {Jfull.shape[1]} "
        f"({np.count_nonzero(np.abs(Jfull) > 1e-9)} non-zeros, all in the {xb_np.shape[0]} "
        "diagonal blocks): the batch is just more elements of x and y, so backward handles it\n"
        "with the same formula and memory stays O(b*n), not O(b*k*b*n)."
    )
    assert np.allclose(np.asarray(xb.grad.tolist()), np.asarray(xr.grad.tolist()))

    # ----------------------------------------------------------------------------------
    banner("4. Returning the wrong shape")

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum(0)

        @staticmethod
        def backward(ctx, g):
            return g[:1]  # shape (1,), but x was (4, 3)

    try:
        WrongShape.apply(xb).sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
    print(
        "The rule: backward returns, for each input of forward, a gradient of that input's\n"
        "shape (or one that broadcasts to it), or None for inputs that need no gradient."
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["nbgrad", "torch"], default="nbgrad")
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    run(load_backend(args.backend))


if __name__ == "__main__":
    main()
