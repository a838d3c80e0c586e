//! `conformance_spec::hlo::parse_stablehlo`: StableHLO text (the pretty form JAX prints and the
//! generic form this crate's printer writes) into the IR.
//!
//! 1. Handwritten pretty-form snippets, one family of operations at a time, checked instruction
//!    by instruction (opcode, shape, attributes, constants bit for bit).
//! 2. Errors: each names what was expected (or the operation without a translation) at its
//!    1-based line:col.
//! 3. Round trip through the printer: HLO → `print_stablehlo` (generic form) → `parse_stablehlo`
//!    → `print_stablehlo` gives the same text again (a fixed point), and the parsed module passes
//!    the IR verifier, for the JAX dumps of `spec/tests/data/jax`, every `corpus/programs/*/
//!    module.hlo` and handwritten modules using every operation the catalog has. (That the parsed
//!    modules compute the same values is checked by running them in
//!    `harness/tests/stablehlo_programs.rs`.)

use conformance_spec::hlo::stablehlo::print_stablehlo;
use conformance_spec::hlo::{
    parse_module, parse_stablehlo, parse_stablehlo_with_positions, HloComputation, HloInstruction,
    HloModule, Opcode,
};
use conformance_spec::shape_inference::verify_module;
use std::path::PathBuf;

fn parse(text: &str) -> HloModule {
    let m = parse_stablehlo(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    verify_module(&m).unwrap_or_else(|e| panic!("verifier: {e}\n{m}"));
    m
}

fn parse_err(text: &str) -> String {
    match parse_stablehlo(text) {
        Ok(m) => panic!("expected an error, parsed\n{m}"),
        Err(e) => e.to_string(),
    }
}

/// The entry computation's instructions that are not parameters, constants, tuples or
/// get-tuple-elements, as `opcode shape attrs` lines.
fn ops(c: &HloComputation) -> Vec<String> {
    c.instructions
        .iter()
        .filter(|i| {
            !matches!(
                i.opcode,
                Opcode::Parameter | Opcode::Constant | Opcode::Tuple | Opcode::GetTupleElement
            )
        })
        .map(line)
        .collect()
}

/// `opcode shape, attr=value, ...` of one instruction (names of called computations included).
fn line(i: &HloInstruction) -> String {
    let mut s = format!("{} {}", i.opcode, i.shape);
    for a in &i.attributes {
        s.push_str(&format!(", {a}"));
    }
    s
}

fn entry(m: &HloModule) -> &HloComputation {
    m.entry_computation()
}

fn wrap(body: &str, args: &str, results: &str) -> String {
    format!("module @m {{\n  func.func public @main({args}) -> ({results}) {{\n{body}\n  }}\n}}\n")
}

#[test]
fn elementwise_operations() {
    let m = parse(&wrap(
        "    %0 = stablehlo.add %arg0, %arg1 : tensor<2x3xf32>
    %1 = stablehlo.exponential_minus_one %0 : tensor<2x3xf32>
    %2 = stablehlo.compare LT, %1, %arg1, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %3 = stablehlo.compare GE, %arg1, %arg1, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %4 = stablehlo.select %2, %1, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
    %5 = stablehlo.clamp %arg2, %4, %arg2 : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %6 = stablehlo.convert %5 : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    %7 = stablehlo.bitcast_convert %6 : (tensor<2x3xbf16>) -> tensor<2x3xui16>
    %8 = stablehlo.reduce_precision %5, format = e5m2 : tensor<2x3xf32>
    %9 = chlo.erf %8 : tensor<2x3xf32> -> tensor<2x3xf32>
    %10 = stablehlo.complex %9, %9 : tensor<2x3xcomplex<f32>>
    %11 = stablehlo.abs %10 : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
    %12 = stablehlo.not %3 : tensor<2x3xi1>
    %13 = stablehlo.shift_right_logical %7, %7 : tensor<2x3xui16>
    stablehlo.return %11, %12, %13 : tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xui16>",
        "%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<f32>",
        "tensor<2x3xf32> {jax.result_info = \"a\"}, tensor<2x3xi1>, tensor<2x3xui16>",
    ));
    assert_eq!(
        ops(entry(&m)),
        [
            "add f32[2,3]{1,0}",
            "exponential-minus-one f32[2,3]{1,0}",
            "compare pred[2,3]{1,0}, direction=LT",
            "compare pred[2,3]{1,0}, direction=GE, type=TOTALORDER",
            "select f32[2,3]{1,0}",
            "clamp f32[2,3]{1,0}",
            "convert bf16[2,3]{1,0}",
            "bitcast-convert u16[2,3]{1,0}",
            "reduce-precision f32[2,3]{1,0}, exponent_bits=5, mantissa_bits=2",
            "erf f32[2,3]{1,0}",
            "complex c64[2,3]{1,0}",
            "abs f32[2,3]{1,0}",
            "not pred[2,3]{1,0}",
            "shift-right-logical u16[2,3]{1,0}",
        ]
    );
    let root = entry(&m).root_instruction();
    assert_eq!(root.opcode, Opcode::Tuple);
    assert_eq!(root.operands.len(), 3);
    // Instructions are named after the operation and the SSA value.
    assert!(entry(&m).instructions.iter().any(|i| i.name == "add.0"));
    assert!(entry(&m).instructions.iter().any(|i| i.name == "arg0"));
}

/// CHLO's functions in the pretty form JAX prints (as `jax.jit(jax.lax.lgamma).lower(x)
/// .as_text()` shows them), each its own opcode, never a decomposition.
#[test]
fn chlo_functions_as_jax_prints_them() {
    let m = parse(&wrap(
        "    %0 = chlo.erf_inv %arg0 : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.lgamma %0 : tensor<4xf32> -> tensor<4xf32>
    %2 = chlo.digamma %1 : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.bessel_i1e %2 : tensor<4xf32> -> tensor<4xf32>
    %4 = chlo.erfc %3 : tensor<4xf32> -> tensor<4xf32>
    %5 = chlo.next_after %4, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %6 = chlo.polygamma %arg0, %5 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %7 = chlo.zeta %6, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %8 = chlo.asin %7 : tensor<4xf32> -> tensor<4xf32>
    %9 = chlo.acosh %8 : tensor<4xf32> -> tensor<4xf32>
    %10 = chlo.sinh %arg1 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
    stablehlo.return %9, %10 : tensor<4xf32>, tensor<4xcomplex<f32>>",
        "%arg0: tensor<4xf32>, %arg1: tensor<4xcomplex<f32>>",
        "tensor<4xf32>, tensor<4xcomplex<f32>>",
    ));
    assert_eq!(
        ops(entry(&m)),
        [
            "erf-inv f32[4]{0}",
            "lgamma f32[4]{0}",
            "digamma f32[4]{0}",
            "bessel-i1e f32[4]{0}",
            "erfc f32[4]{0}",
            "next-after f32[4]{0}",
            "polygamma f32[4]{0}",
            "zeta f32[4]{0}",
            "asin f32[4]{0}",
            "acosh f32[4]{0}",
            "sinh c64[4]{0}",
        ]
    );
}

#[test]
fn constants_are_bit_exact_in_every_form() {
    let m = parse(&wrap(
        "    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<[[1.5, -0.0], [2.0, 3.0]]> : tensor<2x2xf32>
    %c = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_1 = stablehlo.constant dense<true> : tensor<3xi1>
    %c_2 = stablehlo.constant dense<\"0x7E81\"> : tensor<2xf8E4M3FN>
    %c_3 = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f64>>
    %c_4 = stablehlo.constant dense<-1> : tensor<2xsi8>
    %c_5 = stablehlo.constant dense<1.000000e-01> : tensor<bf16>
    stablehlo.return %cst, %cst_0, %c, %c_1, %c_2, %c_3, %c_4, %c_5 : tensor<f32>, tensor<2x2xf32>, tensor<4xui32>, tensor<3xi1>, tensor<2xf8E4M3FN>, tensor<complex<f64>>, tensor<2xsi8>, tensor<bf16>",
        "",
        "tensor<f32>, tensor<2x2xf32>, tensor<4xui32>, tensor<3xi1>, tensor<2xf8E4M3FN>, tensor<complex<f64>>, tensor<2xi8>, tensor<bf16>",
    ));
    let constants: Vec<String> = entry(&m)
        .instructions
        .iter()
        .filter(|i| i.opcode == Opcode::Constant)
        .map(|i| {
            let l = i.literal.as_ref().unwrap().as_array().unwrap();
            let bits: Vec<String> = l.logical_bits().iter().map(|b| format!("{b:x}")).collect();
            format!("{} {}", i.shape, bits.join(","))
        })
        .collect();
    assert_eq!(
        constants,
        [
            "f32[] ff800000",
            "f32[2,2]{1,0} 3fc00000,80000000,40000000,40400000",
            "u32[4]{0} d,f,1a,6",
            "pred[3]{0} 1,1,1",
            "f8e4m3fn[2]{0} 7e,81",
            "c128[] c0000000000000003ff0000000000000",
            "s8[2]{0} ff,ff",
            "bf16[] 3dcd",
        ]
    );
}

#[test]
fn data_movement() {
    let m = parse(&wrap(
        "    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
    %1 = stablehlo.transpose %0, dims = [2, 1, 0] : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<3x2x4xf32>) -> tensor<6x4xf32>
    %3 = stablehlo.slice %2 [0:6:2, 1:3] : (tensor<6x4xf32>) -> tensor<3x2xf32>
    %4 = stablehlo.concatenate %3, %3, dim = 1 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>
    %5 = stablehlo.reverse %4, dims = [0, 1] : tensor<3x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.pad %5, %cst, low = [1, 0], high = [-1, 0], interior = [1, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<5x4xf32>
    %7 = stablehlo.iota dim = 1 : tensor<5x4xi64>
    %8 = stablehlo.get_dimension_size %6, dim = 1 : (tensor<5x4xf32>) -> tensor<i32>
    %9 = stablehlo.dynamic_slice %6, %8, %8, sizes = [2, 2] : (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %10 = stablehlo.dynamic_update_slice %6, %9, %8, %8 : (tensor<5x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
    %11 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<1xf32>) -> tensor<64xf32>
    return %10, %7, %11 : tensor<5x4xf32>, tensor<5x4xi64>, tensor<64xf32>",
        "%arg0: tensor<2x3xf32>, %arg1: tensor<1xf32>",
        "tensor<5x4xf32>, tensor<5x4xi64>, tensor<64xf32>",
    ));
    assert_eq!(
        ops(entry(&m)),
        [
            "broadcast f32[4,2,3]{2,1,0}, dimensions={1,2}",
            "transpose f32[3,2,4]{2,1,0}, dimensions={2,1,0}",
            "reshape f32[6,4]{1,0}",
            "slice f32[3,2]{1,0}, slice={[0:6:2], [1:3]}",
            "concatenate f32[3,4]{1,0}, dimensions={1}",
            "reverse f32[3,4]{1,0}, dimensions={0,1}",
            "pad f32[5,4]{1,0}, padding=1_-1_1x0_0",
            "iota s64[5,4]{1,0}, iota_dimension=1",
            "get-dimension-size s32[], dimensions={1}",
            "dynamic-slice f32[2,2]{1,0}, dynamic_slice_sizes={2,2}",
            "dynamic-update-slice f32[5,4]{1,0}",
            // StableHLO expands a size-1 dimension; HLO's broadcast does not: reshape first.
            "reshape f32[]",
            "broadcast f32[64]{0}, dimensions={}",
        ]
    );
}

#[test]
fn contractions_gather_and_scatter() {
    let m = parse(&wrap(
        r#"    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xf32>
    %1 = stablehlo.dot %arg2, %arg2, precision = [HIGHEST, HIGHEST] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %2 = stablehlo.convolution(%arg3, %arg4) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 0], [0, 2]], lhs_dilate = [1, 2], rhs_dilate = [2, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x1x9x4xf32>
    %3 = "stablehlo.gather"(%arg5, %arg6) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    %4 = "stablehlo.scatter"(%arg5, %arg6, %3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<5x3xf32>
    return %0, %1, %2, %4 : tensor<2x3x5xf32>, tensor<f32>, tensor<1x1x9x4xf32>, tensor<5x3xf32>"#,
        "%arg0: tensor<2x3x4xbf16>, %arg1: tensor<2x4x5xbf16>, %arg2: tensor<4xf32>, %arg3: tensor<1x5x5x2xf32>, %arg4: tensor<3x3x2x4xf32>, %arg5: tensor<5x3xf32>, %arg6: tensor<2x1xi32>",
        "tensor<2x3x5xf32>, tensor<f32>, tensor<1x1x9x4xf32>, tensor<5x3xf32>",
    ));
    let lines = ops(entry(&m));
    assert_eq!(lines[0], "dot f32[2,3,5]{2,1,0}, lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}");
    assert_eq!(
        lines[1],
        "dot f32[], lhs_contracting_dims={0}, rhs_contracting_dims={0}"
    );
    assert_eq!(lines[2], "convolution f32[1,1,9,4]{3,2,1,0}, window={size=3x3 stride=2x1 pad=1_0x0_2 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f");
    assert_eq!(lines[3], "gather f32[2,3]{1,0}, offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}");
    assert!(
        lines[4].starts_with("scatter f32[5,3]{1,0}, update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply="),
        "{}",
        lines[4]
    );
}

#[test]
fn batching_dimensions_and_square() {
    // `jnp.take_along_axis` (jax 0.10): gather with batching dimensions, which become one more
    // index component (an iota along the batch) and a collapsed operand dimension; and the
    // vmapped `x.at[i].add(u)` as scatter. `chlo.square` of a real value is `x * x`.
    let m = parse(
        r#"func.func @main(%x: tensor<4x6xf64>, %i: tensor<4x6x1xi32>, %u: tensor<4x3xf64>, %j: tensor<4x3x1xi32>) -> (tensor<4x6xf64>, tensor<4x6xf64>) {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x6xf64>, tensor<4x6x1xi32>) -> tensor<4x6xf64>
  %1 = "stablehlo.scatter"(%x, %j, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %2 = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %2 : tensor<f64>
  }) : (tensor<4x6xf64>, tensor<4x3x1xi32>, tensor<4x3xf64>) -> tensor<4x6xf64>
  %3 = chlo.square %1 : tensor<4x6xf64> -> tensor<4x6xf64>
  return %0, %3 : tensor<4x6xf64>, tensor<4x6xf64>
}"#,
    );
    let lines = ops(entry(&m));
    assert_eq!(lines[0], "iota s32[4,6,1]{2,1,0}, iota_dimension=0");
    assert_eq!(lines[1], "concatenate s32[4,6,2]{2,1,0}, dimensions={2}");
    assert_eq!(lines[2], "gather f64[4,6]{1,0}, offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=2, slice_sizes={1,1}");
    assert_eq!(lines[6], "multiply f64[4,6]{1,0}");
    assert!(lines[5].starts_with("scatter f64[4,6]{1,0}, update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={1,0}, index_vector_dim=2, to_apply="), "{}", lines[5]);
}

#[test]
fn reductions_windows_sort_and_map() {
    let m = parse(&wrap(
        r#"    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%arg1 init: %c) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {
      %p = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %x = stablehlo.select %p, %a, %b : tensor<i1>, tensor<f32>
      %y = stablehlo.select %p, %i, %j : tensor<i1>, tensor<i32>
      stablehlo.return %x, %y : tensor<f32>, tensor<i32>
    }
    %2 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>}> ({
    ^bb0(%u: tensor<f32>, %v: tensor<f32>):
      %w = stablehlo.maximum %u, %v : tensor<f32>
      stablehlo.return %w : tensor<f32>
    }) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x2xf32>
    %3:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%l: tensor<f32>, %r: tensor<f32>, %li: tensor<i32>, %ri: tensor<i32>):
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %lt = stablehlo.compare LT, %l, %r, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<3x4xf32>, tensor<3x4xi32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
    %4 = "stablehlo.map"(%3#0) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%e: tensor<f32>):
      %n = stablehlo.add %e, %cst : tensor<f32>
      stablehlo.return %n : tensor<f32>
    }) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    return %0, %1#1, %2, %3#1, %4 : tensor<3xf32>, tensor<3xi32>, tensor<3x2xf32>, tensor<3x4xi32>, tensor<3x4xf32>"#,
        "%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xi32>",
        "tensor<3xf32>, tensor<3xi32>, tensor<3x2xf32>, tensor<3x4xi32>, tensor<3x4xf32>",
    ));
    let lines = ops(entry(&m));
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(
        lines[0].starts_with("reduce f32[3]{0}, dimensions={1}, to_apply="),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("reduce (f32[3]{0}, s32[3]{0}), dimensions={1}, to_apply="),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with(
            "reduce-window f32[3,2]{1,0}, window={size=2x2 stride=1x2 pad=1_0x0_0}, to_apply="
        ),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with(
            "sort (f32[3,4]{1,0}, s32[3,4]{1,0}), dimensions={1}, is_stable=true, to_apply="
        ),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].starts_with("map f32[3,4]{1,0}, dimensions={0,1}, to_apply="),
        "{}",
        lines[4]
    );
    // The compact reducer is `maximum` of two scalar parameters.
    let reducer = m
        .computation(
            entry(&m)
                .instructions
                .iter()
                .find(|i| i.opcode == Opcode::Reduce)
                .unwrap()
                .called_computations()[0],
        )
        .unwrap();
    assert_eq!(reducer.parameters().len(), 2);
    assert_eq!(reducer.root_instruction().opcode, Opcode::Maximum);
    // The variadic reducer takes (acc0, acc1, elem0, elem1): `%a, %i, %b, %j`.
    let variadic = m
        .computation(
            entry(&m)
                .instructions
                .iter()
                .filter(|i| i.opcode == Opcode::Reduce)
                .nth(1)
                .unwrap()
                .called_computations()[0],
        )
        .unwrap();
    let params: Vec<String> = variadic
        .parameters()
        .iter()
        .map(|p| format!("{} {}", p.name, p.shape))
        .collect();
    assert_eq!(params, ["a f32[]", "i s32[]", "b f32[]", "j s32[]"]);
    // The map body uses `%cst` from outside: the constant is copied into it.
    let map = m
        .computation(
            entry(&m)
                .instructions
                .iter()
                .find(|i| i.opcode == Opcode::Map)
                .unwrap()
                .called_computations()[0],
        )
        .unwrap();
    assert!(map
        .instructions
        .iter()
        .any(|i| i.opcode == Opcode::Constant));
}

#[test]
fn control_flow_calls_and_top_k() {
    let text = r#"module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<i32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<4xf32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %arg1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @step(%iterArg_0) : (tensor<4xf32>) -> tensor<4xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<4xf32>
    }
    %3 = "stablehlo.case"(%arg1) ({
      %4 = stablehlo.sine %0#1 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }, {
      stablehlo.return %arg0 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    %5:2 = call @pair(%3) : (tensor<4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
    %6:2 = stablehlo.optimization_barrier %5#0, %5#1 : tensor<2x2xf32>, tensor<2x2xf32>
    %values, %indices = chlo.top_k(%6#1, k = 2) : tensor<2x2xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
    return %0#1, %3, %values, %indices : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xi32>
  }
  func.func private @step(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @pair(%arg0: tensor<4xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<4xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.negate %0 : tensor<2x2xf32>
    return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
  }
  func.func private @unused(%arg0: tensor<f32>) -> tensor<f32> {
    return %arg0 : tensor<f32>
  }
}"#;
    let m = parse(text);
    assert_eq!(m.name, "jit_f");
    let lines = ops(entry(&m));
    assert_eq!(lines.len(), 5, "{lines:?}");
    // The loop condition uses %arg1 from outside: it is carried in the state, unchanged.
    assert!(
        lines[0].starts_with("while (s32[], f32[4]{0}, s32[]), condition="),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("conditional f32[4]{0}, branch_computations={"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("call (f32[2,2]{1,0}, f32[2,2]{1,0}), to_apply=%pair"),
        "{}",
        lines[2]
    );
    assert_eq!(lines[3], "opt-barrier (f32[2,2]{1,0}, f32[2,2]{1,0})");
    assert_eq!(
        lines[4],
        "topk (f32[2,2]{1,0}, s32[2,2]{1,0}), k=2, largest=true"
    );
    let body = m
        .computations
        .iter()
        .find(|c| c.name.ends_with("body"))
        .unwrap();
    assert_eq!(
        body.root_instruction().shape.to_string(),
        "(s32[], f32[4]{0}, s32[])"
    );
    // Branch 0 uses %0#1 from outside, branch 1 uses %arg0: one tuple operand per branch.
    let cond = entry(&m)
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::Conditional)
        .unwrap();
    assert_eq!(cond.operands.len(), 3);
    // Functions nothing calls are left out; `step` is called inside the loop body.
    assert!(m.computation("unused").is_none());
    assert!(m.computation("step").is_some());
    let root = entry(&m).root_instruction();
    assert_eq!(
        root.shape.to_string(),
        "(f32[4]{0}, f32[4]{0}, f32[2,2]{1,0}, s32[2,2]{1,0})"
    );
}

#[test]
fn nested_regions_capture_through_every_level() {
    // The loop body's `case` uses %x (from the function) and %k (a loop variable); the sort
    // comparator inside it uses the constant %c from the top level, copied into each region.
    let m = parse(
        r#"func.func @main(%x: tensor<3xf32>, %n: tensor<i32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%k = %z, %v = %x) : tensor<i32>, tensor<3xf32>
  cond {
    %1 = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %2 = "stablehlo.case"(%k) ({
      %3 = "stablehlo.sort"(%v) <{dimension = 0 : i64}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %4 = stablehlo.add %a, %c : tensor<f32>
        %5 = stablehlo.compare LT, %4, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %5 : tensor<i1>
      }) : (tensor<3xf32>) -> tensor<3xf32>
      stablehlo.return %3 : tensor<3xf32>
    }, {
      %6 = stablehlo.add %v, %x : tensor<3xf32>
      stablehlo.return %6 : tensor<3xf32>
    }) : (tensor<i32>) -> tensor<3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %7 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %7, %2 : tensor<i32>, tensor<3xf32>
  }
  return %0#1 : tensor<3xf32>
}"#,
    );
    // State: (k, v) and the captured %n and %x; %c is copied, not carried.
    let w = entry(&m)
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::While)
        .unwrap();
    assert_eq!(w.shape.to_string(), "(s32[], f32[3]{0}, s32[], f32[3]{0})");
    let sort = m
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .find(|i| i.opcode == Opcode::Sort)
        .unwrap();
    let comparator = m.computation(sort.called_computations()[0]).unwrap();
    assert!(comparator
        .instructions
        .iter()
        .any(|i| i.opcode == Opcode::Constant));
}

#[test]
fn if_select_and_scatter_and_types() {
    let m = parse(
        r#"func.func @main(%p: tensor<i1>, %x: tensor<4x6xi8>, %s: tensor<4x3xi8>, %b: tensor<2x?xbf16, #stablehlo.bounds<?, 3>>) -> tensor<4x6xi8> {
  %z = "stablehlo.constant"() <{value = dense<"0x00"> : tensor<i8>}> : () -> tensor<i8>
  %0 = "stablehlo.select_and_scatter"(%x, %s, %z) <{padding = dense<[[1, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<i8>, %c: tensor<i8>):
    %1 = "stablehlo.compare"(%a, %c) <{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type SIGNED>}> : (tensor<i8>, tensor<i8>) -> tensor<i1>
    "stablehlo.return"(%1) : (tensor<i1>) -> ()
  }, {
  ^bb0(%a: tensor<i8>, %c: tensor<i8>):
    %1 = "stablehlo.add"(%a, %c) : (tensor<i8>, tensor<i8>) -> tensor<i8>
    "stablehlo.return"(%1) : (tensor<i8>) -> ()
  }) : (tensor<4x6xi8>, tensor<4x3xi8>, tensor<i8>) -> tensor<4x6xi8>
  %2 = "stablehlo.if"(%p) ({
    %3 = "stablehlo.negate"(%0) : (tensor<4x6xi8>) -> tensor<4x6xi8>
    "stablehlo.return"(%3) : (tensor<4x6xi8>) -> ()
  }, {
    "stablehlo.return"(%x) : (tensor<4x6xi8>) -> ()
  }) : (tensor<i1>) -> tensor<4x6xi8>
  "func.return"(%2) : (tensor<4x6xi8>) -> ()
}"#,
    );
    let lines = ops(entry(&m));
    assert!(
        lines[0].starts_with(
            "select-and-scatter s8[4,6]{1,0}, window={size=2x2 stride=1x2 pad=1_0x0_0}, select="
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("conditional s8[4,6]{1,0}, true_computation="),
        "{}",
        lines[1]
    );
    let b = &entry(&m).parameters()[3].shape;
    assert_eq!(b.to_string(), "bf16[2,<=3]{1,0}");
}

/// Tokens and host transfers: JAX's pretty `create_token` / `after_all`, tokens as `@main`'s
/// arguments and results, and the generic forms of `infeed`, `outfeed`, `send` and `recv`
/// (`send` becomes `send` + `send-done`, `recv` becomes `recv` + `recv-done`).
#[test]
fn tokens_and_host_transfers() {
    let m = parse(
        r#"module attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: !stablehlo.token, %arg1: tensor<2x3xf32>) -> (!stablehlo.token, tensor<2x3xf32>, tensor<i32>) {
    %0 = stablehlo.create_token : !stablehlo.token
    %1 = stablehlo.after_all %arg0, %0 : !stablehlo.token
    %2:3 = "stablehlo.infeed"(%1) <{infeed_config = "cfg", layout = [[0, 1], []]}> : (!stablehlo.token) -> (tensor<2x3xf32>, tensor<i32>, !stablehlo.token)
    %3 = "stablehlo.outfeed"(%2#0, %2#1, %2#2) {outfeed_config = ""} : (tensor<2x3xf32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    %4 = "stablehlo.send"(%arg1, %3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>} : (tensor<2x3xf32>, !stablehlo.token) -> !stablehlo.token
    %5:2 = "stablehlo.recv"(%4) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> {mhlo.frontend_attributes = {other = "x"}} : (!stablehlo.token) -> (tensor<2x3xf32>, !stablehlo.token)
    %6 = "stablehlo.after_all"() : () -> !stablehlo.token
    return %5#1, %5#0, %2#1 : !stablehlo.token, tensor<2x3xf32>, tensor<i32>
  }
}"#,
    );
    let e = entry(&m);
    assert_eq!(e.parameters()[0].shape.to_string(), "token[]");
    assert_eq!(
        ops(e),
        [
            "after-all token[]",
            "after-all token[]",
            r#"infeed ((f32[2,3]{0,1}, s32[]), token[]), infeed_config="cfg""#,
            "outfeed token[], outfeed_shape=(f32[2,3]{0,1}, s32[])",
            "send (f32[2,3]{1,0}, u32[], token[]), channel_id=5, is_host_transfer=true",
            "send-done token[], channel_id=5, is_host_transfer=true",
            r#"recv (f32[2,3]{1,0}, u32[], token[]), channel_id=1, frontend_attributes={other="x",_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}"#,
            "recv-done (f32[2,3]{1,0}, token[]), channel_id=1",
            // An operation whose result nothing uses is kept.
            "after-all token[]",
        ]
    );
    assert_eq!(
        e.root_instruction().shape.to_string(),
        "(token[], f32[2,3]{1,0}, s32[])"
    );
}

/// The opcodes of the instructions a run of computation `name` may execute: its own and, once
/// per call site, those of the computations it calls (the printer inlines regions).
fn executed(m: &HloModule, name: &str, out: &mut Vec<Opcode>) {
    for i in &m.computation(name).unwrap().instructions {
        out.push(i.opcode);
        for c in i.called_computations() {
            executed(m, c, out);
        }
    }
}

/// Every example of the host-transfer entries goes through the printer and back with each of
/// its effects: as many infeeds, outfeeds, sends and receives (the root uses few of them).
#[test]
fn host_transfer_examples_round_trip_with_every_effect() {
    let catalog = conformance_spec::catalog::Catalog::builtin().expect("catalog");
    let effects = |m: &HloModule| -> Vec<(Opcode, usize)> {
        let mut all = Vec::new();
        executed(m, &m.entry_computation().name, &mut all);
        [
            Opcode::Infeed,
            Opcode::Outfeed,
            Opcode::Send,
            Opcode::SendDone,
            Opcode::Recv,
            Opcode::RecvDone,
        ]
        .into_iter()
        .map(|o| (o, all.iter().filter(|&&a| a == o).count()))
        .collect()
    };
    let mut count = 0;
    for op in catalog.ops_of_family("host_transfer") {
        for ex in &op.examples {
            let name = format!("{} {}", op.id, ex.name);
            round_trip(&name, &ex.hlo).unwrap_or_else(|e| panic!("{e}"));
            let hlo = parse_module(&ex.hlo).unwrap();
            let text = print_stablehlo(&hlo).unwrap();
            let back = parse_stablehlo(&text).unwrap();
            assert_eq!(effects(&back), effects(&hlo), "{name}\n{text}");
            count += 1;
        }
    }
    assert!(count >= 6, "{count} examples");
}

#[test]
fn locations_and_aliases_are_skipped() {
    // What `lowered.as_text(debug_info=True)` prints.
    let m = parse(
        r#"#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> loc("x")) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.sine %arg0 : tensor<3xf32> loc(#loc3)
    return %0 : tensor<3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc2 = loc("/tmp/x.py":3:0)
#loc3 = loc("jit(f)/jit(main)/sin"(#loc2))
"#,
    );
    assert_eq!(ops(entry(&m)), ["sine f32[3]{0}"]);
}

#[test]
fn source_positions_of_instructions() {
    let text = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.negate %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n";
    let (m, map) = parse_stablehlo_with_positions(text).unwrap();
    let neg = entry(&m)
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::Negate)
        .unwrap();
    assert_eq!(map.position(&entry(&m).name, &neg.name), Some((2, 8)));
    assert_eq!(map.position("main", "nothing"), None);
    assert_eq!(map.len(), 2);
}

/// (text, expected `line:col: ...` prefix, words the message contains).
const ERRORS: &[(&str, &str, &str)] = &[
    (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.frobnicate %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
        "2:8:",
        "unknown operation `stablehlo.frobnicate`",
    ),
    (
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = \"stablehlo.collective_broadcast\"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
        "2:8:",
        "`stablehlo.collective_broadcast` has no translation",
    ),
    (
        "module attributes {mhlo.num_replicas = 2 : i32} {\nfunc.func @main(%a: tensor<2xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.all_gather\"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[0, 1]> : tensor<2xi64>} : (tensor<2xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n}",
        "3:",
        "`replica_groups` expects a dense i64 tensor of shape N×M",
    ),
    (
        "func.func @main(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<1xi64>) -> tensor<4xf32> {\n  %0 = \"stablehlo.rng\"(%a, %b, %c) {rng_distribution = #stablehlo<rng_distribution POISSON>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
        "2:",
        "needs `rng_distribution`",
    ),
    (
        "func.func @main(%a: tensor<2xui64>) -> tensor<4xui32> {\n  %0 = \"stablehlo.rng_bit_generator\"(%a) : (tensor<2xui64>) -> tensor<4xui32>\n  return %0 : tensor<4xui32>\n}",
        "2:8:",
        "has 2 results (state, data)",
    ),
    (
        "func.func @main(%a: tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>) {\n  %0:2 = \"stablehlo.rng_bit_generator\"(%a) <{rng_algorithm = #stablehlo<rng_algorithm MERSENNE>}> : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)\n  return %0#0, %0#1 : tensor<2xui64>, tensor<4xui32>\n}",
        "2:",
        "is not DEFAULT, THREE_FRY or PHILOX",
    ),
    (
        "func.func @main(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {\n  %0 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {backend_config = \"\"} : (tensor<3x3xf32>) -> tensor<3x3xf32>\n  return %0 : tensor<3x3xf32>\n}",
        "2:8:",
        "`lapack_spotrf_ffi` needs `uplo` in `backend_config`",
    ),
    (
        "func.func @main(%a: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {\n  %0:2 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {backend_config = \"\"} : (tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)\n  return %0#0, %0#1 : tensor<3xf32>, tensor<3xf32>\n}",
        "2:32:",
        "`lapack_sgeev_ffi` is documented in docs/custom-calls.md but not evaluated",
    ),
    (
        "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n  %0 = \"stablehlo.custom_call\"(%a) {call_target_name = \"my_kernel\"} : (tensor<3xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}",
        "2:",
        "custom call target `my_kernel` is not in the registry",
    ),
    (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.fft\"(%a) : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
        "2:8:",
        "`stablehlo.fft` needs `fft_type`",
    ),
    (
        "func.func @main(%a: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {\n  %0 = stablehlo.fft %a, type = SLOW, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>\n  return %0 : tensor<4xcomplex<f32>>\n}",
        "2:26:",
        "`fft_type` expects one of FFT, IFFT, RFFT, IRFFT",
    ),
    (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = chlo.sinh_foo %a : tensor<4xf32> -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
        "2:8:",
        "`chlo.sinh_foo` has no HLO opcode",
    ),
    (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %b : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
        "2:26:",
        "undefined value `%b`",
    ),
    (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, %a : tensor<5xf32>\n  return %0 : tensor<4xf32>\n}",
        "2:22:",
        "`%a` has shape f32[4]{0}, the text declares f32[5]{0}",
    ),
    (
        "func.func @main(%a: tensor<4xi4>) -> tensor<4xf32> {\n}",
        "1:30:",
        "element type `i4` has no counterpart",
    ),
    (
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.negate %a tensor<4xf32>\n}",
        "2:28:",
        "expected `:` and the type, found `tensor`",
    ),
    (
        "func.func @main(%a: tensor<4x3f32>) -> tensor<4xf32> {\n}",
        "1:31:",
        "expected `x` after a tensor dimension",
    ),
    (
        "func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0], algorithm = <lhs_precision_type = tf32> : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}",
        "2:68:",
        "attribute `algorithm` of `stablehlo.dot_general` has no translation",
    ),
    (
        "func.func @main(%a: tensor<3xf32>, %k: tensor<f32>) -> tensor<3xf32> {\n  %0 = \"stablehlo.sort\"(%a) ({\n  ^bb0(%l: tensor<f32>, %r: tensor<f32>):\n    %1 = stablehlo.compare LT, %l, %k, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n    stablehlo.return %1 : tensor<i1>\n  }) : (tensor<3xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}",
        "4:36:",
        "uses `%k`, defined outside it",
    ),
    (
        "func.func @main() -> tensor<2xi32> {\n  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>\n  return %c : tensor<2xi32>\n}",
        "2:33:",
        "a list of 3 elements where dimension size 2 is expected",
    ),
    (
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.negate %a {foo = \"x} : tensor<f32>\n}",
        "2:35:",
        "unterminated string",
    ),
    (
        "func.func @main(%t: !stablehlo.token) -> tensor<2xf32> {\n  %0:3 = \"stablehlo.infeed\"(%t) <{layout = [[0]]}> : (!stablehlo.token) -> (tensor<2xf32>, tensor<f32>, !stablehlo.token)\n  return %0#0 : tensor<2xf32>\n}",
        "2:35:",
        "`layout` has 1 entries for 2 data result(s)",
    ),
    (
        "func.func @main(%t: !stablehlo.token) -> tensor<2x2xf32> {\n  %0:2 = \"stablehlo.infeed\"(%t) <{layout = [[0, 0]]}> : (!stablehlo.token) -> (tensor<2x2xf32>, !stablehlo.token)\n  return %0#0 : tensor<2x2xf32>\n}",
        "2:35:",
        "`layout` of result 0: minor_to_major [0, 0] is not a permutation",
    ),
    (
        "func.func @main(%t: !stablehlo.token) -> tensor<2xf32> {\n  %0 = \"stablehlo.infeed\"(%t) : (!stablehlo.token) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}",
        "2:8:",
        "`stablehlo.infeed` gives its data and a token, last",
    ),
    (
        "func.func @main(%a: tensor<2xf32>, %t: !stablehlo.token) -> !stablehlo.token {\n  %0 = \"stablehlo.send\"(%a, %t) : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token\n  return %0 : !stablehlo.token\n}",
        "2:8:",
        "`stablehlo.send` needs `channel_handle = #stablehlo.channel_handle<handle = N, type = T>`",
    ),
    (
        "func.func @main(%t: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {\n  %0:2 = \"stablehlo.recv\"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>, mhlo.frontend_attributes = {_xla_send_recv_source_target_pairs = \"{{1,0}}\"}} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)\n  return %0#0, %0#1 : tensor<2xf32>, !stablehlo.token\n}",
        "2:98:",
        "`source_target_pairs` and the frontend attribute _xla_send_recv_source_target_pairs name different pairs",
    ),
    (
        "func.func @main(%t: !stablehlo.token) -> !stablehlo.token {\n  %0 = \"stablehlo.create_token\"(%t) : (!stablehlo.token) -> !stablehlo.token\n  return %0 : !stablehlo.token\n}",
        "2:8:",
        "`stablehlo.create_token` takes no operands",
    ),
    (
        "func.func @main(%a: tensor<f32>) -> tensor<i32> {\n  return %a : tensor<f32>\n}",
        "2:3:",
        "result 0 of `@main` has shape f32[], the text declares s32[]",
    ),
    (
        "func.func private @f(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}",
        "1:1:",
        "expected a function `@main`",
    ),
    (
        "module {\n  func.func @main(%a: tensor<f32>) -> tensor<f32> {\n    %0 = stablehlo.negate %a : tensor<f32>\n    return %0 : tensor<f32>\n  }\n",
        "6:1:",
        "expected `func.func`, found end of input",
    ),
];

#[test]
fn errors_name_what_was_expected_at_line_and_column() {
    let mut wrong = Vec::new();
    for (text, at, words) in ERRORS {
        let e = parse_err(text);
        if !e.starts_with(at) || !e.contains(words) {
            wrong.push(format!("expected {at} {words}, got: {e}\n{text}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}

// ----- Round trip through the printer -------------------------------------------------------

/// HLO → StableHLO (generic) → IR → StableHLO: the second text equals the first.
fn round_trip(name: &str, hlo: &str) -> Result<(), String> {
    let module = parse_module(hlo).map_err(|e| format!("{name}: HLO: {e}"))?;
    let first = print_stablehlo(&module).map_err(|e| format!("{name}: print: {e}"))?;
    let parsed = parse_stablehlo(&first).map_err(|e| format!("{name}: parse: {e}\n{first}"))?;
    verify_module(&parsed).map_err(|e| format!("{name}: verify: {e}\n{parsed}"))?;
    let second = print_stablehlo(&parsed).map_err(|e| format!("{name}: reprint: {e}\n{parsed}"))?;
    if first != second {
        return Err(format!(
            "{name}: the texts differ:\n--- first\n{first}\n--- second\n{second}"
        ));
    }
    Ok(())
}

fn hlo_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out: Vec<PathBuf> = std::fs::read_dir(root.join("tests/data/jax"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    for e in std::fs::read_dir(root.join("../corpus/programs"))
        .unwrap()
        .flatten()
    {
        let p = e.path().join("module.hlo");
        if p.exists() {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn jax_dumps_and_corpus_programs_round_trip_through_the_printer() {
    let files = hlo_files();
    assert!(files.len() >= 25, "{} files", files.len());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|p| {
            round_trip(
                &p.display().to_string(),
                &std::fs::read_to_string(p).unwrap(),
            )
            .err()
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// HLO modules using every operation of the catalog (and the attribute forms the printer
/// translates), for the round trip.
const MODULES: &[(&str, &str)] = &[
    (
        "random",
        "HloModule random
ENTRY e {
  s2 = u64[2] parameter(0)
  s3 = u64[3] parameter(1)
  t = (u64[2]{0}, u32[3,5]{0,1}) rng-bit-generator(s2), algorithm=rng_three_fry
  p = (u64[3]{0}, f16[7]{0}) rng-bit-generator(s3), algorithm=rng_philox
  d = (u64[2]{0}, s64[]) rng-bit-generator(s2), algorithm=rng_default
  ROOT r = ((u64[2]{0}, u32[3,5]{0,1}), (u64[3]{0}, f16[7]{0}), (u64[2]{0}, s64[])) tuple(t, p, d)
}",
    ),
    (
        "lapack",
        "HloModule lapack
ENTRY e {
  a = f32[2,5,5] parameter(0)
  b = f32[2,5,3] parameter(1)
  p = (f32[2,5,5]{1,2,0}, s32[2]{0}) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims=\"1\"}, backend_config={uplo = 76 : ui8}
  l = f32[2,5,5]{1,2,0} get-tuple-element(p), index=0
  x = f32[2,5,3]{1,2,0} custom-call(l, b), custom_call_target=\"lapack_strsm_ffi\", api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims=\"1\"}, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}
  m = f64[6,4] parameter(2)
  lu = (f64[6,4]{0,1}, s32[4]{0}, s32[]) custom-call(m), custom_call_target=\"lapack_dgetrf_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={}
  qr = (f64[6,4]{0,1}, f64[4]{0}) custom-call(m), custom_call_target=\"lapack_dgeqrf_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={}
  v = f64[6,4]{0,1} get-tuple-element(qr), index=0
  tau = f64[4]{0} get-tuple-element(qr), index=1
  q = f64[6,4]{0,1} custom-call(v, tau), custom_call_target=\"lapack_dorgqr_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={}
  s = c64[3,3] parameter(3)
  e = (c64[3,3]{0,1}, f32[3]{0}, s32[]) custom-call(s), custom_call_target=\"lapack_cheevd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 85 : ui8}
  svd = (f64[6,4]{0,1}, f64[4]{0}, f64[6,6]{0,1}, f64[4,4]{0,1}, s32[]) custom-call(m), custom_call_target=\"lapack_dgesdd_ffi\", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 65 : ui8}
  ROOT t = (f32[2,5,3]{1,2,0}, (f64[6,4]{0,1}, s32[4]{0}, s32[]), f64[6,4]{0,1}, (c64[3,3]{0,1}, f32[3]{0}, s32[]), (f64[6,4]{0,1}, f64[4]{0}, f64[6,6]{0,1}, f64[4,4]{0,1}, s32[])) tuple(x, lu, q, e, svd)
}",
    ),
    (
        "linalg",
        "HloModule linalg
ENTRY e {
  x = c64[2,4,8] parameter(0)
  f = c64[2,4,8] fft(x), fft_type=FFT, fft_length={4,8}
  i = c64[2,4,8] fft(f), fft_type=IFFT, fft_length={8}
  r = f32[3,6] parameter(1)
  rf = c64[3,4] fft(r), fft_type=RFFT, fft_length={3,6}
  ir = f32[3,6] fft(rf), fft_type=IRFFT, fft_length={3,6}
  a = f64[2,3,3] parameter(2)
  l = f64[2,3,3] cholesky(a), lower=true
  b = f64[2,3,5] parameter(3)
  s = f64[2,3,5] triangular-solve(l, b), left_side=true, lower=true, unit_diagonal=false, transpose_a=ADJOINT
  u = f64[2,3,3] cholesky(a), lower=false
  b2 = f64[2,5,3] parameter(4)
  s2 = f64[2,5,3] triangular-solve(u, b2), left_side=false, lower=false, unit_diagonal=true, transpose_a=NO_TRANSPOSE
  n = f32[2,4,3,3] parameter(5)
  g = f32[4] parameter(6)
  t = (f32[2,4,3,3], f32[4], f32[4]) batch-norm-training(n, g, g), epsilon=0.001, feature_index=1
  m = f32[4] get-tuple-element(t), index=1
  v = f32[4] get-tuple-element(t), index=2
  y = f32[2,4,3,3] batch-norm-inference(n, g, g, m, v), epsilon=1e-05, feature_index=1
  yi = f32[2,4,3,3] batch-norm-inference(n, g, g, m, v), epsilon=inf, feature_index=1
  ys = f32[2,4,3,3] add(y, yi)
  d = (f32[2,4,3,3], f32[4], f32[4]) batch-norm-grad(n, g, m, v, ys), epsilon=0, feature_index=1
  ROOT o = (c64[2,4,8], f32[3,6], f64[2,3,5], f64[2,5,3], (f32[2,4,3,3], f32[4], f32[4])) tuple(i, ir, s, s2, d)
}",
    ),
    (
        "chlo",
        "HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  z = c64[4] parameter(2)
  u1 = f32[4] asin(a)
  u2 = f32[4] acos(u1)
  u3 = f32[4] atan(u2)
  u4 = f32[4] sinh(u3)
  u5 = f32[4] cosh(u4)
  u6 = f32[4] asinh(u5)
  u7 = f32[4] acosh(u6)
  u8 = f32[4] atanh(u7)
  u9 = f32[4] erfc(u8)
  u10 = f32[4] erf-inv(u9)
  u11 = f32[4] lgamma(u10)
  u12 = f32[4] digamma(u11)
  u13 = f32[4] bessel-i1e(u12)
  b1 = f32[4] next-after(u13, b)
  b2 = f32[4] polygamma(b, b1)
  b3 = f32[4] zeta(b2, a)
  c1 = c64[4] asin(z)
  c2 = c64[4] acosh(c1)
  c3 = c64[4] atanh(c2)
  ROOT t = (f32[4], c64[4]) tuple(b3, c3)
}",
    ),
    (
        "elementwise",
        "HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  b = f32[2,3] parameter(1)
  p = pred[2,3] parameter(2)
  i = s32[2,3] parameter(3)
  u = u8[2,3] parameter(4)
  s = f32[2,3] add(a, b)
  t = f32[2,3] atan2(s, b)
  c = c64[2,3] complex(s, t)
  r = f32[2,3] real(c)
  im = f32[2,3] imag(c)
  ab = f32[2,3] abs(c)
  d = f32[2,3] divide(r, im)
  mx = f32[2,3] maximum(d, ab)
  mn = f32[2,3] minimum(mx, a)
  ml = f32[2,3] multiply(mn, a)
  pw = f32[2,3] power(ml, a)
  rm = f32[2,3] remainder(pw, a)
  sb = f32[2,3] subtract(rm, a)
  u1 = f32[2,3] cbrt(sb)
  u2 = f32[2,3] ceil(u1)
  u3 = f32[2,3] cosine(u2)
  u4 = f32[2,3] exponential(u3)
  u5 = f32[2,3] exponential-minus-one(u4)
  u6 = f32[2,3] floor(u5)
  u7 = f32[2,3] log(u6)
  u8 = f32[2,3] log-plus-one(u7)
  u9 = f32[2,3] logistic(u8)
  v1 = f32[2,3] negate(u9)
  v2 = f32[2,3] round-nearest-afz(v1)
  v3 = f32[2,3] round-nearest-even(v2)
  v4 = f32[2,3] rsqrt(v3)
  v5 = f32[2,3] sign(v4)
  v6 = f32[2,3] sine(v5)
  v7 = f32[2,3] sqrt(v6)
  v8 = f32[2,3] tan(v7)
  v9 = f32[2,3] tanh(v8)
  w1 = f32[2,3] erf(v9)
  w2 = f32[2,3] reduce-precision(w1), exponent_bits=5, mantissa_bits=2
  fin = pred[2,3] is-finite(w2)
  cmp = pred[2,3] compare(w2, a), direction=LT, type=TOTALORDER
  cmp2 = pred[2,3] compare(i, i), direction=NE
  cmp3 = pred[2,3] compare(u, u), direction=GE
  n = pred[2,3] not(cmp)
  an = pred[2,3] and(n, fin)
  o = pred[2,3] or(an, cmp2)
  x = pred[2,3] xor(o, cmp3)
  sel = f32[2,3] select(x, w2, a)
  lo = f32[] constant(-1)
  cl = f32[2,3] clamp(lo, sel, sel)
  cv = s32[2,3] convert(cl)
  bc = u32[2,3] bitcast-convert(cl)
  sl = s32[2,3] shift-left(cv, i)
  sra = s32[2,3] shift-right-arithmetic(sl, i)
  srl = u8[2,3] shift-right-logical(u, u)
  pc = u8[2,3] popcnt(srl)
  clz = s32[2,3] count-leading-zeros(sra)
  ROOT out = (f32[2,3], u32[2,3], u8[2,3], s32[2,3], pred[2,3]) tuple(cl, bc, pc, clz, p)
}",
    ),
    (
        "movement",
        "HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  b = f32[4,2,3] broadcast(a), dimensions={1,2}
  t = f32[3,2,4] transpose(b), dimensions={2,1,0}
  r = f32[6,4] reshape(t)
  s = f32[3,2] slice(r), slice={[0:6:2], [1:3]}
  c = f32[3,4] concatenate(s, s), dimensions={1}
  v = f32[3,4] reverse(c), dimensions={0,1}
  z = f32[] constant(0)
  p = f32[5,4] pad(v, z), padding=1_-1_1x0_0
  i = s64[5,4] iota(), iota_dimension=1
  g = s32[] get-dimension-size(p), dimensions={1}
  cp = f32[5,4]{0,1} copy(p)
  ROOT out = (f32[5,4], s64[5,4], s32[]) tuple(cp, i, g)
}",
    ),
    (
        "dynamic",
        "HloModule m
ENTRY e {
  a = f32[4,2] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=4,2] set-dimension-size(a, n), dimensions={0}
  x = f32[<=4,2] negate(d)
  ROOT g = s32[] get-dimension-size(x), dimensions={0}
}",
    ),
    (
        "indexing",
        "HloModule m
upd {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[5,3] parameter(0)
  i = s32[2,1] parameter(1)
  j = u32[] parameter(2)
  d = f32[2,3] dynamic-slice(x, j, j), dynamic_slice_sizes={2,3}
  u = f32[5,3] dynamic-update-slice(x, d, j, j)
  g = f32[2,3] gather(u, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true
  ROOT s = f32[5,3] scatter(u, i, g), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, unique_indices=true, to_apply=upd
}",
    ),
    (
        "contractions",
        "HloModule m
ENTRY e {
  a = bf16[2,3,4] parameter(0)
  b = bf16[2,4,5] parameter(1)
  d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  x = f32[1,5,5,2] parameter(2)
  k = f32[3,3,2,4] parameter(3)
  c = f32[1,1,9,4] convolution(x, k), window={size=3x3 stride=2x1 pad=1_0x0_2 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f
  y = f32[2,4,6] parameter(4)
  w = f32[3,2,4] parameter(5)
  g = f32[2,4,4] convolution(y, w), window={size=3}, dim_labels=bf0_0io->bf0, feature_group_count=2
  ROOT out = (f32[2,3,5], f32[1,1,9,4], f32[2,4,4]) tuple(d, c, g)
}",
    ),
    (
        "reductions",
        "HloModule m
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  c = pred[] compare(a, b), direction=GE
  x = f32[] select(c, a, b)
  y = s32[] select(c, i, j)
  ROOT t = (f32[], s32[]) tuple(x, y)
}
add {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT s = s8[] add(a, b)
}
ge {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
neg {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
ENTRY e {
  v = f32[3,4] parameter(0)
  k = s32[3,4] parameter(1)
  m = f32[] constant(-inf)
  n = s32[] constant(-1)
  r = (f32[3], s32[3]) reduce(v, k, m, n), dimensions={1}, to_apply=argmax
  g = s32[3] get-tuple-element(r), index=1
  x = s8[4,6] parameter(2)
  z = s8[] constant(0)
  w = s8[4,3] reduce-window(x, z), window={size=2x2 stride=1x2 pad=1_0x0_0 lhs_dilate=1x1 rhs_dilate=1x1}, to_apply=add
  ss = s8[4,6] select-and-scatter(x, w, z), window={size=2x2 stride=1x2 pad=1_0x0_0}, select=ge, scatter=add
  st = f32[3,4] sort(v), dimensions={1}, is_stable=true, to_apply=lt
  mp = f32[3,4] map(st), dimensions={0,1}, to_apply=neg
  tk = (f32[3,2], s32[3,2]) topk(mp), k=2, largest=true
  tl = (f32[3,2], s32[3,2]) topk(mp), k=2, largest=false
  ROOT out = (s32[3], s8[4,6], (f32[3,2], s32[3,2]), (f32[3,2], s32[3,2])) tuple(g, ss, tk, tl)
}",
    ),
    (
        "control",
        "HloModule m
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  w = f32[2] add(v, v)
  ROOT t = (s32[], f32[2]) tuple(j, w)
}
yes {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
no {
  x = f32[2] parameter(0)
  ROOT c = f32[2] copy(x)
}
b2 {
  x = f32[2] parameter(0)
  ROOT c = f32[2] sine(x)
}
pair {
  x = f32[2] parameter(0)
  y = f32[2] multiply(x, x)
  ROOT t = (f32[2], f32[2]) tuple(x, y)
}
ENTRY e {
  z = s32[] constant(0)
  a = f32[2] parameter(0)
  p = pred[] parameter(1)
  k = s32[] parameter(2)
  t = (s32[], f32[2]) tuple(z, a)
  w = (s32[], f32[2]) while(t), condition=cond, body=body
  r = f32[2] get-tuple-element(w), index=1
  c = f32[2] conditional(p, r, a), true_computation=yes, false_computation=no
  c3 = f32[2] conditional(k, c, a, r), branch_computations={yes, no, b2}
  cl = (f32[2], f32[2]) call(c3), to_apply=pair
  ob = (f32[2], f32[2]) opt-barrier(cl)
  ROOT o = f32[2] get-tuple-element(ob), index=1
}",
    ),
    (
        "collectives",
        "HloModule m, replica_count=4, num_partitions=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4,6] parameter(0)
  ar = f32[4,6] all-reduce(x), replica_groups={{0,1},{2,3}}, to_apply=sum
  ag = f32[4,12] all-gather(ar), dimensions={1}, replica_groups={{0,2},{1,3}}
  rs = f32[4,6] reduce-scatter(ag), dimensions={1}, channel_id=3, replica_groups={{0,1},{2,3},{4,5},{6,7}}, use_global_device_ids=true, to_apply=sum
  aa = f32[4,6] all-to-all(rs), dimensions={0}, replica_groups={{0,1,2,3}}
  cp = f32[4,6] collective-permute(aa), channel_id=5, source_target_pairs={{0,1},{1,0}}
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (f32[4,6], u32[], u32[]) tuple(cp, r, p)
}",
    ),
    (
        "transfers",
        "HloModule m, replica_count=2
cond {
  p = (s32[], f32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[] get-tuple-element(p), index=1
  t = token[] get-tuple-element(p), index=2
  in = (f32[], token[]) infeed(t)
  v = f32[] get-tuple-element(in), index=0
  t2 = token[] get-tuple-element(in), index=1
  acc2 = f32[] add(acc, v)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT r = (s32[], f32[], token[]) tuple(i2, acc2, t2)
}
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  t0 = token[] after-all()
  in = ((f32[2,3]{0,1}, s32[]), token[]) infeed(t0), infeed_config=\"feed \\\"a\\\"\"
  d = (f32[2,3]{0,1}, s32[]) get-tuple-element(in), index=0
  t1 = token[] get-tuple-element(in), index=1
  o1 = token[] outfeed(x, t1), outfeed_shape=f32[2,3]{0,1}, outfeed_config=\"out\"
  o2 = token[] outfeed(d, o1), outfeed_shape=(f32[2,3]{0,1}, s32[])
  j = token[] after-all(t0, o2)
  r = (f32[2,3]{0,1}, u32[], token[]) recv(j), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}
  s = (f32[2,3]{0,1}, u32[], token[]) send(x, j), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}
  rd = (f32[2,3]{0,1}, token[]) recv-done(r), channel_id=1
  sd = token[] send-done(s), channel_id=1
  h = ((f32[2,3]{0,1}, s32[]), u32[], token[]) send(d, sd), channel_id=2, is_host_transfer=true
  hd = token[] send-done(h), channel_id=2, is_host_transfer=true
  z = s32[] constant(0)
  f = f32[] constant(0)
  s0 = (s32[], f32[], token[]) tuple(z, f, hd)
  w = (s32[], f32[], token[]) while(s0), condition=cond, body=body
  acc = f32[] get-tuple-element(w), index=1
  v = f32[2,3]{0,1} get-tuple-element(rd), index=0
  ROOT out = (f32[2,3]{0,1}, f32[]) tuple(v, acc)
}",
    ),
];

#[test]
fn every_catalog_operation_round_trips_through_the_printer() {
    let failures: Vec<String> = MODULES
        .iter()
        .filter_map(|(name, hlo)| round_trip(name, hlo).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Every opcode of the catalog appears in some module above, but those StableHLO has no
    // form for, which exist only in XLA's optimized modules: `fusion` (a call of a fused
    // computation) and `bitcast` (a reinterpretation of a buffer under another layout).
    // And `rng`: StableHLO passes its shape as a constant operand, which reading keeps as an
    // instruction of its own, so a second print holds that constant twice;
    // `rng_reads_in_both_forms_and_prints_its_shape_operand` tests it instead.
    const NOT_IN_STABLEHLO: &[Opcode] = &[Opcode::Fusion, Opcode::Bitcast, Opcode::Rng];
    let catalog = conformance_spec::catalog::Catalog::builtin().expect("catalog");
    let used: std::collections::HashSet<Opcode> = MODULES
        .iter()
        .flat_map(|(_, t)| parse_module(t).unwrap().computations)
        .flat_map(|c| c.instructions.into_iter().map(|i| i.opcode))
        .collect();
    let missing: Vec<String> = catalog
        .ops()
        .iter()
        .filter_map(|op| Opcode::from_name(&op.opcode))
        .filter(|o| !used.contains(o) && !NOT_IN_STABLEHLO.contains(o))
        .map(|o| o.to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "catalog opcodes not covered: {missing:?}"
    );
}

/// Bad input never panics: every real program cut short or with a span deleted gives a module
/// or an error, never a panic (the CLI exits 2 on it).
#[test]
fn damaged_programs_give_errors_not_panics() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/programs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path().join("module.stablehlo.mlir")))
        .filter(|p| p.exists())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    };
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let chars: Vec<char> = text.chars().collect();
        for _ in 0..150 {
            let a = next(chars.len());
            let b = (a + 1 + next(40)).min(chars.len());
            let cut: String = chars[..a].iter().chain(&chars[b..]).collect();
            let _ = conformance_spec::hlo::parse_stablehlo(&cut);
            let truncated: String = chars[..a].iter().collect();
            let _ = conformance_spec::hlo::parse_stablehlo(&truncated);
        }
    }
}

/// Every example module JAX lowers for a LAPACK target (corpus/external/custom_calls) reads into
/// the IR when the registry evaluates its target, with the options and batch count JAX wrote,
/// and is refused by name otherwise.
#[test]
fn jax_lapack_custom_calls_read_into_the_registry() {
    use conformance_spec::custom_call::{parse_target, LapackCall};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/external/custom_calls");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 60);
    let (mut read, mut refused) = (0, 0);
    for f in &files {
        let target = f.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        match (parse_target(&target), parse_stablehlo(&text)) {
            (Some((routine, ty)), Ok(m)) => {
                let calls: Vec<LapackCall> = m
                    .computations
                    .iter()
                    .flat_map(|c| &c.instructions)
                    .filter(|i| i.opcode == Opcode::CustomCall)
                    .map(|i| LapackCall::from_instruction(i).expect("a registry call"))
                    .collect();
                assert_eq!(calls.len(), 1, "{target}");
                assert_eq!((calls[0].routine, calls[0].element_type), (routine, ty));
                assert_eq!(calls[0].target(), target);
                read += 1;
            }
            (None, Err(e)) => {
                assert!(
                    e.to_string().contains(&format!("`{target}` is documented")),
                    "{target}: {e}"
                );
                refused += 1;
            }
            (known, r) => panic!("{target}: known {known:?}, parse {:?}", r.err()),
        }
    }
    // 8 routines (potrf, trsm, getrf, geqrf, orgqr/ungqr, syevd/heevd, gesdd, gesvd) × 4 types.
    assert_eq!((read, refused), (32, 28));
}

#[test]
fn rng_reads_in_both_forms_and_prints_its_shape_operand() {
    let pretty = "func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<2x3xf32> {\n  %c = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n  %0 = stablehlo.rng %a, %b, %c, distribution =  NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>\n  return %0 : tensor<2x3xf32>\n}";
    let m = parse_stablehlo(pretty).unwrap();
    verify_module(&m).unwrap();
    let root = m.entry_computation().root_instruction();
    assert_eq!(root.opcode, Opcode::Rng);
    assert_eq!(root.operands.len(), 2);
    assert_eq!(root.attr_enum("distribution"), Some("rng_normal"));
    assert_eq!(root.shape.to_string(), "f32[2,3]{1,0}");
    let hlo = parse_module(
        "HloModule r\nENTRY e {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[4]{0} rng(a, b), distribution=rng_uniform\n}\n",
    )
    .unwrap();
    let text = print_stablehlo(&hlo).unwrap();
    assert!(text.contains("dense<[4]> : tensor<1xi64>"), "{text}");
    assert!(
        text.contains("rng_distribution = #stablehlo<rng_distribution UNIFORM>"),
        "{text}"
    );
    let back = parse_stablehlo(&text).unwrap();
    verify_module(&back).unwrap();
    let r = back.entry_computation().root_instruction();
    assert_eq!((r.opcode, r.operands.len()), (Opcode::Rng, 2));
    assert_eq!(r.attr_enum("distribution"), Some("rng_uniform"));
}
