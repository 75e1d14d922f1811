"""Docstrings of the top-level functions, `nbgrad.<name>` (keys are their names).

The examples use `import nbgrad as torch`; their outputs are PyTorch's.
"""

DOCS = {
    "Size": """The shape of a tensor: a tuple of ints, as returned by `Tensor.shape` and
    `Tensor.size()`.

    Args:
        iterable (iterable of ints): the dimensions.

    Example::

        >>> torch.zeros(2, 3).shape
        nbgrad.Size([2, 3])
        >>> torch.Size([2, 3]) == (2, 3)
        True
    """,
    "Tensor": """A multi-dimensional array of one dtype, with reverse-mode autograd.

    Create tensors with `nbgrad.tensor`, `nbgrad.zeros`, `nbgrad.randn` and the other
    creation functions; `requires_grad=True` makes autograd record the operations on a tensor
    so that `backward()` can compute gradients with respect to it.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        >>> y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([[2., 4.],
                [6., 8.]])
    """,
    "abs": """Returns a new tensor with the absolute value of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.abs(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([1.5000, 0.2000, 2.7000])
    """,
    "acos": """Returns a new tensor with the arccosine of each element of `input`. Alias: `arccos`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.acos(torch.tensor([-0.5, 0.0, 0.5]))
        tensor([2.0944, 1.5708, 1.0472])
    """,
    "add": """Adds `other`, scaled by `alpha`, to `input`: `input + alpha * other`.

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the tensor or number to add, broadcast with input.
        alpha (Number): the multiplier for `other`. Default: 1.

    Example::

        >>> a = torch.tensor([1., 2.])
        >>> torch.add(a, torch.tensor([10., 20.]), alpha=2)
        tensor([21., 42.])
    """,
    "allclose": """Returns whether `|input - other| <= atol + rtol * |other|` holds for every
    element.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.
        rtol (float): relative tolerance. Default: 1e-05.
        atol (float): absolute tolerance. Default: 1e-08.
        equal_nan (bool): whether two NaNs compare equal. Default: False.

    Example::

        >>> torch.allclose(torch.tensor([1., 2.]), torch.tensor([1., 2.0000001]))
        True
    """,
    "amax": """Returns the maximum of `input` over `dim` (all dimensions by default).

    Unlike `nbgrad.max`, returns no indices, and spreads the gradient evenly over tied
    elements.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.

    Example::

        >>> torch.amax(torch.tensor([[1., 5., 2.], [4., 0., 3.]]), dim=0)
        tensor([4., 5., 3.])
    """,
    "amin": """Returns the minimum of `input` over `dim` (all dimensions by default).

    Unlike `nbgrad.min`, returns no indices, and spreads the gradient evenly over tied
    elements.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.

    Example::

        >>> torch.amin(torch.tensor([[1., 5., 2.], [4., 0., 3.]]), dim=0)
        tensor([1., 0., 2.])
    """,
    "arange": """Returns a 1-D tensor of the values from `start` to `end` (exclusive) in steps of
    `step`.

    Args:
        start (Number): the first value; with one argument, `end` (and start is 0).
        end (Number): the bound (not included).
        step (Number): the gap between values. Default: 1.
        dtype (nbgrad.dtype, optional): the dtype. Default: int64 if all of start, end and
            step are ints, else the default float dtype.
        device (str or nbgrad.device, optional): the device. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.arange(4)
        tensor([0, 1, 2, 3])
        >>> torch.arange(1, 2.5, 0.5)
        tensor([1.0000, 1.5000, 2.0000])
    """,
    "arccos": """Alias for :func:`nbgrad.acos`: the arccosine of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.arccos(torch.tensor([-0.5, 0.0, 0.5]))
        tensor([2.0944, 1.5708, 1.0472])
    """,
    "arcsin": """Alias for :func:`nbgrad.asin`: the arcsine of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.arcsin(torch.tensor([-0.5, 0.0, 0.5]))
        tensor([-0.5236,  0.0000,  0.5236])
    """,
    "arctan": """Alias for :func:`nbgrad.atan`: the arctangent of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.arctan(torch.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "arctan2": """Alias for :func:`nbgrad.atan2`: the elementwise arctangent of `input / other`, in
    the quadrant of the point `(other, input)`.

    Args:
        input (Tensor): the y coordinates.
        other (Tensor): the x coordinates.

    Example::

        >>> torch.arctan2(torch.tensor([1.0, 1.0, -1.0]), torch.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
    """,
    "argmax": """Returns the index of the largest element of `input`: in the flattened tensor, or
    along `dim`.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: the flattened tensor.
        keepdim (bool): whether the reduced dimension stays, with size 1. Default: False.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.argmax(x)
        tensor(1)
        >>> torch.argmax(x, dim=1)
        tensor([1, 0])
    """,
    "argmin": """Returns the index of the smallest element of `input`: in the flattened tensor, or
    along `dim`.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: the flattened tensor.
        keepdim (bool): whether the reduced dimension stays, with size 1. Default: False.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.argmin(x)
        tensor(4)
        >>> torch.argmin(x, dim=1)
        tensor([0, 1])
    """,
    "as_tensor": """Converts `data` to a tensor, sharing memory with a Tensor or NumPy array of the
    requested dtype and device (else copying).

    Args:
        data (array_like): a Tensor, NumPy array, list, tuple or scalar.
        dtype (nbgrad.dtype, optional): the dtype. Default: inferred from data.
        device (str or nbgrad.device, optional): the device. Default: data's, else `"cpu"`.

    Example::

        >>> torch.as_tensor([1, 2, 3])
        tensor([1, 2, 3])
        >>> torch.as_tensor([1, 2], dtype=torch.float64)
        tensor([1., 2.], dtype=nbgrad.float64)
    """,
    "asin": """Returns a new tensor with the arcsine of each element of `input`. Alias: `arcsin`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.asin(torch.tensor([-0.5, 0.0, 0.5]))
        tensor([-0.5236,  0.0000,  0.5236])
    """,
    "atan": """Returns a new tensor with the arctangent of each element of `input`. Alias: `arctan`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.atan(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.4636, 0.7854, 1.1071])
    """,
    "atan2": """Returns the elementwise arctangent of `input / other`, in the quadrant of the point
    `(other, input)`. Alias: `arctan2`.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second coordinate (x), broadcast with input (y).

    Example::

        >>> torch.atan2(torch.tensor([1., -1.]), torch.tensor([-1., -1.]))
        tensor([ 2.3562, -2.3562])
    """,
    "bmm": """Batched matrix product of two 3-D tensors (no broadcasting).

    Args:
        input (Tensor): a `(b, n, m)` batch of matrices.
        mat2 (Tensor): a `(b, m, p)` batch of matrices.

    Shape:
        Output `(b, n, p)`.

    Example::

        >>> torch.bmm(torch.ones(4, 2, 3), torch.ones(4, 3, 5)).shape
        nbgrad.Size([4, 2, 5])
    """,
    "ceil": """Returns a new tensor with the ceiling (the smallest integer not less than it) of each
    element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.ceil(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([-1.,  1.,  3.])
    """,
    "chunk": """Splits `input` into `chunks` views of (nearly) equal size along `dim`.

    Args:
        input (Tensor): the tensor to split.
        chunks (int): the number of chunks (fewer may be returned, as in PyTorch).
        dim (int): the dimension to split along. Default: 0.

    Example::

        >>> torch.chunk(torch.arange(5.), 3)
        (tensor([0., 1.]), tensor([2., 3.]), tensor([4.]))
    """,
    "clamp": """Clamps each element of `input` to `[min, max]`. Alias: `clip`.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor, optional): the lower bound.
        max (Number or Tensor, optional): the upper bound (at least one bound is required).

    Example::

        >>> torch.clamp(torch.tensor([-2., 0.5, 3.]), min=-1., max=1.)
        tensor([-1.0000,  0.5000,  1.0000])
        >>> torch.clamp(torch.tensor([-2., 0.5, 3.]), min=0.)
        tensor([0.0000, 0.5000, 3.0000])
    """,
    "clamp_max": """Clamps each element of `input` from above: `min(input, max)`.

    Args:
        input (Tensor): the input tensor.
        max (Number or Tensor): the upper bound.

    Example::

        >>> torch.clamp_max(torch.tensor([-2., 0.5]), 0.)
        tensor([-2.,  0.])
    """,
    "clamp_min": """Clamps each element of `input` from below: `max(input, min)`.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor): the lower bound.

    Example::

        >>> torch.clamp_min(torch.tensor([-2., 0.5]), 0.)
        tensor([0.0000, 0.5000])
    """,
    "clip": """Alias for :func:`nbgrad.clamp`: clamps each element of `input` to `[min, max]`.

    Args:
        input (Tensor): the input tensor.
        min (Number or Tensor, optional): the lower bound.
        max (Number or Tensor, optional): the upper bound.

    Example::

        >>> torch.clip(torch.tensor([-1.5, 0.2, 2.7]), min=-1.0, max=1.0)
        tensor([-1.0000,  0.2000,  1.0000])
    """,
    "clone": """Returns a copy of `input` that is recorded in the graph (gradients flow back to
    `input`).

    Args:
        input (Tensor): the tensor to copy.

    Example::

        >>> a = torch.tensor([1., 2.], requires_grad=True)
        >>> b = torch.clone(a)
        >>> b.sum().backward()
        >>> a.grad
        tensor([1., 1.])
    """,
    "concat": """Alias for :func:`nbgrad.cat`: concatenates `tensors` along dimension `dim`.

    Args:
        tensors (sequence of Tensors): tensors of the same shape except in `dim`.
        dim (int, optional): the dimension to concatenate along. Default: 0.

    Example::

        >>> torch.concat([torch.tensor([[1., 2.]]), torch.tensor([[3., 4.]])], dim=0)
        tensor([[1., 2.],
                [3., 4.]])
    """,
    "concatenate": """Alias for :func:`nbgrad.cat`: concatenates `tensors` along dimension `dim`.

    Args:
        tensors (sequence of Tensors): tensors of the same shape except in `dim`.
        dim (int, optional): the dimension to concatenate along. Default: 0.

    Example::

        >>> torch.concatenate([torch.tensor([[1., 2.]]), torch.tensor([[3., 4.]])], dim=0)
        tensor([[1., 2.],
                [3., 4.]])
    """,
    "cos": """Returns a new tensor with the cosine of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.cos(torch.tensor([0.5, 1.0, 2.0]))
        tensor([ 0.8776,  0.5403, -0.4161])
    """,
    "cosh": """Returns a new tensor with the hyperbolic cosine of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.cosh(torch.tensor([0.5, 1.0, 2.0]))
        tensor([1.1276, 1.5431, 3.7622])
    """,
    "cumsum": """Returns the cumulative sum of `input` along `dim`.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to sum along.
        dtype (nbgrad.dtype, optional): the dtype of the result.

    Example::

        >>> torch.cumsum(torch.tensor([1., 2., 3., 4.]), dim=0)
        tensor([ 1.,  3.,  6., 10.])
    """,
    "device": """A device: where a tensor's data lives, `"cpu"` or `"cuda"` (with an index).

    Args:
        type (str): `"cpu"`, `"cuda"`, or `"cuda:N"`.
        index (int, optional): the device index.

    Example::

        >>> torch.device("cpu")
        device(type='cpu')
        >>> torch.zeros(1).device
        device(type='cpu')
    """,
    "digamma": """Returns a new tensor with the digamma function (the derivative of lgamma) of each
    element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.digamma(torch.tensor([0.5, 1.0, 2.0]))
        tensor([-1.9635, -0.5772,  0.4228])
    """,
    "div": """Divides `input` by `other` elementwise (true division, with broadcasting). Alias:
    `divide`, `true_divide`.

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the divisor.

    Example::

        >>> torch.div(torch.tensor([1., 2., 3.]), 2)
        tensor([0.5000, 1.0000, 1.5000])
    """,
    "dot": """Returns the dot product of two 1-D tensors of the same size.

    Args:
        input (Tensor): a 1-D tensor.
        other (Tensor): a 1-D tensor of input's size.

    Example::

        >>> torch.dot(torch.tensor([1., 2., 3.]), torch.tensor([4., 5., 6.]))
        tensor(32.)
    """,
    "einsum": """Sums products of the operands' elements over the indices given in Einstein
    notation.

    Args:
        equation (str): subscripts for each operand, separated by commas, optionally
            followed by `->` and the output's subscripts (else the subscripts used once,
            in alphabetical order); `...` stands for broadcast dimensions.
        *operands (Tensor): the tensors, one per subscript group.

    Example::

        >>> a = torch.tensor([[1., 2.], [3., 4.]])
        >>> torch.einsum("ij->ji", a)
        tensor([[1., 3.],
                [2., 4.]])
        >>> torch.einsum("ij,j->i", a, torch.tensor([1., 1.]))
        tensor([3., 7.])
        >>> torch.einsum("bij,bjk->bik", torch.ones(2, 3, 4), torch.ones(2, 4, 5)).shape
        nbgrad.Size([2, 3, 5])
    """,
    "empty": """Returns a tensor of uninitialised values, of the shape given by `size`.

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.get_default_dtype()`.
        device (str or nbgrad.device, optional): `"cpu"` or `"cuda"`. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.empty(2, 3).shape
        nbgrad.Size([2, 3])
    """,
    "empty_like": """Returns a tensor of `input`'s shape filled with uninitialised values.

    Args:
        input (Tensor): the tensor whose shape (and, by default, dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype. Default: input's.
        device (str or nbgrad.device, optional): the device. Default: input's.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.empty_like(torch.tensor([[1., 2.]])).shape
        nbgrad.Size([1, 2])
    """,
    "enable_grad": """Context manager (and decorator) that enables gradient recording, inside a
    `no_grad` block for example. The mode is per thread.

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> with torch.no_grad():
        ...     with torch.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """,
    "eq": """Returns a bool tensor: whether each element of `input` is equal to `other`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the tensor or number to compare with, broadcast with input.

    Example::

        >>> torch.eq(torch.tensor([1., 2., 3.]), 2)
        tensor([False,  True, False])
    """,
    "equal": """Returns True if the two tensors have the same shape and elements, else False.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> torch.equal(torch.tensor([1., 2.]), torch.tensor([1., 2.]))
        True
    """,
    "erf": """Returns a new tensor with the error function of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.erf(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.5205, 0.8427, 0.9953])
    """,
    "exp": """Returns a new tensor with the exponential of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.exp(torch.tensor([0.5, 1.0, 2.0]))
        tensor([1.6487, 2.7183, 7.3891])
    """,
    "exp2": """Returns a new tensor with two to the power of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.exp2(torch.tensor([0.5, 1.0, 2.0]))
        tensor([1.4142, 2.0000, 4.0000])
    """,
    "expm1": """Returns a new tensor with `exp(x) - 1` (accurate for small x) of each element of
    `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.expm1(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.6487, 1.7183, 6.3891])
    """,
    "eye": """Returns a 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns. Default: n.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.get_default_dtype()`.
        device (str or nbgrad.device, optional): `"cpu"` or `"cuda"`. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.eye(2, 3)
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """,
    "flatten": """Flattens the dimensions `start_dim` to `end_dim` of `input` into one.

    Args:
        input (Tensor): the input tensor.
        start_dim (int): the first dimension to flatten. Default: 0.
        end_dim (int): the last dimension to flatten. Default: -1.

    Example::

        >>> x = torch.zeros(2, 3, 4)
        >>> torch.flatten(x).shape
        nbgrad.Size([24])
        >>> torch.flatten(x, start_dim=1).shape
        nbgrad.Size([2, 12])
    """,
    "flip": """Returns a copy of `input` with the order of the entries reversed along `dims`.

    Args:
        input (Tensor): the input tensor.
        dims (int or tuple of ints): the dimensions to reverse.

    Example::

        >>> torch.flip(torch.tensor([[1., 2.], [3., 4.]]), [0, 1])
        tensor([[4., 3.],
                [2., 1.]])
    """,
    "fliplr": """Reverses the order of the columns (dimension 1) of a tensor of at least 2
    dimensions.

    Args:
        input (Tensor): at least 2-D.

    Example::

        >>> torch.fliplr(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([[2., 1.],
                [4., 3.]])
    """,
    "flipud": """Reverses the order of the rows (dimension 0) of a tensor of at least 1 dimension.

    Args:
        input (Tensor): at least 1-D.

    Example::

        >>> torch.flipud(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([[3., 4.],
                [1., 2.]])
    """,
    "floor": """Returns a new tensor with the floor (the largest integer not greater than it) of
    each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.floor(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([-2.,  0.,  2.])
    """,
    "full": """Returns a tensor of shape `size` filled with `fill_value`.

    Args:
        size (tuple of ints): the shape.
        fill_value (Number): the value. The dtype is inferred from it when not given (bool,
            int64 or the default float dtype).
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.get_default_dtype()`.
        device (str or nbgrad.device, optional): `"cpu"` or `"cuda"`. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.full((2, 2), 7.)
        tensor([[7., 7.],
                [7., 7.]])
        >>> torch.full((2,), 3).dtype
        nbgrad.int64
    """,
    "full_like": """Returns a tensor of `input`'s shape filled with `fill_value`.

    Args:
        input (Tensor): the tensor whose shape (and, by default, dtype and device) to take.
        fill_value (Number): the value.
        dtype (nbgrad.dtype, optional): the dtype. Default: input's.
        device (str or nbgrad.device, optional): the device. Default: input's.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.full_like(torch.zeros(2), 5.)
        tensor([5., 5.])
    """,
    "gather": """Gathers values of `input` along `dim` at the positions in `index`: `out[i][j] =
    input[index[i][j]][j]` for `dim=0`, `input[i][index[i][j]]` for `dim=1`.

    Args:
        input (Tensor): the source tensor.
        dim (int): the dimension to index along.
        index (LongTensor): the indices, with input's number of dimensions.

    Shape:
        Output has index's shape.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]]))
        tensor([[1., 1.],
                [4., 3.]])
    """,
    "ge": """Returns a bool tensor: whether each element of `input` is greater than or equal to
    `other`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the tensor or number to compare with, broadcast with input.

    Example::

        >>> torch.ge(torch.tensor([1., 2., 3.]), 2)
        tensor([False,  True,  True])
    """,
    "gelu": """Applies the Gaussian error linear unit elementwise: `x * Phi(x)`, with `Phi` the
    standard normal CDF (`approximate="tanh"` uses the tanh approximation).

    Args:
        input (Tensor): the input tensor.
        approximate (str): `"none"` or `"tanh"`. Default: `"none"`.

    Example::

        >>> torch.nn.functional.gelu(torch.tensor([-1., 0., 1.]))
        tensor([-0.1587,  0.0000,  0.8413])
    """,
    "ger": """Alias for :func:`nbgrad.outer`: the outer product of the 1-D tensors `input` and
    `vec2`.

    Args:
        input (Tensor): a 1-D tensor.
        vec2 (Tensor): a 1-D tensor.

    Example::

        >>> torch.ger(torch.tensor([1., 2.]), torch.tensor([1., 10., 100.]))
        tensor([[  1.,  10., 100.],
                [  2.,  20., 200.]])
    """,
    "get_default_dtype": """Returns the default floating point dtype (`nbgrad.float32` unless
    changed with `set_default_dtype`).

    Example::

        >>> torch.get_default_dtype()
        nbgrad.float32
    """,
    "gt": """Returns a bool tensor: whether each element of `input` is greater than `other`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the tensor or number to compare with, broadcast with input.

    Example::

        >>> torch.gt(torch.tensor([1., 2., 3.]), 2)
        tensor([False, False,  True])
    """,
    "hardtanh": """Clamps each element of `input` to `[min_val, max_val]` (the hardtanh activation).

    Args:
        input (Tensor): the input tensor.
        min_val (float): the lower bound. Default: -1.
        max_val (float): the upper bound. Default: 1.

    Example::

        >>> torch.nn.functional.hardtanh(torch.tensor([-2., 0.5, 3.]))
        tensor([-1.0000,  0.5000,  1.0000])
    """,
    "hstack": """Stacks tensors horizontally: concatenation along dimension 1 (0 for 1-D tensors).

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Example::

        >>> torch.hstack([torch.tensor([1., 2.]), torch.tensor([3.])])
        tensor([1., 2., 3.])
        >>> torch.hstack([torch.zeros(2, 1), torch.ones(2, 2)]).shape
        nbgrad.Size([2, 3])
    """,
    "index_add": """Returns a copy of `input` with `alpha * source` added at the indices `index` of
    dimension `dim` (repeated indices accumulate).

    Args:
        input (Tensor): the tensor to add into.
        dim (int): the dimension to index along.
        index (LongTensor): 1-D indices, one per entry of source along dim.
        source (Tensor): the values to add.
        alpha (Number): the multiplier for source. Default: 1.

    Example::

        >>> torch.index_add(torch.zeros(3, 2), 0, torch.tensor([0, 2]), torch.ones(2, 2))
        tensor([[1., 1.],
                [0., 0.],
                [1., 1.]])
    """,
    "index_select": """Returns the entries of `input` at `index` along `dim` (a copy).

    Args:
        input (Tensor): the source tensor.
        dim (int): the dimension to index along.
        index (LongTensor): 1-D indices.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
        >>> torch.index_select(x, 0, torch.tensor([2, 0]))
        tensor([[5., 6.],
                [1., 2.]])
    """,
    "inference_mode": """Context manager (and decorator) that disables gradient recording, as
    `no_grad` does; `inference_mode(False)` is a no-op.

    Args:
        mode (bool): whether to disable recording. Default: True.

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> with torch.inference_mode():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """,
    "is_grad_enabled": """Returns True if gradient recording is enabled in this thread.

    Example::

        >>> torch.is_grad_enabled()
        True
        >>> with torch.no_grad():
        ...     torch.is_grad_enabled()
        False
    """,
    "is_tensor": """Returns True if `obj` is an nbgrad Tensor.

    Args:
        obj (object): the object to test.

    Example::

        >>> torch.is_tensor(torch.tensor([1.]))
        True
    """,
    "le": """Returns a bool tensor: whether each element of `input` is less than or equal to
    `other`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the tensor or number to compare with, broadcast with input.

    Example::

        >>> torch.le(torch.tensor([1., 2., 3.]), 2)
        tensor([ True,  True, False])
    """,
    "lgamma": """Returns a new tensor with the log of the absolute value of the gamma function of
    each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.lgamma(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.5724, 0.0000, 0.0000])
    """,
    "linalg.LinAlgError": """Error raised by the `nbgrad.linalg` functions on a singular or not
    positive-definite input; a subclass of `RuntimeError`.

    Example::

        >>> issubclass(torch.linalg.LinAlgError, RuntimeError)
        True
    """,
    "linspace": """Returns a 1-D tensor of `steps` values evenly spaced from `start` to `end` (both
    included).

    Args:
        start (Number): the first value.
        end (Number): the last value.
        steps (int): the number of values.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.get_default_dtype()`.
        device (str or nbgrad.device, optional): `"cpu"` or `"cuda"`. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.linspace(0, 1, steps=5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """,
    "log": """Returns a new tensor with the natural logarithm of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.log(torch.tensor([0.5, 1.0, 2.0]))
        tensor([-0.6931,  0.0000,  0.6931])
    """,
    "log10": """Returns a new tensor with the base-10 logarithm of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.log10(torch.tensor([0.5, 1.0, 2.0]))
        tensor([-0.3010,  0.0000,  0.3010])
    """,
    "log1p": """Returns a new tensor with `log(1 + x)` (accurate for small x) of each element of
    `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.log1p(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.4055, 0.6931, 1.0986])
    """,
    "log2": """Returns a new tensor with the base-2 logarithm of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.log2(torch.tensor([0.5, 1.0, 2.0]))
        tensor([-1.,  0.,  1.])
    """,
    "log_softmax": """Applies `log(softmax(x))` along `dim`, computed stably.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to normalise over.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> torch.log_softmax(torch.tensor([[1., 2., 3.]]), dim=1)
        tensor([[-2.4076, -1.4076, -0.4076]])
    """,
    "logsumexp": """Returns `log(sum(exp(input)))` over `dim`, computed without overflow.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int or tuple of ints): the dimensions to reduce.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.

    Example::

        >>> torch.logsumexp(torch.tensor([[0., 1000.], [1., 1.]]), dim=1)
        tensor([1000.0000,    1.6931])
    """,
    "lt": """Returns a bool tensor: whether each element of `input` is less than `other`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the tensor or number to compare with, broadcast with input.

    Example::

        >>> torch.lt(torch.tensor([1., 2., 3.]), 2)
        tensor([ True, False, False])
    """,
    "matmul": """Matrix product of two tensors, with NumPy's rules for 1-D and batched operands.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second operand.

    Shape:
        `(n, m) @ (m, p) -> (n, p)`; a 1-D left operand is a row vector and a 1-D right one a
        column vector (that dimension is removed from the result); batch dimensions
        `(*b, n, m) @ (*b, m, p) -> (*b, n, p)` broadcast.

    Example::

        >>> a = torch.tensor([[1., 2.], [3., 4.]])
        >>> torch.matmul(a, torch.tensor([1., -1.]))
        tensor([-1., -1.])
        >>> torch.matmul(torch.ones(5, 2, 3), torch.ones(3, 4)).shape
        nbgrad.Size([5, 2, 4])
    """,
    "max": """Returns the maximum of `input`: of all elements, or along `dim` as a named tuple
    `(values, indices)`.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; without it, the maximum of all elements.
        keepdim (bool): whether the reduced dimension stays, with size 1. Default: False.

    The gradient of the whole-tensor form is spread evenly over tied elements; along `dim` it
    goes to the element at `indices`, as in PyTorch.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.max(x)
        tensor(5.)
        >>> torch.max(x, dim=1).values
        tensor([5., 4.])
        >>> torch.max(x, dim=1).indices
        tensor([1, 0])
    """,
    "maximum": """Returns the elementwise maximum of `input` and `other` (NaN if either is NaN).

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second tensor, broadcast with input.

    Example::

        >>> torch.maximum(torch.tensor([1., 5.]), torch.tensor([3., 2.]))
        tensor([3., 5.])
    """,
    "mean": """Returns the mean of the elements of `input`, over all of them or over `dim`.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        dtype (nbgrad.dtype, optional): the dtype of the result (the input is cast first).

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.mean(x)
        tensor(2.5000)
        >>> torch.mean(x, 0, keepdim=True)
        tensor([[2.5000, 2.5000, 2.5000]])
    """,
    "min": """Returns the minimum of `input`: of all elements, or along `dim` as a named tuple
    `(values, indices)`.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce; without it, the minimum of all elements.
        keepdim (bool): whether the reduced dimension stays, with size 1. Default: False.

    The gradient of the whole-tensor form is spread evenly over tied elements; along `dim` it
    goes to the element at `indices`, as in PyTorch.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.min(x)
        tensor(0.)
        >>> torch.min(x, dim=1).values
        tensor([1., 0.])
        >>> torch.min(x, dim=1).indices
        tensor([0, 1])
    """,
    "minimum": """Returns the elementwise minimum of `input` and `other` (NaN if either is NaN).

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second tensor, broadcast with input.

    Example::

        >>> torch.minimum(torch.tensor([1., 5.]), torch.tensor([3., 2.]))
        tensor([1., 2.])
    """,
    "mm": """Matrix product of two 2-D tensors (no broadcasting).

    Args:
        input (Tensor): an `(n, m)` matrix.
        mat2 (Tensor): an `(m, p)` matrix.

    Shape:
        Output `(n, p)`.

    Example::

        >>> torch.mm(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[0., 1.], [1., 0.]]))
        tensor([[2., 1.],
                [4., 3.]])
    """,
    "movedim": """Moves the dimension(s) `source` of `input` to the position(s) `destination`; the
    other dimensions keep their order. Alias: `moveaxis`.

    Args:
        input (Tensor): the input tensor.
        source (int or tuple of ints): the dimensions to move.
        destination (int or tuple of ints): their positions in the result.

    Example::

        >>> torch.movedim(torch.zeros(2, 3, 4), 0, -1).shape
        nbgrad.Size([3, 4, 2])
    """,
    "mul": """Multiplies `input` by `other` elementwise (with broadcasting). Alias: `multiply`.

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the second factor.

    Example::

        >>> torch.mul(torch.tensor([1., 2.]), torch.tensor([[1.], [3.]]))
        tensor([[1., 2.],
                [3., 6.]])
    """,
    "multiply": """Alias for :func:`nbgrad.mul`: multiplies `input` by `other` elementwise (with
    broadcasting).

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the tensor or number to multiply by.

    Example::

        >>> torch.multiply(torch.tensor([1., 2., 3.]), torch.tensor([2., 0.5, -1.]))
        tensor([ 2.,  1., -3.])
    """,
    "narrow": """Returns a view of `input` restricted to `length` entries of dimension `dim`, from
    `start`.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension to narrow.
        start (int): the first index kept.
        length (int): how many indices are kept.

    Example::

        >>> torch.narrow(torch.arange(10.), 0, 2, 3)
        tensor([2., 3., 4.])
    """,
    "ne": """Returns a bool tensor: whether each element of `input` is not equal to `other`.

    Args:
        input (Tensor): the tensor to compare.
        other (Tensor or Number): the tensor or number to compare with, broadcast with input.

    Example::

        >>> torch.ne(torch.tensor([1., 2., 3.]), 2)
        tensor([ True, False,  True])
    """,
    "neg": """Returns a new tensor with the negative of each element of `input`. Alias: `negative`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.neg(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([ 1.5000, -0.2000, -2.7000])
    """,
    "negative": """Alias for :func:`nbgrad.neg`: the negative of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.negative(torch.tensor([-1.5, 0.5, 2.7]))
        tensor([ 1.5000, -0.5000, -2.7000])
    """,
    "norm": """Returns the p-norm of `input`, over all elements or over `dim`.

    Args:
        input (Tensor): the input tensor (floating point).
        p (float or str): the order: a number, `inf`, `-inf`, or `"fro"` (Frobenius, the
            2-norm of the flattened tensor). Default: `"fro"`.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.

    Example::

        >>> x = torch.tensor([[3., 4.], [0., -1.]])
        >>> torch.norm(x)
        tensor(5.0990)
        >>> torch.norm(x, p=1, dim=1)
        tensor([7., 1.])
    """,
    "numel": """Returns the number of elements of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.numel(torch.zeros(2, 3))
        6
    """,
    "ones": """Returns a tensor filled with ones, of the shape given by `size`.

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.get_default_dtype()`.
        device (str or nbgrad.device, optional): `"cpu"` or `"cuda"`. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.ones(2, 3)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """,
    "ones_like": """Returns a tensor of `input`'s shape filled with ones.

    Args:
        input (Tensor): the tensor whose shape (and, by default, dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype. Default: input's.
        device (str or nbgrad.device, optional): the device. Default: input's.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.ones_like(torch.tensor([[1., 2.]]))
        tensor([[1., 1.]])
    """,
    "outer": """Returns the outer product of two 1-D tensors. Alias: `ger`.

    Args:
        input (Tensor): a 1-D tensor of size n.
        vec2 (Tensor): a 1-D tensor of size m.

    Shape:
        Output `(n, m)`.

    Example::

        >>> torch.outer(torch.tensor([1., 2.]), torch.tensor([1., 10., 100.]))
        tensor([[  1.,  10., 100.],
                [  2.,  20., 200.]])
    """,
    "permute": """Returns a view of `input` with its dimensions reordered.

    Args:
        input (Tensor): the input tensor.
        dims (tuple of ints): the new order of the dimensions.

    Example::

        >>> torch.permute(torch.zeros(2, 3, 4), (2, 0, 1)).shape
        nbgrad.Size([4, 2, 3])
    """,
    "pow": """Raises each element of `input` to the power `exponent` (with broadcasting).

    Args:
        input (Tensor): the first operand.
        exponent (Tensor or Number): the exponent.

    Example::

        >>> torch.pow(torch.tensor([1., 2., 3.]), 2)
        tensor([1., 4., 9.])
        >>> torch.pow(torch.tensor([4., 9.]), torch.tensor([0.5, 2.]))
        tensor([ 2., 81.])
    """,
    "prod": """Returns the product of the elements of `input`, over all of them or over `dim`.

    Args:
        input (Tensor): the input tensor.
        dim (int, optional): the dimension to reduce. Default: all.
        keepdim (bool): whether the reduced dimension stays, with size 1. Default: False.
        dtype (nbgrad.dtype, optional): the dtype of the result.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.prod(x, 1)
        tensor([10.,  0.])
    """,
    "rand": """Returns a tensor of shape `size` filled with uniform random numbers in [0, 1).

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.get_default_dtype()`.
        device (str or nbgrad.device, optional): `"cpu"` or `"cuda"`. Default: `"cpu"`.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.rand(2, 3).shape
        nbgrad.Size([2, 3])
    """,
    "rand_like": """Returns a tensor of `input`'s shape filled with uniform random numbers in [0,
    1).

    Args:
        input (Tensor): the tensor whose shape (and, by default, dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype. Default: input's.
        device (str or nbgrad.device, optional): the device. Default: input's.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.rand_like(torch.tensor([[1., 2.]])).shape
        nbgrad.Size([1, 2])
    """,
    "randint": """Returns a tensor of shape `size` filled with random integers in `[low, high)`.

    Args:
        low (int): the lowest value (inclusive). Default: 0 (when only `high` is given).
        high (int): one above the highest value.
        size (tuple of ints): the shape.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.int64`.
        device (str or nbgrad.device, optional): the device. Default: `"cpu"`.

    Example::

        >>> x = torch.randint(0, 10, (2, 3))
        >>> x.shape, x.dtype
        (nbgrad.Size([2, 3]), nbgrad.int64)
        >>> 0 <= x.min().item() and x.max().item() < 10
        True
    """,
    "randn_like": """Returns a tensor of `input`'s shape filled with standard normal random numbers.

    Args:
        input (Tensor): the tensor whose shape (and, by default, dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype. Default: input's.
        device (str or nbgrad.device, optional): the device. Default: input's.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.randn_like(torch.tensor([[1., 2.]])).shape
        nbgrad.Size([1, 2])
    """,
    "randperm": """Returns a random permutation of the integers `0` to `n - 1`.

    Args:
        n (int): the number of integers.
        dtype (nbgrad.dtype, optional): the dtype. Default: `nbgrad.int64`.
        device (str or nbgrad.device, optional): the device. Default: `"cpu"`.

    Example::

        >>> sorted(torch.randperm(4).tolist())
        [0, 1, 2, 3]
    """,
    "reciprocal": """Returns a new tensor with the reciprocal, `1 / x`, of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.reciprocal(torch.tensor([0.5, 1.0, 2.0]))
        tensor([2.0000, 1.0000, 0.5000])
    """,
    "relu": """Returns a new tensor with the rectified linear unit, `max(0, x)`, of each element of
    `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.relu(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([0.0000, 0.2000, 2.7000])
    """,
    "reshape": """Returns a tensor with the elements of `input` in a new shape: a view when the
    layout allows, else a copy.

    Args:
        input (Tensor): the tensor to reshape.
        shape (tuple of ints): the new shape; one entry may be -1 (inferred).

    Example::

        >>> torch.reshape(torch.arange(6.), (2, 3))
        tensor([[0., 1., 2.],
                [3., 4., 5.]])
        >>> torch.reshape(torch.arange(6.), (-1,)).shape
        nbgrad.Size([6])
    """,
    "round": """Returns a new tensor with each element of `input` rounded to the nearest integer
    (halves to even), or to `decimals` decimal places.

    Args:
        input (Tensor): the input tensor.
        decimals (int): the number of decimal places. Default: 0.

    Example::

        >>> torch.round(torch.tensor([0.5, 1.5, -2.7]))
        tensor([ 0.,  2., -3.])
        >>> torch.round(torch.tensor([1.2345]), decimals=2)
        tensor([1.2300])
    """,
    "rsqrt": """Returns a new tensor with the reciprocal of the square root of each element of
    `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.rsqrt(torch.tensor([0.5, 1.0, 2.0]))
        tensor([1.4142, 1.0000, 0.7071])
    """,
    "scatter_add": """Returns a copy of `input` to which the values of `src` are added at the
    positions in `index` along `dim` (repeated indices accumulate).

    Args:
        input (Tensor): the tensor to add into.
        dim (int): the dimension to index along.
        index (LongTensor): where each element of src goes, with src's number of dimensions.
        src (Tensor): the values to add.

    Example::

        >>> src = torch.tensor([1., 2., 3.])
        >>> torch.scatter_add(torch.zeros(3), 0, torch.tensor([0, 2, 0]), src)
        tensor([4., 0., 2.])
    """,
    "seed": """Seeds the random number generator from a non-deterministic source and returns the
    seed.

    Example::

        >>> isinstance(torch.seed(), int)
        True
    """,
    "set_default_dtype": """Sets the default floating point dtype, used by creation functions and
    for Python floats: `nbgrad.float32` or `nbgrad.float64`.

    Args:
        d (nbgrad.dtype): the new default.

    Example::

        >>> torch.set_default_dtype(torch.float64)
        >>> torch.tensor([1.5]).dtype
        nbgrad.float64
        >>> torch.set_default_dtype(torch.float32)
    """,
    "sigmoid": """Returns a new tensor with the logistic sigmoid, `1 / (1 + exp(-x))`, of each
    element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.sigmoid(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([0.1824, 0.5498, 0.9370])
    """,
    "sign": """Returns a new tensor with the sign (-1, 0 or 1) of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.sign(torch.tensor([-1.5, 0.0, 2.7]))
        tensor([-1.,  0.,  1.])
    """,
    "sin": """Returns a new tensor with the sine of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.sin(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.4794, 0.8415, 0.9093])
    """,
    "sinh": """Returns a new tensor with the hyperbolic sine of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.sinh(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.5211, 1.1752, 3.6269])
    """,
    "softmax": """Applies softmax along `dim`: `exp(x_i) / sum_j exp(x_j)`.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dimension along which the results sum to one.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> torch.softmax(torch.tensor([[1., 2., 3.]]), dim=1)
        tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "split": """Splits `tensor` into chunks along `dim`, each a view.

    Args:
        tensor (Tensor): the tensor to split.
        split_size_or_sections (int or list of ints): the size of each chunk (the last may
            be smaller), or the list of sizes.
        dim (int): the dimension to split along. Default: 0.

    Example::

        >>> torch.split(torch.arange(5.), 2)
        (tensor([0., 1.]), tensor([2., 3.]), tensor([4.]))
        >>> torch.split(torch.arange(5.), [1, 4])
        (tensor([0.]), tensor([1., 2., 3., 4.]))
    """,
    "sqrt": """Returns a new tensor with the square root of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.sqrt(torch.tensor([0.5, 1.0, 2.0]))
        tensor([0.7071, 1.0000, 1.4142])
    """,
    "square": """Returns a new tensor with the square of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.square(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([2.2500, 0.0400, 7.2900])
    """,
    "squeeze": """Returns a view of `input` without its dimensions of size one (all, or those in
    `dim`).

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): only these dimensions, where their size is one.

    Example::

        >>> x = torch.zeros(2, 1, 3, 1)
        >>> torch.squeeze(x).shape
        nbgrad.Size([2, 3])
        >>> torch.squeeze(x, 1).shape
        nbgrad.Size([2, 3, 1])
    """,
    "std": """Returns the standard deviation of the elements of `input`, over all of them or over
    `dim`.

    With `correction` (default 1, Bessel's correction) the sum of squared deviations is
    divided by `N - correction`; `unbiased=False` is `correction=0`.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        correction (int): the difference between the sample size and the divisor. Default: 1.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.std(x)
        tensor(1.8708)
        >>> torch.std(x, 1, correction=0)
        tensor([1.6997, 1.6997])
    """,
    "std_mean": """Returns the standard deviation and the mean of `input`, as a tuple `(std, mean)`.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        correction (int): as in `nbgrad.std`. Default: 1.

    Example::

        >>> torch.std_mean(torch.tensor([[1., 5., 2.], [4., 0., 3.]]), 1)
        (tensor([2.0817, 2.0817]), tensor([2.6667, 2.3333]))
    """,
    "sub": """Subtracts `other`, scaled by `alpha`, from `input`: `input - alpha * other`. Alias:
    `subtract`.

    Args:
        input (Tensor): the first operand.
        other (Tensor or Number): the tensor or number to subtract, broadcast with input.
        alpha (Number): the multiplier for `other`. Default: 1.

    Example::

        >>> torch.sub(torch.tensor([1., 2.]), 1.5)
        tensor([-0.5000,  0.5000])
    """,
    "subtract": """Alias for :func:`nbgrad.sub`: `input - alpha * other`.

    Args:
        input (Tensor): the input tensor.
        other (Tensor or Number): the tensor or number to subtract.
        alpha (Number, optional): the multiplier for `other`. Default: 1.

    Example::

        >>> torch.subtract(torch.tensor([1., 2.]), torch.tensor([10., 20.]), alpha=0.5)
        tensor([-4., -8.])
    """,
    "sum": """Returns the sum of the elements of `input`, over all of them or over `dim`.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        dtype (nbgrad.dtype, optional): the dtype of the result (the input is cast first).

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.sum(x)
        tensor(15.)
        >>> torch.sum(x, 1)
        tensor([8., 7.])
    """,
    "t": """Transposes a tensor of at most 2 dimensions (0-D and 1-D are returned as is).

    Args:
        input (Tensor): a tensor of at most 2 dimensions.

    Example::

        >>> torch.t(torch.tensor([[1., 2.], [3., 4.]]))
        tensor([[1., 3.],
                [2., 4.]])
    """,
    "take_along_dim": """Takes values of `input` at `indices` along `dim` (broadcasting the two), or
    from the flattened input without `dim`.

    Args:
        input (Tensor): the source tensor.
        indices (LongTensor): the indices.
        dim (int, optional): the dimension to index along.

    Example::

        >>> x = torch.tensor([[10., 30., 20.], [60., 40., 50.]])
        >>> torch.take_along_dim(x, torch.argmax(x, 1, keepdim=True), dim=1)
        tensor([[30.],
                [60.]])
    """,
    "tan": """Returns a new tensor with the tangent of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.tan(torch.tensor([0.5, 1.0, 2.0]))
        tensor([ 0.5463,  1.5574, -2.1850])
    """,
    "tanh": """Returns a new tensor with the hyperbolic tangent of each element of `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.tanh(torch.tensor([-1.5, 0.2, 2.7]))
        tensor([-0.9051,  0.1974,  0.9910])
    """,
    "tile": """Repeats `input` the given number of times along each dimension.

    Args:
        input (Tensor): the input tensor.
        dims (tuple of ints): repetitions per dimension; with fewer entries than input has
            dimensions, ones are prepended (and input's shape padded with ones otherwise).

    Example::

        >>> torch.tile(torch.tensor([1., 2.]), (2, 2))
        tensor([[1., 2., 1., 2.],
                [1., 2., 1., 2.]])
    """,
    "transpose": """Returns a view of `input` with dimensions `dim0` and `dim1` swapped.

    Args:
        input (Tensor): the input tensor.
        dim0 (int): the first dimension.
        dim1 (int): the second dimension.

    Example::

        >>> torch.transpose(torch.tensor([[1., 2., 3.]]), 0, 1)
        tensor([[1.],
                [2.],
                [3.]])
    """,
    "unbind": """Removes dimension `dim` and returns the tuple of slices along it.

    Args:
        input (Tensor): the tensor to unbind.
        dim (int): the dimension to remove. Default: 0.

    Example::

        >>> torch.unbind(torch.tensor([[1., 2.], [3., 4.]]), dim=1)
        (tensor([1., 3.]), tensor([2., 4.]))
    """,
    "unsqueeze": """Returns a view of `input` with a dimension of size one inserted at `dim`.

    Args:
        input (Tensor): the input tensor.
        dim (int): the index of the new dimension, in `[-input.dim() - 1, input.dim()]`.

    Example::

        >>> x = torch.tensor([1., 2., 3.])
        >>> torch.unsqueeze(x, 0)
        tensor([[1., 2., 3.]])
        >>> torch.unsqueeze(x, 1).shape
        nbgrad.Size([3, 1])
    """,
    "var": """Returns the variance of the elements of `input`, over all of them or over `dim`.

    With `correction` (default 1, Bessel's correction) the sum of squared deviations is
    divided by `N - correction`; `unbiased=False` is `correction=0`.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        correction (int): the difference between the sample size and the divisor. Default: 1.

    Example::

        >>> x = torch.tensor([[1., 5., 2.], [4., 0., 3.]])
        >>> torch.var(x)
        tensor(3.5000)
        >>> torch.var(x, 1, correction=0)
        tensor([2.8889, 2.8889])
    """,
    "var_mean": """Returns the variance and the mean of `input`, as a tuple `(var, mean)`.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): whether the reduced dimensions stay, with size 1. Default: False.
        correction (int): as in `nbgrad.var`. Default: 1.

    Example::

        >>> torch.var_mean(torch.tensor([[1., 5., 2.], [4., 0., 3.]]), 1)
        (tensor([4.3333, 4.3333]), tensor([2.6667, 2.3333]))
    """,
    "vstack": """Stacks tensors vertically: concatenation along dimension 0 (1-D tensors become
    rows).

    Args:
        tensors (sequence of Tensor): the tensors to join.

    Example::

        >>> torch.vstack([torch.tensor([1., 2.]), torch.tensor([3., 4.])])
        tensor([[1., 2.],
                [3., 4.]])
    """,
    "where": """Returns elements of `input` where `condition` is True and of `other` elsewhere; with
    only `condition`, the indices of its True elements.

    Args:
        condition (BoolTensor): where to take `input`.
        input (Tensor or Number): values where condition is True.
        other (Tensor or Number): values where condition is False; all three broadcast.

    Example::

        >>> x = torch.tensor([-1., 2., -3.])
        >>> torch.where(x > 0, x, torch.zeros(3))
        tensor([0., 2., 0.])
        >>> torch.where(x > 0, x, 0.)
        tensor([0., 2., 0.])
    """,
    "zeros_like": """Returns a tensor of `input`'s shape filled with zeros.

    Args:
        input (Tensor): the tensor whose shape (and, by default, dtype and device) to take.
        dtype (nbgrad.dtype, optional): the dtype. Default: input's.
        device (str or nbgrad.device, optional): the device. Default: input's.
        requires_grad (bool): whether autograd records operations on the result. Default: False.

    Example::

        >>> torch.zeros_like(torch.tensor([[1., 2.]]))
        tensor([[0., 0.]])
    """,
    "BoolTensor": """Legacy constructor of bool tensors: `BoolTensor(data)` copies a (nested) list,
    and `BoolTensor(*sizes)` makes an uninitialised tensor of that shape. Prefer `nbgrad.tensor`.

    Args:
        *args: data (a list or tuple), or sizes (ints).

    Example::

        >>> torch.BoolTensor([True, False])
        tensor([ True, False])
        >>> torch.BoolTensor(2, 3).shape
        nbgrad.Size([2, 3])
    """,
    "DoubleTensor": """Legacy constructor of float64 tensors: `DoubleTensor(data)` copies a (nested)
    list, and `DoubleTensor(*sizes)` makes an uninitialised tensor of that shape. Prefer
    `nbgrad.tensor`.

    Args:
        *args: data (a list or tuple), or sizes (ints).

    Example::

        >>> torch.DoubleTensor([1.5])
        tensor([1.5000], dtype=nbgrad.float64)
        >>> torch.DoubleTensor(2, 3).shape
        nbgrad.Size([2, 3])
    """,
    "FloatTensor": """Legacy constructor of float32 tensors: `FloatTensor(data)` copies a (nested)
    list, and `FloatTensor(*sizes)` makes an uninitialised tensor of that shape. Prefer
    `nbgrad.tensor`.

    Args:
        *args: data (a list or tuple), or sizes (ints).

    Example::

        >>> torch.FloatTensor([[1, 2]])
        tensor([[1., 2.]])
        >>> torch.FloatTensor(2, 3).shape
        nbgrad.Size([2, 3])
    """,
    "LongTensor": """Legacy constructor of int64 tensors: `LongTensor(data)` copies a (nested) list,
    and `LongTensor(*sizes)` makes an uninitialised tensor of that shape. Prefer `nbgrad.tensor`.

    Args:
        *args: data (a list or tuple), or sizes (ints).

    Example::

        >>> torch.LongTensor([1, 2])
        tensor([1, 2])
        >>> torch.LongTensor(2, 3).shape
        nbgrad.Size([2, 3])
    """,
    "dtype": """The type of a tensor's elements: `nbgrad.float32`, `float64`, `int32`, `int64` or
    `bool`. A dtype compares equal only to itself.

    Example::

        >>> torch.tensor([1., 2.]).dtype
        nbgrad.float32
        >>> torch.float64.is_floating_point, torch.int64.is_floating_point
        (True, False)
        >>> isinstance(torch.float32, torch.dtype)
        True
    """,
    "from_numpy": """Returns a tensor sharing memory with a NumPy array (a C-contiguous one; others
    are copied, since nbgrad keeps every tensor contiguous).

    Args:
        ndarray (numpy.ndarray): the array.

    Example::

        >>> import numpy as np
        >>> a = np.array([1., 2.])
        >>> t = torch.from_numpy(a)
        >>> a[0] = 5.
        >>> t
        tensor([5., 2.], dtype=nbgrad.float64)
    """,
    "promote_types": """Returns the dtype that arithmetic on the two dtypes computes in (the
    smallest that holds both, as in PyTorch's promotion rules).

    Args:
        type1 (nbgrad.dtype): the first dtype.
        type2 (nbgrad.dtype): the second dtype.

    Example::

        >>> torch.promote_types(torch.int64, torch.float32)
        nbgrad.float32
        >>> torch.promote_types(torch.float32, torch.float64)
        nbgrad.float64
    """,
    "silu": """Applies the sigmoid linear unit elementwise: `x * sigmoid(x)`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.nn.functional.silu(torch.tensor([-1., 0., 2.]))
        tensor([-0.2689,  0.0000,  1.7616])
    """,
}
