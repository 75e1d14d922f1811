"""What a user installing nbgrad meets: the wheel's contents, a clear refusal of
NUMBA_DISABLE_JIT, and CUDA tests that skip when no CUDA target is installed."""

import os
import shutil
import subprocess
import sys
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
    src = tmp_path / "src"
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns(".git", "__pycache__", "build", "*.egg-info")
    )
    target = tmp_path / "site"
    p = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    want = {f.relative_to(ROOT).as_posix() for f in (ROOT / "nbgrad").rglob("*.py")}
    got = {f.relative_to(target).as_posix() for f in (target / "nbgrad").rglob("*.py")}
    assert want == got
    assert (target / "nbgrad" / "py.typed").exists()
    meta = next(target.glob("nbgrad-*.dist-info")) / "METADATA"
    text = meta.read_text()
    assert "Requires-Dist: numba>=" in text and "Classifier: Typing :: Typed" in text
