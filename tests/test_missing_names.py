"""A PyTorch name nbgrad lacks raises an AttributeError that says so; other names keep
Python's usual AttributeError, and hasattr() is False for both."""

import ast
import subprocess
import sys

import pytest

import nbgrad
from nbgrad import _torch_names

MISSING = "nbgrad does not implement PyTorch's"


def _targets():
    import nbgrad.nn
    import nbgrad.nn.functional
    import nbgrad.optim

    x = nbgrad.ones(2, 2)
    return [
        ("torch", nbgrad),
        ("torch.nn", nbgrad.nn),
        ("torch.nn.functional", nbgrad.nn.functional),
        ("torch.optim", nbgrad.optim),
        ("torch.Tensor", nbgrad.Tensor),
        ("torch.Tensor", x),
        ("torch.Tensor", nbgrad.nn.Parameter(x)),
    ]


def _lacking(path, obj):
    """Some names PyTorch has at `path` that `obj` lacks (computed, not hand-picked)."""
    names = sorted(n for n in _torch_names.NAMES[path] if not hasattr(obj, n))
    assert names, f"nbgrad has every name of {path}?"
    return names[:: max(1, len(names) // 25)]


@pytest.mark.parametrize("i", range(7))
def test_a_pytorch_name_nbgrad_lacks_says_so(i):
    path, obj = _targets()[i]
    for name in _lacking(path, obj):
        with pytest.raises(AttributeError) as e:
            getattr(obj, name)
        msg = str(e.value)
        assert msg.startswith(MISSING), msg
        assert f"`{path}.{name}`" in msg and "docs/api.md" in msg
        assert "nbgrad/" not in msg and ".py" not in msg  # no internal module path
        assert e.value.name == name
        assert not hasattr(obj, name)


@pytest.mark.parametrize("i", range(7))
def test_a_name_pytorch_lacks_keeps_the_usual_error(i):
    path, obj = _targets()[i]
    for name in ("no_such_name", "Frobnicate", "_private_thing", "__foo__"):
        assert name not in _torch_names.NAMES[path]
        with pytest.raises(AttributeError) as e:
            getattr(obj, name)
        msg = str(e.value)
        assert MISSING not in msg
        assert msg.endswith(f"has no attribute {name!r}"), msg
        assert not hasattr(obj, name)


def test_usual_messages_name_the_object():
    with pytest.raises(AttributeError, match=r"^module 'nbgrad' has no attribute 'zork'$"):
        nbgrad.zork
    with pytest.raises(AttributeError, match=r"^module 'nbgrad.nn' has no attribute 'Zork'$"):
        nbgrad.nn.Zork
    with pytest.raises(AttributeError, match=r"^'Tensor' object has no attribute 'zork'$"):
        nbgrad.ones(1).zork
    with pytest.raises(AttributeError, match=r"^type object 'Tensor' has no attribute 'zork'$"):
        nbgrad.Tensor.zork


def test_names_nbgrad_has_are_untouched():
    x = nbgrad.ones(2)
    assert nbgrad.zeros is not None and nbgrad.nn.Linear and nbgrad.optim.SGD
    assert x.sum().item() == 2.0 and nbgrad.Tensor.sum
    # lazily imported subpackages still load
    assert nbgrad.func.grad and nbgrad.special.erf


def test_an_attribute_error_inside_a_property_is_not_masked():
    class Broken(nbgrad.Tensor):
        __slots__ = ()

        @property
        def grad_fn(self):  # a PyTorch name, failing inside
            raise AttributeError("inner failure")

    t = nbgrad.ones(1)
    t.__class__ = Broken
    with pytest.raises(AttributeError, match="inner failure"):
        t.grad_fn


def test_unset_private_slot_reads_as_plain_attribute_error():
    assert getattr(nbgrad.ones(1), "_post_hooks", None) is None


def test_works_without_torch():
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import nbgrad\n"
        "try:\n    nbgrad.nn.functional.gumbel_softmax\n"
        "except AttributeError as e:\n    print(e)\n"
        "print(hasattr(nbgrad, 'fft'), 'torch' in sys.modules and sys.modules['torch'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert MISSING + " `torch.nn.functional.gumbel_softmax`" in out
    assert out.strip().endswith("False None")


def test_the_name_lists_are_torchs():
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13.0"):
        pytest.skip("the lists were generated from torch 2.13.0")
    # in a fresh process: torch's namespace grows as other tests import its submodules
    code = "from nbgrad._torch_names import _generate; print(repr(_generate()[1]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    table = ast.literal_eval(out.stdout)
    assert {p: frozenset(v) for p, v in table.items()} == _torch_names.NAMES
    for path, names in _torch_names.NAMES.items():
        assert not any(n.startswith("_") for n in names)
        assert ("os" in names, "math" in names) == (False, False), path
