"""Full-batch logistic regression in float64 with LBFGS (strong Wolfe line search) and a
closure, then the Rosenbrock function with plain LBFGS steps."""

import numpy as np

TOL = dict(rtol=1e-7, atol=1e-9)


def run(torch):
    rng = np.random.default_rng(16)
    X = torch.from_numpy(rng.standard_normal((50, 3)))
    y = torch.from_numpy((rng.uniform(size=50) < 0.5).astype(np.float64))
    w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], lr=1, max_iter=20, line_search_fn="strong_wolfe")
    losses = []

    def closure():
        opt.zero_grad()
        loss = (
            torch.nn.functional.binary_cross_entropy_with_logits(X @ w + b, y) + 1e-2 * (w**2).sum()
        )
        loss.backward()
        losses.append(loss.item())
        return loss

    final = opt.step(closure)

    xy = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
    opt2 = torch.optim.LBFGS([xy], lr=0.5, max_iter=5, history_size=4)

    def rosen():
        opt2.zero_grad()
        f = (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2
        f.backward()
        return f

    for _ in range(3):
        opt2.step(rosen)
    return {"losses": losses, "final": final, "w": w, "b": b, "rosen": xy}
