//! The NNEF 1.0.5 standard library (chapter 4): the text of every standard fragment, as this
//! project writes it (`stdlib.nnef`), and its parsed form.
//!
//! Primitives are declarations without a body (their shapes are in [`crate::shapes`]);
//! compounds have a body in compositional syntax whose expansion invokes the same primitives,
//! in the same order and with the same operands, as the standard's definition. Signatures
//! (names, parameters and their order, types, defaults) are the standard's.

use std::sync::OnceLock;

use crate::ast::Fragment;

/// The standard library's text: every fragment of NNEF 1.0.5 chapter 4, in chapter order
/// (except the RoI-align compounds, placed after the pools they invoke).
pub const STDLIB_SOURCE: &str = include_str!("stdlib.nnef");

/// The fragments of [`STDLIB_SOURCE`], parsed once (by [`crate::parser::parse_fragments`]).
///
/// The text is this crate's own and a unit test parses it, so a parse failure is a bug in this
/// crate, not bad input: it panics with the parser's message.
pub fn standard_fragments() -> &'static [Fragment] {
    static FRAGMENTS: OnceLock<Vec<Fragment>> = OnceLock::new();
    FRAGMENTS.get_or_init(|| {
        crate::parser::parse_fragments(STDLIB_SOURCE).unwrap_or_else(|e| {
            panic!("the standard library text (nnef/src/stdlib.nnef) must parse: {e}")
        })
    })
}

/// The standard fragment called `name`, if there is one.
pub fn standard_fragment(name: &str) -> Option<&'static Fragment> {
    standard_fragments()
        .iter()
        .find(|f| f.declaration.name == name)
}

#[cfg(test)]
#[path = "stdlib_tests.rs"]
mod tests;
