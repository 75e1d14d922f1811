"""Where compiled code lives: one directory per version of nbgrad's source.

Numba's on-disk cache checks only the timestamp of the file that defines a function, not
of the helpers it inlines from other files, so an edited helper could run stale. Keying
the directory by a hash of the whole package's source (and Numba's version) makes every
change start a fresh cache. Generated kernel modules are written there too.
"""

import contextlib
import hashlib
import os
import tempfile
import threading
from pathlib import Path

import numba

_PKG = Path(__file__).resolve().parent


# Subpackages of plain Python that no kernel reads (they call ops, never define or feed
# compiled code): editing them must not recompile every kernel. tests/test_higher_order.py checks
# that they stay free of Numba. (warmup.py only calls ops: editing its list keeps the cache.)
PURE_PYTHON = ("autograd", "nn", "func", "warmup.py")


def _source_hash():
    h = hashlib.sha1(numba.__version__.encode())
    for p in sorted(_PKG.rglob("*.py")):
        if p.relative_to(_PKG).parts[0] in PURE_PYTHON:
            continue
        h.update(str(p.relative_to(_PKG)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _root():
    env = os.environ.get("NBGRAD_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nbgrad"


def _writable(d):
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / ".probe"
        probe.write_text("")
        probe.unlink()
        return True
    except OSError:
        return False


HASH = _source_hash()
DIR = _root() / HASH
KEEP = 4  # cache directories (source versions) kept; older ones are removed


def _prune(root):
    """Remove all but the KEEP most recently used source versions' caches."""
    import shutil

    try:
        dirs = sorted(
            (d for d in root.iterdir() if d.is_dir() and len(d.name) == 16),
            key=lambda d: d.stat().st_mtime,
        )
        for d in dirs[:-KEEP]:
            shutil.rmtree(d, ignore_errors=True)
    except OSError:
        pass


if not DIR.exists() and _writable(DIR):
    _prune(DIR.parent)
if not _writable(DIR):
    DIR = Path(tempfile.gettempdir()) / f"nbgrad-{os.getuid()}" / HASH
    DIR.mkdir(parents=True, exist_ok=True)


_DIR_USERS = [0, None]  # threads inside numba_cache_dir(), the setting it replaced
_DIR_LOCK = threading.Lock()


@contextlib.contextmanager
def numba_cache_dir():
    """Point Numba's cache at DIR while nbgrad's kernels are being defined. Counted, so
    that threads overlapping in it put back the user's setting, not each other's."""
    with _DIR_LOCK:
        if _DIR_USERS[0] == 0:
            _DIR_USERS[1] = numba.config.CACHE_DIR
            numba.config.CACHE_DIR = str(DIR / "numba")
        _DIR_USERS[0] += 1
    try:
        yield
    finally:
        with _DIR_LOCK:
            _DIR_USERS[0] -= 1
            if _DIR_USERS[0] == 0:
                numba.config.CACHE_DIR = _DIR_USERS[1]


from . import _compile_notice  # noqa: E402  (times compiles from the first kernel on)

_compile_notice.CACHE_DIR[0] = DIR
