"""Docstrings of the Tensor methods and properties, `nbgrad.Tensor.<name>`.

The examples use `import nbgrad as torch`; their outputs are PyTorch's.
"""

DOCS = {
    "T": """This tensor with its dimensions reversed (a view); for a matrix, its transpose.

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).T
        tensor([[1., 4.],
                [2., 5.],
                [3., 6.]])
    """,
    "abs": """Returns the absolute value of each element; see `nbgrad.abs`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).abs()
        tensor([1.5000, 0.2000, 2.7000])
    """,
    "abs_": """In-place version of :meth:`abs`.

    Example::

        >>> x = torch.tensor([-1.5, 0.2, 2.7])
        >>> x.abs_()
        tensor([1.5000, 0.2000, 2.7000])
        >>> x
        tensor([1.5000, 0.2000, 2.7000])
    """,
    "acos": """Returns the arccosine of each element; see `nbgrad.acos`.

    Example::

        >>> torch.tensor([-0.5, 0.0, 0.5]).acos()
        tensor([2.0944, 1.5708, 1.0472])
    """,
    "acos_": """In-place version of :meth:`acos`.

    Example::

        >>> x = torch.tensor([-0.5, 0.0, 0.5])
        >>> x.acos_()
        tensor([2.0944, 1.5708, 1.0472])
        >>> x
        tensor([2.0944, 1.5708, 1.0472])
    """,
    "add": """Elementwise `add` of this tensor and `other`; see `nbgrad.add`.

    Example::

        >>> torch.tensor([1., 4.]).add(torch.tensor([10., 20.]), alpha=2)
        tensor([21., 44.])
    """,
    "add_": """In-place `add`: writes `self.add(...)` into this tensor and returns it.

    Example::

        >>> x = torch.tensor([1., 4.])
        >>> x.add_(torch.tensor([10., 20.]), alpha=2)
        tensor([21., 44.])
        >>> x
        tensor([21., 44.])
    """,
    "addcdiv": """Returns `self + value * tensor1 / tensor2`; see `nbgrad.addcdiv`.

    Example::

        >>> x = torch.tensor([1., 1.])
        >>> x.addcdiv(torch.tensor([1., 3.]), torch.tensor([2., 4.]), value=2)
        tensor([2.0000, 2.5000])
    """,
    "addcdiv_": """In-place version of :meth:`addcdiv`.

    Example::

        >>> x = torch.tensor([1., 1.])
        >>> x.addcdiv_(torch.tensor([1., 3.]), torch.tensor([2., 4.]), value=2)
        tensor([2.0000, 2.5000])
        >>> x
        tensor([2.0000, 2.5000])
    """,
    "addcmul": """Returns `self + value * tensor1 * tensor2`; see `nbgrad.addcmul`.

    Example::

        >>> x = torch.tensor([1., 1.])
        >>> x.addcmul(torch.tensor([1., 3.]), torch.tensor([2., 4.]), value=0.5)
        tensor([2., 7.])
    """,
    "addcmul_": """In-place version of :meth:`addcmul`.

    Example::

        >>> x = torch.tensor([1., 1.])
        >>> x.addcmul_(torch.tensor([1., 3.]), torch.tensor([2., 4.]), value=0.5)
        tensor([2., 7.])
        >>> x
        tensor([2., 7.])
    """,
    "all": """Tests whether all elements (over `dim`, if given) are nonzero; see `nbgrad.all`.

    Example::

        >>> torch.tensor([[1., 0.], [2., 3.]]).all()
        tensor(False)
        >>> torch.tensor([[1., 0.], [2., 3.]]).all(dim=1)
        tensor([False,  True])
    """,
    "amax": """Returns the maximum over `dim`; see `nbgrad.amax`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).amax(1)
        tensor([5., 4.])
    """,
    "amin": """Returns the minimum over `dim`; see `nbgrad.amin`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).amin(1)
        tensor([1., 0.])
    """,
    "any": """Tests whether any element (over `dim`, if given) is nonzero; see `nbgrad.any`.

    Example::

        >>> torch.tensor([[0., 0.], [2., 0.]]).any()
        tensor(True)
        >>> torch.tensor([[0., 0.], [2., 0.]]).any(dim=1)
        tensor([False,  True])
    """,
    "arccos": """Returns the arccosine of each element; see `nbgrad.acos`.

    Example::

        >>> torch.tensor([-0.5, 0.0, 0.5]).acos()
        tensor([2.0944, 1.5708, 1.0472])
    """,
    "arccos_": """In-place version of :meth:`arccos`.

    Example::

        >>> x = torch.tensor([-0.5, 0.0, 0.5])
        >>> x.arccos_()
        tensor([2.0944, 1.5708, 1.0472])
        >>> x
        tensor([2.0944, 1.5708, 1.0472])
    """,
    "arcsin": """Returns the arcsine of each element; see `nbgrad.asin`.

    Example::

        >>> torch.tensor([-0.5, 0.0, 0.5]).asin()
        tensor([-0.5236,  0.0000,  0.5236])
    """,
    "arcsin_": """In-place version of :meth:`arcsin`.

    Example::

        >>> x = torch.tensor([-0.5, 0.0, 0.5])
        >>> x.arcsin_()
        tensor([-0.5236,  0.0000,  0.5236])
        >>> x
        tensor([-0.5236,  0.0000,  0.5236])
    """,
    "arctan": """Returns the arctangent of each element; see `nbgrad.atan`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).atan()
        tensor([0.4636, 0.7854, 1.1071])
    """,
    "arctan2": """Elementwise `atan2` of this tensor and `other`; see `nbgrad.atan2`.

    Example::

        >>> torch.tensor([1., 4.]).atan2(torch.tensor([-1., 1.]))
        tensor([2.3562, 1.3258])
    """,
    "arctan2_": """In-place version of :meth:`arctan2`.

    Example::

        >>> x = torch.tensor([1.0, 1.0, -1.0])
        >>> x.arctan2_(torch.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
        >>> x
        tensor([ 0.7854,  2.3562, -2.3562])
    """,
    "arctan_": """In-place version of :meth:`arctan`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 1.0])
        >>> x.arctan_()
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "argmax": """Returns the index of the largest element (along `dim`); see `nbgrad.argmax`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).argmax(1)
        tensor([1, 0])
    """,
    "argmin": """Returns the index of the smallest element (along `dim`); see `nbgrad.argmin`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).argmin(1)
        tensor([0, 1])
    """,
    "asin": """Returns the arcsine of each element; see `nbgrad.asin`.

    Example::

        >>> torch.tensor([-0.5, 0.0, 0.5]).asin()
        tensor([-0.5236,  0.0000,  0.5236])
    """,
    "asin_": """In-place version of :meth:`asin`.

    Example::

        >>> x = torch.tensor([-0.5, 0.0, 0.5])
        >>> x.asin_()
        tensor([-0.5236,  0.0000,  0.5236])
        >>> x
        tensor([-0.5236,  0.0000,  0.5236])
    """,
    "atan": """Returns the arctangent of each element; see `nbgrad.atan`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).atan()
        tensor([0.4636, 0.7854, 1.1071])
    """,
    "atan2": """Elementwise `atan2` of this tensor and `other`; see `nbgrad.atan2`.

    Example::

        >>> torch.tensor([1., 4.]).atan2(torch.tensor([-1., 1.]))
        tensor([2.3562, 1.3258])
    """,
    "atan2_": """In-place version of :meth:`atan2`.

    Example::

        >>> x = torch.tensor([1.0, 1.0, -1.0])
        >>> x.atan2_(torch.tensor([1.0, -1.0, -1.0]))
        tensor([ 0.7854,  2.3562, -2.3562])
        >>> x
        tensor([ 0.7854,  2.3562, -2.3562])
    """,
    "atan_": """In-place version of :meth:`atan`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 1.0])
        >>> x.atan_()
        tensor([-0.7854,  0.0000,  0.7854])
        >>> x
        tensor([-0.7854,  0.0000,  0.7854])
    """,
    "bernoulli_": """Fills this tensor with draws from Bernoulli(`p`): 1 with probability `p`, else
    0.

    Args:
        p (float or Tensor, optional): the probability of a 1. Default: 0.5.
        generator (Generator, optional): the random number generator.

    Example::

        >>> x = torch.empty(4).bernoulli_(1.0)
        >>> x
        tensor([1., 1., 1., 1.])
        >>> torch.empty(4).bernoulli_(0.3).dtype
        nbgrad.float32
    """,
    "bool": """Returns the tensor cast to `nbgrad.bool` (nonzero is True).

    Example::

        >>> torch.tensor([0., 2.]).bool()
        tensor([False,  True])
    """,
    "ceil": """Returns the ceiling (the smallest integer not less than it) of each element; see
    `nbgrad.ceil`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).ceil()
        tensor([-1.,  1.,  3.])
    """,
    "ceil_": """In-place version of :meth:`ceil`.

    Example::

        >>> x = torch.tensor([-1.5, 0.2, 2.7])
        >>> x.ceil_()
        tensor([-1.,  1.,  3.])
        >>> x
        tensor([-1.,  1.,  3.])
    """,
    "chunk": """Splits the tensor into `chunks` pieces along `dim`; see `nbgrad.chunk`.

    Example::

        >>> torch.arange(4.).chunk(2)
        (tensor([0., 1.]), tensor([2., 3.]))
    """,
    "clamp": """Clamps each element to `[min, max]`; see `nbgrad.clamp`.

    Example::

        >>> torch.tensor([-2., 0.5, 3.]).clamp(max=1.)
        tensor([-2.0000,  0.5000,  1.0000])
    """,
    "clamp_": """In-place `clamp`: clamps this tensor's elements to `[min, max]` and returns it.

    Example::

        >>> x = torch.tensor([-2., 0.5, 3.])
        >>> x.clamp_(-1., 1.)
        tensor([-1.0000,  0.5000,  1.0000])
    """,
    "clamp_max": """Clamps from above; see `nbgrad.clamp_max`.

    Example::

        >>> torch.tensor([-2., 0.5]).clamp_max(0.)
        tensor([-2.,  0.])
    """,
    "clamp_max_": """In-place version of :meth:`clamp_max`.

    Example::

        >>> x = torch.tensor([-1.5, 0.2, 2.7])
        >>> x.clamp_max_(1.0)
        tensor([-1.5000,  0.2000,  1.0000])
        >>> x
        tensor([-1.5000,  0.2000,  1.0000])
    """,
    "clamp_min": """Clamps from below; see `nbgrad.clamp_min`.

    Example::

        >>> torch.tensor([-2., 0.5]).clamp_min(0.)
        tensor([0.0000, 0.5000])
    """,
    "clamp_min_": """In-place version of :meth:`clamp_min`.

    Example::

        >>> x = torch.tensor([-1.5, 0.2, 2.7])
        >>> x.clamp_min_(0.0)
        tensor([0.0000, 0.2000, 2.7000])
        >>> x
        tensor([0.0000, 0.2000, 2.7000])
    """,
    "clip": """Clamps each element to `[min, max]`; see `nbgrad.clamp`.

    Example::

        >>> torch.tensor([-2., 0.5, 3.]).clamp(max=1.)
        tensor([-2.0000,  0.5000,  1.0000])
    """,
    "clip_": """In-place `clamp`: clamps this tensor's elements to `[min, max]` and returns it.

    Example::

        >>> x = torch.tensor([-2., 0.5, 3.])
        >>> x.clamp_(-1., 1.)
        tensor([-1.0000,  0.5000,  1.0000])
    """,
    "clone": """Returns a copy of this tensor, recorded in the graph; see `nbgrad.clone`.

    Example::

        >>> torch.tensor([1., 2.]).clone()
        tensor([1., 2.])
    """,
    "contiguous": """Returns a tensor with the same values laid out contiguously (this tensor if it
    already is).

    Example::

        >>> torch.zeros(2, 3).t().contiguous().is_contiguous()
        True
    """,
    "copy_": """Copies the elements of `src` (broadcast, and cast to this dtype) into this tensor,
    in place.

    Args:
        src (Tensor): the values.

    Example::

        >>> torch.zeros(2, 2).copy_(torch.tensor([1., 2.]))
        tensor([[1., 2.],
                [1., 2.]])
    """,
    "cos": """Returns the cosine of each element; see `nbgrad.cos`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).cos()
        tensor([ 0.8776,  0.5403, -0.4161])
    """,
    "cos_": """In-place version of :meth:`cos`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 2.0])
        >>> x.cos_()
        tensor([ 0.8776,  0.5403, -0.4161])
        >>> x
        tensor([ 0.8776,  0.5403, -0.4161])
    """,
    "cosh": """Returns the hyperbolic cosine of each element; see `nbgrad.cosh`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).cosh()
        tensor([1.1276, 1.5431, 3.7622])
    """,
    "cosh_": """In-place version of :meth:`cosh`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 2.0])
        >>> x.cosh_()
        tensor([1.1276, 1.5431, 3.7622])
        >>> x
        tensor([1.1276, 1.5431, 3.7622])
    """,
    "cpu": """Returns the tensor on the CPU (this tensor if it is there already).

    Example::

        >>> torch.tensor([1.]).cpu().device
        device(type='cpu')
    """,
    "cuda": """Returns a copy of the tensor on a CUDA device (see docs/cuda.md).

    Args:
        device (int or nbgrad.device, optional): the device. Default: the current one.
        non_blocking (bool): accepted for compatibility. Default: False.

    Example::

        >>> x = torch.tensor([1.])
        >>> x.cuda().device.type if torch.cuda.is_available() else "cuda"
        'cuda'
    """,
    "cumsum": """Returns the cumulative sum along `dim`; see `nbgrad.cumsum`.

    Example::

        >>> torch.tensor([[1., 2.], [3., 4.]]).cumsum(1)
        tensor([[1., 3.],
                [3., 7.]])
    """,
    "data": """This tensor's data as a tensor outside the graph (like `detach()`); assigning a
    tensor replaces the data without recording anything.

    Example::

        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> x.data
        tensor([1., 2.])
        >>> x.data = torch.tensor([3., 4.])
        >>> x
        tensor([3., 4.], requires_grad=True)
    """,
    "detach": """Returns a new tensor sharing this one's data, outside the graph (no gradient flows
    through it).

    Example::

        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> x.detach().requires_grad
        False
    """,
    "detach_": """Detaches this tensor from the graph in place: it becomes a leaf.

    Example::

        >>> y = torch.tensor([1.], requires_grad=True) * 2
        >>> y.detach_().is_leaf
        True
    """,
    "device": """The device the tensor's data is on (an `nbgrad.device`).

    Example::

        >>> torch.tensor([1.]).device
        device(type='cpu')
    """,
    "digamma": """Returns the digamma function (the derivative of lgamma) of each element; see
    `nbgrad.digamma`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).digamma()
        tensor([-1.9635, -0.5772,  0.4228])
    """,
    "digamma_": """In-place version of :meth:`digamma`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 2.0])
        >>> x.digamma_()
        tensor([-1.9635, -0.5772,  0.4228])
        >>> x
        tensor([-1.9635, -0.5772,  0.4228])
    """,
    "dim": """Returns the number of dimensions. Also the property `ndim`.

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).dim()
        2
    """,
    "div": """Elementwise `div` of this tensor and `other`; see `nbgrad.div`.

    Example::

        >>> torch.tensor([1., 4.]).div(2)
        tensor([0.5000, 2.0000])
    """,
    "div_": """In-place `div`: writes `self.div(...)` into this tensor and returns it.

    Example::

        >>> x = torch.tensor([1., 4.])
        >>> x.div_(2)
        tensor([0.5000, 2.0000])
        >>> x
        tensor([0.5000, 2.0000])
    """,
    "divide": """Elementwise `div` of this tensor and `other`; see `nbgrad.div`.

    Example::

        >>> torch.tensor([1., 4.]).div(2)
        tensor([0.5000, 2.0000])
    """,
    "dot": """Returns the dot product with a 1-D tensor; see `nbgrad.dot`.

    Example::

        >>> torch.tensor([1., 2.]).dot(torch.tensor([3., 4.]))
        tensor(11.)
    """,
    "double": """Returns the tensor cast to `nbgrad.float64`.

    Example::

        >>> torch.tensor([1, 2]).double()
        tensor([1., 2.], dtype=nbgrad.float64)
    """,
    "dtype": """The data type of the elements (an `nbgrad.dtype`).

    Example::

        >>> torch.tensor([1., 2.]).dtype
        nbgrad.float32
        >>> torch.tensor([1, 2]).dtype
        nbgrad.int64
    """,
    "element_size": """Returns the size in bytes of one element.

    Example::

        >>> torch.tensor([1.]).element_size(), torch.tensor([1.]).double().element_size()
        (4, 8)
    """,
    "eq": """Elementwise `self equal to other` as a bool tensor; see `nbgrad.eq`.

    Example::

        >>> torch.tensor([1., 2., 3.]).eq(2)
        tensor([False,  True, False])
    """,
    "erf": """Returns the error function of each element; see `nbgrad.erf`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).erf()
        tensor([0.5205, 0.8427, 0.9953])
    """,
    "erf_": """In-place version of :meth:`erf`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 0.5])
        >>> x.erf_()
        tensor([-0.8427,  0.0000,  0.5205])
        >>> x
        tensor([-0.8427,  0.0000,  0.5205])
    """,
    "exp": """Returns the exponential of each element; see `nbgrad.exp`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).exp()
        tensor([1.6487, 2.7183, 7.3891])
    """,
    "exp2": """Returns two to the power of each element; see `nbgrad.exp2`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).exp2()
        tensor([1.4142, 2.0000, 4.0000])
    """,
    "exp2_": """In-place version of :meth:`exp2`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 3.0])
        >>> x.exp2_()
        tensor([0.5000, 1.0000, 8.0000])
        >>> x
        tensor([0.5000, 1.0000, 8.0000])
    """,
    "exp_": """In-place version of :meth:`exp`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 1.0])
        >>> x.exp_()
        tensor([0.3679, 1.0000, 2.7183])
        >>> x
        tensor([0.3679, 1.0000, 2.7183])
    """,
    "expand": """Returns a view of this tensor with its size-one dimensions broadcast to `sizes` (no
    copy; -1 keeps a dimension's size).

    Args:
        *sizes (ints or a tuple of ints): the new shape.

    Example::

        >>> torch.tensor([[1.], [2.]]).expand(2, 3)
        tensor([[1., 1., 1.],
                [2., 2., 2.]])
    """,
    "expand_as": """Returns this tensor expanded to the shape of `other`; see `Tensor.expand`.

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> torch.tensor([1., 2.]).expand_as(torch.zeros(3, 2))
        tensor([[1., 2.],
                [1., 2.],
                [1., 2.]])
    """,
    "expm1": """Returns `exp(x) - 1` (accurate for small x) of each element; see `nbgrad.expm1`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).expm1()
        tensor([0.6487, 1.7183, 6.3891])
    """,
    "expm1_": """In-place version of :meth:`expm1`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 1.0])
        >>> x.expm1_()
        tensor([-0.6321,  0.0000,  1.7183])
        >>> x
        tensor([-0.6321,  0.0000,  1.7183])
    """,
    "exponential_": """Fills this tensor with draws from the exponential distribution of rate
    `lambd`.

    Args:
        lambd (float, optional): the rate. Default: 1.0.
        generator (Generator, optional): the random number generator.

    Example::

        >>> x = torch.empty(1000).exponential_(2.0)
        >>> bool((x >= 0).all())
        True
        >>> x.shape
        nbgrad.Size([1000])
    """,
    "fill_": """Fills this tensor with `value`, in place.

    Args:
        value (Number or 0-D Tensor): the value.

    Example::

        >>> torch.zeros(2).fill_(3.)
        tensor([3., 3.])
    """,
    "flatten": """Flattens dimensions `start_dim` to `end_dim` into one; see `nbgrad.flatten`.

    Example::

        >>> torch.zeros(2, 3, 4).flatten(0, 1).shape
        nbgrad.Size([6, 4])
    """,
    "flip": """Returns a copy reversed along `dims`; see `nbgrad.flip`.

    Example::

        >>> torch.tensor([1., 2., 3.]).flip(0)
        tensor([3., 2., 1.])
    """,
    "fliplr": """Reverses the columns (dimension 1); see `nbgrad.fliplr`.

    Example::

        >>> torch.tensor([[1., 2.]]).fliplr()
        tensor([[2., 1.]])
    """,
    "flipud": """Reverses the rows (dimension 0); see `nbgrad.flipud`.

    Example::

        >>> torch.tensor([[1.], [2.]]).flipud()
        tensor([[2.],
                [1.]])
    """,
    "float": """Returns the tensor cast to `nbgrad.float32`.

    Example::

        >>> torch.tensor([1, 2]).float()
        tensor([1., 2.])
    """,
    "half": """Returns the tensor cast to `nbgrad.float16` (values rounded to nearest even;
    differentiable, the gradient flowing back as the input's dtype).

    Example::

        >>> torch.tensor([1.0, 0.1]).half()
        tensor([1.0000, 0.1000], dtype=nbgrad.float16)
    """,
    "bfloat16": """Returns the tensor cast to `nbgrad.bfloat16` (values rounded to nearest even;
    differentiable, the gradient flowing back as the input's dtype).

    Example::

        >>> torch.tensor([1.0, 0.1]).bfloat16()
        tensor([1.0000, 0.1001], dtype=nbgrad.bfloat16)
    """,
    "floor": """Returns the floor (the largest integer not greater than it) of each element; see
    `nbgrad.floor`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).floor()
        tensor([-2.,  0.,  2.])
    """,
    "floor_": """In-place version of :meth:`floor`.

    Example::

        >>> x = torch.tensor([-1.5, 0.2, 2.7])
        >>> x.floor_()
        tensor([-2.,  0.,  2.])
        >>> x
        tensor([-2.,  0.,  2.])
    """,
    "floor_divide": """Divides by `other` and rounds toward minus infinity; see
    `nbgrad.floor_divide`.

    Example::

        >>> torch.tensor([7., -7., 5.]).floor_divide(torch.tensor([2., 2., -3.]))
        tensor([ 3., -4., -2.])
    """,
    "floor_divide_": """In-place version of :meth:`floor_divide`.

    Example::

        >>> x = torch.tensor([7., -7., 5.])
        >>> x.floor_divide_(2)
        tensor([ 3., -4.,  2.])
        >>> x
        tensor([ 3., -4.,  2.])
    """,
    "fmod": """Returns the elementwise remainder of division by `other`, with the sign of `self`;
    see `nbgrad.fmod`.

    Example::

        >>> torch.tensor([-3., -1.5, 2.5, 5.]).fmod(2)
        tensor([-1.0000, -1.5000,  0.5000,  1.0000])
    """,
    "fmod_": """In-place version of :meth:`fmod`.

    Example::

        >>> x = torch.tensor([-3., -1.5, 2.5, 5.])
        >>> x.fmod_(2)
        tensor([-1.0000, -1.5000,  0.5000,  1.0000])
        >>> x
        tensor([-1.0000, -1.5000,  0.5000,  1.0000])
    """,
    "gather": """Gathers values along `dim` at the positions in `index`; see `nbgrad.gather`.

    Example::

        >>> torch.tensor([[1., 2.], [3., 4.]]).gather(0, torch.tensor([[1, 0]]))
        tensor([[3., 2.]])
    """,
    "ge": """Elementwise `self greater than or equal to other` as a bool tensor; see `nbgrad.ge`.

    Example::

        >>> torch.tensor([1., 2., 3.]).ge(2)
        tensor([False,  True,  True])
    """,
    "grad": """The gradient accumulated by `backward()` (None until then); for leaves, or tensors
    that called `retain_grad()`.

    Example::

        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> x.grad is None
        True
        >>> (3 * x).sum().backward()
        >>> x.grad
        tensor([3., 3.])
    """,
    "grad_fn": """The backward node of the operation that created this tensor (None for leaves).

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> x.grad_fn is None
        True
        >>> type((x * 2).grad_fn).__name__
        'MulBackward0'
    """,
    "gt": """Elementwise `self greater than other` as a bool tensor; see `nbgrad.gt`.

    Example::

        >>> torch.tensor([1., 2., 3.]).gt(2)
        tensor([False, False,  True])
    """,
    "index_add": """Out-of-place `index_add_`; see `nbgrad.index_add`.

    Example::

        >>> torch.zeros(3).index_add(0, torch.tensor([1, 1]), torch.tensor([1., 2.]))
        tensor([0., 3., 0.])
    """,
    "index_add_": """Adds `alpha * source` into this tensor at the indices `index` of dimension
    `dim`, in place; see `nbgrad.index_add`.

    Example::

        >>> x = torch.zeros(3)
        >>> x.index_add_(0, torch.tensor([0, 0]), torch.tensor([1., 2.]))
        tensor([3., 0., 0.])
    """,
    "index_fill": """Returns a copy of this tensor with the entries at `index` along `dim` set to
    `value`.

    Args:
        dim (int): the dimension to index along.
        index (LongTensor): the indices to fill.
        value (Number or 0-d Tensor): the value to fill with.

    Example::

        >>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), -1.0)
        tensor([[-1.,  0., -1.],
                [-1.,  0., -1.]])
    """,
    "index_fill_": """In-place version of :meth:`index_fill`.

    Example::

        >>> x = torch.zeros(2, 3)
        >>> x.index_fill_(0, torch.tensor([1]), 5.0)
        tensor([[0., 0., 0.],
                [5., 5., 5.]])
        >>> x
        tensor([[0., 0., 0.],
                [5., 5., 5.]])
    """,
    "index_put": """Out-of-place `index_put_`: a copy with `values` written (or added) at the
    positions given by the tuple of index tensors `indices`.

    Args:
        indices (tuple of LongTensor): one index tensor per leading dimension.
        values (Tensor): the values, broadcast to the indexed positions.
        accumulate (bool): add instead of write (repeated positions accumulate).
            Default: False.

    Example::

        >>> torch.zeros(3).index_put((torch.tensor([0, 2]),), torch.tensor([5., 6.]))
        tensor([5., 0., 6.])
    """,
    "index_put_": """Writes (or, with `accumulate=True`, adds) `values` into this tensor at the
    positions given by the tuple of index tensors `indices`; see `Tensor.index_put`.

    Example::

        >>> x = torch.zeros(3)
        >>> x.index_put_((torch.tensor([1, 1]),), torch.tensor([1., 2.]), accumulate=True)
        tensor([0., 3., 0.])
    """,
    "index_select": """Returns the entries at `index` along `dim`; see `nbgrad.index_select`.

    Example::

        >>> torch.tensor([[1., 2.], [3., 4.]]).index_select(1, torch.tensor([1]))
        tensor([[2.],
                [4.]])
    """,
    "int": """Returns the tensor cast to `nbgrad.int32` (truncating toward zero).

    Example::

        >>> torch.tensor([1.7, -1.7]).int()
        tensor([ 1, -1], dtype=nbgrad.int32)
    """,
    "is_contiguous": """Returns True if the tensor's elements are laid out in row-major order with
    no gaps. nbgrad keeps every tensor's data in that order, views included, so this is always True;
    PyTorch returns False for strided views such as a transpose.

    Example::

        >>> torch.zeros(2, 3).is_contiguous()
        True
    """,
    "is_floating_point": """Returns True if the dtype is a floating point type.

    Example::

        >>> torch.tensor([1.]).is_floating_point(), torch.tensor([1]).is_floating_point()
        (True, False)
    """,
    "is_leaf": """True for tensors autograd did not create through an operation: every tensor with
    `requires_grad=False`, and those with `requires_grad=True` created by the user. Only leaves get
    `.grad` populated by `backward()`.

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> x.is_leaf, (x * 2).is_leaf
        (True, False)
    """,
    "isfinite": """Returns a boolean tensor that is True where an element is finite; see
    `nbgrad.isfinite`.

    Example::

        >>> torch.tensor([1., float('inf'), float('-inf'), float('nan')]).isfinite()
        tensor([ True, False, False, False])
    """,
    "isinf": """Returns a boolean tensor that is True where an element is +/-infinity; see
    `nbgrad.isinf`.

    Example::

        >>> torch.tensor([1., float('inf'), float('-inf'), float('nan')]).isinf()
        tensor([False,  True,  True, False])
    """,
    "isnan": """Returns a boolean tensor that is True where an element is NaN; see `nbgrad.isnan`.

    Example::

        >>> torch.tensor([1., float('inf'), float('-inf'), float('nan')]).isnan()
        tensor([False, False, False,  True])
    """,
    "isneginf": """Returns a boolean tensor that is True where an element is minus infinity; see
    `nbgrad.isneginf`.

    Example::

        >>> torch.tensor([1., float('inf'), float('-inf'), float('nan')]).isneginf()
        tensor([False, False,  True, False])
    """,
    "isposinf": """Returns a boolean tensor that is True where an element is plus infinity; see
    `nbgrad.isposinf`.

    Example::

        >>> torch.tensor([1., float('inf'), float('-inf'), float('nan')]).isposinf()
        tensor([False,  True, False, False])
    """,
    "item": """Returns the value of a one-element tensor as a Python number.

    Example::

        >>> torch.tensor([2.5]).item()
        2.5
    """,
    "le": """Elementwise `self less than or equal to other` as a bool tensor; see `nbgrad.le`.

    Example::

        >>> torch.tensor([1., 2., 3.]).le(2)
        tensor([ True,  True, False])
    """,
    "lerp": """Linear interpolation `self + weight * (end - self)`; see `nbgrad.lerp`.

    Example::

        >>> torch.tensor([0., 10.]).lerp(torch.tensor([10., 20.]), 0.25)
        tensor([ 2.5000, 12.5000])
    """,
    "lerp_": """In-place version of :meth:`lerp`.

    Example::

        >>> x = torch.tensor([0., 10.])
        >>> x.lerp_(torch.tensor([10., 20.]), 0.25)
        tensor([ 2.5000, 12.5000])
        >>> x
        tensor([ 2.5000, 12.5000])
    """,
    "lgamma": """Returns the log of the absolute value of the gamma function of each element; see
    `nbgrad.lgamma`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).lgamma()
        tensor([0.5724, 0.0000, 0.0000])
    """,
    "lgamma_": """In-place version of :meth:`lgamma`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 3.0])
        >>> x.lgamma_()
        tensor([0.5724, 0.0000, 0.6931])
        >>> x
        tensor([0.5724, 0.0000, 0.6931])
    """,
    "log": """Returns the natural logarithm of each element; see `nbgrad.log`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).log()
        tensor([-0.6931,  0.0000,  0.6931])
    """,
    "log10": """Returns the base-10 logarithm of each element; see `nbgrad.log10`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).log10()
        tensor([-0.3010,  0.0000,  0.3010])
    """,
    "log10_": """In-place version of :meth:`log10`.

    Example::

        >>> x = torch.tensor([1.0, 10.0, 1000.0])
        >>> x.log10_()
        tensor([0., 1., 3.])
        >>> x
        tensor([0., 1., 3.])
    """,
    "log1p": """Returns `log(1 + x)` (accurate for small x) of each element; see `nbgrad.log1p`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).log1p()
        tensor([0.4055, 0.6931, 1.0986])
    """,
    "log1p_": """In-place version of :meth:`log1p`.

    Example::

        >>> x = torch.tensor([0.0, 1.0, 2.0])
        >>> x.log1p_()
        tensor([0.0000, 0.6931, 1.0986])
        >>> x
        tensor([0.0000, 0.6931, 1.0986])
    """,
    "log2": """Returns the base-2 logarithm of each element; see `nbgrad.log2`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).log2()
        tensor([-1.,  0.,  1.])
    """,
    "log2_": """In-place version of :meth:`log2`.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 8.0])
        >>> x.log2_()
        tensor([0., 1., 3.])
        >>> x
        tensor([0., 1., 3.])
    """,
    "log_": """In-place version of :meth:`log`.

    Example::

        >>> x = torch.tensor([1.0, 2.0, 10.0])
        >>> x.log_()
        tensor([0.0000, 0.6931, 2.3026])
        >>> x
        tensor([0.0000, 0.6931, 2.3026])
    """,
    "log_softmax": """`log(softmax(self))` along `dim`; see `nbgrad.log_softmax`.

    Example::

        >>> torch.tensor([0., 0.]).log_softmax(0)
        tensor([-0.6931, -0.6931])
    """,
    "logsumexp": """Returns `log(sum(exp(self)))` over `dim`; see `nbgrad.logsumexp`.

    Example::

        >>> torch.tensor([1., 1.]).logsumexp(0)
        tensor(1.6931)
    """,
    "long": """Returns the tensor cast to `nbgrad.int64` (truncating toward zero).

    Example::

        >>> torch.tensor([1.7, -1.7]).long()
        tensor([ 1, -1])
    """,
    "lt": """Elementwise `self less than other` as a bool tensor; see `nbgrad.lt`.

    Example::

        >>> torch.tensor([1., 2., 3.]).lt(2)
        tensor([ True, False, False])
    """,
    "mT": """This tensor with its last two dimensions swapped (a view): a batch of transposes.

    Example::

        >>> torch.zeros(4, 2, 3).mT.shape
        nbgrad.Size([4, 3, 2])
    """,
    "masked_fill": """Returns a copy of this tensor with `value` where `mask` is True.

    Args:
        mask (BoolTensor): where to fill, broadcast with this tensor.
        value (float or 0-D Tensor): the fill value.

    Example::

        >>> x = torch.tensor([1., 2., 3.])
        >>> x.masked_fill(x > 1, 0.)
        tensor([1., 0., 0.])
    """,
    "masked_fill_": """Fills the elements of this tensor where `mask` is True with `value`, in
    place.

    Args:
        mask (BoolTensor): where to fill; broadcast to this tensor's shape.
        value (Number or 0-d Tensor): the value to fill with.

    Example::

        >>> x = torch.tensor([1., 2., 3.])
        >>> x.masked_fill_(torch.tensor([True, False, True]), 0.)
        tensor([0., 2., 0.])
        >>> x
        tensor([0., 2., 0.])
    """,
    "masked_select": """Returns a 1-D tensor of the elements where `mask` is True.

    Args:
        mask (BoolTensor): broadcast with this tensor.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 4.]])
        >>> x.masked_select(x > 2)
        tensor([3., 4.])
    """,
    "max": """Returns the maximum of all elements, or `(values, indices)` along `dim`; see
    `nbgrad.max`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).max()
        tensor(5.)
    """,
    "maximum": """Elementwise `maximum` of this tensor and `other`; see `nbgrad.maximum`.

    Example::

        >>> torch.tensor([1., 4.]).maximum(torch.tensor([3., 2.]))
        tensor([3., 4.])
    """,
    "min": """Returns the minimum of all elements, or `(values, indices)` along `dim`; see
    `nbgrad.min`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).min()
        tensor(0.)
    """,
    "minimum": """Elementwise `minimum` of this tensor and `other`; see `nbgrad.minimum`.

    Example::

        >>> torch.tensor([1., 4.]).minimum(torch.tensor([3., 2.]))
        tensor([1., 2.])
    """,
    "mm": """Matrix product with a 2-D tensor; see `nbgrad.mm`.

    Example::

        >>> torch.tensor([[1., 2.]]).mm(torch.tensor([[3.], [4.]]))
        tensor([[11.]])
    """,
    "moveaxis": """Moves dimension(s) `source` to `destination`; see `nbgrad.movedim`.

    Example::

        >>> torch.zeros(2, 3, 4).movedim(2, 0).shape
        nbgrad.Size([4, 2, 3])
    """,
    "movedim": """Moves dimension(s) `source` to `destination`; see `nbgrad.movedim`.

    Example::

        >>> torch.zeros(2, 3, 4).movedim(2, 0).shape
        nbgrad.Size([4, 2, 3])
    """,
    "mul": """Elementwise `mul` of this tensor and `other`; see `nbgrad.mul`.

    Example::

        >>> torch.tensor([1., 4.]).mul(torch.tensor([3., 0.5]))
        tensor([3., 2.])
    """,
    "mul_": """In-place `mul`: writes `self.mul(...)` into this tensor and returns it.

    Example::

        >>> x = torch.tensor([1., 4.])
        >>> x.mul_(torch.tensor([3., 0.5]))
        tensor([3., 2.])
        >>> x
        tensor([3., 2.])
    """,
    "multiply": """Elementwise `mul` of this tensor and `other`; see `nbgrad.mul`.

    Example::

        >>> torch.tensor([1., 4.]).mul(torch.tensor([3., 0.5]))
        tensor([3., 2.])
    """,
    "nan_to_num": """Replaces NaN, +infinity and -infinity with finite numbers; see
    `nbgrad.nan_to_num`.

    Example::

        >>> x = torch.tensor([float('nan'), float('inf'), float('-inf'), 1.])
        >>> x.nan_to_num(posinf=9., neginf=-9.)
        tensor([ 0.,  9., -9.,  1.])
    """,
    "nan_to_num_": """In-place version of :meth:`nan_to_num`.

    Example::

        >>> x = torch.tensor([float('nan'), float('inf'), float('-inf'), 1.])
        >>> x.nan_to_num_(nan=0.5, posinf=9., neginf=-9.)
        tensor([ 0.5000,  9.0000, -9.0000,  1.0000])
        >>> x
        tensor([ 0.5000,  9.0000, -9.0000,  1.0000])
    """,
    "narrow": """Returns a view of `length` entries of dimension `dim` from `start`; see
    `nbgrad.narrow`.

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).narrow(1, 1, 2)
        tensor([[2., 3.],
                [5., 6.]])
    """,
    "ndim": """The number of dimensions (as `Tensor.dim()`).

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).ndim
        2
    """,
    "ne": """Elementwise `self not equal to other` as a bool tensor; see `nbgrad.ne`.

    Example::

        >>> torch.tensor([1., 2., 3.]).ne(2)
        tensor([ True, False,  True])
    """,
    "neg": """Returns the negative of each element; see `nbgrad.neg`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).neg()
        tensor([ 1.5000, -0.2000, -2.7000])
    """,
    "neg_": """In-place version of :meth:`neg`.

    Example::

        >>> x = torch.tensor([-1.5, 0.5, 2.7])
        >>> x.neg_()
        tensor([ 1.5000, -0.5000, -2.7000])
        >>> x
        tensor([ 1.5000, -0.5000, -2.7000])
    """,
    "negative": """Returns the negative of each element; see `nbgrad.neg`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).neg()
        tensor([ 1.5000, -0.2000, -2.7000])
    """,
    "negative_": """In-place version of :meth:`negative`.

    Example::

        >>> x = torch.tensor([-1.5, 0.5, 2.7])
        >>> x.negative_()
        tensor([ 1.5000, -0.5000, -2.7000])
        >>> x
        tensor([ 1.5000, -0.5000, -2.7000])
    """,
    "nelement": """Returns the number of elements. Alias: `nelement`.

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).numel()
        6
    """,
    "new_empty": """Returns an uninitialized tensor of `size`, with this tensor's dtype and device.

    Args:
        size (int...): the shape of the result.
        dtype (dtype, optional): the result's dtype. Default: this tensor's.
        device (device, optional): the result's device. Default: this tensor's.
        requires_grad (bool, optional): whether autograd records operations on it. Default: False.

    Example::

        >>> x = torch.tensor([1, 2], dtype=torch.int32)
        >>> x.new_empty(2, 3).shape
        nbgrad.Size([2, 3])
        >>> x.new_empty(2, 3).dtype
        nbgrad.int32
    """,
    "new_full": """Returns a tensor of `size` filled with `fill_value`, with this tensor's dtype and
    device.

    Args:
        size (sequence of ints): the shape of the result.
        fill_value (Number): the value to fill with.
        dtype (dtype, optional): the result's dtype. Default: this tensor's.
        device (device, optional): the result's device. Default: this tensor's.
        requires_grad (bool, optional): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.tensor([1., 2.], dtype=torch.float64).new_full((2, 2), 3.5)
        tensor([[3.5000, 3.5000],
                [3.5000, 3.5000]], dtype=nbgrad.float64)
    """,
    "new_ones": """Returns a tensor of `size` filled with ones, with this tensor's dtype and device.

    Args:
        size (int...): the shape of the result.
        dtype (dtype, optional): the result's dtype. Default: this tensor's.
        device (device, optional): the result's device. Default: this tensor's.
        requires_grad (bool, optional): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.tensor([1, 2]).new_ones(2, 3)
        tensor([[1, 1, 1],
                [1, 1, 1]])
    """,
    "new_tensor": """Returns a new tensor holding a copy of `data`, with this tensor's dtype and
    device.

    Args:
        data (array_like): the values.
        dtype (dtype, optional): the result's dtype. Default: this tensor's.
        device (device, optional): the result's device. Default: this tensor's.
        requires_grad (bool, optional): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.tensor([1, 2], dtype=torch.int32).new_tensor([[3, 4], [5, 6]])
        tensor([[3, 4],
                [5, 6]], dtype=nbgrad.int32)
    """,
    "new_zeros": """Returns a tensor of `size` filled with zeros, with this tensor's dtype and
    device.

    Args:
        size (int...): the shape of the result.
        dtype (dtype, optional): the result's dtype. Default: this tensor's.
        device (device, optional): the result's device. Default: this tensor's.
        requires_grad (bool, optional): whether autograd records operations on it. Default: False.

    Example::

        >>> torch.tensor([1., 2.], dtype=torch.float64).new_zeros(3)
        tensor([0., 0., 0.], dtype=nbgrad.float64)
    """,
    "norm": """Returns the p-norm of the tensor; see `nbgrad.norm`.

    Example::

        >>> torch.tensor([3., 4.]).norm()
        tensor(5.)
    """,
    "normal_": """Fills this tensor with draws from the normal distribution N(`mean`, `std`^2).

    Args:
        mean (float, optional): the mean. Default: 0.0.
        std (float, optional): the standard deviation. Default: 1.0.
        generator (Generator, optional): the random number generator.

    Example::

        >>> x = torch.empty(2, 3).normal_(mean=5.0, std=0.0)
        >>> x
        tensor([[5., 5., 5.],
                [5., 5., 5.]])
    """,
    "numel": """Returns the number of elements. Alias: `nelement`.

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).numel()
        6
    """,
    "numpy": """Returns the tensor's data as a NumPy array sharing its memory.

    Args:
        force (bool): detach (and copy to the host) first; without it, a tensor that
            requires grad raises a RuntimeError, as in PyTorch. Default: False.

    Example::

        >>> torch.tensor([1., 2.]).numpy()
        array([1., 2.], dtype=float32)
    """,
    "outer": """Returns the outer product with a 1-D tensor; see `nbgrad.outer`.

    Example::

        >>> torch.tensor([1., 2.]).outer(torch.tensor([3., 4.]))
        tensor([[3., 4.],
                [6., 8.]])
    """,
    "permute": """Returns a view with the dimensions reordered; see `nbgrad.permute`.

    Args:
        *dims (ints or a tuple of ints): the new order of the dimensions.

    Example::

        >>> torch.zeros(2, 3, 4).permute(1, 2, 0).shape
        nbgrad.Size([3, 4, 2])
    """,
    "pow": """Elementwise `pow` of this tensor and `exponent`; see `nbgrad.pow`.

    Example::

        >>> torch.tensor([1., 4.]).pow(torch.tensor([0.5, 2.]))
        tensor([ 1., 16.])
    """,
    "pow_": """In-place `pow`: writes `self.pow(...)` into this tensor and returns it.

    Example::

        >>> x = torch.tensor([1., 4.])
        >>> x.pow_(torch.tensor([0.5, 2.]))
        tensor([ 1., 16.])
        >>> x
        tensor([ 1., 16.])
    """,
    "prod": """Returns the product of the elements; see `nbgrad.prod`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).prod(0)
        tensor([4., 0., 6.])
    """,
    "random_": """Fills this tensor with integers drawn uniformly from `[from_, to - 1]`.

    With only `from_` given, draws from `[0, from_ - 1]`.

    Args:
        from_ (int, optional): the lowest value. Default: 0.
        to (int, optional): one above the highest value. Default: the dtype's largest integer + 1.
        generator (Generator, optional): the random number generator.

    Example::

        >>> x = torch.empty(100).random_(3, 5)
        >>> bool(((x == 3) | (x == 4)).all())
        True
    """,
    "reciprocal": """Returns the reciprocal, `1 / x`, of each element; see `nbgrad.reciprocal`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).reciprocal()
        tensor([2.0000, 1.0000, 0.5000])
    """,
    "reciprocal_": """In-place version of :meth:`reciprocal`.

    Example::

        >>> x = torch.tensor([0.5, 2.0, 4.0])
        >>> x.reciprocal_()
        tensor([2.0000, 0.5000, 0.2500])
        >>> x
        tensor([2.0000, 0.5000, 0.2500])
    """,
    "relu": """Returns the rectified linear unit, `max(0, x)`, of each element; see `nbgrad.relu`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).relu()
        tensor([0.0000, 0.2000, 2.7000])
    """,
    "relu_": """In-place version of :meth:`relu`.

    Example::

        >>> x = torch.tensor([-1.5, 0.0, 2.7])
        >>> x.relu_()
        tensor([0.0000, 0.0000, 2.7000])
        >>> x
        tensor([0.0000, 0.0000, 2.7000])
    """,
    "remainder": """Returns the elementwise remainder of division by `other`, with the sign of
    `other` (Python's `%`); see `nbgrad.remainder`.

    Example::

        >>> torch.tensor([-3., -1.5, 2.5, 5.]).remainder(2)
        tensor([1.0000, 0.5000, 0.5000, 1.0000])
    """,
    "remainder_": """In-place version of :meth:`remainder`.

    Example::

        >>> x = torch.tensor([-3., -1.5, 2.5, 5.])
        >>> x.remainder_(-2)
        tensor([-1.0000, -1.5000, -1.5000, -1.0000])
        >>> x
        tensor([-1.0000, -1.5000, -1.5000, -1.0000])
    """,
    "repeat": """Repeats the tensor along each dimension (`sizes` has at least as many entries as
    the tensor has dimensions).

    Args:
        *sizes (ints or a tuple of ints): repetitions per dimension.

    Example::

        >>> torch.tensor([1., 2.]).repeat(2, 2)
        tensor([[1., 2., 1., 2.],
                [1., 2., 1., 2.]])
    """,
    "requires_grad": """Whether autograd records operations on this tensor (settable on leaves).

    Example::

        >>> x = torch.tensor([1.])
        >>> x.requires_grad
        False
        >>> x.requires_grad = True
        >>> (x * 2).requires_grad
        True
    """,
    "requires_grad_": """Sets `requires_grad` in place (on a leaf) and returns this tensor.

    Args:
        requires_grad (bool): the new value. Default: True.

    Example::

        >>> torch.tensor([1., 2.]).requires_grad_()
        tensor([1., 2.], requires_grad=True)
    """,
    "reshape": """Returns the tensor in a new shape (a view when possible); see `nbgrad.reshape`.

    Example::

        >>> torch.arange(6.).reshape(3, 2)
        tensor([[0., 1.],
                [2., 3.],
                [4., 5.]])
    """,
    "reshape_as": """Returns this tensor reshaped to the shape of `other`.

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> torch.arange(4.).reshape_as(torch.zeros(2, 2))
        tensor([[0., 1.],
                [2., 3.]])
    """,
    "retain_grad": """Makes a non-leaf tensor keep its `.grad` after `backward()`.

    Example::

        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> y = x * 2
        >>> y.retain_grad()
        >>> y.sum().backward()
        >>> y.grad
        tensor([1., 1.])
    """,
    "retains_grad": """True if this non-leaf tensor keeps its `.grad` (see `retain_grad`).

    Example::

        >>> x = torch.tensor([1.], requires_grad=True)
        >>> y = x * 2
        >>> y.retain_grad()
        >>> y.retains_grad
        True
    """,
    "round": """Returns each element rounded to the nearest integer (or to `decimals` places); see
    `nbgrad.round`.

    Example::

        >>> torch.tensor([0.5, 1.5, -2.7]).round()
        tensor([ 0.,  2., -3.])
    """,
    "round_": """In-place version of :meth:`round`.

    Example::

        >>> x = torch.tensor([0.5, 1.5, 2.567])
        >>> x.round_()
        tensor([0., 2., 3.])
        >>> y = torch.tensor([0.5, 1.5, 2.567])
        >>> y.round_(decimals=1)
        tensor([0.5000, 1.5000, 2.6000])
    """,
    "rsqrt": """Returns the reciprocal of the square root of each element; see `nbgrad.rsqrt`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).rsqrt()
        tensor([1.4142, 1.0000, 0.7071])
    """,
    "rsqrt_": """In-place version of :meth:`rsqrt`.

    Example::

        >>> x = torch.tensor([0.25, 1.0, 4.0])
        >>> x.rsqrt_()
        tensor([2.0000, 1.0000, 0.5000])
        >>> x
        tensor([2.0000, 1.0000, 0.5000])
    """,
    "scatter_add": """Out-of-place `scatter_add_`; see `nbgrad.scatter_add`.

    Example::

        >>> torch.zeros(2).scatter_add(0, torch.tensor([1, 1]), torch.tensor([1., 2.]))
        tensor([0., 3.])
    """,
    "scatter_add_": """Adds the values of `src` into this tensor at the positions in `index` along
    `dim`, in place; see `nbgrad.scatter_add`.

    Example::

        >>> x = torch.zeros(3)
        >>> x.scatter_add_(0, torch.tensor([2, 2]), torch.tensor([1., 2.]))
        tensor([0., 0., 3.])
    """,
    "shape": """The size of each dimension, as an `nbgrad.Size` (a tuple).

    Example::

        >>> torch.tensor([[1., 2., 3.], [4., 5., 6.]]).shape
        nbgrad.Size([2, 3])
    """,
    "sigmoid": """Returns the logistic sigmoid, `1 / (1 + exp(-x))`, of each element; see
    `nbgrad.sigmoid`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).sigmoid()
        tensor([0.1824, 0.5498, 0.9370])
    """,
    "sigmoid_": """In-place version of :meth:`sigmoid`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 2.0])
        >>> x.sigmoid_()
        tensor([0.2689, 0.5000, 0.8808])
        >>> x
        tensor([0.2689, 0.5000, 0.8808])
    """,
    "sign": """Returns the sign (-1, 0 or 1) of each element; see `nbgrad.sign`.

    Example::

        >>> torch.tensor([-1.5, 0.0, 2.7]).sign()
        tensor([-1.,  0.,  1.])
    """,
    "sign_": """In-place version of :meth:`sign`.

    Example::

        >>> x = torch.tensor([-1.5, 0.0, 2.7])
        >>> x.sign_()
        tensor([-1.,  0.,  1.])
        >>> x
        tensor([-1.,  0.,  1.])
    """,
    "sin": """Returns the sine of each element; see `nbgrad.sin`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).sin()
        tensor([0.4794, 0.8415, 0.9093])
    """,
    "sin_": """In-place version of :meth:`sin`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 2.0])
        >>> x.sin_()
        tensor([0.4794, 0.8415, 0.9093])
        >>> x
        tensor([0.4794, 0.8415, 0.9093])
    """,
    "sinh": """Returns the hyperbolic sine of each element; see `nbgrad.sinh`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).sinh()
        tensor([0.5211, 1.1752, 3.6269])
    """,
    "sinh_": """In-place version of :meth:`sinh`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 2.0])
        >>> x.sinh_()
        tensor([0.5211, 1.1752, 3.6269])
        >>> x
        tensor([0.5211, 1.1752, 3.6269])
    """,
    "size": """Returns the shape of the tensor (an `nbgrad.Size`), or the size of dimension `dim`.

    Args:
        dim (int, optional): the dimension.

    Example::

        >>> x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> x.size()
        nbgrad.Size([2, 3])
        >>> x.size(-1)
        3
    """,
    "softmax": """Softmax along `dim`; see `nbgrad.softmax`.

    Example::

        >>> torch.tensor([0., 0.]).softmax(0)
        tensor([0.5000, 0.5000])
    """,
    "split": """Splits the tensor into chunks along `dim`; see `nbgrad.split`.

    Example::

        >>> torch.arange(4.).split(3)
        (tensor([0., 1., 2.]), tensor([3.]))
    """,
    "sqrt": """Returns the square root of each element; see `nbgrad.sqrt`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).sqrt()
        tensor([0.7071, 1.0000, 1.4142])
    """,
    "sqrt_": """In-place version of :meth:`sqrt`.

    Example::

        >>> x = torch.tensor([0.25, 1.0, 4.0])
        >>> x.sqrt_()
        tensor([0.5000, 1.0000, 2.0000])
        >>> x
        tensor([0.5000, 1.0000, 2.0000])
    """,
    "square": """Returns the square of each element; see `nbgrad.square`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).square()
        tensor([2.2500, 0.0400, 7.2900])
    """,
    "square_": """In-place version of :meth:`square`.

    Example::

        >>> x = torch.tensor([-1.5, 0.5, 2.0])
        >>> x.square_()
        tensor([2.2500, 0.2500, 4.0000])
        >>> x
        tensor([2.2500, 0.2500, 4.0000])
    """,
    "squeeze": """Returns a view without dimensions of size one; see `nbgrad.squeeze`.

    Example::

        >>> torch.zeros(1, 3, 1).squeeze().shape
        nbgrad.Size([3])
    """,
    "std": """Returns the standard deviation of the elements; see `nbgrad.std`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).std(1)
        tensor([2.0817, 2.0817])
    """,
    "sub": """Elementwise `sub` of this tensor and `other`; see `nbgrad.sub`.

    Example::

        >>> torch.tensor([1., 4.]).sub(1.5)
        tensor([-0.5000,  2.5000])
    """,
    "sub_": """In-place `sub`: writes `self.sub(...)` into this tensor and returns it.

    Example::

        >>> x = torch.tensor([1., 4.])
        >>> x.sub_(1.5)
        tensor([-0.5000,  2.5000])
        >>> x
        tensor([-0.5000,  2.5000])
    """,
    "subtract": """Elementwise `sub` of this tensor and `other`; see `nbgrad.sub`.

    Example::

        >>> torch.tensor([1., 4.]).sub(1.5)
        tensor([-0.5000,  2.5000])
    """,
    "t": """Transposes a tensor of at most 2 dimensions; see `nbgrad.t`.

    Example::

        >>> torch.tensor([[1., 2., 3.]]).t().shape
        nbgrad.Size([3, 1])
    """,
    "take_along_dim": """Takes values at `indices` along `dim`; see `nbgrad.take_along_dim`.

    Example::

        >>> torch.tensor([3., 1., 2.]).take_along_dim(torch.tensor([1, 2, 0]))
        tensor([1., 2., 3.])
    """,
    "tan": """Returns the tangent of each element; see `nbgrad.tan`.

    Example::

        >>> torch.tensor([0.5, 1.0, 2.0]).tan()
        tensor([ 0.5463,  1.5574, -2.1850])
    """,
    "tan_": """In-place version of :meth:`tan`.

    Example::

        >>> x = torch.tensor([0.5, 1.0, 2.0])
        >>> x.tan_()
        tensor([ 0.5463,  1.5574, -2.1850])
        >>> x
        tensor([ 0.5463,  1.5574, -2.1850])
    """,
    "tanh": """Returns the hyperbolic tangent of each element; see `nbgrad.tanh`.

    Example::

        >>> torch.tensor([-1.5, 0.2, 2.7]).tanh()
        tensor([-0.9051,  0.1974,  0.9910])
    """,
    "tanh_": """In-place version of :meth:`tanh`.

    Example::

        >>> x = torch.tensor([-1.0, 0.0, 2.0])
        >>> x.tanh_()
        tensor([-0.7616,  0.0000,  0.9640])
        >>> x
        tensor([-0.7616,  0.0000,  0.9640])
    """,
    "tile": """Repeats the tensor along each dimension; see `nbgrad.tile`.

    Example::

        >>> torch.tensor([1., 2.]).tile(2)
        tensor([1., 2., 1., 2.])
    """,
    "to": """Returns the tensor with the given dtype and/or on the given device (this tensor if
    nothing changes).

    Args:
        dtype (nbgrad.dtype, optional): the dtype.
        device (str or nbgrad.device, optional): the device.
        other (Tensor, optional): take dtype and device from this tensor.

    Example::

        >>> torch.tensor([1.5, 2.5]).to(torch.float64)
        tensor([1.5000, 2.5000], dtype=nbgrad.float64)
        >>> torch.tensor([1.5]).to("cpu", torch.int64)
        tensor([1])
    """,
    "tolist": """Returns the tensor as a (nested) list of Python numbers.

    Example::

        >>> torch.tensor([[1, 2], [3, 4]]).tolist()
        [[1, 2], [3, 4]]
    """,
    "transpose": """Returns a view with dimensions `dim0` and `dim1` swapped; see
    `nbgrad.transpose`.

    Example::

        >>> torch.zeros(2, 3, 4).transpose(0, 2).shape
        nbgrad.Size([4, 3, 2])
    """,
    "true_divide": """Elementwise `div` of this tensor and `other`; see `nbgrad.div`.

    Example::

        >>> torch.tensor([1., 4.]).div(2)
        tensor([0.5000, 2.0000])
    """,
    "type": """Returns the type name (without `dtype`) or the tensor cast to `dtype`.

    Args:
        dtype (nbgrad.dtype or str, optional): the target dtype.

    Example::

        >>> x = torch.tensor([1.5])
        >>> x.type(torch.float64).dtype
        nbgrad.float64
    """,
    "type_as": """Returns this tensor cast to the dtype of `other` (itself if it already has it).

    Args:
        other (Tensor): the tensor whose dtype to take.

    Example::

        >>> torch.tensor([1.7, -2.2]).type_as(torch.tensor([1]))
        tensor([ 1, -2])
    """,
    "unbind": """Returns the tuple of slices along `dim`; see `nbgrad.unbind`.

    Example::

        >>> torch.tensor([[1., 2.], [3., 4.]]).unbind()
        (tensor([1., 2.]), tensor([3., 4.]))
    """,
    "uniform_": """Fills this tensor with draws from the uniform distribution on `[from_, to)`.

    Args:
        from_ (float, optional): the lower bound. Default: 0.0.
        to (float, optional): the upper bound. Default: 1.0.
        generator (Generator, optional): the random number generator.

    Example::

        >>> x = torch.empty(1000).uniform_(-2, 3)
        >>> bool(((x >= -2) & (x < 3)).all())
        True
        >>> x.dtype
        nbgrad.float32
    """,
    "unsqueeze": """Returns a view with a dimension of size one inserted at `dim`; see
    `nbgrad.unsqueeze`.

    Example::

        >>> torch.tensor([1., 2.]).unsqueeze(-1).shape
        nbgrad.Size([2, 1])
    """,
    "var": """Returns the variance of the elements; see `nbgrad.var`.

    Example::

        >>> torch.tensor([[1., 5., 2.], [4., 0., 3.]]).var(1)
        tensor([4.3333, 4.3333])
    """,
    "view_as": """Returns a view of this tensor with the shape of `other` (see `Tensor.view`).

    Args:
        other (Tensor): the tensor whose shape to take.

    Example::

        >>> torch.arange(4.).view_as(torch.zeros(2, 2))
        tensor([[0., 1.],
                [2., 3.]])
    """,
    "where": """`nbgrad.where(condition, self, other)`.

    Example::

        >>> x = torch.tensor([-1., 2.])
        >>> x.where(x > 0, torch.tensor(0.))
        tensor([0., 2.])
    """,
    "zero_": """Fills this tensor with zeros, in place.

    Example::

        >>> torch.ones(2).zero_()
        tensor([0., 0.])
    """,
    "register_hook": """Registers a hook called with this tensor's gradient each time it is
    computed; if the hook returns a tensor, that replaces the gradient. Returns a handle whose
    `remove()` unregisters it.

    Args:
        hook (callable): `hook(grad) -> Tensor or None`.

    Example::

        >>> x = torch.tensor([1., 2.], requires_grad=True)
        >>> h = x.register_hook(lambda grad: grad * 10)
        >>> x.sum().backward()
        >>> x.grad
        tensor([10., 10.])
        >>> h.remove()
    """,
    "register_post_accumulate_grad_hook": """Registers a hook called with this leaf tensor after a
    backward pass has accumulated into its `.grad`. Returns a handle whose `remove()` unregisters
    it.

    Args:
        hook (callable): `hook(tensor) -> None`.

    Example::

        >>> w = torch.tensor([1., 2.], requires_grad=True)
        >>> seen = []
        >>> h = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        >>> (w * 3).sum().backward()
        >>> seen
        [[3.0, 3.0]]
    """,
}
