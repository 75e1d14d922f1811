"""`nbgrad.Size`: the shape type, a tuple printed as PyTorch prints torch.Size."""


class Size(tuple):
    __slots__ = ()

    def __repr__(self):
        return f"nbgrad.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n
