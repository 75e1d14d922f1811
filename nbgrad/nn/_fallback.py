"""Composite stand-ins for `nn.functional` entries, used only while `functional` lacks them.

`nn.functional` (softmax family, losses, activations, linear, ...) is filled by the op
coverage work with fused kernels; the modules look each function up there first (see
`fn`) and fall back to these compositions of core ops, which give the same values and
gradients, only slower.
"""

import math

import numpy as np

from nbgrad._array import contig

from ..autograd.function import Function
from ..tensor import Tensor
from . import functional as F


def fn(name):
    """`nn.functional.<name>` if it exists, else the composite below."""
    f = getattr(F, name, None)
    return f if f is not None else globals()["_" + name]


def _const(arr):
    return Tensor._make(contig(arr), -1, False)


def _linear(input, weight, bias=None):  # noqa: A002
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def _relu(x, inplace=False):
    return x.relu()


def _tanh(x):
    return x.tanh()


def _sigmoid(x):
    return x.sigmoid()


def _silu(x, inplace=False):
    return x * x.sigmoid()


def _leaky_relu(x, negative_slope=0.01, inplace=False):
    return x.relu() - (-x).relu() * negative_slope


def _elu(x, alpha=1.0, inplace=False):
    neg = (-x).relu()  # max(-x, 0)
    return x.relu() + ((-neg).exp() - 1.0) * alpha


def _softplus(x, beta=1.0, threshold=20.0):
    # log(1 + exp(beta x)) / beta, computed stably as relu(bx) + log(1 + exp(-|bx|))
    bx = x * beta
    return (bx.relu() + ((-bx.abs()).exp() + 1.0).log()) * (1.0 / beta)


class _Erf(Function):
    @staticmethod
    def forward(ctx, x):
        from scipy.special import erf

        ctx.save_for_backward(x)
        return _const(erf(x._data).astype(x._data.dtype))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        d = (2.0 / math.sqrt(math.pi)) * np.exp(-x._data * x._data)
        return g * _const(d.astype(x._data.dtype))


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * math.sqrt(2.0 / math.pi)
        return x * 0.5 * (inner.tanh() + 1.0)
    return x * 0.5 * (_Erf.apply(x * (1.0 / math.sqrt(2.0))) + 1.0)


def _shift(x, dim):
    return _const(np.max(x._data, axis=dim, keepdims=True))


def _log_softmax(x, dim=None, _stacklevel=3, dtype=None):
    z = x - _shift(x, dim)
    return z - z.exp().sum(dim, keepdim=True).log()


def _softmax(x, dim=None, _stacklevel=3, dtype=None):
    e = (x - _shift(x, dim)).exp()
    return e / e.sum(dim, keepdim=True)


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):  # noqa: A002
    d = input - target
    return _reduce(d * d, reduction)


def _l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    return _reduce((input - target).abs(), reduction)


def _nll_loss(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"
):  # noqa: A002, E501
    if weight is not None or input.dim() != 2:
        raise NotImplementedError("this nll_loss stand-in takes (N, C) input and no weight")
    t = target._data
    keep = t != ignore_index
    onehot = np.zeros(input._data.shape, input._data.dtype)
    rows = np.nonzero(keep)[0]
    onehot[rows, t[keep]] = 1.0
    per = -(input * _const(onehot)).sum(1)
    if reduction == "mean":
        return per.sum() * (1.0 / max(int(keep.sum()), 1))
    return _reduce(per, reduction)


def _cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):  # noqa: A002, E501
    if label_smoothing or target.is_floating_point():
        raise NotImplementedError("this cross_entropy stand-in takes class indices only")
    return _nll_loss(
        _log_softmax(input, 1), target, weight, ignore_index=ignore_index, reduction=reduction
    )


def _binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):  # noqa: A002, E501
    if weight is not None or pos_weight is not None:
        raise NotImplementedError("this stand-in takes no weight / pos_weight")
    loss = input.relu() - input * target + ((-input.abs()).exp() + 1.0).log()
    return _reduce(loss, reduction)


def _binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean"
):  # noqa: A002, E501
    if weight is not None:
        raise NotImplementedError("this stand-in takes no weight")
    loss = -(target * input.log() + (1.0 - target) * (1.0 - input).log())
    return _reduce(loss, reduction)


class _EmbeddingFn(Function):
    @staticmethod
    def forward(ctx, weight, idx, padding_idx):
        ctx.idx = idx
        ctx.padding_idx = padding_idx
        ctx.shape = weight._data.shape
        return _const(weight._data[idx])

    @staticmethod
    def backward(ctx, g):
        gw = np.zeros(ctx.shape, g._data.dtype)
        np.add.at(gw, ctx.idx.reshape(-1), g._data.reshape(-1, ctx.shape[1]))
        if ctx.padding_idx is not None:
            gw[ctx.padding_idx] = 0
        return _const(gw), None, None


def _embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type=2.0,
    scale_grad_by_freq=False,
    sparse=False,
):  # noqa: A002, E501
    if input.is_cuda != weight.is_cuda:
        from ..backends.cuda.ops import device_error

        raise device_error(weight.device, input.device)
    idx = input._data.host() if input.is_cuda else input._data  # checked on the host
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.dtype} instead"
        )
    n = weight._data.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):  # negative ones too, as PyTorch
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    select = getattr(weight, "index_select", None)
    if padding_idx is None and select is not None:
        # a recorded gather: the VJP (a scatter-add) runs inside the compiled sweep
        flat = Tensor._make(np.ascontiguousarray(idx.reshape(-1), np.int64), -1, False)
        return select(0, flat).reshape(*idx.shape, weight._data.shape[1])
    if weight.is_cuda:  # the padding row's value without its gradient (a recorded where)
        from ..creation import arange

        pad = (arange(n, device="cuda") == padding_idx).reshape(n, 1)
        w = weight.detach().where(pad, weight)
        flat = Tensor._make(np.ascontiguousarray(idx.reshape(-1), np.int64), -1, False)
        return w.index_select(0, flat).reshape(*idx.shape, weight._data.shape[1])
    return _EmbeddingFn.apply(weight, idx, padding_idx)


def _flatten(x, start_dim=0, end_dim=-1):
    return x.flatten(start_dim, end_dim)
