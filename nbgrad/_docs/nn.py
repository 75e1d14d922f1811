"""Docstrings of the layers in `nbgrad.nn` (keys are their names).

The examples use `import nbgrad as torch` and `from nbgrad import nn`; their outputs are
PyTorch's.
"""

DOCS = {
    "AdaptiveAvgPool1d": """Applies a 1-D mean pooling whose windows are chosen to give the output
    size `output_size`.

    Args:
        output_size (int or tuple): the spatial size of the output (None keeps a dimension).

    Shape:
        Input `(N, C, *)` or `(C, *)`; output `(N, C, *output_size)`.

    Example::

        >>> nn.AdaptiveAvgPool1d(2)(torch.arange(6.).reshape(1, 1, 6))
        tensor([[[1., 4.]]])
    """,
    "AdaptiveAvgPool2d": """Applies a 2-D mean pooling whose windows are chosen to give the output
    size `output_size`.

    Args:
        output_size (int or tuple): the spatial size of the output (None keeps a dimension).

    Shape:
        Input `(N, C, *)` or `(C, *)`; output `(N, C, *output_size)`.

    Example::

        >>> nn.AdaptiveAvgPool2d((2, 2))(torch.arange(16.).reshape(1, 1, 4, 4))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """,
    "AdaptiveMaxPool1d": """Applies a 1-D maximum pooling whose windows are chosen to give the
    output size `output_size`.

    Args:
        output_size (int or tuple): the spatial size of the output (None keeps a dimension).
        return_indices (bool): also return the argmax positions. Default: False.

    Shape:
        Input `(N, C, *)` or `(C, *)`; output `(N, C, *output_size)`.

    Example::

        >>> nn.AdaptiveMaxPool1d(2)(torch.arange(6.).reshape(1, 1, 6))
        tensor([[[2., 5.]]])
    """,
    "AdaptiveMaxPool2d": """Applies a 2-D maximum pooling whose windows are chosen to give the
    output size `output_size`.

    Args:
        output_size (int or tuple): the spatial size of the output (None keeps a dimension).
        return_indices (bool): also return the argmax positions. Default: False.

    Shape:
        Input `(N, C, *)` or `(C, *)`; output `(N, C, *output_size)`.

    Example::

        >>> nn.AdaptiveMaxPool2d((2, 2))(torch.arange(16.).reshape(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """,
    "AvgPool1d": """Applies a 1-D mean pooling over windows of the input.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the window step. Default: kernel_size.
        padding (int or tuple): implicit padding on both sides. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding in the mean's divisor. Default: True.

    Shape:
        Input `(N, C, L)` or without N; output with each spatial size
        `floor((L + 2 * padding - kernel_size) / stride) + 1` (with dilation 1).

    Example::

        >>> nn.AvgPool1d(2)(torch.arange(8.).reshape(1, 1, 8))
        tensor([[[0.5000, 2.5000, 4.5000, 6.5000]]])
    """,
    "AvgPool2d": """Applies a 2-D mean pooling over windows of the input.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the window step. Default: kernel_size.
        padding (int or tuple): implicit padding on both sides. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding in the mean's divisor. Default: True.

    Shape:
        Input `(N, C, H, W)` or without N; output with each spatial size
        `floor((L + 2 * padding - kernel_size) / stride) + 1` (with dilation 1).

    Example::

        >>> nn.AvgPool2d(2)(torch.arange(16.).reshape(1, 1, 4, 4))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """,
    "BCELoss": """Binary cross-entropy between probabilities (the input) and targets in [0, 1].

    Args:
        weight (Tensor, optional): a weight per element, broadcast with the input.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.binary_cross_entropy`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.BCELoss()
        >>> loss(torch.tensor([0.9, 0.2]), torch.tensor([1., 0.]))
        tensor(0.1643)
    """,
    "BCEWithLogitsLoss": """Binary cross-entropy on logits: a sigmoid and `BCELoss` in one, computed
    stably.

    Args:
        weight (Tensor, optional): a weight per element, broadcast with the input.
        pos_weight (Tensor, optional): a weight of the positive examples, per class.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.binary_cross_entropy_with_logits`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.BCEWithLogitsLoss()
        >>> loss(torch.tensor([2., -1.]), torch.tensor([1., 0.]))
        tensor(0.2201)
    """,
    "BatchNorm1d": """Batch normalisation: in training, normalises each channel with the batch's
    mean and (biased) variance and updates running estimates; in evaluation mode, uses the running
    estimates. Then applies a per-channel affine transform.

    Args:
        num_features (int): the number of channels C.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): the weight of the new batch in the running estimates
            (None: a cumulative average). Default: 0.1.
        affine (bool): learn per-channel `weight` and `bias`. Default: True.
        track_running_stats (bool): keep running estimates (else always use the batch's).
            Default: True.

    Shape:
        Input `(N, C)` or `(N, C, L)`; output the same shape.

    Example::

        >>> m = nn.BatchNorm1d(2)
        >>> y = m(torch.tensor([[1., 2.], [3., 6.]]))
        >>> y.detach()
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
        >>> m.running_mean
        tensor([0.2000, 0.4000])
    """,
    "BatchNorm2d": """Batch normalisation: in training, normalises each channel with the batch's
    mean and (biased) variance and updates running estimates; in evaluation mode, uses the running
    estimates. Then applies a per-channel affine transform.

    Args:
        num_features (int): the number of channels C.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float or None): the weight of the new batch in the running estimates
            (None: a cumulative average). Default: 0.1.
        affine (bool): learn per-channel `weight` and `bias`. Default: True.
        track_running_stats (bool): keep running estimates (else always use the batch's).
            Default: True.

    Shape:
        Input `(N, C, H, W)`; output the same shape.

    Example::

        >>> m = nn.BatchNorm2d(2)
        >>> y = m(torch.arange(16.).reshape(2, 2, 2, 2))
        >>> y.shape
        nbgrad.Size([2, 2, 2, 2])
        >>> m.running_mean
        tensor([0.5500, 0.9500])
    """,
    "Conv1d": """Applies a 1-D convolution (cross-correlation, as in PyTorch) over an input of
    several channels.

    `L_out = floor((L + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1` in each
    spatial dimension.

    Args:
        in_channels (int): the channels of the input, C_in.
        out_channels (int): the channels of the output, C_out.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: 1.
        padding (int, tuple or str): implicit padding on both sides, or `"valid"` / `"same"`.
            Default: 0.
        dilation (int or tuple): the spacing between kernel elements. Default: 1.
        groups (int): the number of blocked connections from input to output channels.
            Default: 1.
        bias (bool): learn a bias per output channel. Default: True.
        padding_mode (str): `"zeros"`, `"reflect"`, `"replicate"` or `"circular"`.
            Default: `"zeros"`.

    Shape:
        Input `(N, C_in, L)`; output `(N, C_out, L_out)`; also without the batch dimension.

    Example::

        >>> m = nn.Conv1d(3, 8, kernel_size=3, stride=2, padding=1)
        >>> m(torch.randn(4, 3, 10)).shape
        nbgrad.Size([4, 8, 5])
        >>> m.weight.shape
        nbgrad.Size([8, 3, 3])
    """,
    "Conv2d": """Applies a 2-D convolution (cross-correlation, as in PyTorch) over an input of
    several channels.

    `L_out = floor((L + 2 * padding - dilation * (kernel_size - 1) - 1) / stride) + 1` in each
    spatial dimension.

    Args:
        in_channels (int): the channels of the input, C_in.
        out_channels (int): the channels of the output, C_out.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step of the kernel. Default: 1.
        padding (int, tuple or str): implicit padding on both sides, or `"valid"` / `"same"`.
            Default: 0.
        dilation (int or tuple): the spacing between kernel elements. Default: 1.
        groups (int): the number of blocked connections from input to output channels.
            Default: 1.
        bias (bool): learn a bias per output channel. Default: True.
        padding_mode (str): `"zeros"`, `"reflect"`, `"replicate"` or `"circular"`.
            Default: `"zeros"`.

    Shape:
        Input `(N, C_in, H, W)`; output `(N, C_out, H_out, W_out)`; also without the batch
        dimension.

    Example::

        >>> m = nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1)
        >>> m(torch.randn(4, 3, 10, 10)).shape
        nbgrad.Size([4, 8, 5, 5])
        >>> m.weight.shape
        nbgrad.Size([8, 3, 3, 3])
    """,
    "ConvTranspose1d": """Applies a 1-D transposed convolution (the gradient of `Conv1d` with
    respect to its input), often used to upsample.

    `L_out = (L - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1`
    in each spatial dimension.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step. Default: 1.
        padding (int or tuple): removes `dilation * (kernel_size - 1) - padding` zero
            padding. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): blocked connections. Default: 1.
        bias (bool): learn a bias per output channel. Default: True.
        dilation (int or tuple): the spacing between kernel elements. Default: 1.

    Shape:
        Input `(N, C_in, *)`; output `(N, C_out, *)`.

    Example::

        >>> m = nn.ConvTranspose1d(8, 3, kernel_size=3, stride=2, padding=1, output_padding=1)
        >>> m(torch.randn(4, 8, 5)).shape
        nbgrad.Size([4, 3, 10])
    """,
    "ConvTranspose2d": """Applies a 2-D transposed convolution (the gradient of `Conv2d` with
    respect to its input), often used to upsample.

    `L_out = (L - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1`
    in each spatial dimension.

    Args:
        in_channels (int): the channels of the input.
        out_channels (int): the channels of the output.
        kernel_size (int or tuple): the size of the kernel.
        stride (int or tuple): the step. Default: 1.
        padding (int or tuple): removes `dilation * (kernel_size - 1) - padding` zero
            padding. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): blocked connections. Default: 1.
        bias (bool): learn a bias per output channel. Default: True.
        dilation (int or tuple): the spacing between kernel elements. Default: 1.

    Shape:
        Input `(N, C_in, *)`; output `(N, C_out, *)`.

    Example::

        >>> m = nn.ConvTranspose2d(8, 3, kernel_size=3, stride=2, padding=1, output_padding=1)
        >>> m(torch.randn(4, 8, 5, 5)).shape
        nbgrad.Size([4, 3, 10, 10])
    """,
    "CosineEmbeddingLoss": """Loss for pairs labelled similar (1) or dissimilar (-1): `1 - cos(x1,
    x2)`, or `max(0, cos(x1, x2) - margin)`.

    Args:
        margin (float): in [-1, 1]. Default: 0.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.cosine_embedding_loss`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.CosineEmbeddingLoss()
        >>> x1, x2 = torch.tensor([[1., 0.], [1., 1.]]), torch.tensor([[1., 1.], [-1., 0.]])
        >>> loss(x1, x2, torch.tensor([1, -1]))
        tensor(0.1464)
    """,
    "CosineSimilarity": """Returns the cosine similarity of `x1` and `x2` along `dim`.

    Args:
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): a lower bound of the norms. Default: 1e-8.

    Shape:
        Inputs `(*, D, *)` (broadcast); output without dimension `dim`.

    Example::

        >>> x1, x2 = torch.tensor([[1., 0.], [1., 1.]]), torch.tensor([[1., 1.], [-1., -1.]])
        >>> nn.CosineSimilarity(dim=1)(x1, x2)
        tensor([ 0.7071, -1.0000])
    """,
    "CrossEntropyLoss": """Cross-entropy between logits and target classes (or class probabilities):
    `LogSoftmax` and `NLLLoss` in one.

    Args:
        weight (Tensor, optional): a weight per class, of shape `(C,)`.
        ignore_index (int): a target that contributes neither loss nor gradient. Default: -100.
        label_smoothing (float): mixes the target with the uniform distribution. Default: 0.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.cross_entropy`; the output is a scalar unless `reduction="none"`.

    Example::

        >>> loss = nn.CrossEntropyLoss()
        >>> loss(torch.tensor([[2., 0., 0.], [0., 0., 3.]]), torch.tensor([0, 2]))
        tensor(0.1672)
    """,
    "Dropout": """During training, zeroes each element with probability `p` and scales the others by
    `1 / (1 - p)`; in evaluation mode (`module.eval()`), the identity.

    Args:
        p (float): the probability of zeroing an element. Default: 0.5.
        inplace (bool): accepted; computed out of place. Default: False.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.Dropout(p=0.5)
        >>> y = m(torch.ones(1000))
        >>> sorted(set(y.tolist()))
        [0.0, 2.0]
        >>> m.eval()(torch.ones(3))
        tensor([1., 1., 1.])
    """,
    "Dropout1d": """During training, zeroes whole channels with probability `p` (and scales the
    others by `1 / (1 - p)`); in evaluation mode, the identity.

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): accepted; computed out of place. Default: False.

    Shape:
        Input `(N, C, L)` or `(C, L)`; output the same shape.

    Example::

        >>> nn.Dropout1d(p=0.5)(torch.ones(2, 4, 6)).shape
        nbgrad.Size([2, 4, 6])
    """,
    "Dropout2d": """During training, zeroes whole channels with probability `p` (and scales the
    others by `1 / (1 - p)`); in evaluation mode, the identity.

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): accepted; computed out of place. Default: False.

    Shape:
        Input `(N, C, H, W)` or `(C, H, W)`; output the same shape.

    Example::

        >>> nn.Dropout2d(p=0.5)(torch.ones(2, 4, 3, 3)).shape
        nbgrad.Size([2, 4, 3, 3])
    """,
    "ELU": """Applies the exponential linear unit elementwise: `x` if `x > 0`, else `alpha * (exp(x)
    - 1)`.

    Args:
        alpha (float): the scale of the negative part. Default: 1.0.
        inplace (bool): accepted; computed out of place. Default: False.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.ELU(alpha=0.5)
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([-0.4323,  0.0000,  1.5000])
    """,
    "Embedding": """A lookup table of `num_embeddings` vectors of size `embedding_dim`, indexed by
    integer tensors.

    Args:
        num_embeddings (int): the size of the table.
        embedding_dim (int): the size of each vector.
        padding_idx (int, optional): this entry gets no gradient (and starts at zero).
        max_norm (float, optional): rows looked up are renormalised to at most this norm.
        norm_type (float): the p of the max_norm norm. Default: 2.
        scale_grad_by_freq (bool): scale gradients by the inverse frequency in the batch.
        sparse (bool): accepted; gradients are dense.

    Shape:
        Input `(*)` of int64 indices; output `(*, embedding_dim)`.

    Example::

        >>> emb = nn.Embedding(10, 3)
        >>> emb(torch.tensor([[1, 2], [4, 9]])).shape
        nbgrad.Size([2, 2, 3])
    """,
    "EmbeddingBag": """Sums, averages or takes the maximum of bags of embeddings, without building
    the intermediate embeddings.

    Args:
        num_embeddings (int): the size of the table.
        embedding_dim (int): the size of each vector.
        mode (str): `"sum"`, `"mean"` or `"max"`. Default: `"mean"`.
        include_last_offset (bool): offsets has one more entry, the end. Default: False.
        padding_idx (int, optional): this entry is left out of the bags.

    Shape:
        Input `(B, N)` (B bags of N indices), or 1-D with `offsets` `(B)`; output
        `(B, embedding_dim)`.

    Example::

        >>> bag = nn.EmbeddingBag(10, 3, mode="sum")
        >>> bag(torch.tensor([1, 2, 4, 5, 4]), torch.tensor([0, 2])).shape
        nbgrad.Size([2, 3])
    """,
    "Flatten": """Flattens the dimensions `start_dim` to `end_dim` into one (by default all but the
    batch dimension).

    Args:
        start_dim (int): the first dimension to flatten. Default: 1.
        end_dim (int): the last dimension to flatten. Default: -1.

    Shape:
        Input `(*, S_start, ..., S_end, *)`; output `(*, S_start * ... * S_end, *)`.

    Example::

        >>> nn.Flatten()(torch.zeros(32, 1, 5, 5)).shape
        nbgrad.Size([32, 25])
    """,
    "GELU": """Applies the Gaussian error linear unit elementwise: `x * Phi(x)`.

    Args:
        approximate (str): `"none"` (exact, with erf) or `"tanh"`. Default: `"none"`.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.GELU()
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([-0.0455,  0.0000,  1.3998])
    """,
    "GRU": """Applies a gated recurrent unit network to a sequence, layer by layer.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): learn biases. Default: True.
        batch_first (bool): input and output are `(N, L, *)` instead of `(L, N, *)`.
            Default: False.
        dropout (float): dropout on the outputs of each layer but the last. Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.

    Shape:
        Input `(L, N, input_size)` (or `(N, L, ...)` with batch_first, or `(L, input_size)`)
        and optionally h_0; returns `(output, h_n)` with output `(L, N, D * hidden_size)` and
        each state `(D * num_layers, N, hidden_size)`, D = 2 if bidirectional else 1.

    Example::

        >>> rnn = nn.GRU(10, 20, num_layers=2)
        >>> output, state = rnn(torch.randn(5, 3, 10))
        >>> output.shape
        nbgrad.Size([5, 3, 20])
    """,
    "GRUCell": """Applies one step of a GRU to a batch of inputs.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn biases. Default: True.

    Shape:
        Input `(N, input_size)` or `(input_size)`, and optionally the state; returns `h_1`,
        each `(N, hidden_size)`.

    Example::

        >>> cell = nn.GRUCell(10, 20)
        >>> out = cell(torch.randn(3, 10))
        >>> out.shape
        nbgrad.Size([3, 20])
    """,
    "GaussianNLLLoss": """Negative log likelihood of a target under Gaussians with the given means
    (input) and variances.

    Args:
        full (bool): add the constant term. Default: False.
        eps (float): clamps the variance from below. Default: 1e-6.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Shape:
        See `nbgrad.nn.functional.gaussian_nll_loss`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.GaussianNLLLoss()
        >>> loss(torch.tensor([0., 1.]), torch.tensor([0.5, 1.]), torch.tensor([1., 2.]))
        tensor(0.2358)
    """,
    "GroupNorm": """Normalises the channels in `num_groups` groups (over each group's channels and
    spatial positions), then applies a per-channel affine transform.

    Args:
        num_groups (int): the number of groups; divides num_channels.
        num_channels (int): the number of channels C.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): learn per-channel `weight` and `bias`. Default: True.

    Shape:
        Input `(N, C, *)`; output the same shape.

    Example::

        >>> m = nn.GroupNorm(2, 4)
        >>> m(torch.arange(16.).reshape(2, 4, 2)).shape
        nbgrad.Size([2, 4, 2])
    """,
    "Identity": """A placeholder layer that returns its input unchanged (its arguments are ignored).

    Example::

        >>> nn.Identity(54, unused="x")(torch.tensor([1., 2.]))
        tensor([1., 2.])
    """,
    "KLDivLoss": """The Kullback-Leibler divergence loss: `target * (log(target) - input)`, with the
    input given as log-probabilities.

    Args:
        log_target (bool): the target is given as log-probabilities too. Default: False.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.kl_div`; the output is a scalar unless `reduction="none"`.

    Example::

        >>> loss = nn.KLDivLoss(reduction="batchmean")
        >>> loss(torch.log(torch.tensor([[0.5, 0.5]])), torch.tensor([[0.9, 0.1]]))
        tensor(0.3681)
    """,
    "L1Loss": """Measures the mean absolute error between each element of the input and the target.

    Args:
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.l1_loss`; the output is a scalar unless `reduction="none"`.

    Example::

        >>> loss = nn.L1Loss()
        >>> loss(torch.tensor([1., 2., 3.]), torch.tensor([1., 0., 5.]))
        tensor(1.3333)
    """,
    "SmoothL1Loss": """Measures the smooth L1 error: `0.5 * d**2 / beta` where `|d| < beta`, else
    `|d| - 0.5 * beta`, for `d = input - target`.

    Args:
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        beta (float): where the loss changes from quadratic to linear. Default: 1.0.

    Example::

        >>> loss = nn.SmoothL1Loss()
        >>> loss(torch.tensor([1., 2., 3.]), torch.tensor([1., 0., 3.5]))
        tensor(0.5417)
    """,
    "HuberLoss": """Measures the Huber error: `0.5 * d**2` where `|d| < delta`, else
    `delta * (|d| - 0.5 * delta)`, for `d = input - target`.

    Args:
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        delta (float): where the loss changes from quadratic to linear. Default: 1.0.

    Example::

        >>> loss = nn.HuberLoss(delta=0.5)
        >>> loss(torch.tensor([1., 2., 3.]), torch.tensor([1., 0., 3.5]))
        tensor(0.3333)
    """,
    "LSTM": """Applies a long short-term memory network to a sequence, layer by layer.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): learn biases. Default: True.
        batch_first (bool): input and output are `(N, L, *)` instead of `(L, N, *)`.
            Default: False.
        dropout (float): dropout on the outputs of each layer but the last. Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.
        proj_size (int): project the hidden state to this size. Default: 0.

    Shape:
        Input `(L, N, input_size)` (or `(N, L, ...)` with batch_first, or `(L, input_size)`)
        and optionally (h_0, c_0); returns `(output, (h_n, c_n))` with output `(L, N, D *
        hidden_size)` and
        each state `(D * num_layers, N, hidden_size)`, D = 2 if bidirectional else 1.

    Example::

        >>> rnn = nn.LSTM(10, 20, num_layers=2)
        >>> output, state = rnn(torch.randn(5, 3, 10))
        >>> output.shape
        nbgrad.Size([5, 3, 20])
    """,
    "LSTMCell": """Applies one step of an LSTM to a batch of inputs.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn biases. Default: True.

    Shape:
        Input `(N, input_size)` or `(input_size)`, and optionally the state; returns `(h_1, c_1)`,
        each `(N, hidden_size)`.

    Example::

        >>> cell = nn.LSTMCell(10, 20)
        >>> out = cell(torch.randn(3, 10))
        >>> out[0].shape
        nbgrad.Size([3, 20])
    """,
    "LayerNorm": """Normalises over the last dimensions (`normalized_shape`) to zero mean and unit
    variance, then applies an elementwise affine transform.

    `y = (x - mean) / sqrt(var + eps) * weight + bias`, with the biased variance.

    Args:
        normalized_shape (int or tuple of ints): the shape of the trailing dimensions.
        eps (float): added to the variance. Default: 1e-5.
        elementwise_affine (bool): learn `weight` (ones) and `bias` (zeros). Default: True.
        bias (bool): learn the bias (with elementwise_affine). Default: True.

    Shape:
        Input `(*, *normalized_shape)`; output the same shape.

    Example::

        >>> m = nn.LayerNorm(3)
        >>> m(torch.tensor([[1., 2., 3.], [2., 2., 2.]])).detach()
        tensor([[-1.2247,  0.0000,  1.2247],
                [ 0.0000,  0.0000,  0.0000]])
    """,
    "LeakyReLU": """Applies the leaky rectified linear unit elementwise: `x` if `x >= 0`, else
    `negative_slope * x`.

    Args:
        negative_slope (float): the slope for negative inputs. Default: 0.01.
        inplace (bool): accepted; computed out of place. Default: False.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.LeakyReLU(0.1)
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([-0.2000,  0.0000,  1.5000])
    """,
    "LogSoftmax": """Applies `log(softmax(x))` along `dim`, computed stably.

    Args:
        dim (int): the dimension to normalise over.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> nn.LogSoftmax(dim=1)(torch.tensor([[1., 2., 3.]]))
        tensor([[-2.4076, -1.4076, -0.4076]])
    """,
    "MSELoss": """Measures the mean squared error between each element of the input and the target.

    Args:
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.mse_loss`; the output is a scalar unless `reduction="none"`.

    Example::

        >>> loss = nn.MSELoss()
        >>> loss(torch.tensor([1., 2., 3.]), torch.tensor([1., 0., 5.]))
        tensor(2.6667)
    """,
    "MarginRankingLoss": """Ranking loss `max(0, -y * (x1 - x2) + margin)` for inputs x1, x2 and
    labels y in {1, -1}.

    Args:
        margin (float): Default: 0.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.margin_ranking_loss`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.MarginRankingLoss()
        >>> loss(torch.tensor([1., 2.]), torch.tensor([2., 1.]), torch.tensor([1., 1.]))
        tensor(0.5000)
    """,
    "MaxPool1d": """Applies a 1-D maximum pooling over windows of the input.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the window step. Default: kernel_size.
        padding (int or tuple): implicit padding on both sides. Default: 0.
        dilation (int or tuple): the spacing between window elements. Default: 1.
        return_indices (bool): also return the argmax positions. Default: False.
        ceil_mode (bool): round the output size up. Default: False.

    Shape:
        Input `(N, C, L)` or without N; output with each spatial size
        `floor((L + 2 * padding - kernel_size) / stride) + 1` (with dilation 1).

    Example::

        >>> nn.MaxPool1d(2)(torch.arange(8.).reshape(1, 1, 8))
        tensor([[[1., 3., 5., 7.]]])
    """,
    "MaxPool2d": """Applies a 2-D maximum pooling over windows of the input.

    Args:
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the window step. Default: kernel_size.
        padding (int or tuple): implicit padding on both sides. Default: 0.
        dilation (int or tuple): the spacing between window elements. Default: 1.
        return_indices (bool): also return the argmax positions. Default: False.
        ceil_mode (bool): round the output size up. Default: False.

    Shape:
        Input `(N, C, H, W)` or without N; output with each spatial size
        `floor((L + 2 * padding - kernel_size) / stride) + 1` (with dilation 1).

    Example::

        >>> nn.MaxPool2d(2)(torch.arange(16.).reshape(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """,
    "ModuleDict": """Holds submodules in a dict (insertion ordered): they are registered, and it can
    be indexed by name.

    Args:
        modules (mapping or iterable of (str, Module) pairs, optional): the initial modules.

    Example::

        >>> d = nn.ModuleDict({"act": nn.ReLU(), "lin": nn.Linear(2, 3)})
        >>> list(d.keys())
        ['act', 'lin']
        >>> d["lin"](torch.zeros(1, 2)).shape
        nbgrad.Size([1, 3])
    """,
    "ModuleList": """Holds submodules in a list: they are registered (their parameters are the
    container's), and it can be indexed, iterated and appended to.

    Args:
        modules (iterable of Module, optional): the initial modules.

    Example::

        >>> layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        >>> len(layers), len(list(layers.parameters()))
        (3, 6)
    """,
    "MultiheadAttention": """Multi-head attention: `Attention(Q W_q, K W_k, V W_v)` over `num_heads`
    heads, concatenated and projected.

    Args:
        embed_dim (int): the model dimension E.
        num_heads (int): the number of heads (divides embed_dim).
        dropout (float): dropout on the attention weights. Default: 0.
        bias (bool): learn projection biases. Default: True.
        kdim, vdim (int, optional): the key and value feature sizes. Default: embed_dim.
        batch_first (bool): inputs are `(N, L, E)` instead of `(L, N, E)`. Default: False.

    Shape:
        query `(L, N, E)`, key and value `(S, N, E)`; returns `(attn_output, attn_weights)`
        with attn_output `(L, N, E)` and the weights `(N, L, S)` (averaged over heads).

    Example::

        >>> mha = nn.MultiheadAttention(16, 4, batch_first=True)
        >>> x = torch.randn(2, 5, 16)
        >>> out, weights = mha(x, x, x)
        >>> out.shape, weights.shape
        (nbgrad.Size([2, 5, 16]), nbgrad.Size([2, 5, 5]))
    """,
    "NLLLoss": """The negative log likelihood loss: takes log-probabilities and target class
    indices.

    Args:
        weight (Tensor, optional): a weight per class, of shape `(C,)`.
        ignore_index (int): a target that contributes neither loss nor gradient. Default: -100.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.nll_loss`; the output is a scalar unless `reduction="none"`.

    Example::

        >>> loss = nn.NLLLoss()
        >>> loss(torch.log(torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])), torch.tensor([0, 2]))
        tensor(0.2899)
    """,
    "PairwiseDistance": """Returns the p-norm distance between the rows of `x1` and `x2`: `||x1 - x2
    + eps||_p`.

    Args:
        p (float): the norm degree. Default: 2.
        eps (float): added to the difference. Default: 1e-6.
        keepdim (bool): keep the last dimension. Default: False.

    Shape:
        Inputs `(N, D)` or `(D)`; output `(N)` or `()`.

    Example::

        >>> nn.PairwiseDistance()(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.]]))
        tensor([5.0000])
    """,
    "Parameter": """A Tensor that is a module parameter: assigned as a module attribute, it is
    registered and returned by `parameters()`. Requires grad by default.

    Args:
        data (Tensor): the parameter's value. Default: an empty tensor.
        requires_grad (bool): Default: True.

    Example::

        >>> p = nn.Parameter(torch.tensor([1., 2.]))
        >>> p
        Parameter containing:
        tensor([1., 2.], requires_grad=True)
        >>> p.requires_grad, isinstance(p, torch.Tensor)
        (True, True)
    """,
    "ParameterDict": """Holds parameters in a dict, registered with the module that owns it.

    Args:
        parameters (mapping or iterable of (str, Parameter) pairs, optional): the initial
            parameters.

    Example::

        >>> ps = nn.ParameterDict({"w": nn.Parameter(torch.ones(2))})
        >>> ps["w"]
        Parameter containing:
        tensor([1., 1.], requires_grad=True)
    """,
    "ParameterList": """Holds parameters in a list, registered with the module that owns it.

    Args:
        values (iterable of Parameter, optional): the initial parameters.

    Example::

        >>> ps = nn.ParameterList([nn.Parameter(torch.zeros(2)) for _ in range(3)])
        >>> len(ps), ps[0].shape
        (3, nbgrad.Size([2]))
    """,
    "PoissonNLLLoss": """Negative log likelihood of a Poisson-distributed target.

    Args:
        log_input (bool): the input is the log of the rate: loss `exp(input) - target * input`.
            Default: True.
        full (bool): add the Stirling term. Default: False.
        eps (float): avoids log(0) without log_input. Default: 1e-8.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.poisson_nll_loss`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.PoissonNLLLoss()
        >>> loss(torch.tensor([0., 1.]), torch.tensor([1., 2.]))
        tensor(0.8591)
    """,
    "RMSNorm": """Root-mean-square normalisation over the last dimensions: `x / sqrt(mean(x**2) +
    eps)`, times a learned `weight`.

    Args:
        normalized_shape (int or tuple of ints): the shape of the trailing dimensions.
        eps (float, optional): added to the mean square. Default: the dtype's `eps`.
        elementwise_affine (bool): learn `weight` (ones). Default: True.

    Shape:
        Input `(*, *normalized_shape)`; output the same shape.

    Example::

        >>> nn.RMSNorm(2)(torch.tensor([[3., 4.]]))
        tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """,
    "RNN": """Applies an Elman recurrent network, `h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T +
    b_hh)`, to a sequence, layer by layer.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): learn biases. Default: True.
        batch_first (bool): input and output are `(N, L, *)` instead of `(L, N, *)`.
            Default: False.
        dropout (float): dropout on the outputs of each layer but the last. Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.
        nonlinearity (str): `"tanh"` or `"relu"`. Default: `"tanh"`.

    Shape:
        Input `(L, N, input_size)` (or `(N, L, ...)` with batch_first, or `(L, input_size)`)
        and optionally h_0; returns `(output, h_n)` with output `(L, N, D * hidden_size)` and
        each state `(D * num_layers, N, hidden_size)`, D = 2 if bidirectional else 1.

    Example::

        >>> rnn = nn.RNN(10, 20, num_layers=2)
        >>> output, state = rnn(torch.randn(5, 3, 10))
        >>> output.shape
        nbgrad.Size([5, 3, 20])
    """,
    "RNNCell": """Applies one step of an Elman RNN to a batch of inputs.

    Args:
        input_size (int): the number of input features.
        hidden_size (int): the number of hidden features.
        bias (bool): learn biases. Default: True.
        nonlinearity (str): `"tanh"` or `"relu"`. Default: `"tanh"`.

    Shape:
        Input `(N, input_size)` or `(input_size)`, and optionally the state; returns `h_1`,
        each `(N, hidden_size)`.

    Example::

        >>> cell = nn.RNNCell(10, 20)
        >>> out = cell(torch.randn(3, 10))
        >>> out.shape
        nbgrad.Size([3, 20])
    """,
    "ReLU": """Applies the rectified linear unit elementwise: `max(0, x)`.

    Args:
        inplace (bool): accepted; the result is computed out of place. Default: False.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.ReLU()
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([0.0000, 0.0000, 1.5000])
    """,
    "Sequential": """A container that calls its modules in order, each on the previous one's output.

    Args:
        *args (Module): the modules, or one OrderedDict of named modules.

    Example::

        >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        >>> model(torch.zeros(3, 4)).shape
        nbgrad.Size([3, 2])
        >>> model[0]
        Linear(in_features=4, out_features=8, bias=True)
        >>> len(model)
        3
    """,
    "SiLU": """Applies the sigmoid linear unit (swish) elementwise: `x * sigmoid(x)`.

    Args:
        inplace (bool): accepted; the result is computed out of place. Default: False.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.SiLU()
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([-0.2384,  0.0000,  1.2264])
    """,
    "Sigmoid": """Applies the logistic sigmoid elementwise: `1 / (1 + exp(-x))`.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.Sigmoid()
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([0.1192, 0.5000, 0.8176])
    """,
    "Softmax": """Applies softmax along `dim`: the results along it are positive and sum to one.

    Args:
        dim (int): the dimension to normalise over.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> nn.Softmax(dim=1)(torch.tensor([[1., 2., 3.]]))
        tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "Softplus": """Applies `log(1 + exp(beta * x)) / beta` elementwise (linear where `beta * x >
    threshold`).

    Args:
        beta (float): the sharpness. Default: 1.0.
        threshold (float): above it the function is the identity. Default: 20.0.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.Softplus()
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([0.1269, 0.6931, 1.7014])
    """,
    "Tanh": """Applies the hyperbolic tangent elementwise.

    Shape:
        Input `(*)`; output the same shape.

    Example::

        >>> m = nn.Tanh()
        >>> m(torch.tensor([-2., 0., 1.5]))
        tensor([-0.9640,  0.0000,  0.9051])
    """,
    "Transformer": """A transformer model: an encoder and a decoder stack (Vaswani et al., 2017).

    Args:
        d_model (int): the model dimension. Default: 512.
        nhead (int): the number of heads. Default: 8.
        num_encoder_layers (int): Default: 6.
        num_decoder_layers (int): Default: 6.
        dim_feedforward (int): Default: 2048.
        dropout (float): Default: 0.1.
        batch_first (bool): inputs are `(N, S, E)`. Default: False.

    Shape:
        src `(S, N, E)`, tgt `(T, N, E)`; output `(T, N, E)`.

    Example::

        >>> model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1,
        ...                        num_decoder_layers=1, dim_feedforward=32)
        >>> model(torch.randn(7, 2, 16), torch.randn(3, 2, 16)).shape
        nbgrad.Size([3, 2, 16])
    """,
    "TransformerDecoder": """A stack of `num_layers` copies of a decoder layer, with an optional
    final norm.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy.
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the output.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> dec = nn.TransformerDecoder(layer, num_layers=2)
        >>> dec(torch.randn(2, 3, 16), torch.randn(2, 7, 16)).shape
        nbgrad.Size([2, 3, 16])
    """,
    "TransformerDecoderLayer": """A transformer decoder layer: self-attention, attention over the
    encoder's output (memory) and a feed-forward block, each with a residual connection and layer
    norm.

    Args:
        d_model (int): the model dimension.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: 2048.
        dropout (float): Default: 0.1.
        activation (str or callable): `"relu"` or `"gelu"`. Default: `"relu"`.
        layer_norm_eps (float): Default: 1e-5.
        batch_first (bool): inputs are `(N, S, E)`. Default: False.
        norm_first (bool): normalise before attention and feed-forward. Default: False.

    Shape:
        tgt `(T, N, E)`, memory `(S, N, E)`; output tgt's shape.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> layer(torch.randn(2, 3, 16), torch.randn(2, 7, 16)).shape
        nbgrad.Size([2, 3, 16])
    """,
    "TransformerEncoder": """A stack of `num_layers` copies of an encoder layer, with an optional
    final norm.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy.
        num_layers (int): the number of layers.
        norm (Module, optional): applied to the output.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> enc = nn.TransformerEncoder(layer, num_layers=2)
        >>> enc(torch.randn(2, 7, 16)).shape
        nbgrad.Size([2, 7, 16])
    """,
    "TransformerEncoderLayer": """A transformer encoder layer: self-attention and a feed-forward
    block, each with a residual connection and layer norm.

    Args:
        d_model (int): the model dimension.
        nhead (int): the number of attention heads.
        dim_feedforward (int): the hidden size of the feed-forward block. Default: 2048.
        dropout (float): Default: 0.1.
        activation (str or callable): `"relu"` or `"gelu"`. Default: `"relu"`.
        layer_norm_eps (float): Default: 1e-5.
        batch_first (bool): inputs are `(N, S, E)`. Default: False.
        norm_first (bool): normalise before attention and feed-forward. Default: False.

    Shape:
        src `(S, N, E)` (`(N, S, E)` with batch_first); output the same shape.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> layer(torch.randn(2, 7, 16)).shape
        nbgrad.Size([2, 7, 16])
    """,
    "TripletMarginLoss": """Triplet loss `max(d(a, p) - d(a, n) + margin, 0)` with `d` the p-norm
    distance.

    Args:
        margin (float): Default: 1.
        p (float): the norm degree. Default: 2.
        eps (float): added for stability. Default: 1e-6.
        swap (bool): use the distance swap. Default: False.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.
        size_average, reduce: deprecated (as in PyTorch); use `reduction`.

    Shape:
        See `nbgrad.nn.functional.triplet_margin_loss`; the output is a scalar unless
        `reduction="none"`.

    Example::

        >>> loss = nn.TripletMarginLoss()
        >>> loss(torch.tensor([[0., 0.]]), torch.tensor([[1., 0.]]), torch.tensor([[3., 4.]]))
        tensor(0.)
    """,
    "Unflatten": """Expands dimension `dim` into the shape `unflattened_size`.

    Args:
        dim (int): the dimension to expand.
        unflattened_size (tuple of ints): its new shape (the product must be its size).

    Example::

        >>> nn.Unflatten(1, (2, 5))(torch.zeros(2, 10)).shape
        nbgrad.Size([2, 2, 5])
    """,
    "Upsample": """Upsamples an input of 1, 2 or 3 spatial dimensions to `size` or by `scale_factor`
    (see `nbgrad.nn.functional.interpolate`).

    Args:
        size (int or tuple, optional): the output's spatial size.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): `"nearest"`, `"linear"`, `"bilinear"`, ... Default: `"nearest"`.
        align_corners (bool, optional): for the linear modes, as in PyTorch.

    Shape:
        Input `(N, C, *spatial)`; output `(N, C, *new_spatial)`.

    Example::

        >>> nn.Upsample(scale_factor=2)(torch.tensor([[[1., 2.]]]))
        tensor([[[1., 1., 2., 2.]]])
    """,
}
