#!/usr/bin/env bash
# The info / compare / gate / resources commands of the fp8attn tool on crafted files under
# data/pipeline: exit statuses and the lines that carry the numbers. Expected numbers are worked
# by hand from those files (see each case). Usage: test_pipeline_cli.sh FP8ATTN DATA_DIR CASE
set -u
TOOL=$1
DATA=$2
CASE=$3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILS=0
OUT=""

fail() {
    echo "FAIL: $*"
    printf '%s\n' "---- output of the last command:" "$OUT" "----"
    FAILS=$((FAILS + 1))
}

# run WANT_STATUS ARGS...: runs the tool (stdout and stderr into $OUT), checks its exit status.
run() {
    local want=$1 rc
    shift
    OUT=$("$TOOL" "$@" 2>&1)
    rc=$?
    [ "$rc" = "$want" ] || fail "fp8attn $* exited $rc, want $want"
}

# has TEXT [FILE]: the last output (or FILE) contains TEXT literally.
has() {
    if [ $# -gt 1 ]; then
        grep -qF -- "$1" "$2" || fail "$2 lacks: $1"
    else
        grep -qF -- "$1" <<<"$OUT" || fail "output lacks: $1"
    fi
}

# mkcase NAME PERF CORRECTNESS RESOURCES: a results dir in $WORK from data files ('-' = none).
mkcase() {
    mkdir -p "$WORK/$1"
    [ "$2" = - ] || cp "$DATA/$2" "$WORK/$1/perf.json"
    [ "$3" = - ] || cp "$DATA/$3" "$WORK/$1/correctness.json"
    [ "$4" = - ] || cp "$DATA/$4" "$WORK/$1/resources.json"
}

BASE=$DATA/gate_base_perf.json
S1="B=1 hq=16 hkv=16 sq=4096 sk=4096 d=128 causal=0"
S2="B=1 hq=16 hkv=16 sq=4096 sk=4096 d=128 causal=1"
S3="B=2 hq=32 hkv=8 sq=1024 sk=1024 d=64 causal=0"
S4="B=1 hq=8 hkv=1 sq=1 sk=8192 d=128 causal=0"
S5="B=4 hq=16 hkv=4 sq=2048 sk=2048 d=256 causal=1"

case_info() {
    run 0 info
    has "fp8attn "
    has "variants ("
    # No GPU on CI: "devices: none (why)"; on a GPU machine the device list instead.
    if ! grep -qF "devices: none (" <<<"$OUT" && ! grep -qE "^devices \([1-9][0-9]*\):" <<<"$OUT"
    then fail "neither 'devices: none (...)' nor a device list"; fi
    run 0 info --json "$WORK/meta.json"
    has '"fp8attn_version"' "$WORK/meta.json"
    has '"cuda_archs"' "$WORK/meta.json"
    has '"devices"' "$WORK/meta.json"
}

# compare_base: S1 100/102, S2 60/61, S3 (only here) 40/41, S5 100/110 (p50/p90 us).
# compare_cand: S1 mma 80/81 and 82/83, reference-gpu 400/420 -> medians 82/83; S2 66/67;
# S5 97/99; S4 only here. S1: 100/82 = 1.220x, -18.0%; S2: +10.0% > 1.7% spread: slower;
# S5: -3.0% < 10% spread of BASE: within noise.
case_compare() {
    mkcase cand compare_cand_perf.json - -
    run 0 compare "$DATA/compare_base_perf.json" "$WORK/cand"
    local md=$WORK/cand/COMPARE.md
    has "wrote $md"
    has "only in BASE"
    has "only in CAND"
    has "note: CAND has several records (variants or seeds) for 1 shape(s)"
    grep -qE "causal=0 +100\.00 +82\.00 +-18\.0% +1\.220x +faster" <<<"$OUT" ||
        fail "no S1 row: 100.00 82.00 -18.0% 1.220x faster"
    has "| $S1 | 100.00 | 82.00 | -18.0% | 1.220x | faster |" "$md"
    has "| $S2 | 60.00 | 66.00 | +10.0% | 0.909x | slower |" "$md"
    has "| $S5 | 100.00 | 97.00 | -3.0% | 1.031x | within noise |" "$md"
    has "| $S3 | 40.00 | - | - | - | only in BASE |" "$md"
    has "| $S4 | - | 30.00 | - | - | only in CAND |" "$md"
}

# --variant-cand mma: S1 = median(80, 82) = 81 -> 100/81 = 1.235x, -19.0%.
case_compare_variant() {
    mkcase cand compare_cand_perf.json - -
    run 0 compare "$DATA/compare_base_perf.json" "$WORK/cand/perf.json" --variant-cand mma
    has "| $S1 | 100.00 | 81.00 | -19.0% | 1.235x | faster |" "$WORK/cand/COMPARE.md"
    has "note: CAND has several records (seeds) of variant mma for 1 shape(s)"
    run 2 compare "$DATA/compare_base_perf.json" "$WORK/cand" --variant-cand nosuch
    has "--variant-cand nosuch: no record of $WORK/cand/perf.json has that variant"
    has "it has: mma, reference-gpu"
}

# gate_base: S1 100, S2 60, S3 40; gate_cand: S1 80 (+25%), S2 50 (+20%), S4. resources_ok:
# mma hd128 168 regs / 0+49152 smem (sm_89), 188 regs / 1024+49152 (sm_90a), no spills; a
# reference-gpu kernel the candidate does not use has 250 regs, 300000 smem, 512 spill bytes.
case_gate_pass() {
    mkcase cand gate_cand_perf.json correctness_pass.json resources_ok.json
    run 0 gate "$BASE" "$WORK/cand"
    has "2 common shape(s), 1 only in BASE, 1 only in CAND"
    has "PASS correctness  4 of 4 (shape, seed) results passed"
    has "PASS speed        smallest speed-up +20.0% at $S2 (required >= +10.0%"
    has "PASS regress      largest slowdown vs BASE -16.7% at $S2 (allowed <= 2.0%)"
    has "PASS registers    max 188 per thread (fp8attn_mma_hd128, sm_90a) over 2 kernel build(s)"
    has "PASS smem         max 50176 bytes"
    has "PASS spills       max 0 spill bytes"
    has "gate: PASS (6 gates)"
}

case_gate_correctness() {
    mkcase cand gate_cand_perf.json correctness_fail.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL correctness  3 of 4 (shape, seed) results passed"
    has "failed: $S2 seed=0"
    has "PASS speed"
    has "gate: FAIL (1 of 6 gates failed)"
}

# gate_slow: S1 95 (100/95 - 1 = +5.3%), S2 55 (+9.1%); geometric mean +7.2%.
case_gate_slow() {
    mkcase cand gate_slow_perf.json correctness_pass.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL speed        smallest speed-up +5.3% at $S1 (required >= +10.0%"
    has "PASS regress"
    has "gate: FAIL (1 of 6 gates failed)"
    run 0 gate "$BASE" "$WORK/cand" --min-speedup 5%
    run 0 gate "$BASE" "$WORK/cand" --min-speedup 0.05
    run 1 gate "$BASE" "$WORK/cand" --min-speedup 0.06
    run 1 gate "$BASE" "$WORK/cand" --geomean
    has "FAIL speed        geometric-mean speed-up +7.2% over 2 common shape(s)"
    run 0 gate "$BASE" "$WORK/cand" --geomean --min-speedup 7%
}

# gate_regress: S1 50 (+100%), S2 63 (5% slower); geometric mean sqrt(2 * 60/63) - 1 = +38.0%.
case_gate_regress() {
    mkcase cand gate_regress_perf.json correctness_pass.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand" --geomean
    has "PASS speed        geometric-mean speed-up +38.0%"
    has "FAIL regress      largest slowdown vs BASE +5.0% at $S2 (allowed <= 2.0%)"
    has "gate: FAIL (1 of 6 gates failed)"
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL speed"
    has "gate: FAIL (2 of 6 gates failed)"
    run 0 gate "$BASE" "$WORK/cand" --geomean --max-regress 6%
}

case_gate_regs() {
    mkcase cand gate_cand_perf.json correctness_pass.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand" --max-regs 187
    has "FAIL registers    max 188 per thread (fp8attn_mma_hd128, sm_90a)"
    has "gate: FAIL (1 of 6 gates failed)"
    run 0 gate "$BASE" "$WORK/cand" --max-regs 188
}

# Largest static + dynamic of the used kernels: 1024 + 49152 = 50176 bytes.
case_gate_smem() {
    mkcase cand gate_cand_perf.json correctness_pass.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand" --max-smem 50175
    has "FAIL smem         max 50176 bytes static + dynamic per block (fp8attn_mma_hd128, sm_90a)"
    run 0 gate "$BASE" "$WORK/cand" --max-smem 50176
}

# resources_spills: the sm_90a mma kernel has a 64-byte stack frame.
case_gate_spills() {
    mkcase cand gate_cand_perf.json correctness_pass.json resources_spills.json
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL spills       max 64 spill bytes per thread (fp8attn_mma_hd128, sm_90a)"
    has "gate: FAIL (1 of 6 gates failed)"
    run 0 gate "$BASE" "$WORK/cand" --spills 64
}

case_gate_missing_files() {
    mkcase nocorr gate_cand_perf.json - resources_ok.json
    run 1 gate "$BASE" "$WORK/nocorr"
    has "FAIL correctness  no correctness.json in $WORK/nocorr"
    run 0 gate "$BASE" "$WORK/nocorr" --no-correctness
    has "SKIP correctness"
    mkcase nores gate_cand_perf.json correctness_pass.json -
    run 1 gate "$BASE" "$WORK/nores"
    has "FAIL resources    no resources.json in $WORK/nores"
    run 0 gate "$BASE" "$WORK/nores" --no-resources
    has "SKIP resources"
}

case_bad_inputs() {
    local cand=$DATA/gate_cand_perf.json
    run 2 compare "$DATA/malformed.json" "$cand"
    has "$DATA/malformed.json: malformed JSON at line 3, column 1:"
    : >"$WORK/empty.json"
    run 2 compare "$BASE" "$WORK/empty.json"
    has "$WORK/empty.json: file is empty"
    run 2 gate "$WORK/missing.json" "$cand"
    has "$WORK/missing.json: No such file or directory"
    mkdir "$WORK/noperf"
    run 2 gate "$BASE" "$WORK/noperf"
    has "$WORK/noperf: no perf.json in this directory"
    mkcase badcorr gate_cand_perf.json malformed.json resources_ok.json
    run 2 gate "$BASE" "$WORK/badcorr"
    has "$WORK/badcorr/correctness.json: malformed JSON at line 3"
    mkcase badres gate_cand_perf.json correctness_pass.json malformed.json
    run 2 gate "$BASE" "$WORK/badres"
    has "$WORK/badres/resources.json: malformed JSON at line 3"
    echo '{"results": [{"B": 1, "h_q": 1, "h_kv": 1, "seqlen_q": 1, "seqlen_k": 1,
           "head_dim": 64, "causal": false, "p90_us": 3}]}' >"$WORK/nop50.json"
    run 2 compare "$BASE" "$WORK/nop50.json"
    has "$WORK/nop50.json: results[0].p50_us must be a number > 0"
    echo '{"results": [{"B": 1, "h_q": 1, "h_kv": 1, "seqlen_q": 1, "seqlen_k": 1,
           "head_dim": 64, "causal": false, "p50_us": 2, "p90_us": 3}]}' >"$WORK/other.json"
    run 2 gate "$BASE" "$WORK/other.json" --no-correctness --no-resources
    has "have no shape in common"
}

case_bad_flags() {
    run 2 gate
    has "need BASE and CAND"
    has "usage: fp8attn gate"
    run 2 gate a b --min-speedup abc
    has "--min-speedup abc: expected a percentage"
    run 2 gate a b --min-speedup 10
    has "--min-speedup 10: ambiguous"
    run 2 gate a b --max-regress -1%
    has "--max-regress -1%: must be >= 0"
    run 2 gate a b --max-regs many
    has "--max-regs many: expected a whole number"
    run 2 gate a b --bogus
    has "unknown option '--bogus'"
    run 0 gate --help
    has "--min-speedup X"
    run 2 compare a
    has "usage: fp8attn compare"
    run 2 compare a b c
    has "unexpected argument 'c'"
    run 2 info --bogus
    has "unknown argument '--bogus'"
    run 2 resources --json
    has "--json needs a file name"
}

# Without touching the real cuobjdump: a missing one, one that fails, one whose listing is
# broken; the fake sits in a directory whose name needs quoting in a shell.
case_resources_no_cuobjdump() {
    FP8ATTN_CUOBJDUMP=$WORK/none
    export FP8ATTN_CUOBJDUMP
    run 2 resources
    has "FP8ATTN_CUOBJDUMP=$WORK/none: not an executable file"
    local dir="$WORK/dir with 'quote' \$x"
    mkdir -p "$dir"
    printf '#!/bin/sh\necho "cuobjdump fatal: boom on $2"\nexit 1\n' >"$dir/cuobjdump"
    chmod +x "$dir/cuobjdump"
    FP8ATTN_CUOBJDUMP=$dir/cuobjdump
    run 2 resources
    has "--dump-resource-usage $TOOL failed (exit 1): cuobjdump fatal: boom on"
    printf '#!/bin/sh\necho " Function k:"\necho "  REG:1 STACK:0 SHARED:0 LOCAL:0"\n' \
        >"$dir/cuobjdump"
    run 2 resources
    has "'Function k:' before any 'arch = sm_XX' line"
    unset FP8ATTN_CUOBJDUMP
}

if ! declare -F "case_$CASE" >/dev/null; then
    echo "unknown case '$CASE'"
    exit 2
fi
"case_$CASE"
if [ "$FAILS" -ne 0 ]; then
    echo "$CASE: $FAILS failure(s)"
    exit 1
fi
echo "$CASE: ok"
