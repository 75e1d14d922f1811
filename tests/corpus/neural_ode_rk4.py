"""A neural ODE integrated with a hand-written RK4 loop (20 steps) and trained to match a
spiral trajectory; gradients flow through every stage of every step."""

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, iters=3, n_steps=20, dt=0.1):
    nn = torch.nn
    f = init_from_numpy(
        torch, nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2)).double(), 60
    )
    A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]], dtype=torch.float64)
    z = torch.tensor([[2.0, 0.0]], dtype=torch.float64)
    truth = []
    for _ in range(n_steps):
        z = z + dt * z @ A.T
        truth.append(z)
    truth = torch.cat(truth)

    def odeint(z0):
        z, traj = z0, []
        for _ in range(n_steps):
            k1 = f(z)
            k2 = f(z + dt / 2 * k1)
            k3 = f(z + dt / 2 * k2)
            k4 = f(z + dt * k3)
            z = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            traj.append(z)
        return torch.cat(traj)

    opt = torch.optim.NAdam(f.parameters(), lr=1e-2)
    losses = []
    for _ in range(iters):
        loss = (odeint(torch.tensor([[2.0, 0.0]], dtype=torch.float64)) - truth).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "w": f[2].weight, "grad": f[0].weight.grad}
