"""nbgrad.utils: PyTorch's torch.utils for what nbgrad covers (`data`, `checkpoint`)."""

from . import checkpoint, data  # noqa: F401
