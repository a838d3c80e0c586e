//! Element values biased to where implementations break: NaN, ±inf, ±0, subnormals, ±largest
//! finite, values near an operation's overflow and underflow thresholds, and rounding ties.

use super::rng::Rng;
use conformance_spec::element_type::{ElementType, FloatFormat};
use conformance_spec::literal::complex_bits;

/// Classes of values the generator draws from; a sweep's configuration may disable some.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ValueClass {
    /// NaN (both signs, with payloads), ±inf, ±0.
    Special,
    /// Non-zero values with a zero exponent field.
    Subnormal,
    /// ±largest finite, ±smallest normal, ±smallest subnormal and their neighbours.
    Extreme,
    /// Within a few ULPs of an operation's threshold (overflow of exp, poles of tan, ...).
    Threshold,
    /// Exactly halfway between two values of a narrower format (rounding ties), or one ULP off.
    Tie,
    /// Small integers (−4..=4) and halves.
    Small,
    /// Random sign, exponent and mantissa over the whole normal range.
    Normal,
    /// Uniformly random bits.
    Bits,
}

impl ValueClass {
    pub const ALL: [ValueClass; 8] = [
        ValueClass::Special,
        ValueClass::Subnormal,
        ValueClass::Extreme,
        ValueClass::Threshold,
        ValueClass::Tie,
        ValueClass::Small,
        ValueClass::Normal,
        ValueClass::Bits,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ValueClass::Special => "special",
            ValueClass::Subnormal => "subnormal",
            ValueClass::Extreme => "extreme",
            ValueClass::Threshold => "threshold",
            ValueClass::Tie => "tie",
            ValueClass::Small => "small",
            ValueClass::Normal => "normal",
            ValueClass::Bits => "bits",
        }
    }

    fn weight(self) -> u64 {
        match self {
            ValueClass::Special => 10,
            ValueClass::Subnormal => 8,
            ValueClass::Extreme => 8,
            ValueClass::Threshold => 14,
            ValueClass::Tie => 10,
            ValueClass::Small => 12,
            ValueClass::Normal => 28,
            ValueClass::Bits => 10,
        }
    }
}

/// What an operation makes interesting, for one operand.
#[derive(Clone, Debug, Default)]
pub struct ValueHints {
    /// Input values near which results change behaviour (overflow, underflow, poles, saturation).
    pub thresholds: Vec<f64>,
    /// A narrower format whose rounding ties are worth hitting (e.g. the target of a convert).
    pub tie_format: Option<FloatFormat>,
    /// For integer operands: an upper bound of "small" values (shift amounts: the bit width + 2).
    pub small_int_max: Option<i128>,
}

/// Draws one element of type `ty` from the enabled value classes.
pub fn element(rng: &mut Rng, ty: ElementType, hints: &ValueHints, classes: &[ValueClass]) -> u128 {
    let rng = rng.values();
    if ty.is_pred() {
        return rng.below(2) as u128;
    }
    if ty.is_integer() {
        return integer(rng, ty, hints) as u128;
    }
    let f = ty.float_format().expect("floating types have a format");
    if ty.is_complex() {
        let re = float(rng, f, hints, classes);
        let im = float(rng, f, hints, classes);
        return complex_bits(f, re, im);
    }
    float(rng, f, hints, classes) as u128
}

fn integer(rng: &mut Rng, ty: ElementType, hints: &ValueHints) -> u64 {
    let (lo, hi) = ty.integer_range().expect("integer type");
    let v: i128 = match rng.below(8) {
        0 => *rng.pick(&[lo, hi, lo + 1, hi - 1, 0, 1, -1]),
        1 | 2 => rng.range_i64(-4, 4) as i128,
        3 => match hints.small_int_max {
            Some(m) => rng.range_i64(0, m as i64) as i128,
            None => rng.range_i64(-100, 100) as i128,
        },
        4 => {
            // A power of two, or one off it.
            let k = rng.below(ty.bit_width() as u64) as u32;
            (1i128 << k) + rng.range_i64(-1, 1) as i128
        }
        _ => rng.next_u64() as i128,
    };
    ty.integer_to_bits(v).expect("integer type")
}

fn float(rng: &mut Rng, f: FloatFormat, hints: &ValueHints, classes: &[ValueClass]) -> u64 {
    let available: Vec<ValueClass> = classes
        .iter()
        .copied()
        .filter(|c| match c {
            ValueClass::Threshold => !hints.thresholds.is_empty(),
            _ => true,
        })
        .collect();
    let class = if available.is_empty() {
        ValueClass::Normal
    } else {
        let total: u64 = available.iter().map(|c| c.weight()).sum();
        let mut pick = rng.below(total);
        let mut chosen = available[0];
        for c in &available {
            if pick < c.weight() {
                chosen = *c;
                break;
            }
            pick -= c.weight();
        }
        chosen
    };
    float_of_class(rng, f, hints, class)
}

/// One float of the given class.
pub fn float_of_class(rng: &mut Rng, f: FloatFormat, hints: &ValueHints, class: ValueClass) -> u64 {
    let sign = |rng: &mut Rng, bits: u64| {
        if rng.chance(0.5) {
            f.negate_bits(bits)
        } else {
            bits
        }
    };
    let mantissa_mask = (1u64 << f.mantissa_bits) - 1;
    match class {
        ValueClass::Special => {
            let mut options = vec![
                f.nan_bits(),
                f.negate_bits(f.nan_bits()),
                0,
                f.negative_zero_bits(),
            ];
            if let Some(inf) = f.infinity_bits() {
                options.extend([inf, f.negate_bits(inf)]);
                // A NaN with a payload (quiet bit set plus other mantissa bits).
                if f.mantissa_bits >= 2 {
                    options.push(inf | 1 | (1u64 << (f.mantissa_bits - 1)));
                }
            }
            *rng.pick(&options)
        }
        ValueClass::Subnormal => {
            let m = 1 + rng.below(mantissa_mask.max(1));
            sign(rng, m & mantissa_mask.max(1))
        }
        ValueClass::Extreme => {
            let max = f.max_finite_bits();
            let min_normal = 1u64 << f.mantissa_bits;
            let one = f.encode(1.0);
            let options = [
                max,
                max - 1,
                min_normal,
                min_normal + 1,
                min_normal - 1,
                1,
                2,
                one + 1,
                one - 1,
            ];
            let v = *rng.pick(&options);
            sign(rng, v)
        }
        ValueClass::Threshold => {
            let t = *rng.pick(&hints.thresholds);
            let bits = f.encode(t);
            let ordered = f.to_ordered(bits) + rng.range_i64(-3, 3);
            let out = f.from_ordered(ordered);
            if f.classify(out) == conformance_spec::FloatClass::Nan {
                bits
            } else {
                out
            }
        }
        ValueClass::Tie => {
            let narrow = hints.tie_format.unwrap_or(FloatFormat {
                exponent_bits: f.exponent_bits,
                mantissa_bits: f.mantissa_bits.saturating_sub(1).max(1),
                bias: f.bias,
                special: f.special,
            });
            // A random value of the narrow format, plus half its ULP: a tie in the narrow format.
            let e = rng.range_i64(-6, 6) as i32;
            let m = rng.below(1u64 << narrow.mantissa_bits.min(20));
            let ulp = conformance_spec::element_type::pow2(e - narrow.mantissa_bits as i32);
            let value = (conformance_spec::element_type::pow2(e) + m as f64 * ulp) + ulp / 2.0;
            let bits = f.encode(value);
            let nudged = f.from_ordered(f.to_ordered(bits) + rng.range_i64(-1, 1));
            sign(rng, nudged)
        }
        ValueClass::Small => {
            let v = rng.range_i64(-8, 8) as f64 / if rng.chance(0.3) { 2.0 } else { 1.0 };
            f.encode(v)
        }
        ValueClass::Normal => {
            let max_field = (f.max_finite_bits() >> f.mantissa_bits).max(1);
            // Mostly moderate exponents, sometimes the whole range.
            let bias = f.bias as i64;
            let field = if rng.chance(0.7) {
                (bias + rng.range_i64(-8, 8)).clamp(1, max_field as i64) as u64
            } else {
                1 + rng.below(max_field)
            };
            let m = rng.next_u64() & mantissa_mask;
            let bits = (field << f.mantissa_bits) | m;
            sign(rng, bits.min(f.max_finite_bits()))
        }
        ValueClass::Bits => {
            let w = f.bit_width();
            if w == 64 {
                rng.next_u64()
            } else {
                rng.next_u64() & ((1u64 << w) - 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::FloatClass;

    #[test]
    fn classes_produce_what_they_say() {
        let mut rng = Rng::new(11);
        let hints = ValueHints {
            thresholds: vec![88.0],
            ..Default::default()
        };
        for ty in [
            ElementType::F32,
            ElementType::Bf16,
            ElementType::F8E4M3FN,
            ElementType::F8E5M2FNUZ,
        ] {
            let f = ty.float_format().unwrap();
            for _ in 0..200 {
                let s = float_of_class(&mut rng, f, &hints, ValueClass::Subnormal);
                assert_eq!(f.classify(s), FloatClass::Subnormal, "{ty} {s:#x}");
                let sp = float_of_class(&mut rng, f, &hints, ValueClass::Special);
                assert!(matches!(
                    f.classify(sp),
                    FloatClass::Nan | FloatClass::Infinite | FloatClass::Zero
                ));
                let n = float_of_class(&mut rng, f, &hints, ValueClass::Normal);
                assert_eq!(f.classify(n), FloatClass::Normal, "{ty} {n:#x}");
                let t = float_of_class(&mut rng, f, &hints, ValueClass::Threshold);
                assert_ne!(f.classify(t), FloatClass::Nan);
            }
        }
    }

    #[test]
    fn ties_land_on_midpoints_of_the_narrow_format() {
        let mut rng = Rng::new(5);
        let hints = ValueHints {
            tie_format: Some(FloatFormat::F16),
            ..Default::default()
        };
        let mut exact_ties = 0;
        for _ in 0..300 {
            let bits = float_of_class(&mut rng, FloatFormat::F32, &hints, ValueClass::Tie);
            let x = f32::from_bits(bits as u32) as f64;
            let down = FloatFormat::F16.decode(FloatFormat::F16.encode(x));
            let ulp =
                (FloatFormat::F16.decode(FloatFormat::F16.encode(x.abs()) + 1) - down.abs()).abs();
            if ((x - down).abs() - ulp / 2.0).abs() == 0.0 {
                exact_ties += 1;
            }
        }
        assert!(exact_ties > 50, "{exact_ties}");
    }

    #[test]
    fn integers_include_extremes() {
        let mut rng = Rng::new(9);
        let vals: Vec<i128> = (0..400)
            .map(|_| {
                ElementType::S8
                    .integer_from_bits(element(
                        &mut rng,
                        ElementType::S8,
                        &ValueHints::default(),
                        &ValueClass::ALL,
                    ) as u64)
                    .unwrap()
            })
            .collect();
        assert!(vals.contains(&-128) && vals.contains(&127) && vals.contains(&0));
    }
}
