"""The op table: one entry per op, holding everything the engine needs to run its rows.

An op is declared once, in the module of its family (`ops/<family>.py`), with its facets
side by side (`declare`):

- `attrs`: the names of the row's integer attributes (and `fattrs`, its float ones). The
  declaration turns them into a tuple of positions, `OP.a`, so every reader says
  `iattr(T, k, A.outer)` in a kernel or `row.attrs().outer` in Python, never a bare index;
  `OP.pack(outer=..., ...)` builds the tuple a row records, refusing a missing or unknown
  name. One schema per op, shared by the CPU and CUDA rows.
- `vjp`: the CPU VJP kernel, an @njit function `vjp(T, k, V)` reading row k of the tape
  `T` (see `nbgrad.backends.cpu.rowio`); `V` is the dtype view (`v32`/`v64`), so each VJP
  is written once and compiled per float dtype. The reverse sweep
  (`backends/cpu/dispatch.py`) is compiled once and calls each row's VJP through a pointer
  in a table indexed by the op's code, filled on first use, so declaring an op is all it
  takes to put it in the sweep.
- `replay`: the compiled forward `fwd(T, k, V)` that `nbgrad.compile` runs for the row
  (`_compile/row_forwards.py` wraps it as it wraps VJPs), where the row can be replayed;
  `replay_when(a, in_shape)`, if given, says for which rows (the others take `eager`).
- `eager`: for an op whose forward is NumPy code, `fn(xs, a, f) -> Tensor`: the eager op
  called on the row's inputs `xs` with its attributes (`a`, `f` by name), which a compiled
  program calls back for the same bits; `eager_attrs`: that call's own row holds
  addresses of arrays its forward makes, so the program's row takes its attributes.
- `cuda_vjp`: the launcher `fn(G, k)` the GPU sweep calls for a CUDA row
  (`backends/cuda/sweep.py`); its kernels live in `backends/cuda/kernels.py`.
- `dvjp`: the differentiable VJP `fn(row, *gouts) -> input gradients`, written with
  nbgrad ops, for `create_graph=True`, forward mode and batched gradients
  (`autograd/graph.py`).

Elementwise ops are declared by `ops/elementwise.py` from scalar rules (`rule`); their
kernels and VJPs are generated (`backends/cpu/codegen.py`; `vjp` is then the generated
function's "@gen:" name), and their GPU launchers `ops/cuda/forwards.py`'s, named by
`ops.cuda.launcher` (imported on the first CUDA backward).
"""

from collections import namedtuple


class OpDef:
    __slots__ = ("name", "code", "node", "vjp", "rule", "a", "f", "replay", "cuda_vjp", "dvjp")
    __slots__ += ("replay_when", "eager", "eager_attrs", "pack", "pack_f")

    def __init__(self, name, code, node, vjp, rule):
        self.name, self.code, self.node, self.vjp, self.rule = name, code, node, vjp, rule
        self.a = self.f = None  # attribute positions, by name (`declare`)
        self.replay = self.cuda_vjp = self.dvjp = self.replay_when = self.eager = None
        self.eager_attrs = False
        # pack(name=value, ...) / pack_f: the row's integer / float attributes in the
        # declared order (`declare`)
        self.pack = self.pack_f = None

    def unpack(self, ia):
        """A row's integer attributes (a sequence) by name (a tail as a tuple)."""
        n = len(self.a)
        if type(self.a) in _TAILED:
            return type(self.a)(*[int(v) for v in ia[: n - 1]], tuple(int(v) for v in ia[n - 1 :]))
        return type(self.a)(*[int(v) for v in ia[:n]])

    def unpack_f(self, fa):
        """A row's float attributes (a sequence) by name."""
        return type(self.f)(*[float(v) for v in fa[: len(self.f)]])

    def __repr__(self):
        return f"OpDef({self.name!r}, code={self.code})"


OPS = []  # indexed by code
BY_NAME = {}
CUSTOM = "custom"  # rows whose VJP is a Python autograd.Function: the sweep returns to Python


_TAILED = set()  # schemas whose last name is a variable-length tail


def attrs(*names):
    """Named attribute positions: `attrs("outer", "n").n == 1`. A global tuple, so a kernel
    reading `iattr(T, k, A.n)` compiles it to a constant. A last name written `*name` is a
    tail of any length (a shape, strides): its position is where it starts, as in
    `iattrs(T, k, A.dims, nd)`; `pack` takes a sequence for it and `unpack` gives a tuple."""
    tail = bool(names) and names[-1].startswith("*")
    fields = (*names[:-1], names[-1][1:]) if tail else names
    schema = namedtuple("attrs", fields)
    if tail:
        _TAILED.add(schema)
    return schema(*range(len(fields)))


def _packer(schema):
    """fn(**values) -> the values in `schema`'s order. Its parameters are the names, keyword
    only, so a missing or unknown name is a TypeError; a plain call, as recording an op
    runs it every time (a namedtuple built from keywords costs several times more)."""
    names = ", ".join(schema._fields)
    params, values = (f"*, {names}", f"({names},)") if names else ("", "()")
    if type(schema) in _TAILED:  # the tail's values follow the others
        values = "(" + "".join(f"{h}, " for h in schema._fields[:-1]) + f"*{schema._fields[-1]},)"
    ns: dict = {}
    exec(f"def pack({params}):\n    return {values}", ns)
    return ns["pack"]


def _ref(fn):
    """ "module:function" of a compiled function, the form generated wrappers import."""
    py = getattr(fn, "py_func", fn)
    return f"{py.__module__}:{py.__name__}"


def declare(
    name, node, *, a=None, f=None, vjp=None, replay=None, replay_when=None, eager=None,
    eager_attrs=False, cuda_vjp=None, dvjp=None, rule=None,
):  # fmt: skip
    """Declare an op with its facets (see the module docstring). `a`, `f`: `attrs(...)`;
    `node`: the name of its PyTorch grad_fn (None: the op has no grad_fn of its own)."""
    if name in BY_NAME:
        raise ValueError(f"op {name!r} declared twice")
    # the sweep's wrapper imports the VJP by name on first use
    vjp = vjp if vjp is None or isinstance(vjp, str) else _ref(vjp)
    op = OpDef(name, len(OPS), node, vjp, rule)
    OPS.append(op)
    BY_NAME[name] = op
    op.a, op.f = a if a is not None else attrs(), f if f is not None else attrs()
    op.pack, op.pack_f = _packer(op.a), _packer(op.f)
    op.replay = None if replay is None else _ref(replay)
    op.replay_when, op.eager, op.eager_attrs = replay_when, eager, eager_attrs
    op.cuda_vjp, op.dvjp = cuda_vjp, dvjp
    return op


declare(CUSTOM, None)  # code 0
