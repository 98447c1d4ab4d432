"""The summary of a tests/python/device_run.sh run, as markdown: the steps, quantize bandwidth
against the copy, host cost per eager call, CUDA-graph time per call against the C API, the peer
benchmark; and whether each "done when" figure of issue 11 holds.

    python3 tests/python/device_summary.py OUT_DIR
"""
import json
import os
import re
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as ex:
        print("(%s: %s)" % (os.path.basename(path), ex))
        return None


def steps(out):
    try:
        text = open(os.path.join(out, "device_run.log")).read()
    except OSError:
        return {}
    st = {}
    for m in re.finditer(r"^== (\w+): (PASS|SKIP|FAIL.*?|TIMEOUT.*?|NOT RUN.*?)(?: \(\d+s elapsed\))?$",
                         text, re.M):
        st[m.group(1)] = m.group(2)
    counts = {}
    for m in re.finditer(r"^run_pytest: (\d+) passed, (\d+) failed, (\d+) skipped", text, re.M):
        counts[len(counts)] = m.group(0)[len("run_pytest: "):]
    return st, counts


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "results/device"
    verdicts = []
    print("# Issue 11 device run: summary\n")
    s = steps(out)
    if s:
        st, counts = s
        print("| step | result |\n|---|---|")
        names = [n for n in ("pytest_numpy", "pytest_torch_cpu", "pytest_gpu", "test_quant_gpu",
                             "quant_bench", "bench") if n in st]
        for i, n in enumerate(names):
            extra = (" (%s)" % counts[i]) if n.startswith("pytest") and i in counts else ""
            print("| %s | %s%s |" % (n, st[n], extra))
        print()
        verdicts.append(("device tests pass (pytest GPU suite, test_quant_gpu)",
                         st.get("pytest_gpu") == "PASS" and st.get("test_quant_gpu") == "PASS"))

    q = load(os.path.join(out, "quant_bench.json"))
    if q:
        print("## Quantize bandwidth (%s), bytes read + written, p50 [p10, p90]\n" % q["device"])
        print("| input | MiB | copy GB/s | given GB/s (of copy) | dynamic tensor GB/s (of copy; "
              "traffic) | dynamic (b,h) GB/s (of copy; traffic) |")
        print("|---|---|---|---|---|---|")
        rows = {}
        for r in q["results"]:
            rows.setdefault((r["type"], r["input_mib"]), {})[r["op"]] = r
        ok = True
        for (t, mib), ops in rows.items():
            c = ops.get("copy", {})
            g = ops.get("quantize given", {})
            dt = ops.get("quantize dynamic tensor", {})
            dbh = ops.get("quantize dynamic (b,h)", {})
            cell = lambda r: "%.0f (%.0f %%)" % (r["gb_per_s"], 100 * r["fraction_of_copy"]) \
                if r else "-"  # noqa: E731
            dyn = lambda r: "%.0f (%.0f %%; %.0f)" % (r["gb_per_s"], 100 * r["fraction_of_copy"],
                                                     r["traffic_gb_per_s"]) if r else "-"  # noqa: E731
            print("| %s | %d | %.0f | %s | %s | %s |" % (t, mib, c.get("gb_per_s", 0), cell(g),
                                                       dyn(dt), dyn(dbh)))
            if mib >= 64 and g:
                ok = ok and g["fraction_of_copy"] >= 0.8
        print()
        verdicts.append(("quantize (given descales) >= 80 % of copy bandwidth at >= 64 MiB", ok))

    b = load(os.path.join(out, "bench.json"))
    if b:
        ov = b.get("overhead")
        if ov:
            h = ov["eager_host_overhead"]
            print("## Host cost per eager call, shape %s (kernel %.1f us on the GPU)\n"
                  % (h["shape"], h["kernel_gpu_us_p50"]))
            print("| call | us per call (median of 5 loops of %d) |\n|---|---|" % h["calls_per_loop"])
            for n, x in h["results"].items():
                print("| %s | %s |" % (n, "%.1f" % x["host_us_per_call"] if "host_us_per_call" in x
                                       else x.get("error")))
            ours = h["results"].get("fp8attn.attention", {}).get("host_us_per_call")
            fa3 = h["results"].get("fa3 flash_attn_func", {}).get("host_us_per_call")
            if ours is not None and fa3 is not None:
                verdicts.append(("eager host cost of fp8attn.attention (%.1f us) <= FA3's "
                                 "flash_attn_func (%.1f us)" % (ours, fa3), ours <= fa3))
            print("\n## CUDA-graph GPU time per call: fp8attn.attention vs the C API, p50 "
                  "[p10, p90] us\n")
            print("| shape | fp8attn.attention | C API | within noise |\n|---|---|---|---|")
            same = True
            for shape, r in ov["graph_time_per_call"].items():
                a, c = r.get("fp8attn.attention", {}), r.get("C API", {})
                if "p50_us" in a and "p50_us" in c:
                    overlap = a["p10_us"] <= c["p90_us"] and c["p10_us"] <= a["p90_us"]
                    close = abs(a["p50_us"] - c["p50_us"]) <= 0.03 * c["p50_us"]
                    same = same and (overlap or close)
                    print("| %s | %.2f [%.2f, %.2f] | %.2f [%.2f, %.2f] | %s |" % (
                        shape, a["p50_us"], a["p10_us"], a["p90_us"], c["p50_us"], c["p10_us"],
                        c["p90_us"], "yes" if overlap or close else "NO"))
                else:
                    same = False
                    print("| %s | %s | %s | - |" % (shape, a.get("error", "-"), c.get("error", "-")))
            verdicts.append(("CUDA-graph time per call equal to the C API's within noise", same))
            print()
        systems = ("fp8attn", "fa3_fp8", "cudnn_fp8", "cudnn_bf16", "flash_fp16")
        print("## Peers (%s, torch %s): TFLOPS (rel RMSE vs fp64 on the same FP8 inputs); "
              "small shapes: CUDA-graph us per call\n" % (b["device"], b["torch"]))
        print("| shape (B,H,S,D) | " + " | ".join(systems) + " | fp8attn / FA3 |")
        print("|---|" + "---|" * (len(systems) + 1))
        for r in b["rows"]:
            res = r.get("results")
            label = "%d,%d,%d,%d%s" % (tuple(r["shape"]) + (" c" if r["causal"] else "",))
            if not res:
                print("| %s | error |" % label)
                continue
            cells = []
            for n in systems:
                x = res.get(n, {})
                if r.get("latency"):
                    g = x.get("graph", {})
                    cells.append("%.1f us" % g["p50_us"] if "p50_us" in g else
                                 ("skipped" if "skipped" in x else "error"))
                elif "tflops" in x:
                    cells.append("%.0f%s" % (x["tflops"], " (%.3f)" % x["rel_rmse"]
                                             if "rel_rmse" in x else ""))
                else:
                    cells.append("skipped" if "skipped" in x else "error")
            a, f = res.get("fp8attn", {}), res.get("fa3_fp8", {})
            if r.get("latency"):
                ratio = (f.get("graph", {}).get("p50_us", 0) / a["graph"]["p50_us"]
                         if "graph" in a and "graph" in f else None)
                rtxt = "%.2f (FA3 time / ours)" % ratio if ratio else "-"
            else:
                rtxt = "%.2f" % (a["tflops"] / f["tflops"]) if "tflops" in a and "tflops" in f \
                    else "-"
            print("| %s | %s | %s |" % (label, " | ".join(cells), rtxt))
        for n, why in (b.get("skipped_peers") or {}).items():
            print("\nskipped %s: %s" % (n, why))
        print("\nplots: %s" % ", ".join(os.path.basename(p) for p in b.get("plots", [])))
        verdicts.append(("benchmark JSON and PNGs written", bool(b.get("plots"))))
    print("\n## Issue 11, done when (device part)\n")
    for text, ok in verdicts:
        print("- [%s] %s" % ("x" if ok else " ", text))


if __name__ == "__main__":
    main()
