"""The package on torch CPU tensors (the CPU backend): the same results as the numpy path, the
custom ops' fake implementations (torch.library.opcheck), torch.compile(fullgraph=True), and the
torch-side error paths. SKIP without torch (CI): tests/python.cmake, python_torch_cpu."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import fp8attn  # noqa: E402
from conftest import default_scale, ref_attention, rel_rmse  # noqa: E402

FP8 = torch.float8_e4m3fn


def quantized(shape, seed, granularity="head"):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * torch.rand(shape[0], 1, shape[2], 1, generator=g) * 4
    return fp8attn.quantize(x, granularity=granularity)


def real(codes, descale):
    """[B, H, S, D] float64 values of bshd codes with a () or (B, H) descale."""
    d = descale.double()
    d = d.reshape(d.shape + (1, 1)) if d.dim() == 2 else d
    return codes.double().transpose(1, 2) * d


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads", [(4, 4), (4, 1)])
def test_attention_cpu_tensors(causal, heads):
    Hq, Hkv = heads
    (q, dq), (k, dk), (v, dv) = (quantized((2, 33, Hq, 64), 1), quantized((2, 47, Hkv, 64), 2),
                                 quantized((2, 47, Hkv, 64), 3))
    o, lse = fp8attn.attention(q, k, v, causal=causal, q_descale=dq, k_descale=dk, v_descale=dv,
                               return_lse=True)
    assert o.dtype == torch.bfloat16 and o.shape == (2, 33, Hq, 64) and lse.shape == (2, Hq, 33)
    ro, rlse = ref_attention(real(q, dq).numpy(), real(k, dk).numpy(), real(v, dv).numpy(),
                             causal, default_scale(64))
    assert rel_rmse(o.double().transpose(1, 2).numpy(), ro) < 2 ** -8
    np.testing.assert_allclose(lse.numpy(), rlse, rtol=1e-6, atol=1e-6)
    # the numpy path, same backend: the same bits
    import ml_dtypes
    n = fp8attn.attention(*(t.view(torch.uint8).numpy().view(ml_dtypes.float8_e4m3fn)
                            for t in (q, k, v)), causal=causal, q_descale=dq.numpy(),
                          k_descale=dk.numpy(), v_descale=dv.numpy())
    assert np.array_equal(o.view(torch.int16).numpy(), n.view(np.int16))


def test_quantize_cpu_tensors_match_numpy():
    import ml_dtypes
    g = torch.Generator().manual_seed(5)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        x = (torch.randn(2, 9, 3, 64, generator=g) * 30).to(dtype)
        for gran in ("tensor", "head"):
            c, d = fp8attn.quantize(x[:, :, 1:], granularity=gran)
            xn = x[:, :, 1:].float().numpy() if dtype != torch.bfloat16 else \
                x[:, :, 1:].view(torch.int16).numpy().view(ml_dtypes.bfloat16)
            if dtype == torch.float16:
                xn = x[:, :, 1:].numpy()
            cn, dn = fp8attn.quantize(xn, granularity=gran)
            assert np.array_equal(c.view(torch.uint8).numpy(), cn.view(np.uint8)), (dtype, gran)
            assert np.array_equal(d.numpy(), dn)


def test_opcheck_fake_implementations():
    (q, dq), (k, dk), (v, dv) = (quantized((1, 16, 2, 64), 4), quantized((1, 16, 2, 64), 5),
                                 quantized((1, 16, 2, 64), 6))
    tests = ("test_faketensor", "test_aot_dispatch_dynamic")  # test_schema: no allclose for FP8
    ops = torch.ops.fp8attn
    out = torch.full((1, 16, 2, 64), float("nan"), dtype=torch.bfloat16)
    lse = torch.empty(1, 2, 16)
    for op, args in ((ops.attention.default, (q, k, v, dq, dk, dv, True, 0.0, "bshd",
                                              torch.bfloat16, True)),
                     (ops.attention.default, (q, k, v, None, None, None, False, 0.25, "bhsd",
                                              torch.float16, False)),
                     (ops.attention_out.default, (q, k, v, dq, dk, dv, True, 0.0, "bshd", out,
                                                  lse)),
                     (ops.quantize.default, (torch.randn(2, 8, 3, 64), "head", "bshd")),
                     (ops.quantize_scaled.default, (torch.randn(2, 8, 3, 64),
                                                    torch.tensor(0.5), "bshd"))):
        r = torch.library.opcheck(op, args, test_utils=tests)
        assert all(v == "SUCCESS" for v in r.values()), r


def test_compile_fullgraph_cpu():
    (q, dq), (k, dk), (v, dv) = (quantized((2, 32, 4, 128), 7), quantized((2, 32, 2, 128), 8),
                                 quantized((2, 32, 2, 128), 9))
    x = torch.randn(2, 32, 2, 128)

    def f(q, k, v, dq, dk, dv, x):
        o, lse = fp8attn.attention(q, k, v, causal=True, q_descale=dq, k_descale=dk,
                                   v_descale=dv, return_lse=True)
        out = torch.empty_like(o)
        fp8attn.attention(q, k, v, q_descale=dq, k_descale=dk, v_descale=dv, out=out)
        x8, xd = fp8attn.quantize(x, granularity="head")
        return o.float() * 2, lse, out, x8, xd

    torch._dynamo.reset()
    got = torch.compile(f, fullgraph=True)(q, k, v, dq, dk, dv, x)
    want = f(q, k, v, dq, dk, dv, x)
    for a, b in zip(got, want):
        assert torch.equal(a.view(torch.uint8) if a.dtype == FP8 else a,
                           b.view(torch.uint8) if b.dtype == FP8 else b)


def test_compile_reports_the_same_errors():
    q = torch.zeros(1, 8, 2, 96, dtype=FP8)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="head_dim 96"):
        torch.compile(lambda q: fp8attn.attention(q, q, q), fullgraph=True)(q)


def test_torch_errors():
    q, _ = quantized((1, 8, 2, 64), 10)
    with pytest.raises(fp8attn.InvalidFormatError, match="q: dtype torch.float32"):
        fp8attn.attention(q.float(), q, q)
    with pytest.raises(fp8attn.InvalidDescaleError, match="q_descale: shape"):
        fp8attn.attention(q, q, q, q_descale=torch.ones(3))
    with pytest.raises(fp8attn.InvalidFormatError, match="k_descale: dtype torch.float64"):
        fp8attn.attention(q, q, q, k_descale=torch.ones(1, 2, dtype=torch.float64))
    with pytest.raises(fp8attn.InvalidStrideError, match="q: stride 2 along head_dim"):
        fp8attn.attention(torch.zeros(1, 8, 2, 128, dtype=FP8)[..., ::2], q, q)
    with pytest.raises(fp8attn.InvalidArgumentError, match="out:"):
        fp8attn.attention(q, q, q, out=torch.empty(1, 8, 2, 64))
    out = torch.full((1, 8, 2, 64), 5.0, dtype=torch.bfloat16)
    with pytest.raises(fp8attn.InvalidDescaleError, match=r"params->v_descale\.ptr\[0\]"):
        fp8attn.attention(q, q, q, v_descale=-1.0, out=out)
    assert (out == 5.0).all()
    assert fp8attn.attention(q, q, q, q_descale=2.0).shape == q.shape  # numbers: CPU only
