"""makemore, part 2: a character MLP (Bengio et al.) with an embedding table indexed by an
integer tensor, tanh hidden layer, F.cross_entropy and a hand-written SGD update."""

import numpy as np

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia"]
BLOCK = 3


def run(torch, steps=8):
    F = torch.nn.functional
    chars = sorted(set("".join(WORDS)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    X, Y = [], []
    for w in WORDS:
        context = [0] * BLOCK
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X, Y = torch.tensor(X), torch.tensor(Y)

    rng = np.random.default_rng(42)
    V, E, H = len(stoi), 4, 32
    C = torch.tensor(rng.standard_normal((V, E)).astype(np.float32))
    W1 = torch.tensor((rng.standard_normal((BLOCK * E, H)) * 0.3).astype(np.float32))
    b1 = torch.tensor((rng.standard_normal(H) * 0.01).astype(np.float32))
    W2 = torch.tensor((rng.standard_normal((H, V)) * 0.1).astype(np.float32))
    b2 = torch.zeros(V)
    parameters = [C, W1, b1, W2, b2]
    for p in parameters:
        p.requires_grad = True

    losses = []
    for i in range(steps):
        ix = torch.from_numpy(rng.integers(0, X.shape[0], (16,)))
        emb = C[X[ix]]
        h = torch.tanh(emb.view(-1, BLOCK * E) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < steps // 2 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        losses.append(loss.item())
    with torch.no_grad():
        emb = C[X]
        full = F.cross_entropy(torch.tanh(emb.view(-1, BLOCK * E) @ W1 + b1) @ W2 + b2, Y)
    return {"losses": losses, "full_loss": full, "C_grad": C.grad, "W1": W1}
