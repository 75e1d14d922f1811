"""Hooks as users use them: a forward hook collecting activations, a forward pre-hook
rescaling the input, a tensor hook clipping a gradient, a full backward hook recording
grad_output norms, and removing them again."""

import numpy as np

from corpus._util import init_from_numpy


def run(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    init_from_numpy(torch, model, 18)
    x = torch.from_numpy(np.random.default_rng(18).standard_normal((5, 4)).astype(np.float32))

    activations = {}

    def save_activation(name):
        def hook(module, inp, out):
            activations[name] = out.detach()

        return hook

    grad_norms = []
    handles = [
        model[1].register_forward_hook(save_activation("tanh")),
        model[0].register_forward_pre_hook(lambda m, args: (args[0] * 2,)),
        model[2].register_full_backward_hook(
            lambda m, gin, gout: grad_norms.append(gout[0].norm().item())
        ),
    ]
    h = model[0](x)
    h.register_hook(lambda g: g.clamp(-0.05, 0.05))
    out = model[2](model[1](h))
    out.pow(2).sum().backward()
    with_hooks = model[0].weight.grad.clone()

    for handle in handles:
        handle.remove()
    model.zero_grad()
    model(x).pow(2).sum().backward()
    return {
        "act": activations["tanh"],
        "grad_norms": grad_norms,
        "w_grad_hooked": with_hooks,
        "w_grad_plain": model[0].weight.grad,
        "calls_after_remove": len(grad_norms),
    }
