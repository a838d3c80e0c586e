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
    module.computations[0].instructions[1].opcode = crate::hlo::Opcode::Bitcast;
    let e = print_stablehlo(&module).unwrap_err();
    let StablehloError::Unsupported {
        instruction,
        reason,
    } = &e;
    assert_eq!(instruction, "%r (bitcast)");
    assert!(
        reason.contains("no StableHLO form for `bitcast`"),
        "{reason}"
    );
}

#[test]
fn topk_largest_is_chlo_top_k_and_smallest_a_stable_total_order_sort() {
    let text = print(
        "HloModule m
ENTRY e {
  x = f32[2,5]{0,1} parameter(0)
  big = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
  small = (f32[2,3], s32[2,3]) topk(x), k=3, largest=false
  v = f32[2,3] get-tuple-element(big), index=0
  i = s32[2,3] get-tuple-element(small), index=1
  ROOT t = (f32[2,3], s32[2,3]) tuple(v, i)
}",
    );
    assert_eq!(
        text,
        r#"module {
  func.func public @main(%arg0: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
    %0:2 = "chlo.top_k"(%arg0) <{k = 3 : i64}> : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    %1 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x5xi32>
    %7:2 = "stablehlo.sort"(%arg0, %1) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%2: tensor<f32>, %3: tensor<f32>, %4: tensor<i32>, %5: tensor<i32>):
      %6 = "stablehlo.compare"(%2, %3) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type TOTALORDER>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
      "stablehlo.return"(%6) : (tensor<i1>) -> ()
    }) : (tensor<2x5xf32>, tensor<2x5xi32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
    %8 = "stablehlo.slice"(%7#0) <{start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>}> : (tensor<2x5xf32>) -> tensor<2x3xf32>
    %9 = "stablehlo.slice"(%7#1) <{start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>}> : (tensor<2x5xi32>) -> tensor<2x3xi32>
    "func.return"(%0#0, %9) : (tensor<2x3xf32>, tensor<2x3xi32>) -> ()
  }
}
"#
    );
    // Integers compare as their signedness says; k = 0 is kept.
    let text = print(
        "HloModule m
ENTRY e {
  x = u8[7] parameter(0)
  ROOT t = (u8[0], s32[0]) topk(x), k=0, largest=false
}",
    );
    assert!(
        text.contains("#stablehlo<comparison_type UNSIGNED>"),
        "{text}"
    );
    assert!(text.contains(r#"limit_indices = array<i64: 0>"#), "{text}");
}

#[test]
fn topk_with_k_out_of_range_is_refused() {
    let mut module = parse_module(
        "HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT t = (f32[2], s32[2]) topk(x), k=2, largest=true
}",
    )
    .unwrap();
    let root = module.computations[0].root;
    module.computations[0].instructions[root].attributes[0].value =
        crate::hlo::ir::AttrValue::Int(5);
    let e = print_stablehlo(&module).unwrap_err().to_string();
    assert!(e.contains("k=5 is outside 0..=4"), "{e}");
}
