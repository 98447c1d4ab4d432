"""fp8attn beside the attention kernels users would pick instead, on one GPU, in one process, on
the same FP8 inputs, with the same timing:

  fp8attn      fp8attn.attention (this package; the default kernel variant, or --variant)
  fa3_fp8      FlashAttention-3 FP8: flash_attn_interface or fa3_fwd_interface .flash_attn_func
  cudnn_fp8    cuDNN FP8 SDPA through cudnn-frontend (on Hopper it writes FP8 O)
  cudnn_bf16   torch SDPA, cuDNN backend, on the dequantized inputs in BF16
  flash_fp16   torch SDPA, flash backend, on the dequantized inputs in FP16

Peers that cannot be imported (or fail) are listed as skipped with the reason. Timing: CUDA
events around one call, L2 flushed before each timed call (a memset over 2x the L2 size), after
warm-up; p50 with p10/p90; TFLOPS = 4*B*H*D*(visible query-key pairs). For the small (latency)
shapes also the GPU time per call of a CUDA graph of back-to-back calls (launch overhead gone).
Accuracy: rel RMSE of each system against an fp64 reference on the same FP8 inputs (S <= 2048).

  python -m fp8attn.bench [--out DIR] [--full] [--seqlens 512,2048] [--iters 20] [--overhead]
                         [--shapes 'B,H,S,D[,c];...'] [--alternate ROUNDS]

Writes DIR/bench.json and, with matplotlib, DIR/tflops.png (TFLOPS against sequence length, one
panel per head dim and mask, one bar per system) and DIR/latency.png (the small shapes).
--overhead adds the host cost per eager call (fp8attn.attention, fp8attn.flash_attn_func, FA3's
flash_attn_func, the raw C API through ctypes) and the CUDA-graph GPU time per call of
fp8attn.attention against the raw C API.
--alternate ROUNDS times fp8attn and FA3 FP8 in turn, ROUNDS times per shape, reads the GPU's SM
clock, power and throttle reasons (nvidia-smi) after each, and reports the median and quartiles of
the per-round ratio: on long shapes the GPU runs at its power cap and single figures move by
several % (docs/PERF.md w37). Each round also replays a CUDA graph of 10 calls of each system
("graph"): below a few hundred µs per call the eager figure counts FA3's host cost, and only the
graph ratio compares the kernels (w38). --shapes limits either mode to the shapes given.
"""
import argparse
import json
import math
import os
import sys
import time
import traceback

SYSTEMS = ("fp8attn", "fa3_fp8", "cudnn_fp8", "cudnn_bf16", "flash_fp16")
ALT_GRAPH_CALLS = 10  # calls per CUDA graph in --alternate's rounds
LATENCY_SHAPES = [(1, 1, 32, 64), (1, 8, 512, 64), (2, 8, 256, 64), (1, 8, 2048, 64)]
TOKENS, HIDDEN = 16384, 2048  # the FA3 paper's grid: batch = 16k / S, heads = 2048 / D


def _err(ex):
    return "%s: %s" % (type(ex).__name__, str(ex).strip().splitlines()[0][:300] if str(ex) else "")


class Bench:
    def __init__(self, args):
        import torch
        self.torch = torch
        self.args = args
        self.dev = torch.device("cuda")
        l2 = torch.cuda.get_device_properties(self.dev).L2_cache_size
        self.flush_buf = torch.empty(max(2 * l2, 64 << 20) // 4, dtype=torch.int32,
                                     device=self.dev)
        self.peer_errors = {}
        self.fa3 = self._load_fa3()
        self.cudnn, self.cudnn_handle = self._load_cudnn()
        self._cudnn_graphs = {}

    # ---- peers ----
    def _load_fa3(self):
        errors = []
        for mod in ("flash_attn_interface", "fa3_fwd_interface"):
            try:
                m = __import__(mod)
                self.fa3_module = mod
                return m.flash_attn_func
            except Exception as ex:  # noqa: BLE001
                errors.append("%s: %s" % (mod, _err(ex)))
        self.peer_errors["fa3_fp8"] = "; ".join(errors)
        return None

    def _load_cudnn(self):
        try:
            import cudnn
            return cudnn, cudnn.create_handle()
        except Exception as ex:  # noqa: BLE001
            self.peer_errors["cudnn_fp8"] = "cudnn (nvidia-cudnn-frontend): " + _err(ex)
            return None, None

    # ---- timing ----
    def time_call(self, fn, iters, warmup=3):
        torch = self.torch
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        events = []
        for i in range(iters):
            self.flush_buf.fill_(i)
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            fn()
            b.record()
            events.append((a, b))
        torch.cuda.synchronize()
        t = sorted(a.elapsed_time(b) * 1e3 for a, b in events)
        return {"p50_us": _pct(t, 50), "p10_us": _pct(t, 10), "p90_us": _pct(t, 90), "n": len(t)}

    def graph_timer(self, fn, calls=20, warm=False):
        """fn captured `calls` times in one CUDA graph (after three warm-up calls on a side
        stream); returns once(): one replay, the GPU time per call in us (hot L2: the small
        shapes fit). warm: once() first replays the graph untimed, so that a replay that follows
        an idle GPU (a synchronisation, nvidia-smi) is not the one timed: --alternate's first
        graph of a round measured ~25 % slower at (1,8,2048,64) without it (docs/PERF.md w45)."""
        torch = self.torch
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(calls):
                fn()
        g.replay()
        torch.cuda.synchronize()

        def once():
            if warm:
                g.replay()
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record()
            g.replay()
            b.record()
            torch.cuda.synchronize()
            return a.elapsed_time(b) * 1e3 / calls
        return once

    def graph_time(self, fn, calls=20, reps=10):
        """GPU time per call: `calls` calls captured in one CUDA graph, replayed `reps` times
        (hot L2: the small shapes fit)."""
        once = self.graph_timer(fn, calls)
        t = sorted(once() for _ in range(reps))
        return {"p50_us": _pct(t, 50), "p10_us": _pct(t, 10), "p90_us": _pct(t, 90)}

    # ---- one shape ----
    def fp8_calls(self, q, k, v, dq, dk, dv, causal, scale):
        """{name: (call, its output)} for fp8attn (the default variant, or --variant) and, where
        it imports, FA3 FP8, on the same BSHD FP8 inputs."""
        import fp8attn
        variant = self.args.variant
        holder, h3 = {}, {}

        def run_ours():
            if variant:
                holder["o"] = _forward_variant(q, k, v, dq, dk, dv, causal, variant)
            else:
                holder["o"] = fp8attn.attention(q, k, v, causal=causal, q_descale=dq,
                                                k_descale=dk, v_descale=dv)

        def run_fa3():
            out = self.fa3(q, k, v, softmax_scale=scale, causal=causal, q_descale=dq,
                           k_descale=dk, v_descale=dv)
            h3["o"] = out[0] if isinstance(out, tuple) else out
        calls = {"fp8attn": (run_ours, lambda: holder["o"])}
        if self.fa3 is not None:
            calls["fa3_fp8"] = (run_fa3, lambda: h3["o"])
        return calls

    def alternate(self, B, H, S, D, causal, iters, rounds):
        """fp8attn and FA3 FP8 timed in turn, `rounds` times (time_call: p50 of `iters` calls
        each), with the GPU's SM clock, power and throttle reasons read after each. Long shapes
        run at the GPU's power cap, where both move by several % from one call to the next
        (docs/PERF.md w37): one side-by-side figure each says less than the median ratio of
        many rounds. Each round also replays a CUDA graph of ALT_GRAPH_CALLS calls of each
        (graph_summary): events around one eager call count the host's launch cost whenever the
        GPU runs dry, which FA3's Python wrapper makes tens of µs (docs/PERF.md w38), so below
        a few hundred µs per call only the graph ratio compares the kernels."""
        torch = self.torch
        if self.fa3 is None:
            return {"error": "FA3 FP8 not importable: %s" % self.peer_errors.get("fa3_fp8")}
        scale = 1.0 / math.sqrt(D)
        (q, dq), (k, dk), (v, dv) = self.shape_inputs(B, H, S, D, causal)
        calls = self.fp8_calls(q, k, v, dq, dk, dv, causal, scale)
        ours, fa3 = calls["fp8attn"][0], calls["fa3_fp8"][0]
        ours()
        fa3()
        torch.cuda.synchronize()
        row = {"shape": [B, H, S, D], "causal": causal, "tflop": tflop(B, H, S, D, causal),
               "iters": iters, "graph_calls": ALT_GRAPH_CALLS, "rounds": []}
        try:  # a capture that fails loses the graph rounds (graph_error), not the eager ones
            graphs = (self.graph_timer(ours, ALT_GRAPH_CALLS, warm=True),
                      self.graph_timer(fa3, ALT_GRAPH_CALLS, warm=True))
        except Exception as ex:  # noqa: BLE001
            graphs = None
            row["graph_error"] = _err(ex)
        for _ in range(rounds):
            a = self.time_call(ours, iters, warmup=1)["p50_us"]
            ga = gpu_state()
            b = self.time_call(fa3, iters, warmup=1)["p50_us"]
            gb = gpu_state()
            r = {"fp8attn_us": a, "fa3_fp8_us": b, "gpu_after_fp8attn": ga, "gpu_after_fa3_fp8": gb}
            if graphs:
                r["fp8attn_graph_us"], r["fa3_fp8_graph_us"] = graphs[0](), graphs[1]()
            row["rounds"].append(r)
        row["summary"] = alternation_summary([r["fp8attn_us"] for r in row["rounds"]],
                                             [r["fa3_fp8_us"] for r in row["rounds"]])
        if graphs:
            row["graph_summary"] = alternation_summary(
                [r["fp8attn_graph_us"] for r in row["rounds"]],
                [r["fa3_fp8_graph_us"] for r in row["rounds"]])
        return row

    def shape_inputs(self, B, H, S, D, causal):
        """inputs() with the shape's own seed: every mode and run of the bench sees the same."""
        return self.inputs(B, H, S, D, B * 7 + H * 13 + S + D + causal)

    def inputs(self, B, H, S, D, seed):
        """FP8 q, k, v (BSHD) quantized by fp8attn.quantize with one descale per tensor (the one
        granularity every system takes: cuDNN has no other), as [(codes, descale (B, H)
        contiguous: FA3's shape, and ours)]."""
        import fp8attn
        torch = self.torch
        g = torch.Generator(device=self.dev).manual_seed(seed)
        out = []
        for _ in range(3):
            x = torch.randn(B, S, H, D, device=self.dev, dtype=torch.bfloat16, generator=g)
            codes, d = fp8attn.quantize(x)
            out.append((codes, d.expand(B, H).contiguous()))
        return out

    def reference(self, q, k, v, dq, dk, dv, causal, scale):
        """fp64 O of the same FP8 inputs, [B, S, H, D], one batch element at a time."""
        torch = self.torch
        outs = []
        for b in range(q.shape[0]):
            qb, kb, vb = ((t[b].double() * d[b].double()[None, :, None]).transpose(0, 1)
                          for t, d in ((q, dq), (k, dk), (v, dv)))
            s = torch.einsum("hqd,hkd->hqk", qb, kb) * scale
            if causal:
                n = s.shape[-1]
                s = s.masked_fill(torch.ones(n, n, dtype=torch.bool, device=self.dev).triu(1),
                                  float("-inf"))
            outs.append(torch.einsum("hqk,hkd->hqd", torch.softmax(s, dim=-1), vb).transpose(0, 1))
            del s
        return torch.stack(outs)

    def cudnn_fp8(self, B, H, S, D, causal, scale):
        key = (B, H, S, D, causal)
        if key in self._cudnn_graphs:
            return self._cudnn_graphs[key]
        cd, torch = self.cudnn, self.torch
        cd.set_stream(handle=self.cudnn_handle, stream=torch.cuda.current_stream().cuda_stream)
        g = cd.pygraph(io_data_type=cd.data_type.FP8_E4M3, intermediate_data_type=cd.data_type.FLOAT,
                       compute_data_type=cd.data_type.FLOAT, handle=self.cudnn_handle)
        dims, strides = (B, H, S, D), (S * H * D, D, H * D, 1)  # BSHD memory, BHSD dims
        t = {n: g.tensor(name=n, dim=dims, stride=strides, data_type=cd.data_type.FP8_E4M3)
             for n in ("q", "k", "v")}
        one = dict(dim=(1, 1, 1, 1), stride=(1, 1, 1, 1), data_type=cd.data_type.FLOAT)
        sc = {n: g.tensor(name=n, **one) for n in ("dq", "dk", "dv", "ds", "ss", "so")}
        args = dict(q=t["q"], k=t["k"], v=t["v"], descale_q=sc["dq"], descale_k=sc["dk"],
                    descale_v=sc["dv"], descale_s=sc["ds"], scale_s=sc["ss"], scale_o=sc["so"],
                    attn_scale=scale, use_causal_mask=causal)
        try:
            o, _, amax_s, amax_o = g.sdpa_fp8(generate_stats=False, **args)
        except TypeError:
            o, _, amax_s, amax_o = g.sdpa_fp8(is_inference=True, **args)
        o.set_output(True).set_dim(dims).set_stride(strides).set_data_type(cd.data_type.FP8_E4M3)
        for a in (amax_s, amax_o):
            a.set_output(True).set_dim((1, 1, 1, 1)).set_stride((1, 1, 1, 1)).set_data_type(
                cd.data_type.FLOAT)
        g.validate()
        g.build_operation_graph()
        g.create_execution_plans([cd.heur_mode.A, cd.heur_mode.FALLBACK])
        g.check_support()
        g.build_plans()
        ws = torch.empty(max(g.get_workspace_size(), 1), dtype=torch.uint8, device=self.dev)
        self._cudnn_graphs[key] = (g, t, sc, o, amax_s, amax_o, ws)
        return self._cudnn_graphs[key]

    def run_shape(self, B, H, S, D, causal, iters, check, latency):
        torch = self.torch
        from torch.nn.attention import SDPBackend, sdpa_kernel
        import torch.nn.functional as F
        scale = 1.0 / math.sqrt(D)
        row = {"shape": [B, H, S, D], "causal": causal, "tflop": tflop(B, H, S, D, causal),
               "results": {}}
        (q, dq), (k, dk), (v, dv) = self.shape_inputs(B, H, S, D, causal)
        ref = self.reference(q, k, v, dq, dk, dv, causal, scale) if check else None
        row["inputs"] = "E4M3, one descale per tensor (passed as (batch, heads))"
        res = row["results"]

        def record(name, fn, output):
            try:
                fn()
                torch.cuda.synchronize()
                r = self.time_call(fn, iters)
                r["tflops"] = row["tflop"] / (r["p50_us"] * 1e-6)
                if ref is not None and output is not None:
                    o = output().double()
                    r["rel_rmse"] = (torch.linalg.vector_norm(o - ref)
                                     / torch.linalg.vector_norm(ref)).item()
                if latency:
                    try:
                        r["graph"] = self.graph_time(fn)
                    except Exception as ex:  # noqa: BLE001
                        r["graph_error"] = _err(ex)
                res[name] = r
            except Exception as ex:  # noqa: BLE001
                res[name] = {"error": _err(ex)}

        if self.args.variant:
            row["fp8attn_variant"] = self.args.variant
        calls = self.fp8_calls(q, k, v, dq, dk, dv, causal, scale)
        record("fp8attn", *calls["fp8attn"])
        if "fa3_fp8" in calls:
            record("fa3_fp8", *calls["fa3_fp8"])
        else:
            res["fa3_fp8"] = {"skipped": self.peer_errors.get("fa3_fp8")}

        if self.cudnn is not None:
            try:
                g, t, sc, o_t, amax_s, amax_o, ws = self.cudnn_fp8(B, H, S, D, causal, scale)
                o8 = torch.empty(B, S, H, D, dtype=torch.float8_e4m3fn, device=self.dev)
                a1 = torch.zeros(1, 1, 1, 1, device=self.dev)
                a2 = torch.zeros(1, 1, 1, 1, device=self.dev)
                one = torch.ones(1, 1, 1, 1, device=self.dev)
                s11 = lambda d: d[:1, :1].reshape(1, 1, 1, 1).contiguous()  # noqa: E731
                # P is scaled by 2^8 into FP8 (descale_s undoes it); O is written as O / dv in
                # FP8 (scale_o), so O = o8 * dv
                pack = {t["q"]: q, t["k"]: k, t["v"]: v, o_t: o8, amax_s: a1, amax_o: a2,
                        sc["dq"]: s11(dq), sc["dk"]: s11(dk), sc["dv"]: s11(dv),
                        sc["ds"]: one / 256.0, sc["ss"]: one * 256.0, sc["so"]: one / s11(dv)}

                def run_cd():
                    self.cudnn.set_stream(handle=self.cudnn_handle,
                                          stream=torch.cuda.current_stream().cuda_stream)
                    g.execute(pack, ws, handle=self.cudnn_handle)
                record("cudnn_fp8", run_cd, lambda: o8.double() * dv[0, 0].double())
                if "tflops" in res["cudnn_fp8"]:
                    res["cudnn_fp8"]["note"] = "FP8 output (cuDNN on Hopper), error includes it"
            except Exception as ex:  # noqa: BLE001
                res["cudnn_fp8"] = {"error": _err(ex)}
        else:
            res["cudnn_fp8"] = {"skipped": self.peer_errors.get("cudnn_fp8")}

        # torch SDPA on the dequantized FP8 inputs (BHSD views of BSHD storage)
        for name, be, dt in (("cudnn_bf16", SDPBackend.CUDNN_ATTENTION, torch.bfloat16),
                             ("flash_fp16", SDPBackend.FLASH_ATTENTION, torch.float16)):
            a, b_, c = ((x.float() * d[:, None, :, None]).to(dt).transpose(1, 2)
                        for x, d in ((q, dq), (k, dk), (v, dv)))  # the FP8 inputs' values
            hs = {}

            def run_sdpa(a=a, b_=b_, c=c, be=be, hs=hs):
                with sdpa_kernel([be]):
                    hs["o"] = F.scaled_dot_product_attention(a, b_, c, is_causal=causal)
            record(name, run_sdpa, lambda hs=hs: hs["o"].transpose(1, 2))
        return row

    # ---- host overhead and graph time against the raw C API ----
    def overhead(self):
        import fp8attn
        torch = self.torch
        out = {}
        B, H, S, D = 1, 8, 128, 64
        (q, dq), (k, dk), (v, dv) = self.inputs(B, H, S, D, 99)  # descales (B, H): FA3's shape
        calls = {
            "fp8attn.attention": lambda: fp8attn.attention(q, k, v, q_descale=dq, k_descale=dk,
                                                           v_descale=dv),
            "fp8attn.flash_attn_func": lambda: fp8attn.flash_attn_func(
                q, k, v, q_descale=dq, k_descale=dk, v_descale=dv),
        }
        if self.fa3 is not None:
            calls["fa3 flash_attn_func"] = lambda: self.fa3(q, k, v, q_descale=dq, k_descale=dk,
                                                            v_descale=dv)
        # the raw C API: params packed once, fp8attn_forward_workspace_size and
        # fp8attn_forward_ws through ctypes as the package calls them (a floor for any Python
        # binding)
        raw = _raw_forward((q, k, v), (dq, dk, dv))
        calls["C API (ctypes, params packed once)"] = raw
        n = self.args.overhead_calls
        host = {}
        for name, fn in calls.items():
            try:
                for _ in range(200):
                    fn()
                torch.cuda.synchronize()
                per = []
                for _ in range(5):  # 5 loops of n calls; the median loop
                    t0 = time.perf_counter()
                    for _ in range(n):
                        fn()
                    t1 = time.perf_counter()
                    torch.cuda.synchronize()
                    per.append((t1 - t0) / n * 1e6)
                per.sort()
                host[name] = {"host_us_per_call": per[2], "min": per[0], "max": per[-1]}
            except Exception as ex:  # noqa: BLE001
                host[name] = {"error": _err(ex)}
        gpu = self.time_call(raw, 50)
        out["eager_host_overhead"] = {"shape": [B, H, S, D], "calls_per_loop": n, "results": host,
                                      "kernel_gpu_us_p50": gpu["p50_us"],
                                      "note": "wall time of the Python loop / calls, without "
                                              "synchronising inside; the kernel is shorter than "
                                              "the host cost, so this is the host cost per call"}
        graph = {}
        for shape in LATENCY_SHAPES:
            (q2, d2), (k2, e2), (v2, f2) = self.inputs(*shape, 7)
            raw2 = _raw_forward((q2, k2, v2), (d2, e2, f2))

            def pkg(q2=q2, k2=k2, v2=v2, d2=d2, e2=e2, f2=f2):
                fp8attn.attention(q2, k2, v2, q_descale=d2, k_descale=e2, v_descale=f2)
            r = {}
            for name, fn in (("fp8attn.attention", pkg), ("C API", raw2)):
                try:
                    r[name] = self.graph_time(fn, calls=50, reps=20)
                except Exception as ex:  # noqa: BLE001
                    r[name] = {"error": _err(ex)}
            graph["%d,%d,%d,%d" % shape] = r
        out["graph_time_per_call"] = graph
        return out


def bshd_params(q, k, v, o, descales, causal=False):
    """The fp8attn_params_t of fp8attn.attention(q, k, v, ...) for BSHD FP8 q, k, v, descales
    (dq, dk, dv) of shape (batch, heads) and a BF16 o, packed field by field for the C API (the
    bench's raw and --variant paths, and the GPU tests' calls of the C API)."""
    import ctypes

    import fp8attn._lib as L
    B, S, H, D = q.shape
    p = L.Params()
    L.lib().fp8attn_params_init(ctypes.byref(p))
    p.batch, p.h_q, p.h_kv, p.seqlen_q, p.seqlen_k, p.head_dim = B, H, k.shape[2], S, k.shape[1], D
    p.out_type, p.causal = 1, int(causal)  # FP8ATTN_OUT_BF16
    p.q, p.k, p.v, p.o = q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr()
    for name, t in (("q_stride", q), ("k_stride", k), ("v_stride", v), ("o_stride", o)):
        st = getattr(p, name)
        st.batch, st.head, st.token = t.stride(0), t.stride(2), t.stride(1)
    for name, d in zip(("q_descale", "k_descale", "v_descale"), descales):
        ds = getattr(p, name)
        ds.ptr, ds.batch_stride, ds.head_stride = d.data_ptr(), d.stride(0), d.stride(1)
    return p


def _raw_forward(qkv, descales):
    """A call of the C API through ctypes with its params packed once (the floor for any Python
    binding): BSHD FP8 q, k, v of one shape (h_q = h_kv), descales (B, H), BF16 O. Per call it
    runs the package's own C call (_torch_ops._forward_cuda: fp8attn_forward_workspace_size, a
    workspace from the caching allocator when that is > 0, fp8attn_forward_ws), so both run the
    same kernels (on Hopper at long sequences, the counters' clear and the _vt kernel) and time
    alike."""
    import ctypes

    import torch

    import fp8attn._lib as L
    from fp8attn import _torch_ops
    q = qkv[0]
    o = torch.empty(q.shape, dtype=torch.bfloat16, device=q.device)
    p = bshd_params(*qkv, o, descales)
    addr = ctypes.addressof(p)
    dev, idx = q.device, q.device.index or 0

    def raw(keep=(p, o, qkv, descales)):  # keeps the params and tensors alive with the closure
        st = _torch_ops._forward_cuda(addr, dev, torch._C._cuda_getCurrentRawStream(idx))
        if st:
            L.raise_status(st)
    return raw


def _forward_variant(q, k, v, dq, dk, dv, causal, variant):
    """fp8attn with a named kernel variant: fp8attn_forward_ws with that variant and, as
    fp8attn.attention does for the default one, a workspace of fp8attn_forward_workspace_size
    bytes from the caching allocator when that is > 0."""
    import ctypes

    import fp8attn._lib as L
    import torch
    o = torch.empty(q.shape, dtype=torch.bfloat16, device=q.device)
    p = bshd_params(q, k, v, o, (dq, dk, dv), causal)
    lib, name = L.lib(), variant.encode()
    n = ctypes.c_size_t(0)
    L.check(lib.fp8attn_forward_workspace_size(ctypes.byref(p), name, ctypes.byref(n)), variant)
    ws = torch.empty(n.value, dtype=torch.uint8, device=q.device) if n.value else None
    L.check(lib.fp8attn_forward_ws(ctypes.byref(p), name, None if ws is None else ws.data_ptr(),
                                   n.value, torch.cuda.current_stream().cuda_stream), variant)
    return o


def tflop(B, H, S, D, causal):
    """TFLOP of one forward: 4 B H D per visible (query, key) pair, S^2 or S(S+1)/2 of them."""
    pairs = S * (S + 1) / 2 if causal else S * S
    return 4.0 * B * H * D * pairs / 1e12


def alternation_summary(ours_us, fa3_us):
    """Medians of the two systems' per-round times, and the median and quartiles of the
    per-round ratio FA3 time / fp8attn time (> 1: fp8attn faster)."""
    if not ours_us or len(ours_us) != len(fa3_us):
        raise ValueError("alternation_summary: %d fp8attn and %d FA3 rounds; need equal, >= 1"
                         % (len(ours_us), len(fa3_us)))
    ratios = sorted(b / a for a, b in zip(ours_us, fa3_us))
    return {"fp8attn_p50_us": _pct(sorted(ours_us), 50), "fa3_fp8_p50_us": _pct(sorted(fa3_us), 50),
            "fa3_over_fp8attn_p50": _pct(ratios, 50), "fa3_over_fp8attn_p25": _pct(ratios, 25),
            "fa3_over_fp8attn_p75": _pct(ratios, 75), "rounds": len(ratios)}


def alternation_line(B, H, S, D, causal, row):
    """One line of --alternate's report for a row of bench.json's "alternations": the eager and
    graph medians and ratios, the clocks and how many rounds ran at the power cap; the error
    where the row has none."""
    sm, gs = row.get("summary"), row.get("graph_summary")
    head = "B=%d H=%d S=%d D=%d c=%d | " % (B, H, S, D, causal)
    if not sm:
        return head + "ERR %s" % row.get("error", "")[-300:]
    clocks = [g.get("sm_mhz") for r in row.get("rounds", ())
              for g in (r["gpu_after_fp8attn"], r["gpu_after_fa3_fp8"]) if g.get("sm_mhz")]
    capped = sum(1 for r in row.get("rounds", ())
                 if (r["gpu_after_fp8attn"].get("throttle") or 0) & SMI_SW_POWER_CAP)
    graph = ("graph %.1fus %.1fus: %.3f (%.3f-%.3f)" % (
        gs["fp8attn_p50_us"], gs["fa3_fp8_p50_us"], gs["fa3_over_fp8attn_p50"],
        gs["fa3_over_fp8attn_p25"], gs["fa3_over_fp8attn_p75"]) if gs
        else "graph ERR %s" % row.get("graph_error", "?")[-200:])
    return head + ("fp8attn %.1fus fa3 %.1fus | fa3/fp8attn %.3f (quartiles %.3f-%.3f, %d rounds) | "
                   "%s | SM %s MHz, power cap in %d rounds" % (
                       sm["fp8attn_p50_us"], sm["fa3_fp8_p50_us"], sm["fa3_over_fp8attn_p50"],
                       sm["fa3_over_fp8attn_p25"], sm["fa3_over_fp8attn_p75"], sm["rounds"],
                       graph, "%d-%d" % (min(clocks), max(clocks)) if clocks else "?", capped))


SMI_FIELDS = ("clocks.sm", "power.draw", "temperature.gpu", "clocks_throttle_reasons.active")
SMI_SW_POWER_CAP = 0x4  # clocks_throttle_reasons: the software power cap


def parse_smi(line):
    """One line of `nvidia-smi --query-gpu=<SMI_FIELDS> --format=csv,noheader,nounits` as
    {"sm_mhz", "power_w", "temp_c", "throttle"} (throttle: the reasons' bit mask, 0x4 = the
    software power cap); fields nvidia-smi reports as N/A are None."""
    cells = [c.strip() for c in line.split(",")]
    if len(cells) != len(SMI_FIELDS):
        raise ValueError("nvidia-smi line %r: %d fields, expected %d" % (line, len(cells),
                                                                          len(SMI_FIELDS)))

    def num(c, kind):
        try:
            return kind(c)
        except ValueError:
            return None
    return {"sm_mhz": num(cells[0], int), "power_w": num(cells[1], float),
            "temp_c": num(cells[2], int),
            "throttle": int(cells[3], 16) if cells[3].startswith("0x") else None}


def gpu_state():
    """The state of the first GPU nvidia-smi lists (parse_smi), or {"error": why}. That is the
    device the bench runs on when CUDA_VISIBLE_DEVICES is unset or names one GPU first."""
    import subprocess
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS),
                            "--format=csv,noheader,nounits"], capture_output=True, text=True,
                           timeout=10)
        if r.returncode != 0:
            return {"error": "nvidia-smi exit %d: %s" % (r.returncode, r.stderr.strip()[:200])}
        return parse_smi(r.stdout.strip().splitlines()[0])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as ex:
        return {"error": _err(ex)}


def parse_shapes(text):
    """"B,H,S,D[,c]" items separated by ';' or spaces -> [(B, H, S, D, causal)]."""
    shapes = []
    for item in text.replace(";", " ").split():
        parts = item.split(",")
        causal = len(parts) == 5 and parts[4] in ("c", "causal")
        if len(parts) not in (4, 5) or (len(parts) == 5 and not causal):
            raise ValueError("--shapes: %r is not B,H,S,D or B,H,S,D,c" % item)
        try:
            dims = [int(x) for x in parts[:4]]
        except ValueError:
            raise ValueError("--shapes: %r: B, H, S and D must be integers" % item) from None
        if min(dims) < 1:
            raise ValueError("--shapes: %r: B, H, S and D must be >= 1" % item)
        shapes.append(tuple(dims) + (causal,))
    if not shapes:
        raise ValueError("--shapes: no shape given")
    return shapes


def _pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    pos = q / 100.0 * (len(sorted_vals) - 1)
    i = int(pos)
    if i + 1 < len(sorted_vals):
        return sorted_vals[i] + (pos - i) * (sorted_vals[i + 1] - sorted_vals[i])
    return sorted_vals[-1]


# ---- plots ----

def plot(data, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as ex:
        print("plots skipped: %s" % _err(ex))
        return []
    colors = {"fp8attn": "#d62728", "fa3_fp8": "#1f77b4", "cudnn_fp8": "#2ca02c",
              "cudnn_bf16": "#98df8a", "flash_fp16": "#aec7e8"}
    labels = {"fp8attn": "fp8attn (FP8)", "fa3_fp8": "FlashAttention-3 FP8",
              "cudnn_fp8": "cuDNN FP8", "cudnn_bf16": "cuDNN BF16 (torch SDPA)",
              "flash_fp16": "FlashAttention FP16 (torch SDPA)"}
    rows = [r for r in data["rows"] if not r.get("latency") and "results" in r]
    dims = sorted({r["shape"][3] for r in rows})
    files = []
    if rows:
        fig, axes = plt.subplots(len(dims), 2, figsize=(13, 3.6 * len(dims)), squeeze=False)
        for i, d in enumerate(dims):
            for j, causal in enumerate((False, True)):
                ax = axes[i][j]
                sel = sorted((r for r in rows if r["shape"][3] == d and r["causal"] == causal),
                             key=lambda r: r["shape"][2])
                seqs = [r["shape"][2] for r in sel]
                _grouped_bars(ax, sel, lambda res: res.get("tflops", 0.0), colors, labels, "%.0f",
                              6)
                ax.set_xticks(range(len(seqs)))
                ax.set_xticklabels([_seq_label(s) for s in seqs])
                ax.set_xlabel("sequence length")
                ax.set_ylabel("TFLOPS")
                ax.set_title("head dim %d, %s" % (d, "causal" if causal else "non-causal"))
                ax.grid(axis="y", alpha=0.3)
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, names, loc="lower center", ncol=len(SYSTEMS), fontsize=8,
                   frameon=False)
        fig.suptitle("Attention forward, %s (%d tokens x %d hidden; L2 flushed, median)"
                     % (data["device"], TOKENS, HIDDEN))
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        path = os.path.join(out_dir, "tflops.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    lat = [r for r in data["rows"] if r.get("latency") and "results" in r]
    if lat:
        fig, ax = plt.subplots(figsize=(10, 4))
        _grouped_bars(ax, lat, lambda res: res.get("graph", {}).get("p50_us", 0.0), colors, labels,
                      "%.1f", 7)
        ax.set_xticks(range(len(lat)))
        ax.set_xticklabels(["B%d H%d S%d D%d" % tuple(r["shape"]) for r in lat])
        ax.set_ylabel("GPU time per call, us (CUDA graph)")
        ax.set_title("Small shapes, %s: GPU time per call in a CUDA graph (lower is better)"
                     % data["device"])
        ax.grid(axis="y", alpha=0.3)
        ax.set_ylim(top=ax.get_ylim()[1] * 1.25)
        ax.legend(fontsize=7, loc="upper center", ncol=len(SYSTEMS))
        fig.tight_layout()
        path = os.path.join(out_dir, "latency.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    return files


def _grouped_bars(ax, rows, value, colors, labels, fmt, fontsize):
    """One group of bars per row, one bar per system (value(result) of that system, 0 if it has
    none), each labelled with its value."""
    width = 0.8 / len(SYSTEMS)
    for k, name in enumerate(SYSTEMS):
        vals = [value(r["results"].get(name, {})) for r in rows]
        xs = [x + (k - (len(SYSTEMS) - 1) / 2) * width for x in range(len(rows))]
        bars = ax.bar(xs, vals, width, color=colors[name], label=labels[name])
        for b_, v_ in zip(bars, vals):
            if v_ > 0:
                ax.text(b_.get_x() + b_.get_width() / 2, v_, fmt % v_, ha="center", va="bottom",
                        fontsize=fontsize)


def _seq_label(s):
    return "%dk" % (s // 1024) if s >= 1024 and s % 1024 == 0 else str(s)


def print_table(data):
    print("\n%-22s %s" % ("shape (B,H,S,D)", "  ".join("%18s" % s for s in SYSTEMS)))
    for r in data["rows"]:
        if "results" not in r:
            print("%-22s ERROR %s" % (r["shape"], r.get("error", "")[-200:]))
            continue
        label = "%d,%d,%d,%d%s" % (tuple(r["shape"]) + (" c" if r["causal"] else "",))
        cells = []
        for s in SYSTEMS:
            x = r["results"].get(s, {})
            if "p50_us" not in x:
                cells.append("%18s" % ("skipped" if "skipped" in x else "error"))
            elif r.get("latency"):
                cells.append("%18s" % ("%.1fus g%.1fus" % (x["p50_us"], x.get("graph", {}).get(
                    "p50_us", float("nan")))))
            else:
                cells.append("%18s" % ("%.0fTF%s" % (x["tflops"], " e%.3f" % x["rel_rmse"]
                                                      if "rel_rmse" in x else "")))
        print("%-22s %s" % (label, "  ".join(cells)))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m fp8attn.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/peers", help="output folder (default %(default)s)")
    ap.add_argument("--full", action="store_true",
                    help="seqlens 512..16k (default: 512, 2048, 8192)")
    ap.add_argument("--seqlens", default=None, help="comma-separated seqlens (overrides --full)")
    ap.add_argument("--head-dims", default="64,128,256")
    ap.add_argument("--iters", type=int, default=20, help="timed calls per system and shape")
    ap.add_argument("--variant", default=None, help="fp8attn kernel variant (default: its pick)")
    ap.add_argument("--no-latency", action="store_true", help="skip the small shapes")
    ap.add_argument("--overhead", action="store_true",
                    help="also the host cost per eager call and the CUDA-graph time per call "
                         "against the raw C API")
    ap.add_argument("--overhead-calls", type=int, default=2000)
    ap.add_argument("--shapes", default=None,
                    help="only these shapes, 'B,H,S,D[,c];...' (c: causal), instead of the grid "
                         "and the small shapes")
    ap.add_argument("--alternate", type=int, default=0, metavar="ROUNDS",
                    help="time fp8attn and FA3 FP8 in turn ROUNDS times per shape, with the GPU's "
                         "clock and power after each, and report the median ratio (no other peers, "
                         "no plots)")
    ap.add_argument("--time-limit", type=float, default=0,
                    help="seconds: start no new shape after this (0: none); the rest are listed "
                         "as not run, and the overhead part and the plots still come")
    args = ap.parse_args(argv)
    try:
        shapes = parse_shapes(args.shapes) if args.shapes is not None else None
    except ValueError as ex:
        ap.error(str(ex))
    if args.alternate < 0:
        ap.error("--alternate: ROUNDS must be >= 0, got %d" % args.alternate)
    t_start = time.time()
    import torch
    import fp8attn
    if not torch.cuda.is_available():
        print("python -m fp8attn.bench: no CUDA device")
        return 2
    os.makedirs(args.out, exist_ok=True)
    seqs = ([int(s) for s in args.seqlens.split(",")] if args.seqlens else
            [512, 1024, 2048, 4096, 8192, 16384] if args.full else [512, 2048, 8192])
    dims = [int(d) for d in args.head_dims.split(",")]
    bench = Bench(args)
    props = torch.cuda.get_device_properties(0)
    data = {"device": torch.cuda.get_device_name(), "sm_count": props.multi_processor_count,
            "torch": torch.__version__, "cudnn_torch": torch.backends.cudnn.version(),
            "fp8attn": fp8attn.library_version(), "fp8attn_library": fp8attn.library_path(),
            "fa3": getattr(bench, "fa3_module", None), "skipped_peers": bench.peer_errors,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"), "iters": args.iters,
            "l2_flush_bytes": bench.flush_buf.numel() * 4, "rows": []}
    if bench.cudnn is not None:
        data["cudnn_frontend_backend"] = bench.cudnn.backend_version()
    if args.alternate:
        grid = [(max(TOKENS // S, 1), HIDDEN // D, S, D, c) for D in dims for S in seqs
                for c in (False, True)]
        return _main_alternate(args, bench, data, grid if shapes is None else shapes, t_start)
    plan = []
    if shapes is not None:
        plan = [(B, H, S, D, c, args.iters, S <= 2048, False) for (B, H, S, D, c) in shapes]
    elif not args.no_latency:
        plan += [(B, H, S, D, False, max(args.iters, 50), True, True)
                 for (B, H, S, D) in LATENCY_SHAPES]
    for D in (dims if shapes is None else ()):
        for S in seqs:
            for causal in (False, True):
                plan.append((max(TOKENS // S, 1), HIDDEN // D, S, D, causal, args.iters, S <= 2048,
                             False))
    out_json = os.path.join(args.out, "bench.json")
    for (B, H, S, D, causal, iters, check, latency) in plan:
        t0 = time.time()
        if args.time_limit and t0 - t_start > args.time_limit:
            data["rows"].append({"shape": [B, H, S, D], "causal": causal, "latency": latency,
                                 "error": "not run: --time-limit %g s reached" % args.time_limit})
            continue
        try:
            row = bench.run_shape(B, H, S, D, causal, iters, check, latency)
        except Exception:  # noqa: BLE001
            row = {"shape": [B, H, S, D], "causal": causal, "error": traceback.format_exc()[-1500:]}
        row["latency"] = latency
        row["seconds"] = round(time.time() - t0, 2)
        data["rows"].append(row)
        r = row.get("results", {})
        print("B=%d H=%d S=%d D=%d c=%d %5.1fs | %s" % (
            B, H, S, D, causal, row["seconds"], " | ".join(
                "%s %s" % (n, ("%.1fus %.0fTF" % (r[n]["p50_us"], r[n]["tflops"]) +
                               (" e%.3f" % r[n]["rel_rmse"] if "rel_rmse" in r[n] else "") +
                               (" g%.1fus" % r[n]["graph"]["p50_us"] if "graph" in r[n] else ""))
                          if "p50_us" in r.get(n, {}) else "SKIP" if "skipped" in r.get(n, {})
                          else "ERR") for n in SYSTEMS)), flush=True)
        with open(out_json, "w") as f:
            json.dump(data, f, indent=1)
    if args.overhead:
        data["overhead"] = bench.overhead()
        with open(out_json, "w") as f:
            json.dump(data, f, indent=1)
    data["plots"] = plot(data, args.out)
    with open(out_json, "w") as f:
        json.dump(data, f, indent=1)
    print_table(data)
    for name, why in bench.peer_errors.items():
        print("skipped %s: %s" % (name, why))
    errors = {}
    for r in data["rows"]:
        for n, x in r.get("results", {}).items():
            if "error" in x and n not in errors:
                errors[n] = x["error"]
    for n, e in errors.items():
        print("first error of %s: %s" % (n, e))
    if "overhead" in data:
        ov = data["overhead"]
        print("\nhost cost per eager call (%s):" % (ov["eager_host_overhead"]["shape"],))
        for n, x in ov["eager_host_overhead"]["results"].items():
            print("  %-40s %s" % (n, "%.1f us" % x["host_us_per_call"] if "host_us_per_call" in x
                                  else x.get("error")))
        print("CUDA-graph GPU time per call:")
        for shape, r in ov["graph_time_per_call"].items():
            print("  %-14s %s" % (shape, "  ".join(
                "%s %.2f us [%.2f, %.2f]" % (n, x["p50_us"], x["p10_us"], x["p90_us"])
                if "p50_us" in x else "%s %s" % (n, x.get("error")) for n, x in r.items())))
    print("wrote %s%s" % (out_json, "".join(", " + p for p in data.get("plots", []))))
    return 0


def _main_alternate(args, bench, data, shapes, t_start):
    """--alternate: per shape fp8attn and FA3 in turn."""
    data["alternate_rounds"] = args.alternate
    data["alternations"] = []
    out_json = os.path.join(args.out, "bench.json")
    for (B, H, S, D, causal) in shapes:
        if args.time_limit and time.time() - t_start > args.time_limit:
            data["alternations"].append({"shape": [B, H, S, D], "causal": causal,
                                         "error": "not run: --time-limit %g s reached"
                                         % args.time_limit})
            continue
        try:
            row = bench.alternate(B, H, S, D, causal, args.iters, args.alternate)
        except Exception:  # noqa: BLE001
            row = {"shape": [B, H, S, D], "causal": causal, "error": traceback.format_exc()[-1500:]}
        row.setdefault("shape", [B, H, S, D])
        row.setdefault("causal", causal)
        data["alternations"].append(row)
        print(alternation_line(B, H, S, D, causal, row), flush=True)
        with open(out_json, "w") as f:
            json.dump(data, f, indent=1)
    print("wrote %s" % out_json)
    return 0 if all("summary" in r for r in data["alternations"]) else 1


if __name__ == "__main__":
    sys.exit(main())
