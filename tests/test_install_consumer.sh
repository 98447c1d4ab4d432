#!/bin/bash
# `cmake --install` of this build into a scratch prefix, then a C program (tests/consumer) built
# against the installed tree, not the build tree, through each route and run (CPU backend):
#  1. CMake: find_package(fp8attn) -> fp8attn::fp8attn (shared) and fp8attn::fp8attn_static;
#  2. pkg-config: fp8attn.pc (after the installed tree is moved: the .pc file is relocatable).
# Usage: test_install_consumer.sh CMAKE BUILD_DIR CONSUMER_SOURCE_DIR C_COMPILER
set -euo pipefail
cmake=$1
build=$2
src=$3
cc=$4
work=$build/tests/install_consumer
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix --component dev"
"$cmake" --install "$build" --prefix "$prefix" --component dev >"$work/install.log"
for f in include/fp8attn.h; do [ -f "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }; done
libdir=$(dirname "$(find "$prefix" -name 'libfp8attn.a' | head -1)")
for f in libfp8attn.a libfp8attn.so libfp8attn.so.0 cmake/fp8attn/fp8attnConfig.cmake \
    cmake/fp8attn/fp8attnConfigVersion.cmake cmake/fp8attn/fp8attnTargets.cmake pkgconfig/fp8attn.pc; do
    [ -e "$libdir/$f" ] || { echo "FAIL: $libdir/$f not installed"; exit 1; }
done
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

step "1. CMake: find_package(fp8attn)"
"$cmake" -S "$src" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
    >"$work/cmake-configure.log" 2>&1 || { cat "$work/cmake-configure.log"; exit 1; }
"$cmake" --build "$work/cmake" >"$work/cmake-build.log" 2>&1 || { cat "$work/cmake-build.log"; exit 1; }
# (ldd's output held first: `ldd | grep -q` under pipefail fails when grep stops reading early)
"$work/cmake/consumer_shared"
deps=$(ldd "$work/cmake/consumer_shared")
if grep -q "$libdir/libfp8attn.so.0" <<<"$deps"; then
    echo "consumer_shared loads $libdir/libfp8attn.so.0"
else
    echo "FAIL: consumer_shared does not load the installed libfp8attn.so.0:"
    echo "$deps"
    exit 1
fi
if [ -x "$work/cmake/consumer_static" ]; then
    "$work/cmake/consumer_static"
    deps=$(ldd "$work/cmake/consumer_static")
    if grep -q libfp8attn <<<"$deps"; then
        echo "FAIL: consumer_static loads a shared libfp8attn"
        exit 1
    fi
else
    echo "FAIL: fp8attn::fp8attn_static not defined (is the CUDA toolkit findable?)"
    exit 1
fi

step "2. pkg-config, installed tree moved to $work/moved"
mv "$prefix" "$work/moved"
pcdir=$(dirname "$(find "$work/moved" -name fp8attn.pc | head -1)")
export PKG_CONFIG_PATH=$pcdir
cflags=$(pkg-config --cflags fp8attn)
libs=$(pkg-config --libs fp8attn)
mlibdir=$(pkg-config --variable=libdir fp8attn)
echo "pkg-config: version $(pkg-config --modversion fp8attn), cflags $cflags, libs $libs"
# shellcheck disable=SC2086
"$cc" -std=c99 -o "$work/consumer_pc" "$src/main.c" $cflags $libs -lm -Wl,-rpath,"$mlibdir"
"$work/consumer_pc"
deps=$(ldd "$work/consumer_pc")
grep -q "$work/moved" <<<"$deps" || { echo "FAIL: consumer_pc does not load the moved library:"; echo "$deps"; exit 1; }
echo "PASS: installed package consumed through CMake (shared, static) and pkg-config"
