"""Grad-mode control inside real code: no_grad around an EMA update of a teacher,
enable_grad inside no_grad, set_grad_enabled(False) for evaluation, the no_grad decorator,
inference_mode, detach / detach_ / requires_grad_ mid-graph, retain_grad on an
intermediate, and .grad of a non-leaf."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-10, atol=1e-12)


def run(torch):
    nn = torch.nn
    student = init_from_numpy(torch, nn.Linear(3, 2).double(), 71)
    teacher = init_from_numpy(torch, nn.Linear(3, 2).double(), 72)
    x = torch.from_numpy(np.random.default_rng(71).standard_normal((4, 3)))

    @torch.no_grad()
    def ema(decay=0.9):
        for pt, ps in zip(teacher.parameters(), student.parameters()):
            pt.mul_(decay).add_(ps, alpha=1 - decay)

    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for _ in range(3):
        with torch.no_grad():
            target = teacher(x)
        loss = ((student(x) - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema()
    flags = {}
    with torch.no_grad():
        flags["in_no_grad"] = torch.is_grad_enabled()
        with torch.enable_grad():
            inner = student(x).sum()
            flags["inner_requires_grad"] = inner.requires_grad
    with torch.set_grad_enabled(False):
        flags["set_false"] = student(x).requires_grad
    with torch.inference_mode():
        flags["inference"] = student(x).requires_grad
    h = student(x)
    h.retain_grad()
    d = h.detach()
    flags["detached_is_leaf"] = d.is_leaf
    flags["detached_requires_grad"] = d.requires_grad
    z = d.clone().requires_grad_(True)
    out = (h * z).sum() + (h**2).sum()
    out.backward()
    return {
        "teacher": teacher.weight,
        "student": student.weight,
        "flags": flags,
        "h_grad": h.grad,
        "z_grad": z.grad,
        "inner_grad_fn": type(inner.grad_fn).__name__,
    }
