"""The package's layers import only downward (docs/design.md, "Layers").

Every import counts, at module level or inside a function. From the bottom:

- base: the tape and its row writers, dtypes, sizes, caches, threads, the op table
  (`_optable.py`), version counters (`_versions.py`), the grad-mode flag;
- backends (`backends/cpu`, `backends/cuda`): kernels and launchers, importing only the base
  and each other;
- ops: nothing from autograd but the grad-mode flag, nothing from the library layer;
- the library layer (`nn`, `optim`, `utils`, `distributed`, `distributions`, and the
  transforms `_compile` and `func`): imported by nothing below it.

The imports that still break a rule are listed in KNOWN with the reason each remains; the
test fails on any other, and on a listed one that no longer exists (so the list shrinks as
they are fixed, and never hides a new one).
"""

import ast
from pathlib import Path

import nbgrad

ROOT = Path(nbgrad.__file__).parent

BASE = {
    "nbgrad._array", "nbgrad._atomic", "nbgrad._cache", "nbgrad._compile_notice",
    "nbgrad._dtype", "nbgrad._mt", "nbgrad._optable", "nbgrad._settings", "nbgrad._size",
    "nbgrad._threads", "nbgrad._versions", "nbgrad.tape", "nbgrad.autograd.grad_mode",
    # raw pointers and external symbols, which the tape's compiled row writers use (they
    # import nothing of nbgrad)
    "nbgrad.backends.cpu.memory", "nbgrad.backends.cpu.extern",
}  # fmt: skip
LIBRARY = ("nn", "optim", "utils", "distributed", "distributions", "_compile", "func")
ABOVE_OPS = ("autograd", "library")

# (importer, imported) -> why it remains
KNOWN: dict = {}


def _module(path):
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(name):
    """The module `name` refers to: itself if it is one, else its package (an attribute)."""
    while name:
        rel = Path(*name.split("."))
        if (ROOT.parent / rel).is_dir() or (ROOT.parent / rel).with_suffix(".py").is_file():
            return name
        name = name.rpartition(".")[0]
    return name


def _imports(path, mod):
    """Every nbgrad module that `path`, module `mod`, imports (module level or inside
    functions)."""
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            names = [f"{src}.{a.name}" for a in node.names]  # a submodule, or a name in src
        else:
            continue
        for n in names:
            if n == "nbgrad" or n.startswith("nbgrad."):
                yield _resolve(n)


def _layer(m):
    if m in BASE:
        return "base"
    part = m.split(".")[1] if "." in m else ""
    if part == "backends":
        return "backends"
    if part == "ops":
        return "ops"
    if part in LIBRARY:
        return "library"
    return part


def _broken(src, dst):
    """Which rule `src` importing `dst` breaks, or None."""
    a, b = _layer(src), _layer(dst)
    if a == "base" and b != "base":
        return "the base imports only the base"
    if a == "backends" and b not in ("base", "backends"):
        return "backends import only backends and the base"
    if a == "ops" and b in ABOVE_OPS and dst != "nbgrad.autograd.grad_mode":
        return "ops import nothing from autograd or the library layer"
    if b == "library" and a != "library" and src != "nbgrad":
        return "the library layer is imported by nothing below it"
    return None


def _violations():
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        if "_kernels" in path.parts:  # generated modules
            continue
        src = _module(path)
        for dst in _imports(path, src):
            rule = _broken(src, dst)
            if rule:
                found[(src, dst)] = rule
    return found


def test_imports_go_only_downward():
    found = _violations()
    new = {k: v for k, v in found.items() if k not in KNOWN}
    assert not new, "imports against the layers:\n" + "\n".join(
        f"  {s} -> {d}: {why}" for (s, d), why in sorted(new.items())
    )
    gone = sorted(k for k in KNOWN if k not in found)
    assert not gone, f"fixed, remove from KNOWN: {gone}"


def test_the_scan_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The checker itself: upward imports hidden in a function are found and judged."""
    path = tmp_path / "probe.py"
    path.write_text(
        "from . import views\n"
        "def f():\n    from ..nn import functional\n    import nbgrad.optim.sgd\n"
    )
    got = set(_imports(path, "nbgrad.ops.probe"))
    assert got == {"nbgrad.ops.views", "nbgrad.nn.functional", "nbgrad.optim.sgd"}
    assert _broken("nbgrad.ops.probe", "nbgrad.nn.functional")
    assert _broken("nbgrad.ops.probe", "nbgrad.optim.sgd")
    assert _broken("nbgrad.tape", "nbgrad.ops.views")
    assert _broken("nbgrad.backends.cpu.blas", "nbgrad.autograd.engine")
    assert _broken("nbgrad.tensor", "nbgrad.nn.parameter")
    assert _broken("nbgrad.ops.views", "nbgrad.autograd.grad_mode") is None
    assert _broken("nbgrad.nn.functional", "nbgrad.ops.views") is None
