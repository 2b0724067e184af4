#!/usr/bin/python3
"""Reference values for src/stats, computed with scipy/numpy (an implementation we do not own).

    /usr/bin/python3 tests/stats/reference.py --out tests/stats/reference.json   # (re)write
    /usr/bin/python3 tests/stats/reference.py --check tests/stats/reference.json # compare

tests/unit/test_stats.c reads the JSON and compares the C results with it; the CTest test
tests/integration/test_stats_scipy.sh runs --check so the committed numbers must still be what
scipy says. Inputs are in the JSON, so C and Python see the same doubles.

How each expected value is obtained (docs/STATISTICS.md has the definitions):
- describe: numpy mean, median, min, max, percentile(90) (default 'linear'), std(ddof=1).
- Wilcoxon test: scipy.stats.wilcoxon(d, zero_method=zm, correction=False, method=M) with M
  'exact' iff n <= 50 and no zero and no tie among nonzero |d|, else 'approx' (passed explicitly:
  scipy 1.10's 'auto' would use 'exact' with ties too). statistic and p-value from the two-sided
  call; W+ and the signed z from the alternative='greater' call (whose statistic is r_plus).
- Hodges-Lehmann: numpy.median of (d_i + d_j)/2 over i <= j (numpy.triu_indices).
- Interval: sorted Walsh averages A, M = n(n+1)/2, lo = A[k-1], hi = A[M-k]. Exact (n <= 50, no
  two equal d): scipy's own exact null pmf of W+ (scipy.stats._hypotests._get_wilcoxon_distr, the
  array scipy.stats.wilcoxon sums for its exact p-value); k = 1 + largest c with cumsum(pmf)[c]
  <= alpha/2 (k = 1 if none). Normal: k = floor(mu - norm.ppf(1 - alpha/2) sigma) + 1, mu =
  n(n+1)/4, sigma^2 = (n(n+1)(2n+1) - sum over groups of equal d of (t^3 - t)/2) / 24.
  Independently of that formula the interval is also checked by inverting scipy.stats.wilcoxon
  itself: at the midpoint just outside each bound the test rejects at alpha, just inside it
  does not (skipped for an outside bound when the exact level cannot be reached).
- Sign test: scipy.stats.binomtest(n_pos, n_pos + n_neg, 0.5).pvalue.
- MDE: (norm.ppf(1 - alpha/2) + norm.ppf(power)) * std(d, ddof=1) / sqrt(n), and that times
  sqrt(pi/3).
- Normal quantile / CDF: scipy.stats.norm.ppf / norm.cdf at fixed points.
- RNG: a Python re-implementation of splitmix64 / xoshiro256** / rejection bound / Fisher-Yates
  (not scipy; it pins the C generator's output so a recorded seed replays the same order).
"""
import argparse
import json
import math
import random
import sys

import numpy as np
import scipy
from scipy import stats

ALPHA = 0.05
POWER = 0.80
CONF = 0.95
EXACT_MAX_N = 50


def scipy_signrank_pmf(n):
    """scipy's exact null distribution of W+ (private, so look in the places it has lived)."""
    for mod in ("scipy.stats._hypotests", "scipy.stats._morestats", "scipy.stats._wilcoxon"):
        try:
            m = __import__(mod, fromlist=["_get_wilcoxon_distr"])
            return np.asarray(m._get_wilcoxon_distr(n), dtype=float)
        except (ImportError, AttributeError):
            continue
    raise RuntimeError("scipy %s: no _get_wilcoxon_distr found" % scipy.__version__)


# ---- data sets: deterministic from random.Random(seed).random() (stable across Python versions)


def normals(rng, n):
    out = []
    while len(out) < n:  # Box-Muller
        u1, u2 = rng.random(), rng.random()
        r = math.sqrt(-2.0 * math.log(1.0 - u1))
        out += [r * math.cos(2 * math.pi * u2), r * math.sin(2 * math.pi * u2)]
    return out[:n]


def exponentials(rng, n):
    return [-math.log(1.0 - rng.random()) for _ in range(n)]


def grid(v, step):
    """Round to a multiple of step; with step a power of two the differences are exact too."""
    if step is None:
        return list(v)
    return [round(a / step) * step for a in v]


def datasets():
    sets = []

    def add(name, note, x, y):
        sets.append({"name": name, "note": note, "x": [float(a) for a in x],
                     "y": [float(b) for b in y]})

    def shifted(seed, n, base, noise, shift, step):
        r = random.Random(seed)
        y = [base + noise * z for z in normals(r, n)]
        x = [b + shift + noise * z for b, z in zip(y, normals(r, n))]
        return grid(x, step), grid(y, step)

    add("n5_exact", "n = 5: the exact 95% level is unreachable (achieved 93.75%)",
        *shifted(1, 5, 10.0, 0.4, 1.5, 0.001))
    add("n20_exact_positive", "n = 20, no ties, shift +1.8",
        *shifted(2, 20, 12.0, 0.6, 1.8, 0.001))
    add("n20_exact_negative", "n = 20, no ties, shift -0.7",
        *shifted(3, 20, 12.0, 0.6, -0.7, 0.001))
    add("n20_ties", "n = 20 on a 0.25 grid: ties in d and |d| -> normal test and interval",
        *shifted(4, 20, 12.0, 0.6, 0.5, 0.25))
    x, y = shifted(5, 20, 12.0, 0.6, 0.4, 0.125)
    for i in (2, 7, 11, 16):
        x[i] = y[i]
    add("n20_zeros", "n = 20 with 4 zero differences and ties: wilcox vs pratt", x, y)
    x, y = shifted(6, 8, 3.0, 0.5, 0.25, 0.25)
    x[1], x[5] = y[1], y[5]
    add("n8_zeros_ties", "n = 8, zeros and ties: normal approximation on a small sample", x, y)
    r = random.Random(7)
    y = [2.0 + e for e in exponentials(r, 12)]
    mags = [0.25, 0.25, 0.5, 0.5, 0.75, 1.0, 1.25, 1.25, 1.5, 2.0, 2.5, 3.0]
    signs = [1, -1, 1, -1, 1, 1, 1, -1, 1, 1, 1, 1]
    y = grid(y, 0.25)
    add("n12_mirror_ties", "|d| tied, d not: normal test, exact interval",
        [b + s * m for b, s, m in zip(y, signs, mags)], y)
    add("n30_all_positive", "every difference positive: exact p = 2^-29",
        *shifted(8, 30, 5.0, 0.1, 3.0, 0.001))
    add("n50_exact_edge", "n = 50, unrounded: last n with the exact distribution",
        *shifted(9, 50, 20.0, 1.0, 0.3, None))
    add("n51_normal_edge", "n = 51, unrounded: first n with the normal approximation",
        *shifted(10, 51, 20.0, 1.0, 0.3, None))
    r = random.Random(11)
    y = [3.0 + 0.5 * math.exp(0.8 * z) for z in normals(r, 200)]
    x = [b * 1.04 + 0.3 * e - 0.3 for b, e in zip(y, exponentials(r, 200))]
    add("n200_skewed", "n = 200, log-normal times, multiplicative cost, 1 us grid",
        grid(x, 0.001), grid(y, 0.001))
    r = random.Random(12)
    y = [3.0 + e for e in exponentials(r, 200)]
    x = [3.0 + e for e in exponentials(r, 200)]
    add("n200_null", "n = 200, no effect", grid(x, 0.001), grid(y, 0.001))
    r = random.Random(13)
    y = [40.0 + 4.0 * e for e in exponentials(r, 100)]
    x = [b - 2.5 + 3.0 * z for b, z in zip(y, normals(r, 100))]
    add("n100_negative_skewed", "n = 100, skewed, the profile is faster",
        grid(x, 0.01), grid(y, 0.01))
    add("n1000_heavy_ties", "n = 1000 on a 1/16 grid: heavy ties, tiny p",
        *shifted(14, 1000, 8.0, 0.5, 0.2, 0.0625))
    return sets


# ---- expected values


def describe(v):
    v = np.asarray(v, dtype=float)
    return {"mean": float(np.mean(v)), "median": float(np.median(v)), "min": float(np.min(v)),
            "max": float(np.max(v)), "p90": float(np.percentile(v, 90)),
            "sd": float(np.std(v, ddof=1))}


def wilcoxon_expected(d, zero_method):
    nz = d[d != 0]
    ties = len(np.unique(np.abs(nz))) < len(nz)
    exact = len(d) <= EXACT_MAX_N and len(nz) == len(d) and not ties
    method = "exact" if exact else "approx"
    two = stats.wilcoxon(d, zero_method=zero_method, correction=False, method=method)
    one = stats.wilcoxon(d, zero_method=zero_method, correction=False, method=method,
                         alternative="greater")
    return {"method": "exact" if exact else "normal", "ties": bool(ties),
            "n_zero": int(len(d) - len(nz)), "statistic": float(two.statistic),
            "w_plus": float(one.statistic), "p_value": float(two.pvalue),
            "z": float(one.zstatistic) if not exact else None}


def ci_expected(d, conf):
    n = len(d)
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2.0)
    m = len(walsh)
    alpha = 1.0 - conf
    _, counts = np.unique(d, return_counts=True)
    ties = bool(np.any(counts > 1))
    if n <= EXACT_MAX_N and not ties:
        method = "exact"
        cdf = np.cumsum(scipy_signrank_pmf(n))
        below = np.nonzero(cdf <= alpha / 2.0)[0]
        k = int(below[-1]) + 1 if len(below) else 1
        achieved = 1.0 - 2.0 * float(cdf[k - 1])  # P(W+ <= k-1)
    else:
        method = "normal"
        mu = n * (n + 1) / 4.0
        sigma = math.sqrt((n * (n + 1) * (2 * n + 1) - 0.5 * float(np.sum(counts**3 - counts)))
                          / 24.0)
        c = math.floor(mu - stats.norm.ppf(1.0 - alpha / 2.0) * sigma)
        k = max(c + 1, 1)
        achieved = 1.0 - 2.0 * float(stats.norm.cdf((k - 1 - mu) / sigma))
    out = {"method": method, "ties": ties, "n_walsh": m, "k": k,
           "estimate": float(np.median(walsh)), "lo": float(walsh[k - 1]),
           "hi": float(walsh[m - k]), "conf_achieved": achieved}
    check_inversion(d, walsh, k, method, alpha, achieved >= conf)
    return out


def check_inversion(d, walsh, k, method, alpha, level_reached):
    """The interval must be the set of shifts scipy's own test does not reject."""
    m = len(walsh)
    scipy_method = "exact" if method == "exact" else "approx"

    def p_at(mu):
        return stats.wilcoxon(d - mu, correction=False, method=scipy_method).pvalue

    def mid(a, b):
        # Not the midpoint: there d_i - mu and mu - d_j can round to the same double and make a
        # tie that exists only in floating point (seen on n200_null).
        if not b - a > 1e-9 * max(abs(a), abs(b), 1.0):
            # Equal Walsh averages (or equal but for rounding of decimal data): no shift lies
            # strictly between them.
            return None
        return a + (b - a) / 3.0

    probes = []  # (shift, should_reject)
    if k >= 2:
        probes.append((mid(walsh[k - 2], walsh[k - 1]), True))
        probes.append((mid(walsh[m - k], walsh[m - k + 1]), True))
    elif level_reached:
        probes.append((walsh[0] - 1.0, True))
        probes.append((walsh[-1] + 1.0, True))
    if k < m // 2:
        probes.append((mid(walsh[k - 1], walsh[k]), False))
        probes.append((mid(walsh[m - k - 1], walsh[m - k]), False))
    for mu, reject in probes:
        if mu is None:
            continue
        p = p_at(mu)
        if (p <= alpha) != reject:
            raise AssertionError("interval does not invert scipy's test: mu=%r p=%r (%s)"
                                 % (mu, p, "should reject" if reject else "should keep"))


def expected(ds):
    x = np.asarray(ds["x"], dtype=float)
    y = np.asarray(ds["y"], dtype=float)
    d = x - y
    n = len(d)
    npos, nneg = int(np.sum(d > 0)), int(np.sum(d < 0))
    z = stats.norm.ppf(1.0 - ALPHA / 2.0) + stats.norm.ppf(POWER)
    sd = float(np.std(d, ddof=1))
    return {
        "describe_x": describe(x), "describe_y": describe(y), "describe_d": describe(d),
        "ci": ci_expected(d, CONF),
        "wilcoxon": {zm: wilcoxon_expected(d, zm) for zm in ("wilcox", "pratt")},
        "sign": {"n_pos": npos, "n_neg": nneg,
                 "p_value": float(stats.binomtest(npos, npos + nneg, 0.5).pvalue)},
        "mde": {"sd": sd, "paired_t": float(z * sd / math.sqrt(n)),
                "wilcoxon": float(z * sd / math.sqrt(n) * math.sqrt(math.pi / 3.0))},
    }


# ---- generator known answers (a re-implementation, not scipy)

MASK = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


class Xoshiro:
    def __init__(self, seed):
        self.s = []
        st = seed
        for _ in range(4):
            st, v = splitmix64(st)
            self.s.append(v)

    def next(self):
        s = self.s
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & MASK
        result = (rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def below(self, bound):
        threshold = (1 << 64) % bound
        while True:
            r = self.next()
            if r >= threshold:
                return r % bound

    def shuffle(self, v):
        for i in range(len(v), 1, -1):
            j = self.below(i)
            v[i - 1], v[j] = v[j], v[i - 1]
        return v


def rng_expected():
    out = []
    for seed in (0, 1, 0x123456789ABCDEF, MASK):
        g = Xoshiro(seed)
        nexts = ["%016x" % g.next() for _ in range(5)]
        shuffle = g.shuffle(list(range(10)))
        st, sm = 0, []
        st_seed = seed
        for _ in range(3):
            st_seed, v = splitmix64(st_seed)
            sm.append("%016x" % v)
        out.append({"seed": "%016x" % seed, "splitmix64": sm, "next": nexts,
                    "shuffle_after_next": shuffle})
    return out


def build():
    sets = datasets()
    for ds in sets:
        ds["expected"] = expected(ds)
    ps = [1e-300, 1e-20, 1e-9, 1e-4, 0.0125, 0.025, 0.2, 0.5, 0.8, 0.975, 0.999, 1.0 - 1e-12]
    zs = [-38.0, -20.0, -8.0, -3.0, -1.959963984540054, -0.5, 0.0, 0.7, 2.5, 6.0]
    return {
        "generator": {"scipy": scipy.__version__, "numpy": np.__version__,
                      "script": "tests/stats/reference.py"},
        "params": {"alpha": ALPHA, "power": POWER, "conf": CONF, "exact_max_n": EXACT_MAX_N},
        "norm_ppf": [[p, float(stats.norm.ppf(p))] for p in ps],
        "norm_cdf": [[z, float(stats.norm.cdf(z))] for z in zs],
        "rng": rng_expected(),
        "datasets": sets,
    }


# ---- comparison of a regenerated reference with the committed one


def compare(a, b, path, rel, problems):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k == "generator":
                continue
            if k not in a or k not in b:
                problems.append("%s.%s: only in one file" % (path, k))
            else:
                compare(a[k], b[k], "%s.%s" % (path, k), rel, problems)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append("%s: length %d vs %d" % (path, len(a), len(b)))
        for i, (u, v) in enumerate(zip(a, b)):
            compare(u, v, "%s[%d]" % (path, i), rel, problems)
    elif isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) \
                or abs(a - b) > rel * max(abs(a), abs(b)):
            problems.append("%s: %r vs %r" % (path, a, b))
    elif a != b:
        problems.append("%s: %r vs %r" % (path, a, b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", help="write the reference computed now to this file")
    ap.add_argument("--check", help="compare the reference computed now with this file")
    ap.add_argument("--rel", type=float, default=1e-12,
                    help="relative tolerance for --check (scipy version drift)")
    args = ap.parse_args()
    if not args.out and not args.check:
        ap.error("give --out, --check or both")
    ref = build()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(ref, f, indent=1)
            f.write("\n")
    if not args.check:
        return 0
    with open(args.check) as f:
        committed = json.load(f)
    problems = []
    compare(committed, ref, "$", args.rel, problems)
    for p in problems[:50]:
        print("MISMATCH " + p)
    print("%s: %d mismatches against scipy %s, numpy %s" % (
        args.check, len(problems), scipy.__version__, np.__version__))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
