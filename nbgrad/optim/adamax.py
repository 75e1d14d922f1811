"""Adamax (torch.optim.Adamax's update: Adam with an infinity-norm second moment)."""

import numpy as np

from ._host import HostOptimizer, check_betas, check_nonnegative, lerp_, scalar_state
from .optimizer import _zeros_like


class Adamax(HostOptimizer):
    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
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
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _init_state(self, group, p, st):
        st["step"] = scalar_state(0.0)
        st["exp_avg"] = _zeros_like(p)
        st["exp_inf"] = _zeros_like(p)

    def _update(self, group, p, g, s):
        b1, b2 = group["betas"]
        if group["maximize"]:
            g = -g
        s["step"] += 1
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        lerp_(s["exp_avg"], g, 1 - b1)
        inf = s["exp_inf"]
        inf *= b2
        np.maximum(inf, np.abs(g) + group["eps"], out=inf)
        clr = group["lr"] / (1 - b1 ** float(s["step"]))
        p += -clr * s["exp_avg"] / inf
