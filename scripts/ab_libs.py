#!/usr/bin/env python3
"""A/B of two builds of libfp8attn.so (or of one build against FA3 FP8) on a GPU machine: one
process, the same FP8 inputs, the same timing. For performance changes (docs/PERF.md w103 on):

  python3 scripts/ab_libs.py LIB_A LIB_B ROUNDS CALLS 'B,H,S,D[,c][,HK];...'

LIB_B may be "fa3": FlashAttention-3 FP8 (the fa3_fwd wheel's flash_attn_func, BF16 out) in B's
place. Needs torch and the package (PYTHONPATH=python); the libraries are loaded side by side
(ctypes, each with its own symbols and its own statically linked CUDA runtime), and both are
called with this checkout's fp8attn_params_t (python/fp8attn/_lib.py): builds whose
include/fp8attn.h differs in that struct cannot be compared with it.

Each shape: BSHD E4M3 inputs drawn from N(0, 1) (descales 1), h_kv = HK (default H), causal with
",c". Each library is called through fp8attn_forward_ws with the workspace its size query asks for
(AB_NOWS=1: none, i.e. fp8attn_forward). After 3 warm-up calls of each, ROUNDS rounds of CALLS
timed calls of A then of B, B first in odd rounds, so that neither always meets the GPU's power
state first (docs/PERF.md w100); L2 flushed (a 256 MiB memset) before each call; CUDA events
around each call; per round the median time of each. Prints per shape the median over rounds of
time A / time B (above 1: B faster) with its quartiles, the median times and TFLOPS, both
kernels' names, and whether the outputs are equal bit for bit (against FA3: the rel RMSE between
the two outputs). Eager events include a host call that is longer than its kernel (FA3's at a
few hundred µs per call and less): compare those shapes with CUDA graphs (python -m fp8attn.bench
--alternate) instead."""
import ctypes as C
import math
import os
import statistics as st
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from fp8attn._lib import _declare  # noqa: E402
from fp8attn.bench import bshd_params  # noqa: E402

DEV = "cuda"
FLUSH = torch.empty(64 * 1024 * 1024, dtype=torch.int32, device=DEV)


def load(path):
    """The library at path, loaded on its own (RTLD_LOCAL), its functions declared."""
    L = C.CDLL(os.path.abspath(path))
    _declare(L)
    return L


class Ours:
    def __init__(self, L, q, k, v, d, causal, no_ws):
        self.L = L
        B, S, H, D = q.shape
        self.o = torch.full((B, S, H, D), float("nan"), device=DEV, dtype=torch.bfloat16)
        # the package's params (softmax_scale 0: 1/sqrt(D)); d broadcast over (batch, heads)
        dq, dkv = d.reshape(1, 1).expand(B, H), d.reshape(1, 1).expand(B, k.shape[2])
        self.p = bshd_params(q, k, v, self.o, (dq, dkv, dkv), causal)
        n = C.c_size_t(0)
        self.check(L.fp8attn_forward_workspace_size(C.byref(self.p), None, C.byref(n)))
        self.size = 0 if no_ws else n.value
        self.ws = torch.empty(max(self.size, 1), dtype=torch.uint8, device=DEV)
        self.name = (L.fp8attn_forward_ws_kernel(C.byref(self.p), None, int(self.size > 0))
                     or b"?").decode()

    def check(self, status):
        if status:
            raise RuntimeError("fp8attn: %s" % self.L.fp8attn_last_error().decode())

    def __call__(self):
        self.check(self.L.fp8attn_forward_ws(C.byref(self.p), None,
                                             self.ws.data_ptr() if self.size else None, self.size,
                                             torch.cuda.current_stream().cuda_stream))

    def out(self):
        return self.o


class FA3:
    name = "fa3"

    def __init__(self, q, k, v, causal):
        from fa3_fwd_interface import flash_attn_func
        self.f = flash_attn_func
        B, S, HK, D = k.shape
        self.q, self.k, self.v = (t.view(torch.float8_e4m3fn) for t in (q, k, v))
        self.d = torch.ones(B, HK, device=DEV)
        self.scale, self.causal, self.o = 1.0 / math.sqrt(D), causal, None

    def __call__(self):
        r = self.f(self.q, self.k, self.v, softmax_scale=self.scale, causal=self.causal,
                   q_descale=self.d, k_descale=self.d, v_descale=self.d)
        self.o = r[0] if isinstance(r, tuple) else r

    def out(self):
        return self.o


def timed(run, calls):
    """Median time of `calls` calls in µs, L2 flushed before each."""
    ev = []
    for _ in range(calls):
        FLUSH.zero_()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        run()
        b.record()
        ev.append((a, b))
    torch.cuda.synchronize()
    return st.median(a.elapsed_time(b) * 1e3 for a, b in ev)


def one_shape(spec, lib_a, lib_b, rounds, calls, no_ws):
    f = spec.split(",")
    B, H, S, D = map(int, f[:4])
    causal = "c" in f[4:]
    hk = [int(x) for x in f[4:] if x != "c"]
    HK = hk[0] if hk else H
    torch.manual_seed(B + H + S + D)
    q = torch.randn(B, S, H, D, device=DEV).to(torch.float8_e4m3fn).view(torch.uint8)
    k = torch.randn(B, S, HK, D, device=DEV).to(torch.float8_e4m3fn).view(torch.uint8)
    v = torch.randn(B, S, HK, D, device=DEV).to(torch.float8_e4m3fn).view(torch.uint8)
    d = torch.ones(1, device=DEV)
    a = Ours(lib_a, q, k, v, d, causal, no_ws)
    b = FA3(q, k, v, causal) if lib_b == "fa3" else Ours(lib_b, q, k, v, d, causal, no_ws)
    for r in (a, b):
        for _ in range(3):
            r()
    torch.cuda.synchronize()
    ta, tb = [], []
    for i in range(rounds):
        if i % 2:
            tb.append(timed(b, calls))
            ta.append(timed(a, calls))
        else:
            ta.append(timed(a, calls))
            tb.append(timed(b, calls))
    ratios = [x / y for x, y in zip(ta, tb)]
    q1, q2, q3 = st.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
    oa, ob = a.out().float(), b.out().float()
    if lib_b == "fa3":
        cmp = "rel RMSE to FA3 %.4f" % (torch.linalg.vector_norm(oa - ob) /
                                        torch.linalg.vector_norm(ob)).item()
    else:
        cmp = "same bits" if torch.equal(a.out(), b.out()) else "OUTPUTS DIFFER"
    if not bool(torch.isfinite(oa).all()):
        cmp += " NON-FINITE"
    flop = 4.0 * B * H * D * (S * (S + 1) / 2 if causal else S * S)
    ma, mb = st.median(ta), st.median(tb)
    print("(%d,%d,%d,%d%s%s) A/B %.4f [%.4f %.4f]  A %.1fus B %.1fus (%.0f / %.0f TF)  %s | %s  %s"
          % (B, H, S, D, ",c" if causal else "", ",hk%d" % HK if HK != H else "", q2, q1, q3,
             ma, mb, flop / ma / 1e6, flop / mb / 1e6, a.name, b.name, cmp), flush=True)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    rounds, calls = int(sys.argv[3]), int(sys.argv[4])
    if rounds < 1 or calls < 1:
        sys.exit("ab_libs: ROUNDS and CALLS must be >= 1")
    no_ws = os.environ.get("AB_NOWS") == "1"
    # the package packs the params (fp8attn.bench.bshd_params) with a library it loads itself
    os.environ.setdefault("FP8ATTN_LIBRARY", os.path.abspath(sys.argv[1]))
    lib_a = load(sys.argv[1])
    lib_b = "fa3" if sys.argv[2] == "fa3" else load(sys.argv[2])
    print("%s  A=%s B=%s  %d rounds x %d calls%s" % (torch.cuda.get_device_name(), sys.argv[1],
                                                     sys.argv[2], rounds, calls,
                                                     "  no workspace" if no_ws else ""), flush=True)
    for spec in sys.argv[5].split(";"):
        one_shape(spec, lib_a, lib_b, rounds, calls, no_ws)


if __name__ == "__main__":
    main()
