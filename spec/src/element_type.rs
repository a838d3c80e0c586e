//! Element types (XLA `PrimitiveType`) and the binary formats of their values.
//!
//! Source: seed 000 (Shape proto: element type), seed 004 (ConvertElementType,
//! BitcastConvertType), and the public definitions of the f8 formats
//! (OCP 8-bit floating point and the `*FNUZ` variants used by XLA).
//!
//! Every element of every type is stored as its raw little-endian bits; this
//! module says how wide those bits are and, for floating-point formats, how
//! to read and write them ([`FloatFormat`]).

use std::fmt;
use std::str::FromStr;

/// An XLA element type (`PrimitiveType`), named as HLO text names it (`f32`, `bf16`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    Pred,
    S8,
    S16,
    S32,
    S64,
    U8,
    U16,
    U32,
    U64,
    F16,
    Bf16,
    F32,
    F64,
    C64,
    C128,
    F8E4M3FN,
    F8E5M2,
    F8E4M3FNUZ,
    F8E5M2FNUZ,
    F8E4M3B11FNUZ,
    F8E4M3,
    F8E3M4,
}

/// How a floating-point format spends its special encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialEncoding {
    /// IEEE 754: all-ones exponent encodes ±inf (zero mantissa) and NaN (non-zero mantissa); ±0 exist.
    Ieee,
    /// "FN" (finite, NaN): no infinities; only the all-ones exponent *and* mantissa encode NaN (both signs); ±0 exist.
    FiniteNan,
    /// "FNUZ" (finite, NaN, unsigned zero): no infinities, no −0; the bit pattern of −0 (sign bit alone) is the only NaN.
    Fnuz,
}

/// Parameters of a binary floating-point format with `1 + exponent_bits + mantissa_bits` bits.
///
/// `mantissa_bits` counts the stored (explicit) fraction bits; the precision is `mantissa_bits + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    /// Exponent bias: a normal number with biased exponent `e` is `1.f × 2^(e − bias)`.
    pub bias: i32,
    pub special: SpecialEncoding,
}

/// Classification of a floating-point bit pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatClass {
    Nan,
    Infinite,
    Zero,
    Subnormal,
    Normal,
}

impl FloatFormat {
    pub const F16: FloatFormat = FloatFormat::ieee(5, 10);
    pub const BF16: FloatFormat = FloatFormat::ieee(8, 7);
    pub const F32: FloatFormat = FloatFormat::ieee(8, 23);
    pub const F64: FloatFormat = FloatFormat::ieee(11, 52);

    /// An IEEE 754 binary format with the given field widths (bias `2^(e−1) − 1`).
    pub const fn ieee(exponent_bits: u32, mantissa_bits: u32) -> FloatFormat {
        FloatFormat {
            exponent_bits,
            mantissa_bits,
            bias: (1 << (exponent_bits - 1)) - 1,
            special: SpecialEncoding::Ieee,
        }
    }

    /// Total width in bits (sign + exponent + mantissa).
    pub const fn bit_width(&self) -> u32 {
        1 + self.exponent_bits + self.mantissa_bits
    }

    /// Precision in bits, counting the implicit leading bit.
    pub const fn precision(&self) -> u32 {
        self.mantissa_bits + 1
    }

    /// The unit roundoff `u = 2^−p` (p = [`FloatFormat::precision`]): the largest relative error of
    /// rounding to nearest in the normal range.
    pub fn unit_roundoff(&self) -> f64 {
        (-(self.precision() as f64)).exp2()
    }

    pub const fn has_infinity(&self) -> bool {
        matches!(self.special, SpecialEncoding::Ieee)
    }

    pub const fn has_nan(&self) -> bool {
        true
    }

    pub const fn has_negative_zero(&self) -> bool {
        !matches!(self.special, SpecialEncoding::Fnuz)
    }

    fn sign_mask(&self) -> u64 {
        1u64 << (self.exponent_bits + self.mantissa_bits)
    }

    fn mantissa_mask(&self) -> u64 {
        (1u64 << self.mantissa_bits) - 1
    }

    fn exponent_field(&self, bits: u64) -> u64 {
        (bits >> self.mantissa_bits) & ((1u64 << self.exponent_bits) - 1)
    }

    fn max_exponent_field(&self) -> u64 {
        (1u64 << self.exponent_bits) - 1
    }

    /// Unbiased exponent of the smallest normal number (`1 − bias`).
    pub const fn min_normal_exponent(&self) -> i32 {
        1 - self.bias
    }

    /// Unbiased exponent of the largest finite number.
    pub fn max_exponent(&self) -> i32 {
        let top = self.max_exponent_field() as i32;
        match self.special {
            SpecialEncoding::Ieee => top - 1 - self.bias,
            _ => top - self.bias,
        }
    }

    /// Classifies a bit pattern (only the low `bit_width()` bits are read).
    pub fn classify(&self, bits: u64) -> FloatClass {
        let bits = bits & self.all_mask();
        let e = self.exponent_field(bits);
        let m = bits & self.mantissa_mask();
        match self.special {
            SpecialEncoding::Ieee if e == self.max_exponent_field() => {
                if m == 0 {
                    FloatClass::Infinite
                } else {
                    FloatClass::Nan
                }
            }
            SpecialEncoding::FiniteNan
                if e == self.max_exponent_field() && m == self.mantissa_mask() =>
            {
                FloatClass::Nan
            }
            SpecialEncoding::Fnuz if bits == self.sign_mask() => FloatClass::Nan,
            _ if e == 0 && m == 0 => FloatClass::Zero,
            _ if e == 0 => FloatClass::Subnormal,
            _ => FloatClass::Normal,
        }
    }

    fn all_mask(&self) -> u64 {
        if self.bit_width() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bit_width()) - 1
        }
    }

    /// True when the sign bit of `bits` is set (NaN included).
    pub fn sign_bit(&self, bits: u64) -> bool {
        bits & self.sign_mask() != 0
    }

    /// The bits of the largest finite value (positive).
    pub fn max_finite_bits(&self) -> u64 {
        let top = self.max_exponent_field();
        match self.special {
            SpecialEncoding::Ieee => ((top - 1) << self.mantissa_bits) | self.mantissa_mask(),
            SpecialEncoding::FiniteNan => (top << self.mantissa_bits) | (self.mantissa_mask() - 1),
            SpecialEncoding::Fnuz => (top << self.mantissa_bits) | self.mantissa_mask(),
        }
    }

    /// The largest finite value.
    pub fn max_finite(&self) -> f64 {
        self.decode(self.max_finite_bits())
    }

    /// The smallest positive normal value, `2^(1 − bias)`.
    pub fn min_normal(&self) -> f64 {
        pow2(self.min_normal_exponent())
    }

    /// The smallest positive subnormal value, `2^(1 − bias − mantissa_bits)`.
    pub fn min_subnormal(&self) -> f64 {
        pow2(self.min_normal_exponent() - self.mantissa_bits as i32)
    }

    /// Bits of +inf, or `None` for formats without infinities.
    pub fn infinity_bits(&self) -> Option<u64> {
        self.has_infinity()
            .then(|| self.max_exponent_field() << self.mantissa_bits)
    }

    /// Bits of the canonical (quiet, positive) NaN.
    pub fn nan_bits(&self) -> u64 {
        match self.special {
            SpecialEncoding::Ieee => {
                (self.max_exponent_field() << self.mantissa_bits)
                    | (1u64 << (self.mantissa_bits - 1))
            }
            SpecialEncoding::FiniteNan => {
                (self.max_exponent_field() << self.mantissa_bits) | self.mantissa_mask()
            }
            SpecialEncoding::Fnuz => self.sign_mask(),
        }
    }

    /// True for a signaling NaN (IEEE 754 §6.2.1: a NaN whose most significant stored fraction bit
    /// is 0). Only IEEE-encoded formats have them: the single NaN of an FN or FNUZ format is quiet.
    pub fn is_signaling_nan(&self, bits: u64) -> bool {
        self.special == SpecialEncoding::Ieee
            && self.classify(bits) == FloatClass::Nan
            && bits & (1u64 << (self.mantissa_bits - 1)) == 0
    }

    /// Bits of −0, or of +0 in formats that have no −0.
    pub fn negative_zero_bits(&self) -> u64 {
        if self.has_negative_zero() {
            self.sign_mask()
        } else {
            0
        }
    }

    /// Flips the sign of a value's bits (NaN stays NaN; in FNUZ formats 0 stays 0).
    pub fn negate_bits(&self, bits: u64) -> u64 {
        match self.special {
            SpecialEncoding::Fnuz if bits & !self.sign_mask() & self.all_mask() == 0 => bits,
            _ => bits ^ self.sign_mask(),
        }
    }

    /// Decodes a bit pattern into the `f64` with the same value (exact: every format here fits in f64).
    /// NaN decodes to a NaN whose sign follows the sign bit.
    pub fn decode(&self, bits: u64) -> f64 {
        if *self == FloatFormat::F64 {
            return f64::from_bits(bits);
        }
        if *self == FloatFormat::F32 {
            return f32::from_bits(bits as u32) as f64;
        }
        let negative = self.sign_bit(bits);
        let sign = if negative { -1.0 } else { 1.0 };
        match self.classify(bits) {
            FloatClass::Nan => {
                if negative {
                    -f64::NAN
                } else {
                    f64::NAN
                }
            }
            FloatClass::Infinite => sign * f64::INFINITY,
            FloatClass::Zero => sign * 0.0,
            FloatClass::Subnormal => {
                let m = (bits & self.mantissa_mask()) as f64;
                sign * m * self.min_subnormal()
            }
            FloatClass::Normal => {
                let e = self.exponent_field(bits) as i32 - self.bias;
                let m = (bits & self.mantissa_mask()) | (1u64 << self.mantissa_bits);
                sign * (m as f64) * pow2(e - self.mantissa_bits as i32)
            }
        }
    }

    /// Encodes an `f64` into this format, rounding to nearest, ties to even, with subnormals.
    ///
    /// Overflow (a rounded magnitude above [`FloatFormat::max_finite`]) gives ±inf, or NaN in formats
    /// without infinities; NaN gives the canonical NaN with the input's sign where the format has one.
    /// For `x` exactly representable in the format this is exact, so it is also the inverse of [`FloatFormat::decode`].
    pub fn encode(&self, x: f64) -> u64 {
        if *self == FloatFormat::F64 {
            return x.to_bits();
        }
        if *self == FloatFormat::F32 {
            return (x as f32).to_bits() as u64;
        }
        let sign = if x.is_sign_negative() {
            self.sign_mask()
        } else {
            0
        };
        if x.is_nan() {
            return match self.special {
                SpecialEncoding::Fnuz => self.nan_bits(),
                _ => self.nan_bits() | sign,
            };
        }
        let a = x.abs();
        let overflow = || match self.infinity_bits() {
            Some(inf) => inf | sign,
            None => self.nan_bits() | if self.has_negative_zero() { sign } else { 0 },
        };
        if a.is_infinite() {
            return overflow();
        }
        if a == 0.0 {
            return if self.has_negative_zero() { sign } else { 0 };
        }
        // Quantum (ulp) of the format at the magnitude of `a`, then round a / quantum to an integer (RNE).
        let (_, exp) = frexp(a); // a = f * 2^exp with f in [0.5, 1)
        let e = (exp - 1).max(self.min_normal_exponent());
        let quantum_exp = e - self.mantissa_bits as i32;
        let scaled = ldexp(a, -quantum_exp); // exact: only the exponent changes (no overflow for our ranges)
        let mut q = scaled.round_ties_even();
        let mut qe = quantum_exp;
        if q >= (1u64 << (self.mantissa_bits + 1)) as f64 {
            q /= 2.0;
            qe += 1;
        }
        let q = q as u64;
        if q == 0 {
            return if self.has_negative_zero() { sign } else { 0 };
        }
        let magnitude = if q < (1u64 << self.mantissa_bits) {
            q // subnormal
        } else {
            let biased = (qe + self.mantissa_bits as i32 + self.bias) as u64;
            if qe + self.mantissa_bits as i32 > self.max_exponent() {
                return overflow();
            }
            (biased << self.mantissa_bits) | (q & self.mantissa_mask())
        };
        if magnitude > self.max_finite_bits() {
            return overflow();
        }
        magnitude | sign
    }

    /// Maps bits to an integer that is monotone in the value: consecutive representable values map to
    /// consecutive integers and ±0 both map to 0, so `|ordered(a) − ordered(b)|` is the distance in ULPs.
    /// NaN has no place in this order (callers treat it separately); its sign-magnitude image is returned.
    pub fn to_ordered(&self, bits: u64) -> i64 {
        let bits = bits & self.all_mask();
        let magnitude = (bits & !self.sign_mask()) as i64;
        if self.sign_bit(bits) {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The inverse of [`FloatFormat::to_ordered`] (0 maps to +0).
    pub fn from_ordered(&self, ordered: i64) -> u64 {
        if ordered < 0 {
            ordered.unsigned_abs() | self.sign_mask()
        } else {
            ordered as u64
        }
    }
}

/// `2^e` as an f64, exact for the range of every format here including f64 subnormals.
pub fn pow2(e: i32) -> f64 {
    ldexp(1.0, e)
}

/// `x × 2^e`, correctly rounded (exact whenever the result is representable).
pub fn ldexp(mut x: f64, mut e: i32) -> f64 {
    // Scale in steps that keep every intermediate exact, as C's scalbn does.
    while e > 1000 {
        x *= f64::from_bits(((1023 + 1000) as u64) << 52);
        e -= 1000;
    }
    while e < -1000 {
        x *= f64::from_bits(((1023 - 1000) as u64) << 52);
        e += 1000;
        if x == 0.0 {
            return x;
        }
    }
    if e >= -1022 {
        x * f64::from_bits(((1023 + e) as u64) << 52)
    } else {
        // Two steps so that at most one rounding happens (at the final subnormal result).
        let x = x * f64::from_bits(((1023 - 1022) as u64) << 52);
        x * f64::from_bits(((1023 + e + 1022) as u64) << 52)
    }
}

/// Splits a finite non-zero `x` into `f × 2^e` with `0.5 ≤ |f| < 1`.
pub fn frexp(x: f64) -> (f64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        let (f, e) = frexp(x * pow2(64));
        return (f, e - 64);
    }
    let f = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (f, biased - 1022)
}

/// The broad kind of an element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    Pred,
    SignedInteger,
    UnsignedInteger,
    Float,
    Complex,
}

impl ElementType {
    /// Every element type, in the order of the table above.
    pub const ALL: [ElementType; 22] = [
        ElementType::Pred,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::F16,
        ElementType::Bf16,
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
        ElementType::F8E4M3FN,
        ElementType::F8E5M2,
        ElementType::F8E4M3FNUZ,
        ElementType::F8E5M2FNUZ,
        ElementType::F8E4M3B11FNUZ,
        ElementType::F8E4M3,
        ElementType::F8E3M4,
    ];

    /// The name used in HLO text (`pred`, `s32`, `bf16`, `f8e4m3fn`, ...).
    pub fn hlo_name(self) -> &'static str {
        use ElementType::*;
        match self {
            Pred => "pred",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            F16 => "f16",
            Bf16 => "bf16",
            F32 => "f32",
            F64 => "f64",
            C64 => "c64",
            C128 => "c128",
            F8E4M3FN => "f8e4m3fn",
            F8E5M2 => "f8e5m2",
            F8E4M3FNUZ => "f8e4m3fnuz",
            F8E5M2FNUZ => "f8e5m2fnuz",
            F8E4M3B11FNUZ => "f8e4m3b11fnuz",
            F8E4M3 => "f8e4m3",
            F8E3M4 => "f8e3m4",
        }
    }

    /// Parses an HLO element type name (case-insensitive: `PRED`, `F32` and `f32` are accepted).
    pub fn from_hlo_name(name: &str) -> Option<ElementType> {
        let lower = name.to_ascii_lowercase();
        ElementType::ALL.into_iter().find(|t| t.hlo_name() == lower)
    }

    pub fn kind(self) -> TypeKind {
        use ElementType::*;
        match self {
            Pred => TypeKind::Pred,
            S8 | S16 | S32 | S64 => TypeKind::SignedInteger,
            U8 | U16 | U32 | U64 => TypeKind::UnsignedInteger,
            C64 | C128 => TypeKind::Complex,
            _ => TypeKind::Float,
        }
    }

    /// Storage width of one element in bits (PRED: 8, as XLA stores it).
    pub fn bit_width(self) -> u32 {
        use ElementType::*;
        match self {
            Pred | S8 | U8 => 8,
            S16 | U16 | F16 | Bf16 => 16,
            S32 | U32 | F32 => 32,
            S64 | U64 | F64 | C64 => 64,
            C128 => 128,
            F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E4M3 | F8E3M4 => 8,
        }
    }

    /// Storage width of one element in bytes.
    pub fn byte_width(self) -> usize {
        (self.bit_width() / 8) as usize
    }

    pub fn is_pred(self) -> bool {
        self == ElementType::Pred
    }
    pub fn is_integer(self) -> bool {
        matches!(
            self.kind(),
            TypeKind::SignedInteger | TypeKind::UnsignedInteger
        )
    }
    pub fn is_signed_integer(self) -> bool {
        self.kind() == TypeKind::SignedInteger
    }
    pub fn is_unsigned_integer(self) -> bool {
        self.kind() == TypeKind::UnsignedInteger
    }
    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }
    pub fn is_complex(self) -> bool {
        self.kind() == TypeKind::Complex
    }
    /// Floating-point or complex.
    pub fn is_floating(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// The format of a real float type, or of each component of a complex type.
    pub fn float_format(self) -> Option<FloatFormat> {
        use ElementType::*;
        let fnuz = |e, m, bias| FloatFormat {
            exponent_bits: e,
            mantissa_bits: m,
            bias,
            special: SpecialEncoding::Fnuz,
        };
        Some(match self {
            F16 => FloatFormat::F16,
            Bf16 => FloatFormat::BF16,
            F32 | C64 => FloatFormat::F32,
            F64 | C128 => FloatFormat::F64,
            F8E4M3FN => FloatFormat {
                exponent_bits: 4,
                mantissa_bits: 3,
                bias: 7,
                special: SpecialEncoding::FiniteNan,
            },
            F8E5M2 => FloatFormat::ieee(5, 2),
            F8E4M3 => FloatFormat::ieee(4, 3),
            F8E3M4 => FloatFormat::ieee(3, 4),
            F8E4M3FNUZ => fnuz(4, 3, 8),
            F8E5M2FNUZ => fnuz(5, 2, 16),
            F8E4M3B11FNUZ => fnuz(4, 3, 11),
            _ => return None,
        })
    }

    /// For a complex type, the type of its components (C64 → F32, C128 → F64).
    pub fn complex_component(self) -> Option<ElementType> {
        match self {
            ElementType::C64 => Some(ElementType::F32),
            ElementType::C128 => Some(ElementType::F64),
            _ => None,
        }
    }

    /// Integer range `[min, max]` for integer types (PRED: `[0, 1]`).
    pub fn integer_range(self) -> Option<(i128, i128)> {
        use ElementType::*;
        Some(match self {
            Pred => (0, 1),
            S8 => (i8::MIN as i128, i8::MAX as i128),
            S16 => (i16::MIN as i128, i16::MAX as i128),
            S32 => (i32::MIN as i128, i32::MAX as i128),
            S64 => (i64::MIN as i128, i64::MAX as i128),
            U8 => (0, u8::MAX as i128),
            U16 => (0, u16::MAX as i128),
            U32 => (0, u32::MAX as i128),
            U64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// Reads an integer element from its bits (sign-extended for signed types; PRED: any non-zero byte is 1).
    pub fn integer_from_bits(self, bits: u64) -> Option<i128> {
        use ElementType::*;
        Some(match self {
            Pred => (bits & 0xff != 0) as i128,
            S8 => bits as u8 as i8 as i128,
            S16 => bits as u16 as i16 as i128,
            S32 => bits as u32 as i32 as i128,
            S64 => bits as i64 as i128,
            U8 => (bits as u8) as i128,
            U16 => (bits as u16) as i128,
            U32 => (bits as u32) as i128,
            U64 => bits as i128,
            _ => return None,
        })
    }

    /// Writes an integer into this type's bits with two's-complement wrapping (PRED: non-zero → 1).
    pub fn integer_to_bits(self, value: i128) -> Option<u64> {
        if self == ElementType::Pred {
            return Some((value != 0) as u64);
        }
        if !self.is_integer() {
            return None;
        }
        let w = self.bit_width();
        let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        Some((value as u64) & mask)
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.hlo_name())
    }
}

/// Error for an unknown element type name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown element type `{0}` (expected one of pred, s8..s64, u8..u64, f16, bf16, f32, f64, c64, c128, f8e4m3fn, f8e5m2, ...)")]
pub struct UnknownElementType(pub String);

impl FromStr for ElementType {
    type Err = UnknownElementType;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ElementType::from_hlo_name(s).ok_or_else(|| UnknownElementType(s.to_string()))
    }
}

impl serde::Serialize for ElementType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.hlo_name())
    }
}

impl<'de> serde::Deserialize<'de> for ElementType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(t: ElementType) -> FloatFormat {
        t.float_format().unwrap()
    }

    #[test]
    fn names_round_trip() {
        for t in ElementType::ALL {
            assert_eq!(ElementType::from_hlo_name(t.hlo_name()), Some(t));
            assert_eq!(t.to_string().parse::<ElementType>(), Ok(t));
        }
        assert_eq!(ElementType::from_hlo_name("PRED"), Some(ElementType::Pred));
        assert!("f7".parse::<ElementType>().is_err());
    }

    #[test]
    fn widths() {
        assert_eq!(ElementType::Pred.bit_width(), 8);
        assert_eq!(ElementType::Bf16.byte_width(), 2);
        assert_eq!(ElementType::C128.byte_width(), 16);
        assert_eq!(ElementType::F8E4M3FN.bit_width(), 8);
        for t in ElementType::ALL {
            if let Some(f) = t.float_format() {
                if t.is_float() {
                    assert_eq!(f.bit_width(), t.bit_width(), "{t}");
                } else {
                    assert_eq!(2 * f.bit_width(), t.bit_width(), "{t}");
                }
            }
        }
    }

    #[test]
    fn limits_match_known_values() {
        assert_eq!(fmt(ElementType::F16).max_finite(), 65504.0);
        assert_eq!(fmt(ElementType::F16).min_subnormal(), 2f64.powi(-24));
        assert_eq!(
            fmt(ElementType::Bf16).max_finite(),
            f32::from_bits(0x7f7f0000) as f64
        );
        assert_eq!(fmt(ElementType::F32).max_finite(), f32::MAX as f64);
        assert_eq!(
            fmt(ElementType::F32).min_subnormal(),
            f32::from_bits(1) as f64
        );
        assert_eq!(fmt(ElementType::F64).max_finite(), f64::MAX);
        assert_eq!(fmt(ElementType::F64).min_subnormal(), f64::from_bits(1));
        assert_eq!(fmt(ElementType::F8E4M3FN).max_finite(), 448.0);
        assert_eq!(fmt(ElementType::F8E4M3FN).min_subnormal(), 2f64.powi(-9));
        assert_eq!(fmt(ElementType::F8E5M2).max_finite(), 57344.0);
        assert_eq!(fmt(ElementType::F8E5M2).min_subnormal(), 2f64.powi(-16));
        assert_eq!(fmt(ElementType::F8E4M3FNUZ).max_finite(), 240.0);
        assert_eq!(fmt(ElementType::F8E5M2FNUZ).max_finite(), 57344.0);
        assert_eq!(fmt(ElementType::F8E4M3B11FNUZ).max_finite(), 30.0);
        assert_eq!(fmt(ElementType::F8E4M3).max_finite(), 240.0);
        assert_eq!(fmt(ElementType::F8E3M4).max_finite(), 15.5);
        assert!(!fmt(ElementType::F8E4M3FN).has_infinity());
        assert!(fmt(ElementType::F8E5M2).has_infinity());
        assert!(!fmt(ElementType::F8E5M2FNUZ).has_negative_zero());
    }

    #[test]
    fn f8e4m3fn_specials() {
        let f = fmt(ElementType::F8E4M3FN);
        assert_eq!(f.classify(0x7f), FloatClass::Nan);
        assert_eq!(f.classify(0xff), FloatClass::Nan);
        assert_eq!(f.classify(0x7e), FloatClass::Normal);
        assert_eq!(f.classify(0x78), FloatClass::Normal);
        assert_eq!(f.decode(0x78), 256.0);
        assert_eq!(f.encode(1e6), 0x7f); // overflow: NaN, no infinity
        assert_eq!(f.encode(-1e6), 0xff);
        assert_eq!(f.encode(464.0), 0x7e); // tie between 448 (mantissa 110, even) and the NaN slot: 448
        assert_eq!(f.encode(470.0), 0x7f); // rounds past 448: overflow, NaN
    }

    #[test]
    fn decode_encode_is_identity_on_every_small_format() {
        for t in ElementType::ALL {
            let Some(f) = t.float_format() else { continue };
            if f.bit_width() > 16 || !t.is_float() {
                continue;
            }
            for bits in 0..(1u64 << f.bit_width()) {
                let x = f.decode(bits);
                if x.is_nan() {
                    assert_eq!(f.classify(bits), FloatClass::Nan);
                    continue;
                }
                assert_eq!(f.encode(x), bits, "{t} bits {bits:#x} value {x}");
            }
        }
    }

    #[test]
    fn encode_rounds_to_nearest_even_like_half() {
        // `half` converts f32 → f16/bf16 with round-to-nearest-even: compare on many f32 values.
        // (Its f64 entry points round through f32 first, a double rounding, so they are not used.)
        let mut x = 1.0e-9f64;
        while x < 1.0e6 {
            for v in [x, -x, x * 1.000_000_1, x * 0.999_999_9] {
                let v = v as f32 as f64;
                assert_eq!(
                    fmt(ElementType::F16).encode(v),
                    half::f16::from_f32(v as f32).to_bits() as u64,
                    "f16 {v}"
                );
                assert_eq!(
                    fmt(ElementType::Bf16).encode(v),
                    half::bf16::from_f32(v as f32).to_bits() as u64,
                    "bf16 {v}"
                );
            }
            x *= 1.013;
        }
        // Ties: 1 + 2^-11 lies halfway between 1 and the next f16; RNE gives 1.
        assert_eq!(fmt(ElementType::F16).encode(1.0 + 2f64.powi(-11)), 0x3c00);
        assert_eq!(
            fmt(ElementType::F16).encode(1.0 + 3.0 * 2f64.powi(-11)),
            0x3c02
        );
        // Overflow threshold: 65520 = max + half ulp rounds to inf; just below stays finite.
        assert_eq!(fmt(ElementType::F16).encode(65520.0), 0x7c00);
        assert_eq!(fmt(ElementType::F16).encode(65519.99), 0x7bff);
        // Smallest subnormal and half of it (tie → 0).
        assert_eq!(fmt(ElementType::F16).encode(2f64.powi(-24)), 1);
        assert_eq!(fmt(ElementType::F16).encode(2f64.powi(-25)), 0);
        assert_eq!(fmt(ElementType::F16).encode(-2f64.powi(-25)), 0x8000);
    }

    #[test]
    fn ordered_map_counts_ulps() {
        let f = FloatFormat::F32;
        let to = |x: f32| f.to_ordered(x.to_bits() as u64);
        assert_eq!(to(0.0), 0);
        assert_eq!(to(-0.0), 0);
        assert_eq!(to(f32::from_bits(1)), 1);
        assert_eq!(to(-f32::from_bits(1)), -1);
        assert_eq!(to(f32::INFINITY) - to(f32::MAX), 1);
        assert_eq!(to(1.0) - to(1.0 - f32::EPSILON / 2.0), 1);
        for ordered in [-5i64, 0, 7, 0x7f80_0000] {
            assert_eq!(f.to_ordered(f.from_ordered(ordered)), ordered);
        }
    }

    #[test]
    fn integers_wrap() {
        assert_eq!(ElementType::S8.integer_to_bits(128), Some(0x80));
        assert_eq!(ElementType::S8.integer_from_bits(0x80), Some(-128));
        assert_eq!(ElementType::U16.integer_to_bits(-1), Some(0xffff));
        assert_eq!(ElementType::Pred.integer_to_bits(5), Some(1));
        assert_eq!(ElementType::F32.integer_to_bits(5), None);
    }
}
