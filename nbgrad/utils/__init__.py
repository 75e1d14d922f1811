"""nbgrad.utils: PyTorch's torch.utils for what nbgrad covers (`data`, `checkpoint`)."""

from . import checkpoint, data  # noqa: F401
from .._compile_notice import set_compile_notice  # noqa: E402, F401
