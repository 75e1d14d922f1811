"""Adam and AdamW (torch.optim's single-tensor updates, amsgrad and maximize included)."""

from __future__ import annotations

from typing import Any

from ..backends.cpu import optim as _kernels
from .optimizer import Optimizer, _step_tensor, _zeros_like


class Adam(Optimizer):
    _kernel = _kernels.adam
    _has_step = True

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-08,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise NotImplementedError("differentiable=True is not supported by nbgrad")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _row(self, group, p, g, st):
        if not st:
            st["step"] = _step_tensor()
            st["exp_avg"] = _zeros_like(p)
            st["exp_avg_sq"] = _zeros_like(p)
            if group["amsgrad"]:
                st["max_exp_avg_sq"] = _zeros_like(p)
        sq = st["exp_avg_sq"]
        mx = st.get("max_exp_avg_sq")
        if group["amsgrad"] and mx is None:
            mx = st["max_exp_avg_sq"] = _zeros_like(p)
        b1, b2 = group["betas"]
        return (
            (
                p,
                g,
                st["exp_avg"],
                sq,
                mx if group["amsgrad"] else sq,
                st["step"],
            ),
            (
                group["lr"],
                b1,
                b2,
                group["eps"],
                group["weight_decay"],
                1.0 if group["amsgrad"] else 0.0,
                1.0 if group["maximize"] else 0.0,
                1.0 if group["decoupled_weight_decay"] else 0.0,
            ),
        )


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2), as torch.optim.AdamW."""

    def __init__(
        self,
        params: Any,
        lr: float = 0.001,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-08,
        weight_decay: float = 0.01,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
