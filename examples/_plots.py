"""Plot helpers shared by the examples (matplotlib is optional)."""

from pathlib import Path


def pyplot():
    """matplotlib.pyplot on the file-only Agg backend, or None (with a note) if missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot)")
        return None
    return plt


def plot_path(path, default, quick):
    """The PNG to write: `path` if given, else `default`, with "-quick" added for --quick runs
    so a short test run never replaces the full run's picture."""
    if path:
        return path
    p = Path(default)
    return str(p.with_name(p.stem + "-quick" + p.suffix)) if quick else default


def integer_ticks(ax):
    """Epochs and iterations are whole numbers: no 2.5 on the x axis."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
