#!/usr/bin/env bash
# Installs what building and testing fp8attn needs when it is missing; `make`, `make test`,
# `make run` and .ci/run all call this one script (the only list of packages).
#
#   scripts/deps.sh            check, install what is missing (one line per install)
#   scripts/deps.sh --check    check only: exit 1 naming what is missing, install nothing
#
# Checks are local: a machine that has everything does no network access and prints nothing.
#   Debian packages (apt-get, with sudo when not root): cmake (>= 3.24), make, gcc, g++,
#     python3, libjansson-dev (jansson.h and the static libjansson.a)
#   PyPI (into .deps/pip of this checkout, never the system Python): cuobjdump and nvdisasm,
#     the pair of NVIDIA wheels below (same release: cuobjdump -sass runs the nvdisasm beside it),
#     taken only when the CUDA toolkit's own pair is not there; pytest, numpy and ml_dtypes for
#     the Python package's tests (tests/python), taken when python3 cannot import them (torch is
#     not installed: too large for CI; its tests report SKIP without it)
# What it cannot install: the CUDA toolkit (nvcc) and, for GPU runs, an NVIDIA driver.
# It stops with the package and the command to run when it cannot install (no root and no sudo,
# no registry, not a Debian-like system).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps_dir=${FP8ATTN_DEPS_DIR:-$root/.deps}
pip_dir=$deps_dir/pip
pip_bin=$pip_dir/nvidia/cu13/bin
PIP_PACKAGES="nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37"
PY_TEST_PACKAGES="pytest==9.2.0 numpy==2.4.6 ml_dtypes==0.6.0 iniconfig==2.3.1 packaging==26.3 \
pluggy==1.7.0 pygments==2.21.0"
CMAKE_MIN=3.24
check_only=0
[ "${1:-}" = "--check" ] && check_only=1

say() { echo "deps: $*"; }
die() {
    echo "deps: ERROR: $*" >&2
    exit 1
}

have() { command -v "$1" >/dev/null 2>&1; }

# nvcc: on PATH or in the usual toolkit location (the Makefile adds that to PATH).
cuda_bin=""
if have nvcc; then
    cuda_bin=$(dirname "$(command -v nvcc)")
elif [ -x /usr/local/cuda/bin/nvcc ]; then
    cuda_bin=/usr/local/cuda/bin
else
    die "the CUDA toolkit is not installed (no nvcc on PATH or in /usr/local/cuda/bin). It is the one \
thing these commands cannot install: get CUDA 12.x or 13.x with sm_90a support from NVIDIA \
(https://developer.nvidia.com/cuda-downloads), then run this again."
fi

# ---- Debian packages ------------------------------------------------------------------------
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

jansson_ok() { # jansson.h and the static library (the tool links it statically)
    local h a
    for h in /usr/include/jansson.h /usr/local/include/jansson.h; do
        [ -f "$h" ] || continue
        for a in /usr/lib/*/libjansson.a /usr/lib/libjansson.a /usr/local/lib/libjansson.a; do
            [ -f "$a" ] && return 0
        done
    done
    return 1
}

apt_missing=()
if ! have cmake; then
    apt_missing+=(cmake)
elif ! version_ge "$(cmake --version | awk 'NR == 1 {print $3}')" "$CMAKE_MIN"; then
    apt_missing+=(cmake)
fi
have make || apt_missing+=(make)
have gcc || apt_missing+=(gcc)
have g++ || apt_missing+=(g++)
have python3 || apt_missing+=(python3)
jansson_ok || apt_missing+=(libjansson-dev)

# ---- cuobjdump + nvdisasm -------------------------------------------------------------------
# Same search as CMake's (tests/CMakeLists.txt): nvdisasm in the toolkit, on PATH or in .deps/pip;
# cuobjdump beside it first (a pair of one release), else anywhere; both must run.
find_tool() { # NAME: first executable of that name in the toolkit, PATH, .deps/pip
    local d
    for d in "$cuda_bin" $(echo "$PATH" | tr ':' ' ') "$pip_bin"; do
        [ -x "$d/$1" ] && { echo "$d/$1"; return 0; }
    done
    return 1
}
tool_pair_ok() {
    local dis obj
    dis=$(find_tool nvdisasm) || return 1
    obj=$(dirname "$dis")/cuobjdump
    [ -x "$obj" ] || obj=$(find_tool cuobjdump) || return 1
    "$dis" --version >/dev/null 2>&1 && "$obj" --version >/dev/null 2>&1
}
pip_missing=0
tool_pair_ok || pip_missing=1
# ---- pytest, numpy, ml_dtypes (tests/python): importable by python3, or in .deps/pip ---------
py_test_ok() {
    have python3 && PYTHONPATH="$pip_dir${PYTHONPATH:+:$PYTHONPATH}" python3 -c \
        'import pytest, numpy, ml_dtypes' >/dev/null 2>&1
}
py_missing=0
py_test_ok || py_missing=1
have pkg-config || apt_missing+=(pkg-config) # tests/test_install_consumer.sh
# pip itself: python3 -m pip, which Debian ships as python3-pip
if [ $((pip_missing + py_missing)) -gt 0 ] && ! python3 -m pip --version >/dev/null 2>&1; then
    apt_missing+=(python3-pip)
fi

if [ ${#apt_missing[@]} -eq 0 ] && [ $pip_missing = 0 ] && [ $py_missing = 0 ]; then exit 0; fi

if [ $check_only = 1 ]; then
    [ ${#apt_missing[@]} -gt 0 ] && say "missing Debian packages: ${apt_missing[*]}"
    [ $pip_missing = 1 ] && say "missing cuobjdump/nvdisasm (PyPI: $PIP_PACKAGES)"
    [ $py_missing = 1 ] && say "missing Python test packages (PyPI: $PY_TEST_PACKAGES)"
    exit 1
fi

if [ ${#apt_missing[@]} -gt 0 ]; then
    cmd="apt-get install -y --no-install-recommends ${apt_missing[*]}"
    if ! have apt-get; then
        die "missing ${apt_missing[*]} and this is not a Debian-like system (no apt-get): install them \
with your package manager (jansson's development files must include the static libjansson.a; \
cmake >= $CMAKE_MIN), then run this again."
    fi
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if have sudo && sudo -n true 2>/dev/null; then
            sudo="sudo"
        else
            die "missing ${apt_missing[*]}; installing needs root and sudo is not available without a \
password here. Run: sudo apt-get update && sudo $cmd"
        fi
    fi
    for p in "${apt_missing[@]}"; do say "installing $p (apt-get)"; done
    log=$(mktemp)
    if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 ||
        ! $sudo env DEBIAN_FRONTEND=noninteractive $cmd -qq >>"$log" 2>&1; then
        tail -5 "$log" >&2
        rm -f "$log"
        die "could not install ${apt_missing[*]} (is a package registry reachable?). Run: \
${sudo:+sudo }apt-get update && ${sudo:+sudo }$cmd"
    fi
    rm -f "$log"
    jansson_ok || die "libjansson-dev is installed but jansson.h or libjansson.a was not found"
fi

if [ $pip_missing = 1 ]; then
    mkdir -p "$pip_dir"
    for p in $PIP_PACKAGES; do say "installing $p (pip, into ${pip_dir#$root/})"; done
    log=$(mktemp)
    # --target: a private folder, so neither the system Python nor a virtualenv is touched
    if ! python3 -m pip install -q --disable-pip-version-check --no-deps --upgrade \
        --target "$pip_dir" $PIP_PACKAGES >"$log" 2>&1; then
        tail -5 "$log" >&2
        rm -f "$log"
        die "could not install cuobjdump and nvdisasm from PyPI (is a registry reachable?). Run: \
python3 -m pip install --no-deps --target $pip_dir $PIP_PACKAGES -- or put the CUDA toolkit's \
cuobjdump and nvdisasm on PATH."
    fi
    rm -f "$log"
    chmod +x "$pip_bin"/cuobjdump "$pip_bin"/nvdisasm 2>/dev/null || true
    tool_pair_ok || die "installed $PIP_PACKAGES into $pip_dir, but $pip_bin/cuobjdump or nvdisasm \
does not run"
fi

if [ $py_missing = 1 ]; then
    mkdir -p "$pip_dir"
    for p in $PY_TEST_PACKAGES; do say "installing $p (pip, into ${pip_dir#$root/})"; done
    log=$(mktemp)
    if ! python3 -m pip install -q --disable-pip-version-check --upgrade --target "$pip_dir" \
        $PY_TEST_PACKAGES >"$log" 2>&1; then
        tail -5 "$log" >&2
        rm -f "$log"
        die "could not install the Python test packages from PyPI (is a registry reachable?). Run: \
python3 -m pip install --target $pip_dir $PY_TEST_PACKAGES"
    fi
    rm -f "$log"
    py_test_ok || die "installed $PY_TEST_PACKAGES into $pip_dir, but python3 cannot import them"
fi
