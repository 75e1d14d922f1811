"""The nn.Module API as scripts use it: named_modules / named_parameters / buffers,
register_buffer (persistent or not), state_dict keys, load_state_dict(strict=False)'s
missing and unexpected keys, ModuleList / ModuleDict / ParameterList, apply, requires_grad_,
parameter counting, train/eval flags, and .double()."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(3, 4), nn.Linear(4, 4)])
            self.heads = nn.ModuleDict({"a": nn.Linear(4, 1), "b": nn.Linear(4, 2)})
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(4)) for _ in range(2)])
            self.norm = nn.BatchNorm1d(4)
            self.register_buffer("steps", torch.zeros((), dtype=torch.int64))
            self.register_buffer("cache", torch.zeros(4), persistent=False)

        def forward(self, x):
            for layer, s in zip(self.layers, self.scales):
                x = torch.relu(layer(x)) * s
            x = self.norm(x)
            self.steps += 1
            return self.heads["a"](x), self.heads["b"](x)

    net = init_from_numpy(torch, Net(), 66)
    x = torch.from_numpy(np.random.default_rng(66).standard_normal((5, 3)).astype(np.float32))
    a, b = net(x)
    (a.sum() + b.pow(2).sum()).backward()
    sd = net.state_dict()
    other = Net()
    res = other.load_state_dict(
        {k: v for k, v in sd.items() if not k.startswith("heads.b")} | {"extra": torch.ones(1)},
        strict=False,
    )
    names = []
    net.apply(lambda m: names.append(type(m).__name__))
    net.heads.requires_grad_(False)
    net.eval()
    d = net.double()
    return {
        "modules": [n for n, _ in net.named_modules()],
        "params": [n for n, _ in net.named_parameters()],
        "buffers": [n for n, _ in net.named_buffers()],
        "state_keys": list(sd.keys()),
        "missing": sorted(res.missing_keys),
        "unexpected": sorted(res.unexpected_keys),
        "applied": names,
        "count": sum(p.numel() for p in net.parameters()),
        "trainable": sum(p.numel() for p in net.parameters() if p.requires_grad),
        "steps": net.steps,
        "training": [m.training for m in net.modules()],
        "same_object": d is net,
        "dtype_after": str(net.layers[0].weight.dtype).split(".")[-1],
        "scale_grad": net.scales[1].grad,
        "children": [type(c).__name__ for c in net.children()],
    }
