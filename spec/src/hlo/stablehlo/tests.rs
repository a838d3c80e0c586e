//! Module-level behaviour of the StableHLO printer, and the helpers the family tests share.

use super::{print_stablehlo, StablehloError};
use crate::hlo::parse_module;

/// Parses HLO text and prints it as StableHLO (panics on either error: test inputs are valid).
pub(crate) fn print(hlo: &str) -> String {
    let module = parse_module(hlo).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    print_stablehlo(&module).unwrap_or_else(|e| panic!("{e}\n{hlo}"))
}

/// Parses HLO text and returns the printer's error message (panics when printing succeeds).
pub(crate) fn print_err(hlo: &str) -> String {
    let module = parse_module(hlo).unwrap_or_else(|e| panic!("{e}\n{hlo}"));
    match print_stablehlo(&module) {
        Ok(text) => panic!("expected an error, printed\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn dead_instructions_are_not_printed() {
    let text = print(
        "HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  unused = f32[2] exponential(a)
  ROOT n = f32[2] negate(a)
}",
    );
    assert!(!text.contains("exponential"), "{text}");
    assert!(text.contains(r#"%0 = "stablehlo.negate"(%arg0)"#), "{text}");
}

#[test]
fn empty_and_zero_sized_values() {
    let text = print(
        "HloModule m
ENTRY e {
  a = f32[0,3] parameter(0)
  c = pred[0] constant({})
  ROOT t = (f32[0,3], pred[0]) tuple(a, c)
}",
    );
    assert!(
        text.contains(r#"%0 = "stablehlo.constant"() <{value = dense<"0x"> : tensor<0xi1>}> : () -> tensor<0xi1>"#),
        "{text}"
    );
    assert!(
        text.contains("@main(%arg0: tensor<0x3xf32>) -> (tensor<0x3xf32>, tensor<0xi1>)"),
        "{text}"
    );
}

#[test]
fn function_names_never_clash_with_main() {
    let text = print(
        "HloModule m
main {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
other-1 {
  x = f32[] parameter(0)
  ROOT y = f32[] call(x), to_apply=main
}
ENTRY e {
  a = f32[] parameter(0)
  ROOT c = f32[] call(a), to_apply=other-1
}",
    );
    assert!(
        text.contains(r#""func.call"(%arg0) <{callee = @"other-1"}>"#),
        "{text}"
    );
    assert!(
        text.contains(r#"func.func private @"other-1"(%arg0: tensor<f32>)"#),
        "{text}"
    );
    assert!(
        text.contains(r#"func.func private @main.1(%arg0: tensor<f32>)"#),
        "{text}"
    );
    assert!(text.contains(r#"<{callee = @main.1}>"#), "{text}");
}

#[test]
fn errors_name_the_instruction() {
    let mut module = parse_module(
        "HloModule m
ENTRY e {
  a = c64[4] parameter(0)
  ROOT r = c64[4] negate(a)
}",
    )
    .unwrap();
    // An opcode without a StableHLO form here.
    module.computations[0].instructions[1].opcode = crate::hlo::Opcode::Fft;
    let e = print_stablehlo(&module).unwrap_err();
    let StablehloError::Unsupported {
        instruction,
        reason,
    } = &e;
    assert_eq!(instruction, "%r (fft)");
    assert!(reason.contains("no StableHLO form for `fft`"), "{reason}");
}
