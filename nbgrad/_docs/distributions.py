"""Docstrings of `nbgrad.distributions` (keys are the names); the examples' outputs are
PyTorch's."""

DOCS = {
    "Bernoulli": """The Bernoulli distribution: 1 with probability `probs`, else 0.

    Args:
        probs (float or Tensor, optional): the probability of 1.
        logits (float or Tensor, optional): its log-odds (give exactly one of the two).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Bernoulli(probs=torch.tensor([0.3]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-1.2040])
        >>> d.entropy()
        tensor([0.6109])
    """,
    "Beta": """The beta distribution on (0, 1).

    Args:
        concentration1 (float or Tensor): alpha (positive).
        concentration0 (float or Tensor): beta (positive).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Beta(torch.tensor([2.]), torch.tensor([2.]))
        >>> d.log_prob(torch.tensor([0.5]))
        tensor([0.4055])
        >>> d.mean
        tensor([0.5000])
    """,
    "Categorical": """A categorical distribution over `0, ..., K - 1`.

    Args:
        probs (Tensor, optional): `(*, K)` event probabilities (normalised along the last
            dimension).
        logits (Tensor, optional): `(*, K)` unnormalised log-probabilities (give exactly one).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
        >>> d.log_prob(torch.tensor(2))
        tensor(-0.3567)
        >>> d.sample((4,)).shape
        nbgrad.Size([4])
    """,
    "Dirichlet": """The Dirichlet distribution over the probability simplex.

    Args:
        concentration (Tensor): `(*, K)` positive concentrations.
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Dirichlet(torch.tensor([1., 2., 3.]))
        >>> d.log_prob(torch.tensor([0.2, 0.3, 0.5]))
        tensor(1.5041)
        >>> d.mean
        tensor([0.1667, 0.3333, 0.5000])
    """,
    "Distribution": """The base class of probability distributions: `sample`, `rsample`
    (differentiable samples), `log_prob`, `entropy`, `mean`, `variance`, `batch_shape` and
    `event_shape`.

    Args:
        batch_shape (Size): the shape of independent, non-identical parameters.
        event_shape (Size): the shape of one sample.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> d = torch.distributions.Normal(torch.zeros(2), torch.ones(2))
        >>> isinstance(d, torch.distributions.Distribution)
        True
        >>> d.batch_shape, d.event_shape
        (nbgrad.Size([2]), nbgrad.Size([]))
    """,
    "Exponential": """The exponential distribution with rate `rate`.

    Args:
        rate (float or Tensor): the rate (1 / mean, positive).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Exponential(torch.tensor([2.]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-1.3069])
        >>> d.mean
        tensor([0.5000])
    """,
    "Gamma": """The gamma distribution with shape `concentration` and rate `rate`.

    Args:
        concentration (float or Tensor): the shape (positive).
        rate (float or Tensor): the rate (positive).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Gamma(torch.tensor([2.]), torch.tensor([1.]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-1.])
        >>> d.mean
        tensor([2.])
    """,
    "Independent": """Reinterprets batch dimensions of a distribution as event dimensions:
    `log_prob` sums over them.

    Args:
        base_distribution (Distribution): the distribution.
        reinterpreted_batch_ndims (int): how many batch dimensions become event dimensions.
        validate_args (bool, optional): check the arguments.

    Example::

        >>> base = torch.distributions.Normal(torch.zeros(3), torch.ones(3))
        >>> d = torch.distributions.Independent(base, 1)
        >>> d.batch_shape, d.event_shape
        (nbgrad.Size([]), nbgrad.Size([3]))
        >>> d.log_prob(torch.zeros(3))
        tensor(-2.7568)
    """,
    "Laplace": """The Laplace distribution with location `loc` and scale `scale`.

    Args:
        loc (float or Tensor): the location (mean).
        scale (float or Tensor): the scale (positive).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Laplace(torch.tensor([0.]), torch.tensor([1.]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-1.6931])
        >>> d.variance
        tensor([2.])
    """,
    "LogNormal": """The distribution of `exp(X)` for `X ~ Normal(loc, scale)`.

    Args:
        loc (float or Tensor): the mean of log(X).
        scale (float or Tensor): the standard deviation of log(X).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.LogNormal(torch.tensor([0.]), torch.tensor([1.]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-0.9189])
        >>> d.mean
        tensor([1.6487])
    """,
    "MultivariateNormal": """The multivariate normal distribution, given its covariance, precision
    or lower Cholesky factor.

    Args:
        loc (Tensor): `(*, D)` the mean.
        covariance_matrix (Tensor, optional): `(*, D, D)`, positive definite.
        precision_matrix (Tensor, optional): its inverse.
        scale_tril (Tensor, optional): its lower Cholesky factor (give exactly one of three).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
        >>> d.log_prob(torch.tensor([1., 1.]))
        tensor(-2.8379)
        >>> d.sample((5,)).shape
        nbgrad.Size([5, 2])
    """,
    "Normal": """The normal (Gaussian) distribution with mean `loc` and standard deviation `scale`.

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the standard deviation (positive).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Normal(torch.tensor([0.]), torch.tensor([2.]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-1.7371])
        >>> d.sample((3,)).shape
        nbgrad.Size([3, 1])
        >>> d.entropy()
        tensor([2.1121])
    """,
    "OneHotCategorical": """A categorical distribution whose samples are one-hot vectors.

    Args:
        probs (Tensor, optional): `(*, K)` event probabilities.
        logits (Tensor, optional): `(*, K)` unnormalised log-probabilities (give exactly one).
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.OneHotCategorical(probs=torch.tensor([0.1, 0.2, 0.7]))
        >>> d.log_prob(torch.tensor([0., 0., 1.]))
        tensor(-0.3567)
        >>> d.sample().shape
        nbgrad.Size([3])
    """,
    "Uniform": """The uniform distribution on `[low, high)`.

    Args:
        low (float or Tensor): the lower bound.
        high (float or Tensor): the upper bound.
        validate_args (bool, optional): check the arguments (and values given to
            `log_prob`). Default: on, as in PyTorch.

    Example::

        >>> d = torch.distributions.Uniform(torch.tensor([0.]), torch.tensor([4.]))
        >>> d.log_prob(torch.tensor([1.]))
        tensor([-1.3863])
        >>> d.mean, d.variance
        (tensor([2.]), tensor([1.3333]))
    """,
    "kl_divergence": """Returns the Kullback-Leibler divergence `KL(p || q)` between two
    distributions (for the pairs registered with `register_kl`).

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Example::

        >>> p = torch.distributions.Normal(torch.tensor([0.]), torch.tensor([1.]))
        >>> q = torch.distributions.Normal(torch.tensor([1.]), torch.tensor([2.]))
        >>> torch.distributions.kl_divergence(p, q)
        tensor([0.4431])
    """,
    "register_kl": """Decorator that registers a function computing `KL(p || q)` for distributions
    of the types `type_p` and `type_q` (used by `kl_divergence`).

    Args:
        type_p (type): a subclass of Distribution.
        type_q (type): a subclass of Distribution.

    Example::

        >>> class MyNormal(torch.distributions.Normal):
        ...     pass
        >>> @torch.distributions.register_kl(MyNormal, MyNormal)
        ... def _kl(p, q):
        ...     return torch.zeros(p.batch_shape)
        >>> m = MyNormal(torch.tensor([0.]), torch.tensor([1.]))
        >>> torch.distributions.kl_divergence(m, m)
        tensor([0.])
    """,
}
