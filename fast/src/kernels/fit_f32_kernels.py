#!/usr/bin/env python3
"""Regenerates the polynomial constants of the f32 kernels (exp.rs, tanh.rs) with mpmath.

    python3 fast/src/kernels/fit_f32_kernels.py [exp] [small] [table]   # prints Rust constants

Fits are weighted minimax approximations computed by Lawson's algorithm (iteratively reweighted
least squares) on Chebyshev nodes, in 30-digit arithmetic:
- exp.rs C3, C4: (e^r - 1 - r)/r^2 ~ 1/2 + C3 r + C4 r^2 on |r| <= ln2/16, weight r^2 (the error
  of e^r - 1 = r + r^2 (...)).
- tanh.rs P: (tanh a - a)/a^3 ~ P(a^2) on a in (0, 0.5], weight a^3/tanh a (relative error),
  each coefficient rounded to f32 in turn and the higher ones refitted.
- tanh.rs TABLE: for each of the 16 intervals (four per binade of a + 0.5 in [1, 16)), a center c
  (an f32 near the middle whose tanh is within 2^-14 ULP of an f32, C0) and C1..C6 for
  tanh(c + d) ~ C0 + C1 d + ... + C6 d^6, weight 1/ULP(tanh), each coefficient rounded to f32 in
  turn and the higher ones refitted. Rows are printed in slot order (slot = encoding of a + 0.5
  shifted right by 21, modulo 16).
The script reports each fit's error after rounding the coefficients to f32.
"""

import struct
import mpmath as mp

mp.mp.dps = 30


def f32(x):
    return struct.unpack("f", struct.pack("f", float(x)))[0]


def bits(f):
    return struct.unpack("I", struct.pack("f", f))[0]


def from_bits(b):
    return struct.unpack("f", struct.pack("I", b))[0]


def next_f32(f, k):
    """The f32 k steps away from f (positive f)."""
    return from_bits(bits(f) + k)


def rn32(x):
    """x correctly rounded to f32 (checks the neighbours of the f64 rounding)."""
    f = f32(x)
    return min((f, next_f32(f, -1), next_f32(f, 1)), key=lambda c: abs(mp.mpf(c) - x))


def ulp32(v):
    e = mp.floor(mp.log(abs(v), 2))
    return mp.mpf(2) ** (max(e, -126) - 23)


def rust(v):
    """Shortest decimal that reads back as the f32 v, as a Rust literal."""
    for d in range(1, 12):
        s = "%.*g" % (d, v)
        if f32(float(s)) == v:
            return s if ("." in s or "e" in s) else s + ".0"


def lawson(g, w, xs, deg, iters=30):
    """Coefficients (low to high) minimizing max |w(x) (P(x) - g(x))| over xs, and that maximum."""
    n = len(xs)
    lw = [mp.mpf(1) / n] * n
    for _ in range(iters):
        a = mp.matrix(deg + 1, deg + 1)
        b = mp.matrix(deg + 1, 1)
        for x, wx, l in zip(xs, w, lw):
            basis = [x**i for i in range(deg + 1)]
            for i in range(deg + 1):
                b[i] += l * wx * wx * basis[i] * g[x]
                for j in range(deg + 1):
                    a[i, j] += l * wx * wx * basis[i] * basis[j]
        c = mp.lu_solve(a, b)
        errs = [abs(wx * (sum(c[i] * x**i for i in range(deg + 1)) - g[x])) for x, wx in zip(xs, w)]
        total = sum(l * e for l, e in zip(lw, errs))
        lw = [l * e / total for l, e in zip(lw, errs)]
    return [c[i] for i in range(deg + 1)], max(errs)


def chebyshev(lo, hi, n):
    return [lo + (hi - lo) * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / n)) / 2 for i in range(n)]


def fit_exp():
    r_max = mp.log(2) / 16 * mp.mpf("1.0001")
    xs = [x for x in chebyshev(-r_max, r_max, 200) if x != 0]
    g = {x: (mp.exp(x) - 1 - x) / x**2 for x in xs}
    c, _ = lawson(g, [x**2 for x in xs], xs, 2, 40)
    c = [mp.mpf(0.5), mp.mpf(rn32(c[1])), mp.mpf(rn32(c[2]))]
    err = max(abs(x + x**2 * (c[0] + c[1] * x + c[2] * x**2) - mp.exp(x) + 1) for x in xs)
    print("// exp.rs: error of r + r^2 (1/2 + C3 r + C4 r^2): 2^%s" % mp.nstr(mp.log(err, 2), 4))
    print("const C3: f32 = %s;" % rust(float(c[1])))
    print("const C4: f32 = %s;" % rust(float(c[2])))


def fit_tanh_small():
    xs = [a * a for a in chebyshev(mp.mpf(0), mp.mpf(0.5), 150)]
    g0 = {s: (mp.tanh(mp.sqrt(s)) - mp.sqrt(s)) / s ** mp.mpf(1.5) for s in xs}
    w = [s ** mp.mpf(1.5) / mp.tanh(mp.sqrt(s)) for s in xs]
    c = []
    for j in range(5):  # round each coefficient in turn and refit the higher ones
        g = {s: (g0[s] - sum(c[i] * s**i for i in range(j))) / s**j for s in xs}
        coef, _ = lawson(g, [wx * s**j for wx, s in zip(w, xs)], xs, 4 - j, 40)
        c.append(mp.mpf(rn32(coef[0])))
    err = max(wx * abs(sum(c[i] * s**i for i in range(5)) - g0[s]) for s, wx in zip(xs, w))
    print("// tanh.rs: relative error of a + a^3 P(a^2) on [0, 0.5]: 2^%s" % mp.nstr(mp.log(err, 2), 4))
    print("const P: [f32; 5] = [%s];" % ", ".join(rust(float(v)) for v in c))


def gal_center(s, w):
    """An f32 c in [s, s + w), near the middle, with tanh(c) within 2^-14 ULP of an f32."""
    mid = f32(s + w / 2)
    thr = mp.mpf(2) ** -14
    best = (mp.inf, mid)
    for k in range(20000):
        for c in (next_f32(mid, k), next_f32(mid, -k)) if k else (mid,):
            t = mp.tanh(c)
            best = min(best, (abs(t - rn32(t)) / ulp32(t), c))
        if best[0] < thr:
            return best
    # Where tanh is flat, step through the f32 values near tanh(mid) instead.
    y0 = rn32(mp.tanh(mid))
    for j in range(2000):
        for y in (next_f32(y0, j), next_f32(y0, -j)):
            if y < 1.0:
                c = rn32(mp.atanh(y))
                if s <= c < s + w:
                    t = mp.tanh(c)
                    best = min(best, (abs(t - rn32(t)) / ulp32(t), c))
        if best[0] < thr:
            break
    return best


def fit_tanh_table(deg=6):
    rows = []
    for e in range(4):
        w = mp.mpf(2) ** e / 4
        for q in range(4):
            s = mp.mpf(2) ** e + q * w - mp.mpf(0.5)
            if s > 10:  # beyond the clamp: tanh = 1
                rows.append((f32(s + w / 2), 1.0, [0.0] * deg))
                continue
            gal, c = gal_center(s, w)
            c0 = rn32(mp.tanh(c))
            ds = chebyshev(mp.mpf(s) - c, mp.mpf(s) + w - c, 50)
            wt = [1 / ulp32(mp.tanh(c + d)) for d in ds]
            fixed = []
            for j in range(1, deg + 1):
                g = {}
                for d in ds:
                    v = mp.tanh(c + d) - c0 - sum(fixed[i] * d ** (i + 1) for i in range(len(fixed)))
                    g[d] = v / d**j
                coef, _ = lawson(g, [wx * abs(d) ** j for wx, d in zip(wt, ds)], ds, deg - j, 25)
                fixed.append(rn32(coef[0]))
            err = max(
                wx * abs(mp.tanh(c + d) - c0 - sum(fixed[i] * d ** (i + 1) for i in range(deg)))
                for d, wx in zip(ds, wt)
            )
            print("// tanh.rs interval [%s, %s): center %r, tanh(center) off an f32 by %s ULP, "
                  "error %s ULP" % (mp.nstr(s, 4), mp.nstr(s + w, 4), c, mp.nstr(gal, 3), mp.nstr(err, 3)))
            rows.append((c, c0, fixed))
    # Interval i (in order of a) sits in slot (i + 12) mod 16.
    slots = rows[4:] + rows[:4]
    print("const TABLE: [[f32; 16]; 8] = [")
    print("    [%s]," % ", ".join(rust(r[0]) for r in slots))
    print("    [%s]," % ", ".join(rust(r[1]) for r in slots))
    for j in range(deg):
        print("    [%s]," % ", ".join(rust(r[2][j]) for r in slots))
    print("];")


if __name__ == "__main__":
    import sys

    parts = sys.argv[1:] or ["exp", "small", "table"]
    if "exp" in parts:
        fit_exp()
    if "small" in parts:
        fit_tanh_small()
    if "table" in parts:
        fit_tanh_table()
