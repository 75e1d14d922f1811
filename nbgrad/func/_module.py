"""Calling a module with other parameters: `functional_call` and `stack_module_state`,
as torch.func has them (the ensembling and meta-learning recipes)."""

from __future__ import annotations

import contextlib
from typing import Any

from ..tensor import Tensor


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: dict[str, Any] | tuple[dict[str, Any], ...],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call `module(*args, **kwargs)` with the tensors of `parameter_and_buffer_dicts`
    (dotted names, as `named_parameters` gives them) in place of its own; the module is
    left as it was. Names not given keep the module's tensors (`strict=True` refuses)."""
    dicts = (
        parameter_and_buffer_dicts
        if isinstance(parameter_and_buffer_dicts, (tuple, list))
        else (parameter_and_buffer_dicts,)
    )
    given = {}
    for d in dicts:
        if not isinstance(d, dict):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        for k, v in d.items():
            if k in given:
                raise ValueError(
                    f"['{k}'] appeared in multiple dictionaries; behavior of functional call "
                    "is ambiguous"
                )
            given[k] = v
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    with _reparametrize(module, given, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def _tensors(module):
    """(name, owner module, attribute, kind, tensor) of every parameter and buffer,
    duplicates included (tied weights appear under each name)."""
    out = []
    for prefix, m in module.named_modules(remove_duplicate=False):
        for kind in ("_parameters", "_buffers"):
            for n, t in getattr(m, kind).items():
                if t is not None:
                    out.append((f"{prefix}.{n}" if prefix else n, m, n, kind, t))
    return out


@contextlib.contextmanager
def _reparametrize(module, given, tie_weights, strict):
    entries = _tensors(module)
    names = {e[0] for e in entries}
    values = dict(given)
    if tie_weights:  # a tensor under several names takes the value given for any of them
        by_id = {}
        for name, *_, t in entries:
            by_id.setdefault(id(t), []).append(name)
        for tied in by_id.values():
            chosen = [n for n in tied if n in given]
            if len(chosen) > 1 and any(given[n] is not given[chosen[0]] for n in chosen):
                raise ValueError(
                    f"functional_call got multiple values for keys {chosen}, which are tied. "
                    "Consider using tie_weights=False"
                )
            if chosen:
                for n in tied:
                    values.setdefault(n, given[chosen[0]])
    if strict:
        missing = sorted(names - set(values))  # a tied name given covers its ties
        unexpected = sorted(set(given) - names)
        if missing or unexpected:
            msg = []
            if unexpected:
                msg.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                msg.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(msg)
            )
    for k, v in values.items():
        if k in names and not isinstance(v, Tensor):
            raise TypeError(f"functional_call expects tensors, got {type(v).__name__} for '{k}'")
    swapped = []
    try:
        for name, m, attr, kind, t in entries:
            if name in values:
                getattr(m, kind)[attr] = values[name]
                object.__setattr__(m, attr, values[name])
                swapped.append((m, attr, kind, t))
        yield
    finally:
        for m, attr, kind, t in reversed(swapped):
            getattr(m, kind)[attr] = t
            object.__setattr__(m, attr, t)


def stack_module_state(models):
    """(params, buffers): each named tensor of the models stacked along a new first
    dimension; stacked parameters are new leaves that require grad."""
    from ..functions import stack

    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    kind = type(models[0])
    if not all(type(m) is kind for m in models):
        raise RuntimeError(
            "stack_module_state: Expected all models to be of the same class, got: "
            f"{[type(m) for m in models]}"
        )

    def stacked(named):
        out = {}
        for k in named[0]:
            ts = [n[k] for n in named]
            s = stack([t.detach() for t in ts])
            out[k] = s.requires_grad_() if all(t.requires_grad for t in ts) else s
        return out

    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers
