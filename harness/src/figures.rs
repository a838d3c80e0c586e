//! Program-level figures: how far a backend's output of a whole program is from the exact one.
//!
//! A program of many instructions accumulates rounding: each instruction may be within its
//! budget (judged on the backend's own operands, `graph::check_graph`) while the final outputs
//! are far, in ULPs, from the exact program's. That distance is a measured figure, reported per
//! output (issue 16, "program-level verdicts"), never a failure in itself.

use crate::compare::ulp_distance;
use conformance_spec::element_type::FloatClass;
use conformance_spec::index;
use conformance_spec::literal::ArrayLiteral;
use std::fmt;

/// The distance of one output from the exact one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// A float output: the largest and the median distance over its elements, in ULPs of the
    /// output's type (complex: of the component type, the larger of the two components'
    /// distances; ±0 are 0 apart, NaN against NaN 0), and whether some element is NaN on one
    /// side only.
    Float {
        max: u64,
        median: u64,
        nan_mismatch: bool,
    },
    /// Any other output (integers, pred): how many elements differ, bit for bit.
    Differing(usize),
}

impl fmt::Display for Figure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Figure::Float {
                max,
                median,
                nan_mismatch: false,
            } => write!(f, "{max}/{median} ULP"),
            Figure::Float { max, median, .. } => write!(f, "nan, {max}/{median} ULP"),
            Figure::Differing(n) => write!(f, "{n} differ"),
        }
    }
}

/// The figure of `got` against `exact` (same element type and dimensions; a mismatch counts
/// every element as differing).
pub fn figure(exact: &ArrayLiteral, got: &ArrayLiteral) -> Figure {
    let ty = exact.element_type();
    if got.element_type() != ty || got.dimensions() != exact.dimensions() {
        return Figure::Differing(exact.shape().element_count());
    }
    let format = ty.float_format();
    let mut distances = Vec::new();
    let mut nan_mismatch = false;
    let mut differing = 0usize;
    // One component's distance (complex elements: each component's, the larger counts).
    let mut component = |f: conformance_spec::element_type::FloatFormat, a: u64, b: u64| {
        let (ca, cb) = (f.classify(a), f.classify(b));
        match (ca == FloatClass::Nan, cb == FloatClass::Nan) {
            (true, true) => 0,
            (false, false) if ca == FloatClass::Zero && cb == FloatClass::Zero => 0,
            (false, false) => ulp_distance(f, a, b),
            _ => {
                nan_mismatch = true;
                0
            }
        }
    };
    index::for_each_index(exact.dimensions(), |i| {
        let (a, b) = (exact.get_bits(i), got.get_bits(i));
        differing += usize::from(a != b);
        let Some(f) = format else {
            return;
        };
        let d = if ty.is_complex() {
            let (ar, ai) = conformance_spec::literal::complex_parts(f, a);
            let (br, bi) = conformance_spec::literal::complex_parts(f, b);
            component(f, ar, br).max(component(f, ai, bi))
        } else {
            component(f, a as u64, b as u64)
        };
        distances.push(d);
    });
    if format.is_none() {
        return Figure::Differing(differing);
    }
    distances.sort_unstable();
    Figure::Float {
        max: distances.last().copied().unwrap_or(0),
        median: distances.get(distances.len() / 2).copied().unwrap_or(0),
        nan_mismatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_spec::hlo::parse_literal;

    fn array(t: &str) -> ArrayLiteral {
        parse_literal(t).unwrap().as_array().unwrap().clone()
    }

    #[test]
    fn figures_count_ulps_zeros_nans_and_differing_integers() {
        let exact = array("f32[5] {1, 0, -0, nan, 2}");
        let got = array("f32[5] {1.0000001, -0, 0, nan, 2}");
        assert_eq!(figure(&exact, &got).to_string(), "1/0 ULP");
        let got = array("f32[5] {1, 0, -0, 3, 2.0000005}");
        assert_eq!(figure(&exact, &got).to_string(), "nan, 2/0 ULP");
        let exact = array("s32[3] {1, 2, 3}");
        assert_eq!(
            figure(&exact, &array("s32[3] {1, 5, 6}")),
            Figure::Differing(2)
        );
        assert_eq!(
            figure(&exact, &array("s32[2] {1, 2}")),
            Figure::Differing(3)
        );
    }
}
