"""Classification with TensorDataset and DataLoader: an MLP, CrossEntropyLoss, Adam, and an
accuracy evaluated under no_grad."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, epochs=3):
    nn = torch.nn
    DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
    rng = np.random.default_rng(1)
    X = rng.standard_normal((120, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1).astype(np.int64)
    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(y)), batch_size=32)

    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    init_from_numpy(torch, model, 2)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    epoch_losses = []
    for _ in range(epochs):
        running = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * xb.size(0)
        epoch_losses.append(running / len(loader.dataset))

    correct = 0
    with torch.no_grad():
        for xb, yb in loader:
            _, predicted = torch.max(model(xb).data, 1)
            correct += (predicted == yb).sum().item()
    return {"losses": epoch_losses, "correct": correct, "last": model[2].weight}
