"""nbgrad's benchmark suite (pytest-benchmark); run ``python -m benchmarks.report``.

Not collected by a plain ``pytest`` from the repo root (pyproject sets testpaths = ["tests"]);
run it with ``pytest benchmarks/ --benchmark-only``.
"""
