"""Every public callable carries a PyTorch-style docstring (a one-line summary, Args where it
takes any, an Example), and every Example runs and prints what it shows (doctest).

"Public" is what docs/api.md lists (tests/test_api_docs.py keeps that list complete). Expected
outputs in the examples are PyTorch's, with nbgrad's names (`nbgrad.Size`, `nbgrad.float64`):
where PyTorch is installed, each example also runs against it and must print the same.
"""

import doctest
import importlib.util
import inspect
import re
import types
from pathlib import Path

import pytest
from test_api_docs import _public, _sections, _target

import nbgrad
import nbgrad.nn.functional as F
from nbgrad import nn

REFERENCE = Path(__file__).resolve().parent.parent / "docs"
# Public names that are not documented objects of their own, with the reason.
NOT_DOCUMENTED = {
    "Tensor.is_cuda": "a class attribute holding a bool (a bool has no docstring of its own)",
}
# Documented, but with no Example, with the reason.
NO_EXAMPLE = {
    f"distributed.{name}": "a message needs a second process; the docstring shows a two-rank "
    "snippet instead of a doctest"
    for name in ("send", "recv", "isend", "irecv")
}
# Examples that show nbgrad-only behaviour, so they are not run against PyTorch.
NBGRAD_ONLY = {
    "manual_seed": "returns None; PyTorch's returns its Generator, which the example would print",
    "randn": "calls manual_seed (as above)",
    "cuda.is_simulated": "nbgrad only (PyTorch has no CUDA simulator)",
    "compile": "PyTorch's compile would build C++ kernels: slow, and needs a compiler",
    "warmup.main": "nbgrad only (PyTorch compiles nothing ahead of time this way)",
    "warmup.steps": "as warmup.main",
    "utils.set_compile_notice": "nbgrad only (the notice of nbgrad's kernel compiler)",
}
# Modules whose examples run in nbgrad only, with the reason.
NBGRAD_ONLY_MODULES = {
    "distributed": "the examples run in a world of one process, which PyTorch cannot start "
    "without a rendezvous address",
    "nn.parallel": "as distributed",
}


def _lookup(path, name):
    target = _target(path)
    if isinstance(target, type):  # a property's docstring is on the property object
        for klass in target.__mro__:
            if name in klass.__dict__:
                member = klass.__dict__[name]
                return member if isinstance(member, property) else getattr(target, name)
    return getattr(target, name)


def _documented():
    """{qualified name: object} of every public function, class, method and property."""
    out = {}
    for path in _sections():
        for name in sorted(_public(path)):
            obj = _lookup(path, name)
            if not (callable(obj) or isinstance(obj, property)) or isinstance(
                obj, types.ModuleType
            ):
                continue  # dtypes and other constants
            qual = f"{path.removeprefix('nbgrad.').removeprefix('nbgrad')}.{name}".lstrip(".")
            out[qual] = obj
    for qual in NOT_DOCUMENTED:
        out.pop(qual, None)
    return out


DOCUMENTED = _documented()
# an object under several names (aliases like `clip`/`clamp`) is run once
EXAMPLES = {}
for _qual, _obj in DOCUMENTED.items():
    if ">>> " in (_obj.__doc__ or "") and all(o is not _obj for o in EXAMPLES.values()):
        EXAMPLES[_qual] = _obj


def test_every_public_callable_has_a_docstring():
    problems = []
    for qual, obj in DOCUMENTED.items():
        doc = inspect.cleandoc(obj.__doc__ or "")
        if isinstance(obj, type) and obj.__doc__ is None:
            doc = ""
        summary = doc.split("\n\n")[0] if doc else ""
        if len(summary) < 15:
            problems.append(f"{qual}: no one-line summary")
        elif qual not in NO_EXAMPLE and ("Example::" not in doc or ">>> " not in doc):
            problems.append(f"{qual}: no Example section")
    assert not problems, "\n".join(problems)


def test_allowlists_name_public_names():
    for qual in [*NOT_DOCUMENTED, *NO_EXAMPLE, *NBGRAD_ONLY]:
        path, _, name = ("nbgrad." + qual).rpartition(".")
        assert hasattr(_target(path if path != "nbgrad.Tensor" else "nbgrad.Tensor"), name), qual


def _run(obj, name, torch_module, nn_module, f_module, transform=None):
    globs = {"torch": torch_module, "nbgrad": torch_module, "nn": nn_module, "F": f_module}
    test = doctest.DocTestParser().get_doctest(obj.__doc__, globs, name, None, 0)
    if transform:
        for ex in test.examples:
            ex.want = transform(ex.want)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_docstring_example_runs(name):
    nbgrad.manual_seed(0)
    result = _run(EXAMPLES[name], name, nbgrad, nn, F)
    assert result.attempted > 0 and result.failed == 0, f"{name}: example failed (see above)"


def _to_torch(want):
    return re.sub(r"\bnbgrad\.(Size|float|int|bool|long|double|half|bfloat)", r"torch.\1", want)


def _nbgrad_only(name):
    return name in NBGRAD_ONLY or name.rpartition(".")[0] in NBGRAD_ONLY_MODULES


@pytest.mark.parametrize("name", [n for n in EXAMPLES if not _nbgrad_only(name=n)])
def test_docstring_example_output_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    result = _run(EXAMPLES[name], name, torch, torch.nn, torch.nn.functional, _to_torch)
    assert result.failed == 0, f"{name}: PyTorch prints something else (see above)"


def test_the_api_reference_pages_are_up_to_date():
    """docs/reference/*.md list every public name (regenerate: python docs/gen_reference.py)."""
    spec = importlib.util.spec_from_file_location("gen_reference", REFERENCE / "gen_reference.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for name, text in gen.render(DOCUMENTED).items():
        path = REFERENCE / "reference" / name
        assert path.exists() and path.read_text() == text, (
            f"docs/reference/{name} is out of date: run python docs/gen_reference.py"
        )
