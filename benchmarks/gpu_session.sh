#!/usr/bin/env bash
# Everything nbgrad needs a real NVIDIA GPU for, in one run of a few minutes:
#
#   bash benchmarks/gpu_session.sh            # from the repository root
#
# 1. installs: `pip install -e ".[test,cuda]"`; where no package index is reachable (a GPU
#    node without network), an offline editable install of nbgrad alone over the numba,
#    numba-cuda and pytest already there (CPU kernels then compile on first use); PyTorch
#    CUDA is used as the peer when importable;
# 2. checks that nbgrad sees a real GPU (not the simulator) and records the environment;
# 3. runs every test about CUDA (`pytest tests -k "cuda or gpu"`: tests/test_cuda*.py, the
#    op table's CUDA mode, and the CUDA cases of other files) on the GPU, on every core;
#    tests that fail are run again on numba-cuda's own launch path, to tell the two apart;
# 4. runs the cuda-* benchmarks against PyTorch CUDA (json + table);
# 5. times a fresh process's first CUDA gradient on an empty, then a filled kernel cache.
#
# Each step has its own time limit, so the whole run ends within ~10 minutes even when
# something hangs. Everything is written to $OUT (default /tmp/nbgrad-gpu): env.txt,
# install.txt, tests.txt, bench.json, bench.txt, cache.txt, and summary.txt, which is also
# printed at the end. Exit status: 0 when the tests passed, else 1 (2: no GPU).
set -uo pipefail
out=${OUT:-/tmp/nbgrad-gpu}
py=${PYTHON:-python3}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
export NBGRAD_CACHE_DIR=${NBGRAD_CACHE_DIR:-/tmp/nbgrad-kernel-cache}
start=$(date +%s)
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
elapsed() { echo $(($(date +%s) - start)); }

# 1. install (a few seconds when there is no network: no retries, short time-outs)
{
    if timeout 240 $py -m pip install --retries 0 --timeout 10 -q -e ".[test,cuda]"; then
        echo "installed: nbgrad[test,cuda]"
    elif NBGRAD_PREBUILD=0 timeout 120 $py -m pip install --no-deps --no-build-isolation -q -e .; then
        echo "installed: nbgrad alone (offline), over the packages already here"
    else
        echo "not installed: nbgrad runs from PYTHONPATH"
    fi
} >"$out/install.txt" 2>&1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
say "install: $(tail -1 "$out/install.txt")"

# 2. environment
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    $py - <<'EOF'
import sys
import numba, numpy
import nbgrad
print("python", sys.version.split()[0], "numba", numba.__version__, "numpy", numpy.__version__)
try:
    from importlib.metadata import version
    print("numba-cuda", version("numba-cuda"))
except Exception:
    print("numba-cuda not installed: numba's built-in CUDA target")
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.cuda.is_available())
except ImportError:
    print("torch not installed: nbgrad alone in the benchmarks")
ok = nbgrad.cuda.is_available()
print("nbgrad.cuda.is_available", ok, "simulated", ok and nbgrad.cuda.is_simulated(),
      nbgrad.cuda.get_device_name(0) if ok else "-")
EOF
} >"$out/env.txt" 2>&1
cat "$out/env.txt" >>"$summary"
cat "$out/env.txt"
if ! grep -q "is_available True simulated False" "$out/env.txt"; then
    say "no real GPU for nbgrad here (see env.txt)"
    exit 2
fi

# 3. the CUDA tests, every core (kernels compile on first use in each worker)
t0=$(date +%s)
timeout 360 $py -m pytest tests -k "cuda or gpu" -n "$(nproc)" -p no:cacheprovider \
    -o addopts="" -q --tb=short -rfE >"$out/tests.txt" 2>&1
rc_tests=$?
say "tests: exit $rc_tests in $(($(date +%s) - t0)) s: $(grep -E '[0-9]+ (passed|failed)' "$out/tests.txt" | tail -1)"
grep -E "^(FAILED|ERROR)" "$out/tests.txt" | head -40 | tee -a "$summary"
failed=$(grep -E "^(FAILED|ERROR) " "$out/tests.txt" | awk '{print $2}' | sort -u | head -60)
if [ -n "$failed" ]; then  # the failed tests again, on numba-cuda's own launch path
    t0=$(date +%s)
    # shellcheck disable=SC2086
    NBGRAD_CUDA_FAST_LAUNCH=0 timeout 150 $py -m pytest $failed -n "$(nproc)" -p no:cacheprovider \
        -o addopts="" -q --tb=short >"$out/tests-nofast.txt" 2>&1
    say "failed tests, NBGRAD_CUDA_FAST_LAUNCH=0: exit $? in $(($(date +%s) - t0)) s: $(grep -E '[0-9]+ (passed|failed)' "$out/tests-nofast.txt" | tail -1)"
fi

# 4. the cuda-* benchmarks against PyTorch CUDA
t0=$(date +%s)
timeout 240 $py -m pytest benchmarks/test_cuda.py --benchmark-only -p no:cacheprovider \
    -o addopts="" -q --benchmark-json="$out/bench.json" \
    --benchmark-columns=min,median,rounds >"$out/bench.txt" 2>&1
say "bench: exit $? in $(($(date +%s) - t0)) s"
$py -m benchmarks.report "$out/bench.json" --no-write 2>&1 | grep -E "cuda|^\|" | tee -a "$summary"
$py - "$out/bench.json" <<'EOF' | tee -a "$summary"
import json, sys
try:
    runs = json.load(open(sys.argv[1]))["benchmarks"]
except (OSError, ValueError):
    runs = []
for b in runs:
    e = b.get("extra_info", {})
    gb = {k: round(v, 1) for k, v in e.items() if k.endswith("GBps")}
    print(f"{b['name']}: min {b['stats']['min'] * 1e3:.3f} ms, median "
          f"{b['stats']['median'] * 1e3:.3f} ms {gb or ''}")
EOF

# 5. the on-disk kernel cache: two fresh processes on one empty cache directory, the
#    second loading what the first compiled
fresh=$(mktemp -d)
for run in cold warm; do
    NBGRAD_CACHE_DIR=$fresh timeout 150 $py - "$run" >>"$out/cache.txt" 2>&1 <<'EOF'
import sys, time
t = time.perf_counter()
import nbgrad as nb
t1 = time.perf_counter()
x = nb.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
(x.sin() * x + x).sum().backward()
nb.cuda.synchronize()
t2 = time.perf_counter()
print(f"{sys.argv[1]} cache: import {t1 - t:.2f} s, first CUDA gradient {t2 - t1:.2f} s")
EOF
done
cat "$out/cache.txt" >>"$summary"
cat "$out/cache.txt"
say "total: $(elapsed) s"
[ "$rc_tests" -eq 0 ]
