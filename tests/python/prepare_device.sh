#!/bin/bash
# Prepares .carry/fp8attn/ for tests/python/device_run.sh on a GPU machine without a registry:
#   lib/libfp8attn.so                 the build's shared library (the Python package loads it)
#   bin/test_quant_gpu, bin/fp8attn_quant_bench   GPU quantize test and bandwidth benchmark
#   whl/*.whl                         the peers for Python 3.12 x86-64: fa3_fwd 0.0.3
#                                     (FlashAttention-3 forward, FP8) and nvidia-cudnn-frontend 1.16
# build/ itself is too large to carry (its test programs hold the kernels many times); this is
# ~40 MB. Run after `make` (CUDA archs 89;90a by default), from anywhere:
#   bash tests/python/prepare_device.sh [BUILD_DIR]
# then carry ".carry/fp8attn" (.carry/ is ignored by git).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=${1:-build}
for f in "$build/libfp8attn.so" "$build/tests/test_quant_gpu" "$build/tests/fp8attn_quant_bench"; do
    [ -e "$f" ] || { echo "prepare_device: $f missing: run make first" >&2; exit 1; }
done
dst=.carry/fp8attn
rm -rf "$dst"
mkdir -p "$dst/lib" "$dst/bin" "$dst/whl"
cp -L "$build/libfp8attn.so" "$dst/lib/libfp8attn.so"
cp "$build/tests/test_quant_gpu" "$build/tests/fp8attn_quant_bench" "$dst/bin/"
sed -n 's/.*FP8ATTN_CUDA_ARCHS "\(.*\)"/\1/p' "$build/generated/build_info.h" >"$dst/ARCHS"
plat=""
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64 manylinux_2_17_x86_64 \
    manylinux2014_x86_64; do plat="$plat --platform $p"; done
# shellcheck disable=SC2086
python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.12 --implementation cp $plat -d "$dst/whl" \
    fa3-fwd==0.0.3 nvidia-cudnn-frontend==1.16.0
git rev-parse --short=12 HEAD >"$dst/COMMIT"
du -sh "$dst"
ls -la "$dst"/*
echo "carry: .carry/fp8attn   command: bash tests/python/device_run.sh"
