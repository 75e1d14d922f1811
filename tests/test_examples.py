"""Each example runs end to end in its fast mode (`--quick`), in a fresh interpreter."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _env():
    """This checkout's nbgrad first (an installed one may be another checkout's)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(EXAMPLES.parent) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run(tmp_path, script, *args, timeout=600):
    p = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=_env(),
    )
    assert p.returncode == 0, f"{script} failed:\n{p.stdout}\n{p.stderr}"
    return p.stdout


def has(mod):
    return importlib.util.find_spec(mod) is not None


def test_train_digits_quick(tmp_path):
    pytest.importorskip("sklearn")
    out = run(tmp_path, "train_digits.py", "--quick", "--plot", "curve.png")
    assert "[nbgrad] test accuracy" in out and "wall time" in out
    acc = float(out.split("test accuracy ")[1].split("%")[0])
    assert acc > 85.0  # 3 epochs; the full run reaches > 95%
    if has("matplotlib"):
        assert (tmp_path / "curve.png").stat().st_size > 1000


@pytest.mark.slow
def test_train_digits_reaches_95(tmp_path):
    pytest.importorskip("sklearn")
    out = run(tmp_path, "train_digits.py", "--no-plot", "--no-progress")
    acc = float(out.split("test accuracy ")[1].split("%")[0])
    assert acc >= 95.0


def test_train_digits_compiled(tmp_path):
    pytest.importorskip("sklearn")
    out = run(tmp_path, "train_digits.py", "--quick", "--compile", "--no-plot")
    acc = float(out.split("test accuracy ")[1].split("%")[0])
    assert "[nbgrad compiled]" in out and acc > 85.0


def test_train_digits_torch_backend(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("torch")
    out = run(tmp_path, "train_digits.py", "--quick", "--backend", "torch", "--no-plot")
    assert "[torch] test accuracy" in out


def cnn_accuracy(tmp_path, *args):
    out = run(tmp_path, "train_cnn.py", "--quick", "--no-progress", *args)
    return out, float(out.split("test accuracy ")[1].split("%")[0])


def test_train_cnn_quick(tmp_path):
    pytest.importorskip("sklearn")
    out, acc = cnn_accuracy(tmp_path, "--plot", "cnn.png")
    assert "[nbgrad] test accuracy" in out and "wall time" in out
    assert acc > 80.0  # 2 epochs; the full run reaches about 98%
    if has("matplotlib"):
        assert (tmp_path / "cnn.png").stat().st_size > 1000


def test_train_cnn_torch_backend_agrees(tmp_path):
    """The same script on PyTorch, from the same weights and batches: the same accuracy
    (to one test image of 450, for float32 rounding)."""
    pytest.importorskip("sklearn")
    pytest.importorskip("torch")
    out, acc_torch = cnn_accuracy(tmp_path, "--backend", "torch", "--no-plot")
    assert "[torch] test accuracy" in out
    assert abs(cnn_accuracy(tmp_path, "--no-plot")[1] - acc_torch) < 0.3


def test_regression_quick(tmp_path):
    out = run(tmp_path, "regression.py", "--quick", "--no-progress")
    assert "[nbgrad] RMSE" in out
    if has("matplotlib"):  # a quick run writes its own picture, never the full run's
        assert (tmp_path / "regression-quick.png").stat().st_size > 1000
        assert not (tmp_path / "regression.png").exists()


def test_regression_progress_without_tqdm(tmp_path):
    """Without tqdm the progress bar falls back to a printed line every tenth of the run."""
    p = run_without(tmp_path, "tqdm", "regression.py", "--quick", "--no-plot")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("epoch")]
    assert len(lines) == 10 and lines[-1].startswith("epoch  100/100  mse")


def run_without(tmp_path, module, script, *args):
    """Run an example in a fresh interpreter where `import <module>` fails, as on a machine
    without it (`sys.modules[name] = None` makes the import raise ModuleNotFoundError)."""
    wrapper = (
        "import runpy, sys; "
        f"sys.modules[{module!r}] = None; "
        f"sys.path.insert(0, {str(EXAMPLES)!r}); "
        f"sys.argv = [{script!r}, *{list(args)!r}]; "
        f"runpy.run_path({str(EXAMPLES / script)!r}, run_name='__main__')"
    )
    p = subprocess.run(
        [sys.executable, "-c", wrapper],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(),
    )
    return p


def test_torch_backend_without_torch_says_so(tmp_path):
    """Each example asked for `--backend torch` where torch is missing exits with a message
    saying so, not a traceback. One interpreter runs them all (a fresh one each took a
    process start and nbgrad's import per example)."""
    scripts = ["train_digits.py", "train_cnn.py", "regression.py", "custom_function.py",
               "physics_fit.py"]  # fmt: skip
    driver = (
        "import runpy, sys, traceback\n"
        "sys.modules['torch'] = None\n"
        f"sys.path.insert(0, {str(EXAMPLES)!r})\n"
        f"for script in {scripts!r}:\n"
        "    sys.argv = [script, '--quick', '--backend', 'torch']\n"
        "    try:\n"
        f"        runpy.run_path({str(EXAMPLES)!r} + '/' + script, run_name='__main__')\n"
        "    except SystemExit as e:\n"
        "        print(f'{script} exit: {e.code}')\n"
        "    except BaseException:\n"
        "        print(f'{script} raised:'); traceback.print_exc(file=sys.stdout)\n"
        "    else:\n"
        "        print(f'{script} ran')\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", driver], cwd=tmp_path, capture_output=True, text=True,
        timeout=600, env=_env(),
    )  # fmt: skip
    assert p.returncode == 0, p.stdout + p.stderr
    lines = [ln for ln in p.stdout.splitlines() if ln.split(" ")[0] in scripts]
    assert len(lines) == len(scripts), p.stdout
    for script, line in zip(scripts, lines):
        # sys.exit(message): the message on stderr and exit status 1, as a script
        assert line.startswith(f"{script} exit: "), p.stdout
        assert "--backend torch: torch is not installed" in line, line
        assert "pip install torch" in line, line


def test_custom_function(tmp_path):
    out = run(tmp_path, "custom_function.py", "--quick")
    assert "MyFunc.backward received grad_output of shape (3,)" in out
    assert "v^T J          = [-9.  7.  3.]" in out
    assert "expected shape compatible with [4, 3]" in out


def test_custom_function_same_output_on_torch(tmp_path):
    pytest.importorskip("torch")
    a = run(tmp_path, "custom_function.py")
    b = run(tmp_path, "custom_function.py", "--backend", "torch")
    assert a.replace("nbgrad", "torch") == b


def test_physics_fit_quick(tmp_path):
    out = run(tmp_path, "physics_fit.py", "--quick", "--plot", "loss.png", "--no-progress")
    assert "nbgrad: k=" in out
    if has("torch"):
        assert " torch: k=" in out and "nbgrad / torch wall time" in out
        # the same code on both: the same fitted values
        k_nb = float(out.split("nbgrad: k=")[1].split()[0])
        k_t = float(out.split(" torch: k=")[1].split()[0])
        assert abs(k_nb - k_t) < 1e-6
    if has("matplotlib"):
        assert (tmp_path / "loss.png").exists()


@pytest.mark.slow
def test_physics_fit_converges(tmp_path):
    out = run(tmp_path, "physics_fit.py", "--backend", "nbgrad", "--no-plot", "--no-progress")
    k = float(out.split("nbgrad: k=")[1].split()[0])
    c = float(out.split("nbgrad: k=")[1].split(" c=")[1].split()[0])
    assert abs(k - 4.0) < 0.05 and abs(c - 0.35) < 0.02
