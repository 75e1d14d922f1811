"""More activations and pixel shuffles, composed from recorded ops (so they differentiate
to any order, on every device)."""

from __future__ import annotations

from ..ops import activations as _act
from ..ops.select import where
from ..tensor import Tensor


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """Applies `relu6(x + 3) / 6` elementwise.

    Args:
        input (Tensor): the input.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> F.hardsigmoid(torch.tensor([-4., 0., 1.5]))
        tensor([0.0000, 0.5000, 0.7500])
    """
    return _act.relu6(input + 3.0) / 6.0


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """Applies `x * relu6(x + 3) / 6` elementwise.

    Args:
        input (Tensor): the input.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> F.hardswish(torch.tensor([-4., 0., 1.5]))
        tensor([-0.0000, 0.0000, 1.1250])
    """
    return input * hardsigmoid(input)


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """Applies `x / (1 + |x|)` elementwise.

    Args:
        input (Tensor): the input.

    Example::

        >>> F.softsign(torch.tensor([-3., 0., 1.]))
        tensor([-0.7500, 0.0000, 0.5000])
    """
    return input / (input.abs() + 1.0)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """Applies `x - tanh(x)` elementwise.

    Args:
        input (Tensor): the input.

    Example::

        >>> F.tanhshrink(torch.tensor([-1., 0., 2.]))
        tensor([-0.2384, 0.0000, 1.0360])
    """
    return input - input.tanh()


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """Shrinks each element towards zero by `lambd` (zero within `[-lambd, lambd]`).

    Args:
        input (Tensor): the input.
        lambd (float): the shrinkage, at least 0. Default: 0.5.

    Example::

        >>> F.softshrink(torch.tensor([-1., 0.2, 2.]))
        tensor([-0.5000, 0.0000, 1.5000])
    """
    if lambd < 0:
        import numpy as np

        from .._dtype import scalar_name

        top = float(np.finfo(input._data.dtype).max)
        raise RuntimeError(
            f"lambda must be in range [0, {top:g}] for input dtype "
            f"{scalar_name(input.dtype)}, but found {lambd:g}"
        )
    zero = input * 0.0
    return where(input > lambd, input - lambd, where(input < -lambd, input + lambd, zero))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """Zeroes the elements within `[-lambd, lambd]`, keeps the others.

    Args:
        input (Tensor): the input.
        lambd (float): the threshold. Default: 0.5.

    Example::

        >>> F.hardshrink(torch.tensor([-1., 0.2, 2.]))
        tensor([-1., 0., 2.])
    """
    return where(input.abs() > lambd, input, input * 0.0)


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """Applies `x * tanh(softplus(x))` elementwise.

    Args:
        input (Tensor): the input.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> F.mish(torch.tensor([-1., 0., 2.]))
        tensor([-0.3034, 0.0000, 1.9440])
    """
    return input * _act.softplus(input, 1.0, 20.0).tanh()


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    """The gated linear unit: `a * sigmoid(b)`, `a` and `b` the two halves of `input`
    along `dim`.

    Args:
        input (Tensor): the input; its size along `dim` must be even.
        dim (int): the dimension to split. Default: -1.

    Example::

        >>> F.glu(torch.tensor([[1., 2., 0., 3.]]))
        tensor([[0.5000, 1.9051]])
    """
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim % input.dim()} is size {n}"
        )
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    """Keeps the elements above `threshold` and replaces the others by `value`.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): the replacement.
        inplace (bool): accepted; computes out of place. Default: False.

    Example::

        >>> F.threshold(torch.tensor([-1., 0.5, 2.]), 0.5, -9.)
        tensor([-9., -9.,  2.])
    """
    return where(input > threshold, input, input * 0.0 + value)


def _shuffle_check(input, name):
    if input.dim() < 3:
        raise RuntimeError(
            f"{name} expects input to have at least 3 dimensions, but got input with "
            f"{input.dim()} dimension(s)"
        )


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """Rearranges (*, C r^2, H, W) into (*, C, H r, W r), r = `upscale_factor`.

    Args:
        input (Tensor): the input.
        upscale_factor (int): the factor r.

    Example::

        >>> F.pixel_shuffle(torch.arange(8.).reshape(1, 4, 1, 2), 2)
        tensor([[[[0., 2., 1., 3.],
                  [4., 6., 5., 7.]]]])
    """
    _shuffle_check(input, "pixel_shuffle")
    r = int(upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the "
            f"square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )
    k = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """Rearranges (*, C, H r, W r) into (*, C r^2, H, W), r = `downscale_factor`: the
    inverse of `pixel_shuffle`.

    Args:
        input (Tensor): the input.
        downscale_factor (int): the factor r.

    Example::

        >>> F.pixel_unshuffle(torch.arange(4.).reshape(1, 1, 2, 2), 2).flatten()
        tensor([0., 1., 2., 3.])
    """
    _shuffle_check(input, "pixel_unshuffle")
    r = int(downscale_factor)
    *lead, c, h, w = input.shape
    if h % r or w % r:
        dim, size = ("height", h) if h % r else ("width", w)
        raise RuntimeError(
            f"pixel_unshuffle expects {dim} to be divisible by downscale_factor, but "
            f"input.size({-2 if dim == 'height' else -1})={size} is not divisible by {r}"
        )
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)
