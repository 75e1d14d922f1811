"""The generated-module loader: bytecode cached beside the source, keyed by that source."""

import marshal
import sys

from nbgrad import _cache
from nbgrad.backends.cpu import codegen

NAME = "nbgrad_test_generated_module"


def _load(src):
    sys.modules.pop(NAME, None)
    return codegen.load_module(NAME, src)


def test_generated_bytecode_is_reused_and_never_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "DIR", tmp_path)
    try:
        assert _load("X = 1\n").X == 1
        (code,) = tmp_path.glob(NAME + ".*.code")
        # a fresh load of the same source runs the cached bytecode, not the source
        code.write_bytes(marshal.dumps(compile("X = 3\n", "x", "exec")))
        assert _load("X = 1\n").X == 3
        assert _load("X = 2\n").X == 2  # new source: new bytecode
        for p in tmp_path.glob("*.code"):
            p.write_bytes(b"not bytecode")
        assert _load("X = 2\n").X == 2  # unreadable bytecode: compiled again
    finally:
        sys.modules.pop(NAME, None)
