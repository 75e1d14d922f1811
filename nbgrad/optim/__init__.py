"""nbgrad.optim: SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam, LBFGS
and lr schedulers, with torch.optim's API.

For SGD, Adam(W) and RMSprop each `step()` is one compiled kernel call that updates every
parameter that has a gradient (all param groups together), reading and writing
parameters, gradients and state buffers in place; the others update each parameter with
NumPy expressions in place (`_host.py`).
"""

from .. import _cache

with _cache.numba_cache_dir():
    from ..backends.cpu import optim as _kernels  # noqa: F401

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = [
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "Adamax",
    "NAdam",
    "RAdam",
    "LBFGS",
    "Optimizer",
    "lr_scheduler",
]

from .. import _docs  # noqa: E402

_docs.attach(__name__, "optim")
_docs.attach(lr_scheduler, "lr_scheduler")

from .._torch_names import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.optim")  # PyTorch's names say nbgrad lacks them
