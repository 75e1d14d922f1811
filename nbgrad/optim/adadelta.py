"""Adadelta (torch.optim.Adadelta's update)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._host import HostOptimizer, check_nonnegative, scalar_state
from .optimizer import _zeros_like


class Adadelta(HostOptimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-06,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps=eps, weight_decay=weight_decay)
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, group, p, st):
        st["step"] = scalar_state(0.0)
        st["square_avg"] = _zeros_like(p)
        st["acc_delta"] = _zeros_like(p)

    def _update(self, group, p, g, s):
        rho, eps = group["rho"], group["eps"]
        s["step"] += 1
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        sq, acc = s["square_avg"], s["acc_delta"]
        sq *= rho
        sq += (1 - rho) * (g * g)
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc *= rho
        acc += (1 - rho) * (delta * delta)
        p += -group["lr"] * delta
