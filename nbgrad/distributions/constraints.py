"""Constraints on parameters and values (torch.distributions.constraints' names, reprs and
`check` results: a boolean tensor over the batch, `event_dim` rightmost dims reduced).

Checks are never differentiated: they run on the values' NumPy arrays."""

import numpy as np

from ..tensor import Tensor

__all__ = [
    "Constraint",
    "boolean",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "independent",
    "integer_interval",
    "interval",
    "half_open_interval",
    "less_than",
    "lower_cholesky",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "real",
    "real_vector",
    "simplex",
    "unit_interval",
]


class Constraint:
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


def _bound(v):
    return v.item() if isinstance(v, Tensor) and v.dim() == 0 else v


class _Dependent(Constraint):
    """A constraint whose support depends on other parameters (not checked)."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete = is_discrete
        self.event_dim = event_dim

    def __call__(self, *, is_discrete=None, event_dim=None):
        return _Dependent(
            is_discrete=self.is_discrete if is_discrete is None else is_discrete,
            event_dim=self.event_dim if event_dim is None else event_dim,
        )

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property whose value is a constraint that depends on the instance (a support that
    moves with the parameters, as Uniform's)."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)


def dependent_property(fn=None, *, is_discrete=False, event_dim=0):
    if fn is None:
        return lambda f: _DependentProperty(f, is_discrete=is_discrete, event_dim=event_dim)
    return _DependentProperty(fn, is_discrete=is_discrete, event_dim=event_dim)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        v = _np(value)
        return _bool((v == 0) | (v == 1), value)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        v = _np(value)
        return _bool(((v == 0) | (v == 1)).all(-1) & (v.sum(-1) == 1), value)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value):
        v, lo, hi = _np(value), _np(self.lower_bound), _np(self.upper_bound)
        return _bool((v % 1 == 0) & (lo <= v) & (v <= hi), value)

    def __repr__(self):
        return (
            f"IntegerInterval(lower_bound={_bound(self.lower_bound)}, "
            f"upper_bound={_bound(self.upper_bound)})"
        )


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        v = _np(value)
        return _bool((v % 1 == 0) & (v >= _np(self.lower_bound)), value)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={_bound(self.lower_bound)})"


class _Real(Constraint):
    def check(self, value):
        v = _np(value)
        return _bool(v == v, value)  # False only for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return _bool(_np(self.lower_bound) < _np(value), value)

    def __repr__(self):
        return f"GreaterThan(lower_bound={_bound(self.lower_bound)})"


class _GreaterThanEq(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return _bool(_np(self.lower_bound) <= _np(value), value)

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={_bound(self.lower_bound)})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return _bool(_np(value) < _np(self.upper_bound), value)

    def __repr__(self):
        return f"LessThan(upper_bound={_bound(self.upper_bound)})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def check(self, value):
        v = _np(value)
        return _bool((_np(self.lower_bound) <= v) & (v <= _np(self.upper_bound)), value)

    def __repr__(self):
        return (
            f"Interval(lower_bound={_bound(self.lower_bound)}, "
            f"upper_bound={_bound(self.upper_bound)})"
        )


class _HalfOpenInterval(_Interval):
    def check(self, value):
        v = _np(value)
        return _bool((_np(self.lower_bound) <= v) & (v < _np(self.upper_bound)), value)

    def __repr__(self):
        return "HalfOpen" + super().__repr__()


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        v = _np(value)
        return _bool((v >= 0).all(-1) & (np.abs(v.sum(-1) - 1) < 1e-6), value)


class _IndependentConstraint(Constraint):
    """`base` over `reinterpreted_batch_ndims` more rightmost dims (all must hold)."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = _np(self.base_constraint.check(value))
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {_np(value).ndim}")
        if n:
            result = result.reshape(result.shape[: result.ndim - n] + (-1,)).all(-1)
        return _bool(result, value)

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        a = _np(value)
        lower = (np.triu(a, 1) == 0).all((-2, -1))
        pos = (np.diagonal(a, axis1=-2, axis2=-1) > 0).all(-1)
        return _bool(lower & pos, value)


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        a = _np(value)
        sym = np.isclose(a, np.swapaxes(a, -1, -2), atol=1e-6).all((-2, -1))
        if not sym.all():
            return _bool(sym, value)
        ok = np.zeros(a.shape[:-2], bool)
        for i in np.ndindex(a.shape[:-2]):
            try:
                np.linalg.cholesky(a[i])
                ok[i] = True
            except np.linalg.LinAlgError:
                pass
        return _bool(ok, value)


def _np(v):
    """The value as a NumPy array (a host copy for CUDA tensors)."""
    if isinstance(v, Tensor):
        return v._data.host() if v.is_cuda else v._data
    return np.asarray(v)


def _bool(arr, like):
    out = Tensor._make(np.ascontiguousarray(arr, bool), -1, False)
    return out.to(like.device) if isinstance(like, Tensor) and like.is_cuda else out


boolean = _Boolean()
dependent = _Dependent()
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
independent = _IndependentConstraint
integer_interval = _IntegerInterval
interval = _Interval
half_open_interval = _HalfOpenInterval
less_than = _LessThan
lower_cholesky = _LowerCholesky()
nonnegative = _GreaterThanEq(0.0)
nonnegative_integer = _IntegerGreaterThan(0)
one_hot = _OneHot()
positive = _GreaterThan(0.0)
positive_definite = _PositiveDefinite()
real = _Real()
real_vector = _IndependentConstraint(real, 1)
simplex = _Simplex()
unit_interval = _Interval(0.0, 1.0)
