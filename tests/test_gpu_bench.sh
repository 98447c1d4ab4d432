#!/bin/bash
# bench and gate on a real GPU: `fp8attn bench --backend gpu` with --vs must write a complete
# perf.json (every field, L2 flushed, p50 > 0, the --vs pairs with ratios > 0), and the
# correctness / provenance path of `gate` must work on real GPU output:
#   - a perf.json with two variants per shape is refused without --variant-cand (exit 2);
#   - a check of only some of the timed shapes fails the correctness gate (exit 1);
#   - a check of every timed shape with the timed variant passes (exit 0).
# Exit 77 (CTest SKIP) only when the machine has no NVIDIA device node at all; a GPU machine
# whose driver is too old or broken must FAIL here, not skip.
# Usage: test_gpu_bench.sh FP8ATTN_BINARY [PYTHON]
set -u
bin=$1
python=${2:-python3}

if ! { [ -e /dev/nvidiactl ] || [ -e /dev/nvidia0 ]; }; then
    echo "SKIP: no NVIDIA device node (/dev/nvidiactl, /dev/nvidia0)"
    exit 77
fi
if ! command -v "$python" >/dev/null 2>&1; then
    echo "FAIL: $python not found (needed to validate perf.json)"
    exit 1
fi

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0

# step NAME WANT_STATUS ARGS...: runs fp8attn (output in $dir/NAME.log), checks the exit status.
step() {
    local name=$1 want=$2 rc
    shift 2
    echo "== $name: fp8attn $*"
    "$bin" "$@" >"$dir/$name.log" 2>&1
    rc=$?
    cat "$dir/$name.log"
    if [ "$rc" != "$want" ]; then
        echo "FAIL: $name exited $rc, want $want"
        fail=1
        return 1
    fi
    return 0
}

# expect NAME TEXT: the log of step NAME contains TEXT literally.
expect() {
    grep -qF -- "$2" "$dir/$1.log" || { echo "FAIL: $1: output lacks: $2"; fail=1; }
}

out=$dir/res
step bench 0 bench --backend gpu --shapes small,mission --iters 5 --warmup 2 --variant mma \
    --vs reference-gpu --out "$out"

if [ -f "$out/perf.json" ]; then
    "$python" - "$out/perf.json" <<'PY' || fail=1
import json, sys
FIELDS = ["shape", "B", "h_q", "h_kv", "seqlen_q", "seqlen_k", "head_dim", "causal", "layout",
          "out_type", "lse", "descale", "variant", "backend", "seed", "iters", "warmup",
          "l2_flush", "p50_us", "p90_us", "mean_us", "std_us", "min_us", "max_us", "tflops",
          "gbps"]
PAIR_FIELDS = ["shape", "B", "h_q", "h_kv", "seqlen_q", "seqlen_k", "head_dim", "causal",
               "layout", "out_type", "lse", "descale", "seed", "a", "b", "p50_a_us", "p50_b_us",
               "ratio_p50", "ratio_p10", "ratio_p90"]
perf = json.load(open(sys.argv[1]))
bad = []
res = perf.get("results", [])
if len(res) != 4:  # 2 shapes x 1 seed x 2 variants
    bad.append("expected 4 results, got %d" % len(res))
for i, r in enumerate(res):
    missing = [f for f in FIELDS if f not in r]
    if missing:
        bad.append("results[%d] misses %s" % (i, missing))
        continue
    if r["backend"] != "gpu" or r["l2_flush"] is not True:
        bad.append("results[%d]: backend %r, l2_flush %r" % (i, r["backend"], r["l2_flush"]))
    if (r["layout"], r["out_type"], r["lse"], r["descale"]) != ("bhsd", "fp16", False, "head"):
        bad.append("results[%d]: options %r" % (i, [r[k] for k in FIELDS[8:12]]))
    if r["iters"] != 5 or r["warmup"] != 2 or r["variant"] not in ("mma", "reference-gpu"):
        bad.append("results[%d]: iters/warmup/variant %r" % (i, [r["iters"], r["warmup"],
                                                                 r["variant"]]))
    if not (isinstance(r["p50_us"], (int, float)) and r["p50_us"] > 0):
        bad.append("results[%d]: p50_us %r" % (i, r["p50_us"]))
    elif not (0 < r["min_us"] <= r["p50_us"] <= r["p90_us"] <= r["max_us"]
              and r["tflops"] > 0 and r["gbps"] > 0):
        bad.append("results[%d]: inconsistent figures %r" % (i, r))
pairs = perf.get("pairs")
if not isinstance(pairs, list) or len(pairs) != 2:
    bad.append("expected 2 --vs pairs, got %r" % (pairs,))
else:
    for i, q in enumerate(pairs):
        missing = [f for f in PAIR_FIELDS if f not in q]
        if missing:
            bad.append("pairs[%d] misses %s" % (i, missing))
        elif (q["a"], q["b"]) != ("mma", "reference-gpu") or not all(
                isinstance(q[k], (int, float)) and q[k] > 0
                for k in ("ratio_p50", "ratio_p10", "ratio_p90", "p50_a_us", "p50_b_us")):
            bad.append("pairs[%d]: %r" % (i, q))
for b in bad:
    print("FAIL: perf.json:", b)
print("perf.json: %d results, %d pairs checked" % (len(res), len(pairs or [])))
sys.exit(1 if bad else 0)
PY
else
    echo "FAIL: bench wrote no $out/perf.json"
    fail=1
fi

gate_args=(--min-speedup 0% --max-regress 100% --no-resources)
# Two variants per shape (the --vs run): the gate will not take a median across them.
step gate_variants 2 gate "$out" "$out" "${gate_args[@]}" &&
    expect gate_variants "has records of several variants for a gated shape"
# The check of the brief: small only, the default variant. mission was timed but not checked.
step check_small 0 check --backend gpu --shapes small --seeds 0 --out "$out"
step gate_partial 1 gate "$out" "$out" --variant-base mma --variant-cand mma "${gate_args[@]}" &&
    expect gate_partial "not checked: B=1 hq=8 hkv=8 sq=512 sk=512 d=64 causal=0 bhsd fp16"\
" descale=head lse=0 variant mma"
# Every timed shape checked with the timed variant: the gate passes on real GPU output.
step check_all 0 check --backend gpu --variant mma --shapes small,mission --seeds 0 --out "$out"
step gate_pass 0 gate "$out" "$out" --variant-base mma --variant-cand mma "${gate_args[@]}" &&
    expect gate_pass "PASS correctness  2 of 2 (shape, seed) results passed; 2 of 2 gated"\
" shape(s) checked with CAND's variant on backend gpu"

[ $fail = 0 ] && echo "PASS: bench/gate on the GPU" || echo "FAIL: bench/gate on the GPU"
exit $fail
