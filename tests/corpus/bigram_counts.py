"""makemore, part 1: a bigram character model from counts, then the same model as a
one-layer network trained by hand (one_hot, exp, normalise, negative log likelihood)."""

import numpy as np

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "evelyn"]


def run(torch, steps=5):
    chars = sorted(set("".join(WORDS)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    V = len(stoi)

    N = torch.zeros((V, V), dtype=torch.int32)
    xs, ys = [], []
    for w in WORDS:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            N[stoi[ch1], stoi[ch2]] += 1
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    xs, ys = torch.tensor(xs), torch.tensor(ys)
    nll = -P[xs, ys].log().mean()

    rng = np.random.default_rng(2147483647)
    W = torch.tensor(rng.standard_normal((V, V)).astype(np.float32), requires_grad=True)
    num = xs.nelement()
    losses = []
    for _ in range(steps):
        xenc = torch.nn.functional.one_hot(xs, num_classes=V).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        W.data += -10 * W.grad
        losses.append(loss.item())
    return {"counts": N, "count_nll": nll, "losses": losses, "W": W}
