"""Docstrings of `nbgrad.nn.init` (keys are the function names); outputs are PyTorch's."""

DOCS = {
    "calculate_gain": """Returns the recommended gain for a nonlinearity (used by the xavier and
    kaiming initialisers).

    Args:
        nonlinearity (str): `"linear"`, `"conv2d"`, `"sigmoid"`, `"tanh"`, `"relu"`,
            `"leaky_relu"`, `"selu"`, ...
        param (float, optional): the negative slope of `"leaky_relu"`. Default: 0.01.

    Example::

        >>> torch.nn.init.calculate_gain("relu")
        1.4142135623730951
        >>> torch.nn.init.calculate_gain("tanh")
        1.6666666666666667
    """,
    "constant_": """Fills the tensor with `val`, in place (not recorded by autograd).

    Args:
        tensor (Tensor): the tensor to fill.
        val (float): the value.

    Example::

        >>> w = torch.empty(2, 3)
        >>> torch.nn.init.constant_(w, 0.3)
        tensor([[0.3000, 0.3000, 0.3000],
                [0.3000, 0.3000, 0.3000]])
    """,
    "eye_": """Fills a 2-D tensor with the identity matrix, in place.

    Args:
        tensor (Tensor): the tensor to fill (2-D).

    Example::

        >>> w = torch.empty(2, 3)
        >>> torch.nn.init.eye_(w)
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """,
    "kaiming_normal_": """He initialisation: N(0, std^2) with `std = gain / sqrt(fan_mode)`, in
    place.

    Args:
        tensor (Tensor): the tensor to fill.
        a (float): the negative slope of leaky_relu. Default: 0.
        mode (str): `"fan_in"` or `"fan_out"`. Default: `"fan_in"`.
        nonlinearity (str): `"relu"` or `"leaky_relu"`. Default: `"leaky_relu"`.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.kaiming_normal_(w)
        >>> w.shape
        nbgrad.Size([3, 5])
    """,
    "kaiming_uniform_": """He initialisation: U(-b, b) with `b = gain * sqrt(3 / fan_mode)`, in
    place.

    Args:
        tensor (Tensor): the tensor to fill.
        a (float): the negative slope of leaky_relu. Default: 0.
        mode (str): `"fan_in"` or `"fan_out"`. Default: `"fan_in"`.
        nonlinearity (str): `"relu"` or `"leaky_relu"`. Default: `"leaky_relu"`.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.kaiming_uniform_(w)
        >>> w.shape
        nbgrad.Size([3, 5])
    """,
    "normal_": """Fills the tensor with values from the normal distribution N(mean, std^2), in
    place.

    Args:
        tensor (Tensor): the tensor to fill.
        mean (float): Default: 0.
        std (float): Default: 1.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.normal_(w)
        >>> w.shape
        nbgrad.Size([3, 5])
    """,
    "ones_": """Fills the tensor with ones, in place.

    Args:
        tensor (Tensor): the tensor to fill.

    Example::

        >>> w = torch.empty(2, 3)
        >>> torch.nn.init.ones_(w)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """,
    "trunc_normal_": """Fills the tensor with values from N(mean, std^2) truncated to [a, b], in
    place.

    Args:
        tensor (Tensor): the tensor to fill.
        mean (float): Default: 0.
        std (float): Default: 1.
        a (float): the lower cutoff. Default: -2.
        b (float): the upper cutoff. Default: 2.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.trunc_normal_(w)
        >>> bool((w >= -2).min()) and bool((w <= 2).min())
        True
    """,
    "uniform_": """Fills the tensor with values from the uniform distribution U(a, b), in place.

    Args:
        tensor (Tensor): the tensor to fill.
        a (float): the lower bound. Default: 0.
        b (float): the upper bound. Default: 1.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.uniform_(w, a=-1., b=1.)
        >>> bool((w >= -1).min()) and bool((w < 1).min())
        True
    """,
    "xavier_normal_": """Glorot initialisation: N(0, std^2) with `std = gain * sqrt(2 / (fan_in +
    fan_out))`, in place.

    Args:
        tensor (Tensor): the tensor to fill.
        gain (float): Default: 1.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.xavier_normal_(w)
        >>> w.shape
        nbgrad.Size([3, 5])
    """,
    "xavier_uniform_": """Glorot initialisation: U(-b, b) with `b = gain * sqrt(6 / (fan_in +
    fan_out))`, in place.

    Args:
        tensor (Tensor): the tensor to fill.
        gain (float): Default: 1.
        generator: accepted; nbgrad's global generator is used.

    Example::

        >>> w = torch.empty(3, 5)
        >>> _ = torch.nn.init.xavier_uniform_(w)
        >>> w.shape
        nbgrad.Size([3, 5])
    """,
    "zeros_": """Fills the tensor with zeros, in place.

    Args:
        tensor (Tensor): the tensor to fill.

    Example::

        >>> w = torch.empty(2, 3)
        >>> torch.nn.init.zeros_(w)
        tensor([[0., 0., 0.],
                [0., 0., 0.]])
    """,
}
