"""A convolutional autoencoder: strided Conv2d and GroupNorm down, ConvTranspose2d and
bilinear Upsample back, sigmoid output, BCELoss; float64 for a tight comparison."""

import numpy as np

from corpus._util import init_from_numpy

TOL = dict(rtol=1e-9, atol=1e-11)


def run(torch, steps=2):
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, stride=2, padding=1),
        nn.GroupNorm(2, 4),
        nn.ELU(),
        nn.Conv2d(4, 8, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1),
        nn.ReLU(),
        nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
        nn.Conv2d(4, 1, 3, padding=1),
        nn.Sigmoid(),
    ).double()
    init_from_numpy(torch, model, 54)
    x = torch.from_numpy(np.random.default_rng(54).uniform(size=(3, 1, 8, 8)))
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3, momentum=0.5, centered=True)
    losses = []
    for _ in range(steps):
        recon = model(x)
        loss = nn.BCELoss()(recon, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "recon": recon,
        "deconv_grad": model[5].weight.grad,
        "gn_grad": model[1].weight.grad,
    }
