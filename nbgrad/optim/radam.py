"""RAdam (torch.optim.RAdam's update: Adam with a rectified adaptive learning rate)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._host import HostOptimizer, check_betas, check_nonnegative, lerp_, scalar_state
from .optimizer import _zeros_like


class RAdam(HostOptimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-08,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr, eps=eps)
        check_betas(betas)
        check_nonnegative(weight_decay=weight_decay)
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, group, p, st):
        st["step"] = scalar_state(0.0)
        st["exp_avg"] = _zeros_like(p)
        st["exp_avg_sq"] = _zeros_like(p)

    def _update(self, group, p, g, s):
        b1, b2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        s["step"] += 1
        step = float(s["step"])
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p *= 1 - lr * wd
            else:
                g = g + wd * p
        lerp_(s["exp_avg"], g, 1 - b1)
        sq = s["exp_avg_sq"]
        sq *= b2
        sq += (1 - b2) * (g * g)
        bc1 = 1 - b1**step
        bc2 = 1 - b2**step
        m_hat = s["exp_avg"] / bc1
        # the length of the approximated simple moving average, and its limit
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * step * (b2**step) / bc2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            adaptive = bc2**0.5 / (np.sqrt(sq) + group["eps"])
            p -= m_hat * lr * adaptive * rect
        else:
            p -= m_hat * lr
