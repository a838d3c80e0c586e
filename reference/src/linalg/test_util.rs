//! Helpers for the unit tests of the linear-algebra family: modules from HLO text, literals,
//! and a small deterministic generator.

pub use crate::contraction::test_util::{parse_shape_array, run};
use conformance_spec::hlo::ir::HloModule;
use conformance_spec::hlo::parse_module;
use conformance_spec::literal::{ArrayLiteral, Literal};

/// A module whose entry has parameters of the given shapes and the root `ROOT r = {root}` over
/// `p0, p1, ...` (the root line names its own operands).
pub fn module_text(params: &[&str], root: &str) -> String {
    let mut text = String::from("HloModule m\n\nENTRY e {\n");
    for (i, p) in params.iter().enumerate() {
        text.push_str(&format!("  p{i} = {p} parameter({i})\n"));
    }
    text.push_str(&format!("  ROOT r = {root}\n}}\n"));
    text
}

/// Parses [`module_text`].
pub fn module(params: &[&str], root: &str) -> HloModule {
    let text = module_text(params, root);
    parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A real literal from logical row-major values (exactly representable).
pub fn real(shape: &str, values: &[f64]) -> Literal {
    Literal::Array(ArrayLiteral::from_f64s(parse_shape_array(shape), values).unwrap())
}

/// A complex literal from logical row-major `(re, im)` pairs.
pub fn complex(shape: &str, values: &[(f64, f64)]) -> Literal {
    Literal::Array(ArrayLiteral::from_complex(parse_shape_array(shape), values).unwrap())
}

/// A deterministic generator of small values.
pub struct Gen(pub u64);

impl Gen {
    /// The next raw value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value in [−1, 1) with 12 significant bits (exact in f32).
    pub fn unit(&mut self) -> f64 {
        ((self.next() % 4096) as f64 - 2048.0) / 2048.0
    }

    /// A small integer in [−r, r].
    pub fn int(&mut self, r: i64) -> f64 {
        ((self.next() % (2 * r as u64 + 1)) as i64 - r) as f64
    }
}

/// Runs a module and returns its (array) result's logical row-major bits.
pub fn bits_of(result: &Literal) -> Vec<u128> {
    match result {
        Literal::Array(a) => a.logical_bits(),
        other => panic!("not an array: {}", other.shape()),
    }
}

/// The array leaves of a result.
pub fn leaves(result: &Literal) -> Vec<Vec<u128>> {
    result
        .array_leaves()
        .iter()
        .map(|a| a.logical_bits())
        .collect()
}
