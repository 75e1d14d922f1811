"""nbgrad.utils: PyTorch's torch.utils for what nbgrad covers (`data`, `checkpoint`), and
`set_compile_notice`, nbgrad's own."""

from .._compile_notice import set_compile_notice  # noqa: F401
from . import checkpoint, data  # noqa: F401
