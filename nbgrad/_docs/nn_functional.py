"""Docstrings of `nbgrad.nn.functional` (keys are the function names).

The examples use `import nbgrad as torch` and `import nbgrad.nn.functional as F`; their outputs
are PyTorch's.
"""

DOCS = {
    "adaptive_avg_pool1d": """Applies a 1-D mean pooling with windows chosen to give `output_size`.

    Args:
        input (Tensor): `(N, C, *)` or `(C, *)`.
        output_size (int or tuple): the output's spatial size.

    Example::

        >>> F.adaptive_avg_pool1d(torch.arange(6.).reshape(1, 1, 6), 2)
        tensor([[[1., 4.]]])
    """,
    "adaptive_avg_pool2d": """Applies a 2-D mean pooling with windows chosen to give `output_size`.

    Args:
        input (Tensor): `(N, C, *)` or `(C, *)`.
        output_size (int or tuple): the output's spatial size.

    Example::

        >>> F.adaptive_avg_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), (2, 2))
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """,
    "adaptive_max_pool1d": """Applies a 1-D maximum pooling with windows chosen to give
    `output_size`.

    Args:
        input (Tensor): `(N, C, *)` or `(C, *)`.
        output_size (int or tuple): the output's spatial size.
        return_indices (bool): also return the argmax positions. Default: False.

    Example::

        >>> F.adaptive_max_pool1d(torch.arange(6.).reshape(1, 1, 6), 2)
        tensor([[[2., 5.]]])
    """,
    "adaptive_max_pool2d": """Applies a 2-D maximum pooling with windows chosen to give
    `output_size`.

    Args:
        input (Tensor): `(N, C, *)` or `(C, *)`.
        output_size (int or tuple): the output's spatial size.
        return_indices (bool): also return the argmax positions. Default: False.

    Example::

        >>> F.adaptive_max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), (2, 2))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """,
    "avg_pool1d": """Applies a 1-D mean pooling over windows of the input.

    Args:
        input (Tensor): `(N, C, L)` or without N.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): Default: kernel_size.
        padding (int or tuple): implicit padding. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding in the divisor. Default: True.

    Example::

        >>> F.avg_pool1d(torch.arange(8.).reshape(1, 1, 8), 2)
        tensor([[[0.5000, 2.5000, 4.5000, 6.5000]]])
    """,
    "avg_pool2d": """Applies a 2-D mean pooling over windows of the input.

    Args:
        input (Tensor): `(N, C, H, W)` or without N.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): Default: kernel_size.
        padding (int or tuple): implicit padding. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding in the divisor. Default: True.

    Example::

        >>> F.avg_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 2.5000,  4.5000],
                  [10.5000, 12.5000]]]])
    """,
    "batch_norm": """Batch normalisation of each channel: with the batch's statistics (and an update
    of the running ones) when training, else with the running ones.

    Args:
        input (Tensor): `(N, C, *)`.
        running_mean (Tensor or None): `(C)`, updated in place when training.
        running_var (Tensor or None): `(C)`, updated in place when training.
        weight (Tensor, optional): `(C)`.
        bias (Tensor, optional): `(C)`.
        training (bool): use the batch's statistics. Default: False.
        momentum (float): the weight of the batch in the running statistics. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> x = torch.tensor([[1., 2.], [3., 6.]])
        >>> F.batch_norm(x, torch.zeros(2), torch.ones(2), training=True)
        tensor([[-1.0000, -1.0000],
                [ 1.0000,  1.0000]])
    """,
    "binary_cross_entropy": """Binary cross-entropy between probabilities (input) and targets in [0,
    1]: `-(t * log(x) + (1 - t) * log(1 - x))` (logs clamped at -100).

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        weight (Tensor, optional): a weight per element, broadcast with input.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.binary_cross_entropy(torch.tensor([0.9, 0.2]), torch.tensor([1., 0.]))
        tensor(0.1643)
    """,
    "binary_cross_entropy_with_logits": """Binary cross-entropy on logits: sigmoid and
    `binary_cross_entropy` in one, computed stably.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        weight (Tensor, optional): a weight per element, broadcast with input.
        pos_weight (Tensor, optional): a weight of the positive examples, per class.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.binary_cross_entropy_with_logits(torch.tensor([2., -1.]), torch.tensor([1., 0.]))
        tensor(0.2201)
    """,
    "celu": """Applies `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))` elementwise.

    Args:
        input (Tensor): any shape.
        alpha (float): Default: 1.0.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.celu(torch.tensor([-1., 0., 2.]))
        tensor([-0.6321,  0.0000,  2.0000])
    """,
    "conv1d": """Applies a 1-D convolution (cross-correlation) over an input of several channels.

    Args:
        input (Tensor): `(N, C_in, L)` (or without N).
        weight (Tensor): `(C_out, C_in / groups, kL)`.
        bias (Tensor, optional): `(C_out)`.
        stride (int or tuple): Default: 1.
        padding (int, tuple or str): implicit zero padding, or `"valid"` / `"same"`. Default: 0.
        dilation (int or tuple): Default: 1.
        groups (int): Default: 1.

    Example::

        >>> F.conv1d(torch.ones(1, 2, 5), torch.ones(3, 2, 3), padding=1).shape
        nbgrad.Size([1, 3, 5])
        >>> F.conv1d(torch.ones(1, 2, 5), torch.ones(3, 2, 3)).flatten()[:3]
        tensor([6., 6., 6.])
    """,
    "conv2d": """Applies a 2-D convolution (cross-correlation) over an input of several channels.

    Args:
        input (Tensor): `(N, C_in, H, W)` (or without N).
        weight (Tensor): `(C_out, C_in / groups, kH, kW)`.
        bias (Tensor, optional): `(C_out)`.
        stride (int or tuple): Default: 1.
        padding (int, tuple or str): implicit zero padding, or `"valid"` / `"same"`. Default: 0.
        dilation (int or tuple): Default: 1.
        groups (int): Default: 1.

    Example::

        >>> F.conv2d(torch.ones(1, 2, 5, 5), torch.ones(3, 2, 3, 3), padding=1).shape
        nbgrad.Size([1, 3, 5, 5])
        >>> F.conv2d(torch.ones(1, 2, 5, 5), torch.ones(3, 2, 3, 3)).flatten()[:3]
        tensor([18., 18., 18.])
    """,
    "conv_transpose1d": """Applies a 1-D transposed convolution (the gradient of `conv1d` with
    respect to its input).

    Args:
        input (Tensor): `(N, C_in, *)`.
        weight (Tensor): `(C_in, C_out / groups, *kernel)`.
        bias (Tensor, optional): `(C_out)`.
        stride (int or tuple): Default: 1.
        padding (int or tuple): Default: 0.
        output_padding (int or tuple): Default: 0.
        groups (int): Default: 1.
        dilation (int or tuple): Default: 1.

    Example::

        >>> F.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 4, 3), stride=2).shape
        nbgrad.Size([1, 4, 7])
    """,
    "conv_transpose2d": """Applies a 2-D transposed convolution (the gradient of `conv2d` with
    respect to its input).

    Args:
        input (Tensor): `(N, C_in, *)`.
        weight (Tensor): `(C_in, C_out / groups, *kernel)`.
        bias (Tensor, optional): `(C_out)`.
        stride (int or tuple): Default: 1.
        padding (int or tuple): Default: 0.
        output_padding (int or tuple): Default: 0.
        groups (int): Default: 1.
        dilation (int or tuple): Default: 1.

    Example::

        >>> F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 4, 3, 3), stride=2).shape
        nbgrad.Size([1, 4, 7, 7])
    """,
    "cosine_embedding_loss": """Loss for pairs labelled similar (1) or dissimilar (-1): `1 - cos(x1,
    x2)`, or `max(0, cos(x1, x2) - margin)`.

    Args:
        input1 (Tensor): `(N, D)`.
        input2 (Tensor): `(N, D)`.
        target (Tensor): `(N)` of 1 or -1.
        margin (float): Default: 0.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> x1, x2 = torch.tensor([[1., 0.], [1., 1.]]), torch.tensor([[1., 1.], [-1., 0.]])
        >>> F.cosine_embedding_loss(x1, x2, torch.tensor([1, -1]))
        tensor(0.1464)
    """,
    "cosine_similarity": """Returns the cosine similarity of `x1` and `x2` along `dim`: `x1 . x2 /
    max(||x1|| * ||x2||, eps)`.

    Args:
        x1 (Tensor): the first vectors.
        x2 (Tensor): the second vectors, broadcast with x1.
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): a lower bound of the norm product. Default: 1e-8.

    Example::

        >>> F.cosine_similarity(torch.tensor([[1., 0.]]), torch.tensor([[1., 1.]]))
        tensor([0.7071])
    """,
    "dropout": """During training, zeroes each element with probability `p` and scales the rest by
    `1 / (1 - p)`; with `training=False`, returns input.

    Args:
        input (Tensor): any shape.
        p (float): the probability of zeroing. Default: 0.5.
        training (bool): apply dropout. Default: True.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> sorted(set(F.dropout(torch.ones(1000), p=0.5).tolist()))
        [0.0, 2.0]
        >>> F.dropout(torch.ones(2), training=False)
        tensor([1., 1.])
    """,
    "dropout1d": """During training, zeroes whole channels with probability `p` and scales the rest
    by `1 / (1 - p)`.

    Args:
        input (Tensor): `(N, C, *)` or `(C, *)`.
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout. Default: True.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.dropout1d(torch.ones(2, 3, 5), p=0.5).shape
        nbgrad.Size([2, 3, 5])
    """,
    "dropout2d": """During training, zeroes whole channels with probability `p` and scales the rest
    by `1 / (1 - p)`.

    Args:
        input (Tensor): `(N, C, *)` or `(C, *)`.
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout. Default: True.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.dropout2d(torch.ones(2, 3, 4, 4), p=0.5).shape
        nbgrad.Size([2, 3, 4, 4])
    """,
    "elu": """Applies the exponential linear unit elementwise: `x` if `x > 0`, else `alpha * (exp(x)
    - 1)`.

    Args:
        input (Tensor): any shape.
        alpha (float): Default: 1.0.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.elu(torch.tensor([-1., 0., 2.]))
        tensor([-0.6321,  0.0000,  2.0000])
    """,
    "embedding": """Looks up rows of `weight` at the integer indices in `input`.

    Args:
        input (LongTensor): indices, any shape.
        weight (Tensor): the table, `(num_embeddings, embedding_dim)`.
        padding_idx (int, optional): this row gets no gradient.
        max_norm (float, optional): rows looked up are renormalised (in place) to this norm.
        norm_type (float): the p of that norm. Default: 2.

    Shape:
        Output `(*, embedding_dim)`.

    Example::

        >>> weight = torch.tensor([[0., 0.], [1., 1.], [2., 2.]])
        >>> F.embedding(torch.tensor([[2, 0]]), weight)
        tensor([[[2., 2.],
                 [0., 0.]]])
    """,
    "embedding_bag": """Sums, averages or takes the maximum of bags of rows of `weight`.

    Args:
        input (LongTensor): `(B, N)` indices (B bags), or 1-D with `offsets`.
        weight (Tensor): the table, `(num_embeddings, embedding_dim)`.
        offsets (LongTensor, optional): the start of each bag in a 1-D input.
        mode (str): `"sum"`, `"mean"` or `"max"`. Default: `"mean"`.
        per_sample_weights (Tensor, optional): weights of the entries (mode `"sum"`).
        include_last_offset (bool): offsets ends with the end of the last bag.
        padding_idx (int, optional): this entry is left out of the bags.

    Shape:
        Output `(B, embedding_dim)`.

    Example::

        >>> weight = torch.tensor([[0., 0.], [1., 1.], [2., 2.]])
        >>> F.embedding_bag(torch.tensor([0, 1, 2, 2]), weight, torch.tensor([0, 3]), mode="sum")
        tensor([[3., 3.],
                [2., 2.]])
    """,
    "fold": """Sums columns of sliding local blocks back into an image (col2im, the adjoint of
    `unfold`).

    Args:
        input (Tensor): `(N, C * prod(kernel_size), L)`.
        output_size (int or tuple): the image's spatial size.
        kernel_size (int or tuple): the block size.
        dilation (int or tuple): Default: 1.
        padding (int or tuple): Default: 0.
        stride (int or tuple): Default: 1.

    Example::

        >>> F.fold(torch.ones(1, 4, 4), output_size=(3, 3), kernel_size=2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """,
    "gaussian_nll_loss": """Negative log likelihood of target under Gaussians of mean input and
    variance `var`: `0.5 * (log(var) + (input - target)**2 / var)`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        var (Tensor): the variances (positive), broadcast with input.
        full (bool): add the constant `0.5 * log(2 pi)`. Default: False.
        eps (float): clamps var from below. Default: 1e-6.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.gaussian_nll_loss(torch.tensor([0., 1.]), torch.tensor([0.5, 1.]),
        ...     torch.tensor([1., 2.]))
        tensor(0.2358)
    """,
    "gelu": """Applies the Gaussian error linear unit elementwise: `x * Phi(x)` (Phi the standard
    normal CDF).

    Args:
        input (Tensor): any shape.
        approximate (str): `"none"` or `"tanh"` (the tanh approximation). Default: `"none"`.

    Example::

        >>> F.gelu(torch.tensor([-1., 0., 2.]))
        tensor([-0.1587,  0.0000,  1.9545])
    """,
    "group_norm": """Normalises the channels in `num_groups` groups, then applies per-channel
    `weight` and `bias`.

    Args:
        input (Tensor): `(N, C, *)`.
        num_groups (int): divides C.
        weight (Tensor, optional): `(C)`.
        bias (Tensor, optional): `(C)`.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> F.group_norm(torch.tensor([[[1.], [3.], [0.], [4.]]]), 2).flatten()
        tensor([-1.0000,  1.0000, -1.0000,  1.0000])
    """,
    "hardtanh": """Clamps each element to `[min_val, max_val]`.

    Args:
        input (Tensor): any shape.
        min_val (float): Default: -1.
        max_val (float): Default: 1.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.hardtanh(torch.tensor([-2., 0.5, 3.]))
        tensor([-1.0000,  0.5000,  1.0000])
    """,
    "huber_loss": """The Huber loss: `0.5 * d**2` where `|d| < delta`, else `delta * (|d| - 0.5 *
    delta)`, with `d = input - target`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        delta (float): where the loss turns linear. Default: 1.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.huber_loss(torch.tensor([0.5, 3.]), torch.tensor([0., 0.]))
        tensor(1.3125)
    """,
    "interpolate": """Resizes an input of 1, 2 or 3 spatial dimensions to `size` or by
    `scale_factor`.

    Args:
        input (Tensor): `(N, C, *spatial)`.
        size (int or tuple, optional): the output's spatial size.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): `"nearest"`, `"linear"`, `"bilinear"`, `"bicubic"`, `"trilinear"`, ...
            Default: `"nearest"`.
        align_corners (bool, optional): for the linear modes, as in PyTorch.

    Example::

        >>> F.interpolate(torch.tensor([[[1., 2.]]]), scale_factor=2)
        tensor([[[1., 1., 2., 2.]]])
        >>> F.interpolate(torch.tensor([[[1., 2.]]]), size=4, mode="linear", align_corners=True)
        tensor([[[1.0000, 1.3333, 1.6667, 2.0000]]])
    """,
    "kl_div": """The Kullback-Leibler divergence `target * (log(target) - input)`, with input
    log-probabilities.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        log_target (bool): target is given as log-probabilities too. Default: False.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.kl_div(torch.log(torch.tensor([[0.5, 0.5]])), torch.tensor([[0.9, 0.1]]),
        ...     reduction="batchmean")
        tensor(0.3681)
    """,
    "l1_loss": """The mean (or sum) of the absolute differences between input and target.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.l1_loss(torch.tensor([1., 2., 3.]), torch.tensor([1., 0., 5.]))
        tensor(1.3333)
    """,
    "layer_norm": """Normalises over the last dimensions to zero mean and unit (biased) variance,
    then scales by `weight` and adds `bias`.

    Args:
        input (Tensor): `(*, *normalized_shape)`.
        normalized_shape (tuple of ints): the trailing shape.
        weight (Tensor, optional): of normalized_shape.
        bias (Tensor, optional): of normalized_shape.
        eps (float): added to the variance. Default: 1e-5.

    Example::

        >>> F.layer_norm(torch.tensor([[1., 2., 3.]]), (3,))
        tensor([[-1.2247,  0.0000,  1.2247]])
    """,
    "leaky_relu": """Applies `x` if `x >= 0`, else `negative_slope * x`, elementwise.

    Args:
        input (Tensor): any shape.
        negative_slope (float): Default: 0.01.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.leaky_relu(torch.tensor([-1., 0., 2.]))
        tensor([-0.0100,  0.0000,  2.0000])
    """,
    "linear": """Applies an affine map: `y = input @ weight.T + bias`.

    Args:
        input (Tensor): `(*, in_features)`.
        weight (Tensor): `(out_features, in_features)`.
        bias (Tensor, optional): `(out_features)`.

    Shape:
        Output `(*, out_features)`.

    Example::

        >>> F.linear(torch.tensor([[1., 2.]]), torch.tensor([[1., 0.], [1., 1.]]),
        ...     torch.tensor([0., 10.]))
        tensor([[ 1., 13.]])
    """,
    "log_softmax": """Applies `log(softmax(x))`, computed stably, along `dim`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise over.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> F.log_softmax(torch.tensor([[1., 2., 3.]]), dim=1)
        tensor([[-2.4076, -1.4076, -0.4076]])
    """,
    "logsigmoid": """Applies `log(sigmoid(x))` elementwise, computed stably.

    Args:
        input (Tensor): any shape.

    Example::

        >>> F.logsigmoid(torch.tensor([-100., 0., 2.]))
        tensor([-100.0000,   -0.6931,   -0.1269])
    """,
    "margin_ranking_loss": """Ranking loss `max(0, -target * (input1 - input2) + margin)`, with
    target 1 (input1 should rank higher) or -1.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores.
        target (Tensor): 1 or -1 per pair.
        margin (float): Default: 0.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.margin_ranking_loss(torch.tensor([1., 2.]), torch.tensor([2., 1.]),
        ...     torch.tensor([1., 1.]))
        tensor(0.5000)
    """,
    "max_pool1d": """Applies a 1-D maximum pooling over windows of the input.

    Args:
        input (Tensor): `(N, C, L)` or without N.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): Default: kernel_size.
        padding (int or tuple): implicit padding. Default: 0.
        dilation (int or tuple): Default: 1.
        ceil_mode (bool): round the output size up. Default: False.
        return_indices (bool): also return the argmax positions. Default: False.

    Example::

        >>> F.max_pool1d(torch.arange(8.).reshape(1, 1, 8), 2)
        tensor([[[1., 3., 5., 7.]]])
    """,
    "max_pool2d": """Applies a 2-D maximum pooling over windows of the input.

    Args:
        input (Tensor): `(N, C, H, W)` or without N.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): Default: kernel_size.
        padding (int or tuple): implicit padding. Default: 0.
        dilation (int or tuple): Default: 1.
        ceil_mode (bool): round the output size up. Default: False.
        return_indices (bool): also return the argmax positions. Default: False.

    Example::

        >>> F.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """,
    "nll_loss": """The negative log likelihood loss: `-input[n, target[n]]`, with input
    log-probabilities.

    Args:
        input (Tensor): log-probabilities `(N, C)` or `(C)`.
        target (Tensor): class indices `(N)` (int64).
        weight (Tensor, optional): a weight per class, `(C,)`.
        ignore_index (int): a target that contributes neither loss nor gradient. Default: -100.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.nll_loss(torch.log(torch.tensor([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])),
        ...     torch.tensor([0, 2]))
        tensor(0.2899)
    """,
    "normalize": """Divides `input` by its p-norm along `dim` (at least `eps`).

    Args:
        input (Tensor): any shape.
        p (float): the norm degree. Default: 2.
        dim (int): the dimension to normalise. Default: 1.
        eps (float): a lower bound of the norm. Default: 1e-12.

    Example::

        >>> F.normalize(torch.tensor([[3., 4.], [0., 0.]]))
        tensor([[0.6000, 0.8000],
                [0.0000, 0.0000]])
    """,
    "one_hot": """Returns the one-hot encoding of integer class indices, as an int64 tensor.

    Args:
        tensor (LongTensor): class indices, any shape.
        num_classes (int): the number of classes; -1: the largest index plus one.
            Default: -1.

    Shape:
        Input `(*)`; output `(*, num_classes)`.

    Example::

        >>> F.one_hot(torch.tensor([0, 2, 1]), num_classes=3)
        tensor([[1, 0, 0],
                [0, 0, 1],
                [0, 1, 0]])
    """,
    "pad": """Pads `input`: `pad` gives (left, right) amounts for the last dimension, then the one
    before it, and so on.

    Args:
        input (Tensor): the tensor to pad.
        pad (tuple of ints): `(left_last, right_last, left_second_last, ...)`.
        mode (str): `"constant"`, `"reflect"`, `"replicate"` or `"circular"`.
            Default: `"constant"`.
        value (float, optional): the fill value of constant padding. Default: 0.

    Example::

        >>> F.pad(torch.tensor([[1., 2.]]), (1, 2), value=9.)
        tensor([[9., 1., 2., 9., 9.]])
        >>> F.pad(torch.tensor([[[1., 2., 3.]]]), (2, 0), mode="reflect")
        tensor([[[3., 2., 1., 2., 3.]]])
    """,
    "pairwise_distance": """Returns the p-norm distance `||x1 - x2 + eps||_p` along the last
    dimension.

    Args:
        x1 (Tensor): `(N, D)` or `(D)`.
        x2 (Tensor): broadcast with x1.
        p (float): the norm degree. Default: 2.
        eps (float): added to the difference. Default: 1e-6.
        keepdim (bool): keep the last dimension. Default: False.

    Example::

        >>> F.pairwise_distance(torch.tensor([[0., 0.]]), torch.tensor([[3., 4.]]))
        tensor([5.0000])
    """,
    "poisson_nll_loss": """Negative log likelihood of a Poisson target: `exp(input) - target *
    input` with `log_input`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        log_input (bool): the input is the log of the rate. Default: True.
        full (bool): add the Stirling term. Default: False.
        eps (float): avoids log(0) without log_input. Default: 1e-8.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.poisson_nll_loss(torch.tensor([0., 1.]), torch.tensor([1., 2.]))
        tensor(0.8591)
    """,
    "relu6": """Applies `min(max(0, x), 6)` elementwise.

    Args:
        input (Tensor): any shape.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.relu6(torch.tensor([-1., 3., 8.]))
        tensor([0., 3., 6.])
    """,
    "relu_": """In-place `relu`: writes `max(0, x)` into input and returns it.

    Args:
        input (Tensor): any shape.

    Example::

        >>> x = torch.tensor([-1., 2.])
        >>> F.relu_(x)
        tensor([0., 2.])
    """,
    "rms_norm": """Divides by the root mean square over the last dimensions, then scales by
    `weight`.

    Args:
        input (Tensor): `(*, *normalized_shape)`.
        normalized_shape (tuple of ints): the trailing shape.
        weight (Tensor, optional): of normalized_shape.
        eps (float, optional): added to the mean square. Default: the dtype's eps.

    Example::

        >>> F.rms_norm(torch.tensor([[3., 4.]]), (2,))
        tensor([[0.8485, 1.1314]])
    """,
    "scaled_dot_product_attention": """Computes `softmax(query @ key^T * scale + mask) @ value`.

    Args:
        query (Tensor): `(*, L, E)`.
        key (Tensor): `(*, S, E)`.
        value (Tensor): `(*, S, Ev)`.
        attn_mask (Tensor, optional): a bool mask (True: attend) or an additive float mask,
            broadcast to `(*, L, S)`.
        dropout_p (float): dropout on the attention weights. Default: 0.
        is_causal (bool): apply a causal (lower-triangular) mask. Default: False.
        scale (float, optional): Default: `1 / sqrt(E)`.
        enable_gqa (bool): grouped-query attention (fewer key/value heads). Default: False.

    Shape:
        Output `(*, L, Ev)`.

    Example::

        >>> q = k = torch.tensor([[[1., 0.], [0., 1.]]])
        >>> v = torch.tensor([[[1., 2.], [3., 4.]]])
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True)
        tensor([[[1.0000, 2.0000],
                 [2.3395, 3.3395]]])
    """,
    "selu": """Applies the scaled exponential linear unit elementwise: `scale * elu(x, alpha)` with
    PyTorch's constants.

    Args:
        input (Tensor): any shape.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.selu(torch.tensor([-1., 0., 2.]))
        tensor([-1.1113,  0.0000,  2.1014])
    """,
    "sigmoid": """Applies the logistic sigmoid elementwise: `1 / (1 + exp(-x))`.

    Args:
        input (Tensor): any shape.

    Example::

        >>> F.sigmoid(torch.tensor([-1., 0., 2.]))
        tensor([0.2689, 0.5000, 0.8808])
    """,
    "silu": """Applies the sigmoid linear unit elementwise: `x * sigmoid(x)`.

    Args:
        input (Tensor): any shape.
        inplace (bool): write the result into input. Default: False.

    Example::

        >>> F.silu(torch.tensor([-1., 0., 2.]))
        tensor([-0.2689,  0.0000,  1.7616])
    """,
    "smooth_l1_loss": """Smooth L1 loss: `0.5 * d**2 / beta` where `|d| < beta`, else `|d| - 0.5 *
    beta`, with `d = input - target`.

    Args:
        input (Tensor): the prediction.
        target (Tensor): of input's shape.
        beta (float): where the loss turns linear. Default: 1.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> F.smooth_l1_loss(torch.tensor([0.5, 3.]), torch.tensor([0., 0.]))
        tensor(1.3125)
    """,
    "softmax": """Applies softmax: the results along `dim` are positive and sum to one, along `dim`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise over.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> F.softmax(torch.tensor([[1., 2., 3.]]), dim=1)
        tensor([[0.0900, 0.2447, 0.6652]])
    """,
    "softmin": """Applies softmin, `softmax(-x)`, along `dim`.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise over.
        dtype (nbgrad.dtype, optional): cast the input to this dtype first.

    Example::

        >>> F.softmin(torch.tensor([[1., 2., 3.]]), dim=1)
        tensor([[0.6652, 0.2447, 0.0900]])
    """,
    "softplus": """Applies `log(1 + exp(beta * x)) / beta` elementwise (the identity where `beta * x
    > threshold`).

    Args:
        input (Tensor): any shape.
        beta (float): Default: 1.
        threshold (float): Default: 20.

    Example::

        >>> F.softplus(torch.tensor([-1., 0., 2.]))
        tensor([0.3133, 0.6931, 2.1269])
    """,
    "tanh": """Applies the hyperbolic tangent elementwise.

    Args:
        input (Tensor): any shape.

    Example::

        >>> F.tanh(torch.tensor([-1., 0., 2.]))
        tensor([-0.7616,  0.0000,  0.9640])
    """,
    "triplet_margin_loss": """Triplet loss `max(d(anchor, positive) - d(anchor, negative) + margin,
    0)`, `d` the p-norm distance.

    Args:
        anchor (Tensor): `(N, D)`.
        positive (Tensor): `(N, D)`.
        negative (Tensor): `(N, D)`.
        margin (float): Default: 1.
        p (float): the norm degree. Default: 2.
        eps (float): Default: 1e-6.
        swap (bool): use the distance swap. Default: False.
        reduction (str): `"none"`, `"mean"` or `"sum"`. Default: `"mean"`.

    Example::

        >>> a, p, n = torch.tensor([[0., 0.]]), torch.tensor([[1., 0.]]), torch.tensor([[3., 4.]])
        >>> F.triplet_margin_loss(a, p, n, margin=5.)
        tensor(1.0000)
    """,
    "unfold": """Extracts sliding local blocks of a batched image into columns (im2col).

    Args:
        input (Tensor): `(N, C, H, W)`.
        kernel_size (int or tuple): the block size.
        dilation (int or tuple): Default: 1.
        padding (int or tuple): Default: 0.
        stride (int or tuple): Default: 1.

    Shape:
        Output `(N, C * prod(kernel_size), L)`, L the number of blocks.

    Example::

        >>> F.unfold(torch.arange(9.).reshape(1, 1, 3, 3), kernel_size=2)
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """,
}
