"""SGD with momentum, dampening, Nesterov and weight decay (torch.optim.SGD's update)."""

from __future__ import annotations

from typing import Any

from ..backends.cpu import optim as _kernels
from .optimizer import Optimizer, _zeros_like


class SGD(Optimizer):
    _kernel = _kernels.sgd

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _row(self, group, p, g, st):
        momentum = group["momentum"]
        fresh = 0.0
        if momentum != 0:
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = st["momentum_buffer"] = _zeros_like(p)
                fresh = 1.0
        else:
            buf = g  # unused
        return (
            (p, g, buf),
            (
                group["lr"],
                momentum,
                group["dampening"],
                group["weight_decay"],
                1.0 if group["nesterov"] else 0.0,
                1.0 if group["maximize"] else 0.0,
                fresh,
            ),
        )
