#!/bin/bash
# GPU correctness matrix for one kernel variant: `fp8attn check --backend gpu --variant V` against
# the CPU fp64 reference on the same FP8 inputs (kernel gates), over
#   head_dim {64,128,256} (64, 128 for mma-m128) x seqlen {1,17,64,128,1000,4097} and unequal pairs (17x1000, 1000x17,
#   130x64, 64x4097, 4097x64) x GQA ratio {1, 4, h_q} (h_q = 8: h_kv 8, 2, 1; rotated over shapes)
# and, per run, one row of a two-level fractional factorial over (causal, layout, output type, LSE)
# (D = A xor B xor C): 8 runs in which every pair of those options meets in all four combinations.
# The descale granularity rotates over tensor / head / batch-head. Two more runs draw scores that
# are not N(0,1) (--inputs rising, spike). Each run poisons O and LSE and fails on any NaN or
# unwritten element (see cmd_check). Exit 77 (CTest SKIP) without a GPU.
# Usage: test_gpu_matrix.sh FP8ATTN_BINARY VARIANT [extra check flags...]
# With MATRIX_JSON_DIR set, each run also writes MATRIX_JSON_DIR/VARIANT-runN.json.
set -u
bin=$1
variant=$2
shift 2
json_tag="" # the --no-workspace run's JSON files must not overwrite the default run's
for a in "$@"; do [ "$a" = --no-workspace ] && json_tag=-no-workspace; done

# Skip only where there is no NVIDIA device node at all; a GPU host whose driver or runtime is
# unusable must fail here, not skip.
if [ ! -e /dev/nvidiactl ] && [ ! -e /dev/nvidia0 ]; then
    echo "SKIP: no NVIDIA GPU on this machine"
    exit 77
fi

# mma-m128 has no head_dim 256 kernel (two row tiles per warp would need 256 accumulator registers)
dims="64 128 256"
[ "$variant" = mma-m128 ] && dims="64 128"
shapes=()
for d in $dims; do
    shapes+=(--shape 2,8,8,1,1,$d --shape 2,8,2,17,17,$d --shape 1,8,1,64,64,$d
             --shape 2,8,8,128,128,$d --shape 1,8,2,1000,1000,$d --shape 1,2,2,4097,4097,$d
             --shape 1,8,1,17,1000,$d --shape 1,8,8,1000,17,$d --shape 2,8,2,130,64,$d
             --shape 1,8,8,64,4097,$d --shape 1,8,2,4097,64,$d)
done

# hd256's transposing kernel with the split tail (one wave, 16 query tiles of 65 key tiles over
# every SM, query tile by query tile; without the mask and with a workspace: docs/PERF.md w66)
[ "$variant" = wgmma ] && shapes+=(--shape 1,8,8,200,8300,256)
descales=(tensor head batch-head)
fail=0
run=0
# One run: check over every shape with flags=(...), numbered, its JSON file named after it.
check_run() {
    [ -n "${MATRIX_JSON_DIR:-}" ] && flags+=(--json "$MATRIX_JSON_DIR/$variant$json_tag-run$run.json")
    echo "== run $run: ${flags[*]}"
    "$bin" check "${flags[@]}" "${shapes[@]}" "$@"
    rc=$?
    if [ $rc -ne 0 ]; then echo "== run $run FAILED (exit $rc)"; fail=1; fi
    run=$((run + 1))
}
for a in 0 1; do for b in 0 1; do for c in 0 1; do
    dd=$((a ^ b ^ c))
    flags=(--backend gpu --variant "$variant" --no-e2e --seeds $((run + 1)))
    [ $a = 1 ] && flags+=(--causal)
    [ $b = 1 ] && flags+=(--layout bshd) || flags+=(--layout bhsd)
    [ $c = 1 ] && flags+=(--out-type bf16) || flags+=(--out-type fp16)
    [ $dd = 1 ] && flags+=(--lse)
    flags+=(--descale "${descales[$((run % 3))]}")
    check_run "$@"
done; done; done
# Scores that are not N(0,1) (fp8attn check --inputs): every row's max rising along the keys (the
# online softmax rescales at almost every key tile), and one key 200 above the rest for every row
# that sees it. Kernel gates only: FP8 inputs of that range are far from the unquantized ones.
# No LSE: wgmma's S (and so its LSE) carries an error that grows with the score's magnitude
# (QGMMA's truncating accumulation, docs/GATES.md), which the absolute LSE gate does not allow for
# at scores of 10 to 200.
for inputs in rising spike; do
    flags=(--backend gpu --variant "$variant" --no-e2e --seeds $((run + 1)) --inputs $inputs)
    [ $inputs = spike ] && flags+=(--causal --layout bshd)
    check_run "$@"
done
# mma, the default's choice, picks its 64-row tile for every problem above (they are all one wave
# on any GPU; test_gpu_dispatch checks the choice). One more run with problems big enough for the
# 128-row tile, which must be the kernel check reports having run.
if [ "$variant" = mma ]; then
    json=$(mktemp)
    big=(--shape 2,8,8,4096,4096,64 --shape 1,8,8,4096,4096,128)
    echo "== run $run: large problems (128-row tiles)"
    "$bin" check --backend gpu --variant mma --no-e2e --seeds 99 --layout bshd --lse \
        --json "$json" "${big[@]}" "$@"
    rc=$?
    m128=$(grep -cE '"kernel": "fp8attn_mma_hd(64|128)_m128"' "$json")
    rm -f "$json"
    if [ $rc -ne 0 ] || [ "$m128" != 2 ]; then
        echo "== run $run FAILED (exit $rc, $m128 of 2 problems ran a 128-row kernel)"
        fail=1
    fi
    run=$((run + 1))
fi
# wgmma's blocks are persistent (one per SM, each walking several query tiles; causal problems
# of two waves or more pair a long and a short tile, or walk single tiles in snake order where
# sched_plan.cu says so: below, (3,16,4,777,1000,128) causal; on the _vt kernels but hd256's
# they take tiles from a counter instead, the dynamic walk, which test_gpu_sanitize.sh's causal
# shapes with at least two waves and 32 repeats exercise). Above, only (1,8,2,4097,64,D) has more query
# tiles than an H100 has SMs (176 or 264). These have 192 to 384, so most blocks walk several and
# their ring, Q barriers and phases run across tiles: causal with an odd tile count (a pair with
# a lone middle tile), seqlen_q > seqlen_k (tiles whose rows see no key, skipped within a block's
# walk), GQA 16 (the V^T workspace path) and 1 (not).
# (2,16,16,1500,300,256) runs the hd256 kernel that transposes V itself in the causal run (12
# repeats < 16, causal hd256's line), and in both without the workspace: the walk of a producer without a loader warp.
# With the workspace its non-causal run (12 repeats, 384 blocks) takes the _vt kernel (hd256's
# line is 8 repeats without the mask since w69, wgmma_variant.cu), as (2,16,2,1500,300,256), 96, does.
# hd64 problems whose 128-row tiles fit in one wave run the 128-row instance (wgmma_hd64_m128.cu),
# and so do causal ones of at most 1024 keys; the others the 192-row one, with 160-key tiles if
# causal with 1025 to 4096 keys (wgmma_hd64_n160.cu): on an H100 (132 SMs) the first above are
# all but (1,8,2,4097,64,64), which with the problems here runs the second without the mask and
# the first (64 keys) with it. In the causal run below, (2,16,4,1000,...) runs the first on 256
# tiles, and the two of 1100 keys run the third, (4,16,1,...) from the workspace (96 repeats) and
# (2,16,16,...) transposing V.
# hd128 problems of at least 4096 keys (causal: 2048) run 224-key tiles (wgmma_hd128_n224.cu)
# where they read V^T from the workspace; where V is transposed in shared memory (with
# --no-workspace), hd128's 192-key kernel runs them (docs/PERF.md w102):
# above, (1,2,2,4097,4097,128) from the workspace (33 repeats) and (1,8,8,64,4097,128) from it
# too since w63 (one wave: its 8 query tiles' 152 key tiles split over every SM, up to 17
# segments a tile), both without the mask; below, (1,32,1,150,8200,128) in both runs, from the
# workspace (64 repeats), 8200 keys = 36 tiles of 224 and 136 more.
# Without the mask and with the workspace these split their last round of query tiles over the
# grid (split.cuh, on an H100's 132 SMs): (2,16,4,1000,1000,64) 60 tiles of 8 key tiles,
# (1,32,1,150,8200,128) its one round of 64 tiles of 37, (2,10,5,1100,2000,256) 48 of 16 and
# (1,24,8,1000,3000,128) 60 of 16 (hd128's 192-key tiles).
# The pad rule (wgmma_variant.cu), without the mask: (3,16,4,777,1000,128) runs hd128_n224_vt
# (1120 keys covered against 1152), (8,16,16,200,200,128) hd128_n224 transposing V (one key tile
# of 224 against two of 192), the two of 1100 keys at hd64 hd64_n160 (1120 against 1152), and
# (3,16,4,777,800,64) hd64_n160_vt (20 repeats) with its last round split over the grid.
if [ "$variant" = wgmma ]; then
    many=(--shape 4,16,1,1100,1100,64 --shape 2,16,16,1100,1100,64 --shape 2,16,4,1000,1000,64
          --shape 3,16,4,777,1000,128 --shape 2,16,16,1500,300,128 --shape 1,32,1,150,8200,128
          --shape 2,16,2,1500,300,256 --shape 2,16,16,1500,300,256 --shape 2,10,5,1100,2000,256
          --shape 1,24,8,1000,3000,128 --shape 8,16,16,200,200,128 --shape 3,16,4,777,800,64)
    for causal in "" --causal; do
        echo "== run $run: several tiles per block ${causal:-non-causal}"
        "$bin" check --backend gpu --variant wgmma --no-e2e --seeds $((run + 1)) --layout bshd \
            --lse $causal "${many[@]}" "$@"
        rc=$?
        if [ $rc -ne 0 ]; then echo "== run $run FAILED (exit $rc)"; fail=1; fi
        run=$((run + 1))
    done
fi
[ $fail = 0 ] && echo "PASS: $variant, $run runs x ${#shapes[@]} shape arguments" || echo "FAIL: $variant"
exit $fail
