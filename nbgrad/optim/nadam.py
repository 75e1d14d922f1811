"""NAdam (torch.optim.NAdam's update: Nesterov momentum with a decaying momentum cache)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._host import HostOptimizer, check_betas, check_nonnegative, lerp_, scalar_state
from .optimizer import _zeros_like


class NAdam(HostOptimizer):
    _scalar_state = ("step", "mu_product")

    def __init__(
        self,
        params: Any,
        lr: float = 0.002,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-08,
        weight_decay: float = 0,
        momentum_decay: float = 0.004,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, group, p, st):
        st["step"] = scalar_state(0.0)
        st["mu_product"] = scalar_state(1.0)
        st["exp_avg"] = _zeros_like(p)
        st["exp_avg_sq"] = _zeros_like(p)

    def _update(self, group, p, g, s):
        b1, b2 = group["betas"]
        lr, wd, psi = group["lr"], group["weight_decay"], group["momentum_decay"]
        if group["maximize"]:
            g = -g
        s["step"] += 1
        step = float(s["step"])
        bc2 = 1 - b2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p *= 1 - lr * wd
            else:
                g = g + wd * p
        mu = b1 * (1.0 - 0.5 * 0.96 ** (step * psi))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * psi))
        s["mu_product"] *= mu  # a float32 counter, rounded each step as in PyTorch
        mu_product = float(s["mu_product"])
        lerp_(s["exp_avg"], g, 1 - b1)
        sq = s["exp_avg_sq"]
        sq *= b2
        sq += (1 - b2) * (g * g)
        denom = np.sqrt(sq / bc2) + group["eps"]
        p += (-lr * (1.0 - mu) / (1.0 - mu_product)) * g / denom
        p += (-lr * mu_next / (1.0 - mu_product * mu_next)) * s["exp_avg"] / denom
