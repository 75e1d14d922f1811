"""The optimizers' update kernels: one compiled call updates every parameter.

Each kernel takes a table of addresses (one row per parameter: the parameter, its
gradient and its state buffers), the element counts, the dtype code (0 float32, 1
float64) and a table of per-parameter hyperparameters (a row per parameter, so several
param groups still take one call). The arithmetic follows torch.optim's single-tensor
implementations operation for operation; scalars are float64, elements are stored in
the parameter's dtype.
"""

import math

from numba import njit

from .memory import v32, v64

# hyperparameter columns shared by the kernels: see each optimizer's _hyper()
_opts = {"cache": True, "fastmath": False, "error_model": "numpy"}


# The CPU loops (_sgd1, _adam1, _rms1) state each rule again, inline: built from these
# element functions, the CPU loops measured 12x slower (Adam on 26k float32: 1.2 ms against
# 0.1 ms; LLVM no longer vectorised them). tests/test_cuda.py checks the two agree.
@njit(inline="always")
def sgd_at(p, g, buf, j, lr, momentum, dampening, wd, nesterov, maximize, fresh):
    """Element j of SGD's update (also compiled for CUDA: backends/cuda/optim.py)."""
    d = -g[j] if maximize else g[j]
    if wd != 0.0:
        d = d + wd * p[j]
    if momentum != 0.0:
        if fresh:
            b = d
        else:
            b = buf[j] * momentum + (1.0 - dampening) * d
        buf[j] = b
        b = buf[j]
        d = d + momentum * b if nesterov else b
    p[j] = p[j] - lr * d


@njit(**_opts)
def _sgd1(p, g, buf, lr, momentum, dampening, wd, nesterov, maximize, fresh):
    for j in range(p.size):
        d = -g[j] if maximize else g[j]
        if wd != 0.0:
            d = d + wd * p[j]
        if momentum != 0.0:
            if fresh:
                b = d
            else:
                b = buf[j] * momentum + (1.0 - dampening) * d
            buf[j] = b
            b = buf[j]
            d = d + momentum * b if nesterov else b
        p[j] = p[j] - lr * d


@njit(**_opts)
def sgd(A, N, D, H):
    """A: (P, 3) param, grad, momentum buffer; H: lr, momentum, dampening, wd, nesterov,
    maximize, fresh-buffer flag."""
    for i in range(A.shape[0]):
        n = N[i]
        h = H[i]
        if D[i] == 0:
            _sgd1(
                v32(A[i, 0], n),
                v32(A[i, 1], n),
                v32(A[i, 2], n),
                h[0],
                h[1],
                h[2],
                h[3],
                h[4] != 0,
                h[5] != 0,
                h[6] != 0,
            )
        else:
            _sgd1(
                v64(A[i, 0], n),
                v64(A[i, 1], n),
                v64(A[i, 2], n),
                h[0],
                h[1],
                h[2],
                h[3],
                h[4] != 0,
                h[5] != 0,
                h[6] != 0,
            )


def adam_scalars(t, lr, b1, b2):
    """Adam's per-step scalars for step count t: (step size, sqrt of the second bias
    correction, lerp weight)."""
    bc1 = 1.0 - b1**t
    bc2 = 1.0 - b2**t
    return lr / bc1, math.sqrt(bc2), 1.0 - b1


_adam_scalars = njit(inline="always")(adam_scalars)


@njit(inline="always")
def adam_at(p, g, m, v, vmax, j, lr, b1, b2, eps, wd, amsgrad, maximize, decoupled, sc):
    """Element j of Adam's update; sc: adam_scalars (also compiled for CUDA)."""
    step_size, bc2_sqrt, w = sc
    gj = -g[j] if maximize else g[j]
    if wd != 0.0:
        if decoupled:
            p[j] = p[j] * (1.0 - lr * wd)
        else:
            gj = gj + wd * p[j]
    mj = m[j]
    # torch's lerp: self + w * (end - self) for w < 0.5, else end - (end - self) * (1 - w)
    if w < 0.5:
        mj = mj + w * (gj - mj)
    else:
        mj = gj - (gj - mj) * (1.0 - w)
    m[j] = mj
    v[j] = v[j] * b2 + (1.0 - b2) * gj * gj
    if amsgrad:
        if v[j] > vmax[j]:
            vmax[j] = v[j]
        denom = math.sqrt(vmax[j]) / bc2_sqrt + eps
    else:
        denom = math.sqrt(v[j]) / bc2_sqrt + eps
    p[j] = p[j] - step_size * (m[j] / denom)


@njit(**_opts)
def _adam1(p, g, m, v, vmax, step, lr, b1, b2, eps, wd, amsgrad, maximize, decoupled):
    step[0] += 1
    t = float(step[0])
    bc1 = 1.0 - b1**t
    bc2 = 1.0 - b2**t
    step_size = lr / bc1
    bc2_sqrt = math.sqrt(bc2)
    w = 1.0 - b1  # lerp weight
    for j in range(p.size):
        gj = -g[j] if maximize else g[j]
        if wd != 0.0:
            if decoupled:
                p[j] = p[j] * (1.0 - lr * wd)
            else:
                gj = gj + wd * p[j]
        mj = m[j]
        # torch's lerp: self + w * (end - self) for w < 0.5, else end - (end - self) * (1 - w)
        if w < 0.5:
            mj = mj + w * (gj - mj)
        else:
            mj = gj - (gj - mj) * (1.0 - w)
        m[j] = mj
        v[j] = v[j] * b2 + (1.0 - b2) * gj * gj
        if amsgrad:
            if v[j] > vmax[j]:
                vmax[j] = v[j]
            denom = math.sqrt(vmax[j]) / bc2_sqrt + eps
        else:
            denom = math.sqrt(v[j]) / bc2_sqrt + eps
        p[j] = p[j] - step_size * (m[j] / denom)


@njit(**_opts)
def adam(A, N, D, H):
    """A: (P, 6) param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step (float32[1]);
    H: lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled."""
    for i in range(A.shape[0]):
        n = N[i]
        h = H[i]
        st = v32(A[i, 5], 1)
        if D[i] == 0:
            _adam1(
                v32(A[i, 0], n),
                v32(A[i, 1], n),
                v32(A[i, 2], n),
                v32(A[i, 3], n),
                v32(A[i, 4], n),
                st,
                h[0],
                h[1],
                h[2],
                h[3],
                h[4],
                h[5] != 0,
                h[6] != 0,
                h[7] != 0,
            )
        else:
            _adam1(
                v64(A[i, 0], n),
                v64(A[i, 1], n),
                v64(A[i, 2], n),
                v64(A[i, 3], n),
                v64(A[i, 4], n),
                st,
                h[0],
                h[1],
                h[2],
                h[3],
                h[4],
                h[5] != 0,
                h[6] != 0,
                h[7] != 0,
            )


@njit(inline="always")
def rms_at(p, g, sq, gavg, buf, j, lr, alpha, eps, wd, momentum, centered, maximize):
    """Element j of RMSprop's update (also compiled for CUDA)."""
    w = 1.0 - alpha
    gj = -g[j] if maximize else g[j]
    if wd != 0.0:
        gj = gj + wd * p[j]
    sq[j] = sq[j] * alpha + (1.0 - alpha) * gj * gj
    if centered:
        a = gavg[j]
        if w < 0.5:
            a = a + w * (gj - a)
        else:
            a = gj - (gj - a) * (1.0 - w)
        gavg[j] = a
        avg = math.sqrt(sq[j] - gavg[j] * gavg[j])
    else:
        avg = math.sqrt(sq[j])
    avg = avg + eps
    if momentum > 0.0:
        buf[j] = buf[j] * momentum + gj / avg
        p[j] = p[j] - lr * buf[j]
    else:
        p[j] = p[j] - lr * (gj / avg)


@njit(**_opts)
def _rms1(p, g, sq, gavg, buf, step, lr, alpha, eps, wd, momentum, centered, maximize):
    step[0] += 1
    w = 1.0 - alpha
    for j in range(p.size):
        gj = -g[j] if maximize else g[j]
        if wd != 0.0:
            gj = gj + wd * p[j]
        sq[j] = sq[j] * alpha + (1.0 - alpha) * gj * gj
        if centered:
            a = gavg[j]
            if w < 0.5:
                a = a + w * (gj - a)
            else:
                a = gj - (gj - a) * (1.0 - w)
            gavg[j] = a
            avg = math.sqrt(sq[j] - gavg[j] * gavg[j])
        else:
            avg = math.sqrt(sq[j])
        avg = avg + eps
        if momentum > 0.0:
            buf[j] = buf[j] * momentum + gj / avg
            p[j] = p[j] - lr * buf[j]
        else:
            p[j] = p[j] - lr * (gj / avg)


@njit(**_opts)
def rmsprop(A, N, D, H):
    """A: (P, 6) param, grad, square_avg, grad_avg, momentum_buffer, step (float32[1]);
    H: lr, alpha, eps, weight_decay, momentum, centered, maximize."""
    for i in range(A.shape[0]):
        n = N[i]
        h = H[i]
        st = v32(A[i, 5], 1)
        if D[i] == 0:
            _rms1(
                v32(A[i, 0], n),
                v32(A[i, 1], n),
                v32(A[i, 2], n),
                v32(A[i, 3], n),
                v32(A[i, 4], n),
                st,
                h[0],
                h[1],
                h[2],
                h[3],
                h[4],
                h[5] != 0,
                h[6] != 0,
            )
        else:
            _rms1(
                v64(A[i, 0], n),
                v64(A[i, 1], n),
                v64(A[i, 2], n),
                v64(A[i, 3], n),
                v64(A[i, 4], n),
                st,
                h[0],
                h[1],
                h[2],
                h[3],
                h[4],
                h[5] != 0,
                h[6] != 0,
            )
