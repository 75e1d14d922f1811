"""Hand-written CUDA kernels: copies, reductions (shared memory), tiled matmul, softmax.

Built once, on first use, by `build()`: shared-memory sizes must be compile-time
constants, and the simulator uses smaller blocks than a GPU (`runtime.configure`).
Every kernel is a grid-stride loop or one block per output row, so any size runs with
the capped grid. Accumulation is in float64 for both float dtypes.
"""

import math

import numpy as np
from numba import cuda

from ..rules import SCALAR
from .launch import ALL, ATOMIC, FLOAT, INT, declare
from .runtime import configure

# kinds of the line kernels (`lines`, `lines_vjp`)
PROD, VAR, STD, LSE, PNORM, AMAX, AMIN, CUMSUM = range(8)

K = None


@cuda.jit(device=True)
def bc_offsets(i, shp, sa, sb):
    """Offsets into two operands broadcast to `shp`, for flat output index i."""
    oa = 0
    ob = 0
    r = i
    for d in range(shp.size - 1, -1, -1):
        q = r % shp[d]
        r //= shp[d]
        oa += q * sa[d]
        ob += q * sb[d]
    return oa, ob


@cuda.jit(device=True)
def offset(i, shp, st):
    o = 0
    r = i
    for d in range(shp.size - 1, -1, -1):
        q = r % shp[d]
        r //= shp[d]
        o += q * st[d]
    return o


class _Kernels:
    pass


def build():
    global K
    if K is not None:
        return K
    L = configure()
    TPB, T = L.tpb, L.tile
    # the activations' and pointwise losses' scalar rules, as their op families state them
    act_f, act_df, loss_f, loss_df = (
        cuda.jit(device=True)(SCALAR[name].py_func)
        for name in ("activation", "activation_grad", "pointwise_loss", "pointwise_loss_grad")
    )
    f64 = np.float64

    @declare("kernels.fill", "o:T[] v:T", T=ALL)
    @cuda.jit
    def fill(o, v):
        i = cuda.grid(1)
        while i < o.size:
            o[i] = v
            i += cuda.gridsize(1)

    @declare("kernels.store", "dst:T[] src:U[] acc:b1", T=ALL, U=ALL)
    @cuda.jit
    def store(dst, src, acc):
        """dst (+)= src, flat (casts between float dtypes)."""
        i = cuda.grid(1)
        while i < dst.size:
            if acc:
                dst[i] += src[i]
            else:
                dst[i] = src[i]
            i += cuda.gridsize(1)

    @declare("kernels.gather", "src:T[] dst:T[] shp:i8[] st:i8[] acc:b1 scale:A(T)", T=ALL)
    @cuda.jit
    def gather(src, dst, shp, st, acc, scale):
        """dst[i] (+)= scale * src[offset(i)]: transpose, permute, expand, sum/mean VJP."""
        i = cuda.grid(1)
        while i < dst.size:
            v = src[offset(i, shp, st)] * scale
            if acc:
                dst[i] += v
            else:
                dst[i] = v
            i += cuda.gridsize(1)

    @cuda.jit(device=True)
    def block_sum(sm, v):
        """Tree reduction of one value per thread in shared memory; all threads get it."""
        t = cuda.threadIdx.x
        sm[t] = v
        cuda.syncthreads()
        s = TPB // 2
        while s > 0:
            if t < s:
                sm[t] += sm[t + s]
            cuda.syncthreads()
            s //= 2
        r = sm[0]
        cuda.syncthreads()
        return r

    @cuda.jit(device=True)
    def block_max(sm, v):
        t = cuda.threadIdx.x
        sm[t] = v
        cuda.syncthreads()
        s = TPB // 2
        while s > 0:
            if t < s and sm[t + s] > sm[t]:
                sm[t] = sm[t + s]
            cuda.syncthreads()
            s //= 2
        r = sm[0]
        cuda.syncthreads()
        return r

    def summing(adt, pre, src_t):
        """sum_all, sum_dims and bmm accumulating in `adt` (float64 for floats; int64 for
        integer tensors, exact); `pre` names the family, `src_t` its tensor dtypes."""
        F = np.dtype(adt).name

        @declare(pre + "sum_all", f"src:T[] dst:U[] acc:b1 scale:{F}", T=src_t, U=src_t)
        @cuda.jit
        def sum_all(src, dst, acc, scale):
            """Block b writes the scaled sum of its grid-stride share of src to dst[b]."""
            sm = cuda.shared.array(TPB, adt)
            i = cuda.grid(1)
            v = adt(0)
            while i < src.size:
                v += src[i]
                i += cuda.gridsize(1)
            r = block_sum(sm, v) * scale
            if cuda.threadIdx.x == 0:
                b = cuda.blockIdx.x
                if acc:
                    dst[b] += r
                else:
                    dst[b] = r

        @declare(
            pre + "sum_dims",
            f"src:T[] dst:T[] kshp:i8[] kst:i8[] rshp:i8[] rst:i8[] nr:i8 acc:b1 scale:{F}",
            T=src_t,
        )
        @cuda.jit
        def sum_dims(src, dst, kshp, kst, rshp, rst, nr, acc, scale):
            """dst[j] (+)= scale * sum over the reduced dims of src: one block per output."""
            sm = cuda.shared.array(TPB, adt)
            j = cuda.blockIdx.x
            while j < dst.size:
                base = offset(j, kshp, kst)
                v = adt(0)
                r = cuda.threadIdx.x
                while r < nr:
                    v += src[base + offset(r, rshp, rst)]
                    r += TPB
                s = block_sum(sm, v) * scale
                if cuda.threadIdx.x == 0:
                    if acc:
                        dst[j] += s
                    else:
                        dst[j] = s
                j += cuda.gridDim.x

        @declare(
            pre + "bmm",
            "A:T[] B:T[] C:T[] nb:i8 M:i8 Kd:i8 N:i8 ta:b1 tb:b1 sa:i8 sb:i8 acc:b1",
            T=src_t,
        )
        @cuda.jit
        def bmm(A, B, C, nb, M, Kd, N, ta, tb, sa, sb, acc):
            """C[b] (+)= op(A[b]) @ op(B[b]) with shared-memory tiles; op = transpose if ta/tb.
            sa/sb: batch strides of A/B (0 broadcasts one matrix over the batch). Tiles of
            rows and batches are grid-stride loops over grid y and z, so any size fits the
            grid's limits (the loops' bounds are the same for every thread of a block, so
            all of them reach each syncthreads)."""
            tA = cuda.shared.array((T, T), adt)
            tB = cuda.shared.array((T, T), adt)
            tx = cuda.threadIdx.x
            ty = cuda.threadIdx.y
            n = cuda.blockIdx.x * T + tx
            b = cuda.blockIdx.z
            while b < nb:
                ao = b * sa
                bo = b * sb
                mt = cuda.blockIdx.y
                while mt * T < M:
                    m = mt * T + ty
                    s = adt(0)
                    for k0 in range(0, Kd, T):
                        ka = k0 + tx
                        if m < M and ka < Kd:
                            tA[ty, tx] = A[ao + (ka * M + m if ta else m * Kd + ka)]
                        else:
                            tA[ty, tx] = 0
                        kb = k0 + ty
                        if n < N and kb < Kd:
                            tB[ty, tx] = B[bo + (n * Kd + kb if tb else kb * N + n)]
                        else:
                            tB[ty, tx] = 0
                        cuda.syncthreads()
                        for j in range(T):
                            s += tA[ty, j] * tB[j, tx]
                        cuda.syncthreads()
                    if m < M and n < N:
                        c = b * M * N + m * N + n
                        if acc:
                            C[c] += s
                        else:
                            C[c] = s
                    mt += cuda.gridDim.y
                b += cuda.gridDim.z

        return sum_all, sum_dims, bmm

    sum_all, sum_dims, bmm = summing(f64, "kernels.", FLOAT)
    isum_all, isum_dims, ibmm = summing(np.int64, "kernels.i", INT)

    @declare("kernels.softmax_rows", "x:T[] y:T[] C:i8 log:b1", T=FLOAT)
    @cuda.jit
    def softmax_rows(x, y, C, log):
        """Softmax (or log-softmax) of each length-C row: one block per row."""
        sm = cuda.shared.array(TPB, f64)
        row = cuda.blockIdx.x
        nrow = x.size // C
        while row < nrow:
            o = row * C
            m = -math.inf
            c = cuda.threadIdx.x
            while c < C:
                m = max(m, x[o + c])
                c += TPB
            m = block_max(sm, m)
            s = 0.0
            c = cuda.threadIdx.x
            while c < C:
                s += math.exp(x[o + c] - m)
                c += TPB
            s = block_sum(sm, s)
            ls = math.log(s)
            c = cuda.threadIdx.x
            while c < C:
                if log:
                    y[o + c] = x[o + c] - m - ls
                else:
                    y[o + c] = math.exp(x[o + c] - m) / s
                c += TPB
            row += cuda.gridDim.x

    @declare("kernels.softmax_vjp", "g:T[] y:T[] gx:T[] C:i8 log:b1 acc:b1", T=FLOAT)
    @cuda.jit
    def softmax_vjp(g, y, gx, C, log, acc):
        """gx (+)= y * (g - sum(g * y)) (softmax), g - exp(y) * sum(g) (log_softmax)."""
        sm = cuda.shared.array(TPB, f64)
        row = cuda.blockIdx.x
        nrow = g.size // C
        while row < nrow:
            o = row * C
            s = 0.0
            c = cuda.threadIdx.x
            while c < C:
                s += g[o + c] if log else g[o + c] * y[o + c]
                c += TPB
            s = block_sum(sm, s)
            c = cuda.threadIdx.x
            while c < C:
                v = g[o + c] - math.exp(y[o + c]) * s if log else y[o + c] * (g[o + c] - s)
                if acc:
                    gx[o + c] += v
                else:
                    gx[o + c] = v
                c += TPB
            row += cuda.gridDim.x

    @declare(
        "kernels.nll_rows",
        "lp:T[] ti:i8[] tp:T[] w:T[] has_w:b1 ignore:i8 eps:f8 prob:b1 C:i8 loss:T[] wr:T[]",
        T=FLOAT,
    )
    @cuda.jit
    def nll_rows(lp, ti, tp, w, has_w, ignore, eps, prob, C, loss, wr):
        """loss[r]: row r's loss for log-probabilities lp (M, C): class target ti[r] (an
        ignored row: 0) with class weights w and label smoothing eps, or probabilities tp
        (M, C). wr[r]: the row's weight in a mean (w[ti[r]], 0 if ignored; 1 for tp)."""
        r = cuda.grid(1)
        while r < loss.size:
            o = r * C
            v = 0.0
            if prob:
                for c in range(C):
                    wc = w[c] if has_w else 1.0
                    v -= wc * ((1.0 - eps) * tp[o + c] + eps / C) * lp[o + c]
                wr[r] = 1.0
            elif ti[r] == ignore:
                wr[r] = 0.0
            else:
                t = ti[r]
                wt = w[t] if has_w else 1.0
                v = -(1.0 - eps) * wt * lp[o + t]
                if eps != 0.0:
                    sm = 0.0
                    for c in range(C):
                        sm += (w[c] if has_w else 1.0) * lp[o + c]
                    v -= eps / C * sm
                wr[r] = wt
            loss[r] = v
            r += cuda.gridsize(1)

    @declare("kernels.ratio", "y:T[] den:T[]", T=FLOAT)
    @cuda.jit
    def ratio(y, den):
        """y[0] /= den[0] (NaN for a zero denominator, as the CPU's mean of no rows)."""
        if cuda.grid(1) == 0:
            y[0] = y[0] / den[0] if den[0] != 0 else math.nan

    @cuda.jit(device=True)
    def row_scale(g, den, r, none):
        if none:
            return g[r]
        return g[0] / den[0] if den[0] != 0 else math.nan

    @declare(
        "kernels.nll_vjp",
        "g:T[] ti:i8[] tp:T[] w:T[] lp:T[] has_w:b1 ignore:i8 eps:f8 prob:b1 C:i8 none:b1 "
        "den:T[] gx:T[] gt:T[] wx:b1 wt:b1 ax:b1 at:b1",
        T=FLOAT,
    )
    @cuda.jit
    def nll_vjp(g, ti, tp, w, lp, has_w, ignore, eps, prob, C, none, den, gx, gt, wx, wt, ax, at):
        """gx (+)= d loss / d lp and, for probability targets, gt (+)= d loss / d tp (the
        cotangent g per row, or g[0] / den[0] for a reduction)."""
        i = cuda.grid(1)
        while i < lp.size:
            r = i // C
            c = i - r * C
            sc = row_scale(g, den, r, none)
            wc = w[c] if has_w else 1.0
            if prob:
                v = -sc * wc * ((1.0 - eps) * tp[i] + eps / C)
                if wt:
                    u = -sc * (1.0 - eps) * wc * lp[i]
                    if at:
                        gt[i] += u
                    else:
                        gt[i] = u
            elif ti[r] == ignore:
                v = 0.0
            else:
                v = -sc * eps / C * wc
                if c == ti[r]:
                    v -= sc * (1.0 - eps) * (w[c] if has_w else 1.0)
            if wx:
                if ax:
                    gx[i] += v
                else:
                    gx[i] = v
            i += cuda.gridsize(1)

    @declare(
        "kernels.nll_vjp_weight",
        "g:T[] tp:T[] lp:T[] eps:f8 C:i8 none:b1 den:T[] gw:T[] acc:b1",
        T=FLOAT,
    )
    @cuda.jit
    def nll_vjp_weight(g, tp, lp, eps, C, none, den, gw, acc):
        """Probability targets: gw[c] (+)= -sum_r sc_r ((1 - eps) tp[r, c] + eps / C) lp[r, c]."""
        c = cuda.grid(1)
        while c < C:
            v = 0.0
            for r in range(lp.size // C):
                v -= (
                    row_scale(g, den, r, none)
                    * ((1.0 - eps) * tp[r * C + c] + eps / C)
                    * lp[r * C + c]
                )
            if acc:
                gw[c] += v
            else:
                gw[c] = v
            c += cuda.gridsize(1)

    @declare("kernels.arg_best", "src:T[] dst:i8[] inner:i8 n:i8 largest:b1", T=ALL)
    @cuda.jit
    def arg_best(src, dst, inner, n, largest):
        """dst[j] = index along a length-n dim (stride `inner`) of the max (min) of src;
        the first one on ties, NaN counting as the largest, as torch.argmax/argmin."""
        j = cuda.grid(1)
        while j < dst.size:
            base = (j // inner) * n * inner + j % inner
            bi = 0
            bv = src[base]
            for r in range(1, n):
                v = src[base + r * inner]
                if bv != bv:
                    break
                if v != v or (v > bv if largest else v < bv):
                    bv = v
                    bi = r
            dst[j] = bi
            j += cuda.gridsize(1)

    @declare("kernels.one_hot", "idx:i8[] out:i8[] C:i8")
    @cuda.jit
    def one_hot(idx, out, C):
        """out (flat (n, C)) [i, c] = 1 if idx[i] == c else 0 (idx checked in range)."""
        j = cuda.grid(1)
        while j < out.size:
            out[j] = 1 if idx[j // C] == j % C else 0
            j += cuda.gridsize(1)

    @declare("kernels.take", "src:T[] pos:i8[] dst:T[] acc:b1", T=ALL)
    @cuda.jit
    def take(src, pos, dst, acc):
        """dst[i] (+)= src[pos[i]]: every indexing/shape forward, cat's VJP."""
        i = cuda.grid(1)
        while i < dst.size:
            if acc:
                dst[i] += src[pos[i]]
            else:
                dst[i] = src[pos[i]]
            i += cuda.gridsize(1)

    @declare("kernels.put", "src:T[] spos:i8[] dst:T[] dpos:i8[] ident:b1", T=ALL)
    @cuda.jit
    def put(src, spos, dst, dpos, ident):
        """dst[dpos[i]] = src[spos[i]] (src[i] if ident): cat/stack, index_put. A plain
        copy of the element, exact for every dtype."""
        i = cuda.grid(1)
        while i < dpos.size:
            dst[dpos[i]] = src[i if ident else spos[i]]
            i += cuda.gridsize(1)

    @declare("kernels.put_add", "src:T[] spos:i8[] dst:T[] dpos:i8[] scale:T ident:b1", T=ATOMIC)
    @cuda.jit
    def put_add(src, spos, dst, dpos, scale, ident):
        """dst[dpos[i]] += scale * src[spos[i]] atomically (duplicate positions
        accumulate): take's VJP, scatter_add/index_add/index_put(accumulate). In the
        dtype itself (int64 stays exact); the dtypes with native atomics only."""
        i = cuda.grid(1)
        while i < dpos.size:
            cuda.atomic.add(dst, dpos[i], src[i if ident else spos[i]] * scale)
            i += cuda.gridsize(1)

    @declare("kernels.put_or", "src:b1[] spos:i8[] dst:b1[] dpos:i8[] ident:b1")
    @cuda.jit
    def put_or(src, spos, dst, dpos, ident):
        """Accumulation of bools (True wins): every racing writer stores the same True."""
        i = cuda.grid(1)
        while i < dpos.size:
            if src[i if ident else spos[i]]:
                dst[dpos[i]] = True
            i += cuda.gridsize(1)

    @declare("kernels.fill_at", "dst:T[] dpos:i8[] v:T", T=ALL)
    @cuda.jit
    def fill_at(dst, dpos, v):
        """dst[dpos[i]] = v."""
        i = cuda.grid(1)
        while i < dpos.size:
            dst[dpos[i]] = v
            i += cuda.gridsize(1)

    @declare("kernels.line_pos", "idx:i8[] pos:i8[] n:i8 inner:i8")
    @cuda.jit
    def line_pos(idx, pos, n, inner):
        """Flat positions in an (outer, n, inner) tensor of index idx[j] along n."""
        j = cuda.grid(1)
        while j < pos.size:
            pos[j] = (j // inner) * n * inner + idx[j] * inner + j % inner
            j += cuda.gridsize(1)

    @declare("kernels.where", "c:b1[] a:T[] b:T[] y:T[]", T=ALL)
    @cuda.jit
    def where(c, a, b, y):
        i = cuda.grid(1)
        while i < y.size:
            y[i] = a[i] if c[i] else b[i]
            i += cuda.gridsize(1)

    @declare("kernels.where_vjp", "c:b1[] g:T[] gx:T[] take_true:b1 acc:b1", T=FLOAT)
    @cuda.jit
    def where_vjp(c, g, gx, take_true, acc):
        i = cuda.grid(1)
        while i < gx.size:
            v = g[i] if c[i] == take_true else 0.0
            if acc:
                gx[i] += v
            else:
                gx[i] = v
            i += cuda.gridsize(1)

    @declare("kernels.act", "x:T[] y:T[] kind:i8 p0:T p1:T p2:T", T=FLOAT)
    @cuda.jit
    def act(x, y, kind, p0, p1, p2):
        """The parametrised activations of ops/activations.py (leaky_relu, elu, clamp...)."""
        i = cuda.grid(1)
        while i < y.size:
            y[i] = act_f(kind, x[i], p0, p1, p2)
            i += cuda.gridsize(1)

    @declare("kernels.act_vjp", "x:T[] g:T[] gx:T[] kind:i8 p0:T p1:T p2:T acc:b1", T=FLOAT)
    @cuda.jit
    def act_vjp(x, g, gx, kind, p0, p1, p2, acc):
        i = cuda.grid(1)
        while i < gx.size:
            v = g[i] * act_df(kind, x[i], p0, p1, p2)
            if acc:
                gx[i] += v
            else:
                gx[i] = v
            i += cuda.gridsize(1)

    @declare("kernels.lines", "x:T[] y:T[] nl:i8 n:i8 inner:i8 kind:i8 p:f8", T=FLOAT)
    @cuda.jit
    def lines(x, y, nl, n, inner, kind, p):
        """Reduce (or scan, for CUMSUM) each of the nl lines of x seen as (outer, n, inner):
        line j starts at (j // inner) * n * inner + j % inner, stride inner. One thread per
        line. `p`: the correction of VAR/STD, the order of PNORM."""
        j = cuda.grid(1)
        while j < nl:
            base = (j // inner) * n * inner + j % inner
            m = 0.0
            if kind == LSE or kind == AMAX or kind == AMIN:
                m = x[base]
                for r in range(1, n):
                    v = x[base + r * inner]
                    if v != v or m != m:
                        m = math.nan
                    elif (v < m) if kind == AMIN else (v > m):
                        m = v
                if kind == LSE and not math.isfinite(m):
                    m = 0.0 if m == m else m
            elif kind == VAR or kind == STD:
                for r in range(n):
                    m += x[base + r * inner]
                m /= n
            s = 1.0 if kind == PROD else 0.0
            for r in range(n):
                i = base + r * inner
                v = x[i]
                if kind == PROD:
                    s *= v
                elif kind == VAR or kind == STD:
                    s += (v - m) * (v - m)
                elif kind == LSE:
                    s += math.exp(v - m)
                elif kind == CUMSUM:
                    s += v
                    y[i] = s
                elif kind == PNORM:
                    a = abs(v)
                    if p == math.inf:
                        s = max(s, a)
                    elif p == -math.inf:
                        s = a if r == 0 else min(s, a)
                    elif p == 0:
                        s += 1.0 if a != 0 else 0.0
                    elif p == 1:
                        s += a
                    elif p == 2:
                        s += a * a
                    else:
                        s += a**p
            if kind == VAR or kind == STD:
                s = s / max(n - p, 0.0)
                if kind == STD:
                    s = math.sqrt(s)
            elif kind == LSE:
                s = math.log(s) + m
            elif kind == AMAX or kind == AMIN:
                s = m
            elif kind == PNORM and p != 0 and p != 1 and not math.isinf(p):
                s = math.sqrt(s) if p == 2 else s ** (1.0 / p)
            if kind != CUMSUM:
                y[j] = s
            j += cuda.gridsize(1)

    @declare("kernels.lcse_lines", "x:T[] y:T[] outer:i8 n:i8 inner:i8", T=FLOAT)
    @cuda.jit
    def lcse_lines(x, y, outer, n, inner):
        """logcumsumexp of each line (ops/cumulative.py: the layout, the CPU kernel)."""
        j = cuda.grid(1)
        while j < outer * inner:
            base = (j // inner) * n * inner + j % inner
            a = -math.inf
            for r in range(n):
                b = f64(x[base + r * inner])
                if a != a or b != b:
                    a = a + b
                else:
                    hi, lo = max(a, b), min(a, b)
                    if not (lo == -math.inf or hi == math.inf):
                        hi += math.log1p(math.exp(lo - hi))
                    a = hi
                y[base + r * inner] = a
            j += cuda.gridsize(1)

    @declare(
        "kernels.lcse_vjp",
        "x:T[] y:T[] g:T[] gx:T[] outer:i8 n:i8 inner:i8 acc:b1",
        T=FLOAT,
    )
    @cuda.jit
    def lcse_vjp(x, y, g, gx, outer, n, inner, acc):
        """gx (+)= exp(x_r - y_r) t_r, t_r = g_r + exp(y_r - y_{r+1}) t_{r+1}."""
        j = cuda.grid(1)
        while j < outer * inner:
            base = (j // inner) * n * inner + j % inner
            t = 0.0
            for q in range(n):
                i = base + (n - 1 - q) * inner
                if q == 0:
                    t = f64(g[i])
                else:
                    t = g[i] + math.exp(f64(y[i]) - y[i + inner]) * t
                d = math.exp(f64(x[i]) - y[i]) * t
                if acc:
                    gx[i] += d
                else:
                    gx[i] = d
            j += cuda.gridsize(1)

    @declare(
        "kernels.lines_vjp",
        "x:T[] y:T[] g:T[] gx:T[] nl:i8 n:i8 inner:i8 kind:i8 p:f8 acc:b1",
        T=FLOAT,
    )
    @cuda.jit
    def lines_vjp(x, y, g, gx, nl, n, inner, kind, p, acc):
        """gx (+)= the VJP of `lines` for line j's cotangent g[j] (g full-size for CUMSUM:
        the reverse running sum)."""
        j = cuda.grid(1)
        while j < nl:
            base = (j // inner) * n * inner + j % inner
            yj = 0.0 if kind == CUMSUM else y[j]
            gj = 0.0 if kind == CUMSUM else g[j]
            a = 1.0  # PROD: product of the non-zeros; VAR/STD: the mean; AMAX/AMIN: 1/ties
            c = 0.0  # PROD: count of zeros; AMAX/AMIN, PNORM(+-inf): ties with the result
            if kind == VAR or kind == STD:
                a = 0.0
                for r in range(n):
                    a += x[base + r * inner]
                a /= n
            elif kind == PROD or kind == AMAX or kind == AMIN or kind == PNORM:
                for r in range(n):
                    v = x[base + r * inner]
                    if kind == PROD:
                        if v == 0:
                            c += 1.0
                        else:
                            a *= v
                    elif (abs(v) if kind == PNORM else v) == yj:
                        c += 1.0
            run = 0.0
            for q in range(n):
                r = n - 1 - q if kind == CUMSUM else q
                i = base + r * inner
                v = x[i]
                if kind == CUMSUM:
                    run += g[i]
                    d = run
                elif kind == PROD:
                    d = 0.0 if c > 1 else (a if v == 0 else (0.0 if c == 1 else a / v))
                    d *= gj
                elif kind == VAR:
                    d = gj * 2.0 * (v - a) / max(n - p, 0.0)
                elif kind == STD:
                    d = gj * (v - a) / (max(n - p, 0.0) * yj) if yj != 0 else 0.0
                elif kind == LSE:
                    d = gj * math.exp(v - yj)
                elif kind == AMAX or kind == AMIN:
                    d = gj / c if v == yj else 0.0
                else:  # PNORM
                    sg = 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)
                    if math.isinf(p):
                        d = gj * sg / c if abs(v) == yj else 0.0
                    elif p == 0:
                        d = 0.0
                    elif p == 1:
                        d = gj * sg
                    elif yj == 0:
                        d = 0.0
                    elif p == 2:
                        d = gj * v / yj
                    else:
                        d = gj * sg * abs(v) ** (p - 1) / yj ** (p - 1)
                if acc:
                    gx[i] += d
                else:
                    gx[i] = d
            j += cuda.gridsize(1)

    @declare(
        "kernels.pw_loss", "a:T[] b:T[] w:T[] pw:T[] hw:b1 hp:b1 kind:i8 p:f8 out:T[]", T=FLOAT
    )
    @cuda.jit
    def pw_loss(a, b, w, pw, hw, hp, kind, p, out):
        """The elementwise losses of ops/losses.py (mse, l1, smooth_l1, huber, bce(+logits)).
        Scalars go through float(): the CPU rules subtract booleans (sign), which Python
        floats allow and the simulator's NumPy scalars refuse."""
        i = cuda.grid(1)
        while i < out.size:
            wi = float(w[i]) if hw else 1.0
            pi = float(pw[i]) if hp else 1.0
            out[i] = loss_f(kind, float(a[i]), float(b[i]), p, wi, pi)
            i += cuda.gridsize(1)

    @declare(
        "kernels.pw_loss_vjp",
        "a:T[] b:T[] w:T[] pw:T[] hw:b1 hp:b1 kind:i8 p:f8 g:T[] full:b1 scale:f8 ga:T[] gb:T[] "
        "wa:b1 wb:b1 acca:b1 accb:b1",
        T=FLOAT,
    )
    @cuda.jit
    def pw_loss_vjp(a, b, w, pw, hw, hp, kind, p, g, full, scale, ga, gb, wa, wb, acca, accb):
        """ga, gb (+)= g * d loss / d (a, b); g full-size (reduction none) or one element."""
        i = cuda.grid(1)
        while i < a.size:
            wi = float(w[i]) if hw else 1.0
            pi = float(pw[i]) if hp else 1.0
            da, db = loss_df(kind, float(a[i]), float(b[i]), p, wi, pi)
            sc = g[i] if full else g[0] * scale
            if wa:
                if acca:
                    ga[i] += sc * da
                else:
                    ga[i] = sc * da
            if wb:
                if accb:
                    gb[i] += sc * db
                else:
                    gb[i] = sc * db
            i += cuda.gridsize(1)

    k = _Kernels()
    for name in (
        "fill store gather sum_all sum_dims bmm softmax_rows softmax_vjp nll_rows ratio nll_vjp "
        "nll_vjp_weight arg_best isum_all isum_dims ibmm one_hot "
        "take put put_add put_or fill_at line_pos where where_vjp act act_vjp lines lines_vjp "
        "lcse_lines lcse_vjp "
        "pw_loss pw_loss_vjp"
    ).split():
        setattr(k, name, locals()[name])
    K = k
    return K
