"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril), computed
from the lower Cholesky factor of the covariance."""

import math

import numpy as np

from .. import creation
from . import constraints
from ._functions import cholesky, diagonal, solve_triangular
from .distribution import Distribution
from .utils import broadcast_shapes, lazy_property, randn


def _identity(like):
    n = like.shape[-1]
    return creation.tensor(np.eye(n, dtype=like._data.dtype))


def _precision_to_scale_tril(p):
    # Sigma = P^-1 = (Lp^-1)^T (Lp^-1) with P = Lp Lp^T; then its own Cholesky factor
    w = solve_triangular(cholesky(p), _identity(p))
    return cholesky(w.transpose(-1, -2) @ w)


def _batch_mahalanobis(low, x):
    """|L^-1 x|^2 over the last dim of x (batch dims broadcast)."""
    y = solve_triangular(low, x.unsqueeze(-1)).squeeze(-1)
    return (y * y).sum(-1)


def _half_log_det(low):
    return diagonal(low).log().sum(-1)


class MultivariateNormal(Distribution):
    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args=None,
    ):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, scale_tril, precision_matrix)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        for name, m in (
            ("scale_tril", scale_tril),
            ("covariance_matrix", covariance_matrix),
            ("precision_matrix", precision_matrix),
        ):
            if m is None:
                continue
            if m.dim() < 2:
                raise ValueError(
                    f"{name} matrix must be at least two-dimensional, with optional leading "
                    "batch dimensions"
                    if name == "scale_tril"
                    else f"{name} must be at least two-dimensional, with optional leading "
                    "batch dimensions"
                )
            batch = broadcast_shapes(m.shape[:-2], loc.shape[:-1])
            setattr(self, name, m.expand(tuple(batch) + tuple(m.shape[-2:])))
            given_matrix = m
        self.loc = loc.expand(tuple(batch) + (loc.shape[-1],))
        super().__init__(batch, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = given_matrix
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(given_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(given_matrix)

    def expand(self, batch_shape, _instance=None):
        return self._expanded(
            batch_shape,
            ("loc", "covariance_matrix", "scale_tril", "precision_matrix"),
            _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril,
        )

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        low = self._unbroadcasted_scale_tril
        return (low @ low.transpose(-1, -2)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        w = solve_triangular(self._unbroadcasted_scale_tril, _identity(self.loc))
        return (w.transpose(-1, -2) @ w).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        low = self._unbroadcasted_scale_tril
        return (low * low).sum(-1).expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = randn(shape, self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + m) - _half_log_det(
            self._unbroadcasted_scale_tril
        )

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril)
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
