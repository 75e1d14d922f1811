"""Docstrings of `nbgrad.save` and `nbgrad.load` (nbgrad/serialization.py)."""

DOCS = {
    "load": """Loads what `nbgrad.save` wrote. Never unpickles code (arrays are read with
    `allow_pickle=False`), as PyTorch's `weights_only=True`.

    Args:
        f (str, os.PathLike or file object): where to read.
        map_location (str or nbgrad.device, optional): the device to load tensors onto.
        weights_only (bool): accepted; loading is always restricted to data. Default: True.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> torch.save([torch.tensor(3.), 4], buf)
        >>> _ = buf.seek(0)
        >>> torch.load(buf)
        [tensor(3.), 4]
    """,
    "save": """Saves a tensor, a state dict, or nested lists, tuples and dicts of tensors, arrays,
    numbers and strings, to a path or a binary file.

    Args:
        obj: what to save.
        f (str, os.PathLike or file object): where to write.

    nbgrad's format is its own (no pickled code): files are read by `nbgrad.load`, not by
    PyTorch.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> torch.save({"w": torch.tensor([1., 2.])}, buf)
        >>> _ = buf.seek(0)
        >>> torch.load(buf)
        {'w': tensor([1., 2.])}
    """,
}
