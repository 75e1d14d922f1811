"""Machine and version facts recorded with every benchmark run (shared by conftest and report)."""

import importlib.metadata
import os
import platform
import sys

PACKAGES = ("nbgrad", "numba", "llvmlite", "numpy", "torch", "jax", "jaxlib")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def cores():
    """Logical CPUs in the machine, and how many this process may run on."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {"logical": os.cpu_count(), "usable": usable}


def version(name):
    """Version of an imported module if it is loaded (what actually ran), else its metadata."""
    mod = sys.modules.get(name)
    v = getattr(mod, "__version__", None) if mod is not None else None
    if v:
        return str(v)
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def threads():
    """Intra-op thread counts of the loaded libraries (matters for the 4M benchmark)."""
    out = {}
    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "get_num_threads"):
        out["torch"] = torch.get_num_threads()
    numba = sys.modules.get("numba")
    if numba is not None:
        out["numba"] = numba.config.NUMBA_NUM_THREADS
        try:
            out["numba_layer"] = numba.threading_layer()
        except ValueError:  # no parallel kernel has run
            pass
    return out


def loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def snapshot():
    return {
        "loadavg": loadavg(),
        "threads": threads(),
        "cpu_model": cpu_model(),
        "cores": cores(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "versions": {name: version(name) for name in PACKAGES},
    }
