"""docs/api.md lists every public name of nbgrad, and only names that exist.

docs/api.md has one section per module, headed "## `nbgrad.nn`" (or "## `nbgrad.Tensor`" for
the methods and attributes of Tensor). In a section, the first cell of each table row names
what is covered (one or more `name`s, in backticks); a line starting "Not covered:" names
PyTorch names nbgrad does not have yet. Adding a public name means adding a row for it; a
new public subpackage of nbgrad needs its own section.
"""

import __future__

import importlib
import pkgutil
import re
import types
from pathlib import Path

import nbgrad

API_MD = Path(__file__).resolve().parent.parent / "docs" / "api.md"

# top-level subpackages that hold the implementation, not API (their public names are
# re-exported where PyTorch has them)
INTERNAL = {"backends", "creation", "device", "functions", "ops", "serialization", "tape", "tensor"}

SECTION = re.compile(r"^## `(nbgrad(?:\.\w+)*)`", re.M)
NAME = re.compile(r"`([A-Za-z_]\w*)`")


def _sections():
    """{section path: (covered names, not-covered names)} parsed from docs/api.md."""
    text = API_MD.read_text()
    heads = list(SECTION.finditer(text))
    out = {}
    for h, nxt in zip(heads, [*heads[1:], None]):
        body = text[h.end() : nxt.start() if nxt else len(text)]
        body = body.split("\n## ")[0]  # a section ends at the next heading of any kind
        covered, missing = set(), set()
        for line in body.splitlines():
            if line.startswith("|") and not set(line) <= set("|-: "):
                covered |= set(NAME.findall(line.split("|")[1]))
            elif line.startswith("Not covered:"):
                missing |= set(NAME.findall(line))
        covered -= {"Name", "Covered"}
        out[h.group(1)] = (covered, missing)
    return out


def _target(path):
    if path == "nbgrad.Tensor":
        return nbgrad.Tensor
    return importlib.import_module(path)


def _public(path):
    """Public names of the module (its `__all__`, else what it defines) or of Tensor."""
    obj = _target(path)
    if isinstance(obj, type):  # (PyTorch's names it lacks are listed but unreadable)
        return {n for n in dir(obj) if not n.startswith("_") and hasattr(obj, n)}
    names = getattr(obj, "__all__", None)
    if names is None:  # what it defines: not functions or classes imported from elsewhere
        names = [
            n
            for n in dir(obj)
            if not n.startswith("_")
            and not (
                callable(v := getattr(obj, n))
                and not getattr(v, "__module__", "nbgrad").startswith("nbgrad")
            )
        ]
    # modules and `from __future__ import annotations` are not API
    hidden = (types.ModuleType, __future__._Feature)
    return {n for n in names if not isinstance(getattr(obj, n), hidden)}


def test_every_public_name_has_an_entry_and_every_entry_exists():
    problems = []
    for path, (covered, missing) in _sections().items():
        target = _target(path)
        public = _public(path)
        if undocumented := sorted(public - covered):
            rows = "\n".join(f"    | `{n}` | ... |" for n in undocumented)
            problems.append(f"section `{path}` has no row for {undocumented}; add:\n{rows}")
        if ghosts := sorted(n for n in covered if not hasattr(target, n)):
            problems.append(f"section `{path}` lists names {path} does not have: {ghosts}")
        if now_there := sorted(n for n in missing if hasattr(target, n)):
            problems.append(
                f"section `{path}`: {now_there} exist now: move them from 'Not covered:' "
                "to a table row"
            )
    assert not problems, "docs/api.md is out of date:\n" + "\n".join(problems)


def test_every_public_subpackage_has_a_section():
    sections = _sections()
    subs = [
        m.name
        for m in pkgutil.iter_modules(nbgrad.__path__)
        if not m.name.startswith("_") and m.name not in INTERNAL
    ]
    lacking = [
        f"nbgrad.{s}"
        for s in subs
        if not any(p == f"nbgrad.{s}" or p.startswith(f"nbgrad.{s}.") for p in sections)
    ]
    assert not lacking, (
        f"docs/api.md has no section for {lacking}: add a '## `<module>`' heading with a table "
        "of its public names (or, if it holds only implementation, add it to INTERNAL in "
        "tests/test_api_docs.py)"
    )


def test_the_parser_finds_what_it_should():
    sections = _sections()
    assert {"nbgrad", "nbgrad.Tensor", "nbgrad.nn", "nbgrad.optim"} <= set(sections)
    assert {"tensor", "zeros"} <= sections["nbgrad"][0]
    assert "Linear" in sections["nbgrad.nn"][0]
    assert "backward" in sections["nbgrad.Tensor"][0]
