#!/bin/bash
# Issue 11 on a GPU machine (an H100; no registry there), from the repository root, with the
# folder made by tests/python/prepare_device.sh carried (carry ".carry/fp8attn", ~41 MB:
# libfp8attn.so, the GPU quantize test and benchmark, the peers' wheels; a carried build/ works
# too, but it is larger than the 64 MiB a call may carry). Everything it writes goes to $OUT:
#   device_run.log    all output                quant_bench.json   quantize vs copy bandwidth
#   bench.json        peers side by side         tflops.png, latency.png   the plots
#   summary.md        the table printed last (ready for docs/PERF.md and the README)
# Steps, each under its own time limit and all within ~9 minutes:
#   1. pytest: numpy suite, torch CPU suite, GPU suite (tests/python/test_*.py)
#   2. test_quant_gpu: fp8attn_quantize_gpu against fp8attn_quantize_cpu, bit for bit (C)
#   3. fp8attn_quant_bench: quantize bandwidth against a device-to-device copy, 64 and 256 MiB
#   4. python -m fp8attn.bench --overhead: fp8attn, FA3 FP8, cuDNN FP8, cuDNN BF16, flash FP16;
#      host cost per eager call; CUDA-graph time per call against the raw C API
#   5. the summary
# FULL=1 runs the benchmark's full grid (seqlens 512..16k; takes longer than 9 minutes with the
# tests: run it alone with STEPS=4,5). STEPS=1,2,3,4,5 picks steps.
# Exit status: 0 when every step that ran passed, 1 otherwise (the summary says which).
set -u
OUT=${OUT:-$PWD/results/device}
mkdir -p "$OUT"
exec 3>&1 > >(tee -a "$OUT/device_run.log") 2>&1
TEE=$!
cd "$(dirname "$0")/../.."
T0=$(date +%s)
BUDGET=${BUDGET:-535} # seconds for all steps (the command limit is 600)
STEPS=${STEPS:-1,2,3,4,5}
CARRY=${FP8ATTN_CARRY:-.carry/fp8attn}
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1

if [ -f "$CARRY/lib/libfp8attn.so" ]; then
    export FP8ATTN_LIBRARY=$PWD/$CARRY/lib/libfp8attn.so
    BIN=$CARRY/bin
else # a build/ tree carried instead
    export FP8ATTN_LIBRARY=$(readlink -f build/libfp8attn.so)
    BIN=build/tests
fi
WHEELS=$(ls "$CARRY"/whl/*.whl .peers/whl/*.whl 2>/dev/null)
SITE=/tmp/fp8attn-site
export PYTHONPATH=$PWD/python:$SITE
declare -A STATUS

step_on() { [[ ",$STEPS," == *",$1,"* ]]; }
left() { echo $((BUDGET - ($(date +%s) - T0))); }
# run NAME CAP CMD...: runs CMD under min(CAP, time left - 15 s); records PASS/FAIL/SKIP/TIMEOUT
run() {
    local name=$1 cap=$2 lim rc
    shift 2
    lim=$(left)
    lim=$((lim - 15 < cap ? lim - 15 : cap))
    if [ "$lim" -lt 20 ]; then
        echo "== $name: not run, $(left) s of the budget left"
        STATUS[$name]="NOT RUN (time)"
        return
    fi
    echo "== $name (limit ${lim}s, $(($(date +%s) - T0))s elapsed): $*"
    timeout -k 10 "$lim" "$@"
    rc=$?
    case $rc in
        0) STATUS[$name]=PASS ;;
        77) STATUS[$name]=SKIP ;;
        124 | 137) STATUS[$name]="TIMEOUT (${lim}s)" ;;
        *) STATUS[$name]="FAIL (exit $rc)" ;;
    esac
    echo "== $name: ${STATUS[$name]} ($(($(date +%s) - T0))s elapsed)"
}

echo "== device_run.sh $(date -u +%FT%TZ), commit $(git rev-parse --short=12 HEAD 2>/dev/null || cat "$CARRY/COMMIT" 2>/dev/null)"
echo "library: $FP8ATTN_LIBRARY (carried build of $(cat "$CARRY/COMMIT" 2>/dev/null || echo '?'), archs $(cat "$CARRY/ARCHS" 2>/dev/null || echo '?'))"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
python3 -c 'import sys, torch, numpy; print("python", sys.version.split()[0], "torch", torch.__version__, "numpy", numpy.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'
if [ -n "$WHEELS" ]; then
    for w in $WHEELS; do # one at a time: a wheel that does not install leaves the others
        python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$w" &&
            echo "peer installed into $SITE: $(basename "$w")"
    done
else
    echo "no peer wheels carried ($CARRY/whl or .peers/whl): FA3 and cuDNN FP8 will be skipped"
fi

if step_on 1; then
    P=tests/python/run_pytest.py
    FP8ATTN_NO_TORCH=1 run pytest_numpy 90 python3 $P --need=numpy,ml_dtypes,pytest -- tests/python/test_numpy.py
    run pytest_torch_cpu 120 python3 $P --need=numpy,ml_dtypes,pytest --skip-without=torch -- tests/python/test_torch_cpu.py
    run pytest_gpu 240 python3 $P --need=numpy,ml_dtypes,pytest --skip-without=torch,gpu -- tests/python/test_gpu.py -rfEs --durations=8
fi
if step_on 2; then
    run test_quant_gpu 120 "$BIN/test_quant_gpu"
fi
if step_on 3; then
    run quant_bench 90 "$BIN/fp8attn_quant_bench" --mib 64,256 --json "$OUT/quant_bench.json"
fi
if step_on 4; then
    GRID=()
    [ "${FULL:-0}" = 1 ] && GRID=(--full)
    # the benchmark stops starting shapes in time for its overhead part and plots
    tl=$(($(left) - 15 < 300 ? $(left) - 15 : 300))
    run bench 300 python3 -m fp8attn.bench --out "$OUT" --overhead --time-limit $((tl - 60)) "${GRID[@]}"
fi

echo
echo "== steps"
for s in pytest_numpy pytest_torch_cpu pytest_gpu test_quant_gpu quant_bench bench; do
    [ -n "${STATUS[$s]:-}" ] && printf '  %-18s %s\n' "$s" "${STATUS[$s]}"
done
if step_on 5; then
    python3 tests/python/device_summary.py "$OUT" | tee "$OUT/summary.md"
fi
fail=0
for s in "${!STATUS[@]}"; do
    case $s:${STATUS[$s]} in
        pytest_gpu:SKIP | test_quant_gpu:SKIP | quant_bench:SKIP) fail=1 ;; # a GPU machine
        *:PASS | *:SKIP) ;;
        *) fail=1 ;;
    esac
done
echo "== done in $(($(date +%s) - T0))s, $([ $fail = 0 ] && echo 'every step passed' || echo 'SOME STEP FAILED')"
exec >&3 2>&3 # let tee see the end of its input and finish the log before we return
wait "$TEE" 2>/dev/null
exit $fail
