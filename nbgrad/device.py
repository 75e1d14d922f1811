"""`nbgrad.device` and parsing of `.to(...)` arguments."""

from . import _dtype


class device:
    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        if ":" in type:
            type, idx = type.split(":")
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}"
            )
        self.type, self.index = type, index

    def __repr__(self):
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{idx})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


CPU = device("cpu")


def parse_to_args(args, dtype, dev):
    for a in args:
        if isinstance(a, _dtype.dtype) or a in (float, int, bool):
            dtype = a
        elif isinstance(a, (str, device)):
            dev = device(a)
        elif hasattr(a, "_data") and hasattr(a, "dtype"):  # a Tensor: take its dtype/device
            dtype, dev = a.dtype, a.device
        else:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
    if isinstance(dev, str):
        dev = device(dev)
    return dev, dtype
