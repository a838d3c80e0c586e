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
