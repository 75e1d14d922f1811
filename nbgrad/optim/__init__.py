"""nbgrad.optim: SGD, Adam, AdamW, RMSprop and lr schedulers, with torch.optim's API.

Each `step()` is one compiled kernel call that updates every parameter that has a
gradient (all param groups together), reading and writing parameters, gradients and
state buffers in place.
"""

from .. import _cache

with _cache.numba_cache_dir():
    from . import _kernels  # noqa: F401

from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Optimizer", "lr_scheduler"]
