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

Each op is declared at the end with its facets (`registry.declare`): named attributes
(`CE`, `NLL`, `PW`: one schema for CPU and CUDA rows), CPU VJP kernels, CUDA launchers
(cross_entropy on CUDA is log_softmax then an nll_loss row; kernels in
backends/cuda/kernels.py), differentiable VJPs and, for rows a compiled program replays
by the eager op, `eager`.
"""

import ctypes
import math

import numpy as np
from numba import njit, prange

from nbgrad._array import contig

from .._dtype import promote_types
from .._dtype import scalar_name as _scalar_name
from .._optable import attrs, declare
from ..autograd.grad_mode import STATE
from ..backends import rules
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
from ..backends.cpu.vecloops import exp_flush, rdot, rmax, rsum
from ..backends.cpu.vmath import vlog
from ..tensor import Tensor
from .recording import emit, needs_record

MSE, L1, SMOOTH_L1, HUBER, BCE, BCE_LOGITS = range(6)
NONE, MEAN, SUM = 0, 1, 2
_REDUCTIONS = {"none": NONE, "mean": MEAN, "sum": SUM}
_REDUCTION_NAMES = {v: k for k, v in _REDUCTIONS.items()}
PAR_MIN = 1 << 15

# The rows' attributes, by name (`registry.attrs`); the ops are declared at the end.
# cross_entropy: M = N * inner rows of C classes; probability targets or not; the
# reduction; ignore_index; a class weight or not; the ignored rows; the input positions of
# a target and a weight that take gradients (or -1); the addresses of the arrays the VJP
# reads (the input and target as rows, the weight, the logsumexps, the softmax).
CE = attrs(
    "M", "C", "inner", "prob", "red", "ignore", "has_w", "nign", "i_target", "i_weight",
    "x_at", "t_at", "w_at", "lse_at", "p_at",
)  # fmt: skip
CE_F = attrs("eps", "scale")  # label smoothing; the mean's 1 / (sum of target weights)
# nll_loss: N * inner samples of C classes (a CUDA row: N = M rows, inner = 1), the
# addresses of the targets and the weight (CPU), probability targets and the input
# positions of a target and a weight that take gradients (CUDA, for cross_entropy)
NLL = attrs(
    "N", "C", "inner", "red", "ignore", "has_w", "t_at", "w_at", "prob", "i_target",
    "i_weight",
)  # fmt: skip
# (and its floats: the mean's 1 / (sum of target weights), on CUDA kept on the device
# instead; label smoothing, CUDA)
NLL_F = attrs("scale", "eps")
# pointwise losses: the loss kind, the reduction, the addresses of weight / pos_weight
# (CPU; broadcast to the input's shape) and whether each is given
PW = attrs("kind", "red", "w_at", "pw_at", "has_w", "has_pw")
PW_F = attrs("p", "scale")  # beta / delta; the mean's 1 / n


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
    M, C, inner = iattr(T, k, CE.M), iattr(T, k, CE.C), iattr(T, k, CE.inner)
    prob, red, ignore = iattr(T, k, CE.prob), iattr(T, k, CE.red), iattr(T, k, CE.ignore)
    has_w, nign = iattr(T, k, CE.has_w), iattr(T, k, CE.nign)
    it, iw = iattr(T, k, CE.i_target), iattr(T, k, CE.i_weight)
    eps, scale = fattr(T, k, CE_F.eps), fattr(T, k, CE_F.scale)
    g = cot(T, s_y, V)
    x = view_as(iattr(T, k, CE.x_at), M * C, V)
    lse = view_as(iattr(T, k, CE.lse_at), M, V)
    w = view_as(iattr(T, k, CE.w_at), C if has_w else 0, V)
    if prob:
        t = view_as(iattr(T, k, CE.t_at), M * C, V)
        ti = np.empty(0, np.int64)
    else:
        t = x[:0]
        ti = vi64(iattr(T, k, CE.t_at), M)
    if wants(T, s_x):
        p = view_as(iattr(T, k, CE.p_at), M * C, V)
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


def _check_prob_target(x, target, ignore_index):
    """PyTorch's error for class-probability targets (CPU and CUDA rows alike); their
    dtype is the input's (`cross_entropy` promotes both)."""
    if ignore_index != -100:
        raise RuntimeError("ignore_index is not supported for floating point target")


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
    tt = target.dtype
    if tt.is_floating_point and tt is not x.dtype and tuple(target.shape) == tuple(xd.shape):
        # class probabilities of another float dtype: both promoted, as PyTorch does
        dt = promote_types(x.dtype, tt)
        x, target = x.to(dt), target.to(dt)
        xd = x._data
    if x.is_cuda or target.is_cuda:
        return _cuda_class_loss(x, target, weight, ignore_index, red, eps, True)
    if xd.ndim == 2:  # the common case, without _class_layout's generality
        (N, C), inner, out_shape = xd.shape, 1, xd.shape[:1]
    else:
        N, C, inner, out_shape = _class_layout(x, target, "cross_entropy")
    td = target._data
    prob = td.dtype.kind == "f" and td.shape == xd.shape
    w, has_w = _check_weight(weight, C, x, None if prob else "nll_loss_forward")
    if prob:
        _check_prob_target(x, target, ignore_index)
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
        op = CROSS_ENTROPY_PROB if red == MEAN else CROSS_ENTROPY_PROB_SUM
    else:
        op = CROSS_ENTROPY if eps == 0.0 else CROSS_ENTROPY_LS
    it = 1 if len(ins) > 1 and ins[1] is target else -1
    iw = len(ins) - 1 if len(ins) > 1 and ins[-1] is weight else -1
    x_at, t_at, w_at, lse_at, p_at = addrs
    ia = op.pack(
        M=M, C=C, inner=inner, prob=int(prob), red=red, ignore=ign, has_w=has_w, nign=nign,
        i_target=it, i_weight=iw, x_at=x_at, t_at=t_at, w_at=w_at, lse_at=lse_at, p_at=p_at,
    )  # fmt: skip
    # xr (and a probability target's rows) may be copies: the originals are kept too, for
    # the differentiable VJP, which finds its inputs' values by address
    saved = (xr, t, w, lse, p, xd, target._data)
    return emit(op, out, ins, iattrs=ia, fattrs=op.pack_f(eps=eps, scale=scale), saved=saved)


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
    N, C, inner = iattr(T, k, NLL.N), iattr(T, k, NLL.C), iattr(T, k, NLL.inner)
    red, ignore, has_w = iattr(T, k, NLL.red), iattr(T, k, NLL.ignore), iattr(T, k, NLL.has_w)
    t = vi64(iattr(T, k, NLL.t_at), N * inner)
    w = view_as(iattr(T, k, NLL.w_at), C if has_w else 0, V)
    scale = fattr(T, k, NLL_F.scale)
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
        return _cuda_class_loss(x, target, weight, ignore_index, red, 0.0, False)
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
    ia = NLL_LOSS.pack(
        N=N, C=C, inner=inner, red=red, ignore=ign, has_w=has_w, t_at=_addr(t), w_at=_addr(w),
        prob=0, i_target=-1, i_weight=-1,
    )  # fmt: skip
    fa = NLL_LOSS.pack_f(scale=scale, eps=0.0)
    return emit(NLL_LOSS, out, (x,), iattrs=ia, fattrs=fa, saved=(xd, t, w))


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


rules.provide(pointwise_loss=_pw_loss, pointwise_loss_grad=_pw_grad)  # (CUDA's too)


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
    kind, red, n = iattr(T, k, PW.kind), iattr(T, k, PW.red), numel(T, s_a)
    w = view_as(iattr(T, k, PW.w_at), n if iattr(T, k, PW.has_w) else 0, V)
    pw = view_as(iattr(T, k, PW.pw_at), n if iattr(T, k, PW.has_pw) else 0, V)
    p, scale = fattr(T, k, PW_F.p), fattr(T, k, PW_F.scale)
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
        return _cuda_pointwise_loss(kind, a, b, red, float(p), weight, pos_weight, name)
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
    op = _pointwise_op(kind, red)
    ia = op.pack(kind=kind, red=red, w_at=_addr(w), pw_at=_addr(pw), has_w=hw, has_pw=hp)
    fa = op.pack_f(p=float(p), scale=scale)
    return emit(op, out, (a, b), iattrs=ia, fattrs=fa, saved=(ad, bd, w, pw))


def _pointwise_op(kind, red):
    """The op of a pointwise loss row (l1's grad_fn name depends on the reduction)."""
    if kind == L1 and red != MEAN:
        return L1_NONE if red == NONE else L1_SUM
    return POINTWISE[kind]


# -- CUDA: forwards and VJP launchers (kernels in backends/cuda/kernels.py) ----------------
def _cuda_class_rows(t, N, C, inner):
    """An (N, C, d...) or (C,) CUDA tensor as rows (N * inner, C): the class dim moved last
    (a recorded copy when there are trailing dims)."""
    from .cuda.forwards import permute, view

    if t._data.ndim == 1:
        return view(t, (1, C))
    if inner > 1:
        nd = t._data.ndim
        t = permute(t, (0,) + tuple(range(2, nd)) + (1,))
    return view(t, (N * inner, C)) if t._data.ndim != 2 else t


def _cuda_class_loss(x, target, weight, ignore_index, red, eps, log_softmax):
    """F.cross_entropy (log_softmax first) and F.nll_loss on CUDA: class targets (with
    ignore_index, weight, label smoothing) or, for cross_entropy, class probabilities;
    any reduction; (N, C, d...) inputs as rows of C. One nll_loss row records the NLL of
    the rows' log-probabilities; the mean's denominator (the target weights' sum) stays on
    the device. Targets are validated on the host (one small copy) so no kernel indexes
    out of range; the errors are the CPU's."""
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch, launch_grid
    from ..backends.cuda.primitives import dev_ints, reduce_dims
    from .cuda.forwards import cast, device_error, wrap
    from .softmax import log_softmax as log_softmax_of

    for t in (x, target) + (() if weight is None else (weight,)):
        if not (isinstance(t, Tensor) and t.is_cuda):
            raise device_error("cuda:0", t.device)
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"\"nll_loss\" not implemented for '{_scalar_name(x.dtype)}'")
    name = "cross_entropy" if log_softmax else "nll_loss"
    N, C, inner, out_shape = _class_layout(x, target, name)
    td = target._data
    prob = log_softmax and td.dtype.kind == "f" and td.shape == x._data.shape
    w = None
    if weight is not None:
        if weight._data.shape != (C,):
            raise RuntimeError(
                f"weight tensor should be defined either for all {C} classes or no classes but "
                f"got weight tensor of shape: {list(weight._data.shape)}"
            )
        if weight._rg and STATE.enabled and not prob:
            raise _not_differentiable("nll_loss_forward", "weight")
        w = cast(weight, x.dtype)
    M = N * inner
    rows = _cuda_class_rows(x, N, C, inner)
    lp = log_softmax_of(rows, -1) if log_softmax else rows
    ign = int(ignore_index)
    if prob:
        _check_prob_target(x, target, ign)
        tp, ti = _cuda_class_rows(target, N, C, inner), dev_ints([0])[0]
    else:
        host = Tensor._make(td.host(), -1, False)
        t = _check_index_target(x, host, N, inner, out_shape, "nll_loss")
        bad = t[(t != ign) & ((t < 0) | (t >= C))]
        if bad.size:
            raise IndexError(f"Target {int(bad[0])} is out of bounds.")
        tp, ti = lp, rt.from_host(np.asarray(t, np.int64)).flat
    dt = x._data.dtype
    K = build()
    loss, wr = rt.empty((M,), dt), rt.empty((M,), dt)
    wd = w._data.flat if w is not None else lp._data.flat
    if M:
        launch(K.nll_rows, M, lp._data.flat, ti, tp._data.flat, wd, w is not None, ign, eps,
               prob, C, loss.flat, wr.flat)  # fmt: skip
    den = rt.empty((1,), dt)
    if red == NONE:
        out = loss.reshape(out_shape)
    else:
        out = rt.empty((), dt)
        reduce_dims(loss.flat, (M,), (0,), out.flat, 0, 1.0)
        if red == MEAN:
            reduce_dims(wr.flat, (M,), (0,), den.flat, 0, 1.0)
            launch_grid(K.ratio, 1, 1, out.flat, den.flat)
        else:
            launch(K.fill, 1, den.flat, dt.type(1))
    ins, it, iw = [lp], -1, -1
    if prob and target._rg:
        ins.append(tp)
        it = 1
    if prob and w is not None and w._rg:
        ins.append(w)
        iw = len(ins) - 1
    tsave = tp._data if prob else rt.CudaArray(ti)
    saved = (lp._data, tsave, w._data if w is not None else lp._data, den)
    ia = NLL_LOSS.pack(
        N=M, C=C, inner=1, red=red, ignore=ign, has_w=int(w is not None), t_at=0, w_at=0,
        prob=int(prob), i_target=it, i_weight=iw,
    )  # fmt: skip
    fa = NLL_LOSS.pack_f(scale=1.0, eps=eps)  # the mean's scale: `den`, on the device
    return wrap(out, tuple(ins), NLL_LOSS, iattrs=ia, fattrs=fa, saved=saved)


def _cuda_vjp_nll(G, k):
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch
    from ..backends.cuda.primitives import dev_ints

    a = type(NLL)(*G.iattrs(k))
    eps = G.fattr(k, NLL_F.eps)
    lp, tgt, w, den = G.saved(k)
    g = G.cot(G.out(k, 0))
    ti, tp = (dev_ints([0])[0], tgt) if a.prob else (tgt, lp)
    sx = G.inp(k, 0)
    st = G.inp(k, a.i_target) if a.i_target >= 0 else -1
    wx, wt = G.wants(sx), st >= 0 and G.wants(st)
    K = build()
    none = a.red == NONE
    if wx or wt:
        gx, ax = G.take(sx) if wx else (lp, False)
        gt, at = G.take(st) if wt else (lp, False)
        launch(K.nll_vjp, lp.size, g, ti, tp, w, lp, bool(a.has_w), a.ignore, eps,
               bool(a.prob), a.C, none, den, gx, gt, wx, wt, ax, at)  # fmt: skip
    if a.i_weight >= 0 and G.wants(G.inp(k, a.i_weight)):
        gw, acc = G.take(G.inp(k, a.i_weight))
        launch(K.nll_vjp_weight, a.C, g, tp, lp, eps, a.C, none, den, gw, acc)


def _cuda_pointwise_loss(kind, a, b, red, p, weight, pos_weight, name):
    """The pointwise losses on CUDA: one kernel for the per-element losses (the CPU rules,
    compiled for the device), the shared reduction for mean/sum, one VJP kernel."""
    from ..backends.cuda import runtime as rt
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch
    from ..backends.cuda.primitives import reduce_dims
    from .cuda import reductions
    from .cuda.forwards import _float, cast, device_error, expand, wrap

    for t in (a, b):
        if not t.is_cuda:
            raise device_error("cuda:0", t.device)
    if a._data.shape != b._data.shape:
        raise rt.not_on_cuda(f"{name} with a target of another shape")
    _float(a, name)
    if b.dtype is not a.dtype:
        b = cast(b, a.dtype)
    shape, n = a._data.shape, a._data.size
    if kind == BCE and n:  # bounds checked on the host: two scalars come back per tensor
        for t, nm in ((a, "input"), (b, "target")):
            lo = reductions.amax(t.detach(), (), False, False).item()
            hi = reductions.amax(t.detach(), (), False, True).item()
            if lo < 0 or hi > 1 or hi != hi or lo != lo:
                raise RuntimeError(f"all elements of {nm} should be between 0 and 1")
    extra = []
    for t, nm in ((weight, "weight"), (pos_weight, "pos_weight")):
        if t is None:
            extra.append(None)
            continue
        if t._rg:
            raise _not_differentiable(name, nm)
        if not t.is_cuda:
            raise device_error("cuda:0", t.device)
        t = cast(t, a.dtype)
        extra.append(t if t._data.shape == shape else expand(t.detach(), shape))
    w, pw = (t._data.flat if t is not None else a._data.flat for t in extra)
    hw, hp = (t is not None for t in extra)
    le = rt.empty(shape, a._data.dtype)
    if n:
        launch(build().pw_loss, n, a._data.flat, b._data.flat, w, pw, hw, hp, kind, p, le.flat)
    scale = 1.0
    out = le
    if red != NONE:
        scale = (1.0 / n if n else math.nan) if red == MEAN else 1.0
        out = rt.empty((), a._data.dtype)
        reduce_dims(le.flat, shape or (1,), tuple(range(max(len(shape), 1))), out.flat, 0, scale)
    saved = (a._data, b._data) + tuple(t._data for t in extra if t is not None)
    op = _pointwise_op(kind, red)
    ia = op.pack(kind=kind, red=red, w_at=0, pw_at=0, has_w=hw, has_pw=hp)
    return wrap(out, (a, b), op, iattrs=ia, fattrs=op.pack_f(p=p, scale=scale), saved=saved)


def cuda_mse_loss(a, b, reduction="mean"):
    """mse_loss of two CUDA tensors of one shape."""
    red = reduction_code(reduction)
    return _cuda_pointwise_loss(MSE, a, b, red, 0.0, None, None, "mse_loss")


def _cuda_vjp_pointwise(G, k):
    """Only the given weight / pos_weight are saved (after the input and the target)."""
    from ..backends.cuda.kernels import build
    from ..backends.cuda.launch import launch

    sa, sb = G.inp(k, 0), G.inp(k, 1)
    wa, wb = G.wants(sa), G.wants(sb)
    if not (wa or wb):
        return
    at = type(PW)(*G.iattrs(k))
    a, b, *extra = G.saved(k)
    w = extra.pop(0) if at.has_w else a
    pw = extra.pop(0) if at.has_pw else a
    ga, acca = G.take(sa) if wa else (a, False)
    gb, accb = G.take(sb) if wb else (a, False)
    g = G.cot(G.out(k, 0))
    p, scale = G.fattr(k, PW_F.p), G.fattr(k, PW_F.scale)
    launch(build().pw_loss_vjp, a.size, a, b, w, pw, bool(at.has_w), bool(at.has_pw), at.kind,
           p, g, at.red == NONE, scale, ga, gb, wa, wb, acca, accb)  # fmt: skip


# -- differentiable VJPs (create_graph, forward mode, batched gradients) -------------------
# Each is its op's compiled VJP written with nbgrad ops, broadcasting over the cotangent's
# leading batch dims. What is piecewise constant in the inputs (one-hot targets, masks of
# active pieces, signs) is a constant array; what varies smoothly is recomputed with
# nbgrad ops from the values the row saved, so the VJP can be differentiated again.
def _const(row, arr):
    """A constant (no gradient) in the dtype of the row's first input, on its device."""
    return row.const(contig(arr, dtype=row.dtype(row.ins[0]).np))


def _mask(row, m):
    """A bool Tensor as 0/1 in the dtype of the row's first input."""
    return m.to(row.dtype(row.ins[0]))


def _on_gpu(arr):
    """A saved CudaArray as a constant CUDA tensor (no slot, no gradient)."""
    from .cuda.tensor import CudaTensor

    return CudaTensor._make(arr, -1, False)


def _class_coef(t, w, N, C, inner, ignore, eps):
    """a[n, c, d]: the coefficient of class c in sample (n, d)'s loss sum_c a (lse - x_c):
    its one-hot target smoothed by eps, times the class weight; 0 for ignored samples.
    Also the one-hot targets of the samples that count (not ignored)."""
    t2 = t.reshape(N, 1, inner)
    keep = t2 != ignore
    hot = (np.arange(C)[None, :, None] == t2) & keep
    wc = np.ones(C) if w is None else w
    return ((1.0 - eps) * hot + eps / C) * wc[None, :, None] * keep, hot


def _per_sample(row, g, red, scale, keep):
    """The loss's cotangent per sample (batch, N, 1, inner): g for reduction 'none', else
    g * scale; 0 for the samples that do not count (`keep` false: ignored), which the
    kernels skip (so a NaN scale does not reach them)."""
    sc = np.where(keep, 1.0 if red == NONE else scale, 0.0)
    gs = g.reshape(row.bshape + (keep.shape if red == NONE else (1, 1, 1)))
    return gs * _const(row, sc)


def _dvjp_cross_entropy(row, g):
    """Sample loss sum_c a_c (lse - x_c): gx = s (softmax(x) A - a), A = sum_c a_c, and
    for probability targets (a = w ((1 - eps) t + eps / C)) gt = -s (1 - eps) w log_softmax(x)
    and gw = -s ((1 - eps) t + eps / C) log_softmax(x) summed over samples.
    log_softmax is recomputed from x (the saved logsumexps are constants to it)."""
    from .softmax import log_softmax

    at, f = row.attrs(), row.float_attrs()
    C, inner, it, iw, eps = at.C, at.inner, at.i_target, at.i_weight, f.eps
    N = at.M // inner
    t, w = row.saved[1], row.saved[2] if at.has_w else None
    xs = row.shape(row.ins[0])
    ls = log_softmax(row.x().reshape(N, C, inner), 1)
    if iw >= 0:  # a weight that takes a gradient is an input (probability targets only)
        wc = row.x(iw).reshape(1, C, 1)
    else:
        wc = _const(row, np.ones((1, C, 1)) if w is None else w.reshape(1, C, 1))
    if at.prob:
        tt = row.x(it) if it >= 0 else _const(row, row.saved[6])
        # the smoothed target without the weight (what the weight's gradient multiplies)
        q = tt.reshape(N, C, inner) * (1.0 - eps) + eps / C
        a = q * wc
        keep = np.ones((N, 1, inner), bool)
    else:
        coef, hot = _class_coef(t, w, N, C, inner, at.ignore, eps)
        a = _const(row, coef)
        keep = hot.any(axis=1, keepdims=True)
    s = _per_sample(row, g, at.red, f.scale, keep)
    grads = [None] * len(row.ins)
    if row.wants(0):
        grads[0] = (s * (ls.exp() * a.sum(dim=1, keepdim=True) - a)).reshape(row.bshape + xs)
    if it >= 0 and row.wants(it):
        grads[it] = (s * ls * wc * -(1.0 - eps)).reshape(row.bshape + xs)
    if iw >= 0 and row.wants(iw):
        nb = len(row.bshape)
        gw = (s * ls * q * -1.0).sum(dim=(nb, nb + 2))
        grads[iw] = gw.reshape(row.bshape + (C,))
    return tuple(grads)


def _dvjp_nll(row, g):
    """gx = -s w[t] at each sample's target class, 0 elsewhere."""
    if row.cuda:
        return _dvjp_nll_cuda(row, g)
    a = row.attrs()
    N, C, inner = a.N, a.C, a.inner
    t, w = row.saved[1], row.saved[2] if a.has_w else None
    coef, hot = _class_coef(t, w, N, C, inner, a.ignore, 0.0)
    if a.red == NONE:
        gs = g.reshape(row.bshape + (N, 1, inner))
    else:  # the scale folded into the constant, only at the targets (a NaN scale too)
        gs = g.reshape(row.bshape + (1, 1, 1))
        with np.errstate(invalid="ignore"):
            coef = np.where(hot, coef * row.float_attrs().scale, 0.0)
    return ((gs * _const(row, -coef)).reshape(row.bshape + row.shape(row.ins[0])),)


def _dvjp_nll_cuda(row, g):
    """The GPU's nll_loss row (cross_entropy is log_softmax then this row): rows of
    log-probabilities lp (M, C), the loss of row r -sum_c a[r, c] lp[r, c] with a =
    w_c ((1 - eps) target + eps / C) (one-hot class targets, 0 for ignored rows, or
    probabilities, which with the weight may be inputs), divided by the saved target
    weights' sum for a mean. gx = -s a, gt = -s (1 - eps) w lp, gw = -sum_r s q lp."""
    from ..functions import where

    at = row.attrs()
    C, it, iw, none = at.C, at.i_target, at.i_weight, at.red == NONE
    eps = row.float_attrs().eps
    _, tsave, wsave, den = row.saved
    M = row.numel(row.ins[0]) // C if C else 0
    bs, nb = row.bshape, row.nb
    if iw >= 0:
        wc = row.value(row.ins[iw], 2).reshape(1, C)
    else:
        wc = _on_gpu(wsave).reshape(1, C) if at.has_w else 1.0
    keep = None
    if at.prob:
        tt = row.value(row.ins[it], 1) if it >= 0 else _on_gpu(tsave).reshape(M, C)
        q = tt * (1.0 - eps) + eps / C
        a = q * wc
    else:
        t = _on_gpu(tsave).reshape(M, 1)
        keep = t != at.ignore
        hot = (row.const(np.arange(C).reshape(1, C)) == t) & keep
        a = (_mask(row, hot) * (1.0 - eps) + eps / C) * _mask(row, keep) * wc
    if none:
        s = g.reshape(bs + (M, 1))
    else:
        s = g.reshape(bs + (1, 1)) / _on_gpu(den).reshape(1, 1)  # NaN for a zero sum
    grads = [None] * len(row.ins)
    if row.wants(0):
        gx = s * a * -1.0
        if keep is not None and not none:  # ignored rows: 0, also for a NaN scale
            gx = where(keep, gx, 0.0)
        grads[0] = gx.reshape(bs + (M, C))
    if it >= 0 and row.wants(it):
        lp = row.value(row.ins[0], 0)
        grads[it] = (s * lp * wc * -(1.0 - eps)).reshape(bs + (M, C))
    if iw >= 0 and row.wants(iw):
        lp = row.value(row.ins[0], 0)
        grads[iw] = (s * q * lp * -1.0).sum(dim=nb).reshape(bs + (C,))
    return tuple(grads)


def _dvjp_pointwise(row, g):
    """(ga, gb) = s * (d loss / d a, d loss / d b) per element, s = g (or g * scale for a
    mean): the derivatives of `_pw_grad`. The weight / pos_weight are saved after the
    input and the target: always on the CPU (empty when not given), only the given ones on
    CUDA."""
    at, f = row.attrs(), row.float_attrs()
    shape = row.shape(row.ins[0])
    if row.cuda:
        extra = [_on_gpu(a.reshape(shape)) for a in row.saved[2:]]
        w = extra.pop(0) if at.has_w else None
        pw = extra.pop(0) if at.has_pw else None
    else:
        w = _const(row, row.saved[2].reshape(shape)) if at.has_w else None
        pw = _const(row, row.saved[3].reshape(shape)) if at.has_pw else None
    s = g if at.red == NONE else g.reshape(row.bshape + (1,) * len(shape))
    if at.red != NONE and f.scale != 1.0:
        s = s * f.scale
    da, db = _pw_grads(row, at.kind, f.p, w, pw)
    ga = s * da if row.wants(0) and da is not None else None
    gb = s * db if row.wants(1) and db is not None else None
    return ga, gb


def _pw_grads(row, kind, p, w, pw):
    """(d loss / d a, d loss / d b) as Tensors (None where that input takes no gradient);
    `w`, `pw`: constant Tensors or None."""
    from .activations import softplus

    a, b = row.x(0), row.x(1)
    if kind in (MSE, L1, SMOOTH_L1, HUBER):
        d = a - b
        dd = d.detach()
        sgn = dd.sign()
        if kind == MSE:
            v = d * 2.0
        elif kind == L1:
            v = sgn
        elif kind == SMOOTH_L1:  # d / beta inside |d| < beta, else sign(d)
            inside = dd.abs() < p
            v = d * (_mask(row, inside) / p) + sgn * _mask(row, ~inside)
        else:  # huber: d inside |d| <= delta, else delta sign(d)
            inside = dd.abs() <= p
            v = d * _mask(row, inside) + sgn * (_mask(row, ~inside) * p)
        return v, -v
    wt = 1.0 if w is None else w
    if kind == BCE:  # unclamped logs for the target, as the kernel (and torch)
        da = (a - b) / ((1.0 - a) * a).clamp(min=1e-12) * wt
        db = ((-a).log1p() - a.log()) * wt
        return da, db
    # with logits: w ((pw b + 1 - b) sigmoid(a) - pw b), w ((pw - 1) softplus(-a) - a)
    pwt = 1.0 if pw is None else pw
    da = ((b * pwt + 1.0 - b) * a.sigmoid() - b * pwt) * wt
    db = (softplus(-a) * (pwt - 1.0) - a) * wt
    return da, db


# -- compiled programs (nbgrad.compile): the eager op called again on a row's inputs -------
# (cross_entropy with class targets and nll_loss have code of their own in
# _compile/program.py, calling the kernels above)
def _at(address, like):
    """The array at `address` of `like`'s shape and dtype, as a tensor."""
    buf = (ctypes.c_char * like.nbytes).from_address(int(address))
    return Tensor._make(np.frombuffer(buf, like.dtype).reshape(like.shape), -1, False)


def _replay_cross_entropy_prob(xs, a, f):
    """Probability targets: the target (and a class weight) are inputs of the row."""
    w = xs[a.i_weight] if a.has_w else None
    red = _REDUCTION_NAMES[a.red]
    return cross_entropy(xs[0], xs[a.i_target], w, reduction=red, label_smoothing=f.eps)


def _replay_pointwise(xs, a, f):
    """weight / pos_weight are read where the program put them, of the input's shape."""
    x = xs[0]
    w = _at(a.w_at, x._data) if a.has_w else None
    pw = _at(a.pw_at, x._data) if a.has_pw else None
    red = _REDUCTION_NAMES[a.red]
    return pointwise_loss(a.kind, x, xs[1], red, p=f.p, weight=w, pos_weight=pw, warn=False)


# -- the ops, declared with their facets (_optable.py) ---------------------------------
_CE = dict(a=CE, f=CE_F, vjp=vjp_cross_entropy, dvjp=_dvjp_cross_entropy)
CROSS_ENTROPY = declare("cross_entropy", "NllLossBackward0", **_CE)
CROSS_ENTROPY_LS = declare("cross_entropy_ls", "AddBackward0", **_CE)
_CE_PROB = dict(_CE, eager=_replay_cross_entropy_prob, eager_attrs=True)
CROSS_ENTROPY_PROB = declare("cross_entropy_prob", "DivBackward1", **_CE_PROB)
CROSS_ENTROPY_PROB_SUM = declare("cross_entropy_prob_sum", "NegBackward0", **_CE_PROB)
NLL_LOSS = declare(
    "nll_loss", "NllLossBackward0", a=NLL, f=NLL_F, vjp=vjp_nll, cuda_vjp=_cuda_vjp_nll,
    dvjp=_dvjp_nll,
)  # fmt: skip
_PW = dict(
    a=PW, f=PW_F, vjp=vjp_pointwise, eager=_replay_pointwise,
    cuda_vjp=_cuda_vjp_pointwise, dvjp=_dvjp_pointwise,
)  # fmt: skip
_PW_NODES = {
    MSE: "MseLossBackward0",
    L1: "MeanBackward0",
    SMOOTH_L1: "SmoothL1LossBackward0",
    HUBER: "HuberLossBackward0",
    BCE: "BinaryCrossEntropyBackward0",
    BCE_LOGITS: "BinaryCrossEntropyWithLogitsBackward0",
}
POINTWISE = {k: declare("loss_" + v, v, **_PW) for k, v in _PW_NODES.items()}
L1_NONE = declare("loss_l1_none", "AbsBackward0", **_PW)
L1_SUM = declare("loss_l1_sum", "SumBackward0", **_PW)
