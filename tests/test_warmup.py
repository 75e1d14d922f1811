"""The compile notice (nbgrad/_compile_notice.py) and `python -m nbgrad.warmup`."""

import os
import shutil
import subprocess
import sys
import textwrap
import time
import types

import numba
import pytest

import nbgrad
from nbgrad import _compile_notice as notice
from nbgrad import warmup

NOTICE = "nbgrad: compiling kernels for first use"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRST_GRADIENT = (
    "import nbgrad as t; x = t.ones(3, requires_grad=True); (x * x).sum().backward(); "
    "assert x.grad.tolist() == [2.0, 2.0, 2.0]"
)


def _start(code, path=ROOT, **env):
    full = dict(os.environ, PYTHONPATH=str(path), **env)
    for k in ("NBGRAD_QUIET", "NBGRAD_COMPILE_NOTICE_AFTER"):
        if k not in env:
            full.pop(k, None)
    return subprocess.Popen(
        [sys.executable, "-c", code], env=full, cwd=path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip


def _finish(p):
    out, err = p.communicate(timeout=900)
    assert p.returncode == 0, err.decode()
    return err.decode()


def test_cold_cache_says_so_once_warm_and_quiet_say_nothing(tmp_path):
    # the package without the kernels its install compiled, so that everything compiles
    bare = tmp_path / "package"
    ignore = shutil.ignore_patterns("_kernels", "__pycache__")
    shutil.copytree(os.path.join(ROOT, "nbgrad"), bare / "nbgrad", ignore=ignore)
    # two cold caches compiling side by side: one announces it, one is told to be quiet
    loud = _start(FIRST_GRADIENT, bare, NBGRAD_CACHE_DIR=str(tmp_path / "loud"))
    quiet = _start(FIRST_GRADIENT, bare, NBGRAD_CACHE_DIR=str(tmp_path / "quiet"), NBGRAD_QUIET="1")
    err = _finish(loud)
    assert err.count(NOTICE) == 1, err
    assert str(tmp_path / "loud") in err and "python -m nbgrad.warmup" in err
    err = _finish(quiet)
    assert NOTICE not in err, err
    # the quiet run filled its cache: a process after it loads everything and says nothing
    err = _finish(_start(FIRST_GRADIENT, bare, NBGRAD_CACHE_DIR=str(tmp_path / "quiet")))
    assert NOTICE not in err, err
    # the loud run left its compile time for the next notice's estimate
    (record,) = (tmp_path / "loud").glob("last-compile-seconds")
    assert float(record.read_text()) >= notice.AFTER


@pytest.fixture
def fresh_notice(monkeypatch):
    """A notice not yet printed in this process, with a threshold of 50 ms."""
    monkeypatch.setattr(notice, "_state", dict(notice._state, said=False, total=0.0))
    monkeypatch.setattr(notice, "AFTER", 0.05)
    monkeypatch.setattr(notice, "_ENABLED", [True])
    monkeypatch.setattr(notice, "_record", lambda: None)


def _nbgrad_kernel(name):
    """A new jitted function that counts as nbgrad's (its module's name starts with nbgrad)."""
    ns = {"__name__": "nbgrad_test_" + name}
    exec(f"def {name}(x):\n    return x + 1\n", ns)
    return numba.njit(ns[name])


def test_notice_prints_once_while_a_long_compile_runs(fresh_notice, capsys):
    notice.enter()  # as Numba's compile event does
    try:
        time.sleep(0.3)
        assert capsys.readouterr().err.count(NOTICE) == 1  # printed by the timer, mid-compile
        _nbgrad_kernel("f")(1.0)
    finally:
        notice.leave()
    _nbgrad_kernel("g")(1.0)
    assert NOTICE not in capsys.readouterr().err


def test_short_compiles_add_up(fresh_notice, capsys):
    for _ in range(5):
        with notice.compiling():
            time.sleep(0.02)
    assert capsys.readouterr().err.count(NOTICE) == 1


def test_set_compile_notice_false_silences(fresh_notice, capsys):
    nbgrad.utils.set_compile_notice(False)
    with notice.compiling():
        time.sleep(0.1)
    _nbgrad_kernel("h")(1.0)
    assert capsys.readouterr().err == ""
    assert not notice._state["said"]


def test_user_kernels_do_not_count(fresh_notice, capsys):
    numba.njit(lambda x: x * 2)(1.0)
    assert notice._state["total"] == 0.0
    assert capsys.readouterr().err == ""


def test_warmup_compiles_what_a_first_gradient_needs(capsys):
    assert warmup.main([]) == 0
    out, err = capsys.readouterr()
    assert str(nbgrad._cache.DIR) in out and "compiled" in out
    n = len(warmup.steps())
    assert f"{n}/{n}" in err
    # a fresh process then compiles nothing of nbgrad's for its first gradient and MLP step
    code = textwrap.dedent("""
        from numba.core import event
        import nbgrad as t
        with event.install_recorder("numba:compile") as rec:
            x = t.ones(3, requires_grad=True); (x * x).sum().backward()
            m = t.nn.Linear(4, 2); opt = t.optim.Adam(m.parameters())
            t.nn.functional.cross_entropy(m(t.randn(3, 4)), t.tensor([0, 1, 0])).backward()
            opt.step()
        mods = [e.data["dispatcher"].py_func.__module__ for _, e in rec.buffer if e.is_start]
        print([m for m in mods if m.startswith("nbgrad")])
    """)
    p = _start(code)
    out, err = p.communicate(timeout=900)
    assert p.returncode == 0, err.decode()
    assert out.decode().strip() == "[]"


def test_warmup_quiet_and_all(capsys):
    assert len(warmup.steps(everything=True)) > len(warmup.steps())
    labels = [label for label, _ in warmup.steps()]
    assert any("float32" in s for s in labels) and any("float64" in s for s in labels)
    assert warmup.main(["--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    with pytest.raises(SystemExit):
        warmup.main(["--no-such-flag"])


def test_merge_adds_what_another_directory_compiled(tmp_path, monkeypatch):
    """`_cache.merge` (how `warmup --jobs` gathers its processes' work) adds another cache
    directory's entries under free names: both signatures then load without compiling."""

    # a cached function that counts as a generated module of nbgrad's: a real module, so
    # that loading its cached code can import it (Numba rebuilds the function's globals)
    mod = types.ModuleType("nbgrad_gen_merge_test")
    monkeypatch.setitem(sys.modules, mod.__name__, mod)

    def kernel():
        exec("def f(x):\n    return x + 1\n", mod.__dict__)
        return numba.njit(cache=True)(mod.f)

    for name, arg in (("a", 1), ("b", 1.5)):  # each directory's first entry: the same name
        monkeypatch.setattr(nbgrad._cache, "DIR", tmp_path / name)
        kernel()(arg)
    monkeypatch.setattr(nbgrad._cache, "DIR", tmp_path / "a")
    nbgrad._cache.merge(tmp_path / "b")
    f = kernel()
    assert f(2) == 3 and f(2.5) == 3.5
    assert sum(f.stats.cache_hits.values()) == 2 and not sum(f.stats.cache_misses.values())


def test_warmup_jobs_one_runs_in_this_process(capsys):
    assert warmup.main(["--jobs", "1"]) == 0
    n = len(warmup.steps())
    assert f"{n}/{n}" in capsys.readouterr().err


def test_steps_docstring_example_runs():
    import doctest

    test = doctest.DocTestParser().get_doctest(
        warmup.steps.__doc__, {"nbgrad": nbgrad}, "steps", None, 0
    )
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.failures == 0 and runner.tries == 1
