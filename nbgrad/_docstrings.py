"""Docstrings of public functions whose code lives in the op and engine modules.

Kept here, as PyTorch keeps its own in `torch/_torch_docs.py`, so that the kernel modules stay
about kernels; each is attached to the function object at import. The examples use
`import nbgrad as torch` and are run by tests/test_docstrings.py.
"""

from . import functions
from .autograd import engine
from .ops import losses
from .tensor import Tensor

DOCS = {
    Tensor.sum: """Returns the sum of the tensor's elements, over all of them or over `dim`.

    Args:
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        dtype (nbgrad.dtype, optional): the dtype of the result (the input is cast first).

    Shape:
        Input `(*)`; output `()` without `dim`, else the input's shape without (or, with
        `keepdim=True`, with size 1 at) the dimensions in `dim`.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> x.sum()
        tensor(10.)
        >>> x.sum(dim=1)
        tensor([3., 7.])
        >>> x.sum(1, keepdim=True)
        tensor([[3.],
                [7.]])
    """,
    Tensor.mean: """Returns the mean of the tensor's elements, over all of them or over `dim`.

    Args:
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        dtype (nbgrad.dtype, optional): the dtype of the result (the input is cast first).

    Shape:
        As `Tensor.sum`.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> x.mean()
        tensor(2.5000)
        >>> x.mean(0)
        tensor([2., 3.])
    """,
    Tensor.view: """Returns a tensor with the same data and number of elements in a new shape.

    Args:
        *shape (ints or a tuple of ints): the new shape; one entry may be -1 (inferred).

    Shape:
        Input `(*)` with N elements; output `shape`, whose product is N. The result shares
        memory with the input (writes through either show in both), as in PyTorch.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> x.view(4)
        tensor([1., 2., 3., 4.])
        >>> x.view(-1, 1).shape
        nbgrad.Size([4, 1])
    """,
    Tensor.matmul: """Matrix product of two tensors (the `@` operator); see `nbgrad.matmul`.

    Args:
        other (Tensor): the right operand.

    Shape:
        1-D @ 1-D: a scalar (dot product); 2-D `(n, m)` @ `(m, p)`: `(n, p)`; 1-D operands
        are treated as a row (left) or column (right) vector and that dimension is removed
        from the result; batched `(*b, n, m)` @ `(*b, m, p)`: `(*b, n, p)`, with the batch
        dimensions broadcast.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> x.matmul(torch.tensor([1., 1.]))
        tensor([3., 7.])
        >>> x @ x
        tensor([[ 7., 10.],
                [15., 22.]])
    """,
    Tensor.backward: """Computes the gradient of this tensor with respect to the graph's leaves
    and adds it to their `.grad`.

    For a scalar tensor this is d self / d leaf. For a non-scalar tensor `gradient` (a
    tensor of self's shape, the "vector" of the vector-Jacobian product) must be given, and
    each leaf gets `gradient^T J`, with `J` the Jacobian of self with respect to the leaf.

    Args:
        gradient (Tensor, optional): the weights of self's elements; required unless self
            has one element.
        retain_graph (bool, optional): keep the graph so backward can run through it again.
            Default: the value of `create_graph`.
        create_graph (bool): record the backward pass, so the gradients can themselves be
            differentiated (higher-order derivatives). Default: False.
        inputs (sequence of Tensor, optional): accumulate only into these tensors' `.grad`.

    Example::

        >>> a = torch.tensor([1., 2., 3.], requires_grad=True)
        >>> (a ** 2).sum().backward()
        >>> a.grad
        tensor([2., 4., 6.])
    """,
    functions.cat: """Concatenates tensors along an existing dimension.

    Args:
        tensors (sequence of Tensor): tensors of the same shape except in dimension `dim`.
        dim (int): the dimension to join along. Default: 0.

    Shape:
        Inputs `(*, n_i, *)`; output `(*, sum of n_i, *)`.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> torch.cat([x, x]).shape
        nbgrad.Size([4, 2])
        >>> torch.cat([x, x], dim=1)
        tensor([[1., 2., 1., 2.],
                [3., 4., 3., 4.]])
    """,
    functions.stack: """Joins tensors of the same shape along a new dimension.

    Args:
        tensors (sequence of Tensor): tensors of equal shape.
        dim (int): the index of the new dimension in the result. Default: 0.

    Shape:
        k inputs of shape `(*)`; output `(*)` with a new dimension of size k at `dim`.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> torch.stack([x[0], x[1]], dim=1)
        tensor([[1., 3.],
                [2., 4.]])
    """,
    engine.grad: """Computes and returns the gradients of `outputs` with respect to `inputs`,
    without touching `.grad`.

    Returns the vector-Jacobian products `grad_outputs^T J` (one tensor of each input's
    shape), summed over the outputs.

    Args:
        outputs (Tensor or sequence of Tensor): the tensors to differentiate.
        inputs (Tensor or sequence of Tensor): the tensors to differentiate with respect to.
        grad_outputs (Tensor or sequence of Tensor, optional): one per output, of its shape;
            required for outputs with more than one element.
        retain_graph (bool, optional): keep the graph for another pass. Default:
            `create_graph`.
        create_graph (bool): record the pass, so the results can be differentiated again.
        allow_unused (bool, optional): return None (instead of raising) for inputs the
            outputs do not depend on.
        is_grads_batched (bool): the first dimension of each grad_output is a batch: one
            vector-Jacobian product per entry.
        materialize_grads (bool): return zeros instead of None for unused inputs.

    Example::

        >>> a = torch.tensor([1., 2., 3.], requires_grad=True)
        >>> torch.autograd.grad((a ** 2).sum(), a)
        (tensor([2., 4., 6.]),)
    """,
    losses.cross_entropy: """Cross-entropy loss between input logits and target classes
    (or class probabilities): `log_softmax` over the class dimension, then `nll_loss`.

    Args:
        input (Tensor): unnormalised scores (logits).
        target (Tensor): class indices (int64), or class probabilities of input's shape.
        weight (Tensor, optional): a weight per class, of shape `(C,)`.
        ignore_index (int): a target class that contributes neither loss nor gradient.
            Default: -100.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        label_smoothing (float): mixes the target with the uniform distribution, in [0, 1].
            Default: 0.

    Shape:
        input `(C)`, `(N, C)` or `(N, C, d1, ...)`; target `()`, `(N)` or `(N, d1, ...)` of
        class indices, or input's shape for probabilities; output `()`, or target's shape
        with `reduction="none"`.

    Example::

        >>> logits = torch.tensor([[2., 0., 0.], [0., 0., 3.]])
        >>> torch.nn.functional.cross_entropy(logits, torch.tensor([0, 2]))
        tensor(0.1672)
    """,
}

for _fn, _doc in DOCS.items():
    _fn.__doc__ = _doc

# the rest of the top-level functions and of Tensor's methods and properties (nbgrad/_docs)
import sys  # noqa: E402

from . import _docs, serialization  # noqa: E402

_docs.attach(Tensor, "tensor")
_docs.attach(sys.modules[__package__], "functions")
_docs.attach(f"{__package__}.autograd", "autograd")
_docs.attach(serialization, "serialization")

# the composite methods (tril, sort, topk, ...) say what their functions say
from .tensor import COMPOSITE_METHODS  # noqa: E402

for _name in COMPOSITE_METHODS:
    _method = Tensor.__dict__[_name]
    if not _method.__doc__:
        _method.__doc__ = getattr(sys.modules[__package__], _name).__doc__
