"""Dirichlet(concentration) on the simplex of the last dim."""

import numpy as np

from .. import creation, nn
from .. import functions as F
from . import constraints
from ._functions import standard_gamma
from .distribution import Distribution
from .utils import finfo, xlogy


class Dirichlet(Distribution):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(batch_shape, ("concentration",))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = self.concentration
        cm1 = (c - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        # where every concentration is below 1 the density peaks at the largest one's vertex
        low = (c._data < 1).all(-1, keepdims=True)
        vertex = nn.functional.one_hot(c.argmax(-1), c.shape[-1]).to(c.dtype)
        return F.where(creation.tensor(np.broadcast_to(low, c.shape).copy()), vertex, mode)

    @property
    def variance(self):
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0**2 * (c0 + 1))

    def rsample(self, sample_shape=()):
        """Normalised Gamma(c, 1) draws, each with its implicit reparameterisation
        gradient (so the gradient flows to the concentration)."""
        shape = tuple(self._extended_shape(sample_shape))
        g = standard_gamma(self.concentration.expand(shape))
        x = g / g.sum(-1, keepdim=True)
        tiny = float(finfo(x).tiny)
        return x.clamp(min=tiny, max=1 - float(finfo(x).eps))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return xlogy(c - 1.0, value).sum(-1) + F.lgamma(c.sum(-1)) - F.lgamma(c).sum(-1)

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (
            F.lgamma(c).sum(-1)
            - F.lgamma(a0)
            - (k - a0) * F.digamma(a0)
            - ((c - 1.0) * F.digamma(c)).sum(-1)
        )
