"""nbgrad.utils: PyTorch's torch.utils for what nbgrad covers (`data`)."""

from . import data  # noqa: F401
