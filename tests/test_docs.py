"""Every ```python block of README.md and docs/*.md runs: the blocks of one file in order, in
one fresh interpreter, as a reader pasting them would. A block preceded by a line
`<!-- not-run: why -->` is skipped (it needs a GPU, or is an excerpt); keep those few."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"(<!-- not-run:[^>]*-->\n)?```python\n(.*?)```", re.S)


def blocks(path):
    """The file's runnable python blocks, and how many it marks not-run."""
    found = BLOCK.findall(path.read_text())
    return [code for skip, code in found if not skip], sum(1 for skip, _ in found if skip)


def run_blocks(path, tmp_path):
    script = tmp_path / (path.stem + ".py")
    script.write_text("\n\n".join(blocks(path)[0]))
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert p.returncode == 0, f"{path.relative_to(ROOT)}:\n{p.stdout}\n{p.stderr}"
    return p.stdout


@pytest.mark.parametrize(
    "path", [f for f in FILES if blocks(f)[0]], ids=lambda f: f.relative_to(ROOT).as_posix()
)
def test_python_blocks_run(path, tmp_path):
    out = run_blocks(path, tmp_path)
    if path.name == "guide.md":  # the printed values the guide shows are the ones printed
        assert "tensor([20., 20., 20., 20.])" in out
        assert "expected shape compatible with [4, 3]" in out
        assert "tensor([1., 2.], dtype=nbgrad.float64) nbgrad.Size([2, 3])" in out


def test_not_run_markers_stay_few():
    marked = {f.relative_to(ROOT).as_posix(): blocks(f)[1] for f in FILES if blocks(f)[1]}
    assert sum(marked.values()) <= 3, marked
    assert len(blocks(ROOT / "docs" / "guide.md")[0]) >= 8
