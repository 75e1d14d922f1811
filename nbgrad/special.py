"""nbgrad.special: the torch.special functions nbgrad has (elementwise, differentiable)."""

import math

from . import functions as _F

gammaln = _F.lgamma
digamma = psi = _F.digamma
erf = _F.erf
expit = _F.sigmoid


def ndtr(input):  # noqa: A002
    """The standard normal CDF."""
    return 0.5 * (1 + _F.erf(input * (1 / math.sqrt(2))))


__all__ = ["digamma", "erf", "expit", "gammaln", "ndtr", "psi"]
