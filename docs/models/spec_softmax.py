"""CPU model of one row's online softmax with P rounded to E4M3 (docs/PERF.md w25).

Compares the usual softmax (softmax_tile: the tile's max first, P <= 2^8) with the speculative
one (softmax_pack_spec: P against the running max, rescaled afterwards) under two rules:
  spec448  a row whose P exceeds 448 is scaled by a power of two that puts its largest P in
           [224, 448] (commit 12c9af9)
  spec256  a row whose P exceeds 2^8 is scaled so that its largest P is 2^8 (the kernel now)
Scores are in log2 units. Prints the rel RMSE of O against the exact softmax, the worst LSE
error, and how often S had to be recomputed (an overflowed P). Run: python3 spec_softmax.py
(numpy).
"""
import math

import numpy as np

P_LOG2 = 8


def e4m3(x):
    """Rounds non-negative x to E4M3 (3 mantissa bits, subnormals below 2^-6, largest 448)."""
    e = np.maximum(np.floor(np.log2(np.where(x > 0, x, 1.0))), -6)
    q = np.round(x / 2.0 ** (e - 3)) * 2.0 ** (e - 3)
    return np.minimum(np.where(x > 0, q, 0.0), 448.0)


def online(x, v, bn, mode):
    """mode: 'usual', or 'spec' with rescaling above 448 ('spec448') or above 2^8 ('spec256')."""
    m, l, o, redos = -math.inf, 0.0, np.zeros(v.shape[1]), 0
    for j in range(0, len(x), bn):
        xs, vs = x[j:j + bn], v[j:j + bn]
        mref = 0.0 if m == -math.inf else m
        with np.errstate(over="ignore"):
            p = np.exp2(np.float32(xs - mref + P_LOG2))
        if mode == "usual" or j == 0 or math.isinf(float(p.max())):
            redos += mode != "usual" and j > 0
            mn = max(m, float(xs.max()))
            alpha = 2.0 ** (m - mn) if m > -math.inf else 0.0
            p, m = np.exp2(xs - mn + P_LOG2), mn
        else:
            pmax = float(p.max())
            if mode == "spec448":  # k = e - 8, or e - 7 where the mantissa exceeds 1.75
                e = math.floor(math.log2(pmax)) if pmax > 448 else 0
                t = e - 8 + (pmax / 2.0 ** e > 1.75) if pmax > 448 else 0
            else:
                t = math.log2(pmax) - P_LOG2 if pmax > 2.0 ** P_LOG2 else 0.0
            alpha = 2.0 ** -t
            m = mref + t
            p = p * alpha
        l = l * alpha + float(p.sum())
        o = o * alpha + e4m3(p) @ vs
    return o / l, m + math.log2(l) - P_LOG2, redos


def main():
    rng = np.random.default_rng(1)
    for case in ("normal", "rising", "spike"):
        err, lse, redos = {}, {}, {}
        for _ in range(30):
            n, bn, d = 2048, 192, 64
            x = rng.standard_normal(n) * math.log2(math.e)
            if case == "rising":
                x += np.arange(n) / n * 10 * math.log2(math.e)
            if case == "spike":
                x[3 * n // 4] += 200 * math.log2(math.e)
            v = rng.standard_normal((n, d))
            w = np.exp2(x - x.max())
            o_ref, lse_ref = (w @ v) / w.sum(), float(x.max()) + math.log2(w.sum())
            for mode in ("usual", "spec448", "spec256"):
                o, ls, r = online(x, v, bn, mode)
                err.setdefault(mode, []).append(np.sum((o - o_ref) ** 2) / np.sum(o_ref ** 2))
                lse[mode] = max(lse.get(mode, 0.0), abs(ls - lse_ref))
                redos[mode] = redos.get(mode, 0) + r
        print(case, "  ".join("%s rel_rmse %.4f lse_err %.1e redos %d"
                              % (k, math.sqrt(np.mean(e)), lse[k], redos[k]) for k, e in err.items()))


if __name__ == "__main__":
    main()
