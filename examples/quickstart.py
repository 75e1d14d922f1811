"""nbgrad quickstart: what `backward` computes, in five questions new users ask.

Run:  python examples/quickstart.py

Every result printed here is what PyTorch prints for the same code (nbgrad speaks
PyTorch's autograd dialect: `import nbgrad as torch`). The one idea behind all of it:

    backward(v) / autograd.grad(y, x, v) computes the vector-Jacobian product  v^T J,
    where J[i, j] = d y_i / d x_j. It never builds J; it pushes v backwards op by op.

For a scalar loss, v = 1 and v^T J is the gradient. For a non-scalar y you must say
which combination of its elements you want the gradient of: that is `v`.
"""

import numpy as np

import nbgrad as torch


def section(title):
    print("\n" + "=" * 78 + "\n" + title + "\n" + "=" * 78)


def jacobian_by_vjps(f, x):
    """The full Jacobian, one row per VJP with a one-hot v (what backward(v) would give for
    each basis vector). Shown only to explain; backward itself never builds it."""
    y = f(x)
    rows = []
    for i in range(y.numel()):
        v = torch.zeros(y.numel(), dtype=y.dtype)
        v[i] = 1.0
        (g,) = torch.autograd.grad(y, x, v.reshape(y.shape), retain_graph=True)
        rows.append(g.numpy().reshape(-1))
    return np.stack(rows).reshape(tuple(y.shape) + tuple(x.shape))


# --------------------------------------------------------------------------------------
section("1. out.backward(a) gives 2*a*a, not 2*a")
a = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.float, requires_grad=True)
out = a * a
out.backward(a)
print("a.grad after out.backward(a):\n", a.grad)
print(
    "backward(v) computes v^T J. Here J is diagonal with J[ij,ij] = d(a_ij^2)/d a_ij = 2 a_ij,\n"
    "so v^T J = v * 2a; with v = a that is 2*a*a. Asking for d(sum of out)/da means v = 1:"
)
a.grad = None
out = a * a
out.backward(torch.ones(2, 3))
print(a.grad)

# --------------------------------------------------------------------------------------
section("2. grad_outputs is the 'vector' of the vector-Jacobian product")
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = torch.outer(x, x)
print("y = outer(x, x) =\n", y)
print(
    "autograd.grad(y, x, grad_outputs=ones_like(y)) =",
    torch.autograd.grad(y, x, torch.ones_like(y)),
)
print(
    "grad_outputs has y's shape (4x4): it weights each y_jk. The result has x's shape:\n"
    "dL/dx_i = sum_jk v_jk * d(x_j x_k)/dx_i = 2 * sum(x) = 20 for v = 1."
)
J = jacobian_by_vjps(lambda t: torch.outer(t, t), x)
print("The Jacobian it stands for has shape", J.shape, "- contracting it with v = 1:")
print("  einsum('jk,jki->i', ones, J) =", np.einsum("jk,jki->i", np.ones((4, 4)), J))
try:
    torch.autograd.grad(torch.outer(x, x), x, grad_outputs=torch.ones_like(x))
except RuntimeError as e:
    print("A v of x's shape is the wrong 'vector':\n  RuntimeError:", e)

# --------------------------------------------------------------------------------------
section("3. The tensor argument of backward(), step by step")
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x.sum()
y.backward()  # same as y.backward(torch.tensor(1.))
print("x.sum().backward() -> x.grad =", x.grad)
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print("y = x * 2**k (k = 10 here); y.backward(v) ->", x.grad)
print("  = v * 2**10: each output's weight in v scales its gradient (J = 1024 * I).")

# --------------------------------------------------------------------------------------
section("4. (x+1)**2: the Jacobian product, accumulation, retain_graph, zero_()")
inp = torch.eye(5, requires_grad=True)
out = (inp + 1).pow(2)
out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nSecond call (gradients accumulate into .grad)\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\nCall after zeroing gradients\n", inp.grad)
inp2 = torch.eye(2, requires_grad=True)
J = jacobian_by_vjps(lambda t: (t + 1) ** 2, inp2)
print("\nFor x = eye(2), J[m,n,i,j] = d y_mn / d x_ij:\n", J)
print("einsum('mn,mnij->ij', ones, J) =\n", np.einsum("mn,mnij->ij", np.ones((2, 2)), J))
out2 = (inp2 + 1) ** 2
out2.backward(torch.ones_like(inp2))
print("which is exactly inp.grad after backward(ones):\n", inp2.grad)
try:
    out2.backward(torch.ones_like(inp2))
except RuntimeError as e:
    print("A second backward without retain_graph=True:\n  RuntimeError:", str(e)[:88], "...")

# --------------------------------------------------------------------------------------
section("5. A custom Function's backward returns the input's shape")


class MyFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):  # f(x) = e^x
        result = input.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):  # receives v (output's shape), returns v^T J
        (result,) = ctx.saved_tensors
        return grad_output * result  # J is diagonal: v^T J = v * e^x


x = torch.tensor([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], requires_grad=True)  # batch of 3
y = MyFunc.apply(x)
print("y =", y)
y.backward(torch.ones_like(y))
print("x.grad =", x.grad)
print(
    "backward gets grad_output = dL/dy (y's shape) and returns dL/dx = grad_output^T J\n"
    "(x's shape). For a batch, each row's Jacobian is applied to that row's v: the batch is\n"
    "just more elements of x and y, never a b*k*n tensor."
)


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        return input.sum(0)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output[:1]  # shape [1], but the input was [3, 2]


try:
    WrongShape.apply(x).sum().backward()
except RuntimeError as e:
    print("Returning the wrong shape:\n  RuntimeError:", e)
