"""fp8attn: FP8 scaled-dot-product attention (forward) for NVIDIA tensor cores.

    import fp8attn
    q8, dq = fp8attn.quantize(q)                      # E4M3 codes and their descale
    k8, dk = fp8attn.quantize(k, granularity="head")  # one descale per (batch, head)
    v8, dv = fp8attn.quantize(v, granularity="head")
    o = fp8attn.attention(q8, k8, v8, causal=True, q_descale=dq, k_descale=dk, v_descale=dv)

torch CUDA tensors run on the GPU, on the current stream of their device; torch CPU tensors and
numpy arrays (FP8 as ml_dtypes.float8_e4m3fn or uint8 codes) on the CPU backend (exact FP8
decoding, double accumulation). `flash_attn_func` has the signature and return values of
FlashAttention-3's `flash_attn_interface.flash_attn_func` for what fp8attn supports.

Pure Python over libfp8attn.so (ctypes); see fp8attn._lib for where the library is looked for.
Every failure raises an fp8attn.Error subclass (also a ValueError, TypeError, ... as fits) whose
message names the argument or field, its value and what is allowed.
"""
import os as _os

from ._lib import (CudaError, Error, HeadRatioError, InvalidArgumentError, InvalidDescaleError,
                   InvalidFormatError, InvalidScaleError, InvalidSizeError, InvalidStrideError,
                   LibraryNotFoundError, NotSupportedError, NullPointerError, OutOfMemoryError,
                   OverlapError, TooLargeError, UnsupportedHeadDimError, library_path)
from ._lib import lib as _load_lib

__version__ = "0.1.0"

__all__ = [
    "attention", "flash_attn_func", "quantize", "library_path", "library_version", "Error",
    "CudaError", "HeadRatioError", "InvalidArgumentError", "InvalidDescaleError",
    "InvalidFormatError", "InvalidScaleError", "InvalidSizeError", "InvalidStrideError",
    "LibraryNotFoundError", "NotSupportedError", "NullPointerError", "OutOfMemoryError",
    "OverlapError", "TooLargeError", "UnsupportedHeadDimError",
]

# torch is optional: without it (or with FP8ATTN_NO_TORCH=1) numpy arrays still work. Imported
# here, not on first use, so that the custom ops exist before torch.compile traces a call.
_torch = None
_tmod = None
if not _os.environ.get("FP8ATTN_NO_TORCH"):
    try:
        import torch as _torch
    except ImportError:
        _torch = None
    if _torch is not None:
        from . import _torch_ops as _tmod


def library_version():
    """Version of the libfp8attn.so in use ("MAJOR.MINOR.PATCH")."""
    return _load_lib().fp8attn_version().decode()


def _is_torch(x):
    return _tmod is not None and isinstance(x, _torch.Tensor)


def attention(q, k, v, *, causal=False, softmax_scale=None, q_descale=None, k_descale=None,
              v_descale=None, layout="bshd", out_dtype=None, return_lse=False, out=None):
    """O = softmax(softmax_scale * Q.K^T + mask) . V on FP8 inputs.

    q: (batch, seqlen_q, h_q, head_dim) for layout="bshd" (FlashAttention's), or
       (batch, h_q, seqlen_q, head_dim) for "bhsd"; k, v: the same with seqlen_k and h_kv
       (h_q a multiple of h_kv: GQA/MQA). FP8 codes: torch.float8_e4m3fn (or float8_e5m2, or
       uint8 E4M3 codes); numpy: ml_dtypes.float8_e4m3fn. head_dim 64, 128 or 256. Any strides
       with a contiguous last dimension; views are passed as strides, never copied.
    causal: bottom-right aligned, as FlashAttention 2/3 (query i sees keys j <= i + Sk - Sq).
    softmax_scale: None for 1/sqrt(head_dim).
    q_descale, k_descale, v_descale: fp32, real value = code * descale; None means 1. Any shape
       that broadcasts to (batch, heads) of that tensor: () one per tensor, (heads,) per head,
       (batch, heads) per (batch, head) -- q_descale counts query heads (FA3's flash_attn_func
       counts key/value heads; fp8attn.flash_attn_func follows FA3). On q's device (CPU calls
       also take Python numbers).
    out_dtype: torch.bfloat16 (default) or torch.float16 (numpy: ml_dtypes.bfloat16, float16).
    return_lse: also return the log-sum-exp, fp32 (batch, h_q, seqlen_q).
    out: write into this tensor (q's shape with head_dim, out_dtype; any strides with a contiguous
       last dimension) and return it.
    Returns out, or (out, lse).
    """
    if _is_torch(q):
        return _tmod.attention(q, k, v, causal, softmax_scale, _host_descale(q_descale, q),
                               _host_descale(k_descale, q), _host_descale(v_descale, q), layout,
                               out_dtype, return_lse, out)
    from . import _numpy
    return _numpy.attention(q, k, v, causal, softmax_scale, q_descale, k_descale, v_descale,
                            layout, out_dtype, return_lse, out)


def _host_descale(d, q):
    """A Python number as a descale: a 0-d fp32 tensor for CPU tensors; refused for CUDA ones
    (it would need a synchronous host-to-device copy)."""
    if d is None or not isinstance(d, (int, float)):
        return d
    if q.device.type != "cpu":
        raise InvalidDescaleError("a descale given as the Python number %r for tensors on %s: "
                                  "pass a float32 tensor on %s (a 0-d tensor for one descale)"
                                  % (d, q.device, q.device))
    return _torch.tensor(float(d), dtype=_torch.float32)


def flash_attn_func(q, k, v, softmax_scale=None, causal=False, qv=None, q_descale=None,
                    k_descale=None, v_descale=None, window_size=(-1, -1), attention_chunk=0,
                    softcap=0.0, num_splits=1, pack_gqa=None, deterministic=False, sm_margin=0,
                    return_attn_probs=False):
    """FlashAttention-3's flash_attn_interface.flash_attn_func (hopper/), forward, on FP8:
    swap the import and the call is the same.

    q: (batch, seqlen_q, h_q, head_dim), k, v: (batch, seqlen_k, h_kv, head_dim), FP8 E4M3
    (torch.float8_e4m3fn); q_descale, k_descale, v_descale: fp32 (batch, h_kv) as in FA3 (query
    head h uses q_descale[:, h // (h_q // h_kv)]); any broadcasting shape is accepted too.
    Returns out, bf16 (batch, seqlen_q, h_q, head_dim), or (out, softmax_lse) with
    softmax_lse fp32 (batch, h_q, seqlen_q) when return_attn_probs.

    Not supported (raise NotSupportedError naming the argument): qv, window_size other than
    (-1, -1), attention_chunk, softcap. Accepted and without effect here, as they change only how
    FA3 schedules its kernel or its backward pass: num_splits, pack_gqa, deterministic,
    sm_margin.
    """
    if qv is not None:
        raise NotSupportedError("qv: not supported by fp8attn (FA3's extra query-value product "
                                "for MLA); pass qv=None")
    if tuple(window_size) != (-1, -1):
        raise NotSupportedError("window_size = %r: local (sliding-window) attention is not "
                                "supported by fp8attn; pass (-1, -1)" % (tuple(window_size),))
    if attention_chunk:
        raise NotSupportedError("attention_chunk = %r: chunked attention is not supported by "
                                "fp8attn; pass 0" % (attention_chunk,))
    if softcap:
        raise NotSupportedError("softcap = %r: logit soft-capping is not supported by fp8attn; "
                                "pass 0.0" % (softcap,))
    if _is_torch(q) and q.dtype not in (_torch.float8_e4m3fn, _torch.uint8):
        raise InvalidFormatError("q: dtype %s: fp8attn.flash_attn_func takes FP8 E4M3 inputs "
                                 "(torch.float8_e4m3fn); quantize with fp8attn.quantize"
                                 % (q.dtype,))
    q_descale = _fa3_q_descale(q, k, q_descale)
    return attention(q, k, v, causal=causal, softmax_scale=softmax_scale, q_descale=q_descale,
                     k_descale=k_descale, v_descale=v_descale, layout="bshd",
                     out_dtype=None, return_lse=bool(return_attn_probs))


def _fa3_q_descale(q, k, d):
    """FA3 indexes q_descale by key/value head; fp8attn by query head. A (batch, h_kv) q_descale
    with GQA (h_q > h_kv) and distinct heads becomes (batch, h_q) by repeating each column."""
    if d is None or isinstance(d, (int, float)) or getattr(d, "ndim", 0) < 1:
        return d
    try:
        hq, hk = q.shape[2], k.shape[2]
    except (AttributeError, IndexError, TypeError):
        return d  # attention() reports the shape problem
    if hq == hk or hk == 0 or hq % hk or d.shape[-1] != hk or d.shape[-1] == 1:
        return d
    if _is_torch(d):
        if d.stride(-1) == 0:
            return d.expand(*d.shape[:-1], hq)
        return d.repeat_interleave(hq // hk, dim=-1)
    import numpy as np
    return np.repeat(d, hq // hk, axis=-1)


def quantize(x, scale=None, granularity="tensor", *, layout="bshd"):
    """FP8 E4M3 codes of x and their descale: (x_fp8, descale), x ~= x_fp8 * descale.

    x: float32, float16 or bfloat16, 4-D in `layout` ("bshd" or "bhsd"; the head axis matters
       for granularity="head"), any strides with a contiguous last dimension. CUDA tensors are
       quantized on the GPU (stream-ordered, no synchronisation), CPU tensors and numpy arrays on
       the CPU; the codes are the same bit for bit (the host codec: round to nearest even,
       saturating at +-448, NaN stays NaN).
    scale: a given descale (fp32, broadcasting to (batch, heads), on x's device; CPU: or a
       number): codes = encode(x / scale), and scale is returned as the descale. None: dynamic,
       descale = max(amax / 448, FLT_MIN) (amax 0 gives 1), amax reduced on the GPU for CUDA
       tensors.
    granularity (dynamic): "tensor" -> descale of shape () (one), "head" -> (batch, heads) (one
       per (batch, head), the shape FA3's k_descale/v_descale take).
    Returns x_fp8 (x's shape, contiguous, torch.float8_e4m3fn / ml_dtypes.float8_e4m3fn) and the
    descale. A dynamic group holding inf or NaN: the CPU refuses it (InvalidArgumentError); the
    GPU, which cannot report without synchronising, gives that group descale NaN and NaN codes.
    """
    if _is_torch(x):
        return _tmod.quantize(x, scale, granularity, layout)
    from . import _numpy
    return _numpy.quantize(x, scale, granularity, layout)
