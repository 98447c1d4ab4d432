"""The shared library through ctypes: finding and loading it, the C structs, the exceptions that
carry its status codes and messages.

libfp8attn.so is looked for, in order, at $FP8ATTN_LIBRARY (a file), inside this package (where
`pip install` puts it), and in the build/ folder of the source tree this package sits in
(python/fp8attn -> build/, for running from a checkout). It is loaded on first use, so importing
the package never fails for want of it.
"""
import ctypes as C
import os
import struct
import threading

__all__ = [
    "Error", "lib", "library_path", "check", "raise_status", "Params", "QuantParams",
    "TensorView", "Strides", "Descale", "pack_params", "params_buffer", "STATUS_NAMES",
    "WORKSPACE_ALIGN",
]

# ---- errors: one class per fp8attn_status_t, each also the matching Python built-in ----


class Error(Exception):
    """An fp8attn failure. `status` is the fp8attn_status_t value (0 for errors found in Python
    before the call that the C API has no code for), `status_name` its name; the message names
    the argument or field, its value and what is allowed."""

    status = 0
    status_name = "FP8ATTN_ERR"

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


def _error_class(name, status, *bases):
    return type(name, (Error,) + bases, {"status": status, "status_name": "FP8ATTN_ERR_" +
                                         _STATUS_SUFFIX[status]})


_STATUS_SUFFIX = {
    1: "NULL_POINTER", 2: "INVALID_SIZE", 3: "UNSUPPORTED_HEAD_DIM", 4: "HEAD_RATIO",
    5: "INVALID_STRIDE", 6: "OVERLAP", 7: "INVALID_DESCALE", 8: "INVALID_SCALE",
    9: "INVALID_FORMAT", 10: "TOO_LARGE", 11: "NOT_SUPPORTED", 12: "CUDA", 13: "OUT_OF_MEMORY",
    14: "INVALID_ARGUMENT",
}
STATUS_NAMES = {k: "FP8ATTN_ERR_" + v for k, v in _STATUS_SUFFIX.items()}
STATUS_NAMES[0] = "FP8ATTN_OK"

NullPointerError = _error_class("NullPointerError", 1, ValueError)
InvalidSizeError = _error_class("InvalidSizeError", 2, ValueError)
UnsupportedHeadDimError = _error_class("UnsupportedHeadDimError", 3, ValueError)
HeadRatioError = _error_class("HeadRatioError", 4, ValueError)
InvalidStrideError = _error_class("InvalidStrideError", 5, ValueError)
OverlapError = _error_class("OverlapError", 6, ValueError)
InvalidDescaleError = _error_class("InvalidDescaleError", 7, ValueError)
InvalidScaleError = _error_class("InvalidScaleError", 8, ValueError)
InvalidFormatError = _error_class("InvalidFormatError", 9, TypeError)
TooLargeError = _error_class("TooLargeError", 10, OverflowError)
NotSupportedError = _error_class("NotSupportedError", 11, NotImplementedError)
CudaError = _error_class("CudaError", 12, RuntimeError)
OutOfMemoryError = _error_class("OutOfMemoryError", 13, MemoryError)
InvalidArgumentError = _error_class("InvalidArgumentError", 14, ValueError)

ERROR_CLASSES = {
    1: NullPointerError, 2: InvalidSizeError, 3: UnsupportedHeadDimError, 4: HeadRatioError,
    5: InvalidStrideError, 6: OverlapError, 7: InvalidDescaleError, 8: InvalidScaleError,
    9: InvalidFormatError, 10: TooLargeError, 11: NotSupportedError, 12: CudaError,
    13: OutOfMemoryError, 14: InvalidArgumentError,
}


class LibraryNotFoundError(Error, ImportError):
    """libfp8attn.so could not be found or loaded."""


# ---- the C structs (include/fp8attn.h) ----

WORKSPACE_ALIGN = 256  # FP8ATTN_WORKSPACE_ALIGN: fp8attn_forward_ws's workspace alignment


class Strides(C.Structure):
    _fields_ = [("batch", C.c_int64), ("head", C.c_int64), ("token", C.c_int64)]


class Descale(C.Structure):
    _fields_ = [("ptr", C.c_void_p), ("batch_stride", C.c_int64), ("head_stride", C.c_int64)]


class Params(C.Structure):
    _fields_ = [
        ("batch", C.c_int32), ("h_q", C.c_int32), ("h_kv", C.c_int32),
        ("seqlen_q", C.c_int32), ("seqlen_k", C.c_int32), ("head_dim", C.c_int32),
        ("in_format", C.c_int), ("out_type", C.c_int),
        ("q", C.c_void_p), ("k", C.c_void_p), ("v", C.c_void_p), ("o", C.c_void_p),
        ("lse", C.c_void_p),
        ("q_stride", Strides), ("k_stride", Strides), ("v_stride", Strides), ("o_stride", Strides),
        ("q_descale", Descale), ("k_descale", Descale), ("v_descale", Descale),
        ("softmax_scale", C.c_float), ("causal", C.c_int32),
    ]


class TensorView(C.Structure):
    _fields_ = [("data", C.c_void_p), ("type", C.c_int), ("batch", C.c_int32),
                ("heads", C.c_int32), ("seqlen", C.c_int32), ("head_dim", C.c_int32),
                ("stride", Strides)]


class QuantParams(C.Structure):
    _fields_ = [("x", TensorView), ("format", C.c_int), ("out", C.c_void_p),
                ("out_stride", Strides), ("descale", Descale), ("descale_out", C.c_void_p),
                ("granularity", C.c_int), ("workspace", C.c_void_p),
                ("workspace_bytes", C.c_size_t)]


# fp8attn_params_t packed in one call (a ctypes Structure takes ~40 attribute sets): the same
# bytes, checked against the Structure's layout below. Order: batch, h_q, h_kv, seqlen_q,
# seqlen_k, head_dim, in_format, out_type, q, k, v, o, lse, 4 x (batch, head, token) strides,
# 3 x (ptr, batch_stride, head_stride) descales, softmax_scale, causal.
_PARAMS = struct.Struct("=8i5Q12q" + "Qqq" * 3 + "fi")


def _check_layout():
    if _PARAMS.size != C.sizeof(Params):
        raise Error("fp8attn: internal: packed params are %d bytes, fp8attn_params_t %d"
                    % (_PARAMS.size, C.sizeof(Params)))
    want = {"in_format": 24, "q": 32, "q_stride": 72, "q_descale": 168, "softmax_scale": 240,
            "causal": 244}
    for field, off in want.items():
        if getattr(Params, field).offset != off:
            raise Error("fp8attn: internal: fp8attn_params_t.%s at %d, packed at %d"
                        % (field, getattr(Params, field).offset, off))


_check_layout()
pack_params = _PARAMS.pack_into
_tls = threading.local()


def params_buffer():
    """This thread's fp8attn_params_t buffer: (buffer, address)."""
    try:
        return _tls.buf
    except AttributeError:
        buf = C.create_string_buffer(_PARAMS.size)
        _tls.buf = (buf, C.addressof(buf))
        return _tls.buf


# ---- finding and loading the library ----

_lib = None
_lib_path = None
_lock = threading.Lock()


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("FP8ATTN_LIBRARY")
    if env:
        return [env]  # explicit: nothing else is tried
    found = [os.path.join(here, name) for name in ("libfp8attn.so", "libfp8attn.so.0")]
    build = os.path.join(os.path.dirname(os.path.dirname(here)), "build")
    found += [os.path.join(build, name) for name in ("libfp8attn.so", "libfp8attn.so.0")]
    return found


def _declare(L):
    vp, i32, cint = C.c_void_p, C.c_int32, C.c_int
    sigs = {
        "fp8attn_version": ([], C.c_char_p),
        "fp8attn_status_string": ([cint], C.c_char_p),
        "fp8attn_last_error": ([], C.c_char_p),
        "fp8attn_params_init": ([vp], None),
        "fp8attn_validate": ([vp], cint),
        "fp8attn_forward": ([vp, vp], cint),
        "fp8attn_forward_cpu": ([vp], cint),
        "fp8attn_forward_variant": ([vp, C.c_char_p, vp], cint),
        "fp8attn_forward_workspace_size": ([vp, C.c_char_p, C.POINTER(C.c_size_t)], cint),
        "fp8attn_forward_ws": ([vp, C.c_char_p, vp, C.c_size_t, vp], cint),
        "fp8attn_forward_kernel": ([vp, C.c_char_p], C.c_char_p),
        "fp8attn_forward_ws_kernel": ([vp, C.c_char_p, cint], C.c_char_p),
        "fp8attn_variant_count": ([], cint),
        "fp8attn_variant_name": ([cint], C.c_char_p),
        "fp8attn_float_to_e4m3": ([C.c_float], C.c_uint8),
        "fp8attn_e4m3_to_float": ([C.c_uint8], C.c_float),
        "fp8attn_float_to_e5m2": ([C.c_float], C.c_uint8),
        "fp8attn_e5m2_to_float": ([C.c_uint8], C.c_float),
        "fp8attn_quant_params_init": ([vp], None),
        "fp8attn_quantize_workspace_size": ([vp, C.POINTER(C.c_size_t)], cint),
        "fp8attn_quantize_gpu": ([vp, vp], cint),
        "fp8attn_quantize_cpu": ([vp], cint),
        "fp8attn_descale_count": ([cint, i32, i32], C.c_int64),
    }
    for name, (args, res) in sigs.items():
        f = getattr(L, name)
        f.argtypes = args
        f.restype = res


def lib():
    """The loaded library (ctypes.CDLL), loaded on first call."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path in _candidates():
            if not os.path.isfile(path):
                tried.append("%s (no such file)" % path)
                continue
            try:
                L = C.CDLL(os.path.abspath(path))
                _declare(L)
            except (OSError, AttributeError) as ex:
                tried.append("%s (%s)" % (path, ex))
                continue
            _lib_path = os.path.abspath(path)
            _lib = L
            return _lib
        raise LibraryNotFoundError(
            "fp8attn: cannot load libfp8attn.so; tried: %s. Install the package (`pip install .` "
            "in a checkout builds it into the package), or set FP8ATTN_LIBRARY to the file "
            "(e.g. build/libfp8attn.so after `make`)." % "; ".join(tried))


def library_path():
    """Path of the libfp8attn.so in use (loads it)."""
    lib()
    return _lib_path


def raise_status(status, where=""):
    """Raises the exception of a failed C call, with the library's message."""
    L = lib()
    cls = ERROR_CLASSES.get(status, Error)
    text = L.fp8attn_status_string(status).decode()
    detail = L.fp8attn_last_error().decode()
    raise cls("%s%s%s" % (where + ": " if where else "", text, ": " + detail if detail else ""),
              status)


def check(status, where=""):
    if status:
        raise_status(status, where)
