//! `conformance check FILE...`: validate input files — HLO text (parsed, then verified: shapes,
//! element types, called computations) or catalog YAML — and say where each error is.

use conformance_spec::catalog::Catalog;
use conformance_spec::hlo::{instruction_position, parse_module, HloModule};
use conformance_spec::shape_inference::{verify_module, VerifyError};
use std::path::Path;

/// Checks one file: `.yaml`/`.yml` as a catalog family file, anything else as HLO text. The file
/// is read with [`crate::text_input::read_text`].
///
/// Errors (a message starting with the file's name): the file cannot be read or is not UTF-8
/// (`FILE: not UTF-8 at byte N`), YAML that is not a valid catalog file, HLO that does not parse
/// (`FILE:LINE:COL: ...`), or HLO that the verifier rejects (see [`check_hlo`]).
pub fn check_file(path: &Path) -> Result<(), String> {
    let text = crate::text_input::read_text(path)?;
    let label = path.display().to_string();
    if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
        Catalog::from_sources(&[(label, text)])
            .map(|_| ())
            .map_err(|e| e.to_string())
    } else if path.extension().is_some_and(|e| e == "mlir") {
        check_stablehlo(&label, &text)
    } else {
        check_hlo(&label, &text)
    }
}

/// Reads StableHLO `text` (pretty or generic MLIR, from the file `label`) into the IR and
/// verifies it as [`check_hlo`] verifies HLO.
///
/// Errors: a syntax or translation error as `LABEL:LINE:COL: message`; a verification error as
/// `LABEL:LINE:COL: computation %C, instruction %I: message`, LINE:COL being the operation that
/// became the offending instruction (or 1:1 when it has no position, e.g. a `get-tuple-element`
/// the reader made).
pub fn check_stablehlo(label: &str, text: &str) -> Result<(), String> {
    let (module, map) = conformance_spec::hlo::parse_stablehlo_with_positions(text)
        .map_err(|e| format!("{label}:{e}"))?;
    verify_module(&module).map_err(|e| {
        let (line, column) = e
            .instruction
            .as_deref()
            .and_then(|i| map.position(&e.computation, i))
            .unwrap_or((1, 1));
        format!("{label}:{line}:{column}: {e}")
    })
}

/// Parses and verifies HLO `text` read from the file `label`.
///
/// Errors: a parse error as `LABEL:LINE:COL: message`; a verification error (a shape or element
/// type that does not match inference, a bad called computation, ...) as
/// `LABEL:LINE:COL: computation %C, instruction %I: message`, LINE:COL being the opcode of the
/// offending instruction (or the computation's header for an error about a whole computation).
pub fn check_hlo(label: &str, text: &str) -> Result<(), String> {
    let module = parse_module(text).map_err(|e| format!("{label}:{e}"))?;
    verify_module(&module).map_err(|e| {
        let (line, column) = verify_error_position(&module, text, &e);
        format!("{label}:{line}:{column}: {e}")
    })
}

/// The 1-based line and column in `text` that a verification error concerns: the opcode of its
/// instruction, else the header of its computation, else the start of the text.
pub fn verify_error_position(module: &HloModule, text: &str, e: &VerifyError) -> (usize, usize) {
    let computation = module.computations.iter().find(|c| c.name == e.computation);
    if let Some(name) = &e.instruction {
        let opcode = computation
            .and_then(|c| c.instructions.iter().find(|i| &i.name == name))
            .map_or("", |i| i.opcode.name());
        if let Some(at) = instruction_position(text, Some(&e.computation), name, opcode) {
            return at;
        }
    }
    computation_position(text, &e.computation).unwrap_or((1, 1))
}

/// The line and column of the name in computation `name`'s header (`[ENTRY] [%]name {` or
/// `name (...) -> ... {`).
fn computation_position(text: &str, name: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(n, line)| {
        let trimmed = line.trim_start();
        let rest = trimmed
            .strip_prefix("ENTRY ")
            .unwrap_or(trimmed)
            .trim_start();
        let rest = rest.strip_prefix('%').unwrap_or(rest);
        let after = rest.strip_prefix(name)?;
        let after = after.trim_start();
        if !(after.starts_with('{') || after.starts_with('(')) {
            return None;
        }
        let at = line.len() - rest.len();
        Some((n + 1, line[..at].chars().count() + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_error_names_the_line_and_column_of_its_opcode() {
        let text = "HloModule m\n\nENTRY main {\n  x = f32[3] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n";
        let e = check_hlo("m.hlo", text).unwrap_err();
        assert_eq!(
            e,
            "m.hlo:5:19: computation %main, instruction %y: declared shape `f32[4]{0}` does not match the inferred `f32[3]{0}`"
        );
    }

    #[test]
    fn an_error_in_a_called_computation_is_found_there() {
        let text = "HloModule m\n\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[2] add(a, b)\n}\n\nENTRY main {\n  x = f32[2] parameter(0)\n  z = f32[] constant(0)\n  ROOT s = f32[] reduce(x, z), dimensions={0}, to_apply=add\n}\n";
        let e = check_hlo("m.hlo", text).unwrap_err();
        assert!(
            e.starts_with("m.hlo:6:19: computation %add, instruction %s:"),
            "{e}"
        );
    }

    #[test]
    fn a_computation_error_names_its_header() {
        assert_eq!(
            computation_position("HloModule m\n\nENTRY %main (p: f32[]) -> f32[] {\n", "main"),
            Some((3, 8))
        );
        assert_eq!(computation_position("x {\n", "main"), None);
    }
}
