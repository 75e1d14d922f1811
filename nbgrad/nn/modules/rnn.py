"""RNN, LSTM, GRU and their cells: PyTorch's layers, parameter names (weight_ih_l0, ...,
so a PyTorch state_dict loads), init U(-1/sqrt(hidden), 1/sqrt(hidden)) and shapes.

An LSTM layer and direction on CPU tensors is one fused op (`ops/recurrent.py`: one row,
outputs as views of its result). Elsewhere (CUDA, RNN, GRU) each step is composed of
recorded ops; the input projections of all time steps are one matmul per layer and
direction, so a step records only the hidden projection and gates."""

from __future__ import annotations

import math
from typing import Any

from ... import creation
from ...ops import recurrent as _rec
from ...ops.joins import cat, stack
from ...ops.linear import linear
from ...tensor import Tensor
from .. import functional as F
from .. import init
from .linear import _empty
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# A state of None is the zero state: the first step then records no hidden projection (and
# no constant tensor, so nbgrad.compile can replay a call without initial states)
def _hidden(xg, h, w_hh, b_hh):
    if h is not None:
        return xg + linear(h, w_hh, b_hh)
    return xg if b_hh is None else xg + b_hh


def _lstm_step(xg, h, c, w_hh, b_hh):
    i, f, gg, o = _hidden(xg, h, w_hh, b_hh).chunk(4, -1)
    c = i.sigmoid() * gg.tanh() if c is None else f.sigmoid() * c + i.sigmoid() * gg.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(xg, h, w_hh, b_hh):
    xr, xz, xn = xg.chunk(3, -1)
    if h is None and b_hh is None:
        z, n = xz.sigmoid(), xn.tanh()
        return n - z * n
    hr, hz, hn = (linear(h, w_hh, b_hh) if h is not None else b_hh).chunk(3, -1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n - z * n if h is None else n + z * (h - n)


def _rnn_step(xg, h, w_hh, b_hh, relu):
    a = _hidden(xg, h, w_hh, b_hh)
    return a.relu() if relu else a.tanh()


class RNNBase(Module):
    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        creation._check_device(device)
        if (
            not isinstance(dropout, (int, float))
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size:
            raise NotImplementedError("LSTM(proj_size=...) is not supported")
        self.mode = mode
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.bias = num_layers, bias
        self.batch_first, self.dropout = batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gate = _GATES[mode] * hidden_size
        dirs = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(dirs):
                in_size = input_size if layer == 0 else hidden_size * dirs
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                names = [f"weight_ih{sfx}", f"weight_hh{sfx}"]
                setattr(self, names[0], _empty(gate, in_size, dtype=dtype))
                setattr(self, names[1], _empty(gate, hidden_size, dtype=dtype))
                if bias:
                    names += [f"bias_ih{sfx}", f"bias_hh{sfx}"]
                    setattr(self, names[2], _empty(gate, dtype=dtype))
                    setattr(self, names[3], _empty(gate, dtype=dtype))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    @property
    def all_weights(self):
        per = 4 if self.bias else 2
        w = [getattr(self, n) for n in self._flat_weights_names]
        return [w[i : i + per] for i in range(0, len(w), per)]

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for n in self._flat_weights_names:
            init.uniform_(getattr(self, n), -stdv, stdv)

    def _weights(self, layer, d):
        sfx = f"_l{layer}" + ("_reverse" if d else "")
        b = self.bias
        return (
            getattr(self, f"weight_ih{sfx}"),
            getattr(self, f"weight_hh{sfx}"),
            getattr(self, f"bias_ih{sfx}") if b else None,
            getattr(self, f"bias_hh{sfx}") if b else None,
        )

    def forward(self, input: Tensor, hx=None) -> Any:  # noqa: A002
        from ..utils.rnn import PackedSequence, run_packed_input

        if isinstance(input, PackedSequence):  # each sequence through its own length
            return run_packed_input(self, input, hx)
        lstm = self.mode == "LSTM"
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                "tensor instead"
            )
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        if x.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {x.shape[-1]}"
            )
        seq, n = x.shape[0], x.shape[1]
        dirs = 2 if self.bidirectional else 1
        want = (self.num_layers * dirs, n, self.hidden_size)
        if hx is None and seq == 1:  # weight_hh then gets a zero gradient, as in PyTorch
            h0 = c0 = creation.zeros(*want, dtype=x.dtype, device=x.device)  # type: Tensor | None
        elif hx is None:
            h0 = c0 = None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            for name, t in (("hidden", h0), ("cell", c0)):
                if t is not None and tuple(t.shape) != want:
                    label = (
                        "Expected hidden size" if name == "hidden" else "Expected hidden[1] size"
                    )
                    if lstm and name == "hidden":
                        label = "Expected hidden[0] size"
                    raise RuntimeError(f"{label} {want}, got {list(t.shape)}")
        hs, cs = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                k = layer * dirs + d
                h = h0[k] if h0 is not None else None
                c = c0[k] if lstm and c0 is not None else None
                y = _rec.lstm(x, w_ih, w_hh, b_ih, b_hh, h, c, d) if lstm else None
                if y is not None:  # the fused layer: Y[0], Y[1] hold each step's h, c
                    last = 0 if d else seq - 1
                    outs.append(y[0])
                    hs.append(y[0, last : last + 1])  # views of Y, as (1, batch, hidden)
                    cs.append(y[1, last : last + 1])
                    continue
                xg = linear(x, w_ih, b_ih).unbind(0)  # all steps' input projections at once
                steps = range(seq - 1, -1, -1) if d else range(seq)
                out = [None] * seq
                for t in steps:
                    if lstm:
                        h, c = _lstm_step(xg[t], h, c, w_hh, b_hh)
                    elif self.mode == "GRU":
                        h = _gru_step(xg[t], h, w_hh, b_hh)
                    else:
                        h = _rnn_step(xg[t], h, w_hh, b_hh, self.mode == "RNN_RELU")
                    out[t] = h
                outs.append(stack(out, 0))
                hs.append(stack([h], 0))
                cs.append(stack([c], 0) if lstm else None)
            x = outs[0] if dirs == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        output = x
        h_n = hs[0] if len(hs) == 1 else cat(hs, 0)
        if batched and self.batch_first:
            output = output.transpose(0, 1)
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
        if lstm:
            c_n = cs[0] if len(cs) == 1 else cat(cs, 0)
            return output, (h_n, c_n if batched else c_n.squeeze(1))
        return output, h_n

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    def __init__(self, *args, nonlinearity: str = "tanh", **kwargs) -> None:
        if len(args) > 3:  # PyTorch's positional order: input, hidden, layers, nonlinearity
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        creation._check_device(device)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = _empty(num_chunks * hidden_size, input_size, dtype=dtype)
        self.weight_hh = _empty(num_chunks * hidden_size, hidden_size, dtype=dtype)
        if bias:
            self.bias_ih = _empty(num_chunks * hidden_size, dtype=dtype)
            self.bias_hh = _empty(num_chunks * hidden_size, dtype=dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _prep(self, input, hx):  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            return x, None, batched
        return x, hx, batched

    def _zeros(self, x):  # a zero state (weight_hh gets a zero gradient, as in PyTorch)
        return creation.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        return s


class RNNCell(RNNCellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx=None) -> Any:  # noqa: A002
        x, h, batched = self._prep(input, hx)
        h = self._zeros(x) if h is None else (h if batched else h.unsqueeze(0))
        xg = linear(x, self.weight_ih, self.bias_ih)
        h = _rnn_step(xg, h, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx=None) -> Any:  # noqa: A002
        x, hc, batched = self._prep(input, hx)
        if hc is None:
            h = c = self._zeros(x)
        else:
            h, c = hc if batched else (hc[0].unsqueeze(0), hc[1].unsqueeze(0))
        xg = linear(x, self.weight_ih, self.bias_ih)
        h, c = _lstm_step(xg, h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx=None) -> Any:  # noqa: A002
        x, h, batched = self._prep(input, hx)
        h = self._zeros(x) if h is None else (h if batched else h.unsqueeze(0))
        xg = linear(x, self.weight_ih, self.bias_ih)
        h = _gru_step(xg, h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
