"""nbgrad.special: the torch.special functions nbgrad has (elementwise, differentiable)."""

import math

from . import functions as _F

gammaln = _F.lgamma
digamma = psi = _F.digamma
erf = _F.erf
expit = _F.sigmoid


def ndtr(input):  # noqa: A002
    """Computes the standard normal cumulative distribution function of each element:
    the area under the standard Gaussian density from minus infinity to `input`.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> torch.special.ndtr(torch.tensor([-3., -1., 0., 1., 3.]))
        tensor([0.0013, 0.1587, 0.5000, 0.8413, 0.9987])
    """
    return 0.5 * (1 + _F.erf(input * (1 / math.sqrt(2))))


__all__ = ["digamma", "erf", "expit", "gammaln", "ndtr", "psi"]
