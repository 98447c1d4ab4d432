#!/bin/bash
# Checks on the compiled kernels that need no GPU (run in CI):
#  1. every `mma` kernel's sm_89 SASS uses the native FP8 tensor-core instruction
#     QMMA.16832.F32.E4M3.E4M3 (on sm_89 the PTX mma.m16n8k32.e4m3 must not be emulated);
#  2. no kernel of any variant or architecture uses local memory or a stack frame (no spills),
#     read through `fp8attn resources --json` (cuobjdump's resource usage of this binary);
#  3. every `wgmma` kernel's sm_90a SASS runs its GEMMs on QGMMA (the FP8 warpgroup MMA), has no
#     HMMA (the emulated path), and keeps its setmaxnreg (USETMAXREG: ptxas drops it, with warning
#     C7508, when the kernel has no register cap), and has its wgmma batches asynchronous: at most
#     one WARPGROUP.DEPBAR (wgmma.wait_group) per two QGMMA. When ptxas serializes a kernel's wgmma
#     (info C7520: a wgmma issued on only some paths; C7512: too few registers for the batches in
#     flight) it waits after every one of them, and S and P.V no longer overlap (docs/PERF.md w97,
#     w98: 0.74-0.89x the speed).
# Usage: test_kernels_sass.sh FP8ATTN_BINARY
set -u
bin=$1
fail=0

# cuobjdump: CTest passes the one CMake found and checked (FP8ATTN_CUOBJDUMP, with NVDISASM_PATH
# for the nvdisasm that `cuobjdump -sass` runs); by hand, PATH and the toolkit are searched.
cuobjdump=${FP8ATTN_CUOBJDUMP:-$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)}
if [ -z "$cuobjdump" ]; then
    echo "FAIL: cuobjdump not found (run scripts/deps.sh, or set FP8ATTN_CUOBJDUMP)"
    exit 1
fi

res=$(mktemp)
if ! "$bin" resources --json "$res" >/dev/null; then echo "FAIL: fp8attn resources failed"; exit 1; fi

err=$(mktemp)
trap 'rm -f "$res" "$err"' EXIT
# The kernel symbols of one variant, as fp8attn resources lists them.
kernels_of() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("\n".join(sorted({k["symbol"] for k in d["kernels"] if k["variant"] == sys.argv[2]})))' "$res" "$1"
}
# SASS of kernel $1 for arch $2 into $sass; a failing cuobjdump (e.g. no nvdisasm beside it)
# fails the test with its own message.
sass_of() {
    if ! sass=$("$cuobjdump" -sass -arch "$2" -fun "$1" "$bin" 2>"$err"); then
        echo "FAIL: $cuobjdump -sass -arch $2 -fun $1 failed: $(cat "$err")"
        fail=1
        return 1
    fi
}

# 1. native QMMA on sm_89, in each mma kernel (when this build has sm_89 code)
if ! "$bin" info | grep -q '^CUDA archs:.*sm_89'; then
    echo "SKIP: sm_89 not among the built architectures: no QMMA check"
    kernels=""
else
kernels=$(kernels_of mma)
if [ -z "$kernels" ]; then echo "FAIL: no mma kernels listed by fp8attn resources"; exit 1; fi
fi
for k in $kernels; do
    sass_of "$k" sm_89 || continue
    n=$(echo "$sass" | grep -c 'QMMA.16832.F32.E4M3.E4M3')
    if [ "$n" -gt 0 ]; then
        echo "PASS: $k sm_89 SASS has $n QMMA.16832.F32.E4M3.E4M3"
    else
        echo "FAIL: $k sm_89 SASS has no native QMMA.16832.F32.E4M3.E4M3"
        fail=1
    fi
done

# 3. wgmma kernels (when this build has sm_90a and the family)
wg=$(kernels_of wgmma)
if "$bin" info | grep -q '^CUDA archs:.*sm_90a' && [ -z "$wg" ]; then
    echo "FAIL: sm_90a built but fp8attn resources lists no wgmma kernel"
    fail=1
fi
for k in $wg; do
    sass_of "$k" sm_90a || continue
    if [ "$k" = fp8attn_wgmma_vt_prepass ] || [ "$k" = fp8attn_wgmma_vt_clear ]; then
        # the family's V -> V^T copy and its workspace counters' clear: no MMA by design
        h=$(echo "$sass" | grep -c 'MMA')
        if [ "$h" -eq 0 ]; then echo "PASS: $k sm_90a SASS has no MMA (a copy)"; else
            echo "FAIL: $k sm_90a SASS has $h MMA instructions"; fail=1; fi
        continue
    fi
    q=$(echo "$sass" | grep -c 'QGMMA\.64x[0-9]*x32\.F32\.E4M3\.E4M3')
    h=$(echo "$sass" | grep -c 'HMMA')
    r=$(echo "$sass" | grep -c 'USETMAXREG')
    w=$(echo "$sass" | grep -c 'WARPGROUP\.DEPBAR')
    if [ "$q" -gt 0 ] && [ "$h" -eq 0 ] && [ "$r" -ge 2 ] && [ $((2 * w)) -le "$q" ]; then
        echo "PASS: $k sm_90a SASS has $q QGMMA E4M3, no HMMA, $r USETMAXREG, $w wgmma waits"
    else
        echo "FAIL: $k sm_90a SASS: $q QGMMA E4M3 (want > 0), $h HMMA (want 0), $r USETMAXREG" \
             "(want >= 2), $w WARPGROUP.DEPBAR (want <= $((q / 2)): more is ptxas serializing)"
        fail=1
    fi
done

# 2. zero spills, every kernel and architecture
spills=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = [k for k in d["kernels"] if k["spill_bytes"] != 0 or k["local"] != 0 or k["stack"] != 0]
for k in bad: print("FAIL: %s %s stack=%d local=%d" % (k["symbol"], k["arch"], k["stack"], k["local"]))
print("PASS: %d kernel builds, no stack frame or local memory" % len(d["kernels"]) if not bad else "")' "$res")
echo "$spills"
echo "$spills" | grep -q FAIL && fail=1
exit $fail
