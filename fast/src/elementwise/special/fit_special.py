#!/usr/bin/env python3
"""Regenerates the polynomial constants of the special functions (digamma.rs, erf_inv.rs,
bessel.rs, zeta.rs) with mpmath.

    python3 fast/src/elementwise/special/fit_special.py   # prints Rust constants

Each piece is a Chebyshev interpolant of the target on its interval, in 40-digit arithmetic,
written as a polynomial in u = x - c (c the interval's centre) whose coefficients are then
rounded to f64 (highest degree first, for Horner's rule). The degree is the smallest whose
interpolant is within 2^-60 (relative) of the target on 300 points of the interval, so the
coefficient rounding (about 2^-54 relative, from the constant term) and the f64 evaluation
dominate the error. The script prints, for each piece, the measured error of the f64-rounded
polynomial evaluated exactly.
"""

import mpmath as mp

mp.mp.dps = 40
TARGET = mp.mpf(2) ** -60


def horner(cf, u):
    p = mp.mpf(0)
    for k in cf:
        p = p * u + k
    return p


def fit(name, f, a, b, c, points=300):
    """Coefficients of P(u) = c0 + u Q(u) ~ f(c + u) on [a, b]: Q (highest degree first, rounded
    to f64) followed by c0 as a double-double (hi, lo). Q interpolates (f(c + u) - c0)/u, so the
    rounding of c0 costs nothing (its low part is added in the final step of the evaluation)."""
    a, b, c = mp.mpf(a), mp.mpf(b), mp.mpf(c)
    c0 = f(c)
    fd = mp.diff(f, c)

    def g(u):
        return fd if u == 0 else (f(c + u) - c0) / u

    xs = [a + (b - a) * mp.mpf(i) / (points - 1) for i in range(points)]
    fx = [f(x) for x in xs]
    for deg in range(2, 40):
        cf = mp.chebyfit(g, [a - c, b - c], deg + 1)
        err = max(abs(c0 + (x - c) * horner(cf, x - c) - y) / abs(y) for x, y in zip(xs, fx))
        if err < TARGET:
            break
    q = [float(k) for k in cf]
    hi, lo = dd(c0)
    err64 = max(abs(mp.mpf(hi) + mp.mpf(lo) + (x - c) * horner(q, x - c) - y) / abs(y) for x, y in zip(xs, fx))
    print(f"// {name}: degree {deg + 1} on [{float(a)}, {float(b)}] about {float(c)};\n"
          f"//   interpolation error {float(err):.2e}, with f64 coefficients {float(err64):.2e} "
          "(relative)")
    return q + [hi, lo]


def emit(name, coeffs, doc=None):
    """A constant array: Q's coefficients, then c0's high and low parts (see `fit`)."""
    if doc:
        for line in doc.strip().splitlines():
            print(f"/// {line.strip()}")
    print(f"const {name}: [f64; {len(coeffs)}] = [")
    for k in coeffs:
        print(f"    {k!r},")
    print("];")
    print()


def dd(x):
    hi = float(x)
    lo = float(x - mp.mpf(hi))
    return hi, lo


def digamma():
    print("// ---- digamma.rs ----")
    x0 = mp.findroot(mp.digamma, mp.mpf("1.46"))
    t0 = x0 - 1
    print(f"// positive root x0 = {mp.nstr(x0, 30)}; t0 = x0 - 1 as a double-double: {dd(t0)}")
    g = lambda t: mp.digamma(1 + t) / (t - t0)
    emit("ROOT_FACTOR", fit("psi(1+t)/(t - t0)", g, 0, 1, 0.5))
    emit("PSI_2_3", fit("psi(2+t)", lambda t: mp.digamma(2 + t), 0, 1, 0.5))
    k = [mp.bernoulli(2 * j) / (2 * j) for j in range(1, 11)]
    emit("ASYMPTOTIC", [float(v) for v in reversed(k)], "B_2k/(2k), k = 10 ... 1")


def erf_inv():
    print("// ---- erf_inv.rs ----")
    w_of = lambda om: mp.sqrt(-mp.expm1(-om))
    central = lambda om: mp.erfinv(w_of(om)) / w_of(om) if om > 0 else mp.sqrt(mp.pi) / 2
    tail = lambda r: mp.erfinv(w_of(r * r))
    pieces = []
    for (a, b) in [(0, 1.5), (1.5, 3.5), (3.5, 6.25)]:
        c = (a + b) / 2
        pieces.append(("w P(omega)", a, b, c, fit("erfinv(w)/w in omega", central, a, b, c)))
    for (a, b) in [(2.5, 3.5), (3.5, 4.5), (4.5, 6.125)]:
        c = (a + b) / 2
        pieces.append(("Q(r)", a, b, c, fit("erfinv(w) in r = sqrt(omega)", tail, a, b, c)))
    emit_pieces("CENTRAL", pieces[:3])
    emit_pieces("TAIL", pieces[3:])


def emit_pieces(name, pieces):
    """A table of (upper bound, centre, coefficients padded with leading zeros)."""
    deg = max(len(p[4]) for p in pieces)
    print(f"const {name}: [(f64, f64, [f64; {deg}]); {len(pieces)}] = [")
    for (_, a, b, c, cf) in pieces:
        print(f"    (\n        {float(b)!r},\n        {float(c)!r},\n        [")
        for k in [0.0] * (deg - len(cf)) + cf:
            print(f"            {k!r},")
        print("        ],\n    ),")
    print("];")
    print()


def bessel():
    print("// ---- bessel.rs ----")
    i1e = lambda x: mp.besseli(1, x) * mp.exp(-x)
    g = lambda x: i1e(x) / x if x != 0 else mp.mpf(0.5)
    emit("SMALL_0_1", fit("I1e(x)/x", g, 0, 1, 0.5))
    emit("SMALL_1_2", fit("I1e(x)/x", g, 1, 2, 1.5))
    emit("MID_2_4", fit("I1e(x)", i1e, 2, 4, 3))
    emit("MID_4_8", fit("I1e(x)", i1e, 4, 8, 6))
    emit("MID_8_16", fit("I1e(x)", i1e, 8, 16, 12))
    h = lambda t: mp.sqrt(1 / t) * i1e(1 / t) if t > 0 else 1 / mp.sqrt(2 * mp.pi)
    emit("LARGE", fit("sqrt(x) I1e(x) in t = 1/x", h, 0, mp.mpf(1) / 16, mp.mpf(1) / 32))


def zeta():
    print("// ---- zeta.rs ----")
    c = [mp.bernoulli(2 * j) / mp.factorial(2 * j) for j in range(1, 16)]
    emit("BERNOULLI", [float(v) for v in c], "B_2j/(2j)!, j = 1 ... 15")


if __name__ == "__main__":
    digamma()
    erf_inv()
    bessel()
    zeta()
