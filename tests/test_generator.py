"""nbgrad.Generator and the `generator=` arguments; use_deterministic_algorithms and the
thread count settings, with PyTorch's checks."""

import numpy as np
import pytest

import nbgrad

DRAWS = {
    "rand": lambda g: nbgrad.rand(3, 2, generator=g),
    "randn": lambda g: nbgrad.randn(4, generator=g),
    "randint": lambda g: nbgrad.randint(0, 10, (5,), generator=g),
    "randperm": lambda g: nbgrad.randperm(7, generator=g),
    "normal_": lambda g: nbgrad.empty(3).normal_(generator=g),
    "uniform_": lambda g: nbgrad.empty(3).uniform_(generator=g),
    "bernoulli_": lambda g: nbgrad.empty(6).bernoulli_(0.5, generator=g),
    "init.kaiming_uniform_": lambda g: nbgrad.nn.init.kaiming_uniform_(
        nbgrad.empty(2, 3), generator=g
    ),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_a_seeded_generator_repeats_and_leaves_the_global_one_alone(name):
    draw = DRAWS[name]
    nbgrad.manual_seed(5)
    want_global = nbgrad.rand(4)
    a = draw(nbgrad.Generator().manual_seed(3))
    nbgrad.manual_seed(5)
    b = draw(nbgrad.Generator().manual_seed(3))
    assert nbgrad.equal(a, b)
    assert nbgrad.equal(nbgrad.rand(4), want_global)  # the global stream did not move


def test_state_round_trip_and_seeds():
    g = nbgrad.Generator()
    assert g.manual_seed(42) is g and g.initial_seed() == 42
    nbgrad.rand(3, generator=g)
    state = g.get_state()
    a = nbgrad.randn(5, generator=g)
    assert g.set_state(state) is g
    assert nbgrad.equal(a, nbgrad.randn(5, generator=g))
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    with pytest.raises(TypeError, match="generator must be"):
        nbgrad.rand(2, generator=3)
    with pytest.raises(RuntimeError, match="set_state"):
        g.set_state(nbgrad.zeros(6))


def test_data_loading_takes_a_generator():
    data = nbgrad.utils.data.TensorDataset(nbgrad.arange(10.0))

    def split(seed):
        g = nbgrad.Generator().manual_seed(seed)
        a, b = nbgrad.utils.data.random_split(data, [0.7, 0.3], generator=g)
        return list(a.indices), list(b.indices)

    assert split(1) == split(1)
    assert sorted(sum(split(1), [])) == list(range(10))

    def order(seed):
        g = nbgrad.Generator().manual_seed(seed)
        loader = nbgrad.utils.data.DataLoader(data, batch_size=10, shuffle=True, generator=g)
        return next(iter(loader))[0].tolist()

    assert order(2) == order(2) and sorted(order(2)) == list(range(10))


def test_settings_as_torch():
    torch = pytest.importorskip("torch")
    for lib in (nbgrad, torch):
        assert not lib.are_deterministic_algorithms_enabled()
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled()
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        lib.use_deterministic_algorithms(False)
        assert not lib.is_deterministic_algorithms_warn_only_enabled()
    for bad in ((1,), (True, "yes")):
        with pytest.raises(TypeError) as et:
            torch.use_deterministic_algorithms(
                bad[0], **({"warn_only": bad[1]} if len(bad) > 1 else {})
            )
        with pytest.raises(TypeError) as en:
            nbgrad.use_deterministic_algorithms(
                bad[0], **({"warn_only": bad[1]} if len(bad) > 1 else {})
            )
        assert str(en.value) == str(et.value)
    n = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(1)
        assert nbgrad.get_num_threads() == 1
        x = nbgrad.randn(1 << 20)
        np.testing.assert_allclose(x.sum().item(), x.numpy().astype(np.float64).sum(), rtol=1e-4)
    finally:
        nbgrad.set_num_threads(n)
    for bad in (0, 1.5):
        with pytest.raises(RuntimeError) as et:
            torch.set_num_threads(bad)
        with pytest.raises(RuntimeError) as en:
            nbgrad.set_num_threads(bad)
        assert str(en.value) == str(et.value)
