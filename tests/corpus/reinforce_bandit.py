"""REINFORCE with a Categorical policy on a contextual bandit: log_prob times a baselined
return, entropy bonus; actions drawn with NumPy from the policy's probabilities."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, episodes=6):
    nn = torch.nn
    Categorical = torch.distributions.Categorical
    rng = np.random.default_rng(8)
    policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 4))
    init_from_numpy(torch, policy, 8)
    opt = torch.optim.Adam(policy.parameters(), lr=0.02)
    payoff = rng.standard_normal((3, 4))
    losses, rewards, entropies = [], [], []
    for _ in range(episodes):
        states = rng.standard_normal((10, 3)).astype(np.float32)
        dist = Categorical(logits=policy(torch.from_numpy(states)))
        probs = dist.probs.detach().numpy().astype(np.float64)
        u = rng.uniform(size=(10, 1))
        actions = (u > np.cumsum(probs, axis=1)).sum(axis=1).clip(0, 3)
        r = (states @ payoff)[np.arange(10), actions].astype(np.float32)
        returns = torch.from_numpy(r)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        logp = dist.log_prob(torch.from_numpy(actions))
        entropy = dist.entropy().mean()
        loss = -(logp * returns).sum() - 0.01 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        rewards.append(float(r.mean()))
        entropies.append(entropy.item())
    return {"losses": losses, "rewards": rewards, "entropy": entropies, "out": policy[2].weight}
