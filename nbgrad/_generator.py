"""`nbgrad.Generator`: a random number generator object that `generator=` arguments take."""

import numpy as np

from ._dtype import int64


class Generator:
    """A random number generator, passed as `generator=` to the random functions
    (`rand`, `randn`, `randint`, `randperm`, `Tensor.normal_`, `Tensor.uniform_`,
    `nn.init`, `DataLoader`, `random_split`) instead of nbgrad's global one.

    Draws from NumPy's PCG64: PyTorch's distributions, different numbers for a seed.

    Args:
        device (str or nbgrad.device): `"cpu"`. Default: `"cpu"`.

    Example::

        >>> g = torch.Generator().manual_seed(42)
        >>> a = torch.rand(3, generator=g)
        >>> g.manual_seed(42).initial_seed()
        42
        >>> torch.equal(a, torch.rand(3, generator=g))
        True
    """

    def __init__(self, device="cpu"):
        from .device import device as Device

        self.device = device if isinstance(device, Device) else Device(device)
        if self.device.type != "cpu":
            raise RuntimeError("nbgrad's Generator draws on the CPU (device='cpu')")
        self.seed()

    def manual_seed(self, seed):
        """Seeds the generator; returns it (so `Generator().manual_seed(s)` chains)."""
        seed = int(seed)
        self._np = np.random.default_rng(seed & (2**64 - 1))
        self._initial = seed
        return self

    def seed(self):
        """Seeds the generator from fresh entropy and returns the seed."""
        s = int(np.random.SeedSequence().entropy % (2**63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        return self._initial

    def get_state(self):
        """The generator's state as an int64 tensor (PyTorch's is a uint8 tensor: nbgrad has
        no uint8), for `set_state`."""
        from .creation import tensor

        st = self._np.bit_generator.state
        words = [st["state"]["state"], st["state"]["inc"]]
        flat = [w >> s & (2**64 - 1) for w in words for s in (64, 0)]
        flat += [st["has_uint32"], st["uinteger"]]
        return tensor(np.array(flat, np.uint64).view(np.int64), dtype=int64)

    def set_state(self, new_state):
        """Restores a state `get_state` returned; returns the generator."""
        w = np.asarray(new_state._data if hasattr(new_state, "_data") else new_state)
        if w.shape != (6,) or w.dtype != np.int64:
            raise RuntimeError("Generator.set_state expects a state from Generator.get_state")
        u = [int(x) for x in w.view(np.uint64)]
        self._np.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": u[0] << 64 | u[1], "inc": u[2] << 64 | u[3]},
            "has_uint32": u[4],
            "uinteger": u[5],
        }
        return self


def numpy_rng(generator):
    """The NumPy generator to draw from: `generator`'s, or nbgrad's global one."""
    if generator is None:
        from .creation import _rng

        return _rng[0]
    if isinstance(generator, Generator):
        return generator._np
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(f"generator must be a nbgrad.Generator, not {type(generator).__name__}")
