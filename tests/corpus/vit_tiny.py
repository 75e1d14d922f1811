"""A tiny Vision Transformer: patch embedding by a strided Conv2d, flatten(2).transpose(1, 2),
a learned class token expanded over the batch, position embeddings, pre-norm
TransformerEncoderLayers with GELU, and a head on the class token."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch, steps=2):
    nn = torch.nn

    class ViT(nn.Module):
        def __init__(self, img=8, patch=4, dim=8, depth=2, heads=2, classes=3):
            super().__init__()
            n = (img // patch) ** 2
            self.patch_embed = nn.Conv2d(1, dim, kernel_size=patch, stride=patch)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
            self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, dim))
            layer = nn.TransformerEncoderLayer(
                dim,
                heads,
                dim_feedforward=2 * dim,
                dropout=0.0,
                activation="gelu",
                batch_first=True,
                norm_first=True,
            )
            self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, classes)

        def forward(self, x):
            x = self.patch_embed(x).flatten(2).transpose(1, 2)
            cls = self.cls_token.expand(x.shape[0], -1, -1)
            x = torch.cat((cls, x), dim=1) + self.pos_embed
            x = self.norm(self.blocks(x))
            return self.head(x[:, 0])

    model = init_from_numpy(torch, ViT(), 75)
    rng = np.random.default_rng(75)
    x = torch.from_numpy(rng.standard_normal((4, 1, 8, 8)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 3, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "cls_grad": model.cls_token.grad, "pos_grad": model.pos_embed.grad}
