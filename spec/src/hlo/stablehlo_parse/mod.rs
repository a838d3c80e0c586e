//! StableHLO text (MLIR) → the IR: the pretty form JAX prints (`jax.jit(f).lower(x).as_text()`)
//! and the generic form this crate's printer writes ([`crate::hlo::stablehlo::print_stablehlo`]),
//! mixed freely, as MLIR allows.
//!
//! What is read (sources: the StableHLO specification for each operation's meaning, StableHLO's
//! `StablehloOps.td` / `AssemblyFormat.cpp` and CHLO's `ChloOps.td` for the text forms):
//! - `module [@name] [attributes {...}] { func.func ... }` (or bare functions); `@main` (or the
//!   only public function) is the entry computation, private functions reached through
//!   `func.call` are computations called by HLO `call`; argument and result attributes
//!   (`jax.result_info`, `mhlo.*`) and locations (`loc(...)`) are skipped;
//! - every operation of the catalog in the form the printer writes it, and the pretty forms JAX
//!   prints: element-wise operations, `compare`, `select`, `clamp`, `convert`,
//!   `bitcast_convert`, `reduce_precision`, `constant` (`dense<...>` in all forms, hex included,
//!   bit-exact), `iota`, `broadcast_in_dim`, `reshape`, `transpose`, `slice`, `concatenate`,
//!   `pad`, `reverse`, `dynamic_slice`, `dynamic_update_slice`, `gather`, `scatter` (batching
//!   dimensions, which the IR lacks, rewritten into indexed ones as XLA does),
//!   `get_dimension_size`, `set_dimension_size`, `dot_general`, `dot`, `convolution`, `reduce`
//!   (compact `applies` form and `reducer` form), `reduce_window`, `select_and_scatter`, `sort`,
//!   `map`, `while`, `case`, `if`, `optimization_barrier`, `tuple`, `get_tuple_element`,
//!   `func.call`, `chlo.top_k` (HLO `topk`, `largest=true`), `chlo.square` of real values
//!   (`multiply(x, x)`: the same value rounded once), and CHLO's functions, each its own opcode
//!   (`chlo.erf`, `tan`, `acos`, `acosh`, `asin`, `asinh`, `atan`, `atanh`, `cosh`, `sinh`,
//!   `erfc`, `erf_inv`, `lgamma`, `digamma`, `bessel_i1e`, `next_after`, `polygamma`, `zeta`);
//!   the collectives (`collective.rs`); tokens and host transfers: `after_all` (and the
//!   deprecated `create_token`), `infeed`, `outfeed`, `send` and `recv` (`transfer.rs`);
//! - types `tensor<4x8xf32>` (row-major layouts), bounded dynamic dimensions
//!   (`tensor<?x3xf32, #stablehlo.bounds<4, ?>>`), every element type of the IR (`i1` → pred,
//!   `iN`/`siN` → sN, `uiN` → uN, `bf16`, the f8 types, `complex<f32>`), `tuple<...>`,
//!   `!stablehlo.token` (a token).
//!
//! A function or region with several results returns a `tuple` (JAX's HLO has the same tuple
//! root). How regions, captured values and names map is described in `lower.rs`.
//!
//! Anything else is an error at its line and column that says what was expected: an operation
//! without a translation is named (never dropped or approximated), as is an attribute that would
//! change the result and has no translation (annotations — `mhlo.*`, `jax.*`,
//! `precision_config`, ... — are skipped).

mod attrs;
mod collective;
mod constants;
mod contraction;
mod lexer;
mod linalg;
mod lower;
mod ops;
mod pretty;
mod regions;
mod syntax;
mod transfer;

use super::ir::HloModule;
use std::collections::HashMap;

/// An error in StableHLO text, at a 1-based `line` and `column` (columns count characters).
///
/// Displays as `line:col: message`; messages say what was expected and what was found
/// ("expected `:` and the type, found `}`"), or which operation has no translation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct StablehloParseError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was expected and what was found.
    pub message: String,
}

impl StablehloParseError {
    /// An error at byte `offset` of `src`.
    pub(crate) fn at(src: &str, offset: usize, message: impl Into<String>) -> StablehloParseError {
        let (line, column) = super::error::line_col(src, offset);
        StablehloParseError {
            line,
            column,
            message: message.into(),
        }
    }
}

/// Where each instruction of a module read from StableHLO text comes from: the 1-based line and
/// column of the operation that made it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StablehloSourceMap {
    positions: HashMap<(String, String), (usize, usize)>,
}

impl StablehloSourceMap {
    /// The (line, column) of instruction `instruction` of computation `computation`, or `None`
    /// when the module has no such instruction.
    pub fn position(&self, computation: &str, instruction: &str) -> Option<(usize, usize)> {
        self.positions
            .get(&(computation.to_string(), instruction.to_string()))
            .copied()
    }

    /// The number of instructions mapped.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// Reads StableHLO text (pretty or generic MLIR form, as described in the module documentation)
/// into an [`HloModule`].
///
/// Errors: [`StablehloParseError`] with the line and column of the first problem: malformed
/// text (what was expected and what was found), an operation or attribute without a translation
/// to the IR (named), an element type the IR lacks, a type that disagrees with the value it
/// describes, a use of an undefined value, or a region a HLO computation cannot express (a
/// `to_apply` region using a non-constant value defined outside it).
pub fn parse_stablehlo(text: &str) -> Result<HloModule, StablehloParseError> {
    parse_stablehlo_with_positions(text).map(|(m, _)| m)
}

/// [`parse_stablehlo`], with the position of the operation each instruction comes from.
///
/// Errors: as [`parse_stablehlo`].
pub fn parse_stablehlo_with_positions(
    text: &str,
) -> Result<(HloModule, StablehloSourceMap), StablehloParseError> {
    let mut c = lexer::Cursor::new(text);
    let module = syntax::parse_module(&mut c)?;
    let (hlo, positions) = lower::lower_module(text, &module)?;
    let lines: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let map = positions
        .into_iter()
        .map(|(comp, instr, at)| {
            let line = lines.partition_point(|&s| s <= at);
            let start = lines[line - 1];
            let column = text.get(start..at).map_or(1, |s| s.chars().count() + 1);
            ((comp, instr), (line, column))
        })
        .collect();
    Ok((hlo, StablehloSourceMap { positions: map }))
}
