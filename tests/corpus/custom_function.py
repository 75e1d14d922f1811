"""A custom autograd.Function (a clipped ReLU with its own backward, using
save_for_backward and needs_input_grad) inside a model, checked with gradcheck."""

import numpy as np

from corpus._util import init_from_numpy


def make_fn(torch):
    class ClippedReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, cap):
            ctx.save_for_backward(x)
            ctx.cap = cap
            return x.clamp(min=0, max=cap)

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            grad_x = None
            if ctx.needs_input_grad[0]:
                grad_x = grad_output * ((x > 0) & (x < ctx.cap)).to(grad_output.dtype)
            return grad_x, None

    return ClippedReLU


def run(torch, steps=4):
    nn = torch.nn
    ClippedReLU = make_fn(torch)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(5, 12), nn.Linear(12, 1)

        def forward(self, x):
            return self.fc2(ClippedReLU.apply(self.fc1(x), 1.0))

    rng = np.random.default_rng(13)
    x = torch.from_numpy(rng.standard_normal((30, 5)).astype(np.float32))
    y = torch.from_numpy(rng.standard_normal((30, 1)).astype(np.float32))
    net = init_from_numpy(torch, Net(), 13)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    inp = torch.from_numpy(rng.uniform(-0.5, 1.5, (6, 3))).requires_grad_(True)
    ok = torch.autograd.gradcheck(lambda t: ClippedReLU.apply(t, 1.0), (inp,), eps=1e-6, atol=1e-4)
    return {"losses": losses, "fc1_grad": net.fc1.weight.grad, "gradcheck": ok}
