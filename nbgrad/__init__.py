"""nbgrad: reverse-mode autodiff with PyTorch's autograd API, compiled by Numba.

    import nbgrad as torch

works for the subset nbgrad covers. See README.md and docs/.
"""

from . import _cache

with _cache.numba_cache_dir():
    from . import _dtype
    from .autograd import engine as _engine  # noqa: F401
    from .autograd import function as _function  # noqa: F401
    from .tensor import Tensor, is_tensor  # registers the op table (tensor imports ops)

from . import autograd
from ._dtype import (
    bool_ as bool,  # noqa: A004
)
from ._dtype import (
    double,
    dtype,
    float32,
    float64,
    get_default_dtype,
    int32,
    int64,
    long,
    promote_types,
    set_default_dtype,
)
from ._dtype import float_ as float  # noqa: A004
from ._dtype import int_ as int  # noqa: A004
from ._size import Size
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .creation import (
    BoolTensor,
    DoubleTensor,
    FloatTensor,
    LongTensor,
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    tensor,
    zeros,
    zeros_like,
)
from .device import device
from .functions import *  # noqa: F403

__version__ = "0.1.0"
# nn imports ops/losses.py: its kernels must be defined under the hashed cache dir too
# (Numba's own cache would not notice edits to the helpers they inline)
with _cache.numba_cache_dir():
    from . import cuda, func, nn, optim  # noqa: E402
from ._compile import compile  # noqa: E402, A004
from .serialization import load, save  # noqa: E402
