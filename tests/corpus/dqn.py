"""A DQN update: Q-values of the taken actions with gather, a target network copied with
copy.deepcopy / load_state_dict, max over next actions, Huber loss, soft target update."""

import copy

import numpy as np

from corpus._util import init_from_numpy


def run(torch, updates=4, gamma=0.99, tau=0.1):
    nn = torch.nn
    rng = np.random.default_rng(36)
    policy = init_from_numpy(
        torch, nn.Sequential(nn.Linear(4, 24), nn.ReLU(), nn.Linear(24, 3)), 36
    )
    target = copy.deepcopy(policy)
    target.load_state_dict(policy.state_dict())
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3, amsgrad=True)
    criterion = nn.SmoothL1Loss()
    losses = []
    for _ in range(updates):
        state = torch.from_numpy(rng.standard_normal((16, 4)).astype(np.float32))
        action = torch.from_numpy(rng.integers(0, 3, 16))
        reward = torch.from_numpy(rng.standard_normal(16).astype(np.float32))
        next_state = torch.from_numpy(rng.standard_normal((16, 4)).astype(np.float32))
        done = torch.from_numpy(rng.uniform(size=16) < 0.2)
        q = policy(state).gather(1, action.unsqueeze(1))
        with torch.no_grad():
            next_q = target(next_state).max(1).values
            next_q[done] = 0.0
        expected = reward + gamma * next_q
        loss = criterion(q, expected.unsqueeze(1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(policy.parameters(), 100)
        opt.step()
        sd_t, sd_p = target.state_dict(), policy.state_dict()
        for key in sd_p:
            sd_t[key] = sd_p[key] * tau + sd_t[key] * (1 - tau)
        target.load_state_dict(sd_t)
        losses.append(loss.item())
    return {"losses": losses, "target": target[2].weight, "policy": policy[0].bias}
