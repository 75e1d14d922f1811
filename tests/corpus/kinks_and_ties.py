"""Gradients at kinks and ties, where conventions matter: relu, clamp and abs at exactly the
boundary, a hinge loss with margins hitting zero, max over dim / amax / max() with tied
values, torch.where picking branches, and maximum / minimum of equal arguments."""

TOL = dict(rtol=1e-12, atol=1e-12)


def run(torch):
    out = {}
    x = torch.tensor([-1.0, 0.0, 0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    parts = {
        "relu": lambda x: torch.relu(x),
        "clamp": lambda x: x.clamp(0.0, 1.0),
        "abs": lambda x: x.abs(),
        "hinge": lambda x: (1 - x).clamp(min=0),
        "where": lambda x: torch.where(x > 0.5, x**2, -x),
        "maximum": lambda x: torch.maximum(x, torch.ones_like(x)),
        "minimum": lambda x: torch.minimum(x, torch.zeros_like(x)),
        "sqrt_abs": lambda x: (x.abs() + 1).sqrt(),
        "leaky": lambda x: torch.nn.functional.leaky_relu(x, 0.1),
        "hardtanh": lambda x: torch.nn.functional.hardtanh(x),
        "relu6": lambda x: torch.nn.functional.relu6(x * 3),
    }
    for name, f in parts.items():
        (g,) = torch.autograd.grad(f(x).sum(), x)
        out[name] = g
    t = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]], dtype=torch.float64, requires_grad=True)
    (out["max_dim"],) = torch.autograd.grad(t.max(dim=1).values.sum(), t)
    (out["amax"],) = torch.autograd.grad(t.amax(dim=1).sum(), t)
    (out["max_all"],) = torch.autograd.grad(t.max(), t)
    (out["min_dim"],) = torch.autograd.grad(t.min(dim=0)[0].sum(), t)
    z = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    (out["norm_at_zero"],) = torch.autograd.grad(z.norm(), z)
    out["argmax_ties"] = t.argmax(dim=1)
    return out
