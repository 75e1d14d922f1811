"""Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d: PyTorch's layers, parameters and init."""

from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...ops.spatial import _tuple
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .linear import _empty
from .module import Module

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    _nsp = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        groups: int,
        bias: bool,
        padding_mode: str,
        output_padding: Any = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        creation._check_device(device)
        n = self._nsp
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of ['valid', 'same']"
                )
            if padding == "same" and any(s != 1 for s in _tuple(stride, n, "stride")):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_PADDING_MODES}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n, "stride")
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n, "padding")
        self.dilation = _tuple(dilation, n, "dilation")
        self.transposed = self._transposed
        self.output_padding = _tuple(output_padding, n, "output_padding")
        self.groups = groups
        self.padding_mode = padding_mode
        if self._transposed:
            shape = (in_channels, out_channels // groups, *self.kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = _empty(*shape, dtype=dtype)
        if bias:
            self.bias = _empty(out_channels, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _Conv(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )
        # padding_mode != "zeros" pads explicitly first (F.pad's order: last dim first)
        if isinstance(self.padding, str):
            total = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            pads = [(0, 0) if self.padding == "valid" else (t // 2, t - t // 2) for t in total]
        else:
            pads = [(p, p) for p in self.padding]
        self._reversed_padding_repeated_twice = tuple(
            v for lo, hi in reversed(pads) for v in (lo, hi)
        )

    def _conv_forward(self, input, weight, bias):  # noqa: A002
        f = F.conv1d if self._nsp == 1 else F.conv2d
        if self.padding_mode != "zeros":
            x = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return f(x, weight, bias, self.stride, 0, self.dilation, self.groups)
        return f(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Any:  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    _nsp = 1


class Conv2d(_Conv):
    _nsp = 2


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            output_padding,
            device=device,
            dtype=dtype,
        )

    def _output_padding(self, input, output_size):  # noqa: A002
        if output_size is None:
            return self.output_padding
        n = self._nsp
        size = list(output_size)[-n:]
        spatial = list(input.shape)[-n:]
        pads = []
        for i in range(n):
            lo = (
                (spatial[i] - 1) * self.stride[i]
                - 2 * self.padding[i]
                + self.dilation[i] * (self.kernel_size[i] - 1)
                + 1
            )
            if not lo <= size[i] < lo + self.stride[i]:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from "
                    f"{[lo]} to {[lo + self.stride[i] - 1]} (for an input of {spatial})"
                )
            pads.append(size[i] - lo)
        return tuple(pads)

    def forward(self, input: Tensor, output_size: Any = None) -> Any:  # noqa: A002
        f = F.conv_transpose1d if self._nsp == 1 else F.conv_transpose2d
        op = self._output_padding(input, output_size)
        return f(
            input, self.weight, self.bias, self.stride, self.padding, op, self.groups, self.dilation
        )


class ConvTranspose1d(_ConvTranspose):
    _nsp = 1


class ConvTranspose2d(_ConvTranspose):
    _nsp = 2
