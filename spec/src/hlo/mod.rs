//! HLO text: IR, lexer, parser and printer; a builder for computations.
//!
//! - [`parse_module`], [`parse_shape`], [`parse_literal`] read HLO text (as XLA and JAX print it)
//!   into the IR; errors carry the 1-based line:column ([`HloParseError`]).
//! - `Display` on [`HloModule`], [`HloComputation`] and the attribute types writes HLO text that
//!   parses back to an equal IR.
//! - [`transform`]: call inlining and re-rooting with dead-code elimination.
//! - [`ComputationBuilder`] builds computations the way XlaBuilder does (explicit broadcasts for
//!   implicit broadcasting), with shapes from `shape_inference`.

pub mod attributes;
pub mod builder;
pub mod comparator;
pub mod contraction_numbers;
mod cursor;
pub mod dimension_numbers;
mod error;
pub mod ir;
mod lexer;
mod literal_text;
mod parser;
mod printer;
mod shape_text;
pub mod stablehlo;
pub mod stablehlo_parse;
pub mod transform;

pub use builder::{BuildError, ComputationBuilder};
pub use contraction_numbers::{
    ConvolutionDimensionNumbers, DotDimensionNumbers, Window, WindowDimension,
};
pub use dimension_numbers::{GatherDimensionNumbers, ScatterDimensionNumbers};
pub use error::HloParseError;
pub use ir::{
    AttrValue, Attribute, HloComputation, HloInstruction, HloModule, Opcode, PaddingDim, SliceDim,
};
pub use parser::{parse_literal, parse_module, parse_shape};
pub use printer::{write_values, InstructionInComputation};
pub use stablehlo_parse::{
    parse_stablehlo, parse_stablehlo_with_positions, StablehloParseError, StablehloSourceMap,
};

/// Where instruction `name` of computation `computation` is defined in HLO `text`: the 1-based
/// line and column of its opcode (`add` in `%x = f32[] add(a, b)`), or of the line's start when
/// `opcode` is empty or not found on that line. The search starts at the computation's header
/// (`[ENTRY] [%]computation {`) when one is named and found, else at the top. `None` when the name is not defined in the text.
pub fn instruction_position(
    text: &str,
    computation: Option<&str>,
    name: &str,
    opcode: &str,
) -> Option<(usize, usize)> {
    let header = |line: &str, computation: &str| {
        let t = line.trim_start();
        let t = t.strip_prefix("ENTRY ").unwrap_or(t).trim_start();
        let t = t.strip_prefix('%').unwrap_or(t);
        t.strip_prefix(computation).is_some_and(|rest| {
            rest.trim_start().starts_with('{') || rest.trim_start().starts_with('(')
        })
    };
    let lines: Vec<&str> = text.lines().collect();
    let start = computation
        .and_then(|c| lines.iter().position(|l| header(l, c)))
        .unwrap_or(0);
    for (n, line) in lines.iter().enumerate().skip(start) {
        let trimmed = line.trim_start();
        let body = trimmed
            .strip_prefix("ROOT ")
            .unwrap_or(trimmed)
            .trim_start();
        let body = body.strip_prefix('%').unwrap_or(body);
        if body
            .strip_prefix(name)
            .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            let indent = line.chars().count() - trimmed.chars().count();
            let after_eq = line.find('=').unwrap_or(0);
            let column = (!opcode.is_empty())
                .then(|| line[after_eq..].find(&format!(" {opcode}(")))
                .flatten()
                .map(|k| line[..after_eq + k + 1].chars().count() + 1)
                .unwrap_or(indent + 1);
            return Some((n + 1, column));
        }
    }
    None
}

#[cfg(test)]
mod position_tests {
    #[test]
    fn instruction_position_finds_the_opcode_in_its_computation() {
        let text = "HloModule m\n\nbody {\n  x = f32[] parameter(0)\n  ROOT y = f32[] fft(x), fft_type=FFT\n}\n\nENTRY main {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n";
        assert_eq!(
            super::instruction_position(text, Some("body"), "y", "fft"),
            Some((5, 18))
        );
        assert_eq!(
            super::instruction_position(text, Some("main"), "y", "negate"),
            Some((10, 18))
        );
        assert_eq!(
            super::instruction_position(text, Some("main"), "z", "negate"),
            None
        );
    }
}
