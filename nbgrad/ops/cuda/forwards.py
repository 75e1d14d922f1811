"""CUDA forwards and VJP launchers of the elementwise ops, casts and device moves, sum and
mean, the flat views, permutes and expand, matmul, comparisons, where and the
parametrised activations.

Forwards validate in Python, allocate the output on the device, launch the kernel and
record a CUDA row (`backends/cuda/record.py`) under the op's ordinary code, so `grad_fn`
names and the planner are shared with the CPU. Each `vjp_*` here is the launcher an op
declares as its `cuda_vjp` (through `ops.cuda.launcher`): the GPU sweep calls it for a
CUDA row; it reads the row off the tape, takes gradient buffers from the sweep state `G`
(`backends/cuda/sweep.py`) and launches kernels; it never synchronises or copies to the
host (except `.cpu()`'s VJP, whose cotangent lives on the host).
"""

import math

import numpy as np

from ... import _dtype
from ..._optable import BY_NAME
from ...backends.cuda import runtime as rt
from ...backends.cuda.codegen import build
from ...backends.cuda.kernels import build as _kernels
from ...backends.cuda.launch import launch
from ...backends.cuda.primitives import bmm_launch, cstrides, dev_ints, reduce_dims, sum_to
from ...backends.cuda.record import needs_record, record
from ...tensor import Tensor, _wrap_dim
from .. import elementwise as ew
from ..pointwise import _strides, broadcast_shapes, is_scalar

# the dtype and device moves are declared with `to` (ops/pointwise.py)
TO_CUDA, TO_CPU, _TO = BY_NAME["to_cuda"], BY_NAME["to_cpu"], BY_NAME["to"]


def _ew_kernels():
    """The generated elementwise kernels of the ops' rule table."""
    return build(ew.UNARY, ew.BINARY)


_UNARY_SAVES = {n: ew.unary_saves(n) for n in ew.UNARY}


def _tensor_cls():
    from .tensor import CudaTensor

    return CudaTensor


def wrap(out, ins, op, iattrs=(), fattrs=(), saved=None):
    """`out` (a CudaArray) as a CUDA tensor, recording `op` if gradients must flow."""
    cls = _tensor_cls()
    if needs_record(ins):
        return cls._make(out, record(op.code, out, ins, iattrs, fattrs, saved), True)
    return cls._make(out, -1, False)


def device_error(a, b):
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{a} and {b}!"
    )


def _float(x, op):
    if x._data.dtype.kind != "f":
        raise rt.not_on_cuda(f"{op} on {x.dtype.name} tensors")


# -- transfers and casts ------------------------------------------------------------
def to_cuda(t, dt=None):
    """A CPU tensor's copy on the GPU, differentiable (the gradient returns to the CPU)."""
    data = t._data if dt is None or dt is t.dtype else t._data.astype(dt.np)
    out = rt.from_host(data)
    diff = data.dtype.kind == "f"
    return wrap(out, (t,) if diff else (), TO_CUDA)


def to_cpu(t, dt=None):
    host = t._data.host()
    if needs_record((t,)):
        s = record(TO_CPU.code, host, (t,), dt=0 if host.dtype == np.float32 else 1)
        out = Tensor._make(host, s, True)
    else:
        out = Tensor._make(host, -1, False)
    return out if dt is None or dt is out.dtype else out.to(dt)


def vjp_to_cuda(G, k):
    sx = G.inp(k, 0)
    if G.wants(sx):
        gx, acc = G.take(sx)  # host buffer
        g = G.cot(G.out(k, 0)).copy_to_host()
        if acc:
            gx += g
        else:
            gx[:] = g


def vjp_to_cpu(G, k):
    sx = G.inp(k, 0)
    if G.wants(sx):
        gx, acc = G.take(sx)  # device buffer
        g = rt.cuda().to_device(np.ascontiguousarray(G.cot(G.out(k, 0))))
        launch(_kernels().store, gx.size, gx, g, acc)


def cast(t, dt):
    if t.dtype is dt:
        return t
    out = rt.empty(t._data.shape, dt.np)
    launch(_kernels().store, out.size, out.flat, t._data.flat, 0)
    both = dt.is_floating_point and t.dtype.is_floating_point
    return wrap(out, (t,) if both else (), _TO)


def vjp_cast(G, k):
    sx = G.inp(k, 0)
    if G.wants(sx):
        gx, acc = G.take(sx)
        launch(_kernels().store, gx.size, gx, G.cot(G.out(k, 0)), acc)


def clone(x):
    out = rt.empty(x._data.shape, x._data.dtype)
    launch(_kernels().store, out.size, out.flat, x._data.flat, 0)
    return wrap(out, (x,), BY_NAME["clone"])


# -- elementwise, from the rules ------------------------------------------------------
def unary(name, x):
    _float(x, name)
    d = x._data
    out = rt.empty(d.shape, d.dtype)
    launch(getattr(_ew_kernels(), "fwd_" + name), out.size, d.flat, out.flat)
    saved = tuple(d if v == "x" else out for v in _UNARY_SAVES[name]) or None
    return wrap(out, (x,), BY_NAME[name], saved=saved)


def vjp_unary(name):
    def vjp(G, k):
        sx = G.inp(k, 0)
        if not G.wants(sx):
            return
        g = G.cot(G.out(k, 0))
        saved = G.saved(k)
        gx, acc = G.take(sx)
        launch(getattr(_ew_kernels(), "vjp_" + name), gx.size, g, *saved, gx, acc)

    return vjp


def _operand(x, other_dev):
    """A binary operand: a CUDA tensor, a Python number, or a CPU 0-dim tensor that takes
    no gradient (used as a number, as PyTorch allows CPU scalars with CUDA tensors)."""
    if isinstance(x, Tensor):
        if x.is_cuda:
            return x
        if x._data.ndim == 0 and not x._rg:
            return x._data.item()
        raise device_error(*other_dev(x))
    if is_scalar(x):
        return x
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def binary(name, a, b):
    a_cuda = isinstance(a, Tensor) and a.is_cuda
    devs = (lambda x: ("cuda:0", x.device)) if a_cuda else (lambda x: (x.device, "cuda:0"))
    a, b = _operand(a, devs), _operand(b, devs)
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return _tensor_tensor(name, a, b)
    if isinstance(a, Tensor):
        return _tensor_scalar(name, a, b, "ts")
    return _tensor_scalar(name, b, a, "st")


def _tensor_scalar(name, t, c, variant):
    _float(t, name)
    d = t._data
    out = rt.empty(d.shape, d.dtype)
    cv = d.dtype.type(c)
    args = (d.flat, cv) if variant == "ts" else (cv, d.flat)
    launch(getattr(_ew_kernels(), f"fwd_{name}_{variant}"), out.size, *args, out.flat)
    saves = ew.binary_saves(name, variant)
    saved = tuple(d if v in "ab" else out for v in saves) or None
    op = BY_NAME[f"{name}_{variant}"]
    return wrap(out, (t,), op, fattrs=(float(c),), saved=saved)


def _tensor_tensor(name, a, b):
    _float(a, name)
    _float(b, name)
    if a.dtype is not b.dtype:
        dt = _dtype.promote_types(a.dtype, b.dtype)
        a, b = cast(a, dt), cast(b, dt)
    da, db = a._data, b._data
    if da.shape == db.shape:
        out = rt.empty(da.shape, da.dtype)
        launch(getattr(_ew_kernels(), "fwd_" + name), out.size, da.flat, db.flat, out.flat)
    else:
        shape = broadcast_shapes(da.shape, db.shape)
        out = rt.empty(shape, da.dtype)
        shp, sa, sb = dev_ints(shape, _strides(da.shape, shape), _strides(db.shape, shape))
        kern = getattr(_ew_kernels(), f"fwd_{name}_bc")
        launch(kern, out.size, da.flat, db.flat, out.flat, shp, sa, sb)
    saves = ew.binary_saves(name, "tt")
    saved = tuple(da if v == "a" else db if v == "b" else out for v in saves) or None
    return wrap(out, (a, b), BY_NAME[name], saved=saved)


def vjp_binary(name):
    def vjp(G, k):
        sy, sa, sb = G.out(k, 0), G.inp(k, 0), G.inp(k, 1)
        g = G.cot(sy)
        saved = G.saved(k)
        ys, as_, bs = G.shape(sy), G.shape(sa), G.shape(sb)
        K = _ew_kernels()
        for op, s, xs in (("a", sa, as_), ("b", sb, bs)):
            if not G.wants(s):
                continue
            if as_ == bs == ys:
                gx, acc = G.take(s)
                launch(getattr(K, f"vjp_{name}_{op}"), gx.size, g, *saved, gx, acc)
                continue
            bc = dev_ints(ys, _strides(as_, ys), _strides(bs, ys))
            kern = getattr(K, f"vjp_{name}_{op}_bc")
            if xs == ys:
                gx, acc = G.take(s)
                launch(kern, gx.size, g, *saved, gx, acc, *bc)
            else:  # the operand was broadcast: full-size contribution, then sum it down
                full = G.scratch(g.size, g.dtype)
                launch(kern, full.size, g, *saved, full, 0, *bc)
                gx, acc = G.take(s)
                sum_to(full, ys, xs, gx, acc)

    return vjp


def vjp_scalar(name, variant):
    def vjp(G, k):
        sx = G.inp(k, 0)
        if not G.wants(sx):
            return
        g = G.cot(G.out(k, 0))
        c = g.dtype.type(G.fattr(k, 0))
        saved = G.saved(k)
        gx, acc = G.take(sx)
        launch(getattr(_ew_kernels(), f"vjp_{name}_{variant}"), gx.size, g, *saved, c, gx, acc)

    return vjp


# -- reductions --------------------------------------------------------------------------
_RED = {
    ("sum", False): BY_NAME["sum"],
    ("sum", True): BY_NAME["sum_dim"],
    ("mean", False): BY_NAME["mean"],
    ("mean", True): BY_NAME["mean_dim"],
}


def reduce(name, x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = cast(x, _dtype.as_dtype(dtype))
    if x._data.dtype.kind != "f":  # integer and bool tensors sum to int64 (no gradient)
        if name == "mean":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {x.dtype.name.capitalize()}"
            )
        x = cast(x, _dtype.int64)
    shape = x._data.shape
    nd = len(shape)
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        dims = tuple(range(nd))
        out_shape = (1,) * nd if keepdim and dim is not None else ()
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        dims = tuple(sorted({_wrap_dim(d, nd) for d in dims}))
        out_shape = tuple(
            1 if i in dims else s for i, s in enumerate(shape) if keepdim or i not in dims
        )
    n = math.prod(shape[d] for d in dims)
    scale = 1.0 / n if name == "mean" and n else (math.nan if name == "mean" else 1.0)
    out = rt.empty(out_shape, x._data.dtype)
    reduce_dims(x._data.flat, shape, dims, out.flat, 0, scale)
    op = _RED[(name, dim is not None)]
    ia = op.pack(dims=sum(1 << d for d in dims))  # the CPU row's bit mask (ops/reduce.py)
    return wrap(out, (x,), op, iattrs=ia, fattrs=op.pack_f(scale=scale))


# -- views ------------------------------------------------------------------------------
def view(x, shape, name="view"):
    """reshape/view/flatten/(un)squeeze: the same buffer, another shape (free)."""
    return wrap(x._data.reshape(shape), (x,), BY_NAME[name])


def vjp_flat(G, k):
    sx = G.inp(k, 0)
    if G.wants(sx):
        gx, acc = G.take(sx)
        launch(_kernels().store, gx.size, gx, G.cot(G.out(k, 0)), acc)


def permute(x, perm, name="permute"):
    """A copy with dims permuted (storage is always C-contiguous, as on the CPU)."""
    shape = x._data.shape
    st = cstrides(shape)
    out_shape = tuple(shape[p] for p in perm)
    out = rt.empty(out_shape, x._data.dtype)
    strides = [st[p] for p in perm]
    shp, sst = dev_ints(out_shape, strides)
    launch(_kernels().gather, out.size, x._data.flat, out.flat, shp, sst, False, 1)
    op = BY_NAME[name]  # the CPU row's schema: y[idx] = x.flat[offset + idx . strides]
    return wrap(out, (x,), op, iattrs=op.pack(offset=0, strides=strides))


def vjp_permute(G, k):
    """gx = g gathered over x's shape: x's dim d is y's dim with d's stride (unique among
    dims longer than 1 in a C layout; a dim of length 1 has one index, stride 0)."""
    sx = G.inp(k, 0)
    if not G.wants(sx):
        return
    xs, ys = G.shape(sx), G.shape(G.out(k, 0))
    S = _STRIDED.unpack(G.iattrs(k)).strides
    xst, yst = cstrides(xs), cstrides(ys)
    st = [0] * len(xs)
    for i, n in enumerate(ys):
        if n != 1:
            st[next(d for d in range(len(xs)) if xst[d] == S[i] and xs[d] == n)] = yst[i]
    gx, acc = G.take(sx)
    shp, st = dev_ints(xs, st)
    launch(_kernels().gather, gx.size, G.cot(G.out(k, 0)), gx, shp, st, acc, 1.0)


_STRIDED = BY_NAME["permute"]  # the schema the strided rows share (ops/views.py)


def expand(x, shape):
    xs = x._data.shape
    out = rt.empty(shape, x._data.dtype)
    strides = [int(v) for v in _strides(xs, shape)]
    shp, st = dev_ints(shape, strides)
    launch(_kernels().gather, out.size, x._data.flat, out.flat, shp, st, False, 1)
    op = BY_NAME["expand"]
    return wrap(out, (x,), op, iattrs=op.pack(offset=0, strides=strides))


def vjp_expand(G, k):
    sx = G.inp(k, 0)
    if G.wants(sx):
        gx, acc = G.take(sx)
        sum_to(G.cot(G.out(k, 0)), G.shape(G.out(k, 0)), G.shape(sx), gx, acc)


# -- matmul -------------------------------------------------------------------------------
_MM = {"mm": BY_NAME["matmul_mm"], "bmm": BY_NAME["matmul_bmm"]}
_MM_FOLD = BY_NAME["matmul_batched"]


def matmul(a, b):
    for t in (a, b):
        if not (isinstance(t, Tensor) and t.is_cuda):
            other = a if t is b else b
            raise device_error(other.device, t.device)
        if t._data.dtype.kind not in "fi":  # integers: int64 accumulation (no gradient)
            _float(t, "matmul")
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name} != {b.dtype.name}"
        )
    sa, sb = a._data.shape, b._data.shape
    if not sa or not sb:
        raise RuntimeError(
            "both arguments to matmul need to be at least 1D, but they are "
            f"{len(sa)}D and {len(sb)}D"
        )
    if len(sa) == 1 or len(sb) == 1:
        return _matmul_vec(a, b)
    if len(sb) > 2 and (len(sa) != 3 or len(sb) != 3 or sa[0] != sb[0]):
        return _matmul_batched(a, b)
    if sa[-1] != sb[-2]:
        if len(sa) == 2 == len(sb):
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({sa[0]}x{sa[1]} and {sb[0]}x{sb[1]})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{sb[0]}, "
            f"{sa[-1]}] but got: [{sb[0]}, {sb[-2]}]."
        )
    if len(sb) == 3:
        if sa[0] != sb[0]:
            raise RuntimeError("batch1 and batch2 must have same number of batches")
        nb, M, Kd, N = sa[0], sa[1], sa[2], sb[2]
        op, out_shape = _MM["bmm"], (nb, M, N)
    else:  # (..., M, K) @ (K, N): fold the batch into M
        nb, M, Kd, N = 1, math.prod(sa[:-1]), sa[-1], sb[1]
        op = _MM["mm"] if len(sa) == 2 else _MM_FOLD
        out_shape = sa[:-1] + (N,)
    out = rt.empty(out_shape, a._data.dtype)
    bs = Kd * N if nb > 1 else 0
    bmm_launch(a._data.flat, b._data.flat, out.flat, nb, M, Kd, N, 0, 0, M * Kd, bs, 0)
    saved = (a._data, b._data)
    ia = op.pack(B=nb, m=M, k=Kd, n=N, a_batched=1, b_batched=1)  # (b: one matrix if nb == 1)
    return wrap(out, (a, b), op, iattrs=ia, saved=saved)


def _matmul_vec(a, b):
    """matmul with a 1-d operand: a vector is a (1, K) or (K, 1) matrix (free views) and
    the result drops that dim again, as torch.matmul (dot, mv, vector @ matrix)."""
    sa, sb = a._data.shape, b._data.shape
    ka, kb = sa[-1], sb[-2] if len(sb) > 1 else sb[0]
    if ka != kb:
        if len(sa) == 1 == len(sb):
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{ka}] and src [{kb}] to have the "
                f"same number of elements, but got {ka} and {kb} elements respectively"
            )
        ra = (sa[0] if len(sa) > 1 else 1, ka) if len(sa) <= 2 else (a._data.size // ka, ka)
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({ra[0]}x{ra[1]} and "
            f"{kb}x{sb[-1] if len(sb) > 1 else 1})"
        )
    r = matmul(view(a, (1, ka)) if len(sa) == 1 else a, view(b, (kb, 1)) if len(sb) == 1 else b)
    rs = r._data.shape
    shape = rs[:-2] + (rs[-2:-1] if len(sa) > 1 else ()) + (rs[-1:] if len(sb) > 1 else ())
    return view(r, shape)


def _matmul_batched(a, b):
    """Batched matmul with broadcast batch dims: both operands expanded to the broadcast
    batch (recorded copies; their VJPs sum the gradient back), folded to one bmm."""
    sa, sb = a._data.shape, b._data.shape
    bs = broadcast_shapes(sa[:-2], sb[:-2])
    if sa[:-2] != bs:
        a = expand(a, bs + sa[-2:])
    if sb[:-2] != bs:
        b = expand(b, bs + sb[-2:])
    n = math.prod(bs)
    r = matmul(view(a, (n,) + sa[-2:]), view(b, (n,) + sb[-2:]))
    return view(r, bs + r._data.shape[1:])


def vjp_matmul(G, k):
    sa, sb = G.inp(k, 0), G.inp(k, 1)
    nb, M, Kd, N, _, _ = _MM_FOLD.unpack(G.iattrs(k))
    A, B = G.saved(k)
    g = G.cot(G.out(k, 0))
    if G.wants(sa):  # dA = g @ B^T
        ga, acc = G.take(sa)
        bmm_launch(g, B, ga, nb, M, N, Kd, 0, 1, M * N, Kd * N if nb > 1 else 0, acc)
    if G.wants(sb):  # dB = A^T @ g
        gb, acc = G.take(sb)
        bmm_launch(A, g, gb, nb, Kd, M, N, 1, 0, M * Kd, M * N, acc)


def linear(x, w, b=None):
    """x @ w.T (+ b), as the CPU: a 1-d weight is a vector, other shapes go to matmul(x, w.t())
    and raise its errors."""
    for t in (x, w):
        if not t.is_cuda:
            raise device_error("cuda:0", t.device)
    y = matmul(x, w if w._data.ndim == 1 else w.t())
    return y if b is None else binary("add", y, b)


# -- comparisons and argmax/argmin (no gradient) ---------------------------------------------
def da_kind(t):
    return t._data.dtype.kind


def is_int(v, t):
    """Whether number v is exactly representable in tensor t's kind (bool: a bool)."""
    if isinstance(v, (bool, np.bool_)):
        return True
    if not (isinstance(v, (int, np.integer)) and da_kind(t) == "i"):
        return False
    info = np.iinfo(t._data.dtype)
    return info.min <= v <= info.max


def compare(name, a, b):
    """a <op> b: comparisons (bool results) and, for "and"/"or"/"xor", the bitwise ops of
    bool and integer tensors (results of the operands' promoted dtype, as NumPy)."""
    a_cuda = isinstance(a, Tensor) and a.is_cuda
    devs = (lambda x: ("cuda:0", x.device)) if a_cuda else (lambda x: (x.device, "cuda:0"))
    a, b = _operand(a, devs), _operand(b, devs)
    if not isinstance(a, Tensor):  # scalar op tensor: flip the comparison
        a, b, name = b, a, {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}.get(name, name)
    K = _ew_kernels()
    bitwise = name in ("and", "or", "xor")
    if bitwise:
        for t in (a, b):
            if isinstance(t, Tensor) and t._data.dtype.kind not in "bi":
                scalar = _dtype.scalar_name(t.dtype)
                raise NotImplementedError(f"\"bitwise_{name}_cuda\" not implemented for '{scalar}'")
        if a._data.dtype == np.bool_ and not isinstance(b, (bool, np.bool_, Tensor)):
            a = cast(a, _dtype.int64)  # bool with an integer: integer (as NumPy)
    if not bitwise and not isinstance(b, Tensor) and da_kind(a) != "f" and not is_int(b, a):
        # a float scalar with an integer or bool tensor (or an integer with a bool one)
        # compares in the promoted dtype, as PyTorch: never round the scalar to the tensor's
        a = cast(a, _dtype.int64 if isinstance(b, int) else _dtype.get_default_dtype())
    da = a._data
    if not isinstance(b, Tensor):
        out = rt.empty(da.shape, da.dtype if bitwise else np.bool_)
        launch(getattr(K, f"cmp_{name}_ts"), out.size, da.flat, da.dtype.type(b), out.flat)
    else:
        db = b._data
        if da.dtype != db.dtype:
            dt = _dtype.promote_types(a.dtype, b.dtype)
            a, b = cast(a, dt), cast(b, dt)
            da, db = a._data, b._data
        shape = broadcast_shapes(da.shape, db.shape)
        out = rt.empty(shape, da.dtype if bitwise else np.bool_)
        if da.shape == db.shape:
            launch(getattr(K, f"cmp_{name}"), out.size, da.flat, db.flat, out.flat)
        else:
            bc = dev_ints(shape, _strides(da.shape, shape), _strides(db.shape, shape))
            launch(getattr(K, f"cmp_{name}_bc"), out.size, da.flat, db.flat, out.flat, *bc)
    return _tensor_cls()._make(out, -1, False)


def invert(x):
    """~x: logical not of a bool tensor, bitwise not of an integer one (the dtype is
    checked by ops/pointwise.invert)."""
    d = x._data
    out = rt.empty(d.shape, d.dtype)
    K = _ew_kernels()
    launch(K.not_b if d.dtype == np.bool_ else K.not_i, out.size, d.flat, out.flat)
    return _tensor_cls()._make(out, -1, False)


def one_hot(t, num_classes):
    """F.one_hot: the indices are checked on the host (one copy: the CPU's checks need
    their min and max), the int64 result is written on the device."""
    from ..indexing import _one_hot_classes

    d = t._data
    if d.dtype != np.int64:
        _one_hot_classes(np.empty(0, d.dtype), num_classes)  # raises the dtype error
    C = _one_hot_classes(d.host(), num_classes)
    out = rt.empty(d.shape + (C,), np.int64)
    if out.size:
        launch(_kernels().one_hot, out.size, d.flat, out.flat, C)
    return _tensor_cls()._make(out, -1, False)


def arg_best(x, dim, keepdim, largest):
    d = x._data
    name = "argmax" if largest else "argmin"
    if dim is None:  # over all elements; keepdim keeps every dim as size 1
        if d.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        r = arg_best(view(x.detach(), (d.size,)), 0, False, largest)
        return view(r, (1,) * d.ndim) if keepdim else r
    nd = d.ndim
    dim = _wrap_dim(dim, nd) if nd else 0
    shape = d.shape if nd else (1,)
    n = shape[dim]
    if n == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dim} to have non-zero size.")
    inner = math.prod(shape[dim + 1 :])
    out_shape = tuple(1 if i == dim else s for i, s in enumerate(shape) if keepdim or i != dim)
    out = rt.empty(out_shape if nd else (), np.int64)
    launch(_kernels().arg_best, out.size, d.flat, out.flat, inner, n, largest)
    return _tensor_cls()._make(out, -1, False)


# -- where and the parametrised activations (leaky_relu, elu, hardtanh, softplus, clamp) ------
_WHERE = BY_NAME["where"]


def _full_operand(v, dt, shape):
    """A where() operand as a CUDA tensor of `shape` (numbers and CPU scalars filled)."""
    if isinstance(v, Tensor) and v.is_cuda:
        v = cast(v, dt)
    else:
        if isinstance(v, Tensor):
            if v._data.ndim or v._rg:
                raise device_error("cuda:0", v.device)
            v = v._data.item()
        out = rt.empty((), dt.np)
        launch(_kernels().fill, 1, out.flat, dt.np.type(v))
        v = _tensor_cls()._make(out, -1, False)
    return v if v._data.shape == shape else expand(v, shape)


def where(cond, a, b):
    if a is None and b is None:
        from .index import nonzero_tuple

        return nonzero_tuple(cond)
    if not (isinstance(cond, Tensor) and cond.is_cuda):
        other = a if isinstance(a, Tensor) and a.is_cuda else b
        raise device_error(other.device, getattr(cond, "device", "cpu"))
    if cond._data.dtype != np.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{cond.dtype.name.capitalize()}"
        )
    dts = [v.dtype for v in (a, b) if isinstance(v, Tensor)]
    dt = dts[0] if len(dts) == 1 else _dtype.promote_types(*dts)
    shape = cond._data.shape
    for v in (a, b):
        if isinstance(v, Tensor):
            shape = broadcast_shapes(shape, v._data.shape)
    c = cond if cond._data.shape == shape else expand(cond, shape)
    a, b = _full_operand(a, dt, shape), _full_operand(b, dt, shape)
    out = rt.empty(shape, dt.np)
    launch(_kernels().where, out.size, c._data.flat, a._data.flat, b._data.flat, out.flat)
    if not dt.is_floating_point:
        return _tensor_cls()._make(out, -1, False)
    return wrap(out, (a, b), _WHERE, iattrs=_WHERE.pack(cond=0), saved=(c._data,))


def activation(op, kind, x, p0, p1, p2):
    _float(x, op.name)
    d = x._data
    out = rt.empty(d.shape, d.dtype)
    t = d.dtype.type
    launch(_kernels().act, out.size, d.flat, out.flat, kind, t(p0), t(p1), t(p2))
    ia, fa = op.pack(kind=kind), op.pack_f(p0=p0, p1=p1, p2=p2)
    return wrap(out, (x,), op, iattrs=ia, fattrs=fa, saved=(d,))


def vjp_act(G, k):
    sx = G.inp(k, 0)
    if not G.wants(sx):
        return
    kind = _ACT.unpack(G.iattrs(k)).kind
    (x,) = G.saved(k)
    gx, acc = G.take(sx)
    t = gx.dtype.type
    f = _ACT.f
    p = (t(G.fattr(k, f.p0)), t(G.fattr(k, f.p1)), t(G.fattr(k, f.p2)))
    launch(_kernels().act_vjp, gx.size, x, G.cot(G.out(k, 0)), gx, kind, *p, acc)


_ACT = BY_NAME["leaky_relu"]  # the attribute schema the activations share
