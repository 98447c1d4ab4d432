"""Model of the wgmma scheduler's load balance (src/kernels/wgmma/scheduler.cuh; docs/PERF.md w34).

Each persistent block i takes work units i, i + G, i + 2G, ... (G = min(units, SMs)). A query
tile costs its key tiles plus a fixed boundary cost c0 (in key tiles); under a causal mask
(bottom-right; seqlen_k = seqlen_q unless sk is given) the key tiles grow with the tile's index, so causal
problems of two waves or more pair tile n-1-i with tile i. The time of a problem is that of its
busiest block; the ideal spreads the total evenly. Prints, per shape, the modelled efficiency
(ideal / busiest) of four schedules and each one's speed-up over the first:
  old      pairs head by head, each head's lone middle tile (odd n_q) after its pairs, tiles
           counted from row 0 (before w34)
  last     the lone middle tiles of all heads after all the pairs
  last+off the same, and tiles counted from the last row up (q_off: the partial tile first)
  split    last+off, and the middle pairs of each head that sched_plan.cu splits into single
           tiles (run after all the pairs, longest first across heads): the best of up to 12,
           with at most two rounds of single tiles, searched only up to 16 rounds of units, and
           only where it takes at least 2 % off the busiest block;
           kp = the pairs a head keeps (tests/test_wgmma_sched.c checks sched_plan.cu against it)
  snake    no pairs: every tile a unit, longest first across heads (tiles counted from the last
           row up), block i taking the i-th of each round of G units in even rounds and the
           (G-1-i)-th in odd full rounds (scheduler.cuh snake_unit; docs/PERF.md w37, w38: it
           ignores L2, and measured -8 to -12.5 % at (8,16,2048,128) causal where it predicts 0)
  walk     the walk sched_plan.cu picks (fp8attn_wgmma_causal_walk): snake where its busiest block
           carries at least 2 % less than split's, every head has two blocks in a round
           (2 B H <= SMs), there are at most 32 rounds of tiles and at most 1024 SMs; else split
           (docs/PERF.md w38;
           tests/test_wgmma_sched.c checks sched_plan.cu against it)
Within 0.5 % of the bench on the H100 at (8,32,2048,64) causal: predicted 1.085 / 1.136,
measured 1.071-1.088 / 1.120-1.136. Run: python3 sched_balance.py [SMS] (default 132).
"""
import math
import sys


def key_tiles(s, bm, bn, causal, off, sk=None):
    """Key tiles of each query tile (rows q0 .. q0 + bm - 1, q0 = k * bm - off) of s queries and
    sk keys (default s); causal is bottom-right: query i sees keys j <= i + sk - s."""
    sk = s if sk is None else sk
    n = math.ceil(s / bm)
    if not causal:
        return [math.ceil(sk / bn)] * n
    return [max(0, math.ceil(min(sk, k * bm - off + bm + sk - s) / bn)) for k in range(n)]


def units(s, bm, bn, heads, causal, schedule, sms, c0, split=0, sk=None):
    shifted = causal and schedule in ("last+off", "split")
    off = (math.ceil(s / bm) * bm - s) // 16 * 16 if shifted else 0
    nk = [t + c0 for t in key_tiles(s, bm, bn, causal, off, sk)]
    n = len(nk)
    if not (causal and n > 1 and n * heads >= 2 * sms):  # kernel.cuh: when tiles are paired
        return [nk[n - 1 - k] for _ in range(heads) for k in range(n)]
    kp = n // 2 - split
    pairs, single = [], []
    for _ in range(heads):
        for i in range(kp):
            pairs.append(nk[n - 1 - i] + nk[i])
        if schedule == "old" and n % 2:
            pairs.append(nk[n // 2])
    if schedule != "old":
        single = [nk[qt] for qt in range(n - 1 - kp, kp - 1, -1) for _ in range(heads)]
    return pairs + single


def split_search(b, h, s, bm, bn, sms=132, c0=0.5, sk=None):
    """sched_plan.cu's choice: the split with the least busiest block (ties: fewer split)."""
    n, heads = math.ceil(s / bm), b * h
    if heads * (n - n // 2) > 16 * sms:
        return 0
    none = efficiency(b, h, s, bm, bn, True, "split", sms, c0, 0, sk)[0]
    best = (none, 0)
    for m in range(1, min(12, n // 2) + 1):
        if heads * (n - 2 * (n // 2 - m)) > 2 * sms:
            break
        best = min(best, (efficiency(b, h, s, bm, bn, True, "split", sms, c0, m, sk)[0], m))
    return best[1] if best[0] <= 0.98 * none else 0  # at least 2 % less


def walk_rule(b, h, s, bm, bn, sms=132, sk=None):
    """sched_plan.cu's walk for a causal problem: "snake" or "pairs" (with split_search's split);
    "tiles" where no pairs would run."""
    n, heads = math.ceil(s / bm), b * h
    if not (n > 1 and n * heads >= 2 * sms):
        return "tiles"
    if not (2 * heads <= sms and heads * n <= 32 * sms and sms <= 1024):
        return "pairs"
    m = split_search(b, h, s, bm, bn, sms, sk=sk)
    pairs = efficiency(b, h, s, bm, bn, True, "split", sms, split=m, sk=sk)[0]
    snake = efficiency(b, h, s, bm, bn, True, "snake", sms, sk=sk)[0]
    return "snake" if snake <= 0.98 * pairs else "pairs"


def efficiency(b, h, s, bm, bn, causal, schedule, sms=132, c0=0.5, split=0, sk=None):
    n = math.ceil(s / bm)
    if schedule == "snake" and causal and n > 1 and n * b * h >= 2 * sms:  # where pairs would run
        off = (n * bm - s) // 16 * 16
        nk = [t + c0 for t in key_tiles(s, bm, bn, causal, off, sk)]
        u = [nk[qt] for qt in range(n - 1, -1, -1) for _ in range(b * h)]
    else:
        u = units(s, bm, bn, b * h, causal, schedule, sms, c0, split, sk)
    g = min(len(u), sms)
    block = [0.0] * g
    for i, c in enumerate(u):
        r, col = divmod(i, g)
        reverse = (schedule == "snake" and causal and n > 1 and n * b * h >= 2 * sms
                   and r % 2 == 1 and (r + 1) * g <= len(u))
        block[g - 1 - col if reverse else col] += c
    return max(block), sum(u) / sms


# (name, B, H, S, BM, BN, causal): the kernels the default dispatch runs on FA3's grid
SHAPES = [
    ("hd64 2k c (n160)", 8, 32, 2048, 192, 160, True),
    ("hd64 8k c", 2, 32, 8192, 192, 128, True),
    ("hd64 16k c", 1, 32, 16384, 192, 128, True),
    ("hd64 512 c (m128)", 32, 32, 512, 128, 128, True),
    ("hd128 2k c", 8, 16, 2048, 128, 192, True),
    ("hd128 8k c (n224)", 2, 16, 8192, 128, 224, True),
    ("hd256 2k c", 8, 8, 2048, 128, 128, True),
    ("hd64 2k", 8, 32, 2048, 192, 128, False),
    ("hd128 16k (n224)", 1, 16, 16384, 128, 224, False),
    ("hd256 512", 32, 8, 512, 128, 128, False),
    ("hd256 2k", 8, 8, 2048, 128, 128, False),
    ("hd64 3000 c (n160)", 4, 32, 3000, 192, 160, True),
    ("hd64 8k c, B=1", 1, 32, 8192, 192, 128, True),
    ("hd128 16k c (n224)", 1, 16, 16384, 128, 224, True),
    ("odd: 3,7,5000,128 c", 3, 7, 5000, 128, 192, True),
    ("hd256 8k c", 2, 8, 8192, 128, 128, True),
    ("hd128 4k c", 4, 16, 4096, 128, 192, True),
    ("hd64 8k c, 48 heads", 1, 48, 8192, 192, 128, True),
    ("hd128 1k c", 16, 16, 1024, 128, 192, True),
    ("hd128 512 c", 32, 16, 512, 128, 192, True),
]

if __name__ == "__main__":
    sms = int(sys.argv[1]) if len(sys.argv) > 1 else 132
    names = ("old", "last", "last+off", "split", "snake")
    print(f"{'shape':20s} {'n_q':>4s}  " + "  ".join(f"{s:>19s}" for s in names) + "  kp  walk")
    for name, b, h, s, bm, bn, causal in SHAPES:
        base = None
        cols = []
        m = split_search(b, h, s, bm, bn, sms) if causal else 0
        for schedule in names:
            busiest, ideal = efficiency(b, h, s, bm, bn, causal, schedule, sms,
                                        split=m if schedule == "split" else 0)
            base = base or busiest
            cols.append(f"{ideal / busiest:.3f} (x{base / busiest:.3f})")
        n = math.ceil(s / bm)
        walk = walk_rule(b, h, s, bm, bn, sms) if causal else "tiles"
        print(f"{name:20s} {n:4d}  " + "  ".join(f"{c:>19s}" for c in cols)
              + f"  {n // 2 - m:2d}  {walk}")
