"""nbgrad.nn.functional: activations, softmax family, linear, losses and layers (PyTorch's
names).

The activations, softmax family, linear and the first losses are each one recorded op with
a fused forward and VJP kernel (see nbgrad/ops/activations.py, softmax.py, linear.py,
losses.py). The layers (pads, convolutions, pools, norms, attention, more losses; the
_fn_*.py modules here) are compositions of recorded ops. `inplace=True` is accepted and
computes out of place, which gives the same values and gradients.
"""

from __future__ import annotations

from typing import Any

from .. import _lowp
from .. import functions as _fn
from ..ops import activations as _act
from ..ops import conv_pool as _conv_pool
from ..ops import indexing as _ix
from ..ops import losses as _losses
from ..ops import pointwise as _pw
from ..ops import softmax as _sm
from ..ops import spatial as _spatial
from ..ops.linear import linear
from ..tensor import Tensor

softmax = _sm.softmax
log_softmax = _sm.log_softmax


def _inplace(x, result, inplace):
    if inplace:
        x._check_inplace()
        return x._assign(result)
    return result


def softmin(input: Tensor, dim: int | None = None, _stacklevel=3, dtype: Any = None) -> Tensor:  # noqa: A002
    return _sm.softmax(-input, dim, dtype)


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """Applies the rectified linear unit elementwise: max(0, x).

    Args:
        input (Tensor): any shape.
        inplace (bool): write the result into `input` (and return it). Default: False.

    Shape:
        Output has the input's shape.

    Example::

        >>> F.relu(torch.tensor([-1., 0., 2.]))
        tensor([0., 0., 2.])
    """
    return _inplace(input, _pw.FAST["relu"](input), inplace)


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    return relu(input, True)


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return _pw.FAST["sigmoid"](input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    return _pw.FAST["tanh"](input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return _inplace(input, _pw.FAST["silu"](input), inplace)


gelu = _fn.gelu


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:  # noqa: A002
    return _inplace(input, _act.leaky_relu(input, negative_slope), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return _inplace(input, _act.elu(input, alpha), inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return _inplace(input, _act.selu(input), inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    return _inplace(input, _act.celu(input, alpha), inplace)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:  # noqa: A002
    return _inplace(input, _act.hardtanh(input, min_val, max_val), inplace)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    return _inplace(input, _act.relu6(input), inplace)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    return _act.softplus(input, beta, threshold)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    return -_act.softplus(-input)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:  # noqa: A002
    """Mean squared error between `input` and `target`, elementwise (input - target)**2.

    Args:
        input (Tensor): predictions.
        target (Tensor): broadcastable to `input`.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average (bool, optional): deprecated form of `reduction`, as in PyTorch.
        reduce (bool, optional): deprecated form of `reduction`, as in PyTorch.

    Shape:
        input `(*)`, target `(*)`; output `()`, or the broadcast shape with `"none"`.

    Example::

        >>> F.mse_loss(torch.tensor([1., 2.]), torch.tensor([1., 4.]))
        tensor(2.)
        >>> F.mse_loss(torch.tensor([1., 2.]), torch.tensor([1., 4.]), reduction="sum")
        tensor(4.)
    """
    red = _red(reduction, size_average, reduce)
    if weight is not None:
        raise NotImplementedError("mse_loss(weight=...) is not supported")
    if getattr(input, "is_cuda", False) or getattr(target, "is_cuda", False):
        return _losses.cuda_mse_loss(input, target, red)
    return _losses.pointwise_loss(_losses.MSE, input, target, red, name="mse_loss")


def l1_loss(
    input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:  # noqa: A002
    red = _red(reduction, size_average, reduce)
    return _losses.pointwise_loss(_losses.L1, input, target, red, name="l1_loss")


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:  # noqa: A002
    red = _red(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return _losses.pointwise_loss(_losses.L1, input, target, red, name="smooth_l1_loss")
    return _losses.pointwise_loss(
        _losses.SMOOTH_L1, input, target, red, p=beta, name="smooth_l1_loss"
    )


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0
) -> Tensor:  # noqa: A002
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _losses.pointwise_loss(
        _losses.HUBER, input, target, reduction, p=delta, name="huber_loss"
    )


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:  # noqa: D103
    red = _red(reduction, size_average, reduce)
    return _losses.pointwise_loss(
        _losses.BCE, input, target, red, weight=weight, name="binary_cross_entropy"
    )


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    red = _red(reduction, size_average, reduce)
    return _losses.pointwise_loss(
        _losses.BCE_LOGITS,
        input,
        target,
        red,
        weight=weight,
        pos_weight=pos_weight,
        name="binary_cross_entropy_with_logits",
    )


cross_entropy = _losses.cross_entropy
nll_loss = _losses.nll_loss


def _red(reduction, size_average, reduce):
    if size_average is None and reduce is None:
        return reduction
    code = _losses.reduction_code(reduction, size_average, reduce)
    return ("none", "mean", "sum")[code]


_ = linear

# layers composed of recorded core ops (pads, windows, norms, attention, more losses)
from . import (  # noqa: E402, E501
    _fn_activations,
    _fn_attention,
    _fn_embedding,
    _fn_losses,
    _fn_norm,
)


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    _fn_embedding.check_indices(input, "embedding")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported")
    if max_norm is not None:
        _fn_embedding.embedding_renorm_(weight, input, max_norm, norm_type)
    return _fn_embedding.embedding(input, weight, padding_idx)


adaptive_max_pool1d = _conv_pool.adaptive_max_pool1d
adaptive_max_pool2d = _conv_pool.adaptive_max_pool2d
avg_pool1d = _conv_pool.avg_pool1d
avg_pool2d = _conv_pool.avg_pool2d
conv1d = _conv_pool.conv1d
conv2d = _conv_pool.conv2d
conv_transpose1d = _conv_pool.conv_transpose1d
conv_transpose2d = _conv_pool.conv_transpose2d
max_pool1d = _conv_pool.max_pool1d
max_pool2d = _conv_pool.max_pool2d
batch_norm = _fn_norm.batch_norm
cosine_embedding_loss = _fn_losses.cosine_embedding_loss
cosine_similarity = _fn_norm.cosine_similarity
dropout = _fn_norm.dropout
dropout1d = _fn_norm.dropout1d
glu = _fn_activations.glu
hardshrink = _fn_activations.hardshrink
hardsigmoid = _fn_activations.hardsigmoid
hardswish = _fn_activations.hardswish
mish = _fn_activations.mish
pixel_shuffle = _fn_activations.pixel_shuffle
pixel_unshuffle = _fn_activations.pixel_unshuffle
softshrink = _fn_activations.softshrink
softsign = _fn_activations.softsign
tanhshrink = _fn_activations.tanhshrink
threshold = _fn_activations.threshold
dropout2d = _fn_norm.dropout2d
embedding_bag = _fn_embedding.embedding_bag
gaussian_nll_loss = _fn_losses.gaussian_nll_loss
group_norm = _fn_norm.group_norm
kl_div = _fn_losses.kl_div
layer_norm = _fn_norm.layer_norm
margin_ranking_loss = _fn_losses.margin_ranking_loss
normalize = _fn_norm.normalize
pairwise_distance = _fn_norm.pairwise_distance
poisson_nll_loss = _fn_losses.poisson_nll_loss
rms_norm = _fn_norm.rms_norm
scaled_dot_product_attention = _fn_attention.scaled_dot_product_attention
triplet_margin_loss = _fn_losses.triplet_margin_loss
adaptive_avg_pool1d = _spatial.adaptive_avg_pool1d
adaptive_avg_pool2d = _spatial.adaptive_avg_pool2d
fold = _spatial.fold
interpolate = _spatial.interpolate
pad = _spatial.pad
unfold = _spatial.unfold
one_hot = _ix.one_hot

__all__ = [
    n for n in dir() if not n.startswith("_") and n not in ("np", "Tensor", "Any", "annotations")
]

from .._torch_names import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn.functional")  # PyTorch's names say nbgrad lacks them

# float16/bfloat16 inputs give float16/bfloat16 results, as in PyTorch (nbgrad/_lowp.py)
_lowp.keep_lowp_in(globals(), __all__)
