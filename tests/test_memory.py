"""Memory stays flat across training loops: Python heap (tracemalloc) and the tape.

The tape (`nbgrad.tape.TAPE`) holds one row per recorded op; `TAPE.n` rows are in use out
of `TAPE.R.shape[0]`. A row must go once no live tensor can reach it, so neither the row
count, the row capacity, the slot table nor the traced heap may grow with the number of
iterations.
"""

import gc
import inspect
import tracemalloc
import weakref

import numpy as np
import pytest

import nbgrad
from nbgrad.tape import SAVED_BYTES_LIMIT, TAPE

KIB = 1024


def _settle():
    gc.collect()
    TAPE.collect()


def _collect_lines():
    """Tracemalloc filters leaving out what `TAPE.collect` allocates: its free-slot list
    holds one int per free slot, so its size follows the tensors alive anywhere in the
    process (another test's, freed by a thread meanwhile), not the loop; it is bounded by
    the slot capacity, which `_check_flat` compares."""
    lines, first = inspect.getsourcelines(type(TAPE).collect)
    path = inspect.getsourcefile(type(TAPE))
    return [tracemalloc.Filter(False, path, first + i) for i in range(len(lines))]


# made once, untraced: reading source fills `linecache`, which is not the loop's memory
_FILTERS = _collect_lines()


def _snapshot():
    """The tape's size as the loop left it, then the heap once garbage is collected."""
    rows, capacity = TAPE.n, TAPE.R.shape[0]
    _settle()
    snap = tracemalloc.take_snapshot().filter_traces(_FILTERS)
    return {
        "heap": sum(s.size for s in snap.statistics("filename")),
        "rows": rows,
        "row_capacity": capacity,
        "slot_capacity": TAPE.S.shape[0],
        "snapshot": snap,
    }


def _growth(early, late, n=5):
    """Where the heap grew most between two snapshots (the failure message's detail)."""
    diff = late["snapshot"].compare_to(early["snapshot"], "lineno")
    return [f"{d.size_diff:+} B in {d.count_diff:+} blocks at {d.traceback}" for d in diff[:n]]


def _check_flat(early, late, heap_slack=128 * KIB):
    """Nothing grew from `early` to `late` (both in the loop's steady state)."""
    assert late["row_capacity"] == early["row_capacity"], (early, late)
    assert late["slot_capacity"] == early["slot_capacity"], (early, late)
    assert late["rows"] <= late["row_capacity"], late
    grown = late["heap"] - early["heap"]
    assert grown < heap_slack, f"{grown} B more: " + "; ".join(_growth(early, late))


@pytest.fixture
def traced():
    """Trace the heap from when the test calls `start()` (tracing slows Python code ~5x, so
    iterations that no check measures run untraced); stop at the end."""
    try:
        yield lambda: (_settle(), tracemalloc.start())
    finally:
        tracemalloc.stop()


def test_training_loop_memory_is_flat(traced):
    base = TAPE.n  # rows other tests' live tensors still hold
    nbgrad.manual_seed(0)
    w = nbgrad.randn(8, 8, requires_grad=True)
    x = nbgrad.randn(16, 8)

    def step():
        nonlocal w
        loss = ((x @ w).tanh() ** 2).mean()
        loss.backward()
        with nbgrad.no_grad():
            w -= 0.01 * w.grad
        w.grad.zero_()
        return loss

    first = step().item()
    for _ in range(999):
        step()
    traced()  # the checks compare the heap from here on
    at_1000 = _snapshot()
    for _ in range(4500):
        step()
    at_5500 = _snapshot()
    for _ in range(4500):
        last = step()
    at_10000 = _snapshot()
    # from 1,000 to 10,000 iterations: at most a one-time growth of the tables (the slot
    # table may double once before the first collect recycles slots), no row growth
    assert at_10000["row_capacity"] == at_1000["row_capacity"], (at_1000, at_10000)
    assert at_10000["rows"] <= at_10000["row_capacity"], at_10000
    assert at_10000["slot_capacity"] <= 2 * at_1000["slot_capacity"], (at_1000, at_10000)
    assert at_10000["heap"] - at_1000["heap"] < 2 * 1024 * KIB, (at_1000, at_10000)
    # and in the steady state, nothing grows at all
    _check_flat(at_5500, at_10000)
    assert last.item() < first  # it did train
    assert w.is_leaf and w.requires_grad and w.grad_fn is None

    # once the last loss is gone, nothing is left on the tape for this loop
    del last
    _settle()
    assert TAPE.n <= base + 2, (base, TAPE.n)


def _steady(step, warm=1000, measured=1500):
    """Run `step` `warm` times untraced, then `measured` times traced: whatever the
    measured iterations leave allocated (beyond the tape's own tables) is a leak.

    The warm-up goes on until the tape has collected itself twice: the tables that are
    pruned only when it collects (the leaves `backward` fills, by slot) reach their
    largest size within one such cycle, and a cycle lasts longer than `warm` steps here."""
    collects, last = 0, TAPE.n
    for i in range(20 * warm):
        step()
        collects += TAPE.n < last
        last = TAPE.n
        if i + 1 >= warm and collects >= 2:
            break
    assert collects >= 2, "the tape never collected itself during the warm-up"
    early_rows = (TAPE.n, TAPE.R.shape[0], TAPE.S.shape[0])
    _settle()
    tracemalloc.start()
    try:
        early = _snapshot()
        for _ in range(measured):
            step()
        late = _snapshot()
    finally:
        tracemalloc.stop()
    assert early_rows[1:] == (late["row_capacity"], late["slot_capacity"])
    _check_flat(early, late)


def test_forward_only_loop_without_backward_is_flat():
    """Graphs that are built and dropped without backward are reclaimed too."""
    nbgrad.manual_seed(1)
    w = nbgrad.randn(4, 4, requires_grad=True)
    x = nbgrad.randn(3, 4)
    _steady(lambda: (x @ w).sigmoid().sum(0).exp().mean(), warm=2000, measured=2000)


def test_dropped_graphs_free_large_saved_values():
    """A few huge ops per step fill no tape: dropped graphs' saved values must still go
    (PyTorch frees them with the graph), within tape.SAVED_BYTES_LIMIT, with no explicit
    collection in the loop."""
    _settle()
    x = nbgrad.ones(1 << 20, requires_grad=True)  # float32: 4 MiB per saved output
    alive = []
    for _ in range(100):  # 400 MiB if nothing were freed
        y = x.exp()  # saves its output for the VJP
        alive.append(weakref.ref(y._data))
        del y
    held = sum(r() is not None for r in alive) * (4 << 20)
    assert held <= SAVED_BYTES_LIMIT + (4 << 20), held


def test_fresh_leaves_each_iteration_is_flat():
    """New leaves every step (like batches that require grad) recycle their slots."""
    rng = np.random.default_rng(2)
    data = rng.standard_normal((5, 6)).astype(np.float32)
    grads = []

    def step():
        a = nbgrad.tensor(data, requires_grad=True)
        b = nbgrad.tensor(data[0], requires_grad=True)
        ((a * b).relu() - a / 3).sum().backward()
        grads[:] = [a.grad]

    _steady(step)
    np.testing.assert_allclose(
        grads[0].numpy(), (data * data[0] > 0) * data[0] - 1 / 3, rtol=1e-6, atol=1e-6
    )


def test_retain_graph_loop_is_flat():
    """retain_graph=True on a graph that is then dropped leaks nothing either."""
    w = nbgrad.ones(6, requires_grad=True)

    def step():
        y = (w * w).exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        w.grad = None

    _steady(step)


def test_autograd_grad_loop_is_flat():
    w = nbgrad.ones(3, 3, requires_grad=True)
    v = nbgrad.ones(3)

    def step():
        (g,) = nbgrad.autograd.grad(((w @ v) ** 2).sum(), w)
        return g

    _steady(step)


def test_rows_drop_after_del_and_collect():
    _settle()
    base = TAPE.n
    x = nbgrad.ones(3, requires_grad=True)
    y = x
    for _ in range(200):
        y = (y * 1.001).sin() + x
    assert TAPE.n >= base + 600
    y.sum().backward()
    assert TAPE.n >= base + 600  # still reachable from y (its values are freed, not its rows)
    del y
    _settle()
    assert TAPE.n <= base + 1, (base, TAPE.n)
    before = x.grad.numpy().copy()
    z = x * 2  # the tape keeps working after a collect
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), before + 2)


def test_rows_kept_while_an_intermediate_is_alive():
    _settle()
    base = TAPE.n
    x = nbgrad.ones(3, requires_grad=True)
    h = (x * 2).exp()  # 2 rows, h keeps them
    y = h.sin().sum()
    del y
    _settle()
    assert base + 2 <= TAPE.n <= base + 3
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2.0) * np.ones(3), rtol=1e-6)
    del h
    _settle()
    assert TAPE.n <= base + 1


def test_collect_keeps_live_graphs_correct():
    """A collect triggered in the middle of building graphs must not break them."""
    x = nbgrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    keep = (x * x).exp()  # survives the collects below
    for _ in range(3 * TAPE.R.shape[0]):  # forces the tape to fill and collect
        (x + 1).sum()
    TAPE.collect()
    keep.sum().backward()
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * xs * np.exp(xs * xs), rtol=1e-6)
