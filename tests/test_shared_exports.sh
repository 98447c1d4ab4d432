#!/bin/bash
# libfp8attn.so exports exactly the functions include/fp8attn.h declares (nothing of the CUDA
# runtime linked into it, no internal fp8attn_ helper), has SONAME libfp8attn.so.<major> and
# needs no shared CUDA runtime.
# Usage: test_shared_exports.sh LIBFP8ATTN_SO HEADER
set -euo pipefail
so=$1
header=$2
major=$(awk '/#define FP8ATTN_VERSION_MAJOR/ {print $3}' "$header")
# declarations: a line starting with a type (column 0, not a comment) naming fp8attn_xxx(
declared=$(grep -E '^[a-z][a-z0-9_ ]*[ *]fp8attn_[a-z0-9_]+\(' "$header" |
    grep -oE 'fp8attn_[a-z0-9_]+\(' | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//' | sort -u)
fail=0
if [ "$declared" != "$exported" ]; then
    echo "FAIL: exported symbols differ from the header's functions (< header only, > exported only):"
    diff <(echo "$declared") <(echo "$exported") | grep '^[<>]'
    fail=1
fi
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libfp8attn.so.$major" ] || { echo "FAIL: SONAME '$soname', want libfp8attn.so.$major"; fail=1; }
needed=$(readelf -d "$so" | grep NEEDED) # held first: `| grep -q` under pipefail can fail early
if grep -q cudart <<<"$needed"; then
    echo "FAIL: needs a shared CUDA runtime: $(tr -s ' ' <<<"$needed")"
    fail=1
fi
[ $fail = 0 ] && echo "PASS: $(echo "$exported" | wc -l) functions exported (all of include/fp8attn.h), SONAME $soname, CUDA runtime static"
exit $fail
