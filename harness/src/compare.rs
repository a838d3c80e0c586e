//! ULP-aware comparison of a backend's result with the reference's (DESIGN.md, "Comparison").
//!
//! Floats are compared by their distance in ULPs of the *result's* format, over the ordered-integer
//! encoding (`FloatFormat::to_ordered`), so ±0, subnormals, ±inf and the largest finite value
//! compare correctly in every format, bf16, f16 and f8 included; complex numbers component by
//! component. NaN matches any NaN; −0 against +0 is a difference unless the catalog says otherwise;
//! a subnormal expected where zero came back is classified as a subnormal flush. Integers and
//! predicates compare exactly. Masked elements (implementation-defined) are counted, not compared.

use conformance_spec::element_type::{pow2, ElementType, FloatClass, FloatFormat};
use conformance_spec::index;
use conformance_spec::literal::{complex_parts, format_element, ArrayLiteral, Literal};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The kind of a difference between two elements (or two results).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffClass {
    /// Floats further apart than the budget (in ULPs of the result format).
    Ulp,
    /// One side NaN, the other not.
    Nan,
    /// −0 against +0.
    ZeroSign,
    /// A subnormal expected, zero received (a backend flushing subnormals).
    SubnormalFlush,
    /// Integers or predicates that differ.
    Exact,
    /// Element type or dimensions of the results differ.
    Shape,
    /// The exact result's magnitude overflows (catalog `conditioning`), but the result is not an
    /// infinity (no infinite component).
    Overflow,
    /// A statistical test rejected the result at its stated false-alarm rate (random numbers
    /// from a backend whose bits need not equal the reference's: `crate::oracles::random`).
    Statistical,
    /// An element outside the support of its distribution (`rng`: outside `[a, b)`, or NaN;
    /// `crate::oracles::distributions`).
    OutOfRange,
}

impl DiffClass {
    pub fn name(self) -> &'static str {
        match self {
            DiffClass::Ulp => "ulp",
            DiffClass::Nan => "nan",
            DiffClass::ZeroSign => "zero-sign",
            DiffClass::SubnormalFlush => "subnormal-flush",
            DiffClass::Exact => "exact",
            DiffClass::Shape => "shape",
            DiffClass::Overflow => "overflow",
            DiffClass::Statistical => "statistical",
            DiffClass::OutOfRange => "out-of-range",
        }
    }
}

impl fmt::Display for DiffClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What is allowed when comparing one result.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// Largest accepted distance in ULPs of the result's format (0: bit-exact up to NaN-ness).
    pub ulps: u64,
    /// −0 and +0 are interchangeable.
    pub ignore_zero_sign: bool,
    /// NaNs must match bit for bit (sign and payload), for operations that move bits without
    /// arithmetic (select, real, imag, complex, bitcast-convert).
    pub exact_nan_bits: bool,
    /// Complex results: measure each component in ULPs of the larger exact component.
    pub complex_normwise: bool,
}

/// One element that differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementDiff {
    /// Path of tuple indices to the array (empty for an array result).
    pub tuple_index: Vec<usize>,
    /// Multi-index of the element (dimension 0 first).
    pub index: Vec<i64>,
    pub element_type: String,
    /// Raw bits, hex.
    pub expected_bits: String,
    pub got_bits: String,
    /// The values in HLO literal syntax.
    pub expected: String,
    pub got: String,
    /// Distance in ULPs of the result format (floats; the larger component for complex).
    pub ulps: Option<u64>,
    pub class: DiffClass,
    /// The root's operand values at this element (HLO literal syntax), when the root is
    /// element-wise; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
}

/// The outcome of comparing a result with the expected one.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Elements compared (masked ones excluded).
    pub compared: usize,
    /// Elements left to the implementation and not compared.
    pub masked: usize,
    /// Largest ULP distance over compared float elements, including those within budget.
    pub max_ulps: u64,
    /// Number of differing elements per class.
    pub classes: BTreeMap<DiffClass, usize>,
    /// The first differing elements (at most [`MAX_DIFFS`]).
    pub diffs: Vec<ElementDiff>,
    /// For elements compared within an error bound: counts per [`BOUND_RATIO_BUCKETS`] entry
    /// (empty when no element had a bound).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bound_ratios: Vec<u64>,
    /// Elements that agree only once subnormals are flushed (a backend declaring
    /// `SubnormalMode::Flush`: see [`crate::oracles::subnormals`]); set aside, not failures.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flushed_subnormals: u64,
    /// Elements of an add or subtract that equal the once-rounded `x·y ± z` of the multiply
    /// feeding it (the backend contracts the pair: see [`crate::oracles::fused`]); set aside, not
    /// failures.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fused_multiply_adds: u64,
    /// The statistical tests that judged the result instead of an element-wise comparison
    /// (random numbers: [`crate::oracles::random`]), each with its p-value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub statistics: Vec<crate::oracles::random::StatTest>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// How many differing elements a comparison keeps in detail.
pub const MAX_DIFFS: usize = 16;

impl Comparison {
    /// True when nothing differs beyond the budget.
    pub fn agrees(&self) -> bool {
        self.classes.is_empty()
    }

    fn record(&mut self, diff: ElementDiff) {
        *self.classes.entry(diff.class).or_insert(0) += 1;
        if self.diffs.len() < MAX_DIFFS {
            self.diffs.push(diff);
        }
    }
}

/// How one element is compared, beyond the entry's budget.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Allowance {
    /// Within the entry's budget.
    #[default]
    Budget,
    /// Not compared (counted in [`Comparison::masked`]): an implementation-defined element, or
    /// one whose result the working precision does not determine (catalog `conditioning`).
    Masked,
    /// Within the budget plus this many ULPs (catalog `conditioning`: `2·κ`).
    ExtraUlps(u64),
    /// Only an infinity is required (C99 G.3: some component infinite, for complex results):
    /// the exact magnitude overflows, and its direction is lost with it (catalog `conditioning`).
    Infinity,
    /// Any of these values (bit patterns), each within the budget: the results every evaluation
    /// order the semantics allow can produce (scatter's updates to one element with repeated
    /// indices, seed 004 Scatter). The expected value is one of them.
    AnyOf(std::sync::Arc<[u128]>),
    /// Within an absolute error bound (in units of the value; `f64` bits, so the enum stays `Eq`)
    /// plus one ULP of the exact value for the final rounding: the error analysis of a sum of
    /// products or a reduction (catalog `tolerance.accumulation`). Complex results: each
    /// component. Integer results are compared exactly.
    Within(u64),
    /// As the inner allowance, or any NaN: convolution padding and base-dilation holes are zeros
    /// by seed 004's text ("equivalent to inserting zeros", so 0·inf = NaN) but skipped by its
    /// pseudo-code; where a non-finite kernel value meets them, both readings are allowed
    /// ([`crate::conv_zeros`]); also a real sum with an infinite term (an order in which finite
    /// terms overflow to the opposite infinity gives NaN).
    OrNan(Box<Allowance>),
}

impl Allowance {
    /// [`Allowance::Within`] an absolute bound (a nonnegative value; NaN is treated as 0).
    pub fn within(bound: f64) -> Allowance {
        Allowance::Within(if bound.is_nan() { 0.0 } else { bound.max(0.0) }.to_bits())
    }
}

/// Where errors fall relative to their allowance ([`Allowance::Within`]: the bound plus one ULP
/// of the exact value): counts of compared elements whose |got − exact| / allowance is 0, in
/// (0, 1/1000], (1/1000, 1/100], (1/100, 1/10], (1/10, 1], and above 1 (a failure).
pub const BOUND_RATIO_BUCKETS: [&str; 6] = ["0", "≤1e-3", "≤1e-2", "≤0.1", "≤1", ">1"];

/// The bucket of [`BOUND_RATIO_BUCKETS`] for a ratio |got − exact| / allowance.
pub fn bound_ratio_bucket(ratio: f64) -> usize {
    if ratio == 0.0 {
        return 0;
    }
    match ratio {
        r if r <= 1e-3 => 1,
        r if r <= 1e-2 => 2,
        r if r <= 0.1 => 3,
        r if r <= 1.0 => 4,
        _ => 5,
    }
}

/// Compares `got` with `expected`. `allowances` (per array leaf, per logical element in row-major
/// order; empty = the budget everywhere) marks masked and ill-conditioned elements.
pub fn compare(
    expected: &Literal,
    got: &Literal,
    budget: &Budget,
    allowances: &[Vec<Allowance>],
) -> Comparison {
    let mut out = Comparison::default();
    let mut leaf = 0usize;
    compare_rec(
        expected,
        got,
        budget,
        allowances,
        &mut Vec::new(),
        &mut leaf,
        &mut out,
    );
    out
}

fn compare_rec(
    expected: &Literal,
    got: &Literal,
    budget: &Budget,
    mask: &[Vec<Allowance>],
    path: &mut Vec<usize>,
    leaf: &mut usize,
    out: &mut Comparison,
) {
    match (expected, got) {
        (Literal::Array(e), Literal::Array(g)) => {
            let m = mask.get(*leaf).map(Vec::as_slice).unwrap_or(&[]);
            *leaf += 1;
            compare_arrays(e, g, budget, m, path, out);
        }
        (Literal::Tuple(e), Literal::Tuple(g)) if e.len() == g.len() => {
            for (i, (a, b)) in e.iter().zip(g).enumerate() {
                path.push(i);
                compare_rec(a, b, budget, mask, path, leaf, out);
                path.pop();
            }
        }
        (Literal::Token, Literal::Token) => {}
        _ => out.record(shape_diff(
            path,
            &expected.shape().to_string(),
            &got.shape().to_string(),
        )),
    }
}

fn shape_diff(path: &[usize], expected: &str, got: &str) -> ElementDiff {
    ElementDiff {
        tuple_index: path.to_vec(),
        index: vec![],
        element_type: String::new(),
        expected_bits: String::new(),
        got_bits: String::new(),
        expected: expected.to_string(),
        got: got.to_string(),
        ulps: None,
        class: DiffClass::Shape,
        inputs: vec![],
    }
}

fn compare_arrays(
    e: &ArrayLiteral,
    g: &ArrayLiteral,
    budget: &Budget,
    mask: &[Allowance],
    path: &[usize],
    out: &mut Comparison,
) {
    if !e.shape().compatible(g.shape()) {
        let mut a = String::new();
        let mut b = String::new();
        let _ = e.shape().fmt_without_layout(&mut a);
        let _ = g.shape().fmt_without_layout(&mut b);
        out.record(shape_diff(path, &a, &b));
        return;
    }
    if e.logical_dimensions() != g.logical_dimensions() {
        // Dynamic values (seed 004, SetDimensionSize): the runtime sizes are part of the value.
        out.record(shape_diff(
            path,
            &format!("runtime sizes {:?}", e.logical_dimensions()),
            &format!("runtime sizes {:?}", g.logical_dimensions()),
        ));
        return;
    }
    let ty = e.element_type();
    let e_bits = e.logical_bits();
    let g_bits = g.logical_bits();
    let mut position = 0usize;
    index::for_each_index(e.dimensions(), |idx| {
        let k = position;
        position += 1;
        if !e.is_logical_index(idx) {
            // Beyond a runtime size: padding of a dynamic value, unspecified.
            return;
        }
        let (eb, gb) = (e_bits[k], g_bits[k]);
        let diff = |ulps: Option<u64>, class: DiffClass| ElementDiff {
            tuple_index: path.to_vec(),
            index: idx.to_vec(),
            element_type: ty.to_string(),
            expected_bits: hex_bits(ty, eb),
            got_bits: hex_bits(ty, gb),
            expected: format_element(ty, eb),
            got: format_element(ty, gb),
            ulps,
            class,
            inputs: vec![],
        };
        let widened;
        let mut allowance = mask.get(k).cloned().unwrap_or_default();
        if let Allowance::OrNan(inner) = allowance {
            if is_nan(ty, gb) {
                out.compared += 1;
                return;
            }
            allowance = *inner;
        }
        // The verdict of a bound-based comparison, made in the match.
        let mut within = None;
        let budget = match allowance {
            Allowance::OrNan(_) | Allowance::Budget => budget,
            Allowance::Masked => {
                out.masked += 1;
                return;
            }
            Allowance::Infinity => {
                out.compared += 1;
                if !is_infinity(ty, gb) {
                    out.record(diff(None, DiffClass::Overflow));
                }
                return;
            }
            Allowance::ExtraUlps(extra) => {
                widened = Budget {
                    ulps: budget.ulps.saturating_add(extra),
                    ..*budget
                };
                &widened
            }
            Allowance::Within(bits) => {
                let (ratio, verdict) = within_verdict(ty, eb, gb, f64::from_bits(bits), budget);
                if let Some(ratio) = ratio {
                    if out.bound_ratios.is_empty() {
                        out.bound_ratios = vec![0; BOUND_RATIO_BUCKETS.len()];
                    }
                    out.bound_ratios[bound_ratio_bucket(ratio)] += 1;
                }
                within = Some(verdict);
                budget
            }
            Allowance::AnyOf(values) => {
                if values
                    .iter()
                    .any(|&v| element_verdict(ty, v, gb, budget).class.is_none())
                {
                    out.compared += 1;
                    return;
                }
                budget
            }
        };
        out.compared += 1;
        let verdict = within.unwrap_or_else(|| element_verdict(ty, eb, gb, budget));
        if let Some(u) = verdict.ulps {
            out.max_ulps = out.max_ulps.max(u);
        }
        if let Some(class) = verdict.class {
            out.record(diff(verdict.ulps, class));
        }
    });
}

/// True when a float element (or some component of a complex one) is NaN.
pub(crate) fn is_nan(ty: ElementType, bits: u128) -> bool {
    let Some(f) = ty.float_format() else {
        return false;
    };
    if ty.is_complex() {
        let (re, im) = complex_parts(f, bits);
        return f.classify(re) == FloatClass::Nan || f.classify(im) == FloatClass::Nan;
    }
    f.classify(bits as u64) == FloatClass::Nan
}

/// True when `bits` is an infinity of `ty`: ±inf for a real float type, a value with at least one
/// infinite component for a complex type (C99 G.3); false for other types.
fn is_infinity(ty: ElementType, bits: u128) -> bool {
    let Some(f) = ty.float_format() else {
        return false;
    };
    let inf = |b: u64| f.classify(b) == FloatClass::Infinite;
    if ty.is_complex() {
        let (re, im) = complex_parts(f, bits);
        inf(re) || inf(im)
    } else {
        inf(bits as u64)
    }
}

fn hex_bits(ty: ElementType, bits: u128) -> String {
    format!("0x{:0width$x}", bits, width = ty.byte_width() * 2)
}

/// The comparison of one element: its ULP distance (floats) and the class of difference, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementVerdict {
    pub ulps: Option<u64>,
    pub class: Option<DiffClass>,
}

/// Compares one element's bits (see the module documentation for the rules).
pub fn element_verdict(
    ty: ElementType,
    expected: u128,
    got: u128,
    budget: &Budget,
) -> ElementVerdict {
    if ty.is_pred() || ty.is_integer() {
        let w = ty.byte_width() * 8;
        let mask = if w == 128 {
            u128::MAX
        } else {
            (1u128 << w) - 1
        };
        let same = expected & mask == got & mask;
        return ElementVerdict {
            ulps: None,
            class: (!same).then_some(DiffClass::Exact),
        };
    }
    let f = ty.float_format().expect("floating type");
    if ty.is_complex() {
        let (er, ei) = complex_parts(f, expected);
        let (gr, gi) = complex_parts(f, got);
        if budget.complex_normwise {
            if let Some(v) = normwise_verdict(f, (er, ei), (gr, gi), budget) {
                return v;
            }
        }
        // Under the normwise measure signed zeros are never distinguished, also where a
        // non-finite component sends the comparison component by component.
        let component_budget = Budget {
            ignore_zero_sign: budget.ignore_zero_sign || budget.complex_normwise,
            ..*budget
        };
        let a = float_verdict(f, er, gr, &component_budget);
        let b = float_verdict(f, ei, gi, &component_budget);
        let ulps = match (a.ulps, b.ulps) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        return ElementVerdict {
            ulps,
            class: a.class.or(b.class),
        };
    }
    float_verdict(f, expected as u64, got as u64, budget)
}

/// The spacing of `f`'s values at the finite value with bits `bits` (the gap to the next larger
/// magnitude; below it at the largest finite value).
fn ulp_at(f: FloatFormat, bits: u64) -> f64 {
    let magnitude = bits & ((1u64 << (f.bit_width() - 1)) - 1);
    let here = f.decode(magnitude);
    let up = f.decode(magnitude + 1);
    if up.is_finite() {
        up - here
    } else {
        here - f.decode(magnitude.saturating_sub(1))
    }
}

/// The verdict on an element allowed an absolute error `bound` plus one ULP of the exact value
/// (the final rounding): the error as a fraction of that allowance (the larger component's for
/// complex; `None` when not finite) and the verdict. Integers and pred: exact. Non-finite values: NaN must meet NaN and an infinity the
/// same infinity, as in [`element_verdict`].
fn within_verdict(
    ty: ElementType,
    expected: u128,
    got: u128,
    bound: f64,
    budget: &Budget,
) -> (Option<f64>, ElementVerdict) {
    let Some(f) = ty.float_format() else {
        return (None, element_verdict(ty, expected, got, budget));
    };
    let component = |e: u64, g: u64| -> (Option<f64>, ElementVerdict) {
        let (ev, gv) = (f.decode(e), f.decode(g));
        // Within the bound of the largest finite value, a sum may round beyond it: to the
        // infinity of its sign, or NaN in a format without infinities.
        let may_overflow = ev.is_finite() && ev.abs() + bound > f.max_finite();
        let overflowed = if f.has_infinity() {
            gv.is_infinite() && gv.signum() == ev.signum()
        } else {
            gv.is_nan()
        };
        if may_overflow && overflowed {
            return (
                None,
                ElementVerdict {
                    ulps: None,
                    class: None,
                },
            );
        }
        if !ev.is_finite() || !gv.is_finite() {
            return (None, float_verdict(f, e, g, budget));
        }
        let error = (gv - ev).abs();
        let ulps = ulp_distance(f, e, g);
        let allowed = bound + ulp_at(f, e);
        let ok = error <= allowed;
        (
            Some(error / allowed),
            ElementVerdict {
                ulps: Some(ulps),
                class: (!ok).then_some(DiffClass::Ulp),
            },
        )
    };
    if ty.is_complex() {
        let (er, ei) = complex_parts(f, expected);
        let (gr, gi) = complex_parts(f, got);
        let (a_err, a) = component(er, gr);
        let (b_err, b) = component(ei, gi);
        let error = match (a_err, b_err) {
            (Some(x), Some(y)) => Some(x.max(y)),
            _ => None,
        };
        let ulps = match (a.ulps, b.ulps) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        return (
            error,
            ElementVerdict {
                ulps,
                class: a.class.or(b.class),
            },
        );
    }
    component(expected as u64, got as u64)
}

/// The normwise verdict on a complex element: each component's error in ULPs of the
/// larger-magnitude exact component, signed zeros not distinguished. When exactly one exact
/// component is infinite, the magnitude exceeds the largest finite value, whose ULP measures the
/// other component. `None` (judged component by component) when some component is NaN, when both
/// exact components are infinite, when the exact value is finite and the result not, or when the
/// exact value is 0 and the result is not.
fn normwise_verdict(
    f: FloatFormat,
    e: (u64, u64),
    g: (u64, u64),
    budget: &Budget,
) -> Option<ElementVerdict> {
    let is_nan = |b: u64| f.classify(b) == FloatClass::Nan;
    if [e.0, e.1, g.0, g.1].into_iter().any(is_nan) {
        return None;
    }
    let inf = |b: u64| f.classify(b) == FloatClass::Infinite;
    match (inf(e.0), inf(e.1)) {
        (false, false) if inf(g.0) || inf(g.1) => return None,
        (false, false) => {}
        (true, true) => return None,
        // One exact component overflowed: the magnitude is beyond the largest finite value, so
        // the finite component's error counts in ULPs of that value, and the infinite one must
        // be matched (the largest finite value is 1 ULP from infinity).
        (re_inf, _) => {
            let (big_e, big_g, small_e, small_g) = if re_inf {
                (e.0, g.0, e.1, g.1)
            } else {
                (e.1, g.1, e.0, g.0)
            };
            let big = ulp_distance(f, big_e, big_g);
            let small = if inf(small_g) {
                u64::MAX
            } else {
                let ulp = pow2(f.max_exponent() - f.mantissa_bits as i32);
                let err = ((f.decode(small_e) - f.decode(small_g)).abs() / ulp).ceil();
                if err.is_finite() {
                    err as u64
                } else {
                    u64::MAX
                }
            };
            let ulps = big.max(small);
            return Some(ElementVerdict {
                ulps: Some(ulps),
                class: (ulps > budget.ulps).then_some(DiffClass::Ulp),
            });
        }
    }
    let (er, ei, gr, gi) = (f.decode(e.0), f.decode(e.1), f.decode(g.0), f.decode(g.1));
    let scale = er.abs().max(ei.abs());
    if scale == 0.0 {
        // An exact zero: any signed zero matches; anything else is judged component by component.
        return (gr == 0.0 && gi == 0.0).then_some(ElementVerdict {
            ulps: Some(0),
            class: None,
        });
    }
    // ULP of the format at the magnitude `scale` (never below the smallest subnormal).
    let (_, exp) = conformance_spec::element_type::frexp(scale);
    let ulp_exp = (exp - 1).max(f.min_normal_exponent()) - f.mantissa_bits as i32;
    let ulp = pow2(ulp_exp);
    let err = ((er - gr).abs().max((ei - gi).abs()) / ulp).ceil();
    let ulps = if err.is_finite() {
        err as u64
    } else {
        u64::MAX
    };
    // The norm does not see the sign of a zero component (it depends on the evaluation order of
    // ac − bd and the like), so signed zeros are not compared under this measure.
    Some(ElementVerdict {
        ulps: Some(ulps),
        class: (ulps > budget.ulps).then_some(DiffClass::Ulp),
    })
}

/// Distance in ULPs between two non-NaN values of a format.
pub fn ulp_distance(f: FloatFormat, a: u64, b: u64) -> u64 {
    f.to_ordered(a).abs_diff(f.to_ordered(b))
}

fn float_verdict(f: FloatFormat, e: u64, g: u64, budget: &Budget) -> ElementVerdict {
    let (ce, cg) = (f.classify(e), f.classify(g));
    let none = ElementVerdict {
        ulps: Some(0),
        class: None,
    };
    match (ce == FloatClass::Nan, cg == FloatClass::Nan) {
        (true, true) if budget.exact_nan_bits && e != g => {
            return ElementVerdict {
                ulps: None,
                class: Some(DiffClass::Nan),
            }
        }
        (true, true) => return none,
        (true, false) | (false, true) => {
            return ElementVerdict {
                ulps: None,
                class: Some(DiffClass::Nan),
            }
        }
        _ => {}
    }
    if ce == FloatClass::Zero && cg == FloatClass::Zero {
        let differ = f.sign_bit(e) != f.sign_bit(g) && !budget.ignore_zero_sign;
        return ElementVerdict {
            ulps: Some(0),
            class: differ.then_some(DiffClass::ZeroSign),
        };
    }
    let ulps = ulp_distance(f, e, g);
    if ce == FloatClass::Subnormal && cg == FloatClass::Zero && ulps > budget.ulps {
        return ElementVerdict {
            ulps: Some(ulps),
            class: Some(DiffClass::SubnormalFlush),
        };
    }
    ElementVerdict {
        ulps: Some(ulps),
        class: (ulps > budget.ulps).then_some(DiffClass::Ulp),
    }
}

impl fmt::Display for ElementDiff {
    /// `[1,2] expected 1.5 (0x3fc00000) got 1.5000001 (0x3fc00001), 1 ULP [ulp]`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.class == DiffClass::Shape {
            return write!(
                f,
                "result shape: expected {} got {} [shape]",
                self.expected, self.got
            );
        }
        let idx: Vec<String> = self.index.iter().map(i64::to_string).collect();
        write!(f, "[{}]", idx.join(","))?;
        if !self.tuple_index.is_empty() {
            write!(f, " (tuple element {:?})", self.tuple_index)?;
        }
        if !self.inputs.is_empty() {
            write!(f, " inputs ({})", self.inputs.join(", "))?;
        }
        write!(
            f,
            " expected {} ({}) got {} ({})",
            self.expected, self.expected_bits, self.got, self.got_bits
        )?;
        if let Some(u) = self.ulps {
            write!(f, ", {u} ULP")?;
        }
        write!(f, " [{}]", self.class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::{ArrayShape, Layout};

    fn f32lit(v: &[f32]) -> Literal {
        let bits: Vec<u128> = v.iter().map(|x| x.to_bits() as u128).collect();
        ArrayLiteral::from_bits(
            ArrayShape::new(ElementType::F32, vec![v.len() as i64]),
            &bits,
        )
        .unwrap()
        .into()
    }

    fn exact() -> Budget {
        Budget::default()
    }

    #[test]
    fn sums_are_compared_within_their_error_bound() {
        let e = f32lit(&[1.0, 100.0, f32::MAX, 3.0]);
        let allow = vec![vec![
            Allowance::within(0.5),
            Allowance::within(0.5),
            Allowance::within(1e36),
            Allowance::OrNan(Box::new(Allowance::within(0.0))),
        ]];
        // Within bound + 1 ULP; the largest finite value may round up to inf; NaN allowed last.
        let got = f32lit(&[1.5, 100.0, f32::INFINITY, f32::NAN]);
        let c = compare(&e, &got, &exact(), &allow);
        assert!(c.diffs.is_empty(), "{:?}", c.diffs);
        assert_eq!(c.compared, 4);
        // Beyond the bound (and the ULP of 1.0), and the wrong infinity: differences.
        let got = f32lit(&[1.6, 100.0, f32::NEG_INFINITY, 3.0]);
        let c = compare(&e, &got, &exact(), &allow);
        assert_eq!(c.diffs.len(), 2);
        assert_eq!(c.diffs[0].index, vec![0]);
        assert_eq!(c.diffs[1].index, vec![2]);
        // The ratio buckets: exact, within, beyond.
        let got = f32lit(&[1.6, 100.0, f32::MAX, 3.0]);
        let c = compare(&e, &got, &exact(), &allow);
        assert_eq!(c.bound_ratios, vec![3, 0, 0, 0, 0, 1]);
        assert_eq!(bound_ratio_bucket(0.05), 3);
    }

    #[test]
    fn dynamic_values_compare_runtime_sizes_and_the_logical_array_only() {
        let dynamic = |v: &[f32], size: i64| -> Literal {
            let Literal::Array(a) = f32lit(v) else {
                unreachable!()
            };
            a.with_runtime_dimensions(&[size]).unwrap().into()
        };
        let e = dynamic(&[1., 2., 3., 4.], 2);
        // Different padding contents: equal.
        let c = compare(&e, &dynamic(&[1., 2., 7., 8.], 2), &exact(), &[]);
        assert!(c.diffs.is_empty(), "{:?}", c.diffs);
        assert_eq!(c.compared, 2);
        // A logical element differs.
        let c = compare(&e, &dynamic(&[1., 5., 3., 4.], 2), &exact(), &[]);
        assert_eq!(c.diffs.len(), 1);
        assert_eq!(c.diffs[0].index, vec![1]);
        // Different runtime sizes, or a static result where a dynamic one is expected.
        for got in [dynamic(&[1., 2., 3., 4.], 3), f32lit(&[1., 2., 3., 4.])] {
            let c = compare(&e, &got, &exact(), &[]);
            assert_eq!(c.diffs.len(), 1);
            assert_eq!(c.diffs[0].class, DiffClass::Shape);
            assert!(c.diffs[0].expected.contains("runtime sizes [2]"));
        }
    }

    #[test]
    fn ulps_counted_across_zero_and_to_infinity() {
        let b = exact();
        let v = element_verdict(
            ElementType::F32,
            f32::MAX.to_bits() as u128,
            f32::INFINITY.to_bits() as u128,
            &b,
        );
        assert_eq!(v.ulps, Some(1));
        assert_eq!(v.class, Some(DiffClass::Ulp));
        let tiny = f32::from_bits(1);
        let v = element_verdict(
            ElementType::F32,
            tiny.to_bits() as u128,
            (-tiny).to_bits() as u128,
            &b,
        );
        assert_eq!(v.ulps, Some(2));
        let one = Budget { ulps: 1, ..exact() };
        let v = element_verdict(
            ElementType::F32,
            1f32.to_bits() as u128,
            1.0000001f32.to_bits() as u128,
            &one,
        );
        assert_eq!((v.ulps, v.class), (Some(1), None));
    }

    #[test]
    fn nan_zero_sign_and_flush_classes() {
        let b = exact();
        let nan = f32::NAN.to_bits() as u128;
        let other_nan = 0xffc0_0001u128;
        assert_eq!(
            element_verdict(ElementType::F32, nan, other_nan, &b).class,
            None
        );
        let bitwise = Budget {
            exact_nan_bits: true,
            ..exact()
        };
        assert_eq!(
            element_verdict(ElementType::F32, nan, other_nan, &bitwise).class,
            Some(DiffClass::Nan)
        );
        assert_eq!(
            element_verdict(ElementType::F32, nan, nan, &bitwise).class,
            None
        );
        assert_eq!(
            element_verdict(ElementType::F32, nan, 0, &b).class,
            Some(DiffClass::Nan)
        );
        let neg0 = (-0f32).to_bits() as u128;
        assert_eq!(
            element_verdict(ElementType::F32, 0, neg0, &b).class,
            Some(DiffClass::ZeroSign)
        );
        let lax = Budget {
            ignore_zero_sign: true,
            ..exact()
        };
        assert_eq!(element_verdict(ElementType::F32, 0, neg0, &lax).class, None);
        let sub = 0x0041_edc4u128; // exp(-88) in f32: subnormal
        assert_eq!(
            element_verdict(ElementType::F32, sub, 0, &b).class,
            Some(DiffClass::SubnormalFlush)
        );
    }

    #[test]
    fn narrow_formats_and_complex() {
        let b = exact();
        // bf16: 1.0 = 0x3f80, next = 0x3f81: 1 ULP.
        assert_eq!(
            element_verdict(ElementType::Bf16, 0x3f80, 0x3f81, &b).ulps,
            Some(1)
        );
        // f8e4m3fn: max finite 0x7e against NaN 0x7f is a NaN difference, not 1 ULP.
        assert_eq!(
            element_verdict(ElementType::F8E4M3FN, 0x7e, 0x7f, &b).class,
            Some(DiffClass::Nan)
        );
        // c64: real part exact, imaginary 2 ULP off.
        let e = (1f32.to_bits() as u128) | ((2f32.to_bits() as u128) << 32);
        let g = (1f32.to_bits() as u128) | (((2f32.to_bits() + 2) as u128) << 32);
        let v = element_verdict(ElementType::C64, e, g, &b);
        assert_eq!((v.ulps, v.class), (Some(2), Some(DiffClass::Ulp)));
        // Normwise: a tiny real part off by many of its own ULPs is within 1 ULP of |z| ~ 6.
        let e = (1.78e-43f32.to_bits() as u128) | (((-6.3339224f32).to_bits() as u128) << 32);
        let g = (3.9e-16f32.to_bits() as u128) | (((-6.3339224f32).to_bits() as u128) << 32);
        let componentwise = element_verdict(ElementType::C64, e, g, &Budget { ulps: 4, ..exact() });
        assert_eq!(componentwise.class, Some(DiffClass::Ulp));
        let normwise = Budget {
            ulps: 4,
            complex_normwise: true,
            ..exact()
        };
        let v = element_verdict(ElementType::C64, e, g, &normwise);
        assert_eq!((v.ulps, v.class), (Some(1), None));
        // ... but an error of 5 ULPs of |z| in the small component is not.
        let big = (-6.3339224f32 + 5.0 * 4.7683716e-7) as f64;
        let g = ((((big + 6.3339224) as f32).to_bits()) as u128)
            | (((-6.3339224f32).to_bits() as u128) << 32);
        let v = element_verdict(ElementType::C64, e, g, &normwise);
        assert_eq!(v.class, Some(DiffClass::Ulp));
        // (-0, -inf) against (0, -inf): a zero-sign difference componentwise, none normwise.
        let e = ((-0f32).to_bits() as u128) | ((f32::NEG_INFINITY.to_bits() as u128) << 32);
        let g = (0f32.to_bits() as u128) | ((f32::NEG_INFINITY.to_bits() as u128) << 32);
        assert_eq!(
            element_verdict(ElementType::C64, e, g, &b).class,
            Some(DiffClass::ZeroSign)
        );
        assert_eq!(
            element_verdict(ElementType::C64, e, g, &normwise).class,
            None
        );
        // One overflowed component: the other is measured in ULPs of the largest finite value
        // (2^104 for f32), the infinite one must stay infinite (or the largest finite value).
        let c = |re: f32, im: f32| (re.to_bits() as u128) | ((im.to_bits() as u128) << 32);
        let inf = f32::INFINITY;
        let ulps = |e, g| element_verdict(ElementType::C64, e, g, &normwise).ulps;
        assert_eq!(ulps(c(-inf, 10.0), c(-inf, -6.4e22)), Some(1));
        assert_eq!(ulps(c(-inf, 10.0), c(-inf, 3e32)), Some(15));
        assert_eq!(ulps(c(1.0, inf), c(1.0, f32::MAX)), Some(1));
        assert_eq!(ulps(c(-inf, 10.0), c(-inf, inf)), Some(u64::MAX));
        assert_eq!(ulps(c(-inf, 10.0), c(inf, 10.0)), Some(2 * 0x7f80_0000));
        // Both exact components infinite: judged component by component.
        assert_eq!(
            element_verdict(ElementType::C64, c(inf, -inf), c(inf, inf), &normwise).class,
            Some(DiffClass::Ulp)
        );
        assert_eq!(element_verdict(ElementType::S32, 5, 5, &b).class, None);
        assert_eq!(
            element_verdict(ElementType::S32, 5, 6, &b).class,
            Some(DiffClass::Exact)
        );
    }

    #[test]
    fn arrays_masks_layouts_and_shapes() {
        let e = f32lit(&[1.0, 2.0, 3.0]);
        let g = f32lit(&[1.0, 2.5, 3.0]);
        let c = compare(&e, &g, &exact(), &[]);
        assert!(!c.agrees());
        assert_eq!(c.diffs[0].index, vec![1]);
        assert_eq!(c.diffs[0].expected, "2");
        let masked = compare(
            &e,
            &g,
            &exact(),
            &[vec![
                Allowance::Budget,
                Allowance::Masked,
                Allowance::Budget,
            ]],
        );
        assert!(masked.agrees());
        assert_eq!((masked.compared, masked.masked), (2, 1));
        // 2.5 is 2^21 ULPs above 2 in f32: an allowance of that many passes it, one fewer not.
        let wide = |extra| vec![vec![Allowance::Budget, Allowance::ExtraUlps(extra)]];
        assert!(compare(&e, &g, &exact(), &wide(1 << 21)).agrees());
        let c = compare(&e, &g, &exact(), &wide((1 << 21) - 1));
        assert_eq!(c.diffs[0].ulps, Some(1 << 21));
        // Where only an infinity is required, any infinity passes and a finite value does not.
        let inf = f32lit(&[1.0, f32::NEG_INFINITY, 3.0]);
        let infinity = [vec![Allowance::Budget, Allowance::Infinity]];
        assert!(compare(&e, &inf, &exact(), &infinity).agrees());
        let c = compare(&inf, &g, &exact(), &infinity);
        assert_eq!(c.classes.get(&DiffClass::Overflow), Some(&1));
        // Layout does not matter, only logical values.
        let m =
            ArrayLiteral::from_bits(ArrayShape::new(ElementType::F32, vec![2, 2]), &[1, 2, 3, 4])
                .unwrap();
        let t = m.relayout(Layout::new(vec![0, 1]));
        assert!(compare(&m.clone().into(), &t.into(), &exact(), &[]).agrees());
        let other = f32lit(&[1.0, 2.0]);
        let c = compare(&e, &other, &exact(), &[]);
        assert_eq!(c.classes.get(&DiffClass::Shape), Some(&1));
    }

    /// Scatter's update orders: any listed value passes; another value fails against the
    /// expected one.
    #[test]
    fn any_of_accepts_exactly_the_listed_values() {
        let bits = |v: f32| v.to_bits() as u128;
        let e = f32lit(&[1.0, 2.0]);
        let orders = vec![
            Allowance::Budget,
            Allowance::AnyOf(vec![bits(2.0), bits(2.25)].into()),
        ];
        let c = compare(
            &e,
            &f32lit(&[1.0, 2.25]),
            &exact(),
            std::slice::from_ref(&orders),
        );
        assert!(c.agrees());
        assert_eq!(c.compared, 2);
        let c = compare(&e, &f32lit(&[1.0, 2.5]), &exact(), &[orders]);
        assert!(!c.agrees());
        assert_eq!(c.diffs[0].expected, "2");
        assert_eq!(c.diffs[0].got, "2.5");
    }
}
