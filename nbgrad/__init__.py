"""nbgrad: reverse-mode autodiff with PyTorch's autograd API, compiled by Numba.

    import nbgrad as torch

works for the subset nbgrad covers. See README.md and docs/.
"""

import numba as _numba

# the tape and the backward sweep are compiled intrinsics with no pure-Python form
if _numba.config.DISABLE_JIT:
    raise ImportError(
        "nbgrad cannot run with NUMBA_DISABLE_JIT=1: its tape and backward pass are compiled "
        "Numba intrinsics that have no pure-Python version. Unset NUMBA_DISABLE_JIT to use "
        "nbgrad (a Python debugger still steps through your own code and nbgrad's Python "
        "layers; only the kernels are compiled)."
    )

from . import _cache, _threads  # noqa: F401  (_threads starts Numba's pool, first)

with _cache.numba_cache_dir():
    from . import _dtype
    from .autograd import engine as _engine  # noqa: F401
    from .autograd import function as _function  # noqa: F401
    from .tensor import Tensor, is_tensor  # registers the op table (tensor imports ops)

from . import autograd
from ._dtype import (
    bfloat16,
    double,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    iinfo,
    int32,
    int64,
    long,
    promote_types,
    result_type,
    set_default_dtype,
)
from ._dtype import (
    bool_ as bool,  # noqa: A004
)
from ._dtype import float_ as float  # noqa: A004
from ._dtype import int_ as int  # noqa: A004
from ._generator import Generator
from ._quantiles import median, nanmedian, nanquantile, quantile  # noqa: E402
from ._settings import (
    are_deterministic_algorithms_enabled,
    get_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    set_num_threads,
    use_deterministic_algorithms,
)
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

# sorting, triangles, running products, products and rearrangements (nbgrad/ops/), and
# torch.linalg with its top-level aliases
from . import linalg  # noqa: E402
from .linalg import cholesky_solve, det, logdet, slogdet  # noqa: E402
from .linalg import inv as inverse  # noqa: E402
from .ops.cumulative import cummax, cummin, cumprod, logcumsumexp  # noqa: E402
from .ops.products import addmm, baddbmm, cdist, kron, tensordot  # noqa: E402
from .ops.rearrange import cartesian_prod, meshgrid, repeat_interleave, roll  # noqa: E402
from .ops.sorting import (  # noqa: E402
    argsort,
    bucketize,
    histc,
    kthvalue,
    msort,
    searchsorted,
    sort,
    topk,
    unique,
)
from .ops.triangular import (  # noqa: E402
    diag,
    diag_embed,
    diagonal,
    trace,
    tril,
    tril_indices,
    triu,
    triu_indices,
)

# the ops behind nn's layers define kernels: imported here, under the hashed cache dir too
# (Numba's own cache would not notice edits to the helpers they inline)
with _cache.numba_cache_dir():
    from . import cuda  # noqa: E402
    from .ops import attention as _attention  # noqa: E402, F401
    from .ops import conv as _conv  # noqa: E402, F401
    from .ops import linear as _linear  # noqa: E402, F401
    from .ops import losses as _losses  # noqa: E402, F401
    from .ops import normalization as _normalization  # noqa: E402, F401
    from .ops import recurrent as _recurrent  # noqa: E402, F401
from . import _docstrings  # noqa: E402, F401  (attaches docstrings of op functions)
from .serialization import load, save  # noqa: E402

# nn, optim, func and compile load on first use: a fresh process's first gradient needs
# none of them, and importing them cost about a tenth of `import nbgrad`
_LAZY: tuple[str, ...] = ("nn", "optim", "func", "distributions", "special")


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")  # optim enters the cache dir
    if name == "vmap":  # torch.vmap is torch.func.vmap
        from .func import vmap

        return vmap
    from ._torch_names import missing

    raise missing("torch", name)  # PyTorch's names say nbgrad lacks them


def __dir__():
    return sorted([*globals(), *_LAZY, "vmap"])


def compile(fn=None, **kwargs):  # noqa: A001
    """Compiles `fn` (a function or Module): the first call with each input signature runs
    eagerly while it is traced, later calls run the traced forward and backward as one
    compiled call. Without `fn`, returns a decorator. Outputs are detached, so compute
    gradients inside `fn` (see docs/compile.md for this and what falls back to eager).

    Args:
        fn (callable, optional): the function or module.
        fallback (str): what to do when a call cannot be compiled: run it eagerly with a
            warning (`"warn"`), without one (`"silent"`), or raise (`"raise"`).
            Default: `"warn"`.

    Example::

        >>> @torch.compile
        ... def grad_of(x):
        ...     return torch.autograd.grad((x.sin() * 2).sum(), x)[0]
        >>> x = torch.tensor([0., 1.], requires_grad=True)
        >>> grad_of(x)
        tensor([2.0000, 1.0806])
        >>> grad_of(x)
        tensor([2.0000, 1.0806])
    """
    with _cache.numba_cache_dir():
        from ._compile import compile as impl
    return impl(fn, **kwargs)


_LAZY += ("utils", "distributed")  # data loading (nbgrad.utils.data), MPI collectives

from .autograd.anomaly_mode import (  # noqa: E402
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)


def _keep_lowp():
    """float16/bfloat16 inputs give float16/bfloat16 results through the module-level
    functions, as in PyTorch (`_lowp.py`): every public function but the elementwise fast
    ones, whose generic path is wrapped instead."""
    from . import _lowp, _mt
    from .ops import pointwise

    fast = {n for n, f in globals().items() if getattr(f, "__code__", None) in _mt.CRITICAL}
    _lowp.keep_lowp_in(globals(), [n for n in globals() if not n.startswith("_")], fast)
    pointwise.unary = _lowp.keeps_lowp(pointwise.unary)
    pointwise.binary = _lowp.keeps_lowp(pointwise.binary)


_keep_lowp()
