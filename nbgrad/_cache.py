"""Where compiled code lives: one directory per version of nbgrad's source.

Numba's on-disk cache checks only the timestamp of the file that defines a function, not
of the helpers it inlines from other files, so an edited helper could run stale. Keying
the directory by a hash of the whole package's source (and Numba's version) makes every
change start a fresh cache. Generated kernel modules are written there too.

A new directory starts as a copy of a prebuilt one when there is one for this source: the
one `pip install` compiled into the package (`_build/backend.py`), or a cache another user
built that this one may read but not write. Entries are found by module name and stamped
with the source hash (not by file path and modification time, as Numba's own locators do),
so such a copy is valid wherever the package and the cache sit.
"""

import contextlib
import hashlib
import itertools
import os
import shutil
import tempfile
import threading
from pathlib import Path

import numba
from numba.core import caching

_PKG = Path(__file__).resolve().parent


# Subpackages of plain Python that no kernel reads (they call ops, never define or feed
# compiled code): editing them must not recompile every kernel. tests/test_higher_order.py checks
# that they stay free of Numba. (warmup.py only calls ops: editing its list keeps the cache.)
PURE_PYTHON = ("autograd", "nn", "func", "warmup.py", "_versions.py")


# the kernels compiled when the package was built, one directory per source hash (not source)
PREBUILT = _PKG / "_kernels"


def _source_hash():
    h = hashlib.sha1(numba.__version__.encode())
    for p in sorted(_PKG.rglob("*.py")):
        if p.relative_to(_PKG).parts[0] in (*PURE_PYTHON, PREBUILT.name):
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
KEEP = 4  # cache directories (source versions) kept; older ones are removed


def _prune(root):
    """Remove all but the KEEP most recently used source versions' caches."""
    try:
        dirs = sorted(
            (d for d in root.iterdir() if d.is_dir() and len(d.name) == 16),
            key=lambda d: d.stat().st_mtime,
        )
        for d in dirs[:-KEEP]:
            shutil.rmtree(d, ignore_errors=True)
    except OSError:
        pass


def _link_or_copy(src, dst):
    # a hard link costs nothing and is safe: cache files are replaced, never written in place
    try:
        os.link(src, dst)
    except OSError:  # another file system, or another user's file
        shutil.copyfile(src, dst)


def _seed(d, sources):
    """Start the new directory `d` as a copy of the first prebuilt cache in `sources`. The
    copy is renamed into place whole, so a process starting meanwhile sees all or none."""
    for src in sources:
        if src != d and (src / "numba").is_dir():
            tmp = d.with_name(f".{d.name}-{os.getpid()}")
            try:
                shutil.copytree(src, tmp, copy_function=_link_or_copy)
                os.rename(tmp, d)
            except OSError:  # unreadable, or another process seeded `d` first
                shutil.rmtree(tmp, ignore_errors=True)
            return


def _directory():
    """The user's cache directory for this source, else a private one under the temporary
    directory (a shared cache this user cannot write is then only copied)."""
    wanted = _root() / HASH
    private = Path(tempfile.gettempdir()) / f"nbgrad-{os.getuid()}" / HASH
    # kernels compiled with bounds checks are cached under the same keys: never mix the two
    seed = not numba.config.BOUNDSCHECK
    for d in (wanted, private):
        with contextlib.suppress(OSError):
            if not d.exists() or not any(d.iterdir()):
                d.parent.mkdir(parents=True, exist_ok=True)
                _prune(d.parent)
                if seed:
                    _seed(d, (wanted, PREBUILT / HASH))
        if _writable(d):
            return d
    raise OSError(f"nbgrad: no writable directory for its kernel cache (tried {wanted}, {private})")


DIR = _directory()


class _Locator(caching._CacheLocator):
    """Where Numba keeps an nbgrad kernel: DIR/numba/<module>, fresh while the source hash
    (the directory's name) is, so the entries stay valid when package and cache move."""

    _ready: set = set()  # directories known to exist and be writable

    def __init__(self, py_func):
        self._path = os.path.join(DIR, "numba", py_func.__module__)
        self._lineno = py_func.__code__.co_firstlineno

    def get_cache_path(self):
        return self._path

    def get_source_stamp(self):
        return HASH

    def get_disambiguator(self):
        return str(self._lineno)

    def ensure_cache_path(self):
        if self._path not in self._ready:
            super().ensure_cache_path()
            self._ready.add(self._path)

    @classmethod
    def from_function(cls, py_func, py_file):
        mod = getattr(py_func, "__module__", None) or ""
        if mod != "nbgrad" and not mod.startswith(("nbgrad.", "nbgrad_gen_")):
            return None  # the user's own cached functions keep Numba's locators
        self = cls(py_func)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self


caching.CacheImpl._locator_classes.insert(0, _Locator)


def merge(src):
    """Add what another process compiled into cache directory `src` (for this source) to
    DIR: the Numba entries DIR lacks, under free names in its indexes, and the generated
    modules. `python -m nbgrad.warmup --jobs` compiles in one directory per process."""
    src = Path(src)
    for f in sorted(src.rglob("*")):
        dest = DIR / f.relative_to(src)
        if f.suffix == ".nbi":
            base = f.name[: -len(".nbi")]
            theirs = caching.IndexDataCacheFile(str(f.parent), base, HASH)
            ours = caching.IndexDataCacheFile(str(dest.parent), base, HASH)
            dest.parent.mkdir(parents=True, exist_ok=True)
            index = ours._load_index()
            taken = set(index.values())
            for key, name in theirs._load_index().items():
                if key not in index:
                    new = next(
                        n for n in map(ours._data_name, itertools.count(1)) if n not in taken
                    )
                    shutil.copyfile(f.parent / name, dest.parent / new)
                    index[key] = new
                    taken.add(new)
            ours._save_index(index)
        elif f.is_file() and f.suffix != ".nbc" and not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dest)


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
