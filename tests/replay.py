"""`check_replay(f, make)`: `nbgrad.compile(f)` equals `f` run eagerly, bit for bit, at the
trace, at the compiled replay and with new argument values (`make(seed)` builds the
arguments afresh for each call), as one program. Returns the compiled function."""

import numpy as np

import nbgrad


def _np(ts):
    return [t.detach().numpy().copy() for t in ts]


def check_replay(f, make, seeds=(0, 1)):
    cf = nbgrad.compile(f, fallback="raise")
    want = _np(f(*make(seeds[0])))
    for _ in range(2):  # the trace, then the compiled replay
        for got, exp in zip(_np(cf(*make(seeds[0]))), want):
            np.testing.assert_array_equal(got, exp)
    for s in seeds[1:]:
        for got, exp in zip(_np(cf(*make(s))), _np(f(*make(s)))):
            np.testing.assert_array_equal(got, exp)
    assert len(cf.programs) == 1
    return cf
