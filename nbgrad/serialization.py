"""`nbgrad.save` / `nbgrad.load`: tensors and (nested) state dicts in a safe file format.

Format: a NumPy ``.npz`` archive (a zip of ``.npy`` files, readable with
``numpy.load(path)``). Every array is one member ``a0``, ``a1``, ...; the structure is a
UTF-8 JSON document stored as a uint8 array under ``__nbgrad__``::

    {"format": "nbgrad", "version": 1, "root": <value>}

where a value is JSON ``null``/``true``/``false``/number/string for Python scalars and
strings, or an object with a type tag ``"T"``:

    {"T": "tensor", "a": "a0", "rg": false}        nbgrad.Tensor (array a0)
    {"T": "parameter", "a": "a0", "rg": true}      nn.Parameter
    {"T": "ndarray", "a": "a1"}                    numpy array
    {"T": "list" | "tuple", "v": [values]}
    {"T": "dict", "k": [values], "v": [values], "ordered": bool}   keys may be any value
    {"T": "dtype", "v": "float32"}                 nbgrad.dtype
    {"T": "float", "v": "nan" | "inf" | "-inf"}    non-finite floats

Loading never unpickles anything (``numpy.load(..., allow_pickle=False)``, object arrays
are refused), so a file can only produce tensors, arrays, numbers, strings and the
containers above. Objects of any other type are refused on save. Tensors that share one
array when saved share one array when loaded.
"""

import contextlib
import io
import json
import math
import os
import stat
import threading
from collections import OrderedDict

import numpy as np

from nbgrad._array import contig

from . import _dtype
from ._lowp import bf16_bits, from_bf16_bits, tag
from .tensor import Tensor

# nn.Parameter, which sits above this module (`nn/parameter.py` puts it here at import)
PARAMETER = []

_MANIFEST = "__nbgrad__"
_VERSION = 1


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.by_id = {}

    def array(self, arr):
        key = self.by_id.get(id(arr))
        if key is None:
            if arr.dtype.hasobject:
                raise TypeError("nbgrad.save cannot store object arrays")
            key = f"a{len(self.arrays)}"
            self.arrays[key] = arr
            self.by_id[id(arr)] = key
        return key

    def enc(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, np.bool_):
            return int(obj)
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, (float, np.floating)):
            f = float(obj)
            if math.isfinite(f):
                return f
            return {"T": "float", "v": "nan" if f != f else ("inf" if f > 0 else "-inf")}
        if isinstance(obj, Tensor):
            kind = "parameter" if PARAMETER and isinstance(obj, PARAMETER[0]) else "tensor"
            dt = obj.dtype
            if dt in _dtype.LOWP:  # stored at their size: float16, or bfloat16's bit patterns
                arr = obj._data.astype(np.float16) if dt is _dtype.float16 else bf16_bits(obj._data)
                return {"T": kind, "a": self.array(arr), "rg": bool(obj._rg), "dt": dt.name}
            return {"T": kind, "a": self.array(obj._data), "rg": bool(obj._rg)}
        if isinstance(obj, np.ndarray):
            return {"T": "ndarray", "a": self.array(obj)}
        if isinstance(obj, _dtype.dtype):
            return {"T": "dtype", "v": obj.name}
        if isinstance(obj, dict):
            return {
                "T": "dict",
                "k": [self.enc(k) for k in obj.keys()],
                "v": [self.enc(v) for v in obj.values()],
                "ordered": isinstance(obj, OrderedDict),
            }
        if isinstance(obj, (list, tuple)):
            return {
                "T": type(obj).__name__ if type(obj) in (list, tuple) else "list",
                "v": [self.enc(v) for v in obj],
            }
        raise TypeError(
            f"nbgrad.save cannot store an object of type {type(obj).__name__}: it stores "
            "tensors, numpy arrays, numbers, strings, None, dtypes and lists/tuples/dicts "
            "of these (a safe format: nothing is pickled)"
        )


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Save `obj` (a tensor, a state dict, or nested lists/tuples/dicts of tensors,
    arrays, numbers and strings) to the path or binary file `f` (see the module docs)."""
    if pickle_module is not None:
        raise ValueError("nbgrad.save never pickles; pickle_module is not supported")
    w = _Writer()
    root = w.enc(obj)
    doc = json.dumps({"format": "nbgrad", "version": _VERSION, "root": root})
    arrays = dict(w.arrays)
    arrays[_MANIFEST] = np.frombuffer(doc.encode("utf-8"), np.uint8)
    if isinstance(f, (str, os.PathLike)):
        _replace_atomically(f, lambda fh: _write_npz(fh, arrays))
    else:
        _write_npz(f, arrays)


def _write_npz(fh, arrays):
    np.savez(fh, **arrays)


def _replace_atomically(path, write):
    """Write a new file beside `path` and rename it over `path` once complete and on disk:
    a save killed midway leaves the previous checkpoint intact (no half-written file)."""
    path = os.path.realpath(path)  # through a symlink, as open() would write
    head, tail = os.path.split(path)
    tmp = os.path.join(head, f".{tail}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    # os.open applies the umask, as open() does for a new file
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            if mode is not None:
                os.chmod(tmp, mode)  # an existing file keeps its permissions
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(head, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


class _Reader:
    def __init__(self, z):
        self.z = z
        self.cache = {}

    def array(self, key):
        arr = self.cache.get(key)
        if arr is None:
            if key not in self.z.files:
                raise ValueError(f"nbgrad.load: the file refers to a missing array {key!r}")
            arr = contig(self.z[key])
            self.cache[key] = arr
        return arr

    def dec(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, dict):
            t = v.get("T")
            if t in ("tensor", "parameter"):
                arr = self.array(v["a"])
                if v.get("dt") == "bfloat16" and arr.dtype == np.uint16:
                    arr, dt = from_bf16_bits(arr), _dtype.bfloat16
                else:  # refuses dtypes nbgrad does not have
                    dt = _dtype.from_numpy_dtype(arr.dtype)
                base = Tensor._make(
                    np.array(arr, np.float32) if dt in _dtype.LOWP else arr, -1, False
                )
                if t == "parameter":
                    base = PARAMETER[0](base, bool(v.get("rg", True)))
                    return tag(base, dt) if dt in _dtype.LOWP else base
                if dt in _dtype.LOWP:
                    tag(base, dt)
                if v.get("rg"):
                    base.requires_grad_(True)
                return base
            if t == "ndarray":
                return self.array(v["a"])
            if t in ("list", "tuple"):
                items = [self.dec(x) for x in v["v"]]
                return items if t == "list" else tuple(items)
            if t == "dict":
                keys = [self.dec(k) for k in v["k"]]
                keys = [tuple(k) if isinstance(k, list) else k for k in keys]
                vals = [self.dec(x) for x in v["v"]]
                return (OrderedDict if v.get("ordered") else dict)(zip(keys, vals))
            if t == "dtype":
                return _dtype.as_dtype(v["v"])
            if t == "float":
                return float(v["v"])
        raise ValueError(f"nbgrad.load: unrecognised entry in the file: {str(v)[:80]}")


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None, **kwargs):
    """Load what `save` wrote. Never unpickles (arrays are read with allow_pickle=False)."""
    if pickle_module is not None:
        raise ValueError("nbgrad.load never unpickles; pickle_module is not supported")
    if map_location not in (None, "cpu") and str(map_location) != "cpu":
        raise RuntimeError(f"nbgrad.load: nbgrad tensors live on the cpu, not {map_location}")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    try:
        z = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as e:
        raise RuntimeError(
            "nbgrad.load: not an nbgrad file (expected the .npz written by nbgrad.save)"
        ) from e
    if not isinstance(z, np.lib.npyio.NpzFile) or _MANIFEST not in z.files:
        raise RuntimeError(
            "nbgrad.load: not an nbgrad file (expected the .npz written by nbgrad.save)"
        )
    with z:
        doc = json.loads(bytes(z[_MANIFEST]).decode("utf-8"))
        if doc.get("format") != "nbgrad" or doc.get("version", 0) > _VERSION:
            raise RuntimeError("nbgrad.load: unsupported file format or version")
        return _Reader(z).dec(doc["root"])
