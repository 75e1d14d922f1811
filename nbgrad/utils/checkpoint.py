"""Activation checkpointing (PyTorch's `torch.utils.checkpoint`): run a function without
keeping the values its backward needs, and run it again in backward to get them.

`checkpoint(fn, *args)` runs `fn` recorded, as usual, and notes which tensors its graph
reads from outside: its tensor arguments and the leaves it uses (a module's parameters).
It then frees that graph's saved values at once and returns its results as the outputs
of one custom Function whose inputs are those tensors. That Function's backward runs `fn`
again (with the random state it first saw) and takes the gradients through the fresh
graph, with `create_graph` when the outer backward has it; so `.grad` of parameters and
`autograd.grad` with respect to them both work.

Unlike PyTorch, which drops each saved value as it is saved, the whole forward's values
exist until `fn` returns: the peak inside the forward is the same as without a
checkpoint, and what is kept until backward is only the inputs and results. A tensor
with history that `fn` reads without taking it as an argument (from a closure) is
refused: pass it as an argument."""

import warnings

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]

_USE_REENTRANT = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants."
)


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=None,
    determinism_check="default",
    debug=False,
    preserve_rng_state=True,
    **kwargs,
):
    """Run `function(*args, **kwargs)` without keeping its intermediate values for backward;
    backward runs it again to get them.

    Args:
        function: the function to run; it must compute the same thing when run again.
        *args: its positional arguments (tensors among them receive gradients).
        use_reentrant (bool): PyTorch's choice of implementation; nbgrad has one, which
            behaves as PyTorch's `use_reentrant=False` (it also works with
            `autograd.grad`). Passing nothing warns, as PyTorch does.
        preserve_rng_state (bool): run again with the random state of the first run, so
            dropout draws the same mask (default True).
        **kwargs: keyword arguments for `function`.

    Example::

        >>> lin = torch.nn.Linear(4, 4)
        >>> x = torch.randn(2, 4, requires_grad=True)
        >>> y = torch.utils.checkpoint.checkpoint(
        ...     lambda t: lin(t).tanh(), x, use_reentrant=False)
        >>> y.sum().backward()
        >>> lin.weight.grad.shape
        nbgrad.Size([4, 4])
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT, stacklevel=2)
        use_reentrant = True
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if context_fn is not None:
        raise NotImplementedError("checkpoint: context_fn is not supported")
    if not is_grad_enabled():
        return function(*args, **kwargs)
    if use_reentrant and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn(
            "None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2
        )
    return _Run(function, args, kwargs, preserve_rng_state).forward()


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):  # noqa: A002
    """Run a sequence of functions (or an `nn.Sequential`) in `segments` checkpointed
    pieces, the last one not checkpointed.

    Args:
        functions: an `nn.Sequential` or a list of modules / functions, applied in order.
        segments (int): how many pieces to split them into.
        input: the first function's input.
        use_reentrant (bool): as for `checkpoint`.
        **kwargs: `preserve_rng_state` (as for `checkpoint`).

    Example::

        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(),
        ...                             torch.nn.Linear(4, 1))
        >>> x = torch.randn(2, 4, requires_grad=True)
        >>> out = torch.utils.checkpoint.checkpoint_sequential(
        ...     model, 2, x, use_reentrant=False)
        >>> out.sum().backward()
        >>> x.grad.shape
        nbgrad.Size([2, 4])
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT, stacklevel=2)
        use_reentrant = True
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)

    def run(start, end):
        def forward(x):
            for f in functions[start:end]:
                x = f(x)
            return x

        return forward

    size = len(functions) // segments
    start = 0
    for _ in range(segments - 1):
        if size:
            input = checkpoint(
                run(start, start + size),
                input,
                use_reentrant=use_reentrant,
                preserve_rng_state=preserve,
            )
        start += size
    return run(start, len(functions))(input)


class _Checkpoint(Function):
    @staticmethod
    def forward(ctx, run, *inputs):
        ctx.run = run
        return run.values

    @staticmethod
    def backward(ctx, *grads):
        return (None, *ctx.run.backward(grads))


def _tensors(x):
    return [t for t in (x if isinstance(x, (tuple, list)) else (x,)) if isinstance(t, Tensor)]


class _Run:
    """One checkpointed call: what backward needs to run it again."""

    def __init__(self, function, args, kwargs, preserve_rng_state):
        from ..creation import _rng

        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng = _rng[0].bit_generator.state if preserve_rng_state else None

    def _call(self, args, kwargs):
        from ..creation import _rng

        if self.rng is None:
            with enable_grad():
                return self.function(*args, **kwargs)
        now = _rng[0].bit_generator.state
        _rng[0].bit_generator.state = self.rng
        try:
            with enable_grad():
                return self.function(*args, **kwargs)
        finally:
            _rng[0].bit_generator.state = now

    def forward(self):
        from ..tape import D_SEQ, TAPE

        first = int(TAPE.desc[D_SEQ])
        out = self._call(self.args, self.kwargs)
        outs = _tensors(out)
        self.args_in = _tensors(self.args) + _tensors(tuple(self.kwargs.values()))
        extra = _outside(outs, self.args_in, first)
        self.inputs = tuple(self.args_in) + tuple(extra)
        self.values = tuple(t.detach() for t in outs)
        res = _Checkpoint.apply(self, *self.inputs)
        res = res if isinstance(res, tuple) else (res,)
        if isinstance(out, Tensor):
            return res[0]
        it = iter(res)
        return type(out)(next(it) if isinstance(o, Tensor) else o for o in out)

    def backward(self, grads):
        create = is_grad_enabled()  # the outer backward's create_graph
        if create:  # gradients must keep their history back through the arguments
            args, kwargs, ins = self.args, self.kwargs, self.args_in
        else:
            swap = {id(t): t.detach().requires_grad_(t.requires_grad) for t in self.args_in}
            args = tuple(swap.get(id(a), a) for a in self.args)
            kwargs = {k: swap.get(id(v), v) for k, v in self.kwargs.items()}
            ins = [swap[id(t)] for t in self.args_in]
        outs = _tensors(self._call(args, kwargs))
        ins = list(ins) + list(self.inputs[len(self.args_in) :])
        pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad and g is not None]
        wrt = [t for t in ins if t.requires_grad]
        if not pairs or not wrt:
            return [None] * len(ins)
        from ..autograd.engine import grad

        got = iter(
            grad(
                [o for o, _ in pairs],
                wrt,
                [g for _, g in pairs],
                create_graph=create,
                allow_unused=True,
            )
        )
        return [next(got) if t.requires_grad else None for t in ins]


def _outside(outs, args, first):
    """The leaves taking gradients that the graph of `outs` reads, other than `args`, and
    (once read) its saved values freed. `first`: rows ever recorded when it began."""
    from .._optable import BY_NAME, CUSTOM
    from ..autograd.graph import _walk
    from ..tape import R_CODE, R_SAVED, R_SEQ, S_PROD, S_RG, SAVES_FREED, SAVES_LIVE, TAPE

    T = TAPE
    arg_slots = {t._slot for t in args if t._slot >= 0}
    roots = [t._slot for t in outs if t.requires_grad and t._slot >= 0]
    if not roots:
        return []
    with T.guard():
        rows = _walk(roots, arg_slots)
        extra, seen = [], set(arg_slots)
        for k, (_, ins, _, _) in rows:
            if T.R[k, R_SEQ] < first:
                raise NotImplementedError(
                    "checkpoint: the function reads a tensor with autograd history that is "
                    "not one of its arguments (captured from outside); pass it as an argument"
                )
            for s in ins:
                if s in seen or T.S[s, S_PROD] >= 0 or not T.S[s, S_RG]:
                    continue
                seen.add(s)
                ref = T.watch.get(s)
                t = ref() if ref is not None else None
                if t is not None and t._slot == s:
                    extra.append(t)
        custom = BY_NAME[CUSTOM].code
        for k, _ in rows:  # backward runs the function again: drop what these rows kept
            if T.R[k, R_SAVED] == SAVES_LIVE:
                T.R[k, R_SAVED] = SAVES_FREED
                if T.R[k, R_CODE] == custom:
                    T.saved[k].release()
                else:
                    T.saved[k] = None
    return extra
