"""Writes the API reference pages, docs/reference/*.md: one `::: object` entry (rendered by
mkdocstrings from the docstring) per public function and class, a page per module.

    python docs/gen_reference.py

tests/test_docstrings.py checks that the pages on disk are what this writes, so a new public
name fails the tests until the pages are regenerated.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# page, title, what it holds, the modules whose names it lists (relative to nbgrad)
AREAS = [
    ("torch", "nbgrad (torch)", "Tensor creation, math, reductions and shape operations.", [""]),
    ("tensor", "nbgrad.Tensor", "The methods and properties of `nbgrad.Tensor`.", ["Tensor"]),
    (
        "autograd",
        "nbgrad.autograd and nbgrad.func",
        "Gradients, custom Functions, grad modes, the functional API and function transforms.",
        ["autograd", "autograd.functional", "autograd.forward_ad", "func"],
    ),
    (
        "nn",
        "nbgrad.nn",
        "Layers, containers, losses, initialisers and data parallelism.",
        ["nn", "nn.init", "nn.utils", "nn.parallel"],
    ),
    (
        "nn_functional",
        "nbgrad.nn.functional",
        "Layers, activations and losses as functions.",
        ["nn.functional"],
    ),  # fmt: skip
    (
        "optim",
        "nbgrad.optim",
        "Optimizers and learning rate schedulers.",
        ["optim", "optim.lr_scheduler"],
    ),  # fmt: skip
    ("data", "nbgrad.utils.data", "Datasets, samplers and the DataLoader.", ["utils.data"]),
    (
        "distributions",
        "nbgrad.distributions",
        "Probability distributions and KL divergences.",
        ["distributions"],
    ),  # fmt: skip
    (
        "more",
        "nbgrad.distributed, nbgrad.cuda, nbgrad.special",
        "Collectives over MPI, the CUDA device, special functions.",
        ["distributed", "cuda", "special"],
    ),
]
HEAD = (
    "Generated from the docstrings by docs/gen_reference.py; the examples use\n"
    "`import nbgrad as torch` and show what PyTorch prints.\n"
)


def render(documented):
    """{file name: text} of the pages, from {public name: object} (tests/test_docstrings.py)."""
    seen, pages = set(), {}
    for page, title, what, modules in AREAS:
        out = [f"# {title}", "", what + " " + HEAD]
        if page == "tensor":
            members = sorted(q.split(".", 1)[1] for q in documented if q.startswith("Tensor."))
            out += ["::: nbgrad.Tensor", "    options:", "      members:"]
            out += [f"        - {m}" for m in members] + [""]
            modules = []
        for qual, obj in documented.items():
            # by where it is defined: the resolver does not see lazily loaded names (a
            # wrapper, e.g. the half-precision one, names the function it wraps)
            if qual.rpartition(".")[0] not in modules or qual == "Tensor":
                continue
            where = f"{obj.__module__}.{obj.__qualname__}"
            if where in seen:
                continue  # an object under several names is shown once, under the first
            seen.add(where)
            out.append(f"::: {where}")
            if isinstance(obj, type):
                out += ["    options:", "      members: false"]
            out.append("")
        pages[f"{page}.md"] = "\n".join(out).rstrip() + "\n"
    return pages


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    from test_docstrings import DOCUMENTED

    for name, text in render(DOCUMENTED).items():
        (ROOT / "docs" / "reference" / name).write_text(text)
