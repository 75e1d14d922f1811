"""`vmap`: a function of one sample run on a batch, as one batched program
(`batching.py` holds the batched tensors and the rules)."""

import functools

from ..tensor import Tensor
from . import batching
from .batching import LEVELS, BatchedTensor, wrap

_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorize `func` over a dimension of its inputs: `vmap(f)(xs)` stacks `f(x)` over
    the samples `x` of `xs`, computed as one batched program (no Python loop over them).

    Args:
        func: a function of tensors (arguments and results may be nested tuples, lists
            and dicts of tensors).
        in_dims: the dimension of each input that holds the batch: an int for all, or a
            tuple with one entry per argument (int, None for "not batched", or a nested
            structure matching that argument).
        out_dims: where the batch dimension goes in each output (int, or a structure
            matching the outputs; None for an output that is not batched).
        randomness: what random ops inside do: "error" (raise), "same" (one draw shared by
            the samples) or "different" (a draw per sample).
        chunk_size: run the batch in chunks of this many samples (bounds memory).

    Example::

        >>> x = torch.randn(8, 3)
        >>> w = torch.randn(3)
        >>> tuple(torch.func.vmap(torch.dot, in_dims=(0, None))(x, w).shape)
        (8,)
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _name(func):
    return getattr(func, "__name__", repr(func))


# -- pytrees: tuples, lists, dicts (named tuples as tuples) ------------------------------
def _is_node(x):
    return isinstance(x, (tuple, list, dict))


def _children(x):
    return list(x.values()) if isinstance(x, dict) else list(x)


def _rebuild(like, kids):
    if isinstance(like, dict):
        return dict(zip(like.keys(), kids))
    if isinstance(like, tuple) and hasattr(like, "_fields"):
        return type(like)(*kids)
    return type(like)(kids)


def _flatten(x):
    if _is_node(x):
        return [leaf for k in _children(x) for leaf in _flatten(k)]
    return [x]


def _spec(x, indent=2):
    """PyTorch's TreeSpec text for a structure (for error messages)."""
    if not _is_node(x):
        return "*"
    kind = "dict" if isinstance(x, dict) else type(x).__name__
    ctx = list(x.keys()) if isinstance(x, dict) else None
    kids = [_spec(k, indent + 2) for k in _children(x)]
    sep = ",\n" + " " * indent
    return f"TreeSpec({kind}, {ctx}, [{sep.join(kids)}])"


def _broadcast(dims, tree):
    """`dims` (a prefix of `tree`'s structure) expanded to one entry per leaf of tree;
    None where the structures do not match."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(_flatten(tree))
    if not _is_node(tree) or type(dims) is not type(tree):
        return None
    if isinstance(dims, dict):
        if set(dims) != set(tree):
            return None
        pairs = [(dims[k], tree[k]) for k in tree]
    else:
        if len(dims) != len(tree):
            return None
        pairs = list(zip(dims, tree))
    out = []
    for d, t in pairs:
        sub = _broadcast(d, t)
        if sub is None:
            return None
        out.extend(sub)
    return out


def _unflatten(tree, leaves):
    return _fill(tree, iter(leaves))


def _fill(x, it):
    # (not a closure calling itself: that is a reference cycle, which kept every result's
    # arrays alive until the garbage collector ran, and fresh memory cost page faults)
    if _is_node(x):
        return _rebuild(x, [_fill(k, it) for k in _children(x)])
    return next(it)


# -- the call -----------------------------------------------------------------------------
def _head(func, in_dims):
    # (built for error messages only: formatting in_dims at every call cost microseconds)
    return f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    if not args:
        name = _name(func)
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    if type(in_dims) is tuple and len(in_dims) == len(args):
        B = _top_size(in_dims, args)
        if B is not None and (chunk_size is None or chunk_size >= B):
            return _run(func, in_dims, args, None, kwargs, out_dims, randomness, B)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(
            f"{_head(func, in_dims)}: expected `in_dims` to be int or a (potentially "
            f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    dims = _broadcast(in_dims, args)
    if dims is None:
        spec_d = _spec(in_dims) if _is_node(in_dims) else "*"
        raise ValueError(
            f"{_head(func, in_dims)}: in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {spec_d} but inputs has structure "
            f"{_spec(args)}."
        )
    leaves = _flatten(args)
    sizes = []
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(x, Tensor):
            raise ValueError(
                f"{_head(func, in_dims)}: Got in_dim={d} for an input but the input is of "
                f"type {type(x)}. We cannot vmap over non-Tensor arguments, please use None "
                "as the respective in_dim"
            )
        n = x.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{_head(func, in_dims)}: Got in_dim={d} for some input, but that input is "
                f"a Tensor of dimensionality {n} so expected in_dim to satisfy "
                f"-{n} <= in_dim < {n}."
            )
        sizes.append(x.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    B = sizes[0]
    if chunk_size is not None and chunk_size < B:
        return _chunked(func, dims, leaves, args, kwargs, out_dims, randomness, chunk_size, B)
    return _run(func, dims, leaves, args, kwargs, out_dims, randomness, B)


def _top_size(in_dims, args):
    """The batch size when each in_dim is None or a valid dim of a Tensor argument, the
    sizes agreeing (the usual call: its arguments need no flattening); else None, and the
    full checks run."""
    B = None
    for d, x in zip(in_dims, args):
        if d is None:
            continue
        if type(d) is not int or not isinstance(x, Tensor):
            return None
        n = x.dim()
        if not -n <= d < n:
            return None
        s = x.shape[d]
        if B is None:
            B = s
        elif s != B:
            return None
    return B


def _chunked(func, dims, leaves, args, kwargs, out_dims, randomness, chunk, B):
    import nbgrad

    parts = []
    for lo in range(0, B, chunk):
        n = min(chunk, B - lo)
        sub = [x if d is None else x.narrow(d, lo, n) for x, d in zip(leaves, dims)]
        parts.append(_run(func, dims, sub, _unflatten(args, sub), kwargs, out_dims,
                          randomness, n))  # fmt: skip
    flat = [_flatten(p) for p in parts]
    odims = _out_dims(out_dims, parts[0], func)
    joined = []
    for j, d in enumerate(odims):
        items = [f[j] for f in flat]
        joined.append(items[0] if d is None else nbgrad.cat(items, d))
    return _unflatten(parts[0], joined)


def _out_dims(out_dims, out, func):
    dims = _broadcast(out_dims, out)
    if dims is None:
        spec_d = _spec(out_dims) if _is_node(out_dims) else "*"
        raise ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
            f"compatible with the structure of `outputs`. out_dims has structure {spec_d} "
            f"but outputs has structure {_spec(out)}."
        )
    return dims


def _run(func, dims, leaves, args, kwargs, out_dims, randomness, B):
    """func on the leaves batched by dims; args: the structure they came from (None: the
    leaves are the arguments)."""
    lvl = batching._NEXT[0]
    batching._NEXT[0] += 1
    if not LEVELS:
        batching.install()
    LEVELS[lvl] = (B, randomness)
    try:
        ins = [x if d is None else wrap(x if d == 0 else x.movedim(d, 0), lvl)
               for x, d in zip(leaves, dims)]  # fmt: skip
        f = batching.WRAPPER.get(id(func), func)  # vmap(torch.sin): the batched entry
        out = f(*(ins if args is None else _unflatten(args, ins)), **kwargs)
        if out_dims == 0 and type(out_dims) is int and _batched_at(out, lvl):
            res = None  # the usual result: the batch values as they are
        else:
            odims = _out_dims(out_dims, out, func)
            res = [_unbatch(o, d, lvl, B, func) for o, d in zip(_flatten(out), odims)]
    finally:
        del LEVELS[lvl]
        if not LEVELS:
            batching.uninstall()
    if res is None:
        return out._v if type(out) is BatchedTensor else tuple(o._v for o in out)
    return _unflatten(out, res)


def _batched_at(out, lvl):
    """Whether out is a tensor, or a plain tuple of tensors, batched at level lvl."""
    if type(out) is BatchedTensor:
        return out._lvl == lvl
    return type(out) is tuple and all(type(o) is BatchedTensor and o._lvl == lvl for o in out)


def _unbatch(o, d, lvl, B, func):
    if d is None:
        if batching.level_of(o) == lvl:
            raise ValueError(
                f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                "when out_dim is None"
            )
        return o
    if not isinstance(o, Tensor):
        raise ValueError(
            f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
            f"{type(o)}. Did you mean to set out_dims= to None for output?"
        )
    if batching.level_of(o) == lvl:
        v = o._v
    else:  # not batched here: the same value for every sample
        v = o.unsqueeze(0).expand(B, *o.shape)
    if d != 0:
        v = v.movedim(0, d)
    return v


def is_batched(x):
    """Whether x is a batched tensor of a running vmap."""
    return type(x) is BatchedTensor
