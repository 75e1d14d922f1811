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
from ..autograd.grad_mode import STATE
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
from ..backends.cpu.vmath import vlog
from ..tensor import Tensor
from .recording import emit, needs_record
from .registry import register
from .vecloops import exp_flush, rdot, rmax, rsum

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
# Kernels see samples as rows of C logits: x as (M, C), M = N * inner (an (N, C, d...)
# input is transposed to rows first). A sample's coefficient per class is
#   a_c = w_c * ((1 - eps) * target_c + eps / C)     (target_c: one-hot or probability)
# and with A = sum_c a_c and p = softmax(row):
#   loss = sum_c a_c * (lse - x_c),    d loss / d x_c = A * p_c - a_c.
# The forward saves p when x takes a gradient (as torch saves log_softmax), so the VJP is
# one streaming pass with no exp.
BLOCK = 4096  # elements per block of rows: a block's exps run as one vectorised loop


@njit(cache=True, error_model="numpy")
def _softmax_rows(x, lo, hi, C, e, m, s, lse, norm):
    """Rows lo..hi of x (flat (M, C)): e = exp(row - max) (normalised to softmax when
    `norm`), lse[lo:hi] = logsumexp. m, s: scratch of hi - lo."""
    nr = hi - lo
    for r in range(nr):
        m[r] = rmax(x[(lo + r) * C : (lo + r + 1) * C])
    if C >= 64:  # rows long enough to vectorise one at a time
        for r in range(nr):
            xr = x[(lo + r) * C : (lo + r + 1) * C]
            er = e[r * C : (r + 1) * C]
            mr = m[r]
            for c in range(C):
                er[c] = exp_flush(xr[c] - mr)
    else:  # short rows: shift row by row, then one exp loop over the whole block
        for r in range(nr):
            mr = m[r]
            b = (lo + r) * C
            for c in range(C):
                e[r * C + c] = x[b + c] - mr
        for i in range(nr * C):
            e[i] = exp_flush(e[i])
    for r in range(nr):
        s[r] = rsum(e[r * C : (r + 1) * C])
    for r in range(nr):
        lse[lo + r] = m[r] + vlog(s[r])
    if norm:
        for r in range(nr):
            q = x.dtype.type(1.0) / s[r]
            er = e[r * C : (r + 1) * C]
            for c in range(C):
                er[c] *= q


@njit(cache=True, error_model="numpy")
def _ce_range(x, ti, tp, w, has_w, ignore, prob, C, eps, lse, loss, p, lo, hi):
    """Rows lo..hi: logsumexps, losses (into `loss` when it has room), softmax (into `p`
    when it has room). Returns (sum of losses, sum of target weights, ignored rows, first
    bad row or -1). Targets are class indices `ti` or, with `prob`, probabilities `tp`
    (the other is empty): one signature per dtype for both kinds, which halves the
    compile work of these parallel kernels."""
    save = p.size > 0
    R = max(1, BLOCK // C)
    e = np.empty(0 if save else R * C, x.dtype)
    m = np.empty(R, x.dtype)
    s = np.empty(R, x.dtype)
    W = 0.0
    for c in range(C):
        W += w[c] if has_w else 1.0
    lsum = 0.0
    wsum = 0.0
    nign = 0
    for b0 in range(lo, hi, R):
        b1 = min(b0 + R, hi)
        eb = p[b0 * C : b1 * C] if save else e
        _softmax_rows(x, b0, b1, C, eb, m, s, lse, save)
        for j in range(b0, b1):
            row = x[j * C : (j + 1) * C]
            ls = float(lse[j])
            if prob:
                v = 0.0
                tr = tp[j * C : (j + 1) * C]
                for c in range(C):
                    a = (w[c] if has_w else 1.0) * ((1.0 - eps) * tr[c] + eps / C)
                    v += a * (ls - row[c])
                wsum += 1.0
            else:
                tj = int(ti[j])
                if tj == ignore:
                    nign += 1
                    if loss.size:
                        loss[j] = 0
                    continue
                if tj < 0 or tj >= C:
                    return lsum, wsum, nign, j
                wt = w[tj] if has_w else 1.0
                v = (1.0 - eps) * wt * (ls - row[tj])
                if eps != 0.0:
                    sx = rdot(w, row) if has_w else rsum(row)
                    v += eps / C * (W * ls - sx)
                wsum += wt
            if loss.size:
                loss[j] = v
            lsum += v
    return lsum, wsum, nign, -1


@njit(cache=True, parallel=True, error_model="numpy")
def _ce_fwd_par(x, ti, tp, w, has_w, ignore, prob, M, C, eps, lse, loss, p):
    nt = min(M, 64)
    chunk = (M + nt - 1) // nt
    res = np.zeros((nt, 4))
    for q in prange(nt):
        lo, hi = q * chunk, min((q + 1) * chunk, M)
        a, b, c, d = _ce_range(x, ti, tp, w, has_w, ignore, prob, C, eps, lse, loss, p, lo, hi)
        res[q, 0], res[q, 1], res[q, 2], res[q, 3] = a, b, c, d
    bad = -1
    for q in range(nt):
        if res[q, 3] >= 0:
            bad = int(res[q, 3])
            break
    return res[:, 0].sum(), res[:, 1].sum(), int(res[:, 2].sum()), bad


@njit(cache=True, error_model="numpy")
def ce_fwd(x, ti, tp, w, has_w, ignore, prob, M, C, eps, lse, loss, p):
    """Rows of x (flat (M, C)): (sum of losses, of target weights, ignored rows, first bad
    row or -1), then the addresses of x, t, w, lse, p for the VJP (one call from Python)."""
    if x.size >= PAR_MIN and M > 1:
        r = _ce_fwd_par(x, ti, tp, w, has_w, ignore, prob, M, C, eps, lse, loss, p)
    else:
        r = _ce_range(x, ti, tp, w, has_w, ignore, prob, C, eps, lse, loss, p, 0, M)
    ta = tp.ctypes.data if prob else ti.ctypes.data
    return r + (x.ctypes.data, ta, w.ctypes.data, lse.ctypes.data, p.ctypes.data)


@njit(cache=True, error_model="numpy")
def _ce_grad_range(
    x, ti, tp, w, has_w, ignore, prob, C, inner, eps, lse, p, g, red, scale, gx, init, flat, lo, hi
):
    """gx (+)= d loss / d x for rows lo..hi; gx has the input's (N, C, inner) layout.
    Targets as in `_ce_range`."""
    g0 = g[0] * scale
    if flat:  # inner == 1, one scale for all rows, no weights, no ignored rows (or init)
        k = gx.dtype.type(g0)
        d = gx.dtype.type(g0 * eps / C)
        # slices indexed from 0: LLVM cannot vectorise `for i in range(lo, hi): a[i]` (it
        # cannot rule out a negative i, which Numba would wrap around)
        pb = p[lo * C : hi * C]
        gb = gx[lo * C : hi * C]
        if init:
            for i in range(pb.size):
                gb[i] = k * pb[i] - d
        else:
            for i in range(pb.size):
                gb[i] += k * pb[i] - d
        for j in range(lo, hi):
            tj = int(ti[j])
            if tj == ignore:
                for c in range(C):
                    gx[j * C + c] = 0
            else:
                gx[j * C + tj] -= g0 * (1.0 - eps)
        return
    W = 0.0
    for c in range(C):
        W += w[c] if has_w else 1.0
    for j in range(lo, hi):
        sc = g[j] if red == NONE else g0
        gb = j // inner * C * inner + j % inner
        pr = p[j * C : (j + 1) * C]
        if prob:
            tr = tp[j * C : (j + 1) * C]
            A = 0.0
            for c in range(C):
                A += (w[c] if has_w else 1.0) * ((1.0 - eps) * tr[c] + eps / C)
            for c in range(C):
                a = (w[c] if has_w else 1.0) * ((1.0 - eps) * tr[c] + eps / C)
                v = sc * (A * pr[c] - a)
                if init:
                    gx[gb + c * inner] = v
                else:
                    gx[gb + c * inner] += v
            continue
        tj = int(ti[j])
        if tj == ignore:
            if init:
                for c in range(C):
                    gx[gb + c * inner] = 0
            continue
        wt = w[tj] if has_w else 1.0
        k = gx.dtype.type(sc * ((1.0 - eps) * wt + eps / C * W))
        if inner == 1:
            gr = gx[gb : gb + C]
            if init:
                for c in range(C):
                    gr[c] = k * pr[c]
            else:
                for c in range(C):
                    gr[c] += k * pr[c]
        else:
            for c in range(C):
                if init:
                    gx[gb + c * inner] = k * pr[c]
                else:
                    gx[gb + c * inner] += k * pr[c]
        if eps != 0.0:
            for c in range(C):
                gx[gb + c * inner] -= sc * eps / C * (w[c] if has_w else 1.0)
        gx[gb + tj * inner] -= sc * (1.0 - eps) * wt


@njit(cache=True, error_model="numpy")
def _ce_grad_target(x, t, w, has_w, C, inner, eps, lse, g, red, scale, gt):
    """Probability targets: gt += d loss / d target = -sc (1 - eps) w_c (x_c - lse)."""
    for j in range(lse.size):
        sc = g[j] if red == NONE else g[0] * scale
        gb = j // inner * C * inner + j % inner
        for c in range(C):
            wc = w[c] if has_w else 1.0
            gt[gb + c * inner] -= sc * (1.0 - eps) * wc * (x[j * C + c] - lse[j])


@njit(cache=True, error_model="numpy")
def _ce_grad_weight(x, t, C, eps, lse, g, red, scale, gw):
    """Probability targets: gw_c += sum_j sc_j ((1 - eps) t_jc + eps / C) (lse_j - x_jc)."""
    for j in range(lse.size):
        sc = g[j] if red == NONE else g[0] * scale
        for c in range(C):
            gw[c] += sc * ((1.0 - eps) * t[j * C + c] + eps / C) * (lse[j] - x[j * C + c])


@njit(cache=True, parallel=True, error_model="numpy")
def _ce_grad_par(
    x, ti, tp, w, has_w, ignore, prob, M, C, inner, eps, lse, p, g, red, scale, gx, init, flat
):
    nt = min(M, 64)
    chunk = (M + nt - 1) // nt
    for q in prange(nt):
        lo, hi = q * chunk, min((q + 1) * chunk, M)
        _ce_grad_range(
            x,
            ti,
            tp,
            w,
            has_w,
            ignore,
            prob,
            C,
            inner,
            eps,
            lse,
            p,
            g,
            red,
            scale,
            gx,
            init,
            flat,
            lo,
            hi,
        )


@njit(cache=True, error_model="numpy")
def _ce_grad(
    x, ti, tp, w, has_w, ignore, prob, M, C, inner, eps, lse, p, g, red, scale, gx, init, flat
):
    a = (x, ti, tp, w, has_w, ignore, prob)
    if M * C >= PAR_MIN:
        _ce_grad_par(*a, M, C, inner, eps, lse, p, g, red, scale, gx, init, flat)
    else:
        _ce_grad_range(*a, C, inner, eps, lse, p, g, red, scale, gx, init, flat, 0, M)


@njit(cache=True, error_model="numpy")
def vjp_cross_entropy(T, k, V):
    s_y, s_x = out_slot(T, k, 0), in_slot(T, k, 0)
    M, C, inner = iattr(T, k, 0), iattr(T, k, 1), iattr(T, k, 2)
    prob, red, ignore, has_w = iattr(T, k, 3), iattr(T, k, 4), iattr(T, k, 5), iattr(T, k, 6)
    nign, it, iw = iattr(T, k, 7), iattr(T, k, 8), iattr(T, k, 9)
    eps, scale = fattr(T, k, 0), fattr(T, k, 1)
    g = cot(T, s_y, V)
    x = view_as(iattr(T, k, 10), M * C, V)
    lse = view_as(iattr(T, k, 13), M, V)
    w = view_as(iattr(T, k, 12), C if has_w else 0, V)
    if prob:
        t = view_as(iattr(T, k, 11), M * C, V)
        ti = np.empty(0, np.int64)
    else:
        t = x[:0]
        ti = vi64(iattr(T, k, 11), M)
    if wants(T, s_x):
        p = view_as(iattr(T, k, 14), M * C, V)
        gx = cot(T, s_x, V)
        init = first(T, s_x)
        flat = not prob and inner == 1 and red != NONE and not has_w and (init or nign == 0)
        a = (x, ti, t, w, has_w, ignore, prob != 0, M, C, inner, eps, lse, p, g, red, scale)
        _ce_grad(*a, gx, init, flat)
    if it >= 0 and wants(T, in_slot(T, k, it)):
        gt = acc(T, in_slot(T, k, it), V)
        _ce_grad_target(x, t, w, has_w, C, inner, eps, lse, g, red, scale, gt)
    if iw >= 0 and wants(T, in_slot(T, k, iw)):
        _ce_grad_weight(x, t, C, eps, lse, g, red, scale, acc(T, in_slot(T, k, iw), V))


def _addr(a):
    return a.__array_interface__["data"][0] if a.size else 0


def _not_differentiable(fn, arg):
    return RuntimeError(
        f"The function '{fn}' is not differentiable with respect to argument '{arg}'. This "
        "input cannot have requires_grad True."
    )


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


def _check_weight(weight, C, x, fn="nll_loss_forward"):
    """The weight as a contiguous array of x's dtype (empty: none), and its flag. PyTorch
    refuses a weight that requires grad where the loss is not differentiable in it."""
    if weight is None:
        return _NO_WEIGHT[x._data.dtype.char], 0
    if not isinstance(weight, Tensor):
        raise TypeError(f"weight must be a Tensor, not {type(weight).__name__}")
    if weight._data.shape != (C,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {C} classes or no classes but got "
            f"weight tensor of shape: {list(weight._data.shape)}"
        )
    if fn and weight._rg and STATE.enabled:
        raise _not_differentiable(fn, "weight")
    return contig(weight._data, dtype=x._data.dtype), 1


_NO_WEIGHT = {"f": np.empty(0, np.float32), "d": np.empty(0, np.float64)}


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
    if td.dtype != np.int64:  # PyTorch takes Long (and Byte, which nbgrad lacks) only
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_scalar_name(target.dtype)}"
        )
    return contig(td).reshape(-1)


def _rows(a, N, C, inner):
    """An (N, C, inner) array as contiguous rows of C: (N * inner, C)."""
    if inner == 1:
        return a.reshape(-1)
    return np.ascontiguousarray(a.reshape(N, C, inner).transpose(0, 2, 1)).reshape(-1)


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
    red = _REDUCTIONS.get(reduction) if size_average is None and reduce is None else None
    if red is None:
        red = reduction_code(reduction, size_average, reduce)
    xd = x._data
    if xd.dtype.kind != "f":
        raise RuntimeError(
            f"\"log_softmax_lastdim_kernel_impl\" not implemented for '{_scalar_name(x.dtype)}'"
        )
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {eps}")
    if x.is_cuda or target.is_cuda:
        from ..backends.cuda.ops import cross_entropy as cuda_cross_entropy

        return cuda_cross_entropy(x, target, weight, ignore_index, red, eps)
    if xd.ndim == 2:  # the common case, without _class_layout's generality
        (N, C), inner, out_shape = xd.shape, 1, xd.shape[:1]
    else:
        N, C, inner, out_shape = _class_layout(x, target, "cross_entropy")
    td = target._data
    prob = td.dtype.kind == "f" and td.shape == xd.shape
    w, has_w = _check_weight(weight, C, x, None if prob else "nll_loss_forward")
    if prob:
        if ignore_index != -100:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if target.dtype is not x.dtype:
            raise RuntimeError(
                f"expected scalar type {_scalar_name(x.dtype)} but found "
                f"{_scalar_name(target.dtype)}"
            )
        t = _rows(td, N, C, inner)
    else:
        t = _check_index_target(x, target, N, inner, out_shape, "nll_loss")
    ins = (x,)
    if prob and target._rg:
        ins += (target,)
    if has_w and weight._rg:
        ins += (weight,)
    record = needs_record(ins)
    M = N * inner
    xr = _rows(xd, N, C, inner)
    lse = np.empty(M, xd.dtype)
    loss = np.empty(M if red == NONE else 0, xd.dtype)
    p = np.empty(M * C if record and x._rg else 0, xd.dtype)
    ign = int(ignore_index)
    ti, tp = (t[:0].astype(np.int64), t) if prob else (t, xr[:0])
    lsum, wsum, nign, bad, *addrs = ce_fwd(xr, ti, tp, w, has_w, ign, prob, M, C, eps, lse, loss, p)
    if bad >= 0:
        raise IndexError(f"Target {int(t[bad])} is out of bounds.")
    if red == NONE:
        out, scale = loss.reshape(out_shape), 1.0
    elif red == SUM:
        out, scale = np.asarray(lsum, xd.dtype), 1.0
    else:
        out = np.asarray(lsum / wsum if wsum else math.nan, xd.dtype)
        scale = 1.0 / wsum if wsum else math.nan
    if not record:
        return Tensor._make(out, -1, False)
    if prob:
        op = _CE_PROB if red == MEAN else _CE_PROB_SUM
    else:
        op = _CE if eps == 0.0 else _CE_LS
    it = 1 if len(ins) > 1 and ins[1] is target else -1
    iw = len(ins) - 1 if len(ins) > 1 and ins[-1] is weight else -1
    attrs = (M, C, inner, int(prob), red, ign, has_w, nign, it, iw, *addrs)
    # xr (and a probability target's rows) may be copies: the originals are kept too, for
    # the differentiable VJP, which finds its inputs' values by address
    saved = (xr, t, w, lse, p, xd, target._data)
    return emit(op, out, ins, iattrs=attrs, fattrs=(eps, scale), saved=saved)


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
def nll_grad(g, t, w, has_w, ignore, N, C, inner, red, scale, gx):
    """gx -= g w[t] at the targets (gx in the input's (N, C, inner) layout); ignored rows
    get nothing. Shared with compiled mode (_compile/kernels.py)."""
    for j in range(N * inner):
        tj = t[j]
        if tj == ignore:
            continue
        sc = g[j] if red == NONE else g[0] * scale
        gx[j // inner * C * inner + j % inner + tj * inner] -= sc * (w[tj] if has_w else 1.0)


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
    nll_grad(cot(T, s_y, V), t, w, has_w, ignore, N, C, inner, red, scale, acc(T, s_x, V))


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
    if x.is_cuda or target.is_cuda:
        from ..backends.cuda.ops import nll as cuda_nll

        return cuda_nll(x, target, weight, ignore_index, red)
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
        if a.is_cuda or b.is_cuda:  # CUDA tensors expand by their method (a device copy)
            a, b = a.expand(shape), b.expand(shape)
        else:
            a, b = expand(a, shape), expand(b, shape)
    red = reduction_code(reduction)
    if a.is_cuda or b.is_cuda:
        from ..backends.cuda.ops import pointwise_loss as cuda_loss

        op = (
            (_L1_NONE if red == NONE else _L1_SUM if red == SUM else _PW[L1])
            if kind == L1
            else _PW[kind]
        )
        return cuda_loss(kind, op, a, b, red, float(p), weight, pos_weight, name)
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

    def bcast(t, nm):
        if t is None:
            return np.empty(0, ad.dtype), 0
        if not isinstance(t, Tensor):
            raise TypeError(f"{nm} must be a Tensor, not {type(t).__name__}")
        if t._rg and STATE.enabled:  # PyTorch does not differentiate in them either
            raise _not_differentiable(name, nm)
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
    if kind == BCE and ad.size:  # both, after the weights, as PyTorch (NaN fails too)
        for arr, nm in ((ad, "input"), (bd, "target")):
            if not (arr.min() >= 0 and arr.max() <= 1):
                raise RuntimeError(f"all elements of {nm} should be between 0 and 1")
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
