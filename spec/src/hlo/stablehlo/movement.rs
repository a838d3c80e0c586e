//! Data movement with static attributes (seed 004: Broadcast / BroadcastInDim, Reshape,
//! Transpose, Slice, ConcatInDim, Pad, Iota, Rev, GetDimensionSize).

use super::types::i64_array;
use super::{array_operands, At, Emitter, Value, R};
use crate::hlo::ir::Opcode;

/// Writes one data-movement instruction:
/// - `broadcast(x), dimensions={..}` → `stablehlo.broadcast_in_dim` (`broadcast_dimensions`:
///   the result dimension of each operand dimension, as HLO's `dimensions`);
/// - `reshape` → `stablehlo.reshape` (both reorder elements in row-major order);
/// - `transpose(x), dimensions={..}` → `stablehlo.transpose` (`permutation`: result dimension
///   `i` is operand dimension `permutation[i]`, as HLO);
/// - `slice(x), slice={[start:limit:stride], ...}` → `stablehlo.slice`;
/// - `concatenate(...), dimensions={d}` → `stablehlo.concatenate` (`dimension = d`);
/// - `pad(x, v), padding=lo_hi_int x ...` → `stablehlo.pad` (negative edge padding cuts, as HLO);
/// - `iota(), iota_dimension=d` → `stablehlo.iota`;
/// - `reverse(x), dimensions={..}` → `stablehlo.reverse`;
/// - `get-dimension-size(x), dimensions={d}` → `stablehlo.get_dimension_size` (an `i32`
///   scalar);
/// - `set-dimension-size(x, n), dimensions={d}` → `stablehlo.set_dimension_size` (a bounded
///   dynamic result, see [`super::types::tensor_type`]).
///
/// Errors: a missing or mistyped attribute, a wrong operand count, a tuple operand.
pub(super) fn emit(e: &mut Emitter, at: At, ops: &[&Value]) -> R<Value> {
    let instr = at.instr;
    let operands = array_operands(instr, ops)?;
    let expect = |n: usize| {
        if operands.len() == n {
            Ok(())
        } else {
            Err(at.error(format!("expects {n} operand(s), found {}", operands.len())))
        }
    };
    let dims = |name: &str| {
        instr
            .attr_ints(name)
            .ok_or_else(|| at.error(format!("missing `{name}={{...}}`")))
    };
    let one_dim = || match dims("dimensions")? {
        [d] => Ok(*d),
        other => Err(at.error(format!(
            "expects one dimension in `dimensions=`, found {other:?}"
        ))),
    };
    match instr.opcode {
        Opcode::Broadcast => {
            expect(1)?;
            let d = i64_array(dims("dimensions")?);
            e.op_shaped(
                instr,
                "stablehlo.broadcast_in_dim",
                &operands,
                &[("broadcast_dimensions", d)],
                &[],
            )
        }
        Opcode::Reshape => {
            expect(1)?;
            e.op_shaped(instr, "stablehlo.reshape", &operands, &[], &[])
        }
        Opcode::Transpose => {
            expect(1)?;
            let d = i64_array(dims("dimensions")?);
            e.op_shaped(
                instr,
                "stablehlo.transpose",
                &operands,
                &[("permutation", d)],
                &[],
            )
        }
        Opcode::Reverse => {
            expect(1)?;
            let d = i64_array(dims("dimensions")?);
            e.op_shaped(
                instr,
                "stablehlo.reverse",
                &operands,
                &[("dimensions", d)],
                &[],
            )
        }
        Opcode::Slice => {
            expect(1)?;
            let s = instr
                .attr_slice("slice")
                .ok_or_else(|| at.error("missing `slice={...}`"))?;
            let start: Vec<i64> = s.iter().map(|d| d.start).collect();
            let limit: Vec<i64> = s.iter().map(|d| d.limit).collect();
            let stride: Vec<i64> = s.iter().map(|d| d.stride).collect();
            e.op_shaped(
                instr,
                "stablehlo.slice",
                &operands,
                &[
                    ("start_indices", i64_array(&start)),
                    ("limit_indices", i64_array(&limit)),
                    ("strides", i64_array(&stride)),
                ],
                &[],
            )
        }
        Opcode::Concatenate => {
            if operands.is_empty() {
                return Err(at.error("expects at least one operand"));
            }
            let d = one_dim()?;
            e.op_shaped(
                instr,
                "stablehlo.concatenate",
                &operands,
                &[("dimension", format!("{d} : i64"))],
                &[],
            )
        }
        Opcode::Pad => {
            expect(2)?;
            let p = instr
                .attr_padding("padding")
                .ok_or_else(|| at.error("missing `padding=`"))?;
            let low: Vec<i64> = p.iter().map(|d| d.low).collect();
            let high: Vec<i64> = p.iter().map(|d| d.high).collect();
            let interior: Vec<i64> = p.iter().map(|d| d.interior).collect();
            e.op_shaped(
                instr,
                "stablehlo.pad",
                &operands,
                &[
                    ("edge_padding_low", i64_array(&low)),
                    ("edge_padding_high", i64_array(&high)),
                    ("interior_padding", i64_array(&interior)),
                ],
                &[],
            )
        }
        Opcode::Iota => {
            expect(0)?;
            let d = instr
                .attr_int("iota_dimension")
                .ok_or_else(|| at.error("missing `iota_dimension=`"))?;
            e.op_shaped(
                instr,
                "stablehlo.iota",
                &[],
                &[("iota_dimension", format!("{d} : i64"))],
                &[],
            )
        }
        Opcode::GetDimensionSize => {
            expect(1)?;
            let d = one_dim()?;
            e.op_shaped(
                instr,
                "stablehlo.get_dimension_size",
                &operands,
                &[("dimension", format!("{d} : i64"))],
                &[],
            )
        }
        Opcode::SetDimensionSize => {
            expect(2)?;
            let d = one_dim()?;
            e.op_shaped(
                instr,
                "stablehlo.set_dimension_size",
                &operands,
                &[("dimension", format!("{d} : i64"))],
                &[],
            )
        }
        op => Err(at.error(format!("`{op}` is not a data-movement opcode"))),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{print, print_err};

    #[test]
    fn movement_operations_translate_their_attributes() {
        let text = print(
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
  ROOT out = (f32[5,4], s64[5,4], s32[]) tuple(p, i, g)
}",
        );
        for expected in [
            r#"%0 = "stablehlo.broadcast_in_dim"(%arg0) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> tensor<4x2x3xf32>"#,
            r#"%1 = "stablehlo.transpose"(%0) <{permutation = array<i64: 2, 1, 0>}> : (tensor<4x2x3xf32>) -> tensor<3x2x4xf32>"#,
            r#"%2 = "stablehlo.reshape"(%1) : (tensor<3x2x4xf32>) -> tensor<6x4xf32>"#,
            r#"%3 = "stablehlo.slice"(%2) <{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 6, 3>, strides = array<i64: 2, 1>}> : (tensor<6x4xf32>) -> tensor<3x2xf32>"#,
            r#"%4 = "stablehlo.concatenate"(%3, %3) <{dimension = 1 : i64}> : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x4xf32>"#,
            r#"%5 = "stablehlo.reverse"(%4) <{dimensions = array<i64: 0, 1>}> : (tensor<3x4xf32>) -> tensor<3x4xf32>"#,
            r#"%6 = "stablehlo.constant"() <{value = dense<"0x00000000"> : tensor<f32>}> : () -> tensor<f32>"#,
            r#"%7 = "stablehlo.pad"(%5, %6) <{edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: -1, 0>, interior_padding = array<i64: 1, 0>}> : (tensor<3x4xf32>, tensor<f32>) -> tensor<5x4xf32>"#,
            r#"%8 = "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<5x4xi64>"#,
            r#"%9 = "stablehlo.get_dimension_size"(%7) <{dimension = 1 : i64}> : (tensor<5x4xf32>) -> tensor<i32>"#,
            r#""func.return"(%7, %8, %9) : (tensor<5x4xf32>, tensor<5x4xi64>, tensor<i32>) -> ()"#,
        ] {
            assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        }
    }

    #[test]
    fn bounded_dynamic_values_inside_a_static_program() {
        let text = print(
            "HloModule m
ENTRY e {
  a = f32[4,2] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=4,2] set-dimension-size(a, n), dimensions={0}
  x = f32[<=4,2] negate(d)
  ROOT g = s32[] get-dimension-size(x), dimensions={0}
}",
        );
        for expected in [
            r#"%0 = "stablehlo.set_dimension_size"(%arg0, %arg1) <{dimension = 0 : i64}> : (tensor<4x2xf32>, tensor<i32>) -> tensor<?x2xf32, #stablehlo.bounds<4, ?>>"#,
            r#"%1 = "stablehlo.negate"(%0) : (tensor<?x2xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x2xf32, #stablehlo.bounds<4, ?>>"#,
            r#"%2 = "stablehlo.get_dimension_size"(%1) <{dimension = 0 : i64}> : (tensor<?x2xf32, #stablehlo.bounds<4, ?>>) -> tensor<i32>"#,
        ] {
            assert!(text.contains(expected), "{expected}\nnot in\n{text}");
        }
    }

    #[test]
    fn dynamic_entry_results_and_parameters_are_unsupported() {
        let e = print_err(
            "HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  n = s32[] parameter(1)
  ROOT d = f32[<=4] set-dimension-size(a, n), dimensions={0}
}",
        );
        assert!(e.contains("%d (set-dimension-size)"), "{e}");
        assert!(e.contains("entry result has the dynamic shape"), "{e}");
        let e = print_err(
            "HloModule m
ENTRY e {
  a = f32[<=4] parameter(0)
  ROOT n = f32[<=4] negate(a)
}",
        );
        assert!(e.contains("%a (parameter)"), "{e}");
        assert!(e.contains("passes static arrays"), "{e}");
    }
}
