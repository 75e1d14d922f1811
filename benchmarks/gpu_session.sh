#!/usr/bin/env bash
# What issue 6 needs a real GPU for, in few commands, on a machine with an NVIDIA GPU,
# numba, numba-cuda, torch (CUDA), pytest, pytest-xdist and pytest-benchmark installed
# (e.g. the image of the device machines; nothing is installed here: nbgrad is put on
# PYTHONPATH). Run from the repository root; each part fits a 10-minute call.
#
#   bash benchmarks/gpu_session.sh tests   # tests/test_cuda.py on the GPU, then the suite
#   bash benchmarks/gpu_session.sh bench   # the cuda-* benchmarks -> RESULTS-gpu.md
#
# Everything is written to $OUT (default /tmp/nbgrad-gpu): env.txt (GPU, driver, versions),
# test_cuda.txt, suite.txt, RESULTS-gpu.md, bench.txt. Copy RESULTS-gpu.md to
# benchmarks/ and note the test results in benchmarks/RESULTS.md's GPU section.
set -uo pipefail
part=${1:?usage: gpu_session.sh tests|bench}
out=${OUT:-/tmp/nbgrad-gpu}
py=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export NBGRAD_CACHE_DIR=${NBGRAD_CACHE_DIR:-/tmp/nbgrad-kernel-cache}

{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    $py - <<'EOF'
import numba, numpy, torch
import nbgrad
print("numba", numba.__version__, "numpy", numpy.__version__, "torch", torch.__version__)
try:
    import numba_cuda
    print("numba-cuda", numba_cuda.__version__)
except ImportError:
    print("numba-cuda not installed: numba's built-in CUDA target")
ok = nbgrad.cuda.is_available()
print("nbgrad.cuda.is_available", ok, "simulated", ok and nbgrad.cuda.is_simulated(),
      nbgrad.cuda.get_device_name(0) if ok else "-")
EOF
} >"$out/env.txt" 2>&1
cat "$out/env.txt"
if ! grep -q "is_available True simulated False" "$out/env.txt"; then
    echo "no real GPU for nbgrad here (see $out/env.txt)" >&2
    exit 2
fi

case $part in
tests)
    # the CUDA tests first (they are the point), then everything else on this machine
    timeout 240 $py -m pytest tests/test_cuda.py -q -p no:cacheprovider -rs \
        >"$out/test_cuda.txt" 2>&1
    echo "test_cuda exit $?"; tail -3 "$out/test_cuda.txt"
    timeout 330 $py -m pytest tests -q -p no:cacheprovider -n "$(nproc)" \
        >"$out/suite.txt" 2>&1
    echo "suite exit $?"; tail -3 "$out/suite.txt"
    ;;
bench)
    timeout 540 $py -m benchmarks.report --output "$out/RESULTS-gpu.md" -- -k cuda \
        >"$out/bench.txt" 2>&1
    echo "report exit $?"; tail -15 "$out/bench.txt"
    ;;
*)
    echo "unknown part: $part (tests or bench)" >&2
    exit 2
    ;;
esac
