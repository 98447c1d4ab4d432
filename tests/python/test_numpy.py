"""The Python package on numpy arrays (the CPU backend; no torch, no GPU): attention against an
fp64 reference written in the tests, the error paths, the FA3-compatible signature, quantize
bit for bit against the host codec. Run in CI by tests/python.cmake (python_numpy)."""
import ctypes
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import fp8attn
from conftest import (BF16, E4M3, HEAD_DIMS, default_scale, f32, padded, ref_attention,
                      rel_rmse, shape_of, to_bhsd, to_e4m3)

F16 = np.dtype(np.float16)


def make_inputs(rng, layout, B, Hq, Hkv, Sq, Sk, D, descale_kind, noncontig):
    """FP8 q, k, v (encoded here with ml_dtypes) and descales of the asked kind; also the real
    values they stand for, [B, H, S, D] float64."""
    out = []
    for name, H, S in (("q", Hq, Sq), ("k", Hkv, Sk), ("v", Hkv, Sk)):
        scale = rng.uniform(0.25, 4.0, size=(B, H)).astype(np.float32)
        x = rng.standard_normal(shape_of(layout, B, H, S, D)).astype(np.float32)
        xb = to_bhsd(x, layout) * scale[:, :, None, None]
        if descale_kind == "none":
            d = None
            dfull = np.ones((B, H), np.float32)
        elif descale_kind == "number":
            d = float(np.float32(np.abs(xb).max() / 448))
            dfull = np.full((B, H), d, np.float32)
        elif descale_kind == "tensor":
            d = np.array(np.abs(xb).max() / 448, dtype=np.float32)
            dfull = np.full((B, H), d, np.float32)
        elif descale_kind == "head":
            d = (np.abs(xb).max(axis=(0, 2, 3)) / 448).astype(np.float32)
            dfull = np.broadcast_to(d, (B, H))
        else:  # batch_head
            d = (np.abs(xb).max(axis=(2, 3)) / 448).astype(np.float32)
            dfull = d
        codes_bhsd = to_e4m3(xb, dfull[:, :, None, None])
        codes = np.ascontiguousarray(np.swapaxes(codes_bhsd, 1, 2) if layout == "bshd"
                                     else codes_bhsd)
        if noncontig:
            codes = padded(codes)
        real = codes_bhsd.astype(np.float64) * dfull[:, :, None, None].astype(np.float64)
        out.append((codes, d, real))
    return out


CASES = [(d, causal, heads, layout, nc, odt)
         for d in HEAD_DIMS for causal in (False, True) for heads in ((4, 4), (4, 2), (4, 1))
         for layout in ("bshd", "bhsd") for nc in (False, True)
         for odt in ((BF16,) if nc else (F16,))]
DESCALES = ("none", "number", "tensor", "head", "batch_head")


@pytest.mark.parametrize("D,causal,heads,layout,noncontig,odt", CASES)
def test_attention_matches_fp64(rng, D, causal, heads, layout, noncontig, odt):
    Hq, Hkv = heads
    B = 2
    Sq, Sk = (37, 53) if causal else (48, 48)
    kind = DESCALES[(D + causal + Hkv + noncontig) % len(DESCALES)]
    (q, dq, rq), (k, dk, rk), (v, dv, rv) = make_inputs(rng, layout, B, Hq, Hkv, Sq, Sk, D, kind,
                                                        noncontig)
    out_shape = shape_of(layout, B, Hq, Sq, D)
    out = np.full(out_shape, np.nan, dtype=odt)  # poison: every element must be written
    got, lse = fp8attn.attention(q, k, v, causal=causal, q_descale=dq, k_descale=dk,
                                 v_descale=dv, layout=layout, out_dtype=odt, return_lse=True,
                                 out=out)
    assert got is out
    ro, rlse = ref_attention(rq, rk, rv, causal, default_scale(D))
    o = to_bhsd(got.astype(np.float64), layout)
    assert np.isfinite(o).all()
    # the CPU backend is exact up to one rounding of O to BF16 / FP16: half an ulp, and half the
    # smallest FP16 subnormal below FP16's normal range
    ulp, tiny = (2.0 ** -8, 1e-38) if odt == BF16 else (2.0 ** -11, 2.0 ** -25)
    err = np.abs(o - ro)
    assert (err <= ulp * np.abs(ro) + tiny).all(), float((err / (np.abs(ro) + tiny)).max())
    assert lse.shape == (B, Hq, Sq) and lse.dtype == np.float32
    np.testing.assert_allclose(lse, rlse, rtol=1e-6, atol=1e-6)


def test_causal_rows_without_keys(rng):
    """seqlen_q > seqlen_k, causal: the first Sq - Sk rows see no key: O = 0, LSE = -inf."""
    (q, dq, rq), (k, dk, rk), (v, dv, rv) = make_inputs(rng, "bhsd", 1, 2, 2, 40, 17, 64,
                                                        "head", False)
    o, lse = fp8attn.attention(q, k, v, causal=True, q_descale=dq, k_descale=dk, v_descale=dv,
                               layout="bhsd", return_lse=True)
    ro, rlse = ref_attention(rq, rk, rv, True, default_scale(64))
    assert (o[:, :, :23].astype(np.float32) == 0).all()
    assert np.isneginf(lse[:, :, :23]).all()
    assert np.isfinite(lse[:, :, 23:]).all()
    assert rel_rmse(o.astype(np.float64), ro) < 2 ** -8


def test_softmax_scale_and_default_descales(rng):
    (q, _, rq), (k, _, rk), (v, _, rv) = make_inputs(rng, "bshd", 1, 2, 1, 16, 16, 128, "none",
                                                     False)
    o = fp8attn.attention(q, k, v, softmax_scale=0.3)
    ro, _ = ref_attention(rq, rk, rv, False, f32(0.3))
    assert rel_rmse(to_bhsd(o.astype(np.float64), "bshd"), ro) < 2 ** -8


def test_out_view_leaves_gaps_alone(rng):
    (q, dq, _), (k, dk, _), (v, dv, _) = make_inputs(rng, "bshd", 2, 2, 2, 8, 8, 64, "tensor",
                                                     False)
    big = np.full((2, 8, 2, 64 + 16), 7.0, dtype=BF16)
    out = big[..., :64]
    r = fp8attn.attention(q, k, v, q_descale=dq, k_descale=dk, v_descale=dv, out=out)
    assert r is out
    assert (big[..., 64:].astype(np.float32) == 7.0).all()
    want = fp8attn.attention(q, k, v, q_descale=dq, k_descale=dk, v_descale=dv)
    assert np.array_equal(out.view(np.uint16), want.view(np.uint16))


def test_uint8_codes_are_e4m3(rng):
    (q, dq, _), (k, dk, _), (v, dv, _) = make_inputs(rng, "bshd", 1, 2, 2, 8, 8, 64, "head",
                                                     False)
    a = fp8attn.attention(q, k, v, q_descale=dq, k_descale=dk, v_descale=dv)
    b = fp8attn.attention(q.view(np.uint8), k.view(np.uint8), v.view(np.uint8), q_descale=dq,
                          k_descale=dk, v_descale=dv)
    assert np.array_equal(a.view(np.uint16), b.view(np.uint16))


# ---- errors: the exception of the status, naming the argument; nothing written ----

def _qkv(rng, D=64, Hq=2, Hkv=2, S=8):
    return [c for c, _, _ in make_inputs(rng, "bshd", 1, Hq, Hkv, S, S, D, "none", False)]


def test_error_messages_name_the_argument(rng):
    q, k, v = _qkv(rng)
    cases = [
        (lambda: fp8attn.attention(q.astype(np.float32), k, v), fp8attn.InvalidFormatError,
         "q: dtype float32"),
        (lambda: fp8attn.attention(q[0], k, v), fp8attn.InvalidSizeError, "q: shape"),
        (lambda: fp8attn.attention(q, k[:, :4], v), fp8attn.InvalidSizeError, "k and v"),
        (lambda: fp8attn.attention(q, k, v, layout="bsdh"), fp8attn.InvalidArgumentError,
         "layout = 'bsdh'"),
        (lambda: fp8attn.attention(q, k, v, softmax_scale=0.0), fp8attn.InvalidScaleError,
         "softmax_scale = 0"),
        (lambda: fp8attn.attention(q, k, v, softmax_scale=-1.0), fp8attn.InvalidScaleError,
         "params->softmax_scale = -1"),
        (lambda: fp8attn.attention(q, k, v, q_descale=np.ones(3, np.float32)),
         fp8attn.InvalidDescaleError, "q_descale: shape"),
        (lambda: fp8attn.attention(q, k, v, k_descale=np.ones(2, np.float64)),
         fp8attn.InvalidFormatError, "k_descale: dtype float64"),
        (lambda: fp8attn.attention(q, k, v, v_descale=np.zeros((1, 2), np.float32)),
         fp8attn.InvalidDescaleError, "params->v_descale.ptr"),
        (lambda: fp8attn.attention(q, k, v, out_dtype=np.float32), fp8attn.InvalidFormatError,
         "out_dtype"),
        (lambda: fp8attn.attention(q, k, v, out=np.zeros((1, 8, 2, 64), np.float16)),
         fp8attn.InvalidArgumentError, "out:"),
        (lambda: fp8attn.attention([1, 2], k, v), fp8attn.InvalidArgumentError, "q: a list"),
    ]
    for fn, cls, text in cases:
        with pytest.raises(cls, match=text.replace("(", r"\(").replace(")", r"\)")):
            fn()


def test_error_head_dim_ratio_and_contiguity(rng):
    q, k, v = _qkv(rng, D=64)
    big = np.zeros((1, 8, 2, 96), dtype=E4M3)
    with pytest.raises(fp8attn.UnsupportedHeadDimError, match="head_dim 96"):
        fp8attn.attention(big, big, big)
    q3 = np.zeros((1, 8, 3, 64), dtype=E4M3)
    with pytest.raises(fp8attn.HeadRatioError, match="q has 3 heads, k and v 2"):
        fp8attn.attention(q3, k, v)
    wide = np.zeros((1, 8, 2, 128), dtype=E4M3)
    with pytest.raises(fp8attn.InvalidStrideError, match="q: stride 2 along head_dim"):
        fp8attn.attention(wide[..., ::2], k, v)


def test_errors_from_the_library_write_nothing(rng):
    """Refused by the C validation (overlap, alignment, descale values): out keeps its poison."""
    q, k, v = _qkv(rng)
    out = np.full((1, 8, 2, 64), 3.0, dtype=BF16)
    with pytest.raises(fp8attn.InvalidDescaleError, match=r"params->q_descale\.ptr\[0\]"):
        fp8attn.attention(q, k, v, q_descale=0.0, out=out)
    assert (out.astype(np.float32) == 3.0).all()
    # out sharing memory with q
    raw = np.zeros(1 * 8 * 2 * 64 * 2 + 64, dtype=np.uint8)
    qq = raw[:1024].view(E4M3).reshape(1, 8, 2, 64)
    qq[...] = q
    oo = raw[:2048].view(BF16).reshape(1, 8, 2, 64)
    with pytest.raises(fp8attn.OverlapError, match="params->o"):
        fp8attn.attention(qq, k, v, out=oo)
    assert np.array_equal(qq.view(np.uint8), q.view(np.uint8))
    # a misaligned q (1 byte past an aligned address)
    buf = np.zeros(1024 + 64, dtype=np.uint8)
    base = (-buf.ctypes.data) % 16
    qm = buf[base + 1:base + 1 + 1024].view(E4M3).reshape(1, 8, 2, 64)
    with pytest.raises(fp8attn.InvalidStrideError, match="params->q = .*16-byte aligned"):
        fp8attn.attention(qm, k, v, out=out)
    assert (out.astype(np.float32) == 3.0).all()


def test_error_classes_match_the_statuses():
    import fp8attn._lib as L
    lib = L.lib()
    for status, cls in L.ERROR_CLASSES.items():
        assert cls.status == status
        assert issubclass(cls, fp8attn.Error)
        text = lib.fp8attn_status_string(status).decode()
        assert text.startswith(cls.status_name + ":"), (status, text, cls.status_name)
    assert issubclass(fp8attn.UnsupportedHeadDimError, ValueError)
    assert issubclass(fp8attn.InvalidFormatError, TypeError)
    assert issubclass(fp8attn.CudaError, RuntimeError)


# ---- quantize ----

def expected_quant(x, g, layout):
    """numpy's own computation: amax per group, descale = max(amax / 448, FLT_MIN) (1 for amax
    0), codes by ml_dtypes."""
    xb = to_bhsd(np.asarray(x, np.float32), layout)
    amax = np.abs(xb).max(axis=(2, 3)) if g == "head" else np.array(np.abs(xb).max())
    d = (amax.astype(np.float32) / np.float32(448)).astype(np.float32)
    d = np.where(d < np.finfo(np.float32).tiny, np.finfo(np.float32).tiny, d).astype(np.float32)
    d = np.where(amax == 0, np.float32(1), d).astype(np.float32)
    dfull = np.broadcast_to(d, xb.shape[:2])[:, :, None, None]
    codes = to_e4m3(xb, dfull)
    return (np.swapaxes(codes, 1, 2) if layout == "bshd" else codes), d


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("granularity", ["tensor", "head"])
@pytest.mark.parametrize("layout", ["bshd", "bhsd"])
@pytest.mark.parametrize("noncontig", [False, True])
def test_quantize_dynamic(rng, dtype, granularity, layout, noncontig):
    shape = shape_of(layout, 2, 3, 19, 64)
    scale = rng.uniform(-6, 6, size=(2, 3))
    x = rng.standard_normal(shape)
    x = (to_bhsd(x, layout) * 2.0 ** scale[:, :, None, None])
    x = np.ascontiguousarray(np.swapaxes(x, 1, 2) if layout == "bshd" else x).astype(dtype)
    x.flat[::97] = 0.0
    if noncontig:
        x = padded(x)
    codes, descale = fp8attn.quantize(x, granularity=granularity, layout=layout)
    want_codes, want_d = expected_quant(x, granularity, layout)
    assert codes.dtype == E4M3 and codes.shape == x.shape
    assert descale.dtype == np.float32
    assert descale.shape == (() if granularity == "tensor" else (2, 3))
    assert np.array_equal(descale.view(np.uint32), want_d.view(np.uint32))
    assert np.array_equal(codes.view(np.uint8), want_codes.view(np.uint8))


def _host_codec_e4m3(q):
    """The library's own host codec, element by element (fp8attn_float_to_e4m3)."""
    import fp8attn._lib as L
    f = L.lib().fp8attn_float_to_e4m3
    return np.array([f(float(v)) for v in np.asarray(q, np.float32).ravel()],
                    dtype=np.uint8).reshape(np.shape(q))


@pytest.mark.parametrize("dtype", [np.float16, BF16])
@pytest.mark.parametrize("scale", [1.0, 0.75, float(np.finfo(np.float32).tiny), 2.0 ** -140,
                                   2.0 ** 80])
def test_quantize_every_16_bit_value(dtype, scale):
    """Every FP16 / BF16 bit pattern (NaN, inf, subnormals included) with a given scale: the host
    codec of x / scale, bit for bit."""
    x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(dtype).reshape(1, 4096, 1, 16)
    codes, d = fp8attn.quantize(x, scale=scale)
    with np.errstate(over="ignore", invalid="ignore"):
        q = x.astype(np.float32) / np.float32(scale)
    want = _host_codec_e4m3(q)
    assert np.array_equal(codes.view(np.uint8), want)
    # and ml_dtypes agrees (an encoder written by others), NaN payloads aside
    other = np.clip(q, -448, 448).astype(E4M3).view(np.uint8)
    finite = ~np.isnan(q)
    assert np.array_equal(codes.view(np.uint8)[finite], other[finite])
    assert float(d) == np.float32(scale)


@pytest.mark.parametrize("kind", ["number", "tensor", "head", "batch_head"])
def test_quantize_given_scales(rng, kind):
    x = rng.standard_normal((2, 7, 3, 64)).astype(np.float32) * 50
    s = {"number": 0.125, "tensor": np.array(0.07, np.float32),
         "head": rng.uniform(0.01, 1, 3).astype(np.float32),
         "batch_head": rng.uniform(0.01, 1, (2, 3)).astype(np.float32)}[kind]
    codes, d = fp8attn.quantize(x, scale=s)
    full = np.broadcast_to(np.asarray(s, np.float32), (2, 3))
    want = to_e4m3(np.swapaxes(x, 1, 2), full[:, :, None, None])
    assert np.array_equal(codes.view(np.uint8), np.swapaxes(want, 1, 2).view(np.uint8))


def test_quantize_errors(rng):
    x = rng.standard_normal((1, 4, 2, 64)).astype(np.float32)
    bad = x.copy()
    bad[0, 1, 1, 5] = np.inf
    with pytest.raises(fp8attn.InvalidArgumentError, match="must be finite"):
        fp8attn.quantize(bad)
    with pytest.raises(fp8attn.InvalidArgumentError, match="granularity = 'row'"):
        fp8attn.quantize(x, granularity="row")
    with pytest.raises(fp8attn.InvalidFormatError, match="x: dtype int32"):
        fp8attn.quantize(x.astype(np.int32))
    with pytest.raises(fp8attn.InvalidDescaleError, match=r"params->descale\.ptr\[0\]"):
        fp8attn.quantize(x, scale=0.0)
    with pytest.raises(fp8attn.InvalidSizeError, match="x: shape"):
        fp8attn.quantize(x[0])


def test_quantize_then_attention_round_trip(rng):
    """The documented flow: quantize per tensor / per (batch, head), then attention."""
    x = [rng.standard_normal((2, 32, 4, 64)).astype(np.float32) for _ in range(3)]
    q8, dq = fp8attn.quantize(x[0])
    k8, dk = fp8attn.quantize(x[1], granularity="head")
    v8, dv = fp8attn.quantize(x[2], granularity="head")
    o = fp8attn.attention(q8, k8, v8, causal=True, q_descale=dq, k_descale=dk, v_descale=dv)
    ro, _ = ref_attention(*(to_bhsd(a.astype(np.float64), "bshd") for a in x), True,
                          default_scale(64))
    # the input-quantization floor (docs/GATES.md): ~4-5 % rel RMSE
    assert rel_rmse(to_bhsd(o.astype(np.float64), "bshd"), ro) < 0.07


# ---- flash_attn_func: FlashAttention-3's signature ----

FA3_PARAMS = [("q", inspect.Parameter.empty), ("k", inspect.Parameter.empty),
              ("v", inspect.Parameter.empty), ("softmax_scale", None), ("causal", False),
              ("qv", None), ("q_descale", None), ("k_descale", None), ("v_descale", None),
              ("window_size", (-1, -1)), ("attention_chunk", 0), ("softcap", 0.0),
              ("num_splits", 1), ("pack_gqa", None), ("deterministic", False), ("sm_margin", 0),
              ("return_attn_probs", False)]


def test_flash_attn_func_signature_is_fa3s():
    params = inspect.signature(fp8attn.flash_attn_func).parameters
    assert [(n, p.default) for n, p in params.items()] == FA3_PARAMS
    assert all(p.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params.values())


def test_flash_attn_func_results(rng):
    (q, _, _), (k, _, _), (v, _, _) = make_inputs(rng, "bshd", 2, 4, 2, 16, 16, 64, "none",
                                                  False)
    dq = rng.uniform(0.5, 2, (2, 2)).astype(np.float32)  # FA3: (batch, h_kv) for q too
    dk = rng.uniform(0.5, 2, (2, 2)).astype(np.float32)
    dv = rng.uniform(0.5, 2, (2, 2)).astype(np.float32)
    out = fp8attn.flash_attn_func(q, k, v, causal=True, q_descale=dq, k_descale=dk, v_descale=dv)
    assert out.dtype == BF16 and out.shape == (2, 16, 4, 64)
    want = fp8attn.attention(q, k, v, causal=True, q_descale=np.repeat(dq, 2, axis=1),
                             k_descale=dk, v_descale=dv)
    assert np.array_equal(out.view(np.uint16), want.view(np.uint16))
    out2, lse = fp8attn.flash_attn_func(q, k, v, 0.2, True, None, dq, dk, dv, (-1, -1), 0, 0.0,
                                        4, True, True, 8, True)
    assert lse.shape == (2, 4, 16)
    want2 = fp8attn.attention(q, k, v, causal=True, softmax_scale=0.2,
                              q_descale=np.repeat(dq, 2, axis=1), k_descale=dk, v_descale=dv)
    assert np.array_equal(out2.view(np.uint16), want2.view(np.uint16))


def test_flash_attn_func_unsupported_arguments_are_named(rng):
    q, k, v = _qkv(rng)
    for kwargs, name in ((dict(qv=q), "qv"), (dict(window_size=(4, 0)), "window_size"),
                         (dict(attention_chunk=128), "attention_chunk"),
                         (dict(softcap=30.0), "softcap")):
        with pytest.raises(fp8attn.NotSupportedError, match="^" + name):
            fp8attn.flash_attn_func(q, k, v, **kwargs)


# ---- the package and its library ----

def test_versions_and_library():
    assert fp8attn.library_version() == fp8attn.__version__
    assert os.path.isfile(fp8attn.library_path())


def test_missing_library_is_a_clear_error(tmp_path):
    code = ("import fp8attn, numpy as np\n"
            "try:\n"
            "    fp8attn.attention(np.zeros((1,1,1,64), np.uint8), np.zeros((1,1,1,64), np.uint8),"
            " np.zeros((1,1,1,64), np.uint8), out_dtype=np.float16)\n"
            "except fp8attn.LibraryNotFoundError as e:\n"
            "    print('LNF', e)\n")
    env = dict(os.environ, FP8ATTN_LIBRARY=str(tmp_path / "nope.so"), FP8ATTN_NO_TORCH="1")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert "LNF" in r.stdout and "FP8ATTN_LIBRARY" in r.stdout, r.stdout + r.stderr


def test_no_torch_needed():
    """This suite's process has not imported torch (CTest sets FP8ATTN_NO_TORCH)."""
    if os.environ.get("FP8ATTN_NO_TORCH"):
        assert "torch" not in sys.modules


def test_exported_functions_load():
    import fp8attn._lib as L
    lib = L.lib()
    for name in ("fp8attn_quantize_gpu", "fp8attn_quantize_cpu", "fp8attn_forward",
                 "fp8attn_quantize_workspace_size", "fp8attn_forward_cpu",
                 "fp8attn_forward_workspace_size", "fp8attn_forward_ws"):
        assert isinstance(getattr(lib, name), ctypes._CFuncPtr)


def test_forward_workspace_functions_declared():
    """fp8attn_forward_workspace_size and fp8attn_forward_ws (what the torch path calls on the
    GPU) with include/fp8attn.h's signatures; the size query's argument check runs without a
    GPU."""
    import fp8attn._lib as L
    lib = L.lib()
    f = lib.fp8attn_forward_workspace_size
    assert f.argtypes == [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t)]
    assert f.restype is ctypes.c_int
    f = lib.fp8attn_forward_ws
    assert f.argtypes == [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t,
                          ctypes.c_void_p]
    assert f.restype is ctypes.c_int
    assert L.WORKSPACE_ALIGN == 256
    p = L.Params()
    lib.fp8attn_params_init(ctypes.byref(p))
    with pytest.raises(fp8attn.NullPointerError, match="bytes = NULL"):
        L.check(lib.fp8attn_forward_workspace_size(ctypes.byref(p), None, None), "size")


# ---- fp8attn.bench's pure helpers (the GPU runs are in test_gpu.py and on the device) ----

def test_bench_parse_shapes():
    from fp8attn.bench import parse_shapes
    assert parse_shapes("1,16,16384,128,c; 2,8,8192,256") == [(1, 16, 16384, 128, True),
                                                               (2, 8, 8192, 256, False)]
    assert parse_shapes("1,1,32,64 8,8,2048,256,causal") == [(1, 1, 32, 64, False),
                                                            (8, 8, 2048, 256, True)]
    for bad, why in (("1,16,128", "B,H,S,D"), ("1,16,2048,128,x", "B,H,S,D"),
                     ("1,16,2k,128", "integers"), ("0,16,2048,128", ">= 1"), (" ; ", "no shape")):
        with pytest.raises(ValueError, match=why):
            parse_shapes(bad)


def test_bench_alternation_summary():
    from fp8attn.bench import alternation_summary
    s = alternation_summary([100.0, 200.0, 100.0, 110.0, 90.0], [100.0, 190.0, 120.0, 99.0, 90.0])
    # ratios FA3 / fp8attn: 1.0, 0.95, 1.2, 0.9, 1.0 -> sorted 0.9, 0.95, 1.0, 1.0, 1.2
    assert s["rounds"] == 5
    assert s["fa3_over_fp8attn_p50"] == pytest.approx(1.0)
    assert s["fa3_over_fp8attn_p25"] == pytest.approx(0.95)
    assert s["fa3_over_fp8attn_p75"] == pytest.approx(1.0)
    assert s["fp8attn_p50_us"] == pytest.approx(100.0)
    assert s["fa3_fp8_p50_us"] == pytest.approx(100.0)
    for a, b in (([], []), ([1.0], [1.0, 2.0])):
        with pytest.raises(ValueError, match="equal"):
            alternation_summary(a, b)


def test_bench_alternation_line():
    """--alternate's report line: eager and graph ratios, clocks and capped rounds; a failed graph
    capture or a failed row says so instead of printing numbers."""
    from fp8attn.bench import alternation_line, alternation_summary
    cap, free = {"sm_mhz": 1710, "throttle": 4}, {"sm_mhz": 1980, "throttle": 0}
    rounds = [{"fp8attn_us": 100.0, "fa3_fp8_us": 95.0, "gpu_after_fp8attn": cap,
               "gpu_after_fa3_fp8": free},
              {"fp8attn_us": 100.0, "fa3_fp8_us": 95.0, "gpu_after_fp8attn": free,
               "gpu_after_fa3_fp8": free}]
    row = {"rounds": rounds, "summary": alternation_summary([100.0] * 2, [95.0] * 2),
           "graph_summary": alternation_summary([80.0] * 2, [88.0] * 2)}
    line = alternation_line(1, 16, 16384, 128, 1, row)
    assert line.startswith("B=1 H=16 S=16384 D=128 c=1 | fp8attn 100.0us fa3 95.0us")
    assert "fa3/fp8attn 0.950" in line and "graph 80.0us 88.0us: 1.100" in line
    assert "SM 1710-1980 MHz, power cap in 1 rounds" in line
    del row["graph_summary"]
    row["graph_error"] = "RuntimeError: capture failed"
    assert "graph ERR RuntimeError: capture failed" in alternation_line(1, 16, 16384, 128, 1, row)
    assert alternation_line(1, 2, 3, 64, 0, {"error": "FA3 FP8 not importable"}).endswith(
        "ERR FA3 FP8 not importable")


def test_bench_parse_smi():
    from fp8attn.bench import SMI_SW_POWER_CAP, parse_smi
    g = parse_smi("1815, 573.28, 52, 0x0000000000000004")
    assert g == {"sm_mhz": 1815, "power_w": 573.28, "temp_c": 52, "throttle": 4}
    assert g["throttle"] & SMI_SW_POWER_CAP
    g = parse_smi("1980, [N/A], 38, [N/A]")
    assert g["sm_mhz"] == 1980 and g["power_w"] is None and g["throttle"] is None
    with pytest.raises(ValueError, match="fields"):
        parse_smi("1980, 100.0")


def test_bench_bad_arguments_exit_before_torch(capsys):
    from fp8attn.bench import main
    for argv, why in ((["--shapes", "1,16,x,128"], "integers"), (["--alternate", "-1"], ">= 0")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2
        assert why in capsys.readouterr().err
