#!/bin/bash
# compute-sanitizer memcheck and racecheck (and synccheck for wgmma) on a sample of problems with
# tails (seqlens that are not multiples of any tile, causal with seqlen_q != seqlen_k, GQA), for
# every GPU kernel: the reference, both mma tiles ("mma" only picks one of those) and wgmma.
# Exit 77 (CTest SKIP) without a GPU or without compute-sanitizer.
# Usage: test_gpu_sanitize.sh FP8ATTN_BINARY [VARIANT...]
set -u
bin=$1
# Skip only where there is no NVIDIA device node at all (a GPU host with a broken driver fails).
if [ ! -e /dev/nvidiactl ] && [ ! -e /dev/nvidia0 ]; then echo "SKIP: no NVIDIA GPU"; exit 77; fi
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
if [ -z "$cs" ]; then echo "SKIP: compute-sanitizer not found"; exit 77; fi

shapes=(--shape 1,4,2,33,77,64 --shape 1,2,1,77,33,128 --shape 1,2,2,130,129,256 --shape 2,2,2,1,17,64)
# mma-m128 (no head_dim 256 kernel): a 128-row tile over 2 query tiles and a tail
shapes_m128=(--shape 1,4,2,33,77,64 --shape 1,2,1,200,333,128 --shape 2,2,2,1,17,64)
# wgmma (when built): key counts spanning several tiles so every pipeline stage is reused
shapes_wgmma=(--shape 1,4,2,33,777,64 --shape 1,2,1,200,333,128 --shape 1,2,2,130,400,256 --shape 2,2,2,1,17,64
              --shape 1,8,1,512,700,128 --shape 1,16,1,400,333,64 --shape 1,8,1,512,300,256
              --shape 1,72,8,200,300,64 --shape 1,136,8,200,300,128 --shape 1,32,1,64,4100,128
              --shape 1,2,1,100,8200,128 --shape 1,136,34,400,150,128
              --shape 1,44,4,777,900,128 --shape 1,56,56,800,800,64 --shape 1,60,6,650,500,256
              --shape 1,136,8,300,200,128 --shape 1,140,140,300,100,256 --shape 1,48,48,512,300,256
              --shape 1,140,14,200,1200,64 --shape 1,100,10,200,1500,256
              --shape 1,70,2,300,4200,128 --shape 1,8,8,200,8300,256
              --shape 1,140,140,64,2200,256 --shape 1,4,2,700,3000,64 --shape 8,16,16,200,200,128
              --shape 1,136,8,256,8200,128 --shape 1,4,1,4400,4100,128
              --shape 1,16,2,600,3000,128)
# (1,8,1,512,700,128), (1,16,1,400,333,64), (1,8,1,512,300,256) and (1,136,8,200,300,128) reach 32
# repeats, and (1,72,8,200,300,64) 18 on 144 blocks without the mask: with the tool's workspace
# they run the counters' clear and the _vt kernels (the last only non-causal). (1,72,8,...) and
# (1,136,8,...) have more query tiles (144, 272) than an H100 has SMs, so some persistent blocks
# walk more than one, and the causal run of the second takes the dynamic walk; the causal run of the first
# takes the 128-row hd64 instance. (1,32,1,64,4100,128) runs hd128's 224-key tiles without the mask (32
# repeats: from the workspace); (1,2,1,100,8200,128), transposing V, hd128's 192-key kernel,
# causal and not (docs/PERF.md w102).)
# (1,136,34,400,150,128) causal: the first 250 rows see no key, so blocks walk query tiles with
# keys and without, one after the other; 4 query tiles x 4 query heads per kv head = 16 repeats
# keep it on hd128's transposing kernel, which runs the cross-tile overlap (consume_cross,
# next_with_keys). (1,44,4,777,900,128), (1,56,56,800,800,64) and (1,60,6,650,500,256), causal, have at least two waves: hd128 from the workspace (77
# repeats) takes the dynamic walk (scheduler.cuh: a taker thread, a counter in the workspace, a
# slot in shared memory), as does (1,136,8,200,300,128) causal (34 repeats); hd256 from the
# workspace (60) and hd64 transposing V (7) walk their tiles in snake order (sched_plan.cu picks
# it: 2 heads <= 132 SMs, 2 % less on the busiest block). (1,136,8,300,200,128) causal: the
# dynamic walk (51 repeats, 408 tiles) where the first query tile of every head sees no key (the
# taker hands it over, the consumers write O = 0 without a load). (1,140,140,300,100,256) and
# (1,48,48,512,300,256), 3 and 4 repeats: hd256's transposing kernel with more query tiles (420,
# 192) than SMs, so blocks hand O staged over the ring from tile to tile (config.cuh O_IN_RING):
# one key tile per query tile, and, causal, query tiles without keys between (the first 200 rows
# see none); three key tiles per query tile (docs/PERF.md w59).
# Without the mask, with the workspace, the split tail (split.cuh): (1,44,4,777,900,128) on hd128's
# _vt kernel (308 tiles: a last round of 44 tiles of 5 key tiles spread over 132 blocks), the last
# three on hd64's (3 consumers; 16 tiles of 10), hd256's (68 of 12) and hd128_n224's (78 of 19):
# segments written, counted and merged by the last warp across blocks. (1,8,8,200,8300,256): the
# split in hd256's transposing kernel (one wave: 16 tiles of 65 key tiles over every block, taken
# query tile by query tile, the partial second query tile and the last key tile's tail included;
# a workspace of the split's counts and slots alone, no V^T: docs/PERF.md w66); causal, the same
# kernel unsplit. (1,140,140,64,2200,256): the same split after a full round (140 tiles of 18
# key tiles: 132 whole, each staged over the ring and stored by the producer, then the last 8
# split; half-filled query tiles). (1,4,2,700,3000,64) without the mask: one wave at hd64, which
# with the workspace runs the 192-row instance's _vt kernel, split, query tile by query tile
# (docs/PERF.md w67); causal, hd64_m128. (8,16,16,200,200,128) without the mask: hd128_n224's
# transposing kernel, by the pad rule (one key tile of 224 against two of 192, 256 query tiles);
# its other problems, those of 4096 keys and more, now take hd128's (docs/PERF.md w102).
# (1,136,8,256,8200,128): causal, hd128_n224's causal _vt kernel (_vtc: the cross-tile overlap,
# two Q stages; w103) on the dynamic walk (272 query tiles, 34 repeats); without the mask its _vt
# kernel, splitting the last round (8 tiles of 37 key tiles over the grid). (1,4,1,4400,4100,128)
# causal: _vtc with more queries than keys (the first 300 rows of a head see no key) on the
# dynamic walk (140 query tiles; w106). (1,16,2,600,3000,128) causal: _vtc below 4096 keys (40
# repeats; w107); without the mask hd128_vt (below 4096 keys, one wave).
variants="reference-gpu mma-m64 mma-m128"
"$bin" info | grep -qE '^  wgmma ' && variants="$variants wgmma"
[ $# -gt 1 ] && variants="${*:2}" # by hand: only the variants named
fail=0
for variant in $variants; do
    case $variant in
        mma-m128) sh=("${shapes_m128[@]}") ;;
        wgmma) sh=("${shapes_wgmma[@]}") ;;
        *) sh=("${shapes[@]}") ;;
    esac
    tools="memcheck racecheck"
    # synccheck: the warp-specialised kernel's named barriers and warpgroup-collective instructions
    [ $variant = wgmma ] && tools="memcheck racecheck synccheck"
    for causal in "" --causal; do
        for tool in $tools; do
            out=$("$cs" --tool $tool --error-exitcode 3 "$bin" check --backend gpu --variant $variant \
                  --no-e2e --seeds 0 --lse $causal "${sh[@]}" 2>&1)
            rc=$?
            summary=$(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1)
            if [ $rc -eq 0 ]; then
                echo "PASS: $tool $variant ${causal:-non-causal}: $summary"
            else
                echo "FAIL: $tool $variant ${causal:-non-causal} (exit $rc): $summary"
                echo "$out" | tail -30
                fail=1
            fi
        done
    done
done
exit $fail
