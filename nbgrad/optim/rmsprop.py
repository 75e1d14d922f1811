"""RMSprop (torch.optim.RMSprop's update: centered, momentum, weight decay, maximize)."""

from __future__ import annotations

from typing import Any

from ..backends.cpu import optim as _kernels
from .optimizer import Optimizer, _step_tensor, _zeros_like


class RMSprop(Optimizer):
    _kernel = _kernels.rmsprop
    _has_step = True

    def __init__(
        self,
        params: Any,
        lr: float = 0.01,
        alpha: float = 0.99,
        eps: float = 1e-08,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _row(self, group, p, g, st):
        if not st:
            st["step"] = _step_tensor()
            st["square_avg"] = _zeros_like(p)
            if group["momentum"] > 0:
                st["momentum_buffer"] = _zeros_like(p)
            if group["centered"]:
                st["grad_avg"] = _zeros_like(p)
        if group["momentum"] > 0 and "momentum_buffer" not in st:
            st["momentum_buffer"] = _zeros_like(p)
        if group["centered"] and "grad_avg" not in st:
            st["grad_avg"] = _zeros_like(p)
        sq = st["square_avg"]
        ga = st.get("grad_avg")
        buf = st.get("momentum_buffer")
        return (
            (
                p,
                g,
                sq,
                ga if ga is not None else sq,
                buf if buf is not None else sq,
                st["step"],
            ),
            (
                group["lr"],
                group["alpha"],
                group["eps"],
                group["weight_decay"],
                group["momentum"],
                1.0 if group["centered"] else 0.0,
                1.0 if group["maximize"] else 0.0,
            ),
        )
