"""Real PyTorch programs, run by tests/test_corpus.py on PyTorch and on nbgrad.

Each module is a short script written the way users write PyTorch, with the library passed
in: `run(torch)` builds its data with NumPy (`np.random.default_rng`), starts every
parameter from NumPy arrays (so both libraries start identical), trains or differentiates,
and returns what it computed (losses per step, final parameters, gradients) as a dict of
tensors, numbers and lists of them. Optional module attributes:

* `TOL`: `dict(rtol=..., atol=...)` for comparing the two libraries' results (the test's
  default suits float32);
* `NEEDS`: a name nbgrad does not have yet; the program is expected to fail on it.
"""
