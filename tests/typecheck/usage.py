"""User code written against nbgrad's annotations: the type checker (mypy, configured in
pyproject.toml and run by .ci/run) must accept it. Not a test module (pytest does not collect
it); each line is what a user writes, with the type they expect in the annotation."""

from __future__ import annotations

import nbgrad as torch
from nbgrad import Tensor, nn

y = torch.randn(3, requires_grad=True)
z: Tensor = (y * y).sum()
z.backward()
g: Tensor | None = y.grad
w: Tensor = torch.zeros(2, 3) @ torch.ones(3) + 1.0
v: Tensor = torch.tensor([1.0, 2.0]).exp().mean(dim=0, keepdim=True)
n: int = torch.arange(6).reshape(2, 3).shape[0]
x: float = torch.tensor(2.5).item()
parts: tuple[Tensor, ...] = torch.arange(4.0).split(2)
with torch.no_grad():
    u: Tensor = torch.cat([y, y]) * 2
(grad_y,) = torch.autograd.grad((y**2).sum(), y)
gy: Tensor = grad_y

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
out: Tensor = model(torch.randn(5, 3))
loss: Tensor = nn.functional.mse_loss(out, torch.zeros(5, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
opt.zero_grad()
loss.backward()
opt.step()
