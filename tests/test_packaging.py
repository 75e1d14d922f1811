"""What a user installing nbgrad meets: the wheel's contents, kernels compiled at install
time and used wherever the package and the cache are, a clear refusal of NUMBA_DISABLE_JIT,
and CUDA tests that skip when no CUDA target is installed."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _env(**extra):
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_numba_disable_jit_is_refused_at_import():
    p = subprocess.run(
        [sys.executable, "-c", "import nbgrad"],
        capture_output=True,
        text=True,
        timeout=300,
        env=_env(NUMBA_DISABLE_JIT="1"),
    )
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: nbgrad cannot run with NUMBA_DISABLE_JIT=1"), p.stderr
    assert "Unset NUMBA_DISABLE_JIT" in last


def test_cuda_tests_skip_without_a_cuda_target():
    """With neither numba-cuda nor numba's built-in CUDA target importable, the CUDA test
    files collect and skip (the `cuda-sim` extra is optional)."""
    code = (
        "import sys; sys.modules['numba.cuda'] = None; sys.modules['numba_cuda'] = None\n"
        "import pytest\n"
        "sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-p', 'no:xdist', '-o',"
        " 'addopts=', 'tests/test_cuda.py', 'tests/test_cuda_higher.py']))"
    )
    p = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "skipped" in p.stdout and "passed" not in p.stdout and "error" not in p.stdout


def test_wheel_has_every_module_and_py_typed(tmp_path):
    """`pip install .` (here: into a target directory, from a copy of the tree) installs
    every module of the package and the py.typed marker, with the declared metadata."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("pyproject.toml needs setuptools>=77 (SPDX license)")
    target = _pip_install(tmp_path, NBGRAD_PREBUILD="0")
    want = {f.relative_to(ROOT).as_posix() for f in (ROOT / "nbgrad").rglob("*.py")}
    want = {f for f in want if not f.startswith("nbgrad/_kernels/")}
    got = {f.relative_to(target).as_posix() for f in (target / "nbgrad").rglob("*.py")}
    assert want == got
    assert (target / "nbgrad" / "py.typed").exists()
    assert not (target / "nbgrad" / "_kernels").exists()  # NBGRAD_PREBUILD=0: none compiled
    meta = next(target.glob("nbgrad-*.dist-info")) / "METADATA"
    text = meta.read_text()
    assert "Requires-Dist: numba>=" in text and "Classifier: Typing :: Typed" in text


def _pip_install(tmp_path, seed=None, **env):
    """`pip install .` of a copy of the tree into a target directory; returns the directory.
    `seed`: a kernel cache directory placed in the copy as its prebuilt kernels (hard links)."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip("pyproject.toml needs setuptools>=77 (SPDX license)")
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns(".git", "__pycache__", "build", "*.egg-info", "_kernels")
    shutil.copytree(ROOT, src, ignore=ignore)
    if seed is not None:
        from nbgrad import _cache

        def link(a, b):  # a file gone since the listing: a writer's temporary, renamed away
            with contextlib.suppress(FileNotFoundError):
                _cache._link_or_copy(a, b)

        shutil.copytree(seed, src / "nbgrad" / "_kernels" / seed.name, copy_function=link)
    target = tmp_path / "site"
    p = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(src)],
        capture_output=True,
        text=True,
        timeout=1800,
        env=dict(os.environ, **env),
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    return target


# a fresh process's import and first gradient; prints the nbgrad functions Numba compiled
FIRST_GRADIENT = textwrap.dedent("""
    from numba.core import event
    with event.install_recorder("numba:compile") as rec:
        import nbgrad as t
        x = t.ones(3, requires_grad=True); (x * x).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    mods = [e.data["dispatcher"].py_func for _, e in rec.buffer if e.is_start]
    print([f.__module__ + "." + f.__name__ for f in mods if f.__module__.startswith("nbgrad")])
""")


def _first_gradient(path, cache):
    env = dict(os.environ, PYTHONPATH=str(path), NBGRAD_CACHE_DIR=str(cache), NBGRAD_QUIET="1")
    p = subprocess.run(
        [sys.executable, "-c", FIRST_GRADIENT], capture_output=True, text=True, env=env,
        timeout=900, cwd=path,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_prebuilt_kernels_move_with_the_package(tmp_path):
    """Kernels compiled with the package at one path and the cache at another serve a
    package installed elsewhere with an empty cache: its first gradient compiles nothing."""
    import nbgrad
    from nbgrad import _cache

    x = nbgrad.ones(3, requires_grad=True)  # this process's cache holds a first gradient
    (x * x).sum().backward()
    site = tmp_path / "site"
    shutil.copytree(ROOT / "nbgrad", site / "nbgrad", ignore=shutil.ignore_patterns("_kernels"))
    shutil.copytree(_cache.DIR, site / "nbgrad" / "_kernels" / _cache.HASH)
    assert _first_gradient(site, tmp_path / "user") == "[]"
    assert (tmp_path / "user" / _cache.HASH / "numba").is_dir()  # the kernels, copied


def test_a_cache_this_user_cannot_write_is_copied(tmp_path, monkeypatch):
    """A cache directory another user built (read-only here) starts a private one instead
    of being ignored; a user's new directory starts from the package's prebuilt kernels."""
    from nbgrad import _cache

    def cache_at(d):
        (d / "numba" / "m").mkdir(parents=True)
        (d / "numba" / "m" / "f.nbi").write_text(str(d))

    shared = tmp_path / "shared" / _cache.HASH
    prebuilt = tmp_path / "package" / "_kernels"
    cache_at(shared)
    cache_at(prebuilt / _cache.HASH)
    monkeypatch.setattr(_cache, "_root", lambda: shared.parent)
    monkeypatch.setattr(_cache, "PREBUILT", prebuilt)
    monkeypatch.setattr(_cache.tempfile, "gettempdir", lambda: str(tmp_path))
    read_only = {shared}
    writable = _cache._writable
    monkeypatch.setattr(_cache, "_writable", lambda d: d not in read_only and writable(d))

    d = _cache._directory()
    assert d == tmp_path / f"nbgrad-{os.getuid()}" / _cache.HASH
    assert (d / "numba" / "m" / "f.nbi").read_text() == str(shared)
    assert (shared / "numba" / "m" / "f.nbi").read_text() == str(shared)  # left as it was

    shutil.rmtree(shared)
    read_only.clear()
    assert _cache._directory() == shared
    assert (shared / "numba" / "m" / "f.nbi").read_text() == str(prebuilt / _cache.HASH)


# a fresh process's kernels, loaded from the cache or compiled, as "module.function(signature)"
KERNELS_USED = textwrap.dedent("""
    import json, sys
    from numba.core import caching

    used = set()

    def _name(cache, sig):
        return f"{cache._py_func.__module__}.{cache._py_func.__qualname__}{sig}"

    def load_overload(self, sig, target_context, _load=caching.Cache.load_overload):
        cres = _load(self, sig, target_context)
        if cres is not None:
            used.add(_name(self, sig))
        return cres

    def save_overload(self, sig, data, _save=caching.Cache.save_overload):
        used.add(_name(self, sig))
        return _save(self, sig, data)

    caching.Cache.load_overload, caching.Cache.save_overload = load_overload, save_overload
    if sys.argv[1] == "warmup":
        from nbgrad import warmup
        assert warmup.main(["--jobs", "1", "--quiet"]) == 0
    else:
        import nbgrad as t
        x = t.ones(3, requires_grad=True); (x * x).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    print(json.dumps(sorted(used)))
""")


def _kernels_used(what):
    p = subprocess.run(
        [sys.executable, "-c", KERNELS_USED, what], capture_output=True, text=True,
        env=_env(NBGRAD_QUIET="1"), timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    return set(json.loads(p.stdout))


def test_warmup_compiles_every_kernel_a_first_gradient_needs():
    """What `python -m nbgrad.warmup` (the install-time compile) compiles covers a fresh
    process's first gradient: every kernel the gradient loads or compiles is one warmup
    loads or compiles. (With this checkout's cache warm, no compile is needed to see it.)"""
    first = _kernels_used("first")
    assert first, "the recorder saw no kernel"
    assert not first - _kernels_used("warmup")


@pytest.mark.slow
def test_pip_install_ships_the_kernels_it_compiled(tmp_path):
    """`pip install .` runs the warmup and ships its cache (nbgrad/_kernels): a user with an
    empty cache compiles nothing for a first gradient. The build starts from this
    checkout's kernels (package data, as a rebuild would), so the warmup finds them
    compiled; that the warmup alone covers a first gradient is the test above."""
    import nbgrad
    from nbgrad import _cache

    x = nbgrad.ones(3, requires_grad=True)  # this process's cache holds a first gradient
    (x * x).sum().backward()
    target = _pip_install(tmp_path, seed=_cache.DIR)
    (kernels,) = (target / "nbgrad" / "_kernels").iterdir()
    assert kernels.name == _cache.HASH and (kernels / "numba").is_dir()
    assert _first_gradient(target, tmp_path / "user") == "[]"
