"""nbgrad.nn: PyTorch's module API (Module, Parameter, layers, losses, init).

    import nbgrad as torch
    from nbgrad import nn

    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

Layers call `nbgrad.nn.functional`; see docs/api.md for what is covered.
"""

from . import functional, init, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parameter import Parameter

__all__ = ["Parameter", "functional", "init", "utils", *_modules_all]
from .. import _docs  # noqa: E402
from . import parallel  # noqa: E402, F401  (DistributedDataParallel)

_docs.attach(__name__, "nn")
_docs.attach(functional, "nn_functional")
_docs.attach(init, "nn_init")
_docs.attach(utils, "nn_utils")
_docs.attach(parallel, "nn_parallel")

from .._torch_names import module_getattr as _module_getattr  # noqa: E402

__getattr__ = _module_getattr("torch.nn")  # PyTorch's names say nbgrad lacks them
