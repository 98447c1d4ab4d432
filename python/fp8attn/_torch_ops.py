"""torch tensors: CUDA tensors on the GPU (the current stream of their device), CPU tensors on
the CPU backend; and the torch.library custom ops (with fake implementations) that
torch.compile sees instead of the ctypes calls.

Eager calls go straight to the C library (no dispatcher in between: the host cost per call is
a few microseconds of Python). Under torch.compile (torch.compiler.is_compiling()) the same
functions call torch.ops.fp8attn.* instead, whose fake implementations give output shapes from
the same checks, so a compiled graph holds the op with no graph break. Inside CUDA-graph
capture the eager path records the kernel on the capturing stream; it allocates only through
the caching allocator (outputs, workspaces) and never synchronises.

On the GPU, attention asks the library how much scratch its kernel can use
(fp8attn_forward_workspace_size: 0 except for the Hopper kernels on long sequences) and, when
it is more than 0, passes that much from the caching allocator to fp8attn_forward_ws, which
makes those kernels faster with the same error against fp64. The output is the same bit for bit
on every call; it equals the output without a workspace only where both run the same key tiles
and the kernel does not split the last round of query tiles (include/fp8attn.h).
"""
import ctypes as C
import threading
from typing import Optional, Tuple

import torch

from . import _common as cm
from ._lib import (InvalidArgumentError, InvalidDescaleError, InvalidFormatError, QuantParams,
                   check, lib, pack_params, params_buffer)

Tensor = torch.Tensor

FP8_FORMATS = {torch.float8_e4m3fn: 0, torch.float8_e5m2: 1, torch.uint8: 0}
OUT_TYPES = {torch.float16: 0, torch.bfloat16: 1}
SRC_TYPES = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}

try:
    _raw_stream = torch._C._cuda_getCurrentRawStream  # the current stream's cudaStream_t, fast
except AttributeError:  # pragma: no cover
    def _raw_stream(index):
        return torch.cuda.current_stream(index).cuda_stream

_ones = {}  # device index -> fp32 tensor [1.0]: the descale of a None argument


def _one(device):
    t = _ones.get(device.index)
    if t is None:
        if torch.cuda.is_current_stream_capturing():
            raise InvalidArgumentError(
                "a descale of None inside CUDA-graph capture, before any call outside capture on "
                "%s: fp8attn keeps one fp32 1.0 per device for missing descales and cannot "
                "allocate it while capturing; make one call first (the usual warm-up) or pass "
                "descales" % device)
        t = torch.ones(1, dtype=torch.float32, device=device)
        torch.cuda.current_stream(device).synchronize()  # once per device: usable on any stream
        _ones[device.index] = t
    return t


def out_dtype_of(out_dtype):
    if out_dtype is None or out_dtype in ("bfloat16", "bf16"):
        return torch.bfloat16
    if out_dtype in ("float16", "fp16"):
        return torch.float16
    if out_dtype in OUT_TYPES:
        return out_dtype
    raise InvalidFormatError("out_dtype = %r: supported values are torch.bfloat16 (the default) "
                             "and torch.float16" % (out_dtype,))


def _describe(t):
    if isinstance(t, Tensor):
        return "shape %s, dtype %s, on %s" % (tuple(t.shape), t.dtype, t.device)
    return "a %s" % type(t).__name__


def _fp8(name, t):
    if not isinstance(t, Tensor):
        raise InvalidArgumentError("%s: %s; expected a torch tensor" % (name, _describe(t)))
    f = FP8_FORMATS.get(t.dtype)
    if f is None:
        raise InvalidFormatError(
            "%s: dtype %s; expected FP8 codes: torch.float8_e4m3fn, torch.float8_e5m2 or "
            "torch.uint8 (E4M3 codes); quantize with fp8attn.quantize" % (name, t.dtype))
    return f


def check_meta(q, k, v, q_descale, k_descale, v_descale, layout, out_dtype):
    """Every check that needs only metadata (also run by the fake implementation): returns
    (format, dims of q, k, v, output shape, lse shape, output dtype)."""
    fq, fk, fv = _fp8("q", q), _fp8("k", k), _fp8("v", v)
    if not fq == fk == fv:
        raise InvalidFormatError("q, k, v: dtypes %s, %s, %s: must be one FP8 format"
                                 % (q.dtype, k.dtype, v.dtype))
    dev = q.device
    for name, t in (("k", k), ("v", v)):
        if t.device != dev:
            raise InvalidArgumentError("%s is on %s, q on %s: q, k, v, the descales and out must "
                                       "be on one device" % (name, t.device, dev))
    qd = cm.view_dims("q", q.shape, q.stride(), layout)
    kd = cm.view_dims("k", k.shape, k.stride(), layout)
    vd = cm.view_dims("v", v.shape, v.stride(), layout)
    cm.check_attention_shapes(qd, kd, vd, layout)
    odt = out_dtype_of(out_dtype)
    B, Hq, Sq, D = qd[:4]
    for name, d, heads in (("q_descale", q_descale, Hq), ("k_descale", k_descale, kd[1]),
                           ("v_descale", v_descale, kd[1])):
        if d is not None:
            _check_descale(name, d, dev, B, heads)
    oshape = (B, Sq, Hq, D) if layout == "bshd" else (B, Hq, Sq, D)
    return fq, qd, kd, vd, oshape, (B, Hq, Sq), odt


def _check_descale(name, d, dev, batch, heads):
    if not isinstance(d, Tensor):
        raise InvalidDescaleError("%s: %s; expected None or a float32 tensor on %s (a 0-d tensor "
                                  "for one descale)" % (name, _describe(d), dev))
    if d.dtype != torch.float32:
        raise InvalidFormatError("%s: dtype %s; descales are torch.float32" % (name, d.dtype))
    if d.device != dev:
        raise InvalidArgumentError("%s is on %s, q on %s: descales must be on q's device"
                                   % (name, d.device, dev))
    return cm.descale_strides(name, d.shape, d.stride(), batch, heads)


def _descale_arg(name, d, dev, batch, heads):
    if d is None:
        if dev.type == "cuda":
            return _one(dev).data_ptr(), 0, 0
        return _cpu_one.data_ptr(), 0, 0
    bs, hs = _check_descale(name, d, dev, batch, heads)
    return d.data_ptr(), bs, hs


_cpu_one = torch.ones(1, dtype=torch.float32)


def _fast_descale(d, dev_index, batch, heads):
    """(ptr, batch_stride, head_stride) of a descale in the common cases, or None (then the
    full check runs and reports what is wrong)."""
    if d is None:
        if dev_index < 0:
            return _cpu_one.data_ptr(), 0, 0
        t = _ones.get(dev_index)
        return (t.data_ptr(), 0, 0) if t is not None else None
    if type(d) is not Tensor or d.dtype is not torch.float32 or d.get_device() != dev_index:
        return None
    n = d.dim()
    if n == 0:
        return d.data_ptr(), 0, 0
    if n == 2:
        b, h = d.shape
        if b == batch and h == heads:
            sb, sh = d.stride()
            return d.data_ptr(), sb, sh
    return None


def attention_eager(q, k, v, causal, softmax_scale, q_descale, k_descale, v_descale, layout,
                    out_dtype, return_lse, out, lse=None):
    """The ctypes call; returns (out, lse or None). A fast path for well-formed calls (the host
    cost of a call is this function); anything it does not recognise goes through the full
    checks, which raise the exception that names the problem."""
    fast = None
    try:
        fmt = FP8_FORMATS[q.dtype]
        if k.dtype is q.dtype and v.dtype is q.dtype and softmax_scale != 0.0:
            dev_index = q.get_device()
            qst, kst, vst = q.stride(), k.stride(), v.stride()
            if layout == "bshd":
                B, Sq, Hq, D = q.shape
                Bk, Sk, Hkv, Dk = k.shape
                qs, ks, vs = (qst[0], qst[2], qst[1]), (kst[0], kst[2], kst[1]), \
                    (vst[0], vst[2], vst[1])
            elif layout == "bhsd":
                B, Hq, Sq, D = q.shape
                Bk, Hkv, Sk, Dk = k.shape
                qs, ks, vs = qst[:3], kst[:3], vst[:3]
            else:
                raise ValueError
            if (Bk == B and Dk == D and v.shape == k.shape and (D == 64 or D == 128 or D == 256)
                    and Hq % Hkv == 0 and qst[3] == 1 and kst[3] == 1 and vst[3] == 1
                    and B and Sq and Sk and k.get_device() == dev_index
                    and v.get_device() == dev_index and out is None and lse is None):
                odt = OUT_DTYPES_FAST.get(out_dtype)
                dq = _fast_descale(q_descale, dev_index, B, Hq)
                dk = _fast_descale(k_descale, dev_index, B, Hkv)
                dv = _fast_descale(v_descale, dev_index, B, Hkv)
                if odt is not None and dq is not None and dk is not None and dv is not None:
                    fast = True
    except (KeyError, ValueError, TypeError, AttributeError):
        fast = None
    if fast:
        dev = q.device
        oshape = (B, Sq, Hq, D) if layout == "bshd" else (B, Hq, Sq, D)
        out = torch.empty(oshape, dtype=odt, device=dev)
        ost = out.stride()
        os_ = (ost[0], ost[2], ost[1]) if layout == "bshd" else ost[:3]
        if return_lse:
            lse = torch.empty((B, Hq, Sq), dtype=torch.float32, device=dev)
        scale = 0.0 if softmax_scale is None else float(softmax_scale)
    else:
        fmt, qd, kd, vd, oshape, lshape, odt = check_meta(q, k, v, q_descale, k_descale,
                                                          v_descale, layout, out_dtype)
        scale = cm.check_scale(softmax_scale)
        dev = q.device
        dev_index = q.get_device()
        B, Hq, Sq, D, qs = qd
        _, Hkv, Sk, _, ks = kd
        vs = vd[4]
        if out is None:
            out = torch.empty(oshape, dtype=odt, device=dev)
        elif not isinstance(out, Tensor) or out.dtype != odt or tuple(out.shape) != oshape \
                or out.device != dev:
            raise InvalidArgumentError("out: %s; expected shape %s, dtype %s, on %s"
                                       % (_describe(out), oshape, odt, dev))
        os_ = cm.view_dims("out", out.shape, out.stride(), layout)[4]
        if return_lse and lse is None:
            lse = torch.empty(lshape, dtype=torch.float32, device=dev)
        elif lse is not None and (lse.dtype != torch.float32 or tuple(lse.shape) != lshape
                                  or not lse.is_contiguous() or lse.device != dev):
            raise InvalidArgumentError("lse: %s; expected a contiguous float32 tensor of shape %s "
                                       "on %s" % (_describe(lse), lshape, dev))
        dq = _descale_arg("q_descale", q_descale, dev, B, Hq)
        dk = _descale_arg("k_descale", k_descale, dev, B, Hkv)
        dv = _descale_arg("v_descale", v_descale, dev, B, Hkv)
    buf, addr = params_buffer()
    pack_params(buf, 0, B, Hq, Hkv, Sq, Sk, D, fmt, OUT_TYPES[odt], q.data_ptr(), k.data_ptr(),
                v.data_ptr(), out.data_ptr(), lse.data_ptr() if lse is not None else 0, *qs, *ks,
                *vs, *os_, *dq, *dk, *dv, scale, 1 if causal else 0)
    if dev_index >= 0:
        if dev_index != _current_device():
            with torch.cuda.device(dev_index):
                st = _forward_cuda(addr, dev, _raw_stream(dev_index))
        else:
            st = _forward_cuda(addr, dev, _raw_stream(dev_index))
        if st:
            check(st, "fp8attn.attention")
    else:
        check(lib().fp8attn_forward_cpu(addr), "fp8attn.attention (CPU)")
    return out, lse


OUT_DTYPES_FAST = {None: torch.bfloat16, torch.bfloat16: torch.bfloat16,
                   torch.float16: torch.float16}
_current_device = torch.cuda.current_device


def _forward_cuda(addr, dev, stream):
    """fp8attn_forward_ws of the packed params at `addr` on `stream` (the current device must be
    the tensors' device `dev`), with a workspace of fp8attn_forward_workspace_size bytes when the
    kernel it picks can use one (the Hopper kernels on long sequences: V^T written once per call;
    the same output on every call; include/fp8attn.h says where it differs without one). The
    workspace comes from the caching allocator on dev's current stream, which the kernel runs
    on: freed on return, its memory goes to later work of that stream only, after this kernel in
    stream order; inside CUDA-graph capture it comes from the graph's pool. No synchronisation.
    Returns the C status."""
    global _forward_cuda
    L = lib()  # bound once the library is loaded
    size_of, forward_ws = L.fp8attn_forward_workspace_size, L.fp8attn_forward_ws
    empty, u8 = torch.empty, torch.uint8

    def forward_cuda(addr, dev, stream):
        try:
            n, n_ref = _tls.ws_size
        except AttributeError:
            n = C.c_size_t(0)
            n_ref = C.byref(n)
            _tls.ws_size = n, n_ref
        st = size_of(addr, None, n_ref)
        if st:
            return st
        nbytes = n.value
        if nbytes:
            ws = empty(nbytes, dtype=u8, device=dev)
            return forward_ws(addr, None, ws.data_ptr(), nbytes, stream)
        return forward_ws(addr, None, None, 0, stream)

    _forward_cuda = forward_cuda
    return forward_cuda(addr, dev, stream)


_tls = threading.local()  # this thread's size_t for fp8attn_forward_workspace_size


# ---- quantize ----

def check_quant_meta(x, scale, granularity, layout):
    if not isinstance(x, Tensor):
        raise InvalidArgumentError("x: %s; expected a torch tensor" % _describe(x))
    t = SRC_TYPES.get(x.dtype)
    if t is None:
        raise InvalidFormatError("x: dtype %s; supported: torch.float32, torch.float16, "
                                 "torch.bfloat16" % x.dtype)
    B, H, S, D, xs = cm.view_dims("x", x.shape, x.stride(), layout)
    if scale is not None:
        _check_descale("scale", scale, x.device, B, H)
        g = None
    else:
        g = cm.granularity_code(granularity)
    return t, (B, H, S, D, xs), g


def quantize_eager(x, scale, granularity, layout):
    t, (B, H, S, D, xs), g = check_quant_meta(x, scale, granularity, layout)
    dev = x.device
    codes = torch.empty(x.shape, dtype=torch.float8_e4m3fn, device=dev)
    os_ = cm.view_dims("out", codes.shape, codes.stride(), layout)[4]
    p = QuantParams()
    L = lib()
    L.fp8attn_quant_params_init(C.byref(p))
    p.x.data, p.x.type = x.data_ptr(), t
    p.x.batch, p.x.heads, p.x.seqlen, p.x.head_dim = B, H, S, D
    p.x.stride.batch, p.x.stride.head, p.x.stride.token = xs
    p.out = codes.data_ptr()
    p.out_stride.batch, p.out_stride.head, p.out_stride.token = os_
    if scale is not None:
        bs, hs = _check_descale("scale", scale, dev, B, H)
        p.descale.ptr, p.descale.batch_stride, p.descale.head_stride = scale.data_ptr(), bs, hs
        descale = scale
    else:
        descale = torch.empty(() if g == 0 else (B, H), dtype=torch.float32, device=dev)
        p.descale_out, p.granularity = descale.data_ptr(), g
    if dev.type != "cuda":
        check(L.fp8attn_quantize_cpu(C.byref(p)), "fp8attn.quantize (CPU)")
        return codes, descale
    ws = None
    if scale is None:
        n = C.c_size_t(0)
        check(L.fp8attn_quantize_workspace_size(C.byref(p), C.byref(n)), "fp8attn.quantize")
        ws = torch.empty((n.value + 3) // 4, dtype=torch.int32, device=dev)
        p.workspace, p.workspace_bytes = ws.data_ptr(), n.value
    idx = dev.index
    if idx != torch.cuda.current_device():
        with torch.cuda.device(idx):
            st = L.fp8attn_quantize_gpu(C.byref(p), _raw_stream(idx))
    else:
        st = L.fp8attn_quantize_gpu(C.byref(p), _raw_stream(idx))
    check(st, "fp8attn.quantize")
    return codes, descale


# ---- custom ops for torch.compile ----

@torch.library.custom_op("fp8attn::attention", mutates_args=())
def attention_op(q: Tensor, k: Tensor, v: Tensor, q_descale: Optional[Tensor],
                 k_descale: Optional[Tensor], v_descale: Optional[Tensor], causal: bool,
                 softmax_scale: float, layout: str, out_dtype: torch.dtype,
                 return_lse: bool) -> Tuple[Tensor, Tensor]:
    out, lse = attention_eager(q, k, v, causal, softmax_scale or None, q_descale, k_descale,
                               v_descale, layout, out_dtype, return_lse, None)
    if lse is None:
        lse = torch.empty(0, dtype=torch.float32, device=q.device)
    return out, lse


@attention_op.register_fake
def _attention_fake(q, k, v, q_descale, k_descale, v_descale, causal, softmax_scale, layout,
                    out_dtype, return_lse):
    _, _, _, _, oshape, lshape, odt = check_meta(q, k, v, q_descale, k_descale, v_descale,
                                                 layout, out_dtype)
    out = q.new_empty(oshape, dtype=odt)
    lse = q.new_empty(lshape if return_lse else (0,), dtype=torch.float32)
    return out, lse


@torch.library.custom_op("fp8attn::attention_out", mutates_args=("out", "lse"))
def attention_out_op(q: Tensor, k: Tensor, v: Tensor, q_descale: Optional[Tensor],
                     k_descale: Optional[Tensor], v_descale: Optional[Tensor], causal: bool,
                     softmax_scale: float, layout: str, out: Tensor,
                     lse: Optional[Tensor]) -> None:
    attention_eager(q, k, v, causal, softmax_scale or None, q_descale, k_descale, v_descale,
                    layout, out.dtype, lse is not None, out, lse)


@attention_out_op.register_fake
def _attention_out_fake(q, k, v, q_descale, k_descale, v_descale, causal, softmax_scale, layout,
                        out, lse):
    check_meta(q, k, v, q_descale, k_descale, v_descale, layout, out.dtype)


@torch.library.custom_op("fp8attn::quantize", mutates_args=())
def quantize_op(x: Tensor, granularity: str, layout: str) -> Tuple[Tensor, Tensor]:
    return quantize_eager(x, None, granularity, layout)


@quantize_op.register_fake
def _quantize_fake(x, granularity, layout):
    _, (B, H, _, _, _), g = check_quant_meta(x, None, granularity, layout)
    return (x.new_empty(x.shape, dtype=torch.float8_e4m3fn),
            x.new_empty(() if g == 0 else (B, H), dtype=torch.float32))


@torch.library.custom_op("fp8attn::quantize_scaled", mutates_args=())
def quantize_scaled_op(x: Tensor, scale: Tensor, layout: str) -> Tensor:
    return quantize_eager(x, scale, "tensor", layout)[0]


@quantize_scaled_op.register_fake
def _quantize_scaled_fake(x, scale, layout):
    check_quant_meta(x, scale, "tensor", layout)
    return x.new_empty(x.shape, dtype=torch.float8_e4m3fn)


_is_compiling = torch.compiler.is_compiling


def attention(q, k, v, causal, softmax_scale, q_descale, k_descale, v_descale, layout, out_dtype,
              return_lse, out):
    if _is_compiling():
        scale = cm.check_scale(softmax_scale)
        if out is None:
            o, lse = torch.ops.fp8attn.attention(q, k, v, q_descale, k_descale, v_descale,
                                                 bool(causal), scale, layout,
                                                 out_dtype_of(out_dtype), bool(return_lse))
            return (o, lse) if return_lse else o
        lse = None
        if return_lse:
            B, Hq, Sq = cm.view_dims("q", q.shape, q.stride(), layout)[:3]
            lse = q.new_empty((B, Hq, Sq), dtype=torch.float32)
        torch.ops.fp8attn.attention_out(q, k, v, q_descale, k_descale, v_descale, bool(causal),
                                        scale, layout, out, lse)
        return (out, lse) if return_lse else out
    o, lse = attention_eager(q, k, v, causal, softmax_scale, q_descale, k_descale, v_descale,
                             layout, out_dtype, return_lse, out)
    return (o, lse) if return_lse else o


def quantize(x, scale, granularity, layout):
    if isinstance(scale, (int, float)):
        if x.device.type == "cuda":
            raise InvalidDescaleError("scale: a Python number for a CUDA tensor; pass a float32 "
                                      "tensor on %s (a 0-d tensor for one scale)" % x.device)
        scale = torch.tensor(float(scale), dtype=torch.float32)
    if _is_compiling():
        if scale is None:
            return torch.ops.fp8attn.quantize(x, granularity, layout)
        return torch.ops.fp8attn.quantize_scaled(x, scale, layout), scale
    return quantize_eager(x, scale, granularity, layout)
