"""A map-style Dataset subclass of variable-length sequences, a DataLoader with a custom
collate_fn padding each batch and returning lengths, drop_last, and a masked mean loss."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, epochs=2):
    nn = torch.nn
    Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader

    class Sequences(Dataset):
        def __init__(self, n, seed):
            rng = np.random.default_rng(seed)
            self.items = [
                rng.standard_normal((rng.integers(2, 6), 3)).astype(np.float32) for _ in range(n)
            ]

        def __len__(self):
            return len(self.items)

        def __getitem__(self, i):
            seq = self.items[i]
            return torch.from_numpy(seq), float(seq[:, 0].sum() > 0)

    def pad_collate(batch):
        seqs, labels = zip(*batch)
        lengths = torch.tensor([len(s) for s in seqs])
        padded = torch.zeros(len(seqs), int(lengths.max()), 3)
        for i, s in enumerate(seqs):
            padded[i, : len(s)] = s
        return padded, lengths, torch.tensor(labels)

    loader = DataLoader(Sequences(14, 56), batch_size=4, collate_fn=pad_collate, drop_last=True)
    model = init_from_numpy(torch, nn.Linear(3, 1), 56)
    opt = torch.optim.Adamax(model.parameters(), lr=0.05)
    losses, shapes = [], []
    for _ in range(epochs):
        for padded, lengths, labels in loader:
            mask = (torch.arange(padded.size(1)).unsqueeze(0) < lengths.unsqueeze(1)).float()
            scores = model(padded).squeeze(-1)
            logits = (scores * mask).sum(1) / mask.sum(1)
            loss = nn.functional.binary_cross_entropy_with_logits(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            shapes.append(list(padded.shape))
    return {"losses": losses, "shapes": shapes, "batches": len(loader), "w": model.weight}
