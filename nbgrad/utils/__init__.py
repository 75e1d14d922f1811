"""nbgrad.utils: PyTorch's torch.utils for what nbgrad covers (`data`, `checkpoint`,
`hooks`), and `set_compile_notice`, nbgrad's own.

`data` and `checkpoint` load on first use: `hooks` is imported with nbgrad itself (every
hook registration returns its handle), and `data` alone takes longer to import than that."""

from .._compile_notice import set_compile_notice  # noqa: F401
from . import hooks  # noqa: F401


def __getattr__(name):
    if name in ("data", "checkpoint"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
