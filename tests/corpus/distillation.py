"""Knowledge distillation: a frozen teacher in eval mode under no_grad, a student trained on
KL divergence between temperature-softened distributions (KLDivLoss, batchmean) plus
cross-entropy."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=4, T=3.0):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(29)
    X = torch.from_numpy(rng.standard_normal((40, 6)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 4, 40))
    teacher = init_from_numpy(
        torch, nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 4)), 29
    )
    student = init_from_numpy(torch, nn.Linear(6, 4), 30)
    teacher.eval()
    for p in teacher.parameters():
        p.requires_grad = False
    kl = nn.KLDivLoss(reduction="batchmean")
    opt = torch.optim.Adam(student.parameters(), lr=0.01)
    losses = []
    for _ in range(steps):
        with torch.no_grad():
            soft = F.softmax(teacher(X) / T, dim=1)
        logits = student(X)
        loss = 0.7 * kl(F.log_softmax(logits / T, dim=1), soft) * T * T + 0.3 * F.cross_entropy(
            logits, y
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "w": student.weight, "teacher_grad": teacher[0].weight.grad is None}
