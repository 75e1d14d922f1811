"""The generated-module loader: bytecode cached beside the source, keyed by that source."""

import marshal
import sys

from nbgrad import _cache
from nbgrad.backends.cpu import codegen

NAME = "nbgrad_test_generated_module"


def _load(src):
    """A load as a fresh process makes it (a process hands out a loaded module once)."""
    sys.modules.pop(NAME, None)
    codegen._LOADED.pop(NAME, None)
    return codegen.load_module(NAME, src)


def test_generated_bytecode_is_reused_and_never_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(_cache, "DIR", tmp_path)
    try:
        assert _load("X = 1\n").X == 1
        (code,) = tmp_path.glob(NAME + ".*.code")
        # a fresh load of the same source runs the cached bytecode, not the source
        path = str(tmp_path / f"{NAME}.py")
        code.write_bytes(marshal.dumps(compile("X = 3\n", path, "exec")))
        assert _load("X = 1\n").X == 3
        # unless it was compiled at another path (a prebuilt cache): tracebacks name the file
        code.write_bytes(marshal.dumps(compile("X = 3\n", "elsewhere.py", "exec")))
        assert _load("X = 1\n").X == 1
        assert _load("X = 2\n").X == 2  # new source: new bytecode
        for p in tmp_path.glob("*.code"):
            p.write_bytes(b"not bytecode")
        assert _load("X = 2\n").X == 2  # unreadable bytecode: compiled again
    finally:
        sys.modules.pop(NAME, None)
        codegen._LOADED.pop(NAME, None)


def test_generated_files_survive_concurrent_writers(tmp_path):
    """Test workers starting together write the same generated module: each writer's
    temporary file must be its own (a shared name let one rename another's file away:
    FileNotFoundError while importing nbgrad)."""
    import threading

    from nbgrad.backends.cpu.codegen import _write

    path = tmp_path / "mod.py"
    payloads = [f"x = {i}\n".encode() * 2000 for i in range(4)]
    errors = []

    def writer(data):
        try:
            for _ in range(200):
                _write(path, data)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert path.read_bytes() in payloads
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mod.py"]  # no temporaries left
