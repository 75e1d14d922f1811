"""KL divergence KL(p || q): `kl_divergence` dispatches on the pair of types to the most
specific function registered with `register_kl` (torch.distributions.kl's rules)."""

import math
import warnings

from .. import creation
from .. import functions as F
from ._functions import solve_triangular
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis, _half_log_det
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform
from .utils import broadcast_shapes, softplus, sum_rightmost

_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator: `@register_kl(Normal, Normal) def kl(p, q): ...`."""
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p, type_q):
    """The registered pair nearest to (type_p, type_q) in both MROs; a tie between two
    different functions warns, as in PyTorch."""
    matches = [(p, q) for p, q in _KL_REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return NotImplemented

    def rank(pair):
        return type_p.__mro__.index(pair[0]), type_q.__mro__.index(pair[1])

    left = min(matches, key=rank)
    right = min(matches, key=lambda m: rank(m)[::-1])
    fl, fr = _KL_REGISTRY[left], _KL_REGISTRY[right]
    if fl is not fr:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please register_kl"
            f"({left[0].__name__}, {right[1].__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return fl


def kl_divergence(p, q):
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
            f"{type(q).__name__}"
        )
    return fun(p, q)


def _inf_where(cond, x):
    return F.where(cond, creation.full_like(x, math.inf), x)


def _zero_where(cond, x):
    return F.where(cond, creation.zeros_like(x), x)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _zero_where(p.probs == 0, _inf_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _zero_where(p.probs == 1, _inf_where(q.probs == 1, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    shape = t.shape
    t = _inf_where((q.probs == 0).expand(shape), t)
    t = _zero_where((p.probs == 0).expand(shape), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * F.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = F.lgamma(q.concentration) - F.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * F.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = F.lgamma(q.concentration1) + F.lgamma(q.concentration0) + F.lgamma(sum_p)
    t2 = F.lgamma(p.concentration1) + F.lgamma(p.concentration0) + F.lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * F.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * F.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * F.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = F.lgamma(sum_p) - F.lgamma(sum_q)
    t2 = (F.lgamma(p.concentration) - F.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = F.digamma(p.concentration) - F.digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes "
            "cannot be computed"
        )
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = _half_log_det(lq) - _half_log_det(lp)
    n = p.event_shape[0]
    # tr(Sigma_q^-1 Sigma_p) = |Lq^-1 Lp|_F^2
    term2 = (solve_triangular(lq, lp) ** 2).sum((-2, -1))
    term3 = _batch_mahalanobis(lq, q.loc - p.loc)
    out = half_term1 + 0.5 * (term2 + term3 - n)
    shape = tuple(broadcast_shapes(p.batch_shape, q.batch_shape))
    return out.expand(shape) if tuple(out.shape) != shape else out


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)
