"""nbgrad.autograd: backward, grad, custom Functions and grad modes (PyTorch's names)."""

from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802 - PyTorch's name
    """Deprecated in PyTorch: returns `data` (a Tensor) with `requires_grad` set."""
    data.requires_grad_(requires_grad) if requires_grad else None
    return data


_LAZY = {
    "backward": ".engine",
    "grad": ".engine",
    "Function": ".function",
    "FunctionCtx": ".function",
    "once_differentiable": ".function",
    "gradcheck": ".checks",
    "gradgradcheck": ".checks",
    "detect_anomaly": ".anomaly_mode",
    "set_detect_anomaly": ".anomaly_mode",
}


def __getattr__(name):
    if name in ("functional", "forward_ad", "graph", "anomaly_mode"):
        import importlib

        return importlib.import_module("." + name, __name__)
    # engine/function import Tensor, which imports grad_mode from this package: load late
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module 'nbgrad.autograd' has no attribute {name!r}")


__all__ = [
    *_LAZY,
    "enable_grad",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]
