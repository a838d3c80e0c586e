//! Narrow floating-point formats (f16, bf16 and the f8 types): exact decoding into `f64` and
//! rounding back with one rounding.
//!
//! Every value of these formats is exactly an `f64`, so `decode` is exact; a result computed in
//! `f64` is rounded once into the format by [`FloatFormat::encode`] (round to nearest, ties to even,
//! with subnormals, overflow to ±inf or NaN per the format). The 8-bit formats decode through a
//! 256-entry table.

use conformance_spec::{ElementType, FloatFormat};

/// Rounds an f32 to bf16 bits, to nearest even (NaN stays NaN, quieted): the f32 bits plus a
/// rounding bias, truncated.
#[inline(always)]
pub fn bf16_from_f32(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        ((b >> 16) | 0x40) as u16
    } else {
        ((b + 0x7fff + ((b >> 16) & 1)) >> 16) as u16
    }
}

/// The f32 value of bf16 bits (exact).
#[inline(always)]
pub fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits((b as u32) << 16)
}

/// Decoder and encoder of one narrow float format.
#[derive(Clone, Debug)]
pub struct Narrow {
    pub ty: ElementType,
    pub fmt: FloatFormat,
    table: Option<Box<[f64; 256]>>,
}

impl Narrow {
    /// The codec of a real float type narrower than f32 (`None` for f32, f64 and non-floats).
    pub fn new(ty: ElementType) -> Option<Narrow> {
        if !ty.is_float() || ty.bit_width() > 16 {
            return None;
        }
        let fmt = ty.float_format()?;
        let table = (ty.bit_width() == 8).then(|| {
            let mut t = Box::new([0f64; 256]);
            for (bits, v) in t.iter_mut().enumerate() {
                *v = fmt.decode(bits as u64);
            }
            t
        });
        Some(Narrow { ty, fmt, table })
    }

    /// The exact value of a bit pattern (NaN keeps the sign bit).
    #[inline]
    pub fn decode(&self, bits: u64) -> f64 {
        match (&self.table, self.ty) {
            (Some(t), _) => t[(bits & 0xff) as usize],
            (None, ElementType::F16) => half::f16::from_bits(bits as u16).to_f64(),
            (None, ElementType::Bf16) => f32::from_bits((bits as u32) << 16) as f64,
            _ => self.fmt.decode(bits),
        }
    }

    /// Rounds an `f64` once into the format (see [`FloatFormat::encode`]).
    #[inline]
    pub fn encode(&self, x: f64) -> u64 {
        self.fmt.encode(x)
    }

    /// Rounds an `f32` into f16 or bf16 (round to nearest even; `half`'s f32 conversions round once),
    /// other formats through [`Narrow::encode`].
    #[inline]
    pub fn encode_f32(&self, x: f32) -> u64 {
        match self.ty {
            ElementType::F16 => half::f16::from_f32(x).to_bits() as u64,
            ElementType::Bf16 => bf16_from_f32(x) as u64,
            _ => self.fmt.encode(x as f64),
        }
    }

    /// True for f16 and bf16, whose basic arithmetic is exact after one rounding when done in f32:
    /// f32 has `24 ≥ 2p + 2` bits for p = 11 and p = 8, so rounding the f32 result again is
    /// innocuous for +, −, ×, ÷ and √ (Figueroa, "When is double rounding innocuous?", 1995).
    pub fn arithmetic_in_f32(&self) -> bool {
        matches!(self.ty, ElementType::F16 | ElementType::Bf16)
    }

    /// The value as an `f32` (exact for f16, bf16 and the f8 types).
    #[inline]
    pub fn decode_f32(&self, bits: u64) -> f32 {
        match self.ty {
            ElementType::F16 => half::f16::from_bits(bits as u16).to_f32(),
            ElementType::Bf16 => f32::from_bits((bits as u32) << 16),
            _ => self.decode(bits) as f32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounding_matches_half() {
        let mut s = 0x1234_5678u32;
        for _ in 0..1_000_000 {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let x = f32::from_bits(s);
            let (mine, theirs) = (bf16_from_f32(x), half::bf16::from_f32(x).to_bits());
            assert!(
                mine == theirs || (x.is_nan() && bf16_to_f32(mine).is_nan()),
                "{x:e}"
            );
        }
        assert_eq!(bf16_from_f32(f32::MAX), 0x7f80);
        assert_eq!(bf16_from_f32(1.0 + 2f32.powi(-8)), 0x3f80); // tie to even
        assert_eq!(bf16_from_f32(f32::from_bits(1)), 0); // below half the smallest subnormal
    }

    #[test]
    fn decode_encode_round_trip_every_pattern() {
        for ty in ElementType::ALL {
            let Some(n) = Narrow::new(ty) else { continue };
            for bits in 0..(1u64 << ty.bit_width()) {
                let x = n.decode(bits);
                let y = n.fmt.decode(bits);
                if y.is_nan() {
                    assert!(x.is_nan() && n.decode_f32(bits).is_nan(), "{ty} {bits:#x}");
                    assert_eq!(x.is_sign_negative(), y.is_sign_negative(), "{ty} {bits:#x}");
                    continue;
                }
                assert_eq!(x.to_bits(), y.to_bits(), "{ty} {bits:#x}");
                assert_eq!(n.decode_f32(bits).to_bits(), (x as f32).to_bits());
                if !x.is_nan() {
                    assert_eq!(n.encode(x), bits, "{ty} {bits:#x}");
                    assert_eq!(n.encode_f32(x as f32), bits, "{ty} {bits:#x}");
                }
            }
        }
        assert!(Narrow::new(ElementType::F32).is_none());
    }
}
