#!/usr/bin/env python3
"""Tests of `fp8attn check` and `fp8attn bench` through the command line (no GPU needed).

usage: test_cli.py FP8ATTN_BINARY CASE   (exit 0 pass, 1 fail, 77 skip)
"""
import ctypes
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
BIN = None

# A small GQA shape (2 query heads share 1 kv head) that runs in well under a second on the CPU.
SMALL_GQA = "1,2,1,40,56,64"


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def run(args, cwd=None):
    p = subprocess.run([BIN] + args, cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def run_expect(args, code, cwd=None):
    rc, out, err = run(args, cwd)
    expect(rc == code, "fp8attn %s: exit %d, expected %d\nstdout:\n%s\nstderr:\n%s"
           % (" ".join(args), rc, code, out, err))
    return out, err


def result_lines(stdout):
    """The PASS/FAIL lines of `check`, as dicts of their key=value figures."""
    lines = []
    for line in stdout.splitlines():
        word = line.split(" ", 1)[0]
        if word in ("PASS", "FAIL"):
            figures = dict(re.findall(r"(\w+)=(\S+)", line))
            figures["status"] = word
            lines.append(figures)
    return lines


def gpu_present():
    """Whether the CUDA driver reports a device, asked independently of fp8attn."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return False
    return count.value > 0


# ---- cases ----

def case_check_pass():
    """A passing CPU run exits 0, one PASS line per seed, and writes nothing to disk."""
    with tempfile.TemporaryDirectory() as d:
        out, _ = run_expect(["check", "--backend", "cpu", "--shape", SMALL_GQA, "--seeds", "0,1"],
                            0, cwd=d)
        expect(os.listdir(d) == [], "check without --out/--json wrote %s" % os.listdir(d))
    lines = result_lines(out)
    expect(len(lines) == 2 and all(l["status"] == "PASS" for l in lines),
           "expected 2 PASS lines:\n" + out)
    expect([l["seed"] for l in lines] == ["0", "1"], "seeds not in order:\n" + out)


def case_check_gate_fail():
    """A gate no honest FP8 result can meet (rel RMSE 1e-6) fails the run with exit 1."""
    out, _ = run_expect(["check", "--backend", "cpu", "--shape", SMALL_GQA, "--seeds", "0",
                         "--max-rel-rmse", "1e-6"], 1)
    lines = result_lines(out)
    expect(len(lines) == 1 and lines[0]["status"] == "FAIL", "expected one FAIL line:\n" + out)
    expect("rel_rmse" in out.split("<-", 1)[-1], "the FAIL line does not name the gate:\n" + out)


def case_check_bad_args():
    """Bad arguments exit 2 with usage and a message naming the flag and value."""
    bad = [
        (["--shape", "1,2"], "--shape"),
        (["--shape", "1,2,2,16,16,64,9"], "--shape"),
        (["--shape", "1,0,1,16,16,64"], "--shape"),
        (["--seeds", "x"], "--seeds"),
        (["--seeds", "1,,2"], "--seeds"),
        (["--seeds", "-1"], "--seeds"),
        (["--backend", "tpu"], "--backend"),
        (["--layout", "bsdh"], "--layout"),
        (["--out-type", "fp32"], "--out-type"),
        (["--descale", "row"], "--descale"),
        (["--inputs", "gauss"], "--inputs"),
        (["--shapes", "huge"], "--shapes"),
        (["--atol", "-1"], "--atol"),
        (["--max-rel-rmse", "nan"], "--max-rel-rmse"),
        (["--layout"], "--layout"),
        (["--no-such-flag"], "--no-such-flag"),
        (["--backend", "cpu", "--variant", "mma"], "--variant"),
    ]
    for args, flag in bad:
        _, err = run_expect(["check"] + args, 2)
        expect(flag in err and "usage:" in err,
               "check %s: stderr must name %s and show usage:\n%s" % (args, flag, err))
    _, err = run_expect(["bench", "--iters", "0"], 2)
    expect("--iters" in err and "usage:" in err, "bench --iters 0:\n" + err)


def case_check_heads():
    """Hq not a multiple of Hkv is refused with a message about the heads."""
    rc, _, err = run(["check", "--backend", "cpu", "--shape", "1,3,2,16,16,64"])
    expect(rc != 0, "check accepted Hq=3, Hkv=2")
    expect("heads" in err and "3" in err and "2" in err, "message does not explain:\n" + err)


def check_json_matches(out, doc, n_expected):
    lines = result_lines(out)
    res = doc["results"]
    expect(len(lines) == len(res) == n_expected,
           "%d stdout lines, %d JSON results, expected %d" % (len(lines), len(res), n_expected))
    for line, r in zip(lines, res):
        expect((line["status"] == "PASS") == r["pass"], "pass flag differs: %s / %s" % (line, r))
        expect(line["rel_rmse"] == "%.4e" % r["rel_rmse"],
               "rel_rmse differs: printed %s, JSON %r" % (line["rel_rmse"], r["rel_rmse"]))
        expect(int(line["seed"]) == r["seed"] and int(line["D"]) == r["head_dim"]
               and int(line["Hkv"]) == r["h_kv"], "shape/seed differ: %s / %s" % (line, r))
    expect(doc["all_pass"] == all(r["pass"] for r in res), "all_pass inconsistent")
    for r in res:
        expect(r["kernel_rel_rmse"] is None and r["lse_max_abs_err"] is None,
               "kernel figures must be null on the CPU backend: %r" % r)


def case_check_json():
    """--json is well-formed correctness.json matching stdout; pass flags follow the gate."""
    args = ["check", "--backend", "cpu", "--shapes", "small", "--shape", "1,2,2,24,40,64",
            "--causal", "--seeds", "0,1,2", "--layout", "bshd", "--out-type", "bf16"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.json")
        out, _ = run_expect(args + ["--json", path], 0)
        doc = json.load(open(path))
        check_json_matches(out, doc, 6)
        expect(doc["backend"] == "cpu" and doc["variant"] is None, "header fields: %r" % doc)
        r = doc["results"][0]
        expect(r["layout"] == "bshd" and r["out_type"] == "bf16" and r["causal"] is True
               and r["lse"] is False and r["descale"] == "head" and r["variant"] == "cpu"
               and r["shape"] == "small" and doc["results"][-1]["shape"] == "custom",
               "fields do not reflect the options: %r" % r)
        # A rel-RMSE gate at the median of the measured values: lines pass exactly when
        # their rel_rmse is at or below it, and the run exits 1.
        gate = sorted(x["rel_rmse"] for x in doc["results"])[2]
        out, _ = run_expect(args + ["--max-rel-rmse", repr(gate), "--json", path], 1)
        doc = json.load(open(path))
        check_json_matches(out, doc, 6)
        expect(all(x["pass"] == (x["rel_rmse"] <= gate) for x in doc["results"]),
               "pass flags do not follow --max-rel-rmse %r" % gate)
        expect(not doc["all_pass"], "all_pass true with failing lines")
        # --out writes build_meta.json and the same correctness.json.
        out_dir = os.path.join(d, "res")
        out, _ = run_expect(args + ["--out", out_dir], 0)
        expect(sorted(os.listdir(out_dir)) == ["build_meta.json", "correctness.json"],
               "--out wrote %s" % os.listdir(out_dir))
        json.load(open(os.path.join(out_dir, "build_meta.json")))
        check_json_matches(out, json.load(open(os.path.join(out_dir, "correctness.json"))), 6)


def case_check_json_paths():
    """--json creates missing parent directories like --out; a path it cannot write is exit 2
    with the flag, the path and the system's reason; --descale is recorded."""
    args = ["check", "--backend", "cpu", "--shape", SMALL_GQA, "--seeds", "0",
            "--descale", "batch-head"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "new", "deeper", "c.json")
        run_expect(args + ["--json=" + path], 0)
        doc = json.load(open(path))
        expect(doc["results"][0]["descale"] == "batch-head", "descale: %r" % doc["results"][0])
        blocker = os.path.join(d, "file")
        open(blocker, "w").close()
        bad = os.path.join(blocker, "c.json")
        _, err = run_expect(args + ["--json", bad], 2)
        expect("fp8attn check: --json %s: cannot create directory '%s': Not a directory"
               % (bad, blocker) in err, "message must name --json, the path and why:\n" + err)
        os.chmod(d, 0o500)
        try:
            if os.access(d, os.W_OK):  # root: permissions do not stop it
                return 0
            bad = os.path.join(d, "c.json")
            _, err = run_expect(args + ["--json", bad], 2)
            expect("fp8attn check: --json %s: cannot write the file: Permission denied" % bad
                   in err, "message must name --json, the path and why:\n" + err)
        finally:
            os.chmod(d, 0o700)
    return 0


def case_check_inputs():
    """--inputs other than normal needs --no-e2e (exit 2 naming both); the results record the
    inputs, and bench takes them (a rising or spiking score pattern runs and is recorded)."""
    _, err = run_expect(["check", "--backend", "cpu", "--shape", SMALL_GQA, "--inputs",
                         "rising"], 2)
    expect("--inputs rising" in err and "--no-e2e" in err, "message must name both:\n" + err)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.json")
        run_expect(["check", "--backend", "cpu", "--shape", SMALL_GQA, "--seeds", "0", "--json",
                    path], 0)
        r = json.load(open(path))["results"][0]
        expect(r["inputs"] == "normal", "inputs: %r" % r)
        for inputs in ("rising", "spike"):
            out_dir = os.path.join(d, inputs)
            run_expect(["bench", "--backend", "cpu", "--shape", SMALL_GQA, "--iters", "1",
                        "--warmup", "0", "--inputs", inputs, "--out", out_dir], 0)
            r = json.load(open(os.path.join(out_dir, "perf.json")))["results"][0]
            expect(r["inputs"] == inputs, "perf.json inputs: %r" % r)


def case_check_gqa_causal():
    """GQA + causal + Sq != Sk + D=128: passes, with an honest (non-zero) FP8 error."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.json")
        out, _ = run_expect(["check", "--backend", "cpu", "--shape", "1,4,2,33,77,128",
                             "--causal", "--seeds", "0,1", "--json", path], 0)
        doc = json.load(open(path))
    expect(len(doc["results"]) == 2, "expected 2 results")
    for r in doc["results"]:
        # E4M3 keeps 3 mantissa bits: quantizing N(0,1) inputs costs a few % of rel RMSE.
        # Below 0.5 % the inputs were not really quantized; above 15 % something is wrong.
        expect(0.005 <= r["rel_rmse"] <= 0.15, "rel_rmse %r outside [0.5%%, 15%%]" % r["rel_rmse"])
        expect(r["max_abs_err"] > 0 and r["mean_abs_err"] > 0, "zero error is not honest: %r" % r)


def visible_pairs(sq, sk, causal):
    if not causal:
        return sq * sk
    return sum(min(max(i + sk - sq + 1, 0), sk) for i in range(sq))


def case_bench_cpu_out():
    """bench on the CPU backend writes build_meta.json and a complete perf.json."""
    shapes = [(1, 2, 1, 48, 80, 64, True), (1, 2, 1, 48, 80, 64, False)]
    fields = ["shape", "B", "h_q", "h_kv", "seqlen_q", "seqlen_k", "head_dim", "causal",
              "layout", "out_type", "lse", "descale", "variant", "backend", "seed", "iters",
              "warmup", "l2_flush", "p50_us", "p90_us", "mean_us", "std_us", "min_us", "max_us",
              "tflops", "gbps"]
    with tempfile.TemporaryDirectory() as d:
        out_dir = os.path.join(d, "res")
        for causal in (True, False):
            args = ["bench", "--backend", "cpu", "--shape", "1,2,1,48,80,64", "--seeds", "3,4",
                    "--iters", "4", "--warmup", "0", "--lse", "--out", out_dir]
            out, _ = run_expect(args + (["--causal"] if causal else []), 0)
            perf = json.load(open(os.path.join(out_dir, "perf.json")))
            json.load(open(os.path.join(out_dir, "build_meta.json")))
            res = perf["results"]
            expect(len(res) == 2 and "pairs" not in perf, "expected 2 results, no pairs")
            for r in res:
                missing = [f for f in fields if f not in r]
                expect(not missing, "perf.json misses %s" % missing)
                expect(r["backend"] == "cpu" and r["variant"] == "cpu" and r["causal"] == causal
                       and r["iters"] == 4 and r["warmup"] == 0 and r["l2_flush"] is False
                       and r["layout"] == "bhsd" and r["out_type"] == "fp16"
                       and r["lse"] is True and r["descale"] == "head",
                       "fields do not reflect the options: %r" % r)
                expect(0 < r["min_us"] <= r["p50_us"] <= r["p90_us"] <= r["max_us"]
                       and r["min_us"] <= r["mean_us"] <= r["max_us"] and r["std_us"] >= 0,
                       "inconsistent statistics: %r" % r)
                flops = 4 * 1 * 2 * 64 * visible_pairs(48, 80, causal)
                byts = 2 * 48 * 64 + 2 * 80 * 64 + 2 * (2 * 48 * 64) + 4 * 2 * 48
                sec = r["p50_us"] * 1e-6
                expect(abs(r["tflops"] - flops / sec / 1e12) <= 1e-9 * r["tflops"],
                       "TFLOPS %r != %r" % (r["tflops"], flops / sec / 1e12))
                expect(abs(r["gbps"] - byts / sec / 1e9) <= 1e-9 * r["gbps"], "GB/s %r" % r)
            expect([r["seed"] for r in res] == [3, 4], "seeds %r" % [r["seed"] for r in res])
            expect(len([l for l in out.splitlines() if l.startswith("custom")]) == 2,
                   "the table has no line per result:\n" + out)
        # Without --out: results/<timestamp>-<label>/ under the working directory.
        run_expect(["bench", "--backend", "cpu", "--shapes", "small", "--label", "t"], 0, cwd=d)
        made = glob.glob(os.path.join(d, "results", "*-t", "perf.json"))
        expect(len(made) == 1, "default results dir not created: %s" % os.listdir(d))
        expect(json.load(open(made[0]))["results"][0]["iters"] == 3, "CPU default iters not 3")


def case_pipeline_cpu():
    """The whole pipeline on real CPU output: bench and check into one directory, then gate it
    against itself. The options are part of the key: a check run with another layout leaves the
    shapes unchecked (exit 1); a bench run with another layout has no shape in common (exit 2)."""
    shapes = ["--shape", SMALL_GQA, "--shape", "1,2,2,32,32,64"]
    gate_args = ["--min-speedup", "0%", "--max-regress", "100%", "--no-resources"]
    with tempfile.TemporaryDirectory() as d:
        res, other = os.path.join(d, "res"), os.path.join(d, "other")
        run_expect(["bench", "--backend", "cpu", "--iters", "2", "--warmup", "0", "--out", res]
                   + shapes, 0)
        run_expect(["check", "--backend", "cpu", "--seeds", "0", "--out", res, "--layout", "bshd"]
                   + shapes, 0)
        out, _ = run_expect(["gate", res, res] + gate_args, 1)
        expect("FAIL correctness" in out and out.count("not checked:") == 2
               and "bhsd fp16 descale=head lse=0 variant cpu" in out,
               "check with --layout bshd must leave both bhsd shapes unchecked:\n" + out)
        run_expect(["check", "--backend", "cpu", "--seeds", "0", "--out", res] + shapes, 0)
        out, _ = run_expect(["gate", res, res] + gate_args, 0)
        expect("PASS correctness  2 of 2 (shape, seed) results passed; 2 of 2 gated shape(s) "
               "checked with CAND's variant on backend cpu" in out, "gate output:\n" + out)
        expect("both measured with backend cpu, l2_flush false" in out, "gate output:\n" + out)
        run_expect(["bench", "--backend", "cpu", "--iters", "2", "--warmup", "0", "--out", other,
                    "--layout", "bshd"] + shapes, 0)
        _, err = run_expect(["gate", res, other] + gate_args, 2)
        expect("no shape in common" in err, "gate bhsd vs bshd:\n" + err)
        out, _ = run_expect(["compare", res, other], 0)
        rows = [l for l in out.splitlines() if l.startswith("B=")]
        expect(len(rows) == 4 and sum(l.endswith("only in BASE") for l in rows) == 2
               and sum(l.endswith("only in CAND") and " bshd " in l for l in rows) == 2
               and "no shape in common" in out,
               "compare bhsd vs bshd must match nothing:\n" + out)


def case_no_gpu():
    """Without a GPU: --backend gpu exits 2 saying so; the default backend falls back to the CPU
    with exactly one line on stderr."""
    if gpu_present():
        print("a CUDA device is present: this case is about machines without one")
        return SKIP
    for cmd in ("check", "bench"):
        _, err = run_expect([cmd, "--backend", "gpu", "--shapes", "small"], 2)
        expect("--backend gpu" in err and "CUDA device" in err, "%s message:\n%s" % (cmd, err))
    out, err = run_expect(["check", "--shapes", "small", "--seeds", "0"], 0)
    lines = err.splitlines()
    expect(len(lines) == 1 and "no GPU found: using the CPU backend" in lines[0],
           "expected one fallback line on stderr, got:\n" + err)
    _, err = run_expect(["bench", "--profile", "--shapes", "small"], 2)
    expect("--profile" in err, "bench --profile without a GPU:\n" + err)
    return 0


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}


def main():
    global BIN
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print("usage: test_cli.py FP8ATTN_BINARY {%s}" % ",".join(CASES), file=sys.stderr)
        return 2
    BIN = sys.argv[1]
    try:
        rc = CASES[sys.argv[2]]()
    except Failure as e:
        print("FAIL:", e)
        return 1
    return rc or 0


if __name__ == "__main__":
    sys.exit(main())
