//! Samples of `rng` (seed 004, RngUniform and RngNormal: "random numbers generated following the
//! uniform distribution over the interval [a, b)" and "the N(μ, σ) normal distribution") judged
//! against their distribution, every backend's on its own: no two samples are meant to agree.
//!
//! - **support**: uniform samples lie in `[a, b)` (integers and floats; NaN is outside), normal
//!   samples are finite, or the format's overflow (±inf, NaN without infinities) where the law
//!   reaches the largest finite value (`|μ| + 10σ`); each element outside is a difference of
//!   class `out-of-range`, shown with its index like any element;
//! - **Kolmogorov–Smirnov** (floats): the largest distance between the empirical CDF and the
//!   exact one, `(x − a)/(b − a)` or `Φ((x − μ)/σ)`. A sample lives on its format's grid and
//!   every rounding rule is acceptable, so the exact CDF of a sample value `x` is taken as the
//!   interval `[F(prev x), F(next x)]` and the distance counts only what lies outside it (the test
//!   is then conservative: it never rejects a law that rounds the exact one to the grid). The
//!   p-value is Kolmogorov's limit law with Stephens' small-sample factor
//!   `λ = (√n + 0.12 + 0.11/√n)·D`; run from 20 elements;
//! - **χ² of values** (integers): each value of a range of at most 256 values, or 16 bins of
//!   (nearly) equal numbers of values, against counts proportional to the values they hold; run
//!   when every expected count is at least 5. This catches the modulo bias of `bits mod (b − a)`;
//! - **serial correlation**: the correlation `r` of `F(x₂ᵢ)` and `F(x₂ᵢ₊₁)` over disjoint
//!   neighbouring pairs (`F` the distribution's CDF, so both are uniform on [0, 1] under the
//!   law), `√m·r` standard normal for `m` independent pairs; run from 30 pairs that are not
//!   all equal (a distribution concentrated on one value of the grid has nothing to correlate).
//!
//! Each test rejects at p < [`super::random::FALSE_ALARM`] = 10⁻⁶. Parameters the seed leaves to
//! the implementation (`b ≤ a`, a NaN or infinite parameter, `σ ≤ 0`) mask the whole result.

use super::random::{chi2_survival, PValue, StatTest, FALSE_ALARM};
use crate::compare::{Comparison, DiffClass, ElementDiff};
use conformance_spec::literal::{format_element, Literal};
use conformance_spec::ElementType;

/// The distribution of an `rng` root, with its parameters as f64 (floats) or i128 (integers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Law {
    /// Integers (and pred) uniform in `[a, b)`.
    UniformInteger { a: i128, b: i128 },
    /// Floats uniform in `[a, b)`.
    UniformFloat { a: f64, b: f64 },
    /// N(μ, σ).
    Normal { mu: f64, sigma: f64 },
}

impl Law {
    /// The law of `rng` with distribution `normal` (else uniform) of element type `ty` and
    /// parameter bits `a`, `b`; `None` when the seed leaves the result to the implementation
    /// (empty interval, non-finite parameter, `σ ≤ 0`) or the type has no such law.
    pub fn new(normal: bool, ty: ElementType, a: u64, b: u64) -> Option<Law> {
        if let Some(fmt) = ty.float_format().filter(|_| ty.is_float()) {
            let (a, b) = (fmt.decode(a), fmt.decode(b));
            if !(a.is_finite() && b.is_finite()) {
                return None;
            }
            return if normal {
                (b > 0.0).then_some(Law::Normal { mu: a, sigma: b })
            } else {
                (a < b).then_some(Law::UniformFloat { a, b })
            };
        }
        if normal {
            return None;
        }
        let (a, b) = (ty.integer_from_bits(a)?, ty.integer_from_bits(b)?);
        (a < b).then_some(Law::UniformInteger { a, b })
    }

    /// The CDF at `x`.
    fn cdf(&self, x: f64) -> f64 {
        match *self {
            Law::UniformInteger { a, b } => ((x - a as f64) / (b - a) as f64).clamp(0.0, 1.0),
            // Halves keep b − a finite for any two finite values.
            Law::UniformFloat { a, b } => {
                ((x / 2.0 - a / 2.0) / (b / 2.0 - a / 2.0)).clamp(0.0, 1.0)
            }
            Law::Normal { mu, sigma } => {
                0.5 * libm::erfc(-((x / 2.0 - mu / 2.0) / sigma) * std::f64::consts::SQRT_2)
            }
        }
    }
}

/// Judges `got` (an `rng` result) against `law` (`None`: the whole result is masked); the shape
/// must be that of `expected` (the reference's sample).
pub fn judge(law: Option<Law>, expected: &Literal, got: &Literal) -> Comparison {
    let mut c = Comparison::default();
    let (Literal::Array(e), Literal::Array(g)) = (expected, got) else {
        c.classes.insert(DiffClass::Shape, 1);
        return c;
    };
    if !e.shape().compatible(g.shape()) {
        c.classes.insert(DiffClass::Shape, 1);
        c.diffs.push(ElementDiff {
            tuple_index: vec![],
            index: vec![],
            element_type: g.element_type().to_string(),
            expected_bits: String::new(),
            got_bits: String::new(),
            expected: e.shape().to_string(),
            got: g.shape().to_string(),
            ulps: None,
            class: DiffClass::Shape,
            inputs: vec![],
        });
        return c;
    }
    let n = g.shape().element_count();
    let Some(law) = law else {
        c.masked = n;
        return c;
    };
    c.compared = n;
    let ty = g.element_type();
    let bits = g.logical_bits();
    let fmt = ty.float_format().filter(|_| ty.is_float());
    let value = |b: u128| -> f64 {
        match fmt {
            Some(f) => f.decode(b as u64),
            None => ty.integer_from_bits(b as u64).unwrap_or(0) as f64,
        }
    };
    // Support.
    let mut inside = Vec::with_capacity(n);
    let dims = g.dimensions().to_vec();
    let mut k = 0usize;
    conformance_spec::index::for_each_index(&dims, |idx| {
        let b = bits[k];
        k += 1;
        let ok = match law {
            Law::UniformInteger { a, b: hi } => ty
                .integer_from_bits(b as u64)
                .is_some_and(|v| a <= v && v < hi),
            Law::UniformFloat { a, b: hi } => {
                let x = value(b);
                a <= x && x < hi
            }
            Law::Normal { mu, sigma } => {
                // Overflow is a rounding of the law only where the law reaches the format's
                // largest value (beyond 10σ the probability is below 1e-23): then ±inf, or NaN in
                // a format without infinities (the fnuz types); elsewhere any non-finite value is
                // outside.
                let x = value(b);
                let reaches = fmt.is_some_and(|f| mu.abs() + 10.0 * sigma >= f.max_finite());
                x.is_finite()
                    || (reaches && (x.is_infinite() || fmt.is_some_and(|f| !f.has_infinity())))
            }
        };
        if ok {
            inside.push(b);
        } else {
            *c.classes.entry(DiffClass::OutOfRange).or_insert(0) += 1;
            if c.diffs.len() < crate::compare::MAX_DIFFS {
                let width = (ty.bit_width() as usize).div_ceil(4);
                c.diffs.push(ElementDiff {
                    tuple_index: vec![],
                    index: idx.to_vec(),
                    element_type: ty.to_string(),
                    expected_bits: String::new(),
                    got_bits: format!("0x{b:0width$x}"),
                    expected: support(&law),
                    got: format_element(ty, b),
                    ulps: None,
                    class: DiffClass::OutOfRange,
                    inputs: vec![],
                });
            }
        }
    });
    // Tests on the elements inside the support (in logical order).
    let cdf_bracket = |b: u128| -> (f64, f64) {
        match fmt {
            Some(f) => {
                let o = f.to_ordered(b as u64);
                let prev = f.decode(f.from_ordered(o - 1));
                let next = f.decode(f.from_ordered(o + 1));
                (law.cdf(prev), law.cdf(next))
            }
            None => {
                let v = value(b);
                (law.cdf(v), law.cdf(v + 1.0))
            }
        }
    };
    // Overflowed values (allowed above where the law reaches them) have no place on the CDF:
    // the KS test is left out when there are any, and they are left out of the correlation.
    let overflowed = inside.iter().any(|&b| !value(b).is_finite());
    let inside: Vec<u128> = inside
        .into_iter()
        .filter(|&b| value(b).is_finite())
        .collect();
    if fmt.is_some() && !overflowed && inside.len() >= 20 {
        c.statistics
            .push(kolmogorov_smirnov(&inside, &cdf_bracket, &value));
    }
    if let Law::UniformInteger { a, b } = law {
        if let Some(t) = integer_chi2(&inside, ty, a, b) {
            c.statistics.push(t);
        }
    }
    if inside.len() / 2 >= 30 {
        let mid = |b: u128| {
            let (lo, hi) = cdf_bracket(b);
            (lo + hi) / 2.0
        };
        c.statistics.extend(serial_correlation(&inside, &mid));
    }
    let rejected = c.statistics.iter().filter(|t| t.rejects()).count();
    if rejected > 0 {
        c.classes.insert(DiffClass::Statistical, rejected);
    }
    c
}

fn support(law: &Law) -> String {
    match law {
        Law::UniformInteger { a, b } => format!("in [{a}, {b})"),
        Law::UniformFloat { a, b } => format!("in [{a:e}, {b:e})"),
        Law::Normal { .. } => "finite (or the format's overflow where N(μ, σ) reaches it)".into(),
    }
}

fn stat(name: &str, statistic: f64, df: u32, p: f64) -> StatTest {
    StatTest {
        name: name.into(),
        statistic: format!("{statistic}"),
        degrees_of_freedom: df,
        p_value: PValue(p.clamp(0.0, 1.0)),
        threshold: PValue(FALSE_ALARM),
    }
}

/// KS distance outside each value's CDF bracket, and its p-value.
fn kolmogorov_smirnov(
    inside: &[u128],
    bracket: &dyn Fn(u128) -> (f64, f64),
    value: &dyn Fn(u128) -> f64,
) -> StatTest {
    let mut sorted: Vec<u128> = inside.to_vec();
    sorted.sort_by(|&x, &y| value(x).total_cmp(&value(y)));
    let n = sorted.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &b) in sorted.iter().enumerate() {
        let (lo, hi) = bracket(b);
        // Empirical CDF just below and at x: i/n and (i+1)/n.
        d = d.max((i + 1) as f64 / n - hi).max(lo - i as f64 / n);
    }
    let sqrt_n = n.sqrt();
    let lambda = (sqrt_n + 0.12 + 0.11 / sqrt_n) * d;
    stat("kolmogorov-smirnov", d, 0, kolmogorov_q(lambda))
}

/// Kolmogorov's limit `Q(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²}` (1 for small λ).
pub fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 0.2 {
        return 1.0;
    }
    let mut sum = 0.0;
    let mut sign = 1.0;
    for j in 1..=200 {
        let term = (-2.0 * (j * j) as f64 * lambda * lambda).exp();
        sum += sign * term;
        if term < 1e-300 {
            break;
        }
        sign = -sign;
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// χ² of integer values in `[a, b)`: one cell per value (at most 256 values) or 16 cells of
/// consecutive values; `None` when an expected count would be below 5.
fn integer_chi2(inside: &[u128], ty: ElementType, a: i128, b: i128) -> Option<StatTest> {
    let r = b - a;
    let cells = if r <= 256 { r } else { 16 };
    if cells < 2 {
        return None;
    }
    let n = inside.len() as f64;
    let start = |k: i128| a + (k * r) / cells;
    let expected: Vec<f64> = (0..cells)
        .map(|k| n * (start(k + 1) - start(k)) as f64 / r as f64)
        .collect();
    if expected.iter().any(|&e| e < 5.0) {
        return None;
    }
    let mut counts = vec![0u64; cells as usize];
    for &x in inside {
        let v = ty.integer_from_bits(x as u64).unwrap_or(a);
        // The cell k with start(k) ≤ v < start(k + 1).
        let mut k = ((v - a) * cells / r).clamp(0, cells - 1);
        while k > 0 && v < start(k) {
            k -= 1;
        }
        while k + 1 < cells && v >= start(k + 1) {
            k += 1;
        }
        counts[k as usize] += 1;
    }
    let x2: f64 = counts
        .iter()
        .zip(&expected)
        .map(|(&c, &e)| (c as f64 - e) * (c as f64 - e) / e)
        .sum();
    let df = (cells - 1) as u32;
    Some(stat("chi-square of values", x2, df, chi2_survival(x2, df)))
}

/// Correlation of `F` over disjoint neighbouring pairs; two-sided p of `√m·r`. `None` when
/// either side of the pairs is constant.
fn serial_correlation(inside: &[u128], f: &dyn Fn(u128) -> f64) -> Option<StatTest> {
    let pairs: Vec<(f64, f64)> = inside.chunks_exact(2).map(|p| (f(p[0]), f(p[1]))).collect();
    let m = pairs.len() as f64;
    let (mx, my) = pairs
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(x, y)| (sx + x / m, sy + y / m));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in &pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    // A constant sample (a distribution concentrated on one value of the grid: one integer, a
    // σ far below the spacing) has no correlation to measure.
    // (Tested on the values: the rounded mean of equal values need not be that value.)
    let first = pairs.first()?;
    if pairs.iter().all(|p| p.0 == first.0) || pairs.iter().all(|p| p.1 == first.1) {
        return None;
    }
    let r = sxy / (sxx * syy).sqrt();
    let z = r * m.sqrt();
    Some(stat(
        "serial correlation",
        r,
        0,
        libm::erfc(z.abs() / std::f64::consts::SQRT_2),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::literal::ArrayLiteral;
    use conformance_spec::ArrayShape;

    fn lit(ty: ElementType, bits: Vec<u128>) -> Literal {
        Literal::Array(
            ArrayLiteral::from_bits(ArrayShape::new(ty, vec![bits.len() as i64]), &bits).unwrap(),
        )
    }

    fn splitmix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn kolmogorov_limit_law_matches_known_values() {
        // Q(1.36) ≈ 0.049, Q(1.63) ≈ 0.0098 (the 5% and 1% critical values).
        assert!((kolmogorov_q(1.358) - 0.05).abs() < 0.002);
        assert!((kolmogorov_q(1.628) - 0.01).abs() < 0.001);
        assert_eq!(kolmogorov_q(0.1), 1.0);
    }

    #[test]
    fn correct_samples_pass_and_biased_ones_are_caught() {
        let mut s = 3u64;
        let n = 4000;
        // f32 uniform in [-2, 6): passes.
        let u: Vec<u128> = (0..n)
            .map(|_| {
                let x = -2.0 + 8.0 * (splitmix(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
                u128::from((x as f32).min(5.999_999_5).to_bits())
            })
            .collect();
        let law = Law::UniformFloat { a: -2.0, b: 6.0 };
        let e = lit(ElementType::F32, vec![0; n]);
        let c = judge(Some(law), &e, &lit(ElementType::F32, u.clone()));
        assert!(c.agrees(), "{:?}", c.statistics);
        assert_eq!(c.statistics.len(), 2);
        // The same values squeezed toward a: KS rejects.
        let skew: Vec<u128> = u
            .iter()
            .map(|&b| {
                let x = f32::from_bits(b as u32);
                u128::from((-2.0 + (x + 2.0) * (x + 2.0) / 8.0).to_bits())
            })
            .collect();
        let c = judge(Some(law), &e, &lit(ElementType::F32, skew));
        assert!(c.classes.contains_key(&DiffClass::Statistical));
        // b itself is outside [a, b).
        let mut at_b = u.clone();
        at_b[7] = u128::from(6.0f32.to_bits());
        let c = judge(Some(law), &e, &lit(ElementType::F32, at_b));
        assert_eq!(c.classes.get(&DiffClass::OutOfRange), Some(&1));
        assert_eq!(c.diffs[0].index, vec![7]);
        // Modulo bias of bits mod r for r = 3·2^30 (s32 from -2^31): the lower third twice as
        // likely; the exact sampler passes.
        let r = 3i128 << 30;
        let a = -(1i128 << 31);
        let biased: Vec<u128> = (0..n)
            .map(|_| {
                let v = a + (i128::from(splitmix(&mut s) as u32) % r);
                u128::from(ElementType::S32.integer_to_bits(v).unwrap())
            })
            .collect();
        let law = Law::UniformInteger { a, b: a + r };
        let e = lit(ElementType::S32, vec![0; n]);
        let c = judge(Some(law), &e, &lit(ElementType::S32, biased));
        let t = c
            .statistics
            .iter()
            .find(|t| t.name == "chi-square of values")
            .unwrap();
        assert!(t.rejects(), "{t:?}");
        let fair: Vec<u128> = (0..n)
            .map(|_| {
                let v = a + (i128::from(splitmix(&mut s)) % r);
                u128::from(ElementType::S32.integer_to_bits(v).unwrap())
            })
            .collect();
        let c = judge(Some(law), &e, &lit(ElementType::S32, fair));
        assert!(c.agrees(), "{:?}", c.statistics);
        // Neighbours equal: serial correlation rejects.
        let twice: Vec<u128> = u.iter().take(n / 2).flat_map(|&b| [b, b]).collect();
        let c = judge(
            Some(Law::UniformFloat { a: -2.0, b: 6.0 }),
            &lit(ElementType::F32, vec![0; n]),
            &lit(ElementType::F32, twice),
        );
        let t = c
            .statistics
            .iter()
            .find(|t| t.name == "serial correlation")
            .unwrap();
        assert!(t.rejects(), "{t:?}");
    }

    #[test]
    fn implementation_defined_parameters_mask_the_result() {
        let one = u128::from(1.0f32.to_bits()) as u64;
        assert_eq!(Law::new(false, ElementType::F32, one, one), None);
        assert_eq!(Law::new(true, ElementType::F32, one, 0), None);
        assert_eq!(Law::new(true, ElementType::S32, 0, 5), None);
        let e = lit(ElementType::F32, vec![0; 4]);
        let c = judge(None, &e, &e);
        assert!(c.agrees() && c.masked == 4 && c.compared == 0);
        // One value in [5, 6): a constant sample passes, with nothing to correlate.
        let fives = lit(ElementType::S32, vec![5; 200]);
        let c = judge(Some(Law::UniformInteger { a: 5, b: 6 }), &fives, &fives);
        assert!(c.agrees() && c.statistics.is_empty(), "{:?}", c.statistics);
    }
}
