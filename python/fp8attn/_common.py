"""Checks shared by the numpy and the torch paths: shapes and strides of the 4-D views, the
descale broadcasts, the option values. Each failure raises the exception of the C status it
corresponds to, naming the Python argument, its value and what is allowed."""
from ._lib import (HeadRatioError, InvalidArgumentError, InvalidDescaleError, InvalidScaleError,
                   InvalidSizeError, InvalidStrideError, UnsupportedHeadDimError)

LAYOUTS = {
    # name: (position of batch, head, token, head_dim in the shape), description
    "bshd": ((0, 2, 1, 3), "(batch, seqlen, heads, head_dim)"),
    "bhsd": ((0, 1, 2, 3), "(batch, heads, seqlen, head_dim)"),
}
HEAD_DIMS = (64, 128, 256)
GRANULARITIES = {"tensor": 0, "head": 2}  # per tensor; per (batch, head)


def layout_axes(layout):
    try:
        return LAYOUTS[layout][0]
    except (KeyError, TypeError):
        raise InvalidArgumentError("layout = %r: supported values are 'bshd' %s and 'bhsd' %s"
                                   % (layout, LAYOUTS["bshd"][1], LAYOUTS["bhsd"][1])) from None


def view_dims(name, shape, strides, layout):
    """(B, H, S, D) and the element strides (batch, head, token) of a 4-D view in `layout`."""
    axes, desc = layout_axes(layout), LAYOUTS[layout][1]
    if len(shape) != 4:
        raise InvalidSizeError("%s: shape %s has %d dimensions; expected 4, %s for layout=%r"
                               % (name, tuple(shape), len(shape), desc, layout))
    for n in shape:
        if n < 1:
            raise InvalidSizeError("%s: shape %s: every dimension must be >= 1"
                                   % (name, tuple(shape)))
    b, h, s, d = (shape[a] for a in axes)
    sb, sh, ss, sd = (strides[a] for a in axes)
    if sd != 1 and d > 1:
        raise InvalidStrideError("%s: stride %d along head_dim (the last dimension); it must be 1 "
                                 "(contiguous rows): use .contiguous() or a view of dense rows"
                                 % (name, sd))
    for st in (sb, sh, ss):
        if st < 0:
            raise InvalidStrideError("%s: strides %s: negative strides are not supported"
                                     % (name, tuple(strides)))
    return b, h, s, d, (sb, sh, ss)


def check_attention_shapes(qd, kd, vd, layout):
    """q, k, v dims from view_dims: the same batch and head_dim, k and v alike, GQA ratio."""
    (bq, hq, _, dq), (bk, hk, sk, dk), (bv, hv, sv, dv) = qd[:4], kd[:4], vd[:4]
    desc = LAYOUTS[layout][1]
    if (bk, hk, sk, dk) != (bv, hv, sv, dv):
        raise InvalidSizeError("k and v: (batch, heads, seqlen, head_dim) %s and %s must be equal "
                               "(layout=%r: %s)" % ((bk, hk, sk, dk), (bv, hv, sv, dv), layout, desc))
    if bk != bq:
        raise InvalidSizeError("q has batch %d, k and v %d: must be equal" % (bq, bk))
    if dk != dq:
        raise InvalidSizeError("q has head_dim %d, k and v %d: must be equal" % (dq, dk))
    if dq not in HEAD_DIMS:
        raise UnsupportedHeadDimError("q: head_dim %d (last dimension): supported values are 64, "
                                      "128, 256" % dq)
    if hq % hk:
        raise HeadRatioError("q has %d heads, k and v %d: the query heads must be a multiple of "
                             "the key/value heads (GQA: query head h reads key/value head "
                             "h // (h_q // h_kv))" % (hq, hk))


def descale_strides(name, shape, strides, batch, heads, itemsize=1):
    """(batch_stride, head_stride) in elements of a descale array broadcast to (batch, heads):
    () or (1,) one per tensor, (heads,) per head, (batch, heads) per (batch, head), any size-1
    dimension broadcasting (numpy rules)."""
    shape, strides = tuple(shape), tuple(s // itemsize for s in strides)
    if len(shape) > 2:
        raise InvalidDescaleError("%s: shape %s; expected a shape that broadcasts to (batch, heads)"
                                  " = (%d, %d): (), (1,), (%d,) or (%d, %d)"
                                  % (name, shape, batch, heads, heads, batch, heads))
    shape = (1,) * (2 - len(shape)) + shape
    strides = (0,) * (2 - len(strides)) + strides
    out = []
    for n, st, want, dim in zip(shape, strides, (batch, heads), ("batch", "heads")):
        if n == 1:
            out.append(0)
        elif n == want:
            if st < 0:
                raise InvalidDescaleError("%s: negative stride %d" % (name, st))
            out.append(st)
        else:
            raise InvalidDescaleError(
                "%s: shape %s does not broadcast to (batch, heads) = (%d, %d): its %s dimension "
                "is %d" % (name, tuple(shape), batch, heads, dim, n))
    return out[0], out[1]


def check_scale(softmax_scale):
    """softmax_scale as the C API takes it: None -> 0.0 (1/sqrt(head_dim))."""
    if softmax_scale is None:
        return 0.0
    s = float(softmax_scale)
    if s == 0.0:
        raise InvalidScaleError("softmax_scale = 0: not supported (the C API reserves 0 for its "
                                "default); pass None for 1/sqrt(head_dim)")
    return s


def granularity_code(granularity):
    try:
        return GRANULARITIES[granularity]
    except (KeyError, TypeError):
        raise InvalidArgumentError("granularity = %r: supported values are 'tensor' (one descale) "
                                   "and 'head' (one per (batch, head), shape (batch, heads))"
                                   % (granularity,)) from None
