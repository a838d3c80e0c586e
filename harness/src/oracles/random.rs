//! Random numbers where the bits need not agree (`tolerance.random`; seed 004, RngBitGenerator:
//! "the output is guaranteed to be a deterministic function of the initial state but it is not
//! guaranteed to be deterministic between backends").
//!
//! Against a backend that declares the reference's bit layout
//! ([`conformance_spec::Capabilities::rng_bit_layout`]) the result is compared bit for bit by the
//! ordinary comparison. Against any other, [`judge_bits`] checks what the seed does fix, the
//! shapes of the new state and the data, and tests the data's bits for uniformity and
//! independence:
//! - **bit frequencies**: for each of the `w` bit positions of the elements, the count of ones
//!   over the `n` elements; `Σ (2·ones − n)²/n` is χ² with `w` degrees of freedom (each count is
//!   Binomial(n, ½); run when `n ≥ 32`);
//! - **byte values**: the counts of the 256 values of the data's bytes; χ² with 255 degrees of
//!   freedom (run when there are at least 5 expected per value, 1280 bytes);
//! - **pairs**: the top 4 bits of the elements of disjoint consecutive pairs `(x₂ᵢ, x₂ᵢ₊₁)`, 256
//!   cells; χ² with 255 degrees of freedom (independence of neighbours; run from 1280 pairs).
//!
//! Each test rejects when its p-value is below [`FALSE_ALARM`] = 10⁻⁶, so a correct generator
//! fails a case with probability at most 3·10⁻⁶ and a sweep of `N` such cases expects at most
//! `3·10⁻⁶·N` false failures (stated beside the failures in the report). The χ² survival
//! function is the regularized upper incomplete gamma `Q(k/2, x/2)` ([`chi2_survival`]).

use crate::compare::{Comparison, DiffClass, ElementDiff};
use conformance_spec::literal::{ArrayLiteral, Literal};
use conformance_spec::Backend;
use serde::{Deserialize, Serialize};

/// The false-alarm rate of each test: the probability that it rejects a correct generator.
pub const FALSE_ALARM: f64 = 1e-6;

/// The number of tests [`judge_bits`] may run on one case (for the expected false failures of a
/// sweep: at most `TESTS · FALSE_ALARM` per case).
pub const TESTS: usize = 3;

/// A p-value in `[0, 1]` (never NaN, so equality is total).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Serialize, Deserialize)]
pub struct PValue(pub f64);

impl Eq for PValue {}

/// One statistical test of a result: its name, the statistic, its degrees of freedom, the
/// p-value and the threshold it was judged at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatTest {
    pub name: String,
    /// The χ² statistic, as text (shortest round-trip digits).
    pub statistic: String,
    pub degrees_of_freedom: u32,
    pub p_value: PValue,
    pub threshold: PValue,
}

impl StatTest {
    /// True when the test rejects the result.
    pub fn rejects(&self) -> bool {
        self.p_value.0 < self.threshold.0
    }
}

/// True when `b`'s random bits are to be compared bit for bit with the reference's: both
/// declare the same layout.
pub fn same_layout(reference: &dyn Backend, b: &dyn Backend) -> bool {
    let (r, g) = (
        reference.capabilities().rng_bit_layout,
        b.capabilities().rng_bit_layout,
    );
    r.is_some() && r == g
}

/// Judges `got`, a backend's `(state, data)`, against `expected`, the reference's: the shapes
/// must agree (class `shape`), and the data's bits must pass every test that has enough elements
/// to run (class `statistical`). The tests and their p-values are kept in
/// [`Comparison::statistics`].
pub fn judge_bits(expected: &Literal, got: &Literal) -> Comparison {
    let mut c = Comparison::default();
    let shape_diff = |what: String| ElementDiff {
        tuple_index: vec![],
        index: vec![],
        element_type: String::new(),
        expected_bits: String::new(),
        got_bits: String::new(),
        expected: what,
        got: String::new(),
        ulps: None,
        class: DiffClass::Shape,
        inputs: vec![],
    };
    let (Literal::Tuple(e), Literal::Tuple(g)) = (expected, got) else {
        c.classes.insert(DiffClass::Shape, 1);
        c.diffs.push(shape_diff("a tuple (state, data)".into()));
        return c;
    };
    let shapes_agree = e.len() == g.len()
        && e.iter()
            .zip(g)
            .all(|(x, y)| x.shape().compatible(&y.shape()));
    if !shapes_agree {
        c.classes.insert(DiffClass::Shape, 1);
        let mut d = shape_diff(expected.shape().to_string());
        d.got = got.shape().to_string();
        c.diffs.push(d);
        return c;
    }
    let Some(Literal::Array(data)) = g.get(1) else {
        return c;
    };
    c.compared = data.shape().element_count();
    c.statistics = bit_tests(data);
    let rejected = c.statistics.iter().filter(|t| t.rejects()).count();
    if rejected > 0 {
        c.classes.insert(DiffClass::Statistical, rejected);
    }
    c
}

/// The tests of the module documentation on the elements of `data` (logical order).
pub fn bit_tests(data: &ArrayLiteral) -> Vec<StatTest> {
    let w = data.element_type().bit_width();
    let bits = data.logical_bits();
    let n = bits.len() as u64;
    let mut tests = Vec::new();
    if n >= 32 {
        let mut ones = vec![0u64; w as usize];
        for &x in &bits {
            for (k, o) in ones.iter_mut().enumerate() {
                *o += ((x >> k) & 1) as u64;
            }
        }
        let x2: f64 = ones
            .iter()
            .map(|&o| {
                let d = 2.0 * o as f64 - n as f64;
                d * d / n as f64
            })
            .sum();
        tests.push(test("bit frequencies", x2, w));
    }
    let bytes_per = (w / 8) as usize;
    if bits.len() * bytes_per >= 5 * 256 {
        let mut counts = vec![0u64; 256];
        for &x in &bits {
            for b in 0..bytes_per {
                counts[((x >> (8 * b)) & 0xff) as usize] += 1;
            }
        }
        tests.push(test("byte values", uniform_chi2(&counts), 255));
    }
    if bits.len() / 2 >= 5 * 256 {
        let top = |x: u128| ((x >> (w - 4)) & 0xf) as usize;
        let mut counts = vec![0u64; 256];
        for p in bits.chunks_exact(2) {
            counts[top(p[0]) * 16 + top(p[1])] += 1;
        }
        tests.push(test("pairs", uniform_chi2(&counts), 255));
    }
    tests
}

/// Pearson's χ² of counts against equal expected counts.
fn uniform_chi2(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    let e = total as f64 / counts.len() as f64;
    counts
        .iter()
        .map(|&c| {
            let d = c as f64 - e;
            d * d / e
        })
        .sum()
}

fn test(name: &str, x2: f64, df: u32) -> StatTest {
    StatTest {
        name: name.into(),
        statistic: format!("{x2}"),
        degrees_of_freedom: df,
        p_value: PValue(chi2_survival(x2, df)),
        threshold: PValue(FALSE_ALARM),
    }
}

/// `P(X ≥ x)` for `X ~ χ²(df)`: the regularized upper incomplete gamma `Q(df/2, x/2)`, by its
/// power series below `a + 1` and by Lentz's continued fraction above (Press et al., *Numerical
/// Recipes*, §6.2), in f64 with `ln Γ` from libm: relative accuracy near 10⁻¹³, ample for
/// p-values compared with 10⁻⁶, and fast far in the tail (where MPFR's `gamma_inc` is not).
pub fn chi2_survival(x: f64, df: u32) -> f64 {
    if x.is_nan() || df == 0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    let a = f64::from(df) / 2.0;
    let x = x / 2.0;
    let log_prefix = a * x.ln() - x - libm::lgamma(a);
    if x < a + 1.0 {
        // P(a, x) = e^{-x} x^a / Γ(a) · Σ x^n / (a (a+1) … (a+n)).
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * log_prefix.exp()).clamp(0.0, 1.0)
    } else {
        // Q(a, x) = e^{-x} x^a / Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − …)).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (log_prefix.exp() * h).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::{ArrayShape, ElementType};

    #[test]
    fn chi2_survival_matches_known_quantiles() {
        // χ²(1) at 3.841459 is the 95th percentile; χ²(2) has survival exp(−x/2).
        assert!((chi2_survival(3.841_458_820_694_124, 1) - 0.05).abs() < 1e-9);
        assert!((chi2_survival(10.0, 2) - (-5f64).exp()).abs() < 1e-12);
        // χ²(255): the mean is 255; far in the tail the survival is tiny but positive.
        assert!((chi2_survival(255.0, 255) - 0.48).abs() < 0.02);
        let tail = chi2_survival(500.0, 255);
        assert!(tail > 0.0 && tail < 1e-15, "{tail}");
        assert_eq!(chi2_survival(0.0, 7), 1.0);
        // Both branches meet: just below and above a + 1.
        let (lo, hi) = (
            chi2_survival(2.0 * 128.49, 255),
            chi2_survival(2.0 * 128.51, 255),
        );
        assert!(lo > hi && lo - hi < 1e-3, "{lo} {hi}");
        // Far in the tail, fast and zero or tiny.
        assert!(chi2_survival(1e6, 255) < 1e-300);
    }

    fn data(ty: ElementType, bits: &[u128]) -> ArrayLiteral {
        ArrayLiteral::from_bits(ArrayShape::new(ty, vec![bits.len() as i64]), bits).unwrap()
    }

    #[test]
    fn good_bits_pass_and_broken_ones_are_rejected() {
        // SplitMix64's outputs pass all three tests.
        let mut s = 1u64;
        let mut next = || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let good: Vec<u128> = (0..4096).map(|_| u128::from(next() as u32)).collect();
        let t = bit_tests(&data(ElementType::U32, &good));
        assert_eq!(t.len(), 3);
        assert!(t.iter().all(|t| !t.rejects()), "{t:?}");
        // A stuck bit (bit 31 always 0: a generator that drops the top bit).
        let stuck: Vec<u128> = good.iter().map(|&x| x & 0x7fff_ffff).collect();
        let t = bit_tests(&data(ElementType::U32, &stuck));
        assert!(t.iter().any(|t| t.name == "bit frequencies" && t.rejects()));
        // Neighbours equal (a counter reused for two elements).
        let twice: Vec<u128> = good.iter().flat_map(|&x| [x, x]).collect();
        let t = bit_tests(&data(ElementType::U32, &twice));
        assert!(t.iter().any(|t| t.name == "pairs" && t.rejects()), "{t:?}");
        // A counter used as the output (no mixing): bytes far from uniform.
        let counter: Vec<u128> = (0..4096u128).collect();
        let t = bit_tests(&data(ElementType::U32, &counter));
        assert!(t.iter().any(|t| t.rejects()));
        // Too few elements: no test runs, nothing is claimed.
        assert!(bit_tests(&data(ElementType::U32, &good[..8])).is_empty());
    }

    #[test]
    fn shapes_are_judged_before_bits() {
        let state = |n: i64| {
            Literal::Array(ArrayLiteral::zeros(ArrayShape::new(
                ElementType::U64,
                vec![n],
            )))
        };
        let d = |n: i64| {
            Literal::Array(ArrayLiteral::zeros(ArrayShape::new(
                ElementType::U32,
                vec![n],
            )))
        };
        let expected = Literal::Tuple(vec![state(2), d(4)]);
        let c = judge_bits(&expected, &Literal::Tuple(vec![state(3), d(4)]));
        assert_eq!(c.classes.get(&DiffClass::Shape), Some(&1));
        let c = judge_bits(&expected, &d(4));
        assert_eq!(c.classes.get(&DiffClass::Shape), Some(&1));
        // Four zeros: too few for any test; the shapes agree.
        let c = judge_bits(&expected, &Literal::Tuple(vec![state(2), d(4)]));
        assert!(c.agrees() && c.statistics.is_empty());
    }
}
