//! HLO text: IR, lexer, parser and printer.

pub mod ir;

pub use ir::{AttrValue, Attribute, HloComputation, HloInstruction, HloModule, Opcode};
