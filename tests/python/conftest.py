"""Shared helpers of the Python tests: an fp64 attention reference written here, independently of
the library (numpy; decoding FP8 through ml_dtypes), and input makers.

The package is imported from the source tree (tests/python.cmake puts python/ on PYTHONPATH and
points FP8ATTN_LIBRARY at the build tree's libfp8attn.so); running pytest by hand from a
checkout finds python/ and build/ the same way."""
import math
import os
import sys
import zlib

import numpy as np
import pytest

_here = os.path.dirname(os.path.abspath(__file__))
_src = os.path.join(os.path.dirname(os.path.dirname(_here)), "python")
if _src not in sys.path:
    sys.path.insert(0, _src)

import ml_dtypes  # noqa: E402

E4M3 = np.dtype(ml_dtypes.float8_e4m3fn)
BF16 = np.dtype(ml_dtypes.bfloat16)
HEAD_DIMS = (64, 128, 256)


def to_e4m3(x, descale):
    """E4M3 codes of x / descale (float32 division, saturated to +-448), through ml_dtypes: an
    encoder independent of the library's."""
    q = np.asarray(x, dtype=np.float32) / np.asarray(descale, dtype=np.float32)
    return np.clip(q, -448.0, 448.0).astype(E4M3)


def ref_attention(q, k, v, causal, scale):
    """fp64 attention on real-valued [B, H, S, D] arrays (GQA by head repetition): (O, LSE).
    Rows that see no key: O = 0, LSE = -inf. Causal is bottom-right aligned."""
    B, Hq, Sq, D = q.shape
    Hkv, Sk = k.shape[1], k.shape[2]
    k = np.repeat(k, Hq // Hkv, axis=1)
    v = np.repeat(v, Hq // Hkv, axis=1)
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if causal:
        i = np.arange(Sq)[:, None]
        j = np.arange(Sk)[None, :]
        s = np.where(j <= i + Sk - Sq, s, -np.inf)
    m = np.max(s, axis=-1, keepdims=True)
    empty = ~np.isfinite(m)
    m = np.where(empty, 0.0, m)
    p = np.exp(s - m)
    l_ = np.sum(p, axis=-1, keepdims=True)
    o = np.einsum("bhqk,bhkd->bhqd", p, v) / np.where(empty, 1.0, l_)
    o = np.where(empty, 0.0, o)
    lse = np.where(empty[..., 0], -np.inf, (m + np.log(np.where(empty, 1.0, l_)))[..., 0])
    return o, lse


def to_bhsd(a, layout):
    """A [B, S, H, D] (bshd) or [B, H, S, D] view as [B, H, S, D]."""
    return np.swapaxes(a, 1, 2) if layout == "bshd" else a


def shape_of(layout, b, h, s, d):
    return (b, s, h, d) if layout == "bshd" else (b, h, s, d)


def padded(a, pad=16):
    """The same values in a view with `pad` spare elements after each row (a non-contiguous view
    whose rows stay 16-byte aligned)."""
    big = np.zeros(a.shape[:-1] + (a.shape[-1] + pad,), dtype=a.dtype)
    big[..., :a.shape[-1]] = a
    return big[..., :a.shape[-1]]


@pytest.fixture
def rng(request):
    """A fresh generator per test, seeded from the test's id (reproducible)."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def rel_rmse(o, r):
    o, r = np.asarray(o, np.float64), np.asarray(r, np.float64)
    return float(np.linalg.norm(o - r) / max(np.linalg.norm(r), 1e-300))


def default_scale(d):
    """The softmax scale the C API uses by default: 1/sqrt(d) rounded to fp32 (softmax_scale is a
    float field), which matters where O cancels to nearly zero."""
    return f32(1.0 / math.sqrt(d))


def f32(x):
    return float(np.float32(x))
