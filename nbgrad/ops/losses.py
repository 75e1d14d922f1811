"""Loss functions, each one fused forward kernel and one fused VJP kernel.

* cross_entropy (class indices or probabilities, weight, ignore_index, label_smoothing):
  the forward computes each sample's logsumexp and loss in one pass over its logits and
  saves the logsumexps; the VJP is `scale * (softmax * A - a)` per sample, where `a` is the
  sample's coefficient per class (its target one-hot / probabilities, smoothed and
  weighted) and `A = sum(a)`.
* nll_loss: gathers -w[t] * x[t]; its VJP scatters.
* pointwise losses (mse, l1, smooth_l1, huber, binary_cross_entropy, *_with_logits): one
  kernel pair with a kind switch; the forward writes per-element losses that NumPy reduces.

Samples are laid out (N, C, inner) as PyTorch's (N, C, d1, ..., dk); the target's
(N, d1, ...) flattens to N * inner sample indices.
"""

import math

import numpy as np
from numba import njit, prange

from nbgrad._array import contig

from .._dtype import scalar_name as _scalar_name
from ..backends.cpu.memory import vi64, view_as
from ..backends.cpu.rowio import (
    acc,
    cot,
    fattr,
    first,
    iattr,
    in_slot,
    numel,
    out_slot,
    value,
    wants,
)
from ..backends.cpu.vmath import vexp
from ..tensor import Tensor
from .emit import emit
from .registry import register
from .softmax import rmax, rsum

_L = "nbgrad.ops.losses:"
_CE = register("cross_entropy", "NllLossBackward0", _L + "vjp_cross_entropy")
_CE_LS = register("cross_entropy_ls", "AddBackward0", _L + "vjp_cross_entropy")
_CE_PROB = register("cross_entropy_prob", "DivBackward1", _L + "vjp_cross_entropy")
_CE_PROB_SUM = register("cross_entropy_prob_sum", "NegBackward0", _L + "vjp_cross_entropy")
_NLL = register("nll_loss", "NllLossBackward0", _L + "vjp_nll")
MSE, L1, SMOOTH_L1, HUBER, BCE, BCE_LOGITS = range(6)
_PW_NODES = {
    MSE: "MseLossBackward0",
    L1: "MeanBackward0",
    SMOOTH_L1: "SmoothL1LossBackward0",
    HUBER: "HuberLossBackward0",
    BCE: "BinaryCrossEntropyBackward0",
    BCE_LOGITS: "BinaryCrossEntropyWithLogitsBackward0",
}
_PW = {k: register("loss_" + v, v, _L + "vjp_pointwise") for k, v in _PW_NODES.items()}
_L1_NONE = register("loss_l1_none", "AbsBackward0", _L + "vjp_pointwise")
_L1_SUM = register("loss_l1_sum", "SumBackward0", _L + "vjp_pointwise")
NONE, MEAN, SUM = 0, 1, 2
_REDUCTIONS = {"none": NONE, "mean": MEAN, "sum": SUM}
PAR_MIN = 1 << 15


def reduction_code(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:
        sa = True if size_average is None else size_average
        rd = True if reduce is None else reduce
        reduction = "none" if not rd else ("mean" if sa else "sum")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


# -- cross entropy ---------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _load(x, base, n, inner, buf):
    """The sample's logits: a slice when contiguous, else gathered into `buf`."""
    if inner == 1:
        return x[base : base + n]
    for c in range(n):
        buf[c] = x[base + c * inner]
    return buf


@njit(cache=True, error_model="numpy")
def _ce_sample(x, t, w, has_w, ignore, prob, C, inner, eps, buf, ebuf, lse, loss, j, xb):
    """Loss and logsumexp of sample j (index j = n * inner + d); returns (weight, bad)."""
    z = x.dtype.type(0)
    tj = 0
    if not prob:
        tj = int(t[j])
        if tj == ignore:
            lse[j] = z
            loss[j] = z
            return 0.0, False
        if tj < 0 or tj >= C:
            return 0.0, True
    row = _load(x, xb, C, inner, buf)
    m = rmax(row)
    for c in range(C):
        ebuf[c] = vexp(row[c] - m)
    ls = m + math.log(rsum(ebuf))
    lse[j] = ls
    # loss = sum_c a_c * (lse - x_c), a_c = (1 - eps) * target_c * w_c + eps / C * w_c
    if prob:
        s = 0.0
        pb = j // inner * C * inner + j % inner
        for c in range(C):
            wc = w[c] if has_w else 1.0
            p = (1.0 - eps) * t[pb + c * inner] + eps / C
            s += wc * p * (ls - row[c])
        loss[j] = s
        return 1.0, False
    wt = w[tj] if has_w else 1.0
    s = (1.0 - eps) * wt * (ls - row[tj])
    if eps != 0.0:
        sm = 0.0
        for c in range(C):
            sm += (w[c] if has_w else 1.0) * (ls - row[c])
        s += eps / C * sm
    loss[j] = s
    return wt, False


@njit(cache=True, error_model="numpy")
def _ce_range(x, t, w, has_w, ignore, prob, C, inner, eps, lse, loss, lo, hi):
    buf = np.empty(C if inner > 1 else 0, x.dtype)
    ebuf = np.empty(C, x.dtype)
    ws = 0.0
    bad = -1
    for j in range(lo, hi):
        xb = j // inner * C * inner + j % inner
        wj, b = _ce_sample(x, t, w, has_w, ignore, prob, C, inner, eps, buf, ebuf, lse, loss, j, xb)
        if b:
            if bad < 0:
                bad = j
        else:
            ws += wj
    return ws, bad


@njit(cache=True, error_model="numpy")
def ce_fwd(x, t, w, has_w, ignore, prob, N, C, inner, eps, lse, loss):
    """Per-sample losses and logsumexps; returns (sum of target weights, first bad j)."""
    return _ce_range(
        x.reshape(x.size), t, w, has_w, ignore, prob, C, inner, eps, lse, loss, 0, N * inner
    )


@njit(cache=True, parallel=True, error_model="numpy")
def ce_fwd_par(x, t, w, has_w, ignore, prob, N, C, inner, eps, lse, loss):
    x = x.reshape(x.size)
    ns = N * inner
    nt = min(ns, 64)
    chunk = (ns + nt - 1) // nt
    wsum = np.zeros(nt)
    bad = np.full(nt, -1, np.int64)
    for q in prange(nt):
        wsum[q], bad[q] = _ce_range(
            x,
            t,
            w,
            has_w,
            ignore,
            prob,
            C,
            inner,
            eps,
            lse,
            loss,
            q * chunk,
            min((q + 1) * chunk, ns),
        )
    first_bad = -1
    for q in range(nt):
        if bad[q] >= 0:
            first_bad = bad[q]
            break
    return wsum.sum(), first_bad


@njit(cache=True, error_model="numpy")
def _ce_grad_sample(
    x, t, w, has_w, ignore, prob, C, inner, eps, lse, sc, gx, init, gt, want_t, j, ebuf
):
    xb = j // inner * C * inner + j % inner
    z = gx.dtype.type(0)
    if not prob and t[j] == ignore:
        if init:
            for c in range(C):
                gx[xb + c * inner] = z
        return
    ls = lse[j]
    if prob:
        pb = xb
        A = 0.0
        for c in range(C):
            A += (w[c] if has_w else 1.0) * ((1.0 - eps) * t[pb + c * inner] + eps / C)
        for c in range(C):
            ebuf[c] = vexp(x[xb + c * inner] - ls)
        for c in range(C):
            a = (w[c] if has_w else 1.0) * ((1.0 - eps) * t[pb + c * inner] + eps / C)
            v = sc * (ebuf[c] * A - a)
            if init:
                gx[xb + c * inner] = v
            else:
                gx[xb + c * inner] += v
        if want_t:
            for c in range(C):
                gt[pb + c * inner] += (
                    -sc * (1.0 - eps) * (w[c] if has_w else 1.0) * (x[xb + c * inner] - ls)
                )
        return
    tj = int(t[j])
    wt = w[tj] if has_w else 1.0
    if has_w:
        W = 0.0
        for c in range(C):
            W += w[c]
    else:
        W = float(C)
    A = gx.dtype.type(sc * ((1.0 - eps) * wt + eps / C * W))
    if inner == 1:
        xr = x[xb : xb + C]
        gr = gx[xb : xb + C]
        if init:
            for c in range(C):
                gr[c] = vexp(xr[c] - ls) * A
        else:
            for c in range(C):
                gr[c] += vexp(xr[c] - ls) * A
    else:
        for c in range(C):
            v = vexp(x[xb + c * inner] - ls) * A
            if init:
                gx[xb + c * inner] = v
            else:
                gx[xb + c * inner] += v
    if eps != 0.0:
        for c in range(C):
            gx[xb + c * inner] -= sc * eps / C * (w[c] if has_w else 1.0)
    gx[xb + tj * inner] -= sc * (1.0 - eps) * wt


@njit(cache=True, parallel=True, error_model="numpy")
def _ce_grad_par(
    x, t, w, has_w, ignore, prob, N, C, inner, eps, lse, g, red, scale, gx, init, gt, want_t
):
    nt = min(N * inner, 64)
    chunk = (N * inner + nt - 1) // nt
    for q in prange(nt):
        ebuf = np.empty(C, gx.dtype)
        for j in range(q * chunk, min((q + 1) * chunk, N * inner)):
            sc = g[j] if red == 0 else g[0] * scale
            _ce_grad_sample(
                x, t, w, has_w, ignore, prob, C, inner, eps, lse, sc, gx, init, gt, want_t, j, ebuf
            )


@njit(cache=True, error_model="numpy")
def _ce_grad(
    x, t, w, has_w, ignore, prob, N, C, inner, eps, lse, g, red, scale, gx, init, gt, want_t
):
    ebuf = np.empty(C, gx.dtype)
    for j in range(N * inner):
        sc = g[j] if red == 0 else g[0] * scale
        _ce_grad_sample(
            x, t, w, has_w, ignore, prob, C, inner, eps, lse, sc, gx, init, gt, want_t, j, ebuf
        )


@njit(cache=True, error_model="numpy")
def vjp_cross_entropy(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    N, C, inner = iattr(T, k, 0), iattr(T, k, 1), iattr(T, k, 2)
    prob, red, ignore, has_w = iattr(T, k, 3), iattr(T, k, 4), iattr(T, k, 5), iattr(T, k, 6)
    eps, scale = fattr(T, k, 0), fattr(T, k, 1)
    g = cot(T, s_y, V)
    x = value(T, s_x, V)
    lse = view_as(iattr(T, k, 9), N * inner, V)
    w = view_as(iattr(T, k, 8), C if has_w else 0, V)
    want_x = wants(T, s_x)
    want_t = False
    if prob:
        s_t = in_slot(T, k, 1)
        t = value(T, s_t, V)
        want_t = wants(T, s_t)
        gt = acc(T, s_t, V) if want_t else t[:0]
        if not want_x:
            # target gradient only: a throwaway buffer keeps one code path
            tmp = np.empty(x.size, x.dtype)
            _ce_grad(
                x,
                t,
                w,
                has_w,
                ignore,
                1,
                N,
                C,
                inner,
                eps,
                lse,
                g,
                red,
                scale,
                tmp,
                True,
                gt,
                want_t,
            )
            return
        gx = cot(T, s_x, V)
        init = first(T, s_x)
        if x.size >= PAR_MIN:
            _ce_grad_par(
                x,
                t,
                w,
                has_w,
                ignore,
                1,
                N,
                C,
                inner,
                eps,
                lse,
                g,
                red,
                scale,
                gx,
                init,
                gt,
                want_t,
            )
        else:
            _ce_grad(
                x,
                t,
                w,
                has_w,
                ignore,
                1,
                N,
                C,
                inner,
                eps,
                lse,
                g,
                red,
                scale,
                gx,
                init,
                gt,
                want_t,
            )
        return
    if not want_x:
        return
    t = vi64(iattr(T, k, 7), N * inner)
    gx = cot(T, s_x, V)
    init = first(T, s_x)
    gt = x[:0]
    if x.size >= PAR_MIN:
        _ce_grad_par(
            x, t, w, has_w, ignore, 0, N, C, inner, eps, lse, g, red, scale, gx, init, gt, False
        )
    else:
        _ce_grad(
            x, t, w, has_w, ignore, 0, N, C, inner, eps, lse, g, red, scale, gx, init, gt, False
        )


def _addr(a):
    return a.__array_interface__["data"][0] if a.size else 0


def _class_layout(x, target, name):
    """(N, C, inner, out_shape) of an (N, C, d...) or (C,) input."""
    sh = x._data.shape
    if x._data.ndim == 0:
        raise RuntimeError(
            "Expected floating point type for target with class probabilities, got "
            f"{_scalar_name(target.dtype)}"
        )
    if x._data.ndim == 1:
        return 1, sh[0], 1, target._data.shape
    inner = int(np.prod(sh[2:], dtype=np.int64))
    return sh[0], sh[1], inner, (sh[0],) + sh[2:]


def _check_weight(weight, C, x):
    if weight is None:
        return np.empty(0, x._data.dtype), 0
    if not isinstance(weight, Tensor):
        raise TypeError(f"weight must be a Tensor, not {type(weight).__name__}")
    if weight._data.shape != (C,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {C} classes or no classes but got "
            f"weight tensor of shape: {list(weight._data.shape)}"
        )
    if weight._rg:
        raise NotImplementedError("gradients with respect to `weight` are not supported")
    return contig(weight._data, dtype=x._data.dtype), 1


def _check_index_target(x, target, N, inner, out_shape, fname):
    td = target._data
    if x._data.ndim == 1:
        if td.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if td.ndim == 1 and td.shape[0] != 1:
            raise ValueError(
                f"For 1D input, 1D target must have size 1, but got target size: {td.shape[0]}"
            )
    else:
        tb = td.shape[0] if td.ndim else 0
        if tb != N:
            raise ValueError(f"Expected input batch_size ({N}) to match target batch_size ({tb}).")
        if x._data.ndim == 2 and td.ndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if x._data.ndim > 2 and td.shape != out_shape:
            raise RuntimeError(f"Expected target size {list(out_shape)}, got {list(td.shape)}")
    if td.dtype.kind not in "iu":
        raise RuntimeError(
            f"\"{fname}\" not implemented for '{_scalar_name(target.dtype)}'"
            if td.dtype.kind == "b"
            else f"expected scalar type Long but found {_scalar_name(target.dtype)}"
        )
    return contig(td, dtype=np.int64).reshape(-1)


def cross_entropy(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
    label_smoothing=0.0,
):
    x = input
    if not isinstance(x, Tensor) or not isinstance(target, Tensor):
        bad = x if not isinstance(x, Tensor) else target
        raise TypeError(
            f"cross_entropy_loss(): argument '{'input' if bad is x else 'target'}' must be "
            f"Tensor, not {type(bad).__name__}"
        )
    red = reduction_code(reduction, size_average, reduce)
    if x._data.dtype.kind != "f":
        raise RuntimeError(
            f"\"log_softmax_lastdim_kernel_impl\" not implemented for '{_scalar_name(x.dtype)}'"
        )
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {eps}")
    if x.is_cuda or target.is_cuda:
        from ..backends.cuda.ops import cross_entropy as cuda_cross_entropy

        return cuda_cross_entropy(x, target, weight, ignore_index, red, eps)
    N, C, inner, out_shape = _class_layout(x, target, "cross_entropy")
    w, has_w = _check_weight(weight, C, x)
    xd = x._data
    prob = target._data.dtype.kind == "f" and target._data.shape == xd.shape
    if prob:
        if ignore_index != -100:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if target._data.shape != xd.shape:
            raise RuntimeError(
                f"Expected target size {list(xd.shape)}, got {list(target._data.shape)}"
            )
        if target.dtype is not x.dtype:
            raise RuntimeError(
                f"expected scalar type {_scalar_name(x.dtype)} but found "
                f"{_scalar_name(target.dtype)}"
            )
        t = target._data.reshape(-1)
    else:
        t = _check_index_target(x, target, N, inner, out_shape, "nll_loss")
    ns = N * inner
    lse = np.empty(ns, xd.dtype)
    loss = np.empty(ns, xd.dtype)
    ign = int(ignore_index)
    f = ce_fwd_par if xd.size >= PAR_MIN and ns > 1 else ce_fwd
    wsum, bad = f(xd, t, w, has_w, ign, prob, N, C, inner, eps, lse, loss)
    if bad >= 0:
        raise IndexError(f"Target {int(t[bad])} is out of bounds.")
    if red == NONE:
        out = loss.reshape(out_shape)
        scale = 1.0
    elif red == SUM:
        out = np.asarray(loss.sum(dtype=np.float64), xd.dtype)
        scale = 1.0
    else:
        den = float(ns) if prob else wsum
        out = np.asarray(loss.sum(dtype=np.float64) / den if den else np.nan, xd.dtype)
        scale = 1.0 / den if den else math.nan
    if prob:
        op = _CE_PROB if red == MEAN else (_CE_PROB_SUM if red == SUM else _CE_PROB_SUM)
        ins = (x, target)
    else:
        op = _CE if eps == 0.0 else _CE_LS
        ins = (x,)
    attrs = (
        N,
        C,
        inner,
        int(prob),
        red,
        ign,
        has_w,
        _addr(t) if not prob else 0,
        _addr(w),
        _addr(lse),
    )
    return emit(op, out, ins, iattrs=attrs, fattrs=(eps, scale), saved=(xd, t, w, lse))


# -- nll_loss --------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def nll_fwd(x, t, w, has_w, ignore, N, C, inner, loss):
    """loss[j] = -w[t] x[t]; returns (sum of weights, first bad j or -1)."""
    x = x.reshape(x.size)
    ws = 0.0
    for j in range(N * inner):
        tj = t[j]
        if tj == ignore:
            loss[j] = 0
            continue
        if tj < 0 or tj >= C:
            return ws, j
        wt = w[tj] if has_w else 1.0
        loss[j] = -wt * x[j // inner * C * inner + j % inner + tj * inner]
        ws += wt
    return ws, -1


@njit(cache=True, error_model="numpy")
def vjp_nll(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    if not wants(T, s_x):
        return
    N, C, inner = iattr(T, k, 0), iattr(T, k, 1), iattr(T, k, 2)
    red, ignore, has_w = iattr(T, k, 3), iattr(T, k, 4), iattr(T, k, 5)
    t = vi64(iattr(T, k, 6), N * inner)
    w = view_as(iattr(T, k, 7), C if has_w else 0, V)
    scale = fattr(T, k, 0)
    g = cot(T, s_y, V)
    gx = acc(T, s_x, V)
    for j in range(N * inner):
        tj = t[j]
        if tj == ignore:
            continue
        sc = g[j] if red == NONE else g[0] * scale
        gx[j // inner * C * inner + j % inner + tj * inner] -= sc * (w[tj] if has_w else 1.0)


def nll_loss(
    input,  # noqa: A002
    target,
    weight=None,
    size_average=None,
    ignore_index=-100,
    reduce=None,
    reduction="mean",
):
    x = input
    if not isinstance(x, Tensor) or not isinstance(target, Tensor):
        raise TypeError("nll_loss(): arguments 'input' and 'target' must be Tensors")
    red = reduction_code(reduction, size_average, reduce)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"\"nll_loss\" not implemented for '{_scalar_name(x.dtype)}'")
    N, C, inner, out_shape = _class_layout(x, target, "nll_loss")
    w, has_w = _check_weight(weight, C, x)
    t = _check_index_target(x, target, N, inner, out_shape, "nll_loss")
    xd = x._data
    loss = np.empty(N * inner, xd.dtype)
    ign = int(ignore_index)
    wsum, bad = nll_fwd(xd, t, w, has_w, ign, N, C, inner, loss)
    if bad >= 0:
        raise IndexError(f"Target {int(t[bad])} is out of bounds.")
    if red == NONE:
        out, scale = loss.reshape(out_shape), 1.0
    elif red == SUM:
        out, scale = np.asarray(loss.sum(dtype=np.float64), xd.dtype), 1.0
    else:
        out = np.asarray(loss.sum(dtype=np.float64) / wsum if wsum else np.nan, xd.dtype)
        scale = 1.0 / wsum if wsum else math.nan
    attrs = (N, C, inner, red, ign, has_w, _addr(t), _addr(w))
    return emit(_NLL, out, (x,), iattrs=attrs, fattrs=(scale,), saved=(xd, t, w))


# -- pointwise losses ------------------------------------------------------------------
@njit(inline="always")
def _pw_loss(kind, a, b, p, w, pw):
    if kind == MSE:
        d = a - b
        return d * d
    if kind == L1:
        return abs(a - b)
    if kind == SMOOTH_L1:
        d = abs(a - b)
        return 0.5 * d * d / p if d < p else d - 0.5 * p
    if kind == HUBER:
        d = abs(a - b)
        return 0.5 * d * d if d <= p else p * (d - 0.5 * p)
    if kind == BCE:
        la = max(math.log(a) if a > 0 else -math.inf, -100.0)
        l1a = max(math.log1p(-a) if a < 1 else -math.inf, -100.0)
        return -w * (b * la + (1 - b) * l1a)
    # BCE with logits: (1 - y) x + (1 + (pw - 1) y) * softplus(-x)
    sp = math.log1p(math.exp(-abs(a))) + max(-a, 0.0)
    return w * ((1 - b) * a + (1 + (pw - 1) * b) * sp)


@njit(inline="always")
def _pw_grad(kind, a, b, p, w, pw):
    """(d loss / d a, d loss / d b)."""
    if kind == MSE:
        d = 2 * (a - b)
        return d, -d
    if kind == L1:
        d = a - b
        s = (d > 0) - (d < 0) if d == d else d
        return s, -s
    if kind == SMOOTH_L1:
        d = a - b
        s = (d > 0) - (d < 0) if d == d else d
        v = d / p if abs(d) < p else s
        return v, -v
    if kind == HUBER:
        d = a - b
        s = (d > 0) - (d < 0) if d == d else d
        v = d if abs(d) <= p else p * s
        return v, -v
    if kind == BCE:
        ga = w * (a - b) / max((1 - a) * a, 1e-12)
        # the target's gradient uses the unclamped logs, as torch
        la = math.log(a) if a > 0 else -math.inf
        l1a = math.log1p(-a) if a < 1 else -math.inf
        return ga, -w * (la - l1a)
    e = math.exp(-abs(a))
    sig = 1.0 / (1.0 + e) if a >= 0 else e / (1.0 + e)
    sp = math.log1p(e) + max(-a, 0.0)
    return w * ((pw * b + 1 - b) * sig - pw * b), w * (-a + (pw - 1) * sp)


@njit(cache=True, error_model="numpy")
def pw_fwd(kind, a, b, p, w, pw, out):
    a = a.reshape(a.size)
    b = b.reshape(b.size)
    o = out.reshape(out.size)
    hw, hp = w.size > 0, pw.size > 0
    for i in range(o.size):
        o[i] = _pw_loss(kind, a[i], b[i], p, w[i] if hw else 1.0, pw[i] if hp else 1.0)


@njit(cache=True, error_model="numpy")
def vjp_pointwise(T, k, V):
    s_y, s_a, s_b = out_slot(T, k, 0), in_slot(T, k, 0), in_slot(T, k, 1)
    kind, red, n = iattr(T, k, 0), iattr(T, k, 1), numel(T, s_a)
    w = view_as(iattr(T, k, 2), n if iattr(T, k, 4) else 0, V)
    pw = view_as(iattr(T, k, 3), n if iattr(T, k, 5) else 0, V)
    p, scale = fattr(T, k, 0), fattr(T, k, 1)
    g = cot(T, s_y, V)
    a = value(T, s_a, V)
    b = value(T, s_b, V)
    hw, hp = w.size > 0, pw.size > 0
    wa, wb = wants(T, s_a), wants(T, s_b)
    ga = cot(T, s_a, V) if wa else a[:0]
    gb = cot(T, s_b, V) if wb else b[:0]
    ia = first(T, s_a) if wa else False
    ib = first(T, s_b) if wb else False
    g0 = g[0] * scale if red != NONE else 0.0
    for i in range(n):
        da, db = _pw_grad(kind, a[i], b[i], p, w[i] if hw else 1.0, pw[i] if hp else 1.0)
        sc = g[i] if red == NONE else g0
        if wa:
            if ia:
                ga[i] = sc * da
            else:
                ga[i] += sc * da
        if wb:
            if ib:
                gb[i] = sc * db
            else:
                gb[i] += sc * db


def _size_str(shape):
    return f"nbgrad.Size({list(shape)})"


def pointwise_loss(
    kind,
    input,
    target,
    reduction,
    p=0.0,
    weight=None,
    pos_weight=None,  # noqa: A002
    name="loss",
    warn=True,
):
    import warnings

    from .pointwise import broadcast_shapes
    from .views import expand

    a, b = input, target
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        bad = a if not isinstance(a, Tensor) else b
        raise TypeError(
            f"{name}(): argument '{'input' if bad is a else 'target'}' must be "
            f"Tensor, not {type(bad).__name__}"
        )
    red = reduction_code(reduction)
    if a._data.shape != b._data.shape:
        if kind in (BCE, BCE_LOGITS):
            raise ValueError(
                f"Using a target size ({_size_str(b._data.shape)}) that is different to the "
                f"input size ({_size_str(a._data.shape)}) is deprecated. Please ensure they "
                "have the same size."
                if kind == BCE
                else f"Target size ({_size_str(b._data.shape)}) must be the same as input "
                f"size ({_size_str(a._data.shape)})"
            )
        if warn:
            warnings.warn(
                f"Using a target size ({_size_str(b._data.shape)}) that is different to the "
                f"input size ({_size_str(a._data.shape)}). This will likely lead to incorrect "
                "results due to broadcasting. Please ensure they have the same size.",
                UserWarning,
                stacklevel=3,
            )
        shape = broadcast_shapes(a._data.shape, b._data.shape)
        a, b = expand(a, shape), expand(b, shape)
    if a._data.dtype.kind != "f":
        raise RuntimeError(f"\"{name}\" not implemented for '{_scalar_name(a.dtype)}'")
    if b.dtype is not a.dtype:
        if b._data.dtype.kind != "f" or (kind == BCE and not b._rg):
            b = (
                Tensor._make(b._data.astype(a._data.dtype), -1, False)
                if not b._rg
                else b.to(a.dtype)
            )
        else:
            b = b.to(a.dtype)
    ad, bd = a._data, b._data
    if kind == BCE and ad.size and (np.any(ad < 0) or np.any(ad > 1) or np.any(ad != ad)):
        raise RuntimeError("all elements of input should be between 0 and 1")

    def bcast(t, nm):
        if t is None:
            return np.empty(0, ad.dtype), 0
        if not isinstance(t, Tensor):
            raise TypeError(f"{nm} must be a Tensor, not {type(t).__name__}")
        if t._rg:
            raise NotImplementedError(f"gradients with respect to `{nm}` are not supported")
        try:
            arr = np.broadcast_to(t._data, ad.shape)
        except ValueError:
            raise RuntimeError(
                f"The size of tensor a ({t._data.shape[-1] if t._data.ndim else 1}) must match "
                f"the size of tensor b ({ad.shape[-1] if ad.ndim else 1}) at non-singleton "
                "dimension"
            ) from None
        return contig(arr, dtype=ad.dtype).reshape(-1), 1

    w, hw = bcast(weight, "weight")
    pw, hp = bcast(pos_weight, "pos_weight")
    le = np.empty_like(ad)
    pw_fwd(kind, ad, bd, float(p), w, pw, le)
    if red == NONE:
        out, scale = le, 1.0
    elif red == SUM:
        out, scale = np.asarray(le.sum(), ad.dtype), 1.0
    else:
        out = np.asarray(le.mean() if le.size else np.nan, ad.dtype)
        scale = 1.0 / le.size if le.size else math.nan
    op = _PW[kind]
    if kind == L1:
        op = _L1_NONE if red == NONE else (_L1_SUM if red == SUM else op)
    attrs = (kind, red, _addr(w), _addr(pw), hw, hp)
    return emit(op, out, (a, b), iattrs=attrs, fattrs=(float(p), scale), saved=(ad, bd, w, pw))
