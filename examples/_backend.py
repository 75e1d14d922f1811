"""`--backend nbgrad|torch` for the examples: import the chosen library, or say how to get it."""

import importlib
import sys


def load_backend(name):
    """The module `name` ("nbgrad" or "torch"); exits with a clear message if it is missing."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:  # the library is there but one of its own imports failed
            raise
        sys.exit(
            f"--backend {name}: {name} is not installed. Install it with `pip install {name}` "
            "(the examples compare against PyTorch 2.13: `pip install torch==2.13.0`), or run "
            "the example with the default --backend nbgrad."
        )
