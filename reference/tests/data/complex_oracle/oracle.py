"""The oracle behind make_vectors.py: correctly rounded complex results without MPFR/MPC.

An independent oracle for the reference's complex results: for an input of an element-wise
operation of spec/ops/elementwise.yaml on c64/c128, each result component correctly rounded (round
to nearest, ties to even, subnormals, overflow to +-inf) into f32/f64, computed WITHOUT the
reference's code and without MPFR/MPC:

* exact components (add, subtract, multiply, divide, integer powers, real, imag, negate, complex,
  convert, and square roots that happen to be rational) are computed as Python `Fraction`s;
* transcendental components are enclosed with mpmath's interval arithmetic (`mpmath.iv`, outward
  rounded) from formulas chosen so that no subtraction cancels more than extra precision can
  recover (e.g. cos 2x + cosh 2y = 2(cos^2 x + sinh^2 y); sinh and expm1 of small arguments by
  Taylor series with a rigorous remainder; Re log(1 + z) = log1p(x(2 + x) + y^2)/2 with the
  argument formed exactly);
* Ziv's loop: the enclosure is recomputed at 320, 640, 1280 and 2560 bits until both bounds round
  to the same bit pattern. A sample still undecided at 2560 bits lies on (or within 2^-2500 of) a
  rounding boundary and is skipped (counted in the file header);
* rounding is this script's own integer arithmetic on the exact rational (`round_fraction`),
  self-checked against CPython's correctly rounded int/int division at start-up;
* a second, looser cross-check evaluates each function's textbook definition with mpmath's complex
  (non-interval) functions at 1000 bits and compares the rounded bits (mpmath's complex functions
  are not componentwise accurate everywhere, so disagreements there are printed, not fatal).

Exact zeros carry a sign that is a convention, not a value. The sign written is the one that IEEE
754 arithmetic of the component formula gives, which is also what C99 Annex G's symmetries
(f(conj z) = conj f(z), odd/even functions) fix: add/subtract by IEEE 754 6.3; exp, sin, cos, tan,
tanh, logistic, sqrt, rsqrt, sign, log and log1p by the sign of the zero input component through
the product/quotient formulas (e.g. Im sin(x + 0i) = cos x * sinh(+0) has the sign of cos x); abs
is +0; convert of a real to complex has imaginary part +0 (C++ static_cast). The sign is NOT checked (written `z`) where conventions genuinely differ:
* multiply, divide, power: an exact zero component arises by cancellation or from a zero operand
  component, and the sign depends on the algorithm (e.g. (-0 + 1i)(1 - 0i) has real part -0 if the
  implementation notices a real multiplier and +0 by the IEEE formula x1*x2 - y1*y2);
* sign(0 + 0i): seed 004 says 0; the sign of that zero is unspecified;
* expm1(-0 + 0i) and log1p(-0 + 0i): the real function gives -0 (IEEE 754 expm1/lnp1) while the
  complex formula e^z - 1 (resp. log(1 + z)) gives +0.

Poles and masked inputs are skipped (counted): inputs with infinite or NaN components (catalog mask
`complex-nonfinite-operand`, never generated), divide by 0 + 0i (`complex-division-by-zero`), power
of 0 + 0i (`complex-power-zero-base`), and the poles log(0), log1p(-1), rsqrt(0).
"""

import math
import random
import struct
import sys
from fractions import Fraction

import mpmath
from mpmath import iv, mp
from mpmath.libmp import from_rational, round_ceiling, round_floor

PRECISIONS = (320, 640, 1280, 2560)
CROSS_CHECK_BITS = 1000


class Skip(Exception):
    """A sample outside the checked domain (pole, mask, or rounding boundary)."""


# ---------------------------------------------------------------------------------------------
# Formats, bits and rounding.


class Fmt:
    def __init__(self, name, p, ebits):
        self.name = name
        self.p = p  # significand bits, hidden bit included
        self.ebits = ebits
        self.width = 1 + ebits + p - 1
        self.bias = (1 << (ebits - 1)) - 1
        self.emin = 1 - self.bias  # exponent of the smallest normal
        self.emax = self.bias  # exponent of the largest finite binade
        self.sign_bit = 1 << (self.width - 1)
        self.inf_bits = ((1 << ebits) - 1) << (p - 1)
        self.digits = self.width // 4

    def hex(self, bits):
        return format(bits, "0%dx" % self.digits)

    def to_float(self, bits):
        if self.width == 32:
            return struct.unpack("<f", struct.pack("<I", bits))[0]
        return struct.unpack("<d", struct.pack("<Q", bits))[0]

    def from_float(self, x):
        """Bits of the format value nearest to the Python float x (RNE)."""
        if self.width == 32:
            return struct.unpack("<I", struct.pack("<f", x))[0]
        return struct.unpack("<Q", struct.pack("<d", x))[0]

    def compose(self, negative, biased, mantissa):
        return (self.sign_bit if negative else 0) | (biased << (self.p - 1)) | mantissa


BF16 = Fmt("bf16", 8, 8)
F16 = Fmt("f16", 11, 5)
F32 = Fmt("f32", 24, 8)
F64 = Fmt("f64", 53, 11)


def round_fraction(fmt, q, zero_negative=False):
    """Bits of the rational q rounded once to nearest-even in fmt (subnormals, overflow to inf).

    A zero q gives the zero of sign `zero_negative`; a nonzero q that rounds to zero keeps its sign.
    """
    if q == 0:
        return fmt.sign_bit if zero_negative else 0
    negative = q < 0
    a = -q if negative else q
    n, d = a.numerator, a.denominator
    e = n.bit_length() - d.bit_length()  # floor(log2 a) is e or e - 1
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    qe = max(e, fmt.emin) - (fmt.p - 1)  # exponent of the quantum (one unit in the last place)
    num, den = (n, d << qe) if qe >= 0 else (n << -qe, d)
    m, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and m & 1):
        m += 1
    if m == 0:
        return fmt.sign_bit if negative else 0
    if m == 1 << fmt.p:  # rounded up into the next binade
        m >>= 1
        qe += 1
    if m >= 1 << (fmt.p - 1):
        top = qe + fmt.p - 1
        if top > fmt.emax:
            return fmt.inf_bits | (fmt.sign_bit if negative else 0)
        return fmt.compose(negative, top + fmt.bias, m - (1 << (fmt.p - 1)))
    return fmt.compose(negative, 0, m)


def decode(fmt, bits):
    """The exact value of finite bits as a Fraction, and whether the sign bit is set."""
    negative = bool(bits & fmt.sign_bit)
    biased = (bits >> (fmt.p - 1)) & ((1 << fmt.ebits) - 1)
    mantissa = bits & ((1 << (fmt.p - 1)) - 1)
    assert biased != (1 << fmt.ebits) - 1, "non-finite input"
    if biased == 0:
        v = Fraction(mantissa) * Fraction(2) ** (fmt.emin - fmt.p + 1)
    else:
        v = Fraction(mantissa | (1 << (fmt.p - 1))) * Fraction(2) ** (biased - fmt.bias - fmt.p + 1)
    return (-v if negative else v), negative


def mpf_tuple_to_bits(fmt, t):
    """Rounds an mpmath raw mpf (sign, man, exp, bc) into fmt; None for inf/nan."""
    sign, man, exp, bc = t
    if man == 0:
        return None if exp != 0 else 0  # fzero; inf and nan have man == 0, exp != 0
    top = exp + bc  # 2^(top-1) <= |value| < 2^top
    if top > fmt.emax + 2:
        return fmt.inf_bits | (fmt.sign_bit if sign else 0)
    if top < fmt.emin - fmt.p - 2:
        return fmt.sign_bit if sign else 0
    v = Fraction(man) * Fraction(2) ** exp
    return round_fraction(fmt, -v if sign else v)


def self_check_rounding():
    """round_fraction against CPython's correctly rounded int / int division (f64) and struct (f32
    from exactly representable doubles), including subnormals, ties and overflow."""
    rng = random.Random(7)
    for _ in range(20000):
        n = rng.getrandbits(rng.randint(1, 140)) + 1
        d = rng.getrandbits(rng.randint(1, 140)) + 1
        s = rng.randint(-1200, 1200)
        q = Fraction(n << s, d) if s >= 0 else Fraction(n, d << -s)
        try:
            want = F64.from_float((n << s) / d if s >= 0 else n / (d << -s))
        except OverflowError:
            want = F64.inf_bits
        assert round_fraction(F64, q) == want, (n, d, s)
    # Ties: 1 + 2^-53 -> 1; 1 + 3 * 2^-53 -> 1 + 2^-51; smallest subnormal halves.
    assert round_fraction(F64, 1 + Fraction(1, 2**53)) == F64.from_float(1.0)
    assert round_fraction(F64, 1 + Fraction(3, 2**53)) == F64.from_float(1.0 + 2.0**-51)
    assert round_fraction(F64, Fraction(1, 2**1075)) == 0
    assert round_fraction(F64, Fraction(3, 2**1076)) == 1
    assert round_fraction(F32, Fraction(1, 2**150)) == 0
    assert round_fraction(F32, -Fraction(3, 2**151)) == F32.sign_bit | 1
    assert round_fraction(F32, Fraction(2**24 + 1)) == F32.from_float(2.0**24)
    big = Fraction(2**128) - Fraction(2**103)  # max f32 + half an ulp: ties to even -> inf
    assert round_fraction(F32, big) == F32.inf_bits
    assert round_fraction(F32, big - Fraction(1, 2**200)) == F32.from_float(3.4028234663852886e38)
    for _ in range(20000):
        b = rng.getrandbits(32)
        if (b >> 23) & 0xFF == 0xFF:
            continue
        v, neg = decode(F32, b)
        assert round_fraction(F32, v, neg) == b
        assert F32.from_float(F32.to_float(b)) == b


# ---------------------------------------------------------------------------------------------
# Interval helpers (mpmath.iv at the precision set by the Ziv loop).


def ivq(q):
    """The tightest interval around a rational at the current precision (exact when it fits)."""
    q = Fraction(q)
    n, d = q.numerator, q.denominator
    return iv.make_mpf((from_rational(n, d, iv.prec, round_floor), from_rational(n, d, iv.prec, round_ceiling)))


def ball(radius):
    """[-radius, radius] for a nonnegative rational radius."""
    r = Fraction(radius)
    return iv.make_mpf(
        (from_rational(-r.numerator, r.denominator, iv.prec, round_floor), from_rational(r.numerator, r.denominator, iv.prec, round_ceiling))
    )


def log2_upper(q):
    """An integer L with |q| <= 2^L (q nonzero)."""
    a = abs(Fraction(q))
    return a.numerator.bit_length() - (a.denominator.bit_length() - 1)


def expm1_series(q):
    """e^q - 1 for |q| <= 1/2 by its Taylor series, with the remainder bounded by
    2 |q|^(k+1) / (k+1)! (the tail's terms shrink by at least 1/2 each)."""
    assert abs(q) <= Fraction(1, 2)
    if q == 0:
        return ivq(0)
    x = ivq(q)
    lq = log2_upper(q)
    target = lq - iv.prec - 30
    term, total, k = x, x, 1
    while True:
        k += 1
        term = term * x / k
        total = total + term
        # bound of the remainder after the x^k/k! term, as a power of two
        log_fact = math.lgamma(k + 2) / math.log(2) - 1
        if 1 + (k + 1) * lq - log_fact < target:
            return total + ball(Fraction(2) ** (1 + (k + 1) * lq) / math.factorial(k + 1))


def expm1_iv(q):
    if abs(q) <= Fraction(1, 2):
        return expm1_series(q)
    return iv.exp(ivq(q)) - 1


def sinh_iv(q):
    """sinh q = (expm1(q) - expm1(-q))/2: the two terms have opposite signs, no cancellation."""
    if abs(q) <= Fraction(1, 2):
        return (expm1_series(q) - expm1_series(-q)) / 2
    x = ivq(q)
    return (iv.exp(x) - iv.exp(-x)) / 2


def cosh_iv(q):
    x = ivq(q)
    return (iv.exp(x) + iv.exp(-x)) / 2


def log1p_iv(u):
    """log(1 + u) for a rational u > -1: for |u| <= 1/2 as 2 atanh(t), t = u/(2 + u) exact, by its
    series (|t| <= 1/3, remainder <= 2 |t|^(2k+1) / ((2k+1)(1 - t^2)) <= 2.25 |t|^(2k+1))."""
    u = Fraction(u)
    assert u > -1
    if u == 0:
        return ivq(0)
    if abs(u) > Fraction(1, 2):
        return iv.log(ivq(1 + u))
    t = u / (2 + u)
    x = ivq(t)
    x2 = x * x
    lt = log2_upper(t)
    target = lt - iv.prec - 30
    term, total, k = x, x, 0
    while True:
        k += 1
        term = term * x2
        total = total + term / (2 * k + 1)
        if 2 + (2 * k + 3) * lt < target:
            return 2 * (total + ball(Fraction(9, 4) * Fraction(2) ** ((2 * k + 3) * lt)))


def pi_iv():
    return +iv.pi


def endpoints(x):
    return x._mpi_


def interval_sign(thunk):
    """The sign (True = negative) of a nonzero value given by an enclosure thunk."""
    for wp in PRECISIONS:
        iv.prec = wp
        a, b = endpoints(thunk())
        if a[1] != 0 and b[1] != 0 and a[0] == b[0]:  # both nonzero, same sign
            return bool(a[0])
    raise AssertionError("sign of a nonzero value not resolved")


# ---------------------------------------------------------------------------------------------
# Result components.

NEVER = "never"  # an exact zero is impossible here: finding one is a bug in this script


class Comp:
    """One result component: an exact rational, or an enclosure thunk evaluated at iv.prec.

    `zero` is the sign of an exact zero (True = -0), None when the sign is not checked, or NEVER.
    """

    def __init__(self, exact=None, enclose=None, zero=NEVER):
        self.exact = exact
        self.enclose = enclose
        self.zero = zero


def exact(q, zero=NEVER):
    return Comp(exact=Fraction(q), zero=zero)


def enclosed(thunk, zero=NEVER):
    return Comp(enclose=thunk, zero=zero)


def render_exact(fmt, q, zero):
    if q == 0:
        if zero is NEVER:
            raise AssertionError("unexpected exact zero")
        if zero is None:
            return "z"
        return fmt.hex(round_fraction(fmt, q, zero))
    return fmt.hex(round_fraction(fmt, q))


def resolve(fmt, comp):
    """The component's expected text: hex bits, or `z`. Raises Skip on a rounding boundary."""
    if comp.exact is not None:
        return render_exact(fmt, comp.exact, comp.zero)
    for wp in PRECISIONS:
        iv.prec = wp
        a, b = endpoints(comp.enclose())
        if a == b:  # a point: the exact value
            if a[1] == 0 and a[2] != 0:
                continue
            sign, man, exp, _ = a
            v = Fraction(man) * Fraction(2) ** exp if man else Fraction(0)
            return render_exact(fmt, -v if sign else v, comp.zero)
        if a[1] == 0 or b[1] == 0 or a[0] != b[0]:
            continue  # an endpoint is 0 or inf/nan, or the interval straddles 0
        lo, hi = mpf_tuple_to_bits(fmt, a), mpf_tuple_to_bits(fmt, b)
        if lo is not None and lo == hi:
            return fmt.hex(lo)
    raise Skip("boundary")


# ---------------------------------------------------------------------------------------------
# The operations. A complex operand is (re, im), each a V: exact value q, sign bit neg.


class V:
    def __init__(self, fmt, bits):
        self.bits = bits
        self.q, self.neg = decode(fmt, bits)

    @property
    def iv(self):
        return ivq(self.q)

    def zero(self):
        return self.q == 0


def sqrt_exact(q):
    """The exact square root of a nonnegative rational if it is rational, else None."""
    if q == 0:
        return Fraction(0)
    n, d = q.numerator, q.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return Fraction(rn, rd)
    return None


class Num:
    """A real quantity known exactly (Fraction) or as an enclosure thunk."""

    def __init__(self, exact=None, thunk=None):
        self.exact, self.thunk = exact, thunk

    def iv(self):
        return ivq(self.exact) if self.exact is not None else self.thunk()

    @staticmethod
    def lift(f_exact, f_iv, *args):
        if all(a.exact is not None for a in args):
            return Num(exact=f_exact(*[a.exact for a in args]))
        return Num(thunk=lambda: f_iv(*[a.iv() for a in args]))

    def sqrt(self):
        if self.exact is not None:
            r = sqrt_exact(self.exact)
            if r is not None:
                return Num(exact=r)
        return Num(thunk=lambda: iv.sqrt(self.iv()))

    def comp(self, zero=NEVER):
        if self.exact is not None:
            return exact(self.exact, zero)
        return enclosed(self.thunk, zero)


def add_n(a, b):
    return Num.lift(lambda x, y: x + y, lambda x, y: x + y, a, b)


def div_n(a, b):
    return Num.lift(lambda x, y: x / y, lambda x, y: x / y, a, b)


def arg_comp(y, x_q):
    """arg(x + iy) = atan2(y, x) for an exact x (Fraction) and y (V), principal value in [-pi, pi],
    the sign of a zero y choosing the side of the cut; x + iy != 0."""
    if y.zero():
        if x_q > 0:
            return exact(0, y.neg)
        return enclosed(lambda: -pi_iv() if y.neg else pi_iv())
    if x_q == 0:
        return enclosed(lambda: (-pi_iv() if y.q < 0 else pi_iv()) / 2)
    return enclosed(lambda: iv.atan2(y.iv, ivq(x_q)))


def ln_abs(x, y):
    """ln |x + iy| = log1p(x^2 + y^2 - 1)/2 with the argument exact (no cancellation near 1)."""
    u = x.q * x.q + y.q * y.q - 1
    if u == 0:
        return exact(0, False)
    return enclosed(lambda: log1p_iv(u) / 2)


def op_exp(x, y):
    re = enclosed(lambda: iv.exp(x.iv) * iv.cos(y.iv))
    im = exact(0, y.neg) if y.zero() else enclosed(lambda: iv.exp(x.iv) * iv.sin(y.iv))
    return re, im


def op_expm1(x, y):
    if y.zero():
        if x.zero():
            re = exact(0, None if x.neg else False)
        else:
            re = enclosed(lambda: expm1_iv(x.q))
        return re, exact(0, y.neg)
    # e^x cos y - 1 = expm1(x) cos y - 2 sin^2(y/2)
    re = enclosed(lambda: expm1_iv(x.q) * iv.cos(y.iv) - 2 * iv.sin(ivq(y.q / 2)) ** 2)
    im = enclosed(lambda: iv.exp(x.iv) * iv.sin(y.iv))
    return re, im


def op_log(x, y):
    if x.zero() and y.zero():
        raise Skip("pole")
    return ln_abs(x, y), arg_comp(y, x.q)


def op_log1p(x, y):
    c = 1 + x.q
    if y.zero() and c > 0:
        re = exact(0, None if x.neg else False) if x.zero() else enclosed(lambda: log1p_iv(x.q))
        return re, exact(0, y.neg)
    if y.zero() and c == 0:
        raise Skip("pole")
    u = x.q * (2 + x.q) + y.q * y.q  # |1 + z|^2 - 1, exact
    re = exact(0, False) if u == 0 else enclosed(lambda: log1p_iv(u) / 2)
    return re, arg_comp(y, c)


def sqrt_parts(x, y):
    """(Re, Im) of the principal sqrt(x + iy), z != 0, as Nums; the zero signs are the caller's."""
    r = Num(exact=x.q * x.q + y.q * y.q).sqrt()
    X, Y = Num(exact=x.q), Num(exact=y.q)
    if x.q >= 0:
        re = div_n(add_n(r, X), Num(exact=Fraction(2))).sqrt()
        im = div_n(Y, Num.lift(lambda s: 2 * s, lambda s: 2 * s, re))
    else:
        t = div_n(add_n(r, Num(exact=-x.q)), Num(exact=Fraction(2))).sqrt()  # |Im|
        re = div_n(Num(exact=abs(y.q)), Num.lift(lambda s: 2 * s, lambda s: 2 * s, t))
        im = Num.lift(lambda s: -s, lambda s: -s, t) if y.q < 0 else t
    return re, im, r


def op_sqrt(x, y):
    if x.zero() and y.zero():
        return exact(0, False), exact(0, y.neg)  # C99 G.6.4.2: csqrt(+-0 + i0) = +0 + i0
    if y.zero():
        if x.q > 0:
            return Num(exact=x.q).sqrt().comp(), exact(0, y.neg)
        m = Num(exact=-x.q).sqrt()
        im = m if not y.neg else Num.lift(lambda s: -s, lambda s: -s, m)
        return exact(0, False), im.comp()
    re, im, _ = sqrt_parts(x, y)
    return re.comp(False), im.comp()


def op_rsqrt(x, y):
    """1/sqrt(z) = conj(sqrt z)/|z| (|sqrt z|^2 = |z|)."""
    if x.zero() and y.zero():
        raise Skip("pole")
    if y.zero():
        m = Num(exact=abs(x.q)).sqrt()
        inv = div_n(Num(exact=Fraction(1)), m)
        if x.q > 0:
            return inv.comp(), exact(0, not y.neg)
        im = inv if y.neg else Num.lift(lambda s: -s, lambda s: -s, inv)
        return exact(0, False), im.comp()
    re, im, r = sqrt_parts(x, y)
    neg_im = Num.lift(lambda s: -s, lambda s: -s, im)
    return div_n(re, r).comp(False), div_n(neg_im, r).comp()


def sign_of_sin(x):
    return x.neg if x.zero() else interval_sign(lambda: iv.sin(x.iv))


def op_sin(x, y):
    re = exact(0, x.neg) if x.zero() else enclosed(lambda: iv.sin(x.iv) * cosh_iv(y.q))
    if y.zero():
        im = exact(0, y.neg != interval_sign(lambda: iv.cos(x.iv)))
    else:
        im = enclosed(lambda: iv.cos(x.iv) * sinh_iv(y.q))
    return re, im


def op_cos(x, y):
    re = enclosed(lambda: iv.cos(x.iv) * cosh_iv(y.q))
    if x.zero() or y.zero():
        im = exact(0, not (sign_of_sin(x) != (y.neg if y.zero() else y.q < 0)))
    else:
        im = enclosed(lambda: -(iv.sin(x.iv) * sinh_iv(y.q)))
    return re, im


def op_tan(x, y):
    """tan z = (sin 2x + i sinh 2y) / (cos 2x + cosh 2y), denominator 2(cos^2 x + sinh^2 y)."""

    def den():
        return 2 * (iv.cos(x.iv) ** 2 + sinh_iv(y.q) ** 2)

    re = exact(0, x.neg) if x.zero() else enclosed(lambda: iv.sin(ivq(2 * x.q)) / den())
    im = exact(0, y.neg) if y.zero() else enclosed(lambda: sinh_iv(2 * y.q) / den())
    return re, im


def op_tanh(x, y):
    """tanh z = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), denominator 2(sinh^2 x + cos^2 y)."""

    def den():
        return 2 * (sinh_iv(x.q) ** 2 + iv.cos(y.iv) ** 2)

    re = exact(0, x.neg) if x.zero() else enclosed(lambda: sinh_iv(2 * x.q) / den())
    im = exact(0, y.neg) if y.zero() else enclosed(lambda: iv.sin(ivq(2 * y.q)) / den())
    return re, im


def op_logistic(x, y):
    """1/(1 + e^-z) = (1 + tanh(z/2))/2 = ((e^x + cos y) + i sin y) / (2(cosh x + cos y)),
    with cosh x + cos y = 2(sinh^2(x/2) + cos^2(y/2))."""

    def den():
        return 4 * (sinh_iv(x.q / 2) ** 2 + iv.cos(ivq(y.q / 2)) ** 2)

    re = enclosed(lambda: (iv.exp(x.iv) + iv.cos(y.iv)) / den())
    im = exact(0, y.neg) if y.zero() else enclosed(lambda: iv.sin(y.iv) / den())
    return re, im


def op_sign(x, y):
    if x.zero() and y.zero():
        return exact(0, None), exact(0, None)
    r = Num(exact=x.q * x.q + y.q * y.q).sqrt()
    re = exact(0, x.neg) if x.zero() else div_n(Num(exact=x.q), r).comp()
    im = exact(0, y.neg) if y.zero() else div_n(Num(exact=y.q), r).comp()
    return re, im


def op_abs(x, y):
    return (Num(exact=x.q * x.q + y.q * y.q).sqrt().comp(False),)


def op_negate(x, y):
    return exact(-x.q, not x.neg), exact(-y.q, not y.neg)


def op_real(x, y):
    return (exact(x.q, x.neg),)


def op_imag(x, y):
    return (exact(y.q, y.neg),)


def op_add(a, b):
    (x1, y1), (x2, y2) = a, b
    return exact(x1.q + x2.q, x1.neg and x2.neg), exact(y1.q + y2.q, y1.neg and y2.neg)


def op_subtract(a, b):
    (x1, y1), (x2, y2) = a, b
    return exact(x1.q - x2.q, x1.neg and not x2.neg), exact(y1.q - y2.q, y1.neg and not y2.neg)


def op_multiply(a, b):
    (x1, y1), (x2, y2) = a, b
    return exact(x1.q * x2.q - y1.q * y2.q, None), exact(x1.q * y2.q + y1.q * x2.q, None)


def op_divide(a, b):
    (x1, y1), (x2, y2) = a, b
    d = x2.q * x2.q + y2.q * y2.q
    if d == 0:
        raise Skip("mask")
    return exact((x1.q * x2.q + y1.q * y2.q) / d, None), exact((y1.q * x2.q - x1.q * y2.q) / d, None)


MAX_EXACT_POWER = 64


def cpow_int(x, y, n):
    """(x + iy)^n exactly for an integer n (repeated squaring; n < 0 through the conjugate)."""
    rx, ry = Fraction(1), Fraction(0)
    bx, by = x, y
    k = abs(n)
    while k:
        if k & 1:
            rx, ry = rx * bx - ry * by, rx * by + ry * bx
        bx, by = bx * bx - by * by, 2 * bx * by
        k >>= 1
    if n < 0:
        d = rx * rx + ry * ry
        rx, ry = rx / d, -ry / d
    return rx, ry


def op_power(a, b):
    """z^w = exp(w log z), principal branch (catalog: power, complex)."""
    (x, y), (u, v) = a, b
    if x.zero() and y.zero():
        raise Skip("mask")
    if v.zero() and u.q.denominator == 1 and abs(u.q) <= MAX_EXACT_POWER:
        rx, ry = cpow_int(x.q, y.q, int(u.q))
        return exact(rx, None), exact(ry, None)
    lnr = ln_abs(x, y)
    arg = arg_comp(y, x.q)

    def part(c):
        return ivq(c.exact) if c.exact is not None else c.enclose()

    def big_a():
        return u.iv * part(lnr) - v.iv * part(arg)

    def big_b():
        return u.iv * part(arg) + v.iv * part(lnr)

    if v.zero() and (x.zero() or y.zero()):
        # A base on an axis, z = |z| e^(i theta), theta = s m pi/2 (m = 0, 1 or 2 quarter turns, s
        # the side), and a real exponent: B = u s m pi/2. When u m is an integer t, (cos B, sin B)
        # is a unit (1, 0), (0, 1), (-1, 0) or (0, -1): one component is exactly 0, the other
        # +-|z|^u.
        m = 0 if y.zero() and x.q > 0 else (2 if y.zero() else 1)
        side = -1 if (y.neg if y.zero() else y.q < 0) else 1
        t = u.q * m
        if t.denominator == 1:
            cos_b, sin_b = ((1, 0), (0, 1), (-1, 0), (0, -1))[int(side * t) % 4]

            def scaled(unit):
                if unit == 0:
                    return exact(0, None)
                return enclosed(lambda: iv.exp(big_a()) if unit > 0 else -iv.exp(big_a()))

            return scaled(cos_b), scaled(sin_b)
    re = enclosed(lambda: iv.exp(big_a()) * iv.cos(big_b()), None)
    im = enclosed(lambda: iv.exp(big_a()) * iv.sin(big_b()), None)
    return re, im


# ---------------------------------------------------------------------------------------------
# Cross-check against mpmath's complex functions (the textbook definitions).


def mp_complex(z):
    x, y = z
    return mpmath.mpc(mpmath.mpf(x.q.numerator) / x.q.denominator, mpmath.mpf(y.q.numerator) / y.q.denominator)


CROSS = {
    "exponential": lambda z: mpmath.exp(mp_complex(z)),
    "exponential-minus-one": lambda z: mpmath.expm1(mp_complex(z)),
    "log": lambda z: mpmath.log(mp_complex(z)),
    "log-plus-one": lambda z: mpmath.log(1 + mp_complex(z)),
    "sqrt": lambda z: mpmath.sqrt(mp_complex(z)),
    "rsqrt": lambda z: 1 / mpmath.sqrt(mp_complex(z)),
    "sine": lambda z: mpmath.sin(mp_complex(z)),
    "cosine": lambda z: mpmath.cos(mp_complex(z)),
    "tan": lambda z: mpmath.tan(mp_complex(z)),
    "tanh": lambda z: mpmath.tanh(mp_complex(z)),
    "logistic": lambda z: 1 / (1 + mpmath.exp(-mp_complex(z))),
    "sign": lambda z: mp_complex(z) / abs(mp_complex(z)),
    "power": lambda z, w: mpmath.power(mp_complex(z), mp_complex(w)),
    "abs-complex": lambda z: mpmath.mpc(abs(mp_complex(z)), 0),
}


def cross_check(op_id, fmt, operands, texts, stats):
    f = CROSS.get(op_id)
    if f is None or any(c.neg and c.q == 0 for z in operands for c in z):
        return  # mpmath has no -0: the branch cut side would be lost
    # 1 + z must be exact for log(1 + z): up to 2200 bits for f64 components
    mp.prec = CROSS_CHECK_BITS if op_id != "log-plus-one" else 4000
    try:
        w = f(*operands)
    except (ZeroDivisionError, ValueError, OverflowError):
        return
    w = mpmath.mpc(w)
    for part, text in zip((w.real, w.imag), texts):
        if text == "z":
            continue
        if not mpmath.isfinite(part):
            continue
        bits = mpf_tuple_to_bits(fmt, part._mpf_)
        if bits is not None and bits & ~fmt.sign_bit == 0 and int(text, 16) & ~fmt.sign_bit == 0:
            continue  # a zero: its sign is a convention mpmath does not model
        if bits is None or fmt.hex(bits) != text:
            stats["cross_mismatch"] += 1
            print(
                "  cross-check: %s %s: interval oracle %s, mpmath %s (%s)"
                % (op_id, " ".join(c_text(fmt, z) for z in operands), text, None if bits is None else fmt.hex(bits), mpmath.nstr(part, 20)),
                file=sys.stderr,
            )


def c_text(fmt, z):
    return "%s:%s" % (fmt.hex(z[0].bits), fmt.hex(z[1].bits))
