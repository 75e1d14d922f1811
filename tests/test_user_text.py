"""User-facing text (README, docs, examples, and nbgrad's docstrings and messages) refers only
to things a user can see: no internal issue numbers, question labels, or paths outside the
repository."""

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# what a reader cannot look up: tracker numbers, internal question labels, the dev workspace
INTERNAL = re.compile(
    r"\bissues?\s+#?\d+|\bseeds?\s+\d{3}\b|\(seed\s+\d+\)|(?<![\w.])(\.\./)?shared/|\bthe brief\b",
    re.I,
)


def _user_text():
    """(file, line number, text) for every line of prose a user reads."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    files += sorted((ROOT / "examples").glob("*.py"))
    for f in files:
        for i, line in enumerate(f.read_text().splitlines(), 1):
            yield f, i, line
    # in the package, only string literals (docstrings, error messages) reach users
    for f in sorted((ROOT / "nbgrad").rglob("*.py")):
        for tok in tokenize.generate_tokens(io.StringIO(f.read_text()).readline):
            if tok.type == tokenize.STRING:
                yield f, tok.start[0], tok.string


def test_no_internal_references():
    bad = [
        f"{f.relative_to(ROOT)}:{i}: {m.group(0)!r}"
        for f, i, text in _user_text()
        for m in INTERNAL.finditer(text)
    ]
    assert not bad, "internal references in user-facing text:\n" + "\n".join(bad)


def test_pattern_catches_what_it_should():
    for s in [
        "see issue 4",
        "Issue #12",
        "(seed 002)",
        "Seeds 002 and 003",
        "../shared/seeds/",
        "following `shared/design.md`",
        "the brief left open",
    ]:
        assert INTERNAL.search(s), s
    for s in ["--seed 1", "manual_seed(0)", "seeds = []", "tissue 3"]:
        assert not INTERNAL.search(s), s
