"""Activation modules: thin wrappers over `nn.functional` with PyTorch's reprs."""

from __future__ import annotations

from typing import Any

from ...tensor import Tensor
from .. import functional as F
from .module import Module


class ReLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return input.relu()

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return input.sigmoid()


class GELU(Module):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate argument must be either none or tanh, got {approximate}")
        self.approximate = approximate

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.silu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.leaky_relu(input, self.negative_slope)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"negative_slope={self.negative_slope}{inplace_str}"


class ELU(Module):
    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.elu(input, self.alpha)

    def extra_repr(self):
        inplace_str = ", inplace=True" if self.inplace else ""
        return f"alpha={self.alpha}{inplace_str}"


class Softplus(Module):
    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class _Elementwise(Module):
    """An activation with no state: `forward` applies `_fn` with the module's settings."""

    _fn: Any
    _args: tuple[str, ...] = ()

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return type(self)._fn(input, *(getattr(self, a) for a in self._args))

    def extra_repr(self):
        return ", ".join(f"{a}={getattr(self, a)}" for a in self._args)


class Hardsigmoid(_Elementwise):
    """Applies `relu6(x + 3) / 6` elementwise; see `nn.functional.hardsigmoid`.

    Args:
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.Hardsigmoid()(torch.tensor([-4., 0., 1.5]))
        tensor([0.0000, 0.5000, 0.7500])
    """

    _fn = staticmethod(F.hardsigmoid)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Hardswish(_Elementwise):
    """Applies `x * relu6(x + 3) / 6` elementwise; see `nn.functional.hardswish`.

    Args:
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.Hardswish()(torch.tensor([-4., 0., 1.5]))
        tensor([-0.0000, 0.0000, 1.1250])
    """

    _fn = staticmethod(F.hardswish)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Mish(_Elementwise):
    """Applies `x * tanh(softplus(x))` elementwise; see `nn.functional.mish`.

    Args:
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.Mish()(torch.tensor([-1., 0., 2.]))
        tensor([-0.3034, 0.0000, 1.9440])
    """

    _fn = staticmethod(F.mish)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class Softsign(_Elementwise):
    """Applies `x / (1 + |x|)` elementwise.

    Example::

        >>> nn.Softsign()(torch.tensor([-3., 0., 1.]))
        tensor([-0.7500, 0.0000, 0.5000])
    """

    _fn = staticmethod(F.softsign)


class Tanhshrink(_Elementwise):
    """Applies `x - tanh(x)` elementwise.

    Example::

        >>> nn.Tanhshrink()(torch.tensor([-1., 0., 2.]))
        tensor([-0.2384, 0.0000, 1.0360])
    """

    _fn = staticmethod(F.tanhshrink)


class LogSigmoid(_Elementwise):
    """Applies `log(sigmoid(x))` elementwise.

    Example::

        >>> nn.LogSigmoid()(torch.tensor([-1., 0., 2.]))
        tensor([-1.3133, -0.6931, -0.1269])
    """

    _fn = staticmethod(F.logsigmoid)


class Softshrink(_Elementwise):
    """Shrinks each element towards zero by `lambd`; see `nn.functional.softshrink`.

    Args:
        lambd (float): the shrinkage, at least 0. Default: 0.5.

    Example::

        >>> nn.Softshrink()(torch.tensor([-1., 0.2, 2.]))
        tensor([-0.5000, 0.0000, 1.5000])
    """

    _fn = staticmethod(F.softshrink)
    _args = ("lambd",)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return str(self.lambd)


class Hardshrink(Softshrink):
    """Zeroes the elements within `[-lambd, lambd]`; see `nn.functional.hardshrink`.

    Args:
        lambd (float): the threshold. Default: 0.5.

    Example::

        >>> nn.Hardshrink()(torch.tensor([-1., 0.2, 2.]))
        tensor([-1., 0., 2.])
    """

    _fn = staticmethod(F.hardshrink)


class GLU(_Elementwise):
    """The gated linear unit `a * sigmoid(b)` over the halves of `dim`; see
    `nn.functional.glu`.

    Args:
        dim (int): the dimension to split. Default: -1.

    Example::

        >>> nn.GLU()(torch.tensor([[1., 2., 0., 3.]]))
        tensor([[0.5000, 1.9051]])
    """

    _fn = staticmethod(F.glu)
    _args = ("dim",)

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim


class Threshold(_Elementwise):
    """Keeps the elements above `threshold`, replaces the others by `value`.

    Args:
        threshold (float): the threshold.
        value (float): the replacement.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.Threshold(0.5, -9.)(torch.tensor([-1., 0.5, 2.]))
        tensor([-9., -9.,  2.])
    """

    _fn = staticmethod(F.threshold)
    _args = ("threshold", "value")

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace


class Hardtanh(_Elementwise):
    """Clamps each element to `[min_val, max_val]`; see `nn.functional.hardtanh`.

    Args:
        min_val (float): the lower bound. Default: -1.
        max_val (float): the upper bound. Default: 1.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.Hardtanh()(torch.tensor([-2., 0.5, 3.]))
        tensor([-1.0000,  0.5000,  1.0000])
    """

    _fn = staticmethod(F.hardtanh)
    _args = ("min_val", "max_val")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace


class ReLU6(Hardtanh):
    """Applies `min(max(x, 0), 6)` elementwise.

    Args:
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.ReLU6()(torch.tensor([-2., 0.5, 7.]))
        tensor([0.0000, 0.5000, 6.0000])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class SELU(_Elementwise):
    """Applies the scaled exponential linear unit elementwise; see `nn.functional.selu`.

    Args:
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.SELU()(torch.tensor([-1., 0., 2.]))
        tensor([-1.1113,  0.0000,  2.1014])
    """

    _fn = staticmethod(F.selu)

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class CELU(_Elementwise):
    """Applies `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))` elementwise.

    Args:
        alpha (float): the scale of the negative part. Default: 1.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> nn.CELU()(torch.tensor([-1., 0., 2.]))
        tensor([-0.6321,  0.0000,  2.0000])
    """

    _fn = staticmethod(F.celu)
    _args = ("alpha",)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace


class Softmin(Module):
    """Applies `softmax(-x)` along `dim`.

    Args:
        dim (int): the dimension the outputs sum to 1 along.

    Example::

        >>> nn.Softmin(dim=0)(torch.tensor([1., 2.]))
        tensor([0.7311, 0.2689])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.softmin(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PixelShuffle(Module):
    """Rearranges (*, C r^2, H, W) into (*, C, H r, W r); see `nn.functional.pixel_shuffle`.

    Args:
        upscale_factor (int): the factor r.

    Example::

        >>> nn.PixelShuffle(2)(torch.zeros(1, 8, 3, 3)).shape
        nbgrad.Size([1, 2, 6, 6])
    """

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """Rearranges (*, C, H r, W r) into (*, C r^2, H, W); see
    `nn.functional.pixel_unshuffle`.

    Args:
        downscale_factor (int): the factor r.

    Example::

        >>> nn.PixelUnshuffle(2)(torch.zeros(1, 2, 6, 6)).shape
        nbgrad.Size([1, 8, 3, 3])
    """

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
