"""Adagrad (torch.optim.Adagrad's update: lr decay, weight decay, initial accumulator)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._host import HostOptimizer, check_nonnegative, full_like_param, scalar_state


class Adagrad(HostOptimizer):
    def __init__(
        self,
        params: Any,
        lr: float = 0.01,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_nonnegative(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay)
        check_nonnegative(initial_accumulator_value=initial_accumulator_value, eps=eps)
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:  # state exists from the start, as in PyTorch
            for p in group["params"]:
                self.state[p] = {}
                self._init_state(group, p, self.state[p])

    def _init_state(self, group, p, st):
        st["step"] = scalar_state(0.0)
        st["sum"] = full_like_param(p, self.defaults["initial_accumulator_value"])

    def _update(self, group, p, g, s):
        s["step"] += 1
        step = float(s["step"])
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s["sum"] += g * g
        std = np.sqrt(s["sum"]) + group["eps"]
        p += -clr * g / std
