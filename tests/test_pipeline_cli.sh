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

# derive SRC DEST SED_SCRIPT: $WORK/DEST from data file SRC edited by sed (a variant of a
# crafted file: another backend, layout, ...). Prints the new path.
derive() {
    sed -e "$3" "$DATA/$1" >"$WORK/$2"
    cmp -s "$DATA/$1" "$WORK/$2" && echo "derive: '$3' changed nothing in $1" >&2
    echo "$WORK/$2"
}

BASE=$DATA/gate_base_perf.json
# Every record of the crafted files is bhsd, fp16, one descale per head, no LSE.
OPTS="bhsd fp16 descale=head lse=0"
S1="B=1 hq=16 hkv=16 sq=4096 sk=4096 d=128 causal=0 $OPTS"
S2="B=1 hq=16 hkv=16 sq=4096 sk=4096 d=128 causal=1 $OPTS"
S3="B=2 hq=32 hkv=8 sq=1024 sk=1024 d=64 causal=0 $OPTS"
S4="B=1 hq=8 hkv=1 sq=1 sk=8192 d=128 causal=0 $OPTS"
S5="B=4 hq=16 hkv=4 sq=2048 sk=2048 d=256 causal=1 $OPTS"

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
    # --json=FILE, and missing parent directories are created
    run 0 info --json="$WORK/new/sub/meta.json"
    has '"fp8attn_version"' "$WORK/new/sub/meta.json"
    # a parent that is a regular file: exit 2 with the path and the system's reason
    run 2 info --json "$WORK/meta.json/x.json"
    has "fp8attn info: --json $WORK/meta.json/x.json: cannot create directory"\
" '$WORK/meta.json': Not a directory"
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
    has "note: CAND has records of several variants for 1 shape(s); using the median of their"\
" p50s and p90s (choose one variant with --variant-cand)"
    grep -qE "causal=0 bhsd fp16 descale=head lse=0 +100\.00 +82\.00 +-18\.0% +1\.220x +faster" \
        <<<"$OUT" || fail "no S1 row: 100.00 82.00 -18.0% 1.220x faster"
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
    run 0 compare "$DATA/compare_base_perf.json" "$WORK/cand/perf.json" --variant-cand=mma
    has "| $S1 | 100.00 | 81.00 | -19.0% | 1.235x | faster |" "$WORK/cand/COMPARE.md"
    run 2 compare "$DATA/compare_base_perf.json" "$WORK/cand" --variant-cand nosuch
    has "--variant-cand nosuch: no record of $WORK/cand/perf.json has that variant"
    has "it has: mma, reference-gpu"
}

# The options are part of the key: S1 of CAND measured with layout bshd is another problem than
# BASE's S1 (bhsd), and so is S2 with lse; both are listed apart, never matched.
case_compare_options() {
    local cand
    cand=$(derive gate_cand_perf.json opts_perf.json '0,/"layout": "bhsd"/s//"layout": "bshd"/')
    sed -i '0,/"lse": false/! {0,/"lse": false/s//"lse": true/}' "$cand"
    run 0 compare "$BASE" "$cand"
    local md=$WORK/COMPARE.md
    has "| $S1 | 100.00 | - | - | - | only in BASE |" "$md"
    has "| ${S1/bhsd/bshd} | - | 80.00 | - | - | only in CAND |" "$md"
    has "| $S2 | 60.00 | - | - | - | only in BASE |" "$md"
    has "| ${S2/lse=0/lse=1} | - | 50.00 | - | - | only in CAND |" "$md"
    has "no shape in common"
    run 2 gate "$BASE" "$cand"
    has "have no shape in common (shape, causal, layout, out_type, descale and lse must all match)"
    # every option value is checked when read
    derive gate_cand_perf.json badopt.json '0,/"out_type": "fp16"/s//"out_type": "fp32"/' >/dev/null
    run 2 compare "$BASE" "$WORK/badopt.json"
    has "$WORK/badopt.json: results[0].out_type is missing or not one of fp16, bf16"
    derive gate_cand_perf.json nodesc.json '/"descale": /d' >/dev/null
    run 2 gate "$BASE" "$WORK/nodesc.json"
    has "$WORK/nodesc.json: results[0].descale is missing or not one of tensor, head,"\
" batch-head (perf.json files written before fp8attn recorded it must be measured again)"
}

# gate_base: S1 100, S2 60, S3 40; gate_cand: S1 80 (+25%), S2 50 (+20%), S4. resources_ok:
# mma hd128 168 regs / 0+49152 smem (sm_89), 188 regs / 1024+49152 (sm_90a), no spills; a
# reference-gpu kernel the candidate does not use has 250 regs, 300000 smem, 512 spill bytes.
case_gate_pass() {
    mkcase cand gate_cand_perf.json correctness_pass.json resources_ok.json
    run 0 gate "$BASE" "$WORK/cand"
    has "2 common shape(s), 1 only in BASE, 1 only in CAND"
    has "2 common shape(s), 1 only in BASE, 1 only in CAND (not gated); both measured with"\
" backend gpu, l2_flush true"
    has "PASS correctness  4 of 4 (shape, seed) results passed; 2 of 2 gated shape(s) checked"\
" with CAND's variant on backend gpu ($WORK/cand/correctness.json)"
    has "PASS speed        smallest speed-up +20.0% at $S2 (required >= +10.0%"
    has "PASS regress      largest slowdown vs BASE -16.7% at $S2 (allowed <= 2.0%)"
    has "PASS registers    max 188 per thread (fp8attn_mma_hd128, sm_90a) over 2 kernel build(s)"
    has "PASS smem         max 50176 bytes"
    has "PASS spills       max 0 spill bytes"
    has "gate: PASS (6 gates)"
}

# The resource gates judge the kernels CAND ran: a record naming its kernel ("kernel", written by
# bench) selects exactly that symbol; a record without one selects the kernels of its variant's
# family (mma-m128 runs kernels that resources.json lists under "mma").
case_gate_kernels() {
    local perf corr
    corr=$(derive correctness_pass.json corr_m128.json 's/"variant": "mma"/"variant": "mma-m128"/')
    perf=$(derive gate_cand_perf.json perf_m128.json 's/"variant": "mma"/"variant": "mma-m128"/')
    mkcase m128 - - resources_ok.json
    cp "$corr" "$WORK/m128/correctness.json"
    cp "$perf" "$WORK/m128/perf.json"
    run 0 gate "$BASE" "$WORK/m128"
    has "PASS registers    max 188 per thread (fp8attn_mma_hd128, sm_90a) over 2 kernel build(s)"
    # the record names a kernel resources.json does not list: nothing to judge, which fails
    sed -e 's/"variant": "mma-m128",/"variant": "mma-m128", "kernel": "fp8attn_mma_hd999",/' \
        "$perf" >"$WORK/m128/perf.json"
    run 1 gate "$BASE" "$WORK/m128"
    has "lists no kernel that CAND's records ran (variants mma-m128)"
    # the record names a listed kernel: judged, and the unused reference-gpu kernel is not
    sed -e 's/"variant": "mma-m128",/"variant": "mma-m128", "kernel": "fp8attn_mma_hd128",/' \
        "$perf" >"$WORK/m128/perf.json"
    run 0 gate "$BASE" "$WORK/m128"
    has "PASS spills       max 0 spill bytes"
}

case_gate_correctness() {
    mkcase cand gate_cand_perf.json correctness_fail.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL correctness  3 of 4 (shape, seed) results passed; 2 of 2 gated shape(s) checked"
    has "failed: $S2 seed=0 variant mma"
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
    run 0 gate "$BASE" "$WORK/cand" --geomean --min-speedup=7%
    run 1 gate "$BASE" "$WORK/cand" --min-speedup=0.06
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
    run 1 gate "$BASE" "$WORK/cand" --max-regs=187
    run 0 gate "$BASE" "$WORK/cand" --max-regs=188
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

# BASE and CAND must have been measured alike: the same backend, the same L2 flushing, on every
# record. A CPU run against GPU data, a --hot run against a flushed one, or a file that mixes
# them is refused with exit 2 (not judged), by gate; compare only warns.
case_gate_setup() {
    local cpu hot mixed
    mkcase cand gate_cand_perf.json correctness_pass.json resources_ok.json
    cpu=$(derive gate_cand_perf.json cpu_perf.json 's/"backend": "gpu"/"backend": "cpu"/')
    cp "$cpu" "$WORK/cand/perf.json"
    run 2 gate "$BASE" "$WORK/cand"
    has "fp8attn gate: BASE $BASE was measured with backend gpu, l2_flush true, CAND"\
" $WORK/cand/perf.json with backend cpu, l2_flush true: timings of different backends, L2"\
" states, workspace settings or inputs are not comparable"
    run 2 gate "$BASE" "$WORK/cand" --no-correctness --no-resources
    run 0 compare "$BASE" "$WORK/cand"
    has "warning: BASE was measured with backend gpu, l2_flush true, CAND with backend cpu,"\
" l2_flush true: their timings are not comparable"
    has "warning: BASE was measured with backend gpu" "$WORK/cand/COMPARE.md"
    hot=$(derive gate_cand_perf.json hot_perf.json 's/"l2_flush": true/"l2_flush": false/')
    run 2 gate "$BASE" "$hot"
    has "CAND $hot with backend gpu, l2_flush false: timings of different backends, L2 states"
    # the second record only: past the first match, the next match is changed
    mixed=$(derive gate_cand_perf.json mixed_perf.json \
        '0,/"l2_flush": true/! {0,/"l2_flush": true/s//"l2_flush": false/}')
    run 2 gate "$BASE" "$mixed"
    has "fp8attn gate: CAND $mixed: results[0] (backend gpu, l2_flush true) and results[1]"\
" (backend gpu, l2_flush false) were measured differently"
    # the workspace and the input kind belong to the setup where a file records them (bench
    # does): a run with --no-workspace or --inputs rising is not gated against one without
    local ws_on ws_off rising ws_same bad
    ws_on=$(derive gate_base_perf.json ws_on_perf.json \
        's/"l2_flush": true/"l2_flush": true, "workspace": true, "inputs": "normal"/')
    ws_off=$(derive gate_cand_perf.json ws_off_perf.json \
        's/"l2_flush": true/"l2_flush": true, "workspace": false, "inputs": "normal"/')
    run 2 gate "$ws_on" "$ws_off" --no-correctness --no-resources
    has "fp8attn gate: BASE $ws_on was measured with backend gpu, l2_flush true, workspace true,"\
" inputs normal, CAND $ws_off with backend gpu, l2_flush true, workspace false, inputs normal:"\
" timings of different backends, L2 states, workspace settings or inputs are not comparable"
    run 0 compare "$ws_on" "$ws_off"
    has "warning: BASE was measured with backend gpu, l2_flush true, workspace true, inputs"\
" normal, CAND with backend gpu, l2_flush true, workspace false, inputs normal: their timings"\
" are not comparable"
    rising=$(derive gate_cand_perf.json rising_perf.json \
        's/"l2_flush": true/"l2_flush": true, "workspace": true, "inputs": "rising"/')
    run 2 gate "$ws_on" "$rising" --no-correctness --no-resources
    has "CAND $rising with backend gpu, l2_flush true, workspace true, inputs rising: timings"
    # a file that does not record them is not gated against one that does: measure it again
    run 2 gate "$BASE" "$ws_off" --no-correctness --no-resources
    has "BASE $BASE was measured with backend gpu, l2_flush true, CAND $ws_off with backend gpu,"
    ws_same=$(derive gate_cand_perf.json ws_same_perf.json \
        's/"l2_flush": true/"l2_flush": true, "workspace": true, "inputs": "normal"/')
    run 0 gate "$ws_on" "$ws_same" --no-correctness --no-resources
    has "both measured with backend gpu, l2_flush true, workspace true, inputs normal"
    bad=$(derive gate_cand_perf.json ws_bad_perf.json 's/"l2_flush": true/"l2_flush": true, "workspace": 1/')
    run 2 gate "$ws_on" "$bad" --no-correctness --no-resources
    has "$bad: results[0].workspace is not a boolean"
    bad=$(derive gate_cand_perf.json in_bad_perf.json 's/"l2_flush": true/"l2_flush": true, "inputs": "flat"/')
    run 2 compare "$ws_on" "$bad"
    has "$bad: results[0].inputs is not one of normal, rising, spike"
    # the same CPU data on both sides is fine
    run 1 gate "$cpu" "$WORK/cand" --no-resources
    has "both measured with backend cpu, l2_flush true"
    has "FAIL correctness"
    has "backend: $WORK/cand/correctness.json is from backend gpu, CAND's perf.json from"\
" backend cpu"
}

# Provenance of CAND's correctness.json: it must come from CAND's backend and hold a passing
# record of every gated shape (all key fields, options included) with the variant CAND timed.
# correctness_partial: S1 mma (pass); S2 only as reference-gpu and as mma with layout bshd.
case_gate_provenance() {
    mkcase cand gate_cand_perf.json correctness_partial.json resources_ok.json
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL correctness  3 of 3 (shape, seed) results passed; 1 of 2 gated shape(s) checked"
    has "not checked: $S2 variant mma"
    grep -qF "not checked: $S1" <<<"$OUT" && fail "S1 is checked, yet listed"
    has "gate: FAIL (1 of 6 gates failed)"
    # a correctness.json from the CPU backend does not vouch for GPU timings
    derive correctness_pass.json correctness.json 's/"backend": "gpu"/"backend": "cpu"/' >/dev/null
    cp "$WORK/correctness.json" "$WORK/cand/correctness.json"
    run 1 gate "$BASE" "$WORK/cand"
    has "FAIL correctness  4 of 4 (shape, seed) results passed; 2 of 2 gated shape(s) checked"\
" with CAND's variant on backend cpu"
    has "backend: $WORK/cand/correctness.json is from backend cpu, CAND's perf.json from"\
" backend gpu"
    # checked with another variant than the one timed
    derive correctness_pass.json correctness.json \
        's/"variant": "mma"/"variant": "reference-gpu"/' >/dev/null
    cp "$WORK/correctness.json" "$WORK/cand/correctness.json"
    run 1 gate "$BASE" "$WORK/cand"
    has "0 of 2 gated shape(s) checked"
    has "not checked: $S1 variant mma"
    has "not checked: $S2 variant mma"
    # checked without --lse, timed with it (BASE and CAND both with it): not the same problem
    derive gate_base_perf.json base_lse.json 's/"lse": false/"lse": true/' >/dev/null
    derive gate_cand_perf.json cand_lse.json 's/"lse": false/"lse": true/' >/dev/null
    mkcase lse - correctness_pass.json resources_ok.json
    cp "$WORK/cand_lse.json" "$WORK/lse/perf.json"
    run 1 gate "$WORK/base_lse.json" "$WORK/lse"
    has "not checked: ${S1/lse=0/lse=1} variant mma"
    # a correctness.json from before the options were recorded is refused, naming the field
    derive correctness_pass.json correctness.json '/"descale": /d' >/dev/null
    cp "$WORK/correctness.json" "$WORK/cand/correctness.json"
    run 2 gate "$BASE" "$WORK/cand"
    has "$WORK/cand/correctness.json: results[0].descale is missing or not one of tensor,"\
" head, batch-head"
}

# A side with several variants for a gated shape: gate refuses to take a median across them
# (exit 2, listing them) until --variant-base / --variant-cand picks one; compare only notes it.
# compare_cand: S1 mma 80 and 82, reference-gpu 400; S2 mma 66 (+10% vs BASE 60).
case_gate_variants() {
    mkcase cand compare_cand_perf.json correctness_pass.json resources_ok.json
    run 2 gate "$BASE" "$WORK/cand"
    has "fp8attn gate: CAND $WORK/cand/perf.json has records of several variants for a gated"\
" shape; the gate compares one variant per side: choose it with --variant-cand NAME"
    has "  $S1: mma, reference-gpu"
    run 0 gate "$BASE" "$WORK/cand" --variant-cand=mma --min-speedup=-50% --max-regress=20%
    has "note: CAND has several records (seeds) of variant mma for 1 shape(s)"
    has "PASS correctness  4 of 4 (shape, seed) results passed; 2 of 2 gated shape(s) checked"
    has "PASS regress      largest slowdown vs BASE +10.0% at $S2 (allowed <= 20.0%)"
    has "PASS registers    max 188 per thread"
    # reference-gpu was timed for S1 only, and correctness_pass has no reference-gpu record
    run 1 gate "$BASE" "$WORK/cand" --variant-cand reference-gpu --min-speedup -90% \
        --max-regress 400%
    has "1 common shape(s)"
    has "not checked: $S1 variant reference-gpu"
    has "FAIL smem         max 300000 bytes static + dynamic per block (fp8attn_reference_gpu_hd128"
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
    local rec='"B": 1, "h_q": 1, "h_kv": 1, "seqlen_q": 1, "seqlen_k": 1, "head_dim": 64,
           "causal": false, "layout": "bhsd", "out_type": "fp16", "lse": false,
           "descale": "head"'
    echo "{\"results\": [{$rec, \"backend\": \"gpu\", \"l2_flush\": true, \"p90_us\": 3}]}" \
        >"$WORK/nop50.json"
    run 2 compare "$BASE" "$WORK/nop50.json"
    has "$WORK/nop50.json: results[0].p50_us must be a number > 0"
    echo "{\"results\": [{$rec, \"l2_flush\": true, \"p50_us\": 2, \"p90_us\": 3}]}" \
        >"$WORK/nobackend.json"
    run 2 compare "$BASE" "$WORK/nobackend.json"
    has "$WORK/nobackend.json: results[0].backend is missing or not one of cpu, gpu"
    echo "{\"results\": [{$rec, \"backend\": \"gpu\", \"p50_us\": 2, \"p90_us\": 3}]}" \
        >"$WORK/noflush.json"
    run 2 compare "$BASE" "$WORK/noflush.json"
    has "$WORK/noflush.json: results[0].l2_flush is missing or not a boolean"
    echo "{\"results\": [{$rec, \"backend\": \"gpu\", \"l2_flush\": true, \"p50_us\": 2,
           \"p90_us\": 3}]}" >"$WORK/other.json"
    run 2 gate "$BASE" "$WORK/other.json" --no-correctness --no-resources
    has "have no shape in common"
}

case_bad_flags() {
    run 2 gate
    has "need BASE and CAND"
    has "usage: fp8attn gate"
    run 2 gate a b --min-speedup abc
    has "fp8attn gate: --min-speedup 'abc': expected a percentage like 10% or a fraction like 0.10"
    run 2 gate a b --min-speedup 10
    has "--min-speedup '10': ambiguous; write 10% for 10 percent"
    run 2 gate a b --min-speedup=-100%
    has "--min-speedup '-100%': must be above -100%"
    run 2 gate a b --max-regress -1%
    has "--max-regress '-1%': must be >= 0"
    run 2 gate a b --max-regs many
    has "--max-regs 'many': expected a whole number >= 0"
    run 2 gate a b --max-smem=-5
    has "--max-smem '-5': expected a whole number >= 0"
    run 2 gate a b --spills
    has "fp8attn gate: --spills needs a value"
    run 2 gate a b --bogus
    has "unknown option '--bogus'"
    run 2 gate a b --geomean=1
    has "unknown option '--geomean=1'"
    run 0 gate --help
    has "--min-speedup X"
    has "Exit status: 0 every gate passed"
    run 2 compare a
    has "need BASE and CAND"
    has "usage: fp8attn compare"
    run 2 compare a b c
    has "unexpected argument 'c'"
    run 2 compare a b --variant-cand=
    has "--variant-cand '': needs a variant name"
    run 2 compare a b --variant-base
    has "--variant-base needs a value"
    run 0 compare -h
    has "usage: fp8attn compare"
    run 2 info --bogus
    has "fp8attn info: unknown option '--bogus'"
    run 2 resources --json
    has "fp8attn resources: --json needs a value"
    run 2 resources --json=
    has "fp8attn resources: --json '': needs a file name"
    run 0 resources --help
    has "Exit status"
    run 0 bench --help
    has "Exit status: 0 every shape x seed was timed"
    has "a run that failed (a CUDA error"
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
