"""nbgrad's build backend: setuptools', after compiling the kernels into the package.

`pip install .`, `pip install -e .` and `pip wheel .` first run `python -m nbgrad.warmup` on
the source tree with an empty kernel cache, and keep that cache in nbgrad/_kernels/<source
hash> (package data, not in git). A fresh process then copies it into the user's cache
(nbgrad/_cache.py) and compiles only kernels beyond the warmup's, instead of all of them.
The kernels are compiled for this machine's CPU, Python and Numba: where any differs, the
cache is not used and nbgrad compiles on first use, as without it.

NBGRAD_PREBUILD=0 skips the compile; if it fails, the package is built without the kernels.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the hooks left as setuptools has them)


def compile_kernels():
    """Compile the kernels into nbgrad/_kernels/<source hash> (see above)."""
    if os.environ.get("NBGRAD_PREBUILD", "1") == "0":
        return
    src = Path.cwd()
    kernels = src / "nbgrad" / "_kernels"
    with tempfile.TemporaryDirectory(prefix="nbgrad-build-") as tmp:
        # the source tree's nbgrad with this build's packages (Numba, NumPy, SciPy); kernels
        # already in the tree for this source are copied in first, so a rebuild is quick
        path = os.pathsep.join([str(src), *filter(None, sys.path)])
        env = dict(os.environ, PYTHONPATH=path, NBGRAD_CACHE_DIR=tmp, NBGRAD_QUIET="1")
        cmd = [sys.executable, "-m", "nbgrad.warmup", "--quiet"]
        p = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"nbgrad: kernels not precompiled (they compile on first use):\n{p.stderr}",
                  file=sys.stderr)  # fmt: skip
            return
        (cache,) = (d for d in Path(tmp).iterdir() if len(d.name) == 16)  # <source hash>
        shutil.rmtree(kernels, ignore_errors=True)  # other sources' kernels
        shutil.copytree(cache, kernels / cache.name)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    compile_kernels()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    compile_kernels()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
