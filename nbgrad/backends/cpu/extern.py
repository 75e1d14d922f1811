"""Compiled helpers that many kernels share, called by symbol name instead of linked in.

Numba links every function a kernel calls into the kernel's own LLVM module and optimises
the whole module again. A helper used by every kernel (the tape's record functions, the
parallel fill a VJP may run on a broadcast cotangent) was therefore recompiled inside each
of them: about a second per kernel instance, a large share of the suite's cold compile.

`export(name, sig)` compiles the function it decorates as a C function (a Numba `cfunc`,
cached on disk), registers it in LLVM's symbol table under a fixed name, and returns what
compiled code calls instead: an intrinsic that declares that name and calls it. The
caller's module holds only the declaration, so its compile no longer grows with the
helper, and its cached code, which names the symbol, links against whatever address this
process registered. A call costs a few nanoseconds.
A module exports its helpers when it is imported, before any kernel that calls them is
compiled or loaded from the cache (kernels import what they call).
"""

import llvmlite.binding as llvm
from llvmlite import ir
from numba import cfunc, types
from numba.core import cgutils
from numba.extending import intrinsic

_KEEP = {}  # exported cfuncs must stay alive


def export(name, sig):
    """Decorator: compile the function as a C function of `sig` (int64/float64 arguments,
    an int64/float64 or void result), export it as `name`, and return the intrinsic that
    calls it from compiled code."""

    def wrap(fn):
        _KEEP[name] = c = cfunc(sig, cache=True, error_model="numpy")(fn)
        llvm.add_symbol(name, c.address)
        return _caller(name, sig)

    return wrap


def _caller(name, sig):
    restype, argtypes = sig.return_type, sig.args
    void = restype == types.void

    def codegen(context, builder, signature, args):
        ret = ir.VoidType() if void else context.get_value_type(restype)
        fnty = ir.FunctionType(ret, [context.get_value_type(t) for t in argtypes])
        out = builder.call(cgutils.get_or_insert_function(builder.module, fnty, name), args)
        return context.get_dummy_value() if void else out

    # an intrinsic's arity is that of its definition: write one with n named parameters
    params = ", ".join(f"a{i}" for i in range(len(argtypes)))
    ns = {"sig": sig, "codegen": codegen}
    exec(f"def {name}(typingctx, {params}):\n    return sig, codegen", ns)
    return intrinsic(ns[name])
