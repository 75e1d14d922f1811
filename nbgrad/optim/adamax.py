"""Adamax (torch.optim.Adamax's update: Adam with an infinity-norm second moment)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._host import HostOptimizer, check_betas, check_nonnegative, lerp_, scalar_state
from .optimizer import _zeros_like


class Adamax(HostOptimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 0.002,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-08,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
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
