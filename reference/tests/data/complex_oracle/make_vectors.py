#!/usr/bin/env python3
"""Generate the complex oracle vectors checked by reference/tests/complex_oracle.rs.

Samples inputs (fixed seed) for every element-wise operation of spec/ops/elementwise.yaml that
takes or yields c64/c128 and writes each result correctly rounded per component, as computed by
the independent oracle of oracle.py (exact rationals and mpmath interval enclosures; see there for
the method and the sign-of-zero conventions).

Output: one file per catalog id, `<id>.txt`. Each line is `TYPE OPERAND... EXPECTED`, where TYPE is
the operand element type (`c64`, `c128`; `f32`/`f64` for `complex`), or `FROM>TO` for conversions
(`c128>c64` for convert-complex, `s64>c64` or `bf16>c128` for convert of a real to complex). A
complex value is `RE:IM` with each component the hex bit pattern of its f32 (8 digits) or f64 (16
digits); a real operand is one hex pattern of its type's width (integers in two's complement, pred
as 00/01); a pred result is 0 or 1; `z` stands for a zero component whose sign is not checked. The
header's `# counts: TOKEN=N ...` line gives the vectors per TYPE, so that truncation is detected.

Usage: python3 make_vectors.py [--samples 300] [--seed 20240611] [--out DIR] [--only ID,...]
(requires mpmath: python3 -m venv /work/venvs/oracle && /work/venvs/oracle/bin/pip install mpmath)
"""

import argparse
import math
import os
import random
import sys
import time
import zlib
from fractions import Fraction

import mpmath

sys.dont_write_bytecode = True  # keep the data directory clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import (  # noqa: E402
    BF16,
    F16,
    F32,
    F64,
    MAX_EXACT_POWER,
    Skip,
    V,
    c_text,
    cross_check,
    op_abs,
    op_add,
    op_cos,
    op_divide,
    op_exp,
    op_expm1,
    op_imag,
    op_log,
    op_log1p,
    op_logistic,
    op_multiply,
    op_negate,
    op_power,
    op_real,
    op_rsqrt,
    op_sign,
    op_sin,
    op_sqrt,
    op_subtract,
    op_tan,
    op_tanh,
    resolve,
    round_fraction,
    self_check_rounding,
)
# ---------------------------------------------------------------------------------------------
# Sampling.


def nudge(fmt, bits, k):
    """bits moved k ulps away from zero (toward zero for k < 0), staying finite, keeping the sign."""
    sign = bits & fmt.sign_bit
    mag = min(max((bits & ~fmt.sign_bit) + k, 0), fmt.inf_bits - 1)
    return sign | mag


def comp_bits(rng, fmt, kind):
    """Bits of one finite component drawn from a named region."""
    neg = rng.random() < 0.5
    frac = rng.getrandbits(fmt.p - 1)
    top = 2 * fmt.bias  # largest finite biased exponent
    if kind == "zero":
        return fmt.compose(neg, 0, 0)
    if kind == "sub":
        return fmt.compose(neg, 0, rng.getrandbits(rng.randint(1, fmt.p - 1)) or 1)
    if kind == "tiny":
        return fmt.compose(neg, rng.randint(1, 12), frac)
    if kind == "huge":
        if rng.random() < 0.15:
            frac = (1 << (fmt.p - 1)) - 1
        return fmt.compose(neg, rng.randint(top - 12, top), frac)
    if kind == "wide":
        return fmt.compose(neg, rng.randint(0, top), frac)
    if kind in ("unit", "mod", "small", "big"):
        lo, hi = {"unit": (-4, 3), "mod": (-40, 40), "small": (-60, -2), "big": (20, 200)}[kind]
        return fmt.compose(neg, min(max(fmt.bias + rng.randint(lo, hi), 1), top), frac)
    if kind == "near1":
        one = fmt.from_float(1.0)
        return one + rng.randint(-6, 6) | (fmt.sign_bit if neg else 0)
    if kind == "int":
        return fmt.from_float(float(rng.randint(-12, 12)))
    if kind == "expo":  # the range of the exponential: |x| up to 1.2 ln(max finite)
        limit = 1.2 * (fmt.emax + 1) * math.log(2)
        return fmt.from_float(rng.uniform(-limit, limit))
    if kind == "trig":  # near multiples of pi/2, or plain moderate arguments
        k = rng.randint(-40, 40)
        base = fmt.from_float(k * math.pi / 2)
        return nudge(fmt, base, rng.randint(-3, 3)) if k and rng.random() < 0.7 else fmt.from_float(rng.uniform(-100, 100))
    raise ValueError(kind)


GENERIC = [
    ("unit", "unit", 8),
    ("mod", "mod", 4),
    ("wide", "wide", 4),
    ("small", "small", 2),
    ("zero", "unit", 1),
    ("unit", "zero", 1),
    ("zero", "wide", 1),
    ("wide", "zero", 1),
    ("zero", "zero", 1),
    ("sub", "sub", 1),
    ("sub", "unit", 1),
    ("unit", "sub", 1),
    ("huge", "tiny", 1),
    ("tiny", "huge", 1),
    ("huge", "huge", 1),
    ("tiny", "tiny", 1),
    ("near1", "small", 1),
    ("near1", "zero", 1),
    ("huge", "unit", 1),
    ("unit", "huge", 1),
    ("int", "int", 1),
    ("big", "unit", 1),
    ("unit", "big", 1),
    ("big", "small", 1),
    ("small", "big", 1),
]

EXP_LIKE = [
    ("expo", "unit", 4),
    ("unit", "expo", 4),
    ("expo", "trig", 3),
    ("trig", "expo", 3),
    ("expo", "zero", 1),
    ("zero", "expo", 1),
    ("small", "small", 2),
    ("trig", "small", 1),
    ("small", "trig", 1),
    ("big", "small", 1),
    ("small", "big", 1),
    ("big", "unit", 1),
    ("unit", "big", 1),
]


def choose(rng, table):
    total = sum(w for _, _, w in table)
    r = rng.uniform(0, total)
    for a, b, w in table:
        r -= w
        if r <= 0:
            return a, b
    return table[-1][:2]


def complex_from(rng, fmt, table):
    a, b = choose(rng, table)
    return comp_bits(rng, fmt, a), comp_bits(rng, fmt, b)


def near_unit_circle(rng, fmt, centre=0.0):
    """(x, y) with |x + iy| within a few ulps of 1 (shifted by `centre` on the real axis)."""
    t = rng.uniform(-math.pi, math.pi)
    r = 1.0 + rng.choice([0.0, 1e-3, -1e-3, 2.0**-20, -(2.0**-20)]) * rng.random()
    x = nudge(fmt, fmt.from_float(centre + r * math.cos(t)), rng.randint(-2, 2))
    y = nudge(fmt, fmt.from_float(r * math.sin(t)), rng.randint(-2, 2))
    return x, y


def unary_sample(op_id, rng, fmt):
    r = rng.random()
    if op_id in ("exponential", "exponential-minus-one", "logistic", "sine", "cosine", "tan", "tanh") and r < 0.5:
        return complex_from(rng, fmt, EXP_LIKE)
    if op_id in ("log", "sqrt", "rsqrt", "sign", "abs-complex") and r < 0.2:
        return near_unit_circle(rng, fmt)
    if op_id == "log-plus-one" and r < 0.35:
        if rng.random() < 0.5:
            return near_unit_circle(rng, fmt, -1.0)
        return complex_from(rng, fmt, [("small", "small", 3), ("tiny", "small", 1), ("small", "tiny", 1), ("sub", "small", 1)])
    return complex_from(rng, fmt, GENERIC)


def perturb(rng, bits, fmt):
    """The same value moved by a few ulps (staying finite and of the same sign)."""
    return nudge(fmt, bits, rng.randint(-3, 3))


def binary_sample(op_id, rng, fmt):
    r = rng.random()
    z = complex_from(rng, fmt, GENERIC)
    if op_id in ("add", "subtract") and r < 0.3:  # cancellation: w = -+z within a few ulps
        flip = fmt.sign_bit if op_id == "add" else 0
        return z, (perturb(rng, z[0] ^ flip, fmt), perturb(rng, z[1] ^ flip, fmt))
    if op_id == "multiply" and r < 0.3:  # Re = x1 x2 - y1 y2 nearly cancels: w ~ (y1, x1)
        return z, (perturb(rng, z[1], fmt), perturb(rng, z[0], fmt))
    if op_id == "divide" and r < 0.25:  # a numerator close to a multiple of the divisor
        w = complex_from(rng, fmt, GENERIC)
        k = complex(rng.randint(-5, 5), rng.randint(-5, 5))
        p = complex(fmt.to_float(w[0]), fmt.to_float(w[1])) * k
        try:
            num = (fmt.from_float(p.real), fmt.from_float(p.imag))
        except OverflowError:  # beyond f32's range
            return z, w
        if any((c >> (fmt.p - 1)) & ((1 << fmt.ebits) - 1) == (1 << fmt.ebits) - 1 for c in num):
            return z, w  # the product overflowed: keep the independent pair
        return num, w
    if op_id in ("compare-EQ", "compare-NE") and r < 0.5:
        w = list(z)
        for i in range(2):
            c = rng.random()
            if c < 0.3 and w[i] & ~fmt.sign_bit == 0:
                w[i] ^= fmt.sign_bit  # -0 == +0
            elif c < 0.5:
                w[i] = perturb(rng, w[i], fmt)
        return z, tuple(w)
    if op_id == "power":
        base = z if r < 0.4 else complex_from(rng, fmt, [("unit", "unit", 4), ("mod", "unit", 1), ("unit", "zero", 2), ("zero", "unit", 1), ("near1", "small", 1)])
        if r < 0.2:
            base = near_unit_circle(rng, fmt)
        c = rng.random()
        if c < 0.2:  # integer exponent
            return base, (fmt.from_float(float(rng.randint(-MAX_EXACT_POWER, MAX_EXACT_POWER))), fmt.compose(rng.random() < 0.5, 0, 0))
        if c < 0.3:  # half-integer exponent
            return base, (fmt.from_float(rng.randint(-8, 8) + 0.5), fmt.compose(rng.random() < 0.5, 0, 0))
        if c < 0.5:
            return base, (comp_bits(rng, fmt, "unit"), fmt.compose(rng.random() < 0.5, 0, 0))
        if c < 0.6:  # large exponents: ill-conditioned, and overflow/underflow with a large Im(w log z)
            return base, complex_from(rng, fmt, [("big", "small", 2), ("big", "zero", 1), ("big", "unit", 1), ("huge", "tiny", 1)])
        return base, complex_from(rng, fmt, [("unit", "unit", 4), ("small", "small", 1), ("zero", "unit", 1), ("mod", "small", 1), ("wide", "wide", 1)])
    return z, complex_from(rng, fmt, GENERIC)


# Hand-picked vectors that every run includes (the rest is sampled): rounding traps.
TRAPS = {
    # |16777215 + 8192 i| = 16777217 = 2^24 + 1 exactly: a midpoint of f32, ties to even (2^24).
    ("abs-complex", "c64"): [((F32.from_float(16777215.0), F32.from_float(8192.0)),)],
    ("sqrt", "c64"): [((F32.from_float(3.0), F32.from_float(4.0)),), ((F32.from_float(-3.0), F32.from_float(-4.0)),)],
    ("sqrt", "c128"): [((F64.from_float(3.0), F64.from_float(4.0)),), ((F64.from_float(-4.0), F64.sign_bit),)],
    ("log", "c128"): [((F64.from_float(-1.0), F64.sign_bit),), ((F64.from_float(0.0), F64.from_float(1.0)),)],
    # |z| near 1 with both components significant: MPC 1.4.1's log was 1 ULP off in Re.
    ("log", "c64"): [((0xBE7BF956, 0xBF7820F7),), ((0x3F783FF6, 0x3E7D247C),)],
    # cosh 2x beyond MPFR's exponent range (|x| > 1.6e18): MPC 1.4.1 lost the sign of the zero.
    ("tanh", "c64"): [((0x5E3014B3, 0xBC5ECFA8),), ((0xDE3014B3, 0xBC5ECFA8),), ((0x7F7FFFFF, 0x3C5ECFA8),)],
    ("tan", "c64"): [((0xBC5ECFA8, 0x5E3014B3),), ((0x3C5ECFA8, 0xDE3014B3),)],
    ("tanh", "c128"): [((F64.from_float(1e19), F64.from_float(-0.0136)),), ((F64.from_float(-1e300), F64.from_float(1e-300)),)],
    ("tan", "c128"): [((F64.from_float(-0.0136), F64.from_float(1e19)),), ((F64.from_float(1e-300), F64.from_float(-1e300)),)],
    ("log-plus-one", "c128"): [((F64.from_float(-1.0), F64.from_float(1.0)),), ((F64.from_float(-2.0), F64.sign_bit),)],
    ("power", "c64"): [
        ((F32.from_float(1.0), F32.from_float(1.0)), (F32.from_float(2.0), 0)),
        ((F32.from_float(-4.0), 0), (F32.from_float(0.5), 0)),
        ((F32.from_float(0.0), F32.from_float(1.0)), (F32.from_float(0.0), F32.from_float(1.0))),
    ],
}


# ---------------------------------------------------------------------------------------------
# Driver.

UNARY = {
    "abs-complex": op_abs,
    "cosine": op_cos,
    "exponential": op_exp,
    "exponential-minus-one": op_expm1,
    "imag": op_imag,
    "log": op_log,
    "log-plus-one": op_log1p,
    "logistic": op_logistic,
    "negate": op_negate,
    "real": op_real,
    "rsqrt": op_rsqrt,
    "sign": op_sign,
    "sine": op_sin,
    "sqrt": op_sqrt,
    "tan": op_tan,
    "tanh": op_tanh,
}

BINARY = {
    "add": op_add,
    "subtract": op_subtract,
    "multiply": op_multiply,
    "divide": op_divide,
    "power": op_power,
}

TYPES = (("c64", F32), ("c128", F64))


def evaluate(op_id, fmt, raw):
    """The expected text of one sample (raw = tuple of (re bits, im bits) operands)."""
    operands = [(V(fmt, a), V(fmt, b)) for a, b in raw]
    if op_id in UNARY:
        comps = UNARY[op_id](*operands[0])
    elif op_id in BINARY:
        comps = BINARY[op_id](*operands)
    elif op_id in ("compare-EQ", "compare-NE"):
        (x1, y1), (x2, y2) = operands
        equal = x1.q == x2.q and y1.q == y2.q
        return operands, [str(int(equal == (op_id == "compare-EQ")))]
    else:
        raise ValueError(op_id)
    return operands, [resolve(fmt, c) for c in comps]


def generate_complex_op(op_id, n, seed, stats):
    lines = []
    for tname, fmt in TYPES:
        rng = random.Random(seed ^ zlib.crc32(("%s/%s" % (op_id, tname)).encode()))
        samples = list(TRAPS.get((op_id, tname), []))
        while len(samples) < n:
            if op_id in UNARY:
                samples.append((unary_sample(op_id, rng, fmt),))
            else:
                samples.append(binary_sample(op_id, rng, fmt))
        kept = 0
        for raw in samples:
            try:
                operands, texts = evaluate(op_id, fmt, raw)
            except Skip as e:
                stats[str(e)] += 1
                continue
            cross_check(op_id, fmt, operands, texts, stats)
            lines.append("%s %s %s" % (tname, " ".join(c_text(fmt, z) for z in operands), ":".join(texts)))
            kept += 1
        stats["per_type"][tname] = kept
    return lines


def generate_complex_constructor(n, seed, stats):
    """complex(re, im): f32 -> c64, f64 -> c128, bits moved unchanged."""
    lines = []
    for tname, fmt in (("f32", F32), ("f64", F64)):
        rng = random.Random(seed ^ zlib.crc32(("complex/" + tname).encode()))
        for _ in range(n):
            a, b = complex_from(rng, fmt, GENERIC)
            lines.append("%s %s %s %s:%s" % (tname, fmt.hex(a), fmt.hex(b), fmt.hex(a), fmt.hex(b)))
        stats["per_type"][tname] = n
    return lines


def generate_convert(n, seed, stats):
    """convert c64 <-> c128: each component rounded once (c128 -> c64) or widened exactly."""
    lines = []
    rng = random.Random(seed ^ zlib.crc32(b"convert-complex"))
    for _ in range(n):
        x, y = complex_from(rng, F32, GENERIC)
        vx, vy = V(F32, x), V(F32, y)
        out = "%s:%s" % (F64.hex(round_fraction(F64, vx.q, vx.neg)), F64.hex(round_fraction(F64, vy.q, vy.neg)))
        lines.append("c64>c128 %s:%s %s" % (F32.hex(x), F32.hex(y), out))
    stats["per_type"]["c64>c128"] = n

    def f32_region():
        c = rng.random()
        top = 2 * F64.bias
        if c < 0.2:  # f32 subnormals and the underflow threshold
            return F64.compose(rng.random() < 0.5, F64.bias + rng.randint(-152, -125), rng.getrandbits(52))
        if c < 0.35:  # around f32's overflow threshold (max f32 + half an ulp = 2^128 - 2^103)
            base = F64.from_float(2.0**128 - 2.0**103)
            return base + rng.randint(-4, 4) | (F64.sign_bit if rng.random() < 0.5 else 0)
        if c < 0.5:  # exact f32 midpoints: ties to even
            m = F32.to_float(comp_bits(rng, F32, "mod") & ~1 | rng.getrandbits(1))
            up = F32.to_float(F32.from_float(m) + 1)
            if math.isfinite(up):
                return F64.from_float((m + up) / 2)
        if c < 0.6:
            return F64.compose(rng.random() < 0.5, rng.randint(0, top), rng.getrandbits(52))
        return F64.compose(rng.random() < 0.5, F64.bias + rng.randint(-130, 130), rng.getrandbits(52))

    for _ in range(n):
        x, y = f32_region(), f32_region()
        vx, vy = V(F64, x), V(F64, y)
        out = "%s:%s" % (F32.hex(round_fraction(F32, vx.q, vx.neg)), F32.hex(round_fraction(F32, vy.q, vy.neg)))
        lines.append("c128>c64 %s:%s %s" % (F64.hex(x), F64.hex(y), out))
    stats["per_type"]["c128>c64"] = n
    return lines


INTEGERS = (("pred", 8, False), ("s8", 8, True), ("s32", 32, True), ("s64", 64, True), ("u64", 64, False))


def integer_sample(rng, bits, signed, target):
    """An integer of the type: random magnitudes of every length, and exact ties of `target`."""
    if bits == 8 and not signed:  # pred
        return rng.randint(0, 1)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if rng.random() < 0.3 and bits > target.p:  # a midpoint between two neighbours of `target`
        e = rng.randint(target.p, bits - 1 - int(signed))  # 2^e <= |v| < 2^(e+1)
        v = (rng.getrandbits(target.p - 1) | 1 << (target.p - 1)) << 1 | 1
        v <<= e - target.p
        if signed and rng.random() < 0.5:
            v = -v
        return max(lo, min(hi, v))
    v = rng.getrandbits(rng.randint(1, bits - int(signed)))
    return -v if signed and rng.random() < 0.5 and -v >= lo else v


def generate_convert_to_complex(n, seed, stats):
    """convert of a real operand to c64/c128 (catalog `convert`: real -> complex has imaginary part
    0): the real part rounded once, the imaginary part +0."""
    lines = []
    for target_name, target in (("c64", F32), ("c128", F64)):
        for fmt in (BF16, F16, F32, F64):
            rng = random.Random(seed ^ zlib.crc32(("convert/%s/%s" % (fmt.name, target_name)).encode()))
            token = "%s>%s" % (fmt.name, target_name)
            for _ in range(n):
                kind = rng.choice(["wide", "wide", "unit", "sub", "tiny", "huge", "zero", "mod"])
                x = comp_bits(rng, fmt, kind)
                v = V(fmt, x)
                lines.append("%s %s %s:%s" % (token, fmt.hex(x), target.hex(round_fraction(target, v.q, v.neg)), target.hex(0)))
            stats["per_type"][token] = n
        for name, bits, signed in INTEGERS:
            rng = random.Random(seed ^ zlib.crc32(("convert/%s/%s" % (name, target_name)).encode()))
            token = "%s>%s" % (name, target_name)
            count = 2 if name == "pred" else n
            for k in range(count):
                v = k if name == "pred" else integer_sample(rng, bits, signed, target)
                text = format(v & ((1 << bits) - 1), "0%dx" % (bits // 4))
                lines.append("%s %s %s:%s" % (token, text, target.hex(round_fraction(target, Fraction(v))), target.hex(0)))
            stats["per_type"][token] = count
    return lines


OPS = list(UNARY) + list(BINARY) + ["compare-EQ", "compare-NE", "complex", "convert-complex", "convert"]


def new_stats():
    return {"boundary": 0, "pole": 0, "mask": 0, "cross_mismatch": 0, "per_type": {}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=300, help="samples per (operation, type)")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--only", default="", help="comma-separated catalog ids")
    args = ap.parse_args()
    self_check_rounding()
    ops = [o for o in OPS if not args.only or o in args.only.split(",")]
    for op_id in ops:
        start = time.time()
        stats = new_stats()
        if op_id == "complex":
            lines = generate_complex_constructor(args.samples, args.seed, stats)
        elif op_id == "convert-complex":
            lines = generate_convert(args.samples, args.seed, stats)
        elif op_id == "convert":
            lines = generate_convert_to_complex(args.samples // 3, args.seed, stats)
        else:
            lines = generate_complex_op(op_id, args.samples, args.seed, stats)
        header = [
            "# complex oracle vectors for catalog id `%s` (spec/ops/elementwise.yaml)" % op_id,
            "# generated by make_vectors.py --samples %d --seed %d (mpmath %s)" % (args.samples, args.seed, mpmath.__version__),
            "# line: TYPE OPERAND... EXPECTED; complex = RE:IM hex bits; z = zero of unchecked sign",
            "# kept: %s; skipped: %d on a rounding boundary, %d poles, %d masked"
            % (", ".join("%s %d" % kv for kv in stats["per_type"].items()), stats["boundary"], stats["pole"], stats["mask"]),
            "# counts: " + " ".join("%s=%d" % kv for kv in stats["per_type"].items()),
        ]
        with open(os.path.join(args.out, op_id + ".txt"), "w") as f:
            f.write("\n".join(header + lines) + "\n")
        print(
            "%-22s %s  boundary %d  pole %d  mask %d  cross-check mismatches %d  (%.1f s)"
            % (op_id, stats["per_type"], stats["boundary"], stats["pole"], stats["mask"], stats["cross_mismatch"], time.time() - start)
        )


if __name__ == "__main__":
    main()
