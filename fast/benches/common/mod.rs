//! Inputs shared by the fast backend's benchmarks.

use conformance_spec::hlo::parse_module;
use conformance_spec::literal::ArrayLiteral;
use conformance_spec::{ArrayShape, ElementType, HloModule, Literal};

/// A row-major f32 literal of `dims` with values in [-1, 1) from a 64-bit LCG.
pub fn values(dims: &[i64], seed: u64) -> Literal {
    let n: i64 = dims.iter().product();
    let mut s = seed;
    let v: Vec<f64> = (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f64 / (1u64 << 24) as f64) * 2.0 - 1.0
        })
        .collect();
    ArrayLiteral::from_f64s(ArrayShape::new(ElementType::F32, dims.to_vec()), &v)
        .expect("sized")
        .into()
}

/// A fixed, valid bench module.
#[allow(dead_code)]
pub fn module(text: &str) -> HloModule {
    parse_module(text).expect("bench module parses")
}
