"""The CPU backend on numpy arrays (no torch needed). FP8 arrays are ml_dtypes.float8_e4m3fn /
float8_e5m2 (or uint8 holding E4M3 codes); BF16 is ml_dtypes.bfloat16."""
import ctypes as C

import numpy as np

from . import _common as cm
from ._lib import (InvalidArgumentError, InvalidDescaleError, InvalidFormatError, QuantParams,
                   check, lib, pack_params, params_buffer)

try:
    import ml_dtypes
except ImportError:  # FP8 as uint8 codes and FP16 output still work
    ml_dtypes = None

_ONE = np.ones(1, dtype=np.float32)


def _fp8_formats():
    f = {np.dtype(np.uint8): 0}
    if ml_dtypes is not None:
        f[np.dtype(ml_dtypes.float8_e4m3fn)] = 0
        f[np.dtype(ml_dtypes.float8_e5m2)] = 1
    return f


def _out_type(out_dtype):
    """FP8ATTN_OUT_FP16 (0) / FP8ATTN_OUT_BF16 (1) and the numpy dtype."""
    if out_dtype is None or out_dtype in ("bfloat16", "bf16"):
        if ml_dtypes is None:
            raise InvalidFormatError("out_dtype: bfloat16 output of numpy arrays needs the "
                                     "ml_dtypes package; install it or pass out_dtype=np.float16")
        return 1, np.dtype(ml_dtypes.bfloat16)
    if out_dtype in ("float16", "fp16"):
        return 0, np.dtype(np.float16)
    try:
        dt = np.dtype(out_dtype)
    except TypeError:
        dt = None
    if dt == np.float16:
        return 0, dt
    if ml_dtypes is not None and dt == np.dtype(ml_dtypes.bfloat16):
        return 1, dt
    raise InvalidFormatError("out_dtype = %r: supported values are bfloat16 (ml_dtypes.bfloat16, "
                             "the default) and float16" % (out_dtype,))


def _ptr(a):
    return a.__array_interface__["data"][0]


def _estrides(a):
    return tuple(s // a.itemsize for s in a.strides)


def _fp8_input(name, a, formats):
    if not isinstance(a, np.ndarray):
        raise InvalidArgumentError("%s: a %s; expected a numpy array or a torch tensor"
                                   % (name, type(a).__name__))
    fmt = formats.get(a.dtype)
    if fmt is None:
        raise InvalidFormatError(
            "%s: dtype %s; expected FP8 codes: ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2 or "
            "uint8 (E4M3 codes); quantize with fp8attn.quantize" % (name, a.dtype))
    return fmt


def descale_arg(name, d, batch, heads, keep):
    """(ptr, batch_stride, head_stride) of a host descale: None (1.0), a number or a float32
    array broadcasting to (batch, heads)."""
    if d is None:
        return _ptr(_ONE), 0, 0
    if isinstance(d, (int, float)):
        a = np.array([d], dtype=np.float32)
        keep.append(a)
        return _ptr(a), 0, 0
    if not isinstance(d, np.ndarray):
        raise InvalidDescaleError("%s: a %s; expected None, a number or a float32 numpy array"
                                  % (name, type(d).__name__))
    if d.dtype != np.float32:
        raise InvalidFormatError("%s: dtype %s; descales are float32" % (name, d.dtype))
    bs, hs = cm.descale_strides(name, d.shape, d.strides, batch, heads, itemsize=4)
    return _ptr(d), bs, hs


def attention(q, k, v, causal, softmax_scale, q_descale, k_descale, v_descale, layout, out_dtype,
              return_lse, out):
    formats = _fp8_formats()
    fq, fk, fv = (_fp8_input(n, a, formats) for n, a in (("q", q), ("k", k), ("v", v)))
    if not fq == fk == fv:
        raise InvalidFormatError("q, k, v: dtypes %s, %s, %s: must be one FP8 format"
                                 % (q.dtype, k.dtype, v.dtype))
    qd = cm.view_dims("q", q.shape, _estrides(q), layout)
    kd = cm.view_dims("k", k.shape, _estrides(k), layout)
    vd = cm.view_dims("v", v.shape, _estrides(v), layout)
    cm.check_attention_shapes(qd, kd, vd, layout)
    scale = cm.check_scale(softmax_scale)
    B, Hq, Sq, D, qs = qd
    _, Hkv, Sk, _, ks = kd
    vs = vd[4]
    out_type, odt = _out_type(out_dtype)
    oshape = (B, Sq, Hq, D) if layout == "bshd" else (B, Hq, Sq, D)
    if out is None:
        out = np.empty(oshape, dtype=odt)
    else:
        if not isinstance(out, np.ndarray) or out.dtype != odt or out.shape != oshape:
            raise InvalidArgumentError("out: %s; expected a numpy array of shape %s and dtype %s"
                                       % (_describe(out), oshape, odt))
    od = cm.view_dims("out", out.shape, _estrides(out), layout)
    lse = np.empty((B, Hq, Sq), dtype=np.float32) if return_lse else None
    keep = []
    dq = descale_arg("q_descale", q_descale, B, Hq, keep)
    dk = descale_arg("k_descale", k_descale, B, Hkv, keep)
    dv = descale_arg("v_descale", v_descale, B, Hkv, keep)
    buf, addr = params_buffer()
    pack_params(buf, 0, B, Hq, Hkv, Sq, Sk, D, fq, out_type, _ptr(q), _ptr(k), _ptr(v), _ptr(out),
                _ptr(lse) if lse is not None else 0, *qs, *ks, *vs, *od[4], *dq, *dk, *dv, scale,
                1 if causal else 0)
    check(lib().fp8attn_forward_cpu(addr), "fp8attn.attention (CPU)")
    return (out, lse) if return_lse else out


def _describe(a):
    if isinstance(a, np.ndarray):
        return "shape %s, dtype %s" % (a.shape, a.dtype)
    return "a %s" % type(a).__name__


_SRC_TYPES = {np.dtype(np.float32): 0, np.dtype(np.float16): 1}


def quantize(x, scale, granularity, layout):
    """(codes, descale) on the CPU backend; codes in x's shape (contiguous), E4M3."""
    src = dict(_SRC_TYPES)
    if ml_dtypes is not None:
        src[np.dtype(ml_dtypes.bfloat16)] = 2
    if not isinstance(x, np.ndarray):
        raise InvalidArgumentError("x: a %s; expected a numpy array or a torch tensor"
                                   % type(x).__name__)
    t = src.get(x.dtype)
    if t is None:
        raise InvalidFormatError("x: dtype %s; supported: float32, float16, bfloat16 "
                                 "(ml_dtypes.bfloat16)" % x.dtype)
    B, H, S, D, xs = cm.view_dims("x", x.shape, _estrides(x), layout)
    codes = np.empty(x.shape, dtype=ml_dtypes.float8_e4m3fn if ml_dtypes is not None else np.uint8)
    os_ = cm.view_dims("out", codes.shape, _estrides(codes), layout)[4]
    p = QuantParams()
    lib().fp8attn_quant_params_init(C.byref(p))
    p.x.data, p.x.type = _ptr(x), t
    p.x.batch, p.x.heads, p.x.seqlen, p.x.head_dim = B, H, S, D
    p.x.stride.batch, p.x.stride.head, p.x.stride.token = xs
    p.out = _ptr(codes)
    p.out_stride.batch, p.out_stride.head, p.out_stride.token = os_
    keep = []
    if scale is not None:
        if isinstance(scale, (int, float)):
            scale = np.array(scale, dtype=np.float32)
        p.descale.ptr, p.descale.batch_stride, p.descale.head_stride = descale_arg(
            "scale", scale, B, H, keep)
        descale = scale
    else:
        g = cm.granularity_code(granularity)
        descale = np.empty(() if g == 0 else (B, H), dtype=np.float32)
        p.descale_out = _ptr(descale)
        p.granularity = g
    check(lib().fp8attn_quantize_cpu(C.byref(p)), "fp8attn.quantize (CPU)")
    return codes, descale
